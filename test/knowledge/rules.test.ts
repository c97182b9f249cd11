import t from 'tap'
import {conditionHolds, GUARDS, missingFields, parseRule, parseRules, renderRule, RESULTS, resultShows, ruleApplies, STATES, type ResultSchema, type Rule} from '../../src/knowledge/index.js'

const EXAMPLES: [Rule, string][] = [
  [{kind: 'before', tool: 'assign_device', calls: [{tool: 'get_inventory'}], guard: 'in_stock'}, 'Before `assign_device`, call `get_inventory` and only assign a model that is in stock.'],
  [{kind: 'on_error', tool: 'assign_device', code: 'OUT_OF_STOCK', calls: ['create_procurement_request', 'add_blocker', 'escalate'], stop: false}, 'If `assign_device` fails with `OUT_OF_STOCK`, call `create_procurement_request`, then `add_blocker`, then `escalate`.'],
  [{kind: 'never', tool: 'complete_onboarding', while: 'open_blockers'}, 'Never call `complete_onboarding` while the workflow has open blockers.'],
  [{kind: 'before', tool: 'grant_access', calls: [{tool: 'get_policy'}, {tool: 'request_approval', when: 'policy_requires'}]}, 'Before `grant_access`, call `get_policy` and `request_approval` when the policy requires it.'],
  [{kind: 'before', tool: 'create_ticket', calls: [{tool: 'search_tickets'}], guard: 'reuse_open'}, 'Before `create_ticket`, call `search_tickets` and reuse an open ticket with the same subject.'],
  [{kind: 'on_error', tool: 'get_employee', code: 'NOT_FOUND', calls: ['escalate'], stop: true}, 'If `get_employee` fails with `NOT_FOUND`, call `escalate` and stop.'],
  [{kind: 'on_result', tool: 'search_employees', result: 'multiple_matches', calls: ['escalate'], stop: true}, 'If `search_employees` returns more than one match, call `escalate` and stop.'],
  [{kind: 'before', tool: 'complete_offboarding', calls: [{tool: 'recover_device'}, {tool: 'revoke_access'}], guard: 'each_held'}, 'Before `complete_offboarding`, call `recover_device` and `revoke_access` for every item the employee holds.'],
  [{kind: 'before', tool: 'escalate', calls: [{tool: 'get_employee'}, {tool: 'get_workflow'}, {tool: 'search_tickets'}]}, 'Before `escalate`, call `get_employee`, `get_workflow` and `search_tickets`.'],
  [{kind: 'never', tool: 'revoke_access'}, 'Never call `revoke_access`.'],
]

t.test('renderRule writes the canonical line and parseRules reads it back exactly', async t => {
  for (const [rule, line] of EXAMPLES) {
    t.equal(renderRule(rule), line)
    t.strictSame(parseRules(renderRule(rule)), [rule], line)
  }
})

t.test('every vocabulary entry round-trips, with any tool name and error code', async t => {
  const rules: Rule[] = [
    ...(Object.keys(GUARDS) as (keyof typeof GUARDS)[]).map(guard => ({kind: 'before' as const, tool: 'tool_a', calls: [{tool: 'tool_b'}], guard})),
    ...(Object.keys(RESULTS) as (keyof typeof RESULTS)[]).flatMap(result => [true, false].map(stop => ({kind: 'on_result' as const, tool: 'tool_a', result, calls: ['tool_b', 'tool_c'], stop}))),
    ...(Object.keys(STATES) as (keyof typeof STATES)[]).map(state => ({kind: 'never' as const, tool: 'tool_a', while: state})),
    {kind: 'on_error', tool: 'x1', code: 'E_2_X', calls: ['y'], stop: false},
    {kind: 'before', tool: 'a', calls: [{tool: 'b', when: 'policy_requires'}, {tool: 'c'}], guard: 'reuse_open'},
  ]
  for (const r of rules) t.strictSame(parseRule(renderRule(r)), r, renderRule(r))
})

t.test('skill markdown: frontmatter skipped, list markers and a missing final period tolerated, other lines ignored', async t => {
  const md = [
    '---', 'name: x', 'description: Never call `escalate`.', '---', '# Title', '## Procedure',
    '1. Before `assign_device`, call `get_inventory` and only assign a model that is in stock',
    '- Never call `complete_onboarding` while the workflow has open blockers.',
    '  * If `get_employee` fails with `NOT_FOUND`, call `escalate` and stop.',
    'Check hardware inventory.',
    'Before assign_device, call get_inventory.',
    'If `assign_device` fails with `out_of_stock`, call `escalate`.',
    'Never call `complete_onboarding` while the moon is full.',
    'Before `grant_access`, call `get_policy` when it rains.',
  ].join('\n')
  t.same(parseRules(md).map(renderRule), [
    'Before `assign_device`, call `get_inventory` and only assign a model that is in stock.',
    'Never call `complete_onboarding` while the workflow has open blockers.',
    'If `get_employee` fails with `NOT_FOUND`, call `escalate` and stop.',
  ])
})

