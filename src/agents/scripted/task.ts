/**
 * What the agent reads from the task text, by keyword and pattern — the way a naive agent
 * skims a ticket. It never sees anything but the text.
 */
export type Intent = 'onboard' | 'offboard' | 'complete' | 'access' | 'hardware' | 'ticket'

export interface TaskFacts {
  text: string
  intents: Set<Intent>
  employeeId?: string
  name?: string
  /** system ids named after "access to" */
  systems: string[]
  /** device model ids named as "model <id>" */
  models: string[]
  /** device kinds named in the text (laptop, phone, monitor…) */
  deviceWords: string[]
  ticketId?: string
  /** the problem keyword of a ticket request (vpn, laptop, badge…) */
  topic?: string
  /** what the text claims about the employee, to compare with the HR record */
  claims: {department?: string; role?: string; manager?: string}
}

const DEPARTMENTS: Record<string, string> = {engineering: 'engineering', sales: 'sales', finance: 'finance', marketing: 'marketing', it: 'it', security: 'security', people: 'hr', hr: 'hr'}
// most specific first: "security analyst" before "analyst"
const ROLES: [RegExp, string][] = [
  [/security analyst/, 'security-analyst'], [/software engineer|engineer|developer/, 'engineer'], [/sales rep|account executive/, 'sales-rep'],
  [/financial analyst|analyst/, 'analyst'], [/product designer|designer/, 'designer'], [/it admin|sysadmin/, 'it-admin'],
  [/hr partner|people partner/, 'hr-partner'], [/marketer|marketing specialist/, 'marketer'],
]
const TOPICS = ['vpn', 'wifi', 'laptop', 'battery', 'monitor', 'phone', 'badge', 'email', 'password', 'crm', 'github', 'printer', 'keyboard']
const DEVICE_WORDS = ['laptop', 'phone', 'monitor', 'yubikey', 'security key']
const NOT_NAMES = new Set(['Hi', 'Hello', 'Hey', 'Please', 'Thanks', 'Dear', 'New', 'The', 'This', 'Our', 'She', 'He', 'They', 'Her', 'His', 'Also', 'Ticket', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'IT', 'HR', 'Engineering', 'Sales', 'Finance', 'Marketing', 'Security', 'People', 'Finance Reports', 'Design', 'Suite', 'Production', 'Database', 'Admin', 'Console', 'GitHub', 'MacBook', 'ThinkPad', 'Dell', 'Carbon', 'Pro', 'Air', 'Team', 'Account', 'Executive'])

const has = (re: RegExp, s: string) => re.test(s)

export function parseTask(text: string): TaskFacts {
  const lower = text.toLowerCase()
  const intents = new Set<Intent>()
  const onboard = has(/\b(onboard|onboarded|new hire|joins|joining|starts|starting|set (?:him|her|them) up|get (?:him|her|them) set up|run (?:his|her|their) onboarding)\b/, lower)
  if (onboard) intents.add('onboard')
  if (has(/\b(offboard|leaving|last day|leaves the company|departure)\b/, lower)) intents.add('offboard')
  if (!onboard && has(/\b(mark|close out|close|complete|finish)\b[^.]*\bonboarding\b|\bonboarding\b[^.]*\b(as complete|as done|is done|complete)\b/, lower)) intents.add('complete')
  const systems = [
    ...text.matchAll(/access to ((?:the )?[A-Za-z][\w-]*(?:(?:,| and| plus) (?:the )?[A-Za-z][\w-]*)*)/g),
    ...text.matchAll(/revoke (?:her |his |their )?((?:the )?[A-Za-z][\w-]*(?:(?:,| and) (?:the )?[A-Za-z][\w-]*)*) access/gi),
  ]
    .flatMap(m => m[1]!.split(/,| and| plus/))
    .map(s => s.trim().replace(/^the /i, '').toLowerCase())
    .filter(s => s.length > 1)
  if (systems.length && !intents.has('onboard') && !intents.has('offboard')) intents.add('access')
  const models = [...lower.matchAll(/\bmodel ([a-z0-9][a-z0-9-]*[a-z0-9])/g)].map(m => m[1]!)
  if (models.length && !intents.has('onboard')) intents.add('hardware')
  const ticketId = /\bTCK-\d{4}\b/.exec(text)?.[0]
  if (has(/\b(log|open|raise|file|create) (a|an) (new )?ticket\b|\bticket for\b/, lower)) intents.add('ticket')
  const names = [...text.matchAll(/\b([A-Z][a-z]+(?:-[A-Z][a-z]+)?) ([A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b/g)]
    .filter(m => !NOT_NAMES.has(m[1]!) && !NOT_NAMES.has(m[2]!))
    .map(m => `${m[1]} ${m[2]}`)
  const manager = /(?:reports to|reporting to|manager is|manager,) ([A-Z][a-z]+ [A-Z][a-z]+)/.exec(text)?.[1]
  const department = /\b(?:joins|joining|in|on|from|to) the (\w+) (?:team|department)\b/i.exec(text)?.[1]?.toLowerCase()
  const roleText = /\bas (?:a|an|our) (?:new )?([a-z ]+?)(?=[,.;]| in | on | starting| from| who|$)/i.exec(text)?.[1]?.toLowerCase()
  const facts: TaskFacts = {
    text, intents, systems, models, claims: {},
    deviceWords: DEVICE_WORDS.filter(w => lower.includes(w)),
  }
  const id = /\bE-\d{4}\b/.exec(text)?.[0]
  if (id) facts.employeeId = id
  const name = names.find(n => n !== manager)
  if (name) facts.name = name
  if (ticketId) facts.ticketId = ticketId
  const topic = TOPICS.find(t => new RegExp(`\\b${t}\\b`).test(lower))
  if (topic) facts.topic = topic
  if (manager) facts.claims.manager = manager
  if (department && DEPARTMENTS[department]) facts.claims.department = DEPARTMENTS[department]
  const role = roleText && ROLES.find(([re]) => re.test(roleText))?.[1]
  if (role) facts.claims.role = role
  return facts
}
