import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import {exp} from '../helpers/cli.js'
import {git, makeRepo} from '../helpers/repo.js'
import {CONTRACT} from '../helpers/contracts.js'
import {parseContract} from '../../src/contracts/load.js'
import {checkScope} from '../../src/gate/scope.js'

const at = (text: string) => parseContract(text, '.research/contracts/quad.yaml').problems.map(p => `${p.line}: ${p.message}`)

t.test('contract problems name their line: YAML, schema, and the rules a schema cannot say', async t => {
  t.same(at(CONTRACT), [], 'the documented contract is clean')
  t.match(at(CONTRACT.replace('direction: maximize', 'direction: upward')), [/^12: metric.direction must be one of: maximize, minimize/])
  t.match(at(CONTRACT.replace('  margin: 0.01\n', '  margin: 0.01\n  colour: red\n')), [/^14: metric.colour is not an allowed field/])
  t.match(at(CONTRACT.replace('name: quad', 'name: other')), [/^2: name "other" does not match the file name "quad"/])
  t.match(at(CONTRACT.replace('editable_scope:\n  - params.json', 'editable_scope:\n  - params.json\n  - eval.py')), [/eval.py" is also protected/])
  t.match(at(CONTRACT.replace('  - .research/**\n', '')), [/protected_scope must cover .research/])
  t.match(at(CONTRACT.replace('  - data/**\n', '')), [/private_data\[0\] "data\/secret.json" must be inside the protected scope/])
  t.match(at(CONTRACT.replace('editable_scope:\n  - params.json', 'editable_scope:\n  - params.json\n  - metrics.json')), [/metrics_file "metrics.json" is editable: an attempt could write its own score/])
  t.match(at(CONTRACT.replace('  - params.json', '  - ../outside')), [/must be a path inside the repository/])
  // found by a sweep: an editable artifact could be supplied by the attempt
  t.match(at(CONTRACT.replace('editable_scope:\n  - params.json', 'editable_scope:\n  - params.json\n  - report.txt').replace('  command: python3 eval.py dev\n', '  command: python3 eval.py dev\n  required_artifacts: [report.txt]\n')), [/required_artifacts\[0\] "report.txt" is editable: an attempt could supply the artifact the evaluator must write/])
  t.match(at('version: 2\nname: quad\n  bad: [indent\n'), [/^\d+: YAML:/])
  t.match(at(CONTRACT.replace('  command: python3 eval.py dev\n', '  evaluator: world\n  command: python3 eval.py dev\n')), [/the world evaluator runs no command/])
  // found by an attack sweep: it passed lint, and an evaluation recorded things before it failed
  t.match(at(CONTRACT.replace("command: python3 eval.py dev\n", "command: \"python3 'eval.py dev\"\n")), [/dev_eval\.command "python3 'eval\.py dev" cannot be split into words/])
})

// Found by an attack sweep: what an evaluator command runs besides its script files. `npm run
// -s eval` with `*.json` editable: the attempt rewrote the eval script in package.json (dev and
// held-out 1000, promoted, the gate passed); `python3 -m harness.eval` with `*.py` editable: a
// root json.py replaced the standard library's; a `.python-version` chose the interpreter.
t.test('a command that reads what it runs from a file by name — a runner, python -m, a version file — needs that file protected', async t => {
  const ed = (g: string, text = CONTRACT) => text.replace('editable_scope:\n  - params.json', `editable_scope:\n  - params.json\n  - ${JSON.stringify(g)}`)
  const cmd = (c: string, text = CONTRACT) => text.replace(/command: python3 eval\.py (dev|holdout)/g, `command: ${c}`)
  const prot = (g: string, text: string) => text.replace('  - .research/**\n', `  - .research/**\n  - ${JSON.stringify(g)}\n`)
  t.match(at(cmd('npm run -s eval', ed('*.json'))), [/^16: dev_eval\.command "npm run -s eval": npm reads what it runs from its files, in the folder it runs in or one the command names, and the editable scope covers "package\.json"/, /^15: dev_eval\.metrics_file/, /^20: holdout_eval\.command/, /^19: holdout_eval\.metrics_file/])
  t.same(at(cmd('npm run -s eval', prot('package.json', ed('src/**')))), [], 'a runner whose files are protected, beside editable sources')
  t.match(at(cmd('make eval', ed('Makefile'))), [/make reads what it runs from its files, in the folder it runs in or one the command names, and the editable scope covers "Makefile"/, /holdout_eval/])
  t.match(at(cmd('python3 -m pytest tests', ed('conftest.py'))), [/pytest reads what it runs from its files, in the folder it runs in or one the command names, and the editable scope covers "conftest\.py"/, /holdout_eval/])
  t.match(at(cmd('python3 -m harness.eval', ed('*.py'))), [/python -m puts the folder it runs in first on sys\.path.*"json\.py"/, /holdout_eval/])
  t.match(at(cmd('python3 -m harness.eval', ed('harness/**'))), [/python -m harness\.eval runs them, and the editable scope covers "harness\/eval\.py", "harness\/eval\/__main__\.py", "harness\/eval\/__init__\.py", "harness\/__init__\.py"/, /holdout_eval/])
  t.same(at(cmd('python3 -m harness.eval', prot('harness/**', ed('solver/**')))), [], 'a protected module beside editable sources')
  t.match(at(ed('.*')), [/a version manager's shim reads them to choose the interpreter it runs, and the editable scope covers "\.python-version", "\.tool-versions"/, /the runners that load an environment file read it, and the editable scope covers "\.env"/, /^20: holdout_eval.*version manager/, /^20: holdout_eval.*environment file/])
  t.same(at(ed('.config/**')), [], 'an editable dot folder holds no version file of the root')
  // Node looks for a package in node_modules/ from the script's folder up, not only beside it
  t.match(at(cmd('node harness/eval.mjs', prot('harness/**', ed('node_modules/**')))), [/runs "harness\/eval\.mjs", and the editable scope may add a node_modules\/ package beside it \("node_modules\/probe\/index\.js"\)/, /holdout_eval/])
  t.same(at(cmd('python3 eval.py dev', ed('src/**'))), [], 'words that are no runner name nothing')
  // found by the sweep of these rules: a runner pointed at another folder, clustered Python
  // flags, tsx's tsconfig.json, a conftest.py below the root, what node loads before a script
  const flagged: [string, string, RegExp][] = [
    ['npm --prefix web run eval', 'web/**', /"web\/package\.json"/],
    ['npm --prefix=web run eval', 'web/**', /"web\/package\.json"/],
    ['make -C web eval', 'web/**', /"web\/Makefile"/],
    ["bash -c 'cd web && npm run eval'", 'web/**', /"web\/package\.json"/],
    ['make -f conf/eval.mk', 'conf/**', /"conf\/eval\.mk"/],
    ['uv run --directory web python eval.py', 'web/**', /"web\/pyproject\.toml"/],
    ['python3 -um harness.eval', '*.py', /python -m puts the folder it runs in first on sys\.path.*"json\.py"/],
    ['python3 -Bc "import harness.eval"', '*.py', /python -c puts/],
    ['tsx harness/eval.ts', '*.json', /tsx reads what it runs.*"tsconfig\.json"/],
    ['node --import tsx harness/eval.ts', '*.json', /tsx reads what it runs.*"tsconfig\.json"/],
    ['python3 -m pytest', 'src/**', /pytest reads what it runs.*"src\/conftest\.py"/],
    ['node -r ./hook harness/eval.js', 'hook.js', /node loads them before the script, and the editable scope covers "hook\.js"/],
    // and of the sweep after it: options written with their value, a makefile by any name, a long
    // Python option's value, node's --env-file, a conftest.py below a wildcard folder
    ['make -s -Cweb eval', 'web/**', /"web\/Makefile"/],
    ['make -fconf/eval.rules', 'conf/**', /"conf\/eval\.rules"/],
    ['pnpm -Cweb run eval', 'web/**', /"web\/package\.json"/],
    ['python3 --check-hash-based-pycs default -m harness.eval', '*.py', /python -m puts/],
    ['node --env-file=conf/env harness/eval.js', 'conf/**', /node loads them before the script.*"conf\/env"/],
    ['python3 -m pytest -q', 'pkg/*/src/**', /"pkg\/x\/src\/conftest\.py"/],
    ['env PYTHONPATH=src python3 harness/eval.py', 'src/**', /sets PYTHONPATH \(env\): exp cannot tell what it makes the evaluator run \(set it in the protected evaluator script instead\)/],
    ['make eval MAKEFILES=conf/x.mk', 'docs/**', /sets MAKEFILES \(make\): exp cannot tell what it makes the evaluator run \(set it in the Makefile instead, outside the editable scope\)/],
    ['just eval VAR=1', 'docs/**', /sets VAR \(just\): .*\(set it in the justfile instead, outside the editable scope\)/],
    // (and of the sweep after: a package folder named like the standard library, other shells,
    // programs that load an environment, interpreters' search paths, a .env)
    ['python3 -m harness.eval', '*/*.py', /"json\/__init__\.py"/],
    ['rbash -c "PYTHONPATH=src python3 harness/eval.py"', 'src/**', /runs shell code \(rbash -c\)/],
    ['dotenv -f conf/env run python3 harness/eval.py', 'conf/**', /runs dotenv, which sets an environment lint cannot read/],
    ['perl -Isrc harness/eval.pl', 'src/**', /puts them first on its interpreter's search path, and the editable scope covers "src\/probe"/],
    ['java -cp src:harness Eval', 'src/**', /search path.*"src\/probe"/],
    ['pipenv run python3 harness/eval.py', '.env', /load an environment file read it, and the editable scope covers "\.env"/],
    // (and of the last sweep: shell code sets what lint cannot see — `+=`, `. conf/env`, export)
    ['bash -c \'cd "$PWD/web" && npm run eval\'', 'docs/**', /runs shell code \(bash -c\)/],
    ['bash -c "PYTHONPATH+=src python3 harness/eval.py"', 'src/**', /runs shell code \(bash -c\)/],
    ['sh -ec ". conf/env; python3 harness/eval.py"', 'conf/**', /runs shell code \(sh -c\)/],
    // (and of the known limits after them: modules a wrapper runs, inline code, node --run)
    ['coverage run -m tools.eval', 'tools/**', /coverage -m tools\.eval runs them, and the editable scope covers "tools\/eval\.py"/],
    ['python3 -m coverage run -m tools.eval', 'tools/**', /coverage -m tools\.eval runs them/],
    ['python3 -m cProfile -m tools.eval', 'tools/**', /cProfile -m tools\.eval runs them/],
    ['ipython -m tools.eval', 'tools/**', /ipython -m tools\.eval runs them/],
    // (and of the sweep after: lint reads no inline code, it refuses it; runners of modules named
    // as arguments, a folder as the script, .pyw, and test runners that discover what they run)
    ['python3 -c "import harness.x, tools.eval; tools.eval.main()"', 'tools/**', /runs inline code \(python -c\): exp cannot tell what it makes the evaluator run/],
    [`python3 -c "__import__('tools.eval')"`, 'tools/**', /runs inline code \(python -c\)/],
    ['python3 -Ic "import importlib; importlib.import_module(\'tools.eval\')"', 'tools/**', /runs inline code \(python -c\)/],
    ['python3 -m timeit "import tools.eval"', 'tools/**', /runs inline code \(python -m timeit\)/],
    ['ipython -c "import tools.eval"', 'tools/**', /runs inline code \(ipython -c\)/],
    [`node -pe "require('./tools/eval')"`, 'tools/**', /runs inline code \(node -pe\)/],
    ['node --eval=1', 'tools/**', /runs inline code \(node --eval\)/],
    ["perl -ne 'do \"tools/eval.pl\"'", 'tools/**', /runs inline code \(perl -ne\)/],
    ['ruby -e "load \'tools/eval.rb\'"', 'tools/**', /runs inline code \(ruby -e\)/],
    ['deno eval "import \'./tools/eval.ts\'"', 'tools/**', /runs inline code \(deno eval\)/],
    ['python3 -m runpy tools.eval', 'tools/**', /python -m runpy tools\.eval runs them, and the editable scope covers "tools\/eval\.py"/],
    ['python3 -m unittest tools.eval', 'tools/**', /python -m unittest tools\.eval runs them/],
    ['python3 -m doctest tools/eval.md', 'tools/**', /python -m doctest runs them, and the editable scope covers "tools\/eval\.md"/],
    ['python3 tools', 'tools/**', /python3 tools runs them, and the editable scope covers "tools\/__main__\.py"/],
    ['node tools', 'tools/**', /node tools runs them, and the editable scope covers "tools\/index\.js", "tools\/package\.json"/],
    ['python3 tools/eval.pyw', 'tools/**', /runs "tools\/eval\.pyw", which is editable/],
    ['python3 -m unittest', 'configs/**', /unittest reads what it runs from its files.*"configs\/test_probe\.py"/],
    ['python3 -m pytest', 'configs/**', /pytest reads what it runs from its files.*"configs\/test_probe\.py"/],
    ['node --test', 'configs/**', /node --test runs the test files it finds, and the editable scope covers "configs\/probe\.test\.js"/],
    // (and of the sweep after: pytest's doctests of test*.txt, JavaScript test runners, notebooks, php -B)
    ['python3 -m pytest -q', 'notes/*.txt', /pytest reads what it runs.*"notes\/test_probe\.txt"/],
    ['npx jest', 'configs/**', /jest reads what it runs.*"configs\/probe\.test\.js"/],
    ['npx mocha', 'configs/**', /mocha reads what it runs.*"configs\/test\/probe\.js"/],
    ['npx vitest run', '*.ts', /vitest reads what it runs.*"vitest\.config\.ts"/],
    ['jupyter nbconvert --execute --to notebook tools/eval.ipynb', 'tools/**', /runs "tools\/eval\.ipynb", which is editable/],
    ['php -B "include \'tools/eval.php\';" harness/eval.php', 'tools/**', /runs inline code \(php -B\)/],
    // (and of the sweep after: shell code run by npx -c and env -S, awk's program, a package npx
    // installs from a folder, ts-node's nearest tsconfig.json, uv run -m, deno's and pdm's files)
    [`npx -c 'python3 tools/eval.py'`, 'tools/**', /runs shell code \(npx -c\)/],
    ['npm exec --call=tools/run', 'tools/**', /runs shell code \(npm -c\)/],
    ['env -S "python3 tools/eval.py"', 'tools/**', /runs a command line env -S splits/],
    ['awk "BEGIN{system(\\"python3 tools/eval.py\\")}"', 'tools/**', /runs inline code \(awk's program\)/],
    ['npx --yes file:tools/pkg', 'tools/**', /installs and runs the package in them, and the editable scope covers "tools\/pkg\/package\.json"/],
    ['npm exec --package=link:./tools/pkg -- score', 'tools/**', /installs and runs the package in them/],
    ['npx ts-node lib/sub/eval.ts', 'lib/sub/tsconfig.json', /a tsconfig\.json \(ts-node and tsx read the one nearest the script/],
    ['uv run -m tools.eval', 'tools/**', /uv -m tools\.eval runs them/],
    ['uv run -mtools.eval', 'tools/**', /uv -m tools\.eval runs them/],
    ['deno run harness/eval.ts', 'deno.json', /deno reads what it runs.*"deno\.json"/],
    ['pdm run python harness/eval.py', '.pdm-python', /pdm reads what it runs.*"\.pdm-python"/],
    ['script -qec "python3 tools/eval.py" /dev/null', 'tools/**', /runs shell code \(script -c\)/],
    ['node --run eval', '*.json', /node --run reads the script it runs from package\.json, and the editable scope covers "package\.json"/],
    ['node harness/eval.js', '*.json', /may add a package\.json \(its "type", "imports" and "exports" decide how the script and what it imports load\) beside it \("package\.json"\)/],
    // (and of the known limits after them: a program read from a file an option names, a script
    // without an extension, what pip installs from the checkout)
    ['sed -f tools/fix.sed harness/out.txt', 'tools/**', /sed -f reads the program it runs from it, and the editable scope covers "tools\/fix\.sed"/],
    ['awk -ftools/prog harness/out.txt', 'tools/**', /awk -f reads the program it runs from it.*"tools\/prog"/],
    ['jq --from-file=tools/score.jq harness/out.json', 'tools/**', /jq --from-file reads the program it runs from it.*"tools\/score\.jq"/],
    ['xargs -a tools/cmds python3', 'tools/**', /xargs -a reads the program it runs from it.*"tools\/cmds"/],
    ['perl -x tools/notes.txt', 'tools/**', /perl tools\/notes\.txt runs it, and the editable scope covers "tools\/notes\.txt"/],
    ['bash tools/run', 'tools/**', /bash tools\/run runs it/],
    ['bash -o pipefail tools/run', 'tools/**', /bash tools\/run runs it/],
    ['php -c tools/php.ini harness/eval.php', 'tools/**', /php -c reads the program it runs from it.*"tools\/php\.ini"/],
    ['pip install -e . && python3 harness/eval.py', 'setup.py', /pip install builds the project there, running its setup\.py, and the editable scope covers "setup\.py"/],
    ['python3 -m pip install -r tools/reqs.txt && python3 harness/eval.py', 'tools/**', /pip install reads what to install from it.*"tools\/reqs\.txt"/],
    ['pip3 install ./tools/pkg && python3 harness/eval.py', 'tools/**', /running its setup\.py.*"tools\/pkg\/setup\.py"/],
  ]
  for (const [c, g, want] of flagged) {
    const problems = at(cmd(c, prot('harness/**', ed(g))))
    t.ok(problems.some(m => want.test(m)), c, {problems})
  }
  t.same(at(cmd('python3 -m harness.eval', prot('harness/**', ed('web/**')))), [], 'a folder the command does not name is not read')
  t.same(at(cmd('python3 harness/eval.py -m tools.eval', prot('harness/**', ed('tools/**')))), [], "a script's own -m is its argument, no module python runs")
  t.same(at(cmd('node -r ./harness/hook harness/eval.js', prot('harness/**', ed('tools/**')))), [], "node's -r is no inline code")
  t.same(at(cmd('perl -Iexample harness/eval.pl', prot('harness/**', ed('tools/**')))), [], "perl's -I value is no inline code")
  t.same(at(cmd('python3 -u harness', prot('harness/**', ed('tools/**')))), [], 'a protected folder as the script')
  for (const c of ['sed -f harness/fix.sed tools/out.txt', 'bash harness/run', 'pip install numpy && python3 harness/eval.py', 'pip install -r harness/reqs.txt && python3 harness/eval.py', 'awk -F, -f harness/prog tools/x', 'bash -o pipefail harness/run', 'ruby -I harness harness/eval']) t.same(at(cmd(c, prot('harness/**', ed('tools/**')))), [], `${c}: its program is protected`)
  // (found by a sweep: a solver in an editable src/** beside protected tests was refused for every test runner)
  for (const c of ['python3 -m pytest harness', 'python3 -m pytest -q harness/test_eval.py', 'python3 -m unittest harness.test_eval', 'python3 -m unittest discover -s harness', 'node --test harness/', 'node --test harness/eval.test.js']) t.same(at(cmd(c, prot('harness/**', ed('src/**')))), [], `${c}: collects from a protected folder only`)
  // (and of the sweep after: options with their value, `npx jest -c` is jest's config; jest's and vitest's words are patterns, not folders)
  for (const c of ['python3 -m pytest -p no:cacheprovider -k score harness', 'python3 -m pytest -q -W error -n 4 harness', 'node --test --test-concurrency 1 harness/']) t.same(at(cmd(c, prot('harness/**', ed('src/**')))), [], `${c}: collects from a protected folder only`)
  t.ok(at(cmd('npx jest -c harness/jest.config.js harness', prot('harness/**', ed('src/**')))).every(m => !/shell code/.test(m)), "jest's -c is no shell code")
  for (const c of ['npx jest harness', 'npx vitest run harness']) t.ok(at(cmd(c, prot('harness/**', ed('src/**')))).some(m => /"src\/probe\.test\.js"/.test(m)), `${c}: a pattern, it collects anywhere`)
  t.ok(at(cmd('python3 -m pytest -p tools.plugin harness', prot('harness/**', ed('tools/**')))).some(m => /pytest -p tools\.plugin imports them/.test(m)), 'a plugin pytest imports by name')
  // (and of the sweep after: ini overrides, `-c=` configs, --pyargs, node's test reporter, npm's options with values)
  for (const [c, want] of [
    ['python3 -m pytest -q -o "addopts=src" harness', /overrides pytest's configuration \(-o\)/],
    ['python3 -m pytest -oaddopts=src harness', /overrides pytest's configuration \(-o\)/],
    ['python3 -m pytest --override-ini=pythonpath=src harness', /overrides pytest's configuration \(--override-ini\)/],
    ['python3 -m pytest -c=src/pytest.ini harness', /"src\/pytest\.ini"/],
    ['python3 -m pytest harness --pyargs', /"src\/test_probe\.py"/],
    ['node --test --test-reporter=./src/rep harness/', /node loads them before the script, and the editable scope covers "src\/rep"/],
    ["npm exec --prefix . -c 'python3 harness/eval.py'", /runs shell code \(npm -c\)/],
    // (and of the sweep after: pytest under another spelling, -o in a cluster, npm's --node-options)
    ['python3 -mpytest -q', /pytest reads what it runs.*"src\/conftest\.py"/],
    ['python3 -m pytest.__main__ -q', /pytest reads what it runs.*"src\/test_probe\.py"/],
    ['python3 -mpytest -o addopts=src harness', /overrides pytest's configuration \(-o\)/],
    ['python3 -m pytest -q -qoaddopts=src harness', /overrides pytest's configuration \(-o\)/],
    ['npm --node-options=--require=./src/hook.js run eval', /sets NODE_OPTIONS \(--node-options\)/],
  ] as const) t.ok(at(cmd(c, prot('harness/**', ed('src/**')))).some(m => want.test(m)), c)
  for (const c of ['python3 -m pytest -q -rfE harness', 'python3 -m unittest -c harness.test_eval', 'python3 -m pytest harness --cov=src', 'python3 -m pytest harness --cov src -p no:cacheprovider', 'python3 -m pytest harness/test_eval.py::test_score', 'python3 -m pytest --pdb harness']) t.same(at(cmd(c, prot('harness/**', ed('src/**')))), [], `${c}: collects from a protected folder only`)
  for (const c of ['python3 -m pytest -k harness', 'python3 -m pytest', 'python3 -m unittest discover', 'node --test']) t.ok(at(cmd(c, prot('harness/**', ed('src/**')))).some(m => /test_probe|probe\.test/.test(m)), `${c}: collects anywhere`)
  t.ok(at(cmd('python3 -m pytest harness', prot('harness/*.py', ed('harness/fixtures/**')))).some(m => /"harness\/fixtures\/test_probe\.py"/.test(m)), 'an editable folder below the one it collects from')
  // (found by a sweep: an editable file was read as a folder pytest walks)
  t.same(at(cmd('python3 -m pytest harness', prot('harness/**', ed('conf/params.json')))), [], 'an editable file holds no conftest.py')
  t.ok(at(cmd('python3 -m pytest', prot('harness/**', ed('conf.d')))).some(m => /"conf\.d\/conftest\.py"/.test(m)), 'a folder with a dot in its name may')
  t.same(at(cmd('python3 harness/eval.py seed=3 --pattern ^a$', prot('harness/**', ed('web/**')))), [], 'without a shell, a=b and $ are plain arguments')
  // exp's globs take *, ** and ? only: a class protected a folder of that very name
  t.match(at(CONTRACT.replace('  - eval.py\n', '  - eval.py\n  - "pkg/[ab]/scorer.py"\n')), [/protected_scope\[1\] "pkg\/\[ab\]\/scorer\.py" must be a path inside the repository \(no \[ \] \{ \}: a glob here takes \*, \*\* and \? only\)/])
})

t.test('exp contract lint: file:line on stdout, non-zero exit, --json; an unknown contract names the ones there are', async t => {
  const repo = await makeRepo(t)
  fs.mkdirSync(path.join(repo, '.research/contracts'), {recursive: true})
  fs.writeFileSync(path.join(repo, '.research/contracts/quad.yaml'), CONTRACT.replace('direction: maximize', 'direction: upward'))
  const r = await exp(['contract', 'lint'], {cwd: repo})
  t.equal(r.code, 1)
  t.match(r.stdout, /^\.research\/contracts\/quad\.yaml:12: metric\.direction must be one of: maximize, minimize/m)
  const j = await exp(['contract', 'lint', 'quad', '--json'], {cwd: repo})
  t.equal(j.code, 1, 'the same status with --json')
  t.match(JSON.parse(j.stdout), {contracts: [{name: 'quad', ok: false}], problems: [{file: '.research/contracts/quad.yaml', line: 12}]}, 'the report at the top level, as skills lint and scenarios lint print theirs')
  t.notOk('error' in JSON.parse(j.stdout))
  const unknown = await exp(['contract', 'lint', 'nope'], {cwd: repo})
  t.equal(unknown.code, 3)
  t.match(unknown.stderr, /unknown contract: nope/)
  const research = await exp(['research', 'nope', '--attempts', '1'], {cwd: repo})
  t.equal(research.code, 3)
  t.match(research.stderr, /unknown (contract|branch)/)
})

t.test('a contract cannot name a path outside the repository, inside .git, or a metrics file an attempt can reach by another spelling', async t => {
  const evalWith = (line: string) => CONTRACT.replace('  repetitions: 2\nholdout', `  repetitions: 2\n  ${line}\nholdout`)
  const cases: [string, RegExp][] = [
    [CONTRACT.replace('  - params.json', '  - ..\\\\x'), /no backslash/],
    [CONTRACT.replace('  - params.json', '  - .git/config'), /nothing in .git/],
    [CONTRACT.replace('  - params.json', '  - sub/.GIT/hooks/*'), /nothing in .git/],
    [CONTRACT.replace('  - params.json', '  - "params\\0.json"'), /no control characters/],
    [CONTRACT.replace('  - data/secret.json', '  - .git/exp/holdout.key'), /private_data\[0\].*nothing in .git/],
    [evalWith('metrics_file: .git'), /metrics_file ".git" must be a file relative to the command's folder \(nothing in .git\)/],
    [evalWith("metrics_file: '.'"), /metrics_file "." must be a file/],
    [evalWith('metrics_file: out/*.json'), /no glob/],
    [evalWith('metrics_file: C:/m.json'), /no absolute path/],
    [evalWith('required_artifacts: [../model.bin]'), /required_artifacts\[0\] "..\/model.bin" must be a file relative to the command's folder \(no ..\)/],
    [evalWith('required_artifacts: [/etc/passwd]'), /no absolute path/],
    [CONTRACT.replace('  - params.json', '  - Metrics.json'), /metrics_file "metrics.json" is editable/],
    [CONTRACT.replace('timeout_seconds: 20', 'timeout_seconds: 1e300'), /timeout_seconds .* is more than 86400/],
    [CONTRACT.replace('repetitions: 2', 'repetitions: 100000000'), /dev_eval\.repetitions 100000000 is more than 1000/],
    [`${CONTRACT}resume:\n  timeout_multiplier: 1e308\n`, /resume\.timeout_multiplier 1e\+308 is more than 100/],
    // only the contracts covered: an attempt whose editable scope is wide could edit the policy or the config
    [CONTRACT.replace('  - .research/**', '  - .research/contracts/**'), /protected_scope must cover \.research\/\*\*/],
    [`${CONTRACT}baseline:\n  revision: --output=/tmp/x\n`, /baseline.revision "--output=\/tmp\/x" is not a revision/],
  ]
  for (const [text, problem] of cases) t.match(at(text).join('\n'), problem, problem.source)
})

// Found by an attack sweep: a contract whose command runs a script the editable scope covers
// (`python3 tools/eval.py` with `tools/**` editable) passed lint: an attempt's change to the
// evaluator is inside its boundary, and the evaluator it wrote would write its own score.
t.test('a contract whose evaluator command runs an editable script is refused: an attempt could rewrite the evaluator', async t => {
  const repo = await makeRepo(t)
  fs.mkdirSync(path.join(repo, '.research/contracts'), {recursive: true})
  fs.mkdirSync(path.join(repo, 'tools'))
  fs.writeFileSync(path.join(repo, 'tools', 'eval.py'), 'import json\njson.dump({"score": 0}, open("metrics.json", "w"))\n')
  fs.writeFileSync(path.join(repo, 'tools', 'knob.json'), '{"x": 1}\n')
  const contract = (editable: string, protect: string) => `version: 2\nname: q\nobjective: o\neditable_scope: [${editable}]\nprotected_scope: [${protect}.research/**]\nmetric: {name: score, direction: maximize}\ndev_eval: {command: "python3 -X dev tools/eval.py tools/knob.json dev", timeout_seconds: 20}\nholdout_eval: {command: "./tools/run.sh --hook=tools/hook.mjs holdout", timeout_seconds: 20}\npromotion: {holdout_required: false}\n`
  fs.writeFileSync(path.join(repo, '.research/contracts/q.yaml'), contract('"tools/**"', ''))
  await git(repo, 'add', '-A')
  await git(repo, 'commit', '-qm', 'a contract whose evaluator is editable')
  const r = await exp(['contract', 'lint', 'q'], {cwd: repo})
  t.equal(r.code, 1, r.stdout)
  t.match(r.stdout, /q\.yaml:7: dev_eval\.command runs "tools\/eval\.py", which is editable: an attempt could rewrite the evaluator/)
  t.match(r.stdout, /q\.yaml:8: holdout_eval\.command runs "tools\/run\.sh", which is editable/)
  t.match(r.stdout, /q\.yaml:8: holdout_eval\.command runs "tools\/hook\.mjs", which is editable/)
  t.notMatch(r.stdout, /knob\.json/, 'data the command is given may be editable')
  const a = await exp(['attempt', 'new', 'q', '--json'], {cwd: repo})
  t.not(a.code, 0, 'no attempt is opened under it')
  t.match(a.stderr, /tools\/eval\.py", which is editable/)
  // protected, in an editable folder: an attempt could still add what they import by name beside
  // them (found by an attack sweep: a json.py beside eval.py ran as Python's json)
  fs.writeFileSync(path.join(repo, '.research/contracts/q.yaml'), contract('"tools/**"', 'tools/eval.py, tools/run.sh, tools/hook.mjs, '))
  const beside = await exp(['contract', 'lint', 'q'], {cwd: repo})
  t.equal(beside.code, 1, beside.stdout)
  t.match(beside.stdout, /q\.yaml:7: dev_eval\.command runs "tools\/eval\.py", and the editable scope may add a Python module named like one of the standard library beside it \("tools\/json\.py"\).*protect "tools\/\*\.py"/)
  // (a node_modules/ package or a package.json beside the protected tools/hook.mjs is refused by the
  // boundary itself now, as a look-alike: lint has nothing to add)
  t.notMatch(beside.stdout, /hook\.mjs", and the editable scope may add/)
  t.match(checkScope(['tools/node_modules/x/index.js', 'tools/package.json'], {editable_scope: ['tools/**'], protected_scope: ['tools/hook.mjs']}), {ok: false, protected: ['tools/node_modules/x/index.js', 'tools/package.json']})
  t.notMatch(beside.stdout, /run\.sh", and/, 'a shell script imports nothing by name')
  fs.writeFileSync(path.join(repo, '.research/contracts/q.yaml'), contract('"tools/**"', 'tools/eval.py, tools/run.sh, tools/hook.mjs, "tools/*.py", "tools/*/__init__.py", "tools/node_modules/**", '))
  t.equal((await exp(['contract', 'lint', 'q'], {cwd: repo})).code, 0, 'protected with what they import, they may sit in an editable folder')
  // (a package.json beside tools/hook.mjs is no data: its "imports" and "exports" decide what the script loads)
  fs.writeFileSync(path.join(repo, '.research/contracts/q.yaml'), contract('"tools/*.json"', ''))
  t.match((await exp(['contract', 'lint', 'q'], {cwd: repo})).stdout, /may add a package\.json .* beside it \("tools\/package\.json"\)/)
  fs.writeFileSync(path.join(repo, '.research/contracts/q.yaml'), contract('"tools/*.json"', '"tools/package.json", '))
  t.equal((await exp(['contract', 'lint', 'q'], {cwd: repo})).code, 0, 'an editable scope of data files adds no code beside them')
})

// Found by an attack sweep: an unquoted glob that starts with * (`- *.py`) is a YAML alias of no
// anchor, and lint called it an alias bomb at line 1, naming neither the line nor the fix.
t.test('an unquoted glob that starts with * is named at its line, with the fix: quote it', async t => {
  const repo = await makeRepo(t)
  fs.mkdirSync(path.join(repo, '.research/contracts'), {recursive: true})
  fs.writeFileSync(path.join(repo, '.research/contracts/quad.yaml'), CONTRACT.replace('  - params.json\n', '  - params.json\n  - *.csv\n'))
  const r = await exp(['contract', 'lint', 'quad'], {cwd: repo})
  t.equal(r.code, 1)
  t.match(r.stdout, /^\.research\/contracts\/quad\.yaml:6:5: YAML: \*\.csv is an alias of no anchor set before it: a value that starts with \* must be quoted \("\*\.csv"\)/m)
  t.notMatch(r.stdout, /alias bomb/)
})
