import t from 'tap'
import {parseTask} from '../../../src/agents/scripted/index.js'

t.test('onboarding requests: id, name, claims about department, role and manager', async t => {
  const f = parseTask('Hi IT, Dan Evans (E-1031) joins the Engineering team on Monday as a software engineer. He reports to Maria Lopez.')
  t.same([...f.intents], ['onboard'])
  t.same([f.employeeId, f.name], ['E-1031', 'Dan Evans'])
  t.same(f.claims, {manager: 'Maria Lopez', department: 'engineering', role: 'engineer'})
  t.equal(parseTask('Felix Wagner joins as a security analyst.').claims.role, 'security-analyst', 'the most specific role wins')
})

t.test('close-out, offboarding, access, hardware and ticket requests', async t => {
  t.same([...parseTask('Please mark her onboarding as complete.').intents], ['complete'])
  const off = parseTask('Bob Martin leaves the company on Friday. Please offboard him: collect his laptop and revoke his VPN access.')
  t.same([[...off.intents], off.deviceWords, off.systems], [['offboard'], ['laptop'], ['vpn']])
  const acc = parseTask('Erin Fox needs access to payroll and prod-db for the audit.')
  t.same([[...acc.intents], acc.systems], [['access'], ['payroll', 'prod-db']])
  const hw = parseTask('Ticket TCK-0102: give her a replacement laptop, model macbook-pro-14, and update the ticket.')
  t.same([[...hw.intents], hw.models, hw.ticketId], [['hardware'], ['macbook-pro-14'], 'TCK-0102'])
  const tk = parseTask('Erin Fox says her VPN keeps dropping. Please open a ticket for it.')
  t.same([[...tk.intents], tk.topic], [['ticket'], 'vpn'])
})
