import t from 'tap'
import {call, code, result, world} from '../helpers/world.js'

t.test('create_ticket opens a ticket; an identical open subject is a DUPLICATE_TICKET, a reworded one is not (silently wrong)', async t => {
  const w = world()
  t.same(result(call(w, 'create_ticket', {subject: 'Keyboard broken', employee_id: 'E-1010', category: 'hardware'})), {ticket_id: 'TCK-0201', status: 'open'})
  t.equal(code(call(w, 'create_ticket', {subject: 'vpn disconnects EVERY hour!', employee_id: 'E-1012'})), 'DUPLICATE_TICKET')
  t.equal(code(call(w, 'create_ticket', {subject: 'VPN keeps dropping', employee_id: 'E-1012', category: 'network'})), 'ok')
  t.equal(code(call(w, 'create_ticket', {subject: 'Hello there', employee_id: 'E-9999'})), 'NOT_FOUND')
})

t.test('with dedupe enforced, create_ticket refuses a second open ticket of the same employee and category', async t => {
  const w = world({set: {'settings.enforce.ticket_dedupe': true}})
  const r = call(w, 'create_ticket', {subject: 'VPN keeps dropping', employee_id: 'E-1012', category: 'network'})
  t.equal(code(r), 'DUPLICATE_TICKET')
  t.match(r.ok ? '' : r.error.message, /TCK-0101/, 'the error names the existing ticket')
})

t.test('update_ticket comments, changes status, marks duplicates, and refuses OPEN_BLOCKERS on resolve', async t => {
  const w = world()
  t.equal(result(call(w, 'update_ticket', {ticket_id: 'TCK-0101', comment: 'still happening'})).status, 'open')
  t.same(w.state.tickets['TCK-0101']!.comments, ['still happening'])
  t.equal(result(call(w, 'update_ticket', {ticket_id: 'TCK-0106', duplicate_of: 'TCK-0101'})).status, 'duplicate')
  t.equal(code(call(w, 'update_ticket', {ticket_id: 'TCK-0101'})), 'INVALID_ARGUMENTS')
  t.equal(code(call(w, 'update_ticket', {ticket_id: 'TCK-0999', comment: 'x'})), 'NOT_FOUND')
  t.equal(code(call(w, 'update_ticket', {ticket_id: 'TCK-0101', duplicate_of: 'TCK-0999'})), 'NOT_FOUND')
  call(w, 'add_blocker', {target_id: 'TCK-0102', reason: 'part on order'})
  t.equal(w.state.tickets['TCK-0102']!.status, 'blocked')
  t.equal(code(call(w, 'update_ticket', {ticket_id: 'TCK-0102', status: 'resolved'})), 'OPEN_BLOCKERS')
})

t.test('add_blocker targets workflows or tickets and fails with NOT_FOUND or ALREADY_COMPLETED', async t => {
  const w = world()
  t.same(result(call(w, 'add_blocker', {target_id: 'WF-1031', reason: 'laptop on order', category: 'hardware'})), {target_id: 'WF-1031', blocker_id: 'BLK-0701'})
  t.equal(w.state.workflows['WF-1031']!.blockers[0]!.status, 'open')
  t.equal(code(call(w, 'add_blocker', {target_id: 'WF-9999', reason: 'x'})), 'NOT_FOUND')
  t.equal(code(call(w, 'add_blocker', {target_id: 'TCK-0104', reason: 'x'})), 'ALREADY_COMPLETED')
  call(w, 'complete_onboarding', {workflow_id: 'WF-1051'})
  t.equal(code(call(w, 'add_blocker', {target_id: 'WF-1051', reason: 'x'})), 'ALREADY_COMPLETED')
})

t.test('escalate records any escalation, even about an unknown employee', async t => {
  const w = world()
  t.same(result(call(w, 'escalate', {reason: 'who is this?', team: 'hr', employee_id: 'E-1099'})), {escalation_id: 'ESC-0601', team: 'hr'})
  t.equal(w.state.escalations['ESC-0601']!.employee, 'E-1099')
  t.equal(code(call(w, 'escalate', {reason: 'x', team: 'facilities'})), 'INVALID_ARGUMENTS')
})
