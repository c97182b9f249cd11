import t from 'tap'
import {canonicalJson} from '../../src/records/canonical.js'
import {canonical} from '../../src/world/digest.js'
import {buildInitialState, checkState, collectionDigests, COLLECTIONS, fixture, isoTime, OverrideError, stateDigest, TOOL_CATALOG_DIGEST, TOOL_META, TOOL_NAMES, TOOL_SPECS, toolMeta, World, WORLD_VERSION} from '../../src/world/index.js'
import {call, world} from '../helpers/world.js'
import {Ajv2020} from 'ajv/dist/2020.js'

t.test('the world writes the same canonical JSON as the records module, byte for byte', async t => {
  const s = fixture('acme')!
  t.equal(canonical(s), canonicalJson(s))
  t.equal(canonical({b: [1, -0, 'x'], a: {d: null, c: true}}), canonicalJson({b: [1, -0, 'x'], a: {d: null, c: true}}))
})

t.test('the state digest is a sha256 that changes with any write and never with a read', async t => {
  const w = world()
  const d0 = w.digest()
  t.match(d0, /^sha256:[0-9a-f]{64}$/)
  t.equal(stateDigest(buildInitialState({fixture: 'acme'})), d0, 'equal states, equal digests, across builds')
  const read = w.invoke({tool: 'get_employee', arguments: {employee_id: 'E-1031'}})
  t.equal(stateDigest(read.before), stateDigest(read.after))
  const write = w.invoke({tool: 'assign_device', arguments: {employee_id: 'E-1031', model: 'thinkpad-x1'}})
  t.not(stateDigest(write.after), stateDigest(write.before))
  const changed = Object.entries(collectionDigests(write.after)).filter(([c, d]) => collectionDigests(write.before)[c] !== d).map(([c]) => c)
  t.same(changed.sort(), ['assignments', 'devices', 'seq'], 'only the collections the tool declares it writes')
})

t.test('reset returns to the initial state and restarts the simulated clock', async t => {
  const w = world()
  const first = w.invoke({tool: 'get_inventory', arguments: {}})
  call(w, 'assign_device', {employee_id: 'E-1031', model: 'thinkpad-x1'})
  t.equal(isoTime(first.at), '2026-03-02T09:00:00.000Z')
  t.equal(w.now(), '2026-03-02T09:00:02.310Z', 'each call advances the clock by its latency plus a fixed think time')
  w.reset()
  t.equal(w.state, w.initialState)
  t.equal(w.now(), '2026-03-02T09:00:00.000Z')
})

t.test('initial states are built from a fixture with merge, set and remove, frozen', async t => {
  const s = buildInitialState({
    fixture: 'acme',
    merge: {'employees.E-1031': {pending_info: ['role']}},
    set: {'devices.thinkpad-x1.stock': 0, 'workflows.WF-1053.blockers.0.status': 'open'},
    remove: ['tickets.TCK-0108'],
  })
  t.same(s.employees['E-1031']!.pending_info, ['role'])
  t.equal(s.employees['E-1031']!.name, 'Dan Evans', 'merge keeps the other fields')
  t.equal(s.devices['thinkpad-x1']!.stock, 0)
  t.equal(s.workflows['WF-1053']!.blockers[0]!.status, 'open', 'lists are addressed by index')
  t.notOk('TCK-0108' in s.tickets)
  t.ok(Object.isFrozen(s.devices['thinkpad-x1']))
  t.equal(fixture('acme')!.devices['thinkpad-x1']!.stock, 6, 'the fixture itself is untouched')
  t.throws(() => buildInitialState({fixture: 'acme', set: {'employes.E-1031.role': 'x'}}), OverrideError)
  const failure = (f: () => unknown) => {
    try {
      f()
    } catch (e) {
      return e
    }
    return undefined
  }
  t.match(failure(() => buildInitialState({fixture: 'acme', remove: ['tickets.TCK-0999']})), {op: 'remove', path: 'tickets.TCK-0999'})
  t.match(failure(() => buildInitialState({fixture: 'globex'})), {op: 'fixture'})
})

t.test('tools never mutate a state in place', async t => {
  const w = new World(buildInitialState({fixture: 'acme'}))
  const snapshot = canonical(w.state)
  for (const [tool, args] of [['assign_device', {employee_id: 'E-1031', model: 'thinkpad-x1'}], ['grant_access', {employee_id: 'E-1031', system: 'github'}], ['add_blocker', {target_id: 'WF-1031', reason: 'x'}], ['complete_onboarding', {workflow_id: 'WF-1031'}]] as const) call(w, tool, args)
  t.equal(canonical(w.initialState), snapshot)
})

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
  t.equal(WORLD_VERSION, 'world@2')
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

// Found by a sweep: a grader path stepping through `constructor` or `__proto__` read what every
// object inherits (lint refuses such paths; a run of a scenario that was not linted did not).
t.test('a state path reads own properties only: an inherited name is missing', async t => {
  const {getPath} = await import('../../src/world/state.js')
  const s = buildInitialState({fixture: 'acme'})
  t.equal(typeof getPath(s, 'employees'), 'object', 'an own collection is read')
  for (const p of ['constructor', 'employees.constructor', 'employees.__proto__', 'employees.constructor.name', 'toString', 'employees.hasOwnProperty']) t.equal(getPath(s, p), undefined, p)
  t.equal(getPath({list: [1, 2]}, 'list.1'), 2, 'array elements by index')
  t.equal(getPath({list: [1, 2]}, 'list.length'), 2, "an array's own length")
})
