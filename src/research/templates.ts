/** Commented defaults written by `exp init` (each validates against schemas/research/*). */
/** config.yaml, naming the branch promotions merge into (exp init: the repository's default branch). */
export const configYaml = (mainBranch: string): string => `# exp configuration for this repository (schema: schemas/research/config.schema.json)
version: 1
# branch that promotions merge into and the history views read (exp follows a \`git branch -m\` of it)
main_branch: ${JSON.stringify(mainBranch)}
# remote used by \`exp sync\` when none is given and \`git config exp.remote\` is not set (a
# remote's name in this clone's git config, never a URL)
remote: origin
# where the scenario files live (skills always live in skills/)
scenarios: scenarios
# default agent: scripted | command:PROGRAM | openai:MODEL
agent: scripted
# seed of every run unless --seed is given
seed: 42
run:
  repeat: 1
  concurrency: 4
  max_steps: 40
# what an agent reads of the knowledge at run time (memory modes recall_only, closed_loop)
recall:
  items: 8
  tokens: 1200
# what the proposer draws on for one proposal: its first candidate takes every rule offered
propose:
  items: 16
  tokens: 3000
claims:
  ttl_seconds: 3600
# (no lane here: a lane is one clone's, so each names its own with --lane, EXP_LANE or
# \`git config exp.lane NAME\`, else user@host)
`

export const CONFIG_YAML = configYaml('main')

export const CONTRACT_YAML = `# The research contract (schema: schemas/research/contract.schema.json).
# What an attempt may change, what it must not touch, and how it is judged.
version: 1
objective: raise held-out task success of the skills without regressions
# files a proposal may change (glob patterns); knowledge/*.yaml: the accepted knowledge a
# proposal writes beside the skill it changes (read by people, never by what judges)
editable_scope:
  - skills/**
  - knowledge/*.yaml
# files no proposal may change: data, graders, the contract itself
protected_scope:
  - scenarios/**
  - .research/**
  - src/evals/**
metric:
  name: success_rate
  direction: maximize
dev_eval:
  split: validation
holdout_eval:
  split: holdout
promotion_policy: .research/policy.yaml
budget:
  max_attempts: 8
  max_parallel_lanes: 3
`

export const POLICY_YAML = `# The promotion policy (schema: schemas/research/policy.schema.json; docs/loop.md).
# Every decision cites this file's version and digest. It never collapses to one scalar.
version: "2"
success:
  # the candidate's validation success must be higher than the current skill's
  must_improve: true
  min_delta: 0
  # a candidate that is not worse (say, a rewording once validation is at 100%) passes when a
  # maintainer approves it: exp gate --approved-by, which exp ci init's workflow passes for an
  # approving review of the pull request's head. The automatic loop has no reviewer: never there.
  allow_neutral: true
# statistical rules on the paired validation episodes (candidate and current skill, same
# scenarios, same seeds); each must hold for an accept
require:
  # one-sided exact McNemar test of "the candidate wins more pairs than it loses"
  mcnemar_p_max: 0.05
  # scenarios that passed before and fail now
  max_regressions: 0
  # episodes without a verdict (an agent error, a crash, the step limit, an infrastructure
  # failure) beyond the current skill's, on validation and held-out: rates count valid
  # episodes only, so a skill must not look better by making its agent give up
  max_invalid_increase: 0
  # also available: bootstrap_ci_low_min: 0, pass_k: {k: 2, min: 0.8}, min_paired_n: 32
# validation runs in passes over the split (one repetition of every scenario each) and stops
# at the first pass where the policy decides; mcnemar_p_max is spent across the passes
# (obrien-fleming: little at the first passes, most at the last; pocock: evenly). Six passes:
# a candidate that fixes the one scenario a mature skill still fails wins at most one pair a
# pass, and needs 6 wins to 0 (p = 0.016) to show it; a clear loser stops after a pass or two
sequential:
  looks: 6
  spending: obrien-fleming
# largest allowed relative increase of each cost dimension (0.25 = +25%); a skill grows with
# what it learns, so its prompt tokens may grow more than the work it does
tolerances:
  violations: 0
  tool_calls: 0.25
  errors: 0.5
  tokens: 0.5
  latency_ms: 0.25
  trajectory_length: 0.25
holdout:
  # promotion also needs the sealed held-out split, and it must not get worse
  required: true
  must_not_worsen: true
  tolerance: 0
# who may write evidence (docs/trust.md)
evidence:
  # evaluators whose verifications count: the built-in world + grader
  evaluators: [world]
  # true: evidence counts only from commits signed (git SSH signing) by a key listed in
  # .research/allowed_signers on this branch
  require_signed_evidence: false
`

/** The skill loop's own research contract (docs/contracts.md): editable skills, judged by the world. */
export const SKILLS_CONTRACT_YAML = `# The research contract of the skill loop (docs/contracts.md; schema: schemas/research/contract2.schema.json).
# What an attempt or a pull request may change, what it must not touch, and how it is judged.
version: 2
name: skills
objective: raise held-out task success of the skills without regressions
# files a proposal may change (glob patterns); knowledge/*.yaml: the accepted knowledge a
# proposal writes beside the skill it changes (read by people, never by what judges)
editable_scope:
  - skills/**
  - knowledge/*.yaml
# files no proposal may change: data, graders, the contracts and the policy
protected_scope:
  - scenarios/**
  - .research/**
  - src/evals/**
metric:
  name: success_rate
  direction: maximize
dev_eval:
  evaluator: world
  split: validation
holdout_eval:
  evaluator: world
  split: holdout
promotion:
  holdout_required: true
  policy: .research/policy.yaml
budget:
  max_attempts: 8
  max_parallel_lanes: 3
`
