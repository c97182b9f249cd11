import type {ManifestBody, PromotionPolicy, ProposalBody} from '../records/types.js'
import {parseYamlOrJson, recordPath} from '../records/index.js'
import type {Ledger, LedgerEntry} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import {parseScenario} from '../scenarios/load.js'
import {SEALED_FILE, unsealFiles} from '../scenarios/sealed.js'
import type {Scenario} from '../scenarios/types.js'
import {SignatureVerifier} from './ssh.js'
import {Authority} from './authority.js'
import {parseContract} from '../contracts/load.js'
import type {Contract} from '../contracts/types.js'
import {ReplayLog, signatureKey, trustSettings, type SignatureCheck, type TrustInput} from './types.js'
import {datasetAt, SCENARIOS_PATH, type CommittedDataset} from './dataset.js'
import {proposalViolations, type ScopeMemo} from '../loop/proposal-scope.js'

export const POLICY_PATH = '.research/policy.yaml'
export const ALLOWED_SIGNERS = '.research/allowed_signers'

export interface AuthorityOptions {
  /** the commit whose policy and allowed signers rule (main's tip) */
  at?: string
  /** the policy, when the caller has it already (else read from `at`) */
  policy?: PromotionPolicy
  /** replay the traces of these evaluations' verifications (promote: what it decides on; fsck --replay: all) */
  replay?: readonly string[] | 'all'
  /** the held-out key, to replay sealed held-out episodes */
  holdoutKey?: Buffer
}

/**
 * Gather what the trust checks need from the repository — the policy on main, the
 * policies decisions name, signatures when the policy requires them, the scenarios of
 * the manifests to replay — then hand it to a (pure, memoizing) Authority.
 */
export async function loadAuthority(ledger: Ledger, ws: Workspace, o: AuthorityOptions = {}): Promise<Authority> {
  const policy = o.policy ?? (o.at ? await policyAt(ws, o.at) : undefined)
  const settings = trustSettings(policy)
  const named = decisionRefs(ledger)
  const datasets = await baseDatasets(ledger, ws, named.decided)
  const input: TrustInput = {settings, ...(o.at ? {main: o.at} : {}), policies: await decisionPolicies(ws, named.policies), contracts: await contractsByDigest(ledger, ws, named.contracts), proposalScopes: await proposalScopes(ledger, ws, named.accepted), datasets}
  if (settings.requireSigned) input.signatures = await signatures(ledger, ws, o.at, policy)
  if (o.replay) {
    // scenarios/ of main and of every decided proposal's base, by the tree id a run pins: read
    // from those commits when the Workspace does not hold the tree under that id itself
    const committed = new Map<string, string>()
    for (const [commit, d] of [...datasets, ...(o.at ? ([[o.at, await datasetAt(ws, o.at)]] as const) : [])]) if (d.tree) committed.set(d.tree, commit)
    const source = await scenarioSource(ledger, ws, o.replay, o.holdoutKey, committed)
    input.scenarios = source.scenarios
    input.unreplayable = source.why
    input.replays = new ReplayLog()
  }
  return new Authority(ledger, input)
}

export async function policyAt(ws: Workspace, commit: string): Promise<PromotionPolicy | undefined> {
  const bytes = await ws.readFile(commit, POLICY_PATH)
  if (!bytes) return undefined
  try {
    // (read as promote reads it: a policy promote would refuse is none here either)
    return (await parseYamlOrJson(bytes.toString('utf8'), `${commit.slice(0, 12)}:${POLICY_PATH}`)) as PromotionPolicy
  } catch {
    return undefined
  }
}

/** records read at a time when only a few fields of each are kept */
const BATCH = 2048

/** What the trust inputs take from the decisions, in ledger order. */
interface DecisionRefs {
  /** the policy blobs they name */
  policies: Set<string>
  /** the contract blobs (contract@2 decisions) they name, with their paths */
  contracts: [blob: string, path: string][]
  /** the proposals an accept names */
  accepted: Set<string>
  /** the skill proposals any decision names */
  decided: Set<string>
}

/**
 * Every decision, read once for the three inputs that need them, in batches (a read each
 * was three passes of single loads), keeping only what they name.
 */
function decisionRefs(ledger: Ledger): DecisionRefs {
  const out: DecisionRefs = {policies: new Set(), contracts: [], accepted: new Set(), decided: new Set()}
  const es = ledger.select({kinds: ['decision'], includePrivate: true})
  for (let i = 0; i < es.length; i += BATCH) {
    for (const {body: d} of ledger.loadAll<'decision'>(es.slice(i, i + BATCH))) {
      if (d.policy.blob) out.policies.add(d.policy.blob)
      if (d.policy.version === 'contract@2' && d.policy.blob) out.contracts.push([d.policy.blob, d.policy.path ?? 'contract.yaml'])
      if (d.verdict === 'accept') out.accepted.add(d.proposal)
      if (!d.proposal.startsWith('at-')) out.decided.add(d.proposal)
    }
  }
  return out
}

