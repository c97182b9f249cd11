import t from 'tap'
import {TOOLS} from '../../src/world/tools/index.js'
import {TOOL_AJV} from '../../src/world/tools/define.js'
import {STATE_AJV, STATE_SCHEMA, checkState} from '../../src/world/schema.js'
import {precompiled} from '../../src/world/compiled.js'
import {newAjv} from '../../src/world/ajv.js'

// The world's schemas are compiled at build time (scripts/world-validators.mjs): each process
// that ran or replayed an episode compiled every tool's (~0.1 s of CPU). A build's validator is
// taken only for the very schema it was compiled from, and judges as the one compiled here.

const samples: unknown[] = [{}, {employee_id: 'E-1031'}, {employee_id: 'E-10'}, {employee_id: 'E-1031', model: 'thinkpad-x1'}, {employee_id: 'E-1031', extra: 1}, {query: ''}, {query: 'laptop'}, {ticket_id: 'TCK-0101', status: 'closed'}, {reason: 'x'.repeat(2001)}, {topic: 'devices'}, null, [], 'E-1031']

t.test("every tool's and the state's validator is the build's, and says what ajv compiled here says", async t => {
  const ajv = newAjv(TOOL_AJV)
  for (const tool of TOOLS) {
    const built = precompiled('tools', tool.name, tool.parameters)
    t.ok(built, `${tool.name}: the build's validator`)
    t.equal(tool.validate, built, `${tool.name}: the one the world uses`)
    const here = ajv.compile(tool.parameters)
    for (const s of samples) {
      t.equal(built!(s), here(s), `${tool.name} ${JSON.stringify(s)}`)
      t.same(built!.errors?.[0]?.message, here.errors?.[0]?.message)
    }
  }
  const state = precompiled('state', 'state', STATE_SCHEMA)
  t.ok(state, "the state's")
  const here = newAjv(STATE_AJV).compile(STATE_SCHEMA)
  for (const s of [{}, {settings: {}}, null]) t.equal(state!(s), here(s))
  t.ok(checkState({settings: {}}).some(p => p.path === 'settings.company' && p.message === 'is missing'), 'a state problem is named by path')
})

t.test('a schema changed since the build is not judged by the build\'s validator', async t => {
  const tool = TOOLS.find(x => x.name === 'get_employee')!
  t.equal(precompiled('tools', tool.name, {...tool.parameters, required: []}), undefined, 'another schema under the same name')
  t.equal(precompiled('tools', 'no_such_tool', tool.parameters), undefined, 'a name the build does not have')
})