const CONDITIONED: [Rule, string][] = [
  [
    {kind: 'before', tool: 'grant_access', calls: [{tool: 'get_policy'}, {tool: 'request_approval', when: 'policy_requires'}], unless: [{source: 'get_employee', field: 'approvals', test: 'includes', arg: 'system'}]},
    'Before `grant_access`, call `get_policy` and `request_approval` when the policy requires it, unless `get_employee` shows `approvals` includes the `system`.',
  ],
  [{kind: 'never', tool: 'assign_device', when: [{source: 'get_employee', field: 'employment_type', test: 'is', value: 'contractor'}]}, 'Never call `assign_device` when `get_employee` shows `employment_type` is `contractor`.'],
  [
    {kind: 'never', tool: 'complete_onboarding', while: 'open_blockers', unless: [{source: 'get_workflow', field: 'blockers', test: 'empty'}, {source: 'get_policy', field: 'rules.close_with_open_blockers', test: 'is', value: true}]},
    'Never call `complete_onboarding` while the workflow has open blockers unless `get_workflow` shows `blockers` is empty and `get_policy` shows `rules.close_with_open_blockers` is `true`.',
  ],
  [
    {kind: 'on_error', tool: 'grant_access', code: 'ROLE_NOT_ALLOWED', calls: ['add_blocker', 'escalate'], stop: false, when: [{source: 'get_employee', field: 'workflows', test: 'not_empty'}]},
    'If `grant_access` fails with `ROLE_NOT_ALLOWED` and `get_employee` shows `workflows` is not empty, call `add_blocker`, then `escalate`.',
  ],
  [
    {kind: 'on_result', tool: 'get_employee', result: 'pending_info', calls: ['escalate'], stop: true, when: [{source: 'get_employee', field: 'leave.days', test: 'above', value: 3}], unless: [{source: 'get_policy', field: 'topic', test: 'is_not', value: 'onboarding'}]},
    'If `get_employee` returns pending information and `get_employee` shows `leave.days` is above `3`, call `escalate` and stop, unless `get_policy` shows `topic` is not `onboarding`.',
  ],
  [
    {kind: 'before', tool: 'assign_device', calls: [{tool: 'get_inventory'}], guard: 'in_stock', when: [{source: 'get_employee', field: 'devices', test: 'excludes', arg: 'model'}]},
    'Before `assign_device`, call `get_inventory` and only assign a model that is in stock, only when `get_employee` shows `devices` does not include the `model`.',
  ],
]

t.test('conditions and exceptions round-trip on every form', async t => {
  for (const [rule, line] of CONDITIONED) {
    t.equal(renderRule(rule), line)
    t.strictSame(parseRule(line), rule, line)
  }
})

t.test('a line with a malformed condition is not a rule at all', async t => {
  for (const line of [
    'Never call `assign_device` when the employee is a contractor.',
    'Never call `assign_device` when `get_employee` shows employment_type is `contractor`.',
    'Never call `assign_device` when `get_employee` shows `employment_type` is above `many`.',
    'Before `grant_access`, call `get_policy`, unless `get_employee` shows `approvals` contains the `system`.',
    'If `grant_access` fails with `X` and the moon is full, call `escalate`.',
  ]) t.equal(parseRule(line), undefined, line)
})

t.test('conditions hold on the latest result of their source, and rules apply by them', async t => {
  const results: Record<string, unknown> = {get_employee: {employment_type: 'contractor', approvals: [{approval_id: 'AP-0001', system: 'payroll'}], pending_info: []}}
  const lookup = (s: string) => results[s]
  const [approval, contractor] = [CONDITIONED[0]![0], CONDITIONED[1]![0]]
  t.equal(ruleApplies(approval, lookup, {system: 'payroll'}), false, 'an approval on record excuses the rule')
  t.equal(ruleApplies(approval, lookup, {system: 'crm'}), true)
  t.equal(ruleApplies(contractor, lookup, {}), true)
  t.equal(ruleApplies(contractor, () => undefined, {}), false, 'an unknown source never satisfies `when`')
  t.equal(ruleApplies(approval, () => undefined, {system: 'payroll'}), true, 'nor excuses with `unless`')
  t.equal(conditionHolds({source: 'x', field: 'n', test: 'above', value: 0}, () => ({n: [1]}), {}), true)
  t.equal(conditionHolds({source: 'x', field: 'a.b', test: 'empty'}, () => ({a: {b: null}}), {}), true)
})

t.test('pending information includes required fields left empty, by the result schema', async t => {
  const schema: ResultSchema = {
    required: ['name', 'start_date', 'manager', 'end_date'],
    properties: {name: {type: 'string'}, start_date: {type: 'string'}, manager: {type: ['string', 'null']}, end_date: {type: ['string', 'null']}, employment_type: {type: 'string'}},
    allOf: [{if: {properties: {employment_type: {const: 'contractor'}}}, then: {required: ['end_date']}}],
  }
  t.same(missingFields({name: 'A', start_date: null, manager: null, end_date: null, employment_type: 'employee'}, schema), ['start_date'])
  t.same(missingFields({name: 'A', start_date: '2026-03-09', manager: null, end_date: null, employment_type: 'contractor'}, schema), ['end_date'])
  t.equal(resultShows('pending_info', {id: 'E-1', name: 'A', start_date: '', pending_info: []}, {schema}), true)
  t.equal(resultShows('pending_info', {id: 'E-1', name: 'A', start_date: '', pending_info: []}), false, 'without a schema only pending_info counts')
})