/** Every copy of the proposals named (another lane's copy of an id too: a decision takes its own lane's, store/own.ts citedEntry). */
function proposalCopies(ledger: Ledger, ids: Iterable<string>): LedgerEntry[] {
  return [...ids].flatMap(id => {
    const p = ledger.get(id)
    return p ? [p, ...ledger.copies(id)].filter(x => x.kind === 'proposal') : []
  })
}

/**
 * For each proposal an accept decision names: what its branch changes beyond its skill, by id
 * (the copy every view shows) and by signatureKey (another lane's copy of that id).
 * Proposals whose commits this clone does not hold are left out (nothing to compare here):
 * which ones is asked once for all of them, not one read each.
 */
async function proposalScopes(ledger: Ledger, ws: Workspace, accepted: ReadonlySet<string>): Promise<Map<string, string[]>> {
  const entries = proposalCopies(ledger, accepted)
  const proposals: {id: string; body: Pick<ProposalBody, 'skill' | 'base' | 'head'>}[] = []
  for (let i = 0; i < entries.length; i += BATCH) {
    const chunk = entries.slice(i, i + BATCH)
    ledger.loadAll<'proposal'>(chunk).forEach((p, k) => {
      const e = chunk[k]!
      proposals.push({id: ledger.get(e.id) === e ? p.id : signatureKey(e), body: {skill: p.body.skill, base: p.body.base, head: p.body.head}})
    })
  }
  const present = await ws.commitsPresent(proposals.flatMap(p => [p.body.base.commit, p.body.head.commit]))
  const out = new Map<string, string[]>()
  const scopes: ScopeMemo = new Map()
  for (const p of proposals) {
    if (!present.has(p.body.base.commit) || !present.has(p.body.head.commit)) continue
    try {
      out.set(p.id, await proposalViolations(ws, p.body, scopes))
    } catch {
      // its trees are not all in this clone (or the base's contracts do not parse): nothing to compare here
    }
  }
  return out
}

/**
 * `scenarios/` at the base commit of each decided proposal (src/trust/dataset.ts): what its
 * evidence must have run on. Bases this clone does not hold are left out.
 */
async function baseDatasets(ledger: Ledger, ws: Workspace, decided: ReadonlySet<string>): Promise<Map<string, CommittedDataset>> {
  const bases = new Set<string>()
  const entries = proposalCopies(ledger, decided)
  for (let i = 0; i < entries.length; i += BATCH) for (const p of ledger.loadAll<'proposal'>(entries.slice(i, i + BATCH))) bases.add(p.body.base.commit)
  const present = await ws.commitsPresent([...bases])
  const out = new Map<string, CommittedDataset>()
  for (const commit of present) {
    try {
      out.set(commit, await datasetAt(ws, commit))
    } catch {
      // its tree is not all in this clone: nothing to compare here
    }
  }
  return out
}

async function decisionPolicies(ws: Workspace, blobs: ReadonlySet<string>): Promise<Map<string, PromotionPolicy>> {
  const out = new Map<string, PromotionPolicy>()
  for (const blob of blobs) {
    const bytes = await ws.readBlob(blob)
    if (!bytes) continue
    try {
      out.set(blob, (await parseYamlOrJson(bytes.toString('utf8'), blob)) as PromotionPolicy)
    } catch {
      // an unreadable policy is a missing one: decisions naming it do not stand
    }
  }
  return out
}

/** The contracts attempts and their decisions name, by digest, read from the blobs they pin. */
async function contractsByDigest(ledger: Ledger, ws: Workspace, named: readonly (readonly [string, string])[]): Promise<Map<string, Contract>> {
  const blobs = new Map<string, string>()
  for (const a of ledger.records({kinds: ['attempt'], includePrivate: true})) {
    const c = a.body.contract
    if (c.blob) blobs.set(c.blob, c.path ?? `${c.name}.yaml`)
  }
  for (const [blob, file] of named) blobs.set(blob, file)
  const out = new Map<string, Contract>()
  for (const [blob, file] of blobs) {
    const bytes = await ws.readBlob(blob)
    const c = bytes ? parseContract(bytes.toString('utf8'), file, blob).contract : undefined
    if (c) out.set(c.source.digest, c)
  }
  return out
}

async function signatures(ledger: Ledger, ws: Workspace, at: string | undefined, policy: PromotionPolicy | undefined): Promise<Map<string, SignatureCheck>> {
  const out = new Map<string, SignatureCheck>()
  const path = policy?.evidence?.allowed_signers ?? ALLOWED_SIGNERS
  const allowed = at ? await ws.readFile(at, path) : undefined
  const entries = ledger.select({kinds: ['evaluation', 'decision', 'verdict'], includePrivate: true})
  if (!allowed) {
    for (const e of entries) out.set(signatureKey(e), {reason: `no allowed-signers file at ${path} on the main branch`})
    return out
  }
  const verifier = new SignatureVerifier(allowed.toString('utf8'))
  try {
    const bytes = ledger.recordBytes(entries)
    for (const [i, e] of entries.entries()) {
      const raw = await ws.rawCommit(e.commit)
      // a signature vouches for what its commit added: the commit an entry names comes from
      // the projection cache, which anyone who can write .git can edit, so a signed commit
      // counts for a record only when it is the commit that added exactly this record file
      const added = await addedBy(ws, raw, e.commit, recordPath(e.kind, e.id), bytes[i]!)
      out.set(signatureKey(e), added ? {reason: added} : await verifier.verify(e.commit, raw))
    }
  } finally {
    await verifier.close()
  }
  return out
}

