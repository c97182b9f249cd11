import {withEncodedForms} from '../../redact/encodings.js'
import {hasNativeGit, runGit} from '../../git/run.js'
import {configValue, readGitConfig} from '../../git/config.js'
import type {RepoPaths} from '../../git/repo.js'

/** How isomorphic-git authenticates to an http(s) remote (its `headers`, `onAuth`, `onAuthSuccess`, `onAuthFailure`). */
export interface HttpAuth {
  headers: Record<string, string>
  onAuth?: (url: string, auth: Credentials) => Promise<Credentials>
  onAuthSuccess?: (url: string, auth: Credentials) => Promise<void>
  onAuthFailure?: (url: string, auth: Credentials) => Promise<Credentials>
  /** the secret values in use (header values and what a Basic one holds, a URL's or a helper's password), and the forms a server may echo them in (the base64 of `user:password` a Basic header sends, hex, percent): masked in anything the remote says back */
  secrets?: () => string[]
}

interface Credentials {
  username?: string
  password?: string
  cancel?: boolean
}

/**
 * Speak to an http(s) remote with the credentials git would use, so that `exp sync` works
 * wherever `git fetch` does: `http.extraHeader` (matched to the URL, as actions/checkout sets
 * it in CI) and git's credential helpers (`git credential fill`, then `approve` or `reject`;
 * a token in the URL is used first). Without a terminal, git is told not to prompt, so a
 * remote that wants credentials nobody configured is an error, not a hang. Without a git
 * binary only a plain `http.extraHeader` applies.
 */
export async function httpAuth(repo: RepoPaths, url: string): Promise<HttpAuth> {
  if (!(await hasNativeGit())) {
    const header = configValue(readGitConfig(repo.commonDir), 'http.extraheader')
    const headers = headerOf(header)
    return {headers, secrets: () => withEncodedForms(secretsOf(url, headers))}
  }
  const cwd = repo.commonDir
  const env = noPrompt()
  const got = await runGit(['--git-dir', cwd, 'config', '--get-urlmatch', 'http.extraheader', url], {cwd, allowFail: true})
  const headers = got.code === 0 ? headerOf(got.stdout.toString('utf8').trim()) : {}
  const credential = async (action: 'fill' | 'approve' | 'reject', auth: Credentials) => runGit(['--git-dir', cwd, 'credential', action], {cwd, env, allowFail: true, input: describe(url, auth)})
  // asked once per sync (a helper that prompts would otherwise prompt for every listing,
  // fetch and push), approved once, and forgotten when refused
  let filled: Credentials | undefined
  let approved = false
  return {
    headers,
    secrets: () => withEncodedForms([...secretsOf(url, headers), ...(filled?.password ? [filled.password, `${filled.username}:${filled.password}`] : [])]),
    onAuth: async (_url, auth) => {
      if (filled) return filled
      // a newline in a value would add lines to git's credential request (host=… of another
      // site, whose stored password would then go to this one: git's CVE-2020-5260)
      if (fields(url, auth).some(f => /[\n\r\0]/.test(f))) return {cancel: true}
      const r = await credential('fill', auth)
      const c = parse(r.stdout.toString('utf8'))
      if (r.code !== 0 || c.password === undefined) return {cancel: true}
      filled = {username: c.username ?? auth.username ?? '', password: c.password}
      return filled
    },
    onAuthSuccess: async (_url, auth) => {
      if (filled && !approved) await credential('approve', auth)
      approved = true
    },
    onAuthFailure: async (_url, auth) => {
      if (filled) await credential('reject', auth)
      filled = undefined
      // one try: a helper that answers the same again would loop
      return {cancel: true}
    },
  }
}

/** What git runs with when there is no terminal: no prompt (a remote that wants credentials nobody configured is an error, not a hang). */
export function noPrompt(): NodeJS.ProcessEnv {
  return process.stdin.isTTY && process.stderr.isTTY ? {} : {GIT_TERMINAL_PROMPT: '0', GCM_INTERACTIVE: 'never'}
}

/**
 * The secret values of a remote's credentials: each header value, the token of a Basic or
 * Bearer one and what a Basic one decodes to (`user:password`, and the password), the URL's
 * user and password. A hostile server can echo any of them into the error exp prints.
 */
function secretsOf(url: string, headers: Record<string, string>): string[] {
  const out: string[] = []
  for (const v of Object.values(headers)) {
    out.push(v)
    const m = /^(?:Basic|Bearer)\s+(\S+)$/i.exec(v)
    if (!m) continue
    out.push(m[1]!)
    const plain = Buffer.from(m[1]!, 'base64').toString('utf8')
    if (/^[^:\s]+:\S+$/.test(plain)) out.push(plain, plain.slice(plain.indexOf(':') + 1))
  }
  try {
    const u = new URL(url)
    if (u.password) out.push(decodeURIComponent(u.password), u.password)
    if (u.username) out.push(decodeURIComponent(u.username))
    // (what is sent for them: Basic base64 of `user:password`)
    if (u.password) out.push(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`)
  } catch {
    // not a URL: nothing in it
  }
  return out.filter(x => x.length >= 4)
}

/** `Name: value` (git's http.extraHeader) as a header map. */
function headerOf(line: string | undefined): Record<string, string> {
  const i = line?.indexOf(':') ?? -1
  return line && i > 0 ? {[line.slice(0, i).trim()]: line.slice(i + 1).trim()} : {}
}

/** The lines of the request `git credential` reads: protocol, host, path, and what is known of the user. */
function fields(url: string, auth: Credentials): string[] {
  const u = new URL(url)
  const lines = [`protocol=${u.protocol.replace(/:$/, '')}`, `host=${u.host}`, `path=${decodeURIComponent(u.pathname.replace(/^\//, ''))}`]
  const user = auth.username || decodeURIComponent(u.username)
  if (user) lines.push(`username=${user}`)
  if (auth.password) lines.push(`password=${auth.password}`)
  return lines
}

function describe(url: string, auth: Credentials): string {
  return `${fields(url, auth).join('\n')}\n\n`
}

function parse(out: string): Credentials {
  const c: Credentials = {}
  for (const line of out.split('\n')) {
    const i = line.indexOf('=')
    if (i < 0) continue
    const k = line.slice(0, i)
    if (k === 'username') c.username = line.slice(i + 1)
    if (k === 'password') c.password = line.slice(i + 1)
  }
  return c
}
