import t from 'tap'
import {GUARDS, parseRule, parseRules, renderRule, RESULTS, STATES, type Rule} from '../../../src/agents/scripted/index.js'

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
