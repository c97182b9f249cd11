import t from 'tap'
import {Ajv2020} from 'ajv/dist/2020.js'
import {COLLECTIONS, TOOL_CATALOG_DIGEST, TOOL_META, TOOL_NAMES, TOOL_SPECS, WORLD_VERSION, checkState, fixture, toolMeta} from '../../src/world/index.js'

const REQUIRED = ['get_employee', 'search_employees', 'get_policy', 'search_documents', 'get_inventory', 'assign_device', 'recover_device', 'create_procurement_request', 'request_approval', 'grant_access', 'revoke_access', 'create_ticket', 'update_ticket', 'search_tickets', 'add_blocker', 'escalate', 'complete_onboarding', 'complete_offboarding']

t.test('the catalog has every required tool, each with a description and an OpenAI-style object schema', async t => {
  for (const name of REQUIRED) t.ok(TOOL_NAMES.includes(name), name)
  const ajv = new Ajv2020({strict: true})
  for (const s of TOOL_SPECS) {
    t.ok(s.description.length > 40, `${s.name} has a description`)
    t.equal(s.parameters.type, 'object')
    t.equal(s.parameters.additionalProperties, false, `${s.name} rejects unknown arguments`)
    t.doesNotThrow(() => ajv.compile(s.parameters), `${s.name} schema compiles`)
  }
})

t.test('tool metadata names real collections and separates reads from writes', async t => {
  for (const m of TOOL_META) {
    for (const c of [...m.reads, ...m.writes]) t.ok(COLLECTIONS.includes(c), `${m.name}: ${c}`)
    t.equal(m.kind === 'read', m.writes.length === 0, `${m.name} is ${m.kind}`)
    t.ok(m.errors.includes('INVALID_ARGUMENTS'))
    t.ok(m.latencyMs > 0)
  }
  t.same(toolMeta('assign_device')?.writes, ['assignments', 'devices', 'seq'])
  t.equal(toolMeta('nope'), undefined)
})

t.test('the catalog digest and world version identify the tool interface', async t => {
  t.match(TOOL_CATALOG_DIGEST, /^sha256:[0-9a-f]{64}$/)
  t.equal(WORLD_VERSION, 'world@1')
})

t.test('the acme fixture is a well-formed world state, and a malformed one is reported by path', async t => {
  t.same(checkState(fixture('acme')), [])
  const bad = structuredClone(fixture('acme')!) as any
  bad.employees['E-1031'].pendng_info = []
  bad.devices['thinkpad-x1'].stock = -1
  const problems = checkState(bad).map(p => p.path)
  t.ok(problems.includes('employees.E-1031.pendng_info'))
  t.ok(problems.includes('devices.thinkpad-x1.stock'))
})
