import {sshKeygen} from '../../ssh/keygen.js'
import {ExpError} from '../../errors/index.js'

/**
 * git's own SSH commit signing (gpg.format=ssh), done by ssh-keygen as git does it: the
 * signature covers the commit object without its `gpgsig` header, in the `git`
 * namespace, so `git verify-commit` and `git log --show-signature` accept what exp signs.
 */
export type CommitSigner = (payload: Buffer) => Promise<string>

/** A signer with the private key at `keyFile` (git config exp.signingKey, or user.signingKey with gpg.format=ssh). */
export function sshSigner(keyFile: string): CommitSigner {
  return async payload => {
    const r = await sshKeygen(['-Y', 'sign', '-f', keyFile, '-n', 'git'], payload)
    if (r.code !== 0 || !r.stdout.includes('BEGIN SSH SIGNATURE')) throw new ExpError('E_USAGE', `cannot sign with ${keyFile}: ${r.stderr.trim()}`, {hint: 'check the key named by git config exp.signingKey (an SSH private key without a passphrase, or one loaded in ssh-agent)'})
    return r.stdout.trim()
  }
}