/** Why `commit` is not the commit that added `file` with exactly `bytes`, or undefined when it is. */
async function addedBy(ws: Workspace, raw: Buffer, commit: string, file: string, bytes: Buffer): Promise<string | undefined> {
  const have = await ws.readFile(commit, file)
  const not = `commit ${commit.slice(0, 12)} did not add this record`
  if (!have?.equals(bytes)) return `${not} (its ${file} is ${have ? 'another file' : 'missing'})`
  // the first parent (git's header lists parents after the tree) must not hold it yet: lane trees are cumulative
  const parent = /^parent ([0-9a-f]{40,64})$/m.exec(raw.toString('latin1', 0, Math.max(0, raw.indexOf('\n\n'))))?.[1]
  if (parent && (await ws.hasFile(parent, file))) return `${not} (an earlier commit did)`
  return undefined
}

/**
 * The scenarios each manifest ran, from the dataset tree it pins (and the sealed file in it),
 * and for a manifest whose scenarios cannot be opened here, why: its episodes are not replayed.
 */
async function scenarioSource(ledger: Ledger, ws: Workspace, which: readonly string[] | 'all', key: Buffer | undefined, committed: ReadonlyMap<string, string>): Promise<{scenarios: (manifest: string) => ReadonlyMap<string, Scenario> | undefined; why: (manifest: string) => string}> {
  const manifests = new Set<string>()
  const evals = which === 'all' ? ledger.select({kinds: ['evaluation'], includePrivate: true}).map(e => e.id) : which
  for (const id of evals) {
    const e = ledger.get(id)
    if (e?.kind === 'evaluation') manifests.add(ledger.load<'evaluation'>(e).body.manifest)
  }
  const byTree = new Map<string, Map<string, Scenario> | string>()
  const byManifest = new Map<string, Map<string, Scenario>>()
  const reasons = new Map<string, string>()
  for (const m of manifests) {
    const me = ledger.get(m)
    if (me?.kind !== 'manifest') continue
    const mb = ledger.load<'manifest'>(me).body as ManifestBody
    // a sealed held-out split opens only with the key
    if (mb.split === 'holdout' && mb.dataset.sealed && !key) {
      reasons.set(m, 'its held-out split is sealed and no key was found (EXP_HOLDOUT_KEY)')
      continue
    }
    const tree = mb.dataset.tree
    let scenarios = byTree.get(tree)
    if (!scenarios) byTree.set(tree, (scenarios = await scenariosOfTree(ws, tree, key, committed.get(tree))))
    if (typeof scenarios === 'string') reasons.set(m, scenarios)
    else if (!scenarios.size) reasons.set(m, `its dataset tree ${tree.slice(0, 12)} holds no scenario that parses`)
    else if (mb.split === 'holdout' && mb.dataset.sealed && ![...scenarios.values()].some(s => s.split === 'holdout')) reasons.set(m, `its sealed held-out file does not open with this key (dataset tree ${tree.slice(0, 12)})`)
    else byManifest.set(m, scenarios)
  }
  return {scenarios: manifest => byManifest.get(manifest), why: manifest => reasons.get(manifest) ?? `manifest ${manifest} is not in the ledger`}
}

/** The scenarios of a dataset tree, or why there are none to replay with. */
async function scenariosOfTree(ws: Workspace, tree: string, key: Buffer | undefined, commit: string | undefined): Promise<Map<string, Scenario> | string> {
  const out = new Map<string, Scenario>()
  let files
  try {
    // (a trusted tree: its sealed held-out split may be large)
    files = await ws.listFiles(tree, undefined, {max: Infinity})
  } catch {
    if (commit) files = await ws.listFiles(commit, SCENARIOS_PATH, {max: Infinity}).catch(() => undefined)
  }
  if (!files) return `its dataset tree ${tree.slice(0, 12)} is not in this repository (scenarios run from a folder git does not hold: --scenarios DIR, or uncommitted changes)`
  for (const f of files) {
    if (/\.ya?ml$/.test(f.path)) {
      const s = parseScenario(f.content.toString('utf8'), f.path).scenario
      if (s) out.set(s.id, s)
    } else if (f.path === SEALED_FILE && key) {
      try {
        for (const x of unsealFiles(f.content.toString('utf8'), key, f.path)) {
          const s = parseScenario(x.content, x.name).scenario
          if (s) out.set(s.id, s)
        }
      } catch {
        // another key: its episodes cannot be replayed here
      }
    }
  }
  return out
}
