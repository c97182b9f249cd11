/**
 * Problems found while reading lanes (the ledger skips what they name) or by `exp fsck`.
 * One shape for every layer: the store's checks, the projections' checks (hypothesis
 * transitions) and the evaluator's checks all report a list of these, and `exp fsck` prints
 * them one per line. A layer adds its own classes by using its own `code` values.
 */
export interface Problem {
  /** stable class of the problem (see PROBLEM_CODES for the store's), e.g. `record-digest` */
  code: string
  /** the lane ref (or other ref) it is about */
  ref?: string
  commit?: string
  path?: string
  /** the record it is about */
  id?: string
  message: string
  /** the next step to take, when there is a better one than the code's general hint */
  hint?: string
}

/** The store's problem classes, with the next step for each. */
export const PROBLEM_CODES = {
  'lane-ref-invalid': 'the ref file does not hold an object id: restore it with `git update-ref REF COMMIT` (or `exp sync` from a remote that has the lane)',
  'lane-ref-not-commit': 'a lane ref must point at a commit: restore it with `git update-ref REF COMMIT` (or `exp sync` from a remote that has the lane)',
  'lane-unreadable': "objects of the lane's history are missing or damaged (e.g. a `git gc --prune=now` raced an append): fetch the lane again with `exp sync`, or restore the objects from a backup",
  'lane-rewound': 'the lane moved to a commit that does not contain one it had before (records were dropped): `exp sync` restores it from a remote that has it, or `git update-ref REF OLD-TIP`',
  'commit-not-record': 'only record commits belong on a lane: move other commits to a branch',
  'commit-merge': 'lanes are linear: a record commit has one parent',
  'commit-changes': 'a record commit adds exactly one record file (and the artifacts it names)',
  'commit-message': 'the commit message is damaged or not as exp writes it (a NUL byte cuts it short in git; a control byte exp never writes); the record must be appended again',
  'record-path': 'a record file sits at the path its kind and id give',
  'record-unreadable': 'the object is missing or damaged: fetch the lane again with `exp sync`',
  'record-invalid': 'the record file is not a valid record: append a corrected record',
  'record-mismatch': "the record disagrees with its commit's trailers or its lane",
  'record-not-canonical': 'record files are canonical JSON; this one was not written by exp',
  'record-digest': 'the record content does not hash to its digest: it was changed after it was written',
  'record-id': 'the record id is not derived from its content (or key)',
  'record-too-large': 'exp writes no record file over `exp.maxRecordBytes`: if the lane was written under a higher limit, raise it (`git config exp.maxRecordBytes SIZE`); otherwise the file was put on the lane by hand (large content belongs in an artifact that a small record cites)',
  'artifact-missing': 'the artifact a record names is not in the lane tree',
  'artifact-digest': 'the artifact does not hash to the digest its record names',
  'lamport-order': 'Lamport clocks grow along a lane',
  'duplicate-id': 'two records share an id with different content',
  'dangling-cite': 'a cited record is on no lane of this clone (sync, or append it)',
} as const

export type StoreProblemCode = keyof typeof PROBLEM_CODES

/** Lane problems that stop a lane from being read at all (listing commands exit 5 on them). */
export const LANE_FAILURES: ReadonlySet<string> = new Set<StoreProblemCode>(['lane-ref-invalid', 'lane-ref-not-commit', 'lane-unreadable'])

/** A problem of the store's own classes, with the class's hint. */
export function problem(code: StoreProblemCode, message: string, at: Omit<Problem, 'code' | 'message'> = {}): Problem {
  return {code, ...at, message, hint: at.hint ?? PROBLEM_CODES[code]}
}

/** One line: ref, commit, path, message. */
export function formatProblem(p: Problem): string {
  return `${p.ref ?? ''}${p.commit ? ` ${p.commit.slice(0, 12)}` : ''}${p.path ? ` ${p.path}` : ''}${p.ref || p.commit || p.path ? ': ' : ''}${p.message}`
}
