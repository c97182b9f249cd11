import {readFileSync} from 'node:fs'
import path from 'node:path'
import t from 'tap'
import {RULE_IDS} from '../../src/skills/index.js'
import {ROOT} from '../helpers/skills.js'

t.test('docs/skills.md lists exactly the rule ids of src/skills/rules.ts', async t => {
  const doc = readFileSync(path.join(ROOT, 'docs/skills.md'), 'utf8')
  const documented = [...doc.matchAll(/^\| `([a-z-]+\/[a-z-]+)` \|/gm)].map(m => m[1])
  t.same(documented, RULE_IDS)
})
