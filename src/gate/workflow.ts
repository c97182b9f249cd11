import {ExpError} from '../errors/index.js'

/**
 * The GitHub Actions workflow `exp ci init` writes: `exp gate` on every pull request to the
 * main branch (the gate, not a path filter, decides what is in scope), with exp installed by
 * a pinned route, actions pinned by commit, JUnit XML uploaded and one sticky pull-request
 * comment. test/cli/ci.test.ts lints it with a workflow validator and runs its steps locally.
 */
export interface WorkflowOptions {
  /** the branch pull requests target (.research/config.yaml main_branch) */
  mainBranch: string
  /** what `npm install --global` installs: a package spec, tarball URL or git URL, or the packed copy of exp committed at this path (installed from the base branch) */
  install: Install
  /** the exp version writing the file (named in its header) */
  version: string
  /** run the validation episodes in this many parallel jobs (a matrix), then one job decides */
  shards?: number
}

/** Actions pinned by full commit id; the tag is in the comment beside it. */
export const ACTIONS = {
  checkout: 'actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8 # v5.0.0',
  setupNode: 'actions/setup-node@a0853c24544627f65ddf259abe73b1d18a591444 # v5.0.0',
  uploadArtifact: 'actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02 # v4.6.2',
  downloadArtifact: 'actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093 # v4.3.0',
} as const

/**
 * The Node.js the job runs exp on: the Active LTS line (26 since 2026-10-28; 24 moved to
 * maintenance on 2026-10-20 and 20 reached its end of life in April 2026).
 */
export const NODE_VERSION = 26

/** First line of the pull-request comment the gate writes (--comment), found to update it in place. */
export const COMMENT_MARKER = '<!-- exp-gate -->'

/** How the workflow installs exp: an npm install spec, or the packed copy committed at a path of the repository. */
export type Install = {spec: string} | {vendored: string}

/**
 * An install spec goes into the workflow as an environment variable, never into the shell
 * text; it must still not carry an Actions expression (`${{`), a newline, or start like an option.
 * And it must name something the job fetches, never a file of the checkout: the job runs in
 * the pull request's checkout, and a pull request that replaced a file there (`./vendor/exp.tgz`,
 * `e@file:x`, `experience-compiler@./x`, `C:x.tgz`: npm reads each as a path) would choose the
 * exp that judges it. So only what npm fetches from elsewhere is taken (fetchedSpec).
 */
export function checkInstallSpec(spec: string): string {
  const bad = !spec.trim() ? 'it is empty' : spec.includes('${{') ? 'it contains ${{ (an Actions expression)' : [...spec].some(ch => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f) ? 'it contains a control character or newline' : /\s/.test(spec) ? 'it contains whitespace' : spec.startsWith('-') ? 'it starts with - (an npm option)' : /^[a-z][a-z+]*:\/\/[^/@:]*:[^/@]*@/i.test(spec) ? 'it holds a password or token in the URL (user:secret@): the workflow file is committed, and read by everyone who can read the repository' : !fetchedSpec(spec) ? 'it is not a package@version, an https URL or a git URL: npm would read it as a path, and the job would install it from the pull request\'s own checkout (a pull request that replaced the file would choose the exp that judges it)' : undefined
  if (bad) throw new ExpError('E_USAGE', `--install ${JSON.stringify(spec)} cannot be used: ${bad}`, {hint: 'leave --install out (exp ci init then commits a packed copy of this exp under .github/exp/, and the workflow installs the base branch\'s copy), or pass a package@version, an https tarball URL, or a git URL pinned to a commit (github:OWNER/REPO#COMMIT)'})
  return spec
}

