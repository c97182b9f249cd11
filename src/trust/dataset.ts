import type {EvaluationBody, ManifestBody} from '../records/types.js'
import {citedEntry, type Ledger, type LedgerEntry} from '../store/index.js'
import type {Workspace} from '../workspace/port.js'
import {SEALED_FILE} from '../scenarios/sealed.js'
import {treeOidOfFiles} from '../evals/runner/dataset.js'

/** Where the scenarios a promotion is judged on live: `scenarios/` of the main branch (as the gate reads them). */
export const SCENARIOS_PATH = 'scenarios'

/** The scenarios committed at one commit: the tree of `scenarios/`, and the sealed held-out file in it. */
export interface CommittedDataset {
  /** the tree id of scenarios/ as a checkout of it gives (treeOidOfFiles); undefined: the commit has none */
  tree?: string
  /** the blob of scenarios/holdout.sealed, when there is one */
  sealed?: string
}

/**
 * `scenarios/` at a commit, as a manifest pins it: the tree id of its files (no file is read).
 * Computed from the file list rather than taken from git, so that it is the id a run gives for
 * a checkout of it (src/evals/runner/dataset.ts), in any Workspace.
 */
export async function datasetAt(ws: Workspace, commit: string): Promise<CommittedDataset> {
  const files = await ws.listTree(commit, SCENARIOS_PATH)
  if (!files.length) return {}
  const sealed = files.find(f => f.path === SEALED_FILE)?.blob
  return {tree: treeOidOfFiles(files), ...(sealed ? {sealed} : {})}
}

const short = (x: string) => x.slice(0, 12)

/**
 * Why a manifest's dataset is not the scenarios committed at a proposal's base (or
 * undefined when it is): what a promotion rests on is judged on `scenarios/` of the main
 * branch it was based on, and on its sealed held-out file — never on a folder the promoter
 * chose (`--scenarios DIR`, uncommitted files), which no clone can replay and which may
 * hold a held-out split of the promoter's own making.
 */
export function manifestDatasetProblem(mb: Pick<ManifestBody, 'split' | 'dataset'>, manifest: string, base: CommittedDataset, at: string): string | undefined {
  const where = `scenarios/ at the proposal's base ${short(at)}`
  if (!base.tree) return `manifest ${manifest} pins scenarios tree ${short(mb.dataset.tree)}, and there are no ${where}: a promotion is judged on the scenarios committed on the main branch`
  if (mb.dataset.tree !== base.tree) return `manifest ${manifest} (${mb.split}) pins scenarios tree ${short(mb.dataset.tree)}, not the tree of ${where} (${short(base.tree)}): it ran on another folder of scenarios (--scenarios DIR, or uncommitted changes), whose evidence cannot promote`
  if (mb.split === 'holdout' && (mb.dataset.sealed?.blob ?? undefined) !== base.sealed) return `manifest ${manifest} (holdout) names sealed file ${mb.dataset.sealed ? short(mb.dataset.sealed.blob) : 'none'}, not the ${SEALED_FILE} of ${where} (${base.sealed ? short(base.sealed) : 'none'})`
  return undefined
}

/** Why an evaluation's (an id, or one copy's entry) manifest is not on the base's scenarios (undefined: it is, or it names no evaluation or manifest here). */
export function evaluationDatasetProblem(ledger: Ledger, x: string | LedgerEntry, base: CommittedDataset, at: string): string | undefined {
  const e = typeof x === 'string' ? ledger.get(x) : x
  if (e?.kind !== 'evaluation') return undefined
  const b = ledger.load<'evaluation'>(e).body as EvaluationBody
  const m = citedEntry(ledger, b.manifest, e)
  return m?.kind === 'manifest' ? manifestDatasetProblem(ledger.load<'manifest'>(m).body as ManifestBody, b.manifest, base, at) : undefined
}

/** The first evaluation among `evaluations` whose manifest is not on the base's scenarios, with why. */
export function evidenceDatasetProblem(ledger: Ledger, evaluations: readonly (string | LedgerEntry)[], base: CommittedDataset, at: string): string | undefined {
  for (const x of evaluations) {
    const why = evaluationDatasetProblem(ledger, x, base, at)
    if (why) return `evaluation ${typeof x === 'string' ? x : x.id}: ${why}`
  }
  return undefined
}