/** Whether npm fetches what `spec` names from elsewhere: a registry package, an https or git URL, a hosted git shorthand. */
function fetchedSpec(spec: string): boolean {
  // a registry package: [@scope/]name[@version, range or tag] (no `/`, `:` or `\` after the name: `name@./x` is a path)
  // (not a tarball's file name: npm reads `exp-0.1.0.tgz` as a path, in the job's checkout)
  if (/^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*(@[A-Za-z0-9._^~<>=*|+-]+)?$/.test(spec)) return !/\.(tgz|tar\.gz|tar)$/i.test(spec)
  // a tarball or repository over the network
  if (/^(https:\/\/|git\+https:\/\/|git\+ssh:\/\/|ssh:\/\/)[^/\\]/.test(spec)) return true
  // hosted git: github:OWNER/REPO#REF, or OWNER/REPO#REF (npm's shorthand for github)
  return /^((github|gitlab|bitbucket):)?[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9_.-]+(#\S+)?$/.test(spec) && !/\.(tgz|tar\.gz|tar)(#|$)/i.test(spec) && !/^\.|\/\.\.?(\/|#|$)/.test(spec)
}

/** The repository path of a packed exp: plain, relative, under .github/exp/ (it goes into the workflow). */
function checkVendoredPath(p: string): string {
  if (!/^\.github\/exp\/experience-compiler-[0-9A-Za-z.+-]+\.tgz$/.test(p)) throw new ExpError('E_USAGE', `${JSON.stringify(p)} is not where exp keeps its packed copy`, {hint: 'leave it to exp ci init'})
  return p
}

/** A YAML double-quoted scalar (JSON's escaping is valid YAML). */
const q = (s: string) => JSON.stringify(s)
/** A string literal of an Actions expression. */
const lit = (s: string) => `'${s.replaceAll("'", "''")}'`

/**
 * The steps every job starts with: the repository with its history, Node, exp, the public
 * research lanes — in a sharded gate without the shard lanes: a shard job starts its lane
 * empty and the deciding job takes each from that job's bundle (anyone who may push lanes
 * could have written a lane of that name on the remote; src/gate/shards.ts).
 */
function setupSteps(install: Install, sharded = false): string {
  return `      - uses: ${ACTIONS.checkout}
        with:
          fetch-depth: 0
      - uses: ${ACTIONS.setupNode}
        with:
          node-version: ${NODE_VERSION}
${installStep(install)}      - name: fetch the research lanes
        run: git fetch --no-tags origin 'refs/research/*:refs/research/*' '^refs/research/private/*'${sharded ? ` '^refs/research/lanes/ci-shard-*'` : ''}
`
}

/**
 * The shard jobs of a sharded gate: each runs its slice of the validation episodes of base
 * and head (\`exp gate --shard I/N\`, lane ci-shard-I), and hands the lane to the deciding job
 * as a git bundle in an artifact of this run. Artifacts, not a push: a pull request's token may
 * not write to the repository (a fork's never can), and the lanes of a gate should not land in
 * the repository before review. The deciding job fetches the bundles over any lane of the same
 * name, so only this run's shard jobs can vouch for episodes.
 */
/**
 * The step that installs exp. A packed copy committed in the repository is taken from the
 * base branch, never from the pull request's checkout: a pull request that replaces the file
 * does not choose the exp that judges it.
 */
function installStep(install: Install): string {
  if ('spec' in install) {
    return `      - name: install exp
        env:
          EXP_INSTALL: ${q(install.spec)}
        run: npm install --global --no-audit --no-fund "$EXP_INSTALL"
`
  }
  return `      - name: install exp
        env:
          BASE_REF: \${{ github.event.pull_request.base.ref }}
          EXP_PACKAGE: ${q(install.vendored)}
        # the copy committed on the base branch, not the pull request's (it could replace the file)
        run: |
          git show "refs/remotes/origin/$BASE_REF:$EXP_PACKAGE" > "$RUNNER_TEMP/experience-compiler.tgz"
          npm install --global --no-audit --no-fund "$RUNNER_TEMP/experience-compiler.tgz"
`
}

function shardJob(o: {install: Install; shards: number; condition: string}): string {
  return `  shard:
    if: ${o.condition}
    runs-on: ubuntu-latest
    timeout-minutes: 30
    strategy:
      fail-fast: true
      matrix:
        shard: [${Array.from({length: o.shards}, (_, i) => i + 1).join(', ')}]
    steps:
${setupSteps(o.install, true)}      - name: run this shard of the validation episodes
        env:
          BASE_REF: \${{ github.event.pull_request.base.ref }}
          SHARD: \${{ matrix.shard }}
        run: exp gate --base "refs/remotes/origin/$BASE_REF" --head HEAD --shard "$SHARD/${o.shards}"
      - name: bundle the shard's lane
        env:
          SHARD: \${{ matrix.shard }}
        run: git bundle create "exp-shard-$SHARD.bundle" "refs/research/lanes/ci-shard-$SHARD"
      - name: hand the lane to the deciding job
        uses: ${ACTIONS.uploadArtifact}
        with:
          name: exp-shard-\${{ matrix.shard }}
          path: exp-shard-\${{ matrix.shard }}.bundle
          retention-days: 1
          if-no-files-found: error
`
}

export function workflowYaml(o: WorkflowOptions): string {
  const install: Install = 'spec' in o.install ? {spec: checkInstallSpec(o.install.spec)} : {vendored: checkVendoredPath(o.install.vendored)}
  const main = o.mainBranch
  const shards = o.shards ?? 1
  if (!Number.isInteger(shards) || shards < 1 || shards > 64) throw new ExpError('E_USAGE', `--shards ${shards} cannot be used: give a whole number from 1 to 64`, {hint: 'e.g. exp ci init --shards 4'})
  // every review runs the gate, not only an approving one: a job skipped by its condition is a
  // passing check, and a comment review's skipped run (which also cancelled the running gate:
  // one concurrency group a pull request) turned a failed gate green. The approvals are read
  // from the API in the job, whatever event started it.
  const condition = q(`github.event_name == 'pull_request' || github.event.pull_request.base.ref == ${lit(main)}`)
  const sharded = shards > 1
  const gather = sharded
    ? `      - name: download the shards' lanes
        uses: ${ACTIONS.downloadArtifact}
        with:
          pattern: exp-shard-*
          merge-multiple: true
          path: exp-shards
      - name: gather the shards' lanes
        run: for b in exp-shards/*.bundle; do git fetch --no-tags "$b" '+refs/research/lanes/*:refs/research/lanes/*'; done
`
    : ''
  return `# Written by \`exp ci init${sharded ? ` --shards ${shards}` : ''}\` (exp ${o.version}): the promotion gate on every pull request to ${main}.
# The gate reads the research contracts (.research/contracts/) and policy.yaml from the base and decides what is in scope;
# see \`exp help gate\`. Re-run \`exp ci init --force\` after upgrading exp.
${sharded ? `# The validation episodes run in ${shards} parallel jobs (\`exp gate --shard I/${shards}\`); the gate job gathers
# their lanes and decides (\`exp gate --shards ${shards}\`): the same result as one job.
` : ''}name: exp gate
on:
  pull_request:
    branches: [${q(main)}]
  # a review re-runs the gate (every review: a job its condition skips would be a passing check):
  # with allow_neutral in the policy, a change that is not worse (for example a rewording once
  # validation is at 100%) passes when a maintainer approves it
  pull_request_review:
    types: [submitted]
permissions:
  contents: read
  pull-requests: write
concurrency:
  group: exp-gate-\${{ github.event.pull_request.number }}
  cancel-in-progress: true
jobs:
${sharded ? shardJob({install, shards, condition}) : ''}  gate:
${sharded ? '    needs: shard\n' : ''}    if: ${condition}
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
${setupSteps(install, sharded)}${gather}      - name: find an approving review of this head
        id: review
        env:
          GH_TOKEN: \${{ github.token }}
          PR: \${{ github.event.pull_request.number }}
          HEAD_SHA: \${{ github.event.pull_request.head.sha }}
        # an approval of this very head counts from someone who may write to the repository
        # (author_association MEMBER is any member of the owning organisation, and
        # COLLABORATOR includes read-only ones); a permission that cannot be read counts for none.
        # Each reviewer's last word counts: a later "request changes" or a dismissal withdraws an
        # approval (a comment does not). Logins are read a line at a time, never split or
        # expanded by the shell (renovate[bot] is a glob)
        run: |
          approver=
          reviews=$(gh api "repos/$GITHUB_REPOSITORY/pulls/$PR/reviews" --paginate --jq '.[] | select(.state != "COMMENTED" and .state != "PENDING") | [.user.login, .state, .commit_id] | @tsv')
          logins=$(printf '%s\\n' "$reviews" | awk -F '\\t' -v sha="$HEAD_SHA" 'NF == 3 { state[$1] = $2; commit[$1] = $3 } END { for (l in state) if (state[l] == "APPROVED" && commit[l] == sha) print l }')
          while IFS= read -r login; do
            [ -n "$login" ] || continue
            permission=$(gh api "repos/$GITHUB_REPOSITORY/collaborators/$login/permission" --jq .permission < /dev/null) || permission=none
            case "$permission" in
              admin | write) approver=$login ;;
            esac
          done <<EOF
          $logins
          EOF
          # the approval is of the pull request's head; the gate judges HEAD, its merge into the
          # base: the same head only when HEAD's second parent is it (a push after the review
          # makes a newer merge)
          merged=$(git rev-parse -q --verify 'HEAD^2') || merged=
          if [ -n "$approver" ] && [ "$merged" != "$HEAD_SHA" ]; then
            echo "HEAD is not the merge of $HEAD_SHA: its approval does not count for it"
            approver=
          fi
          echo "approving review of $HEAD_SHA by someone who may write: \${approver:-none}"
          echo "approver=$approver" >> "$GITHUB_OUTPUT"
      - name: gate
        env:
          EXP_HOLDOUT_KEY: \${{ secrets.EXP_HOLDOUT_KEY }}
          BASE_REF: \${{ github.event.pull_request.base.ref }}
          APPROVER: \${{ steps.review.outputs.approver }}
        # (a pull request could commit either name as a link: the later steps read them)
        run: rm -f exp-gate.xml exp-gate.md && exp gate --base "refs/remotes/origin/$BASE_REF" --head HEAD${sharded ? ` --shards ${shards}` : ''} --require-certified --junit exp-gate.xml --comment exp-gate.md \${APPROVER:+--approved-by "$APPROVER"}
      - name: upload the JUnit report
        if: always() && hashFiles('exp-gate.xml') != ''
        uses: ${ACTIONS.uploadArtifact}
        with:
          name: exp-gate-junit
          path: exp-gate.xml
      - name: comment on the pull request (one comment, updated)
        # (the bot's own comment: anyone can write one that begins with the marker)
        # a pull request from a fork gets a read-only token: its result is in the job summary
        if: always() && hashFiles('exp-gate.md') != '' && github.event.pull_request.head.repo.full_name == github.repository
        env:
          GH_TOKEN: \${{ github.token }}
          PR: \${{ github.event.pull_request.number }}
        run: |
          id=$(gh api "repos/$GITHUB_REPOSITORY/issues/$PR/comments" --paginate --jq '.[] | select(.user.login == "github-actions[bot]" and (.body | startswith("${COMMENT_MARKER}"))) | .id' | head -n 1)
          if [ -n "$id" ]; then
            gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$id" -F body=@exp-gate.md > /dev/null
          else
            gh api --method POST "repos/$GITHUB_REPOSITORY/issues/$PR/comments" -F body=@exp-gate.md > /dev/null
          fi
`
}
