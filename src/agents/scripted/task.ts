/**
 * What the agent reads from the task text, by keyword and pattern — the way a naive agent
 * skims a ticket. It never sees anything but the text. A task may name several people: each
 * gets the clauses that mention them (and the sentences after, up to the next person), plus
 * what the task says before naming anybody.
 */
export type Intent = 'onboard' | 'offboard' | 'complete' | 'access' | 'hardware' | 'ticket'

/** What the task says about one person, and asks for them. */
export interface PersonFacts {
  /** the text about this person */
  text: string
  intents: Set<Intent>
  employeeId?: string
  name?: string
  /** system ids named after "access to" or in "revoke … access" */
  systems: string[]
  /** device model ids named as "model <id>" */
  models: string[]
  /** device kinds named in the text (laptop, phone, monitor…) */
  deviceWords: string[]
  ticketId?: string
  /** the problem a ticket is about, in the task's words */
  problem?: string
  /** a subject line for a new ticket about it */
  subject?: string
  /**
   * What the text says about the person: to find them (search filters) and to compare with
   * HR. `departments` lists every team or department named ("Engineering", "the platform
   * team"); the record contradicts the task only when it matches none of them.
   */
  claims: {department?: string; departments?: string[]; role?: string; manager?: string}
}

export interface TaskFacts {
  text: string
  /** every person the task names, in order; at least one entry (possibly with neither id nor name) */
  people: PersonFacts[]
}

const NOT_NAMES = new Set([
  'Hi', 'Hello', 'Hey', 'Please', 'Thanks', 'Thank', 'Dear', 'New', 'The', 'This', 'That', 'Our', 'She', 'He', 'They', 'Her', 'His', 'Their', 'Also', 'And', 'But', 'Ticket', 'When', 'Once', 'If', 'After', 'Before',
  'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday', 'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December',
  'IT', 'HR', 'Team', 'Account', 'Executive', 'Access', 'Admin', 'Console', 'Production', 'Database', 'Design', 'Suite', 'Reports', 'Finance', 'Sales', 'Engineering', 'Marketing', 'Security', 'People',
  'GitHub', 'MacBook', 'ThinkPad', 'Dell', 'Carbon', 'Pro', 'Air', 'Slack', 'Email', 'VPN', 'CRM',
])
// role phrases that name a role id in other words (plain English synonyms, not a list of tasks)
const SYNONYMS: [RegExp, string][] = [[/\b(developer|programmer)\b/, 'engineer'], [/\baccount executive\b/, 'sales rep'], [/\bsysadmin\b/, 'it admin'], [/\bpeople partner\b/, 'hr partner']]
const DEVICE_WORDS = ['laptop', 'notebook', 'phone', 'monitor', 'screen', 'yubikey', 'security key', 'tablet', 'headset', 'dock']
const CALENDAR = /^(monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|today|tomorrow|the)$/i

const has = (re: RegExp, s: string) => re.test(s)

interface Mention {
  at: number
  end: number
  name?: string
  id?: string
}

/** People named in a text: `First Last (E-1234)`, `First Last`, `E-1234`; managers and approvers are not the people a task is about. */
function mentions(text: string): Mention[] {
  const out: Mention[] = []
  const re = /\b([A-Z][a-z]+(?:-[A-Z][a-z]+)?(?: (?:(?:de|van|von|da|di|le|la|del|dos) )?[A-Z][A-Za-z']+(?:-[A-Z][a-z]+)?)?) ?(\((E-\d{4})\))?|\b(E-\d{4})\b/g
  for (const m of text.matchAll(re)) {
    const at = m.index!
    if (m[4]) {
      out.push({at, end: at + m[0].length, id: m[4]})
      continue
    }
    const words = m[1]!.split(' ')
    if (words.length < 2 || words.some(w => NOT_NAMES.has(w))) {
      // a single capitalized word followed by an id is still a person: "Lea (E-1056)"
      if (m[3] && !NOT_NAMES.has(words[0]!)) out.push({at, end: at + m[0].length, id: m[3]})
      continue
    }
    // "reports to Maria Lopez", "her manager Fiona Walsh", "approved by …": not the subject;
    // "the Customer Support team": not a person at all
    const before = text.slice(Math.max(0, at - 30), at).toLowerCase()
    const after = text.slice(at + m[0].length, at + m[0].length + 12).toLowerCase()
    if (!m[3] && /(reports to|reporting to|manager is|manager,|manager|approved by|approver is|delegate is|deputy|the) $/.test(before)) continue
    if (!m[3] && /^ ?(team|department|group|system|access|account|office|floor)\b/.test(after)) continue
    out.push({at, end: at + m[0].length, name: m[1]!.replace(/'s$/, ''), ...(m[3] ? {id: m[3]} : {})})
  }
  // the same person named twice ("Dan Evans (E-1031) … Dan will …") is one person
  return out
}

/** Split into sentences, keeping offsets. */
function sentences(text: string): {at: number; text: string}[] {
  const out: {at: number; text: string}[] = []
  const re = /[^.!?;\n]+(?:[.!?;]+|\n|$)/g
  for (const m of text.matchAll(re)) if (m[0].trim()) out.push({at: m.index!, text: m[0]})
  return out
}

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim()

/** Group the text by person: clauses from a mention to the next, plus the sentences that follow about them. */
function segments(text: string): {mention?: Mention; parts: string[]}[] {
  const all = mentions(text)
  const people: {key: string; mention: Mention; parts: string[]}[] = []
  const shared: string[] = []
  const find = (m: Mention) => {
    const key = m.id ?? norm(m.name ?? '')
    // a later mention by first name only ("Dan") is not parsed as a person; ids and full names merge
    let p = people.find(x => x.key === key || (m.id && x.mention.id === m.id) || (m.name && x.mention.name === m.name))
    if (!p) people.push((p = {key, mention: m, parts: []}))
    else if (m.id && !p.mention.id) p.mention = {...p.mention, id: m.id}
    return p
  }
  let current: (typeof people)[number] | undefined
  for (const s of sentences(text)) {
    const inside = all.filter(m => m.at >= s.at && m.at < s.at + s.text.length)
    if (!inside.length) {
      if (current) current.parts.push(s.text)
      else shared.push(s.text)
      continue
    }
    // what precedes the first mention ("Please onboard …") is said of every person in the sentence
    const lead = s.text.slice(0, inside[0]!.at - s.at)
    const group = inside.map(find)
    inside.forEach((m, k) => {
      const end = k + 1 < inside.length ? inside[k + 1]!.at - s.at : s.text.length
      let own = s.text.slice(m.at - s.at, end)
      // "A needs access to vpn, and B to slack": the second clause leaves out what the first said
      if (k > 0 && /\baccess to\b/.test(s.text.slice(0, m.at - s.at)) && /^\s*to\b/.test(own.slice(m.end - m.at))) own = `${own.slice(0, m.end - m.at)} access${own.slice(m.end - m.at)}`
      // "Alice Chen and Dan Evans need access to crm": a clause that is only a name shares the sentence's tail
      const onlyName = k + 1 < inside.length && /^[\s,]*(and)?[\s,]*$/i.test(own.slice(m.end - m.at))
      const tail = onlyName ? s.text.slice(inside[inside.length - 1]!.end - s.at) : ''
      group[k]!.parts.push(`${lead}${own}${tail}`)
    })
    current = group[group.length - 1]
  }
  if (!people.length) return [{parts: [...shared]}]
  return people.map(p => ({mention: p.mention, parts: [...shared, ...p.parts]}))
}

function listAfter(re: RegExp, text: string): string[] {
  return [...text.matchAll(re)]
    .flatMap(m => m[1]!.split(/,| and| plus| as well as/))
    .map(s => s.trim().replace(/^the /i, '').replace(/ (access|account|accounts)$/i, '').toLowerCase())
    .filter(s => /^[a-z][a-z0-9-]*$/.test(s) && s.length > 1)
}

function personFacts(text: string, mention: Mention | undefined): PersonFacts {
  const lower = text.toLowerCase()
  const intents = new Set<Intent>()
  const onboard = has(/\b(onboard|onboarded|new hire|joins|joining|starts|starting|set (?:him|her|them) up|get (?:him|her|them) set up|run (?:his|her|their) onboarding)\b/, lower)
  if (onboard) intents.add('onboard')
  if (has(/\b(offboard|offboarded|leaving|last day|leaves the company|leaves us|departure|is leaving)\b/, lower)) intents.add('offboard')
  if (!onboard && has(/\b(mark|close out|close|complete|finish|wrap up)\b[^.]*\bonboarding\b|\bonboarding\b[^.]*\b(as complete|as done|is done|complete)\b/, lower)) intents.add('complete')
  const systems = [
    ...listAfter(/access to ((?:the )?[A-Za-z][\w-]*(?:(?:,| and| plus| as well as) (?:the )?[A-Za-z][\w-]*)*)/g, text),
    ...listAfter(/revoke (?:her |his |their )?((?:the )?[A-Za-z][\w-]*(?:(?:,| and) (?:the )?[A-Za-z][\w-]*)*) access/gi, text),
    // "needs vpn access", "wants crm and slack access"
    ...listAfter(/\b(?:needs?|wants?|requests?|asks? for|would like|give (?:him|her|them)|grant (?:him|her|them)) (?:the )?([A-Za-z][\w-]*(?:(?:,| and) (?:the )?[A-Za-z][\w-]*)*) access\b/gi, text),
  ]
  if (systems.length && !intents.has('onboard') && !intents.has('offboard')) intents.add('access')
  const models = [...lower.matchAll(/\bmodel ([a-z0-9][a-z0-9-]*[a-z0-9])/g)].map(m => m[1]!)
  if (models.length && !intents.has('onboard')) intents.add('hardware')
  const ticketId = /\bTCK-\d{4}\b/.exec(text)?.[0]
  const ticketAsk = /\b(?:log|open|raise|file|create|submit)\s+(?:a|an)\s+(?:new\s+)?(?:\w+\s+)?ticket\b(?:\s*(?:for|about|to|because|since|as|:)\s+([^.;\n]+))?/i.exec(text)
  if (ticketAsk || has(/\bticket\s+for\b/, lower)) intents.add('ticket')
  const manager = /(?:reports to|reporting to|manager is|manager,) ([A-Z][a-z]+ [A-Z][a-z]+)/.exec(text)?.[1]
  const f: PersonFacts = {text, intents, systems: [...new Set(systems)], models: [...new Set(models)], claims: {}, deviceWords: DEVICE_WORDS.filter(w => lower.includes(w))}
  if (mention?.id) f.employeeId = mention.id
  if (mention?.name) f.name = mention.name
  if (ticketId) f.ticketId = ticketId
  if (intents.has('ticket')) Object.assign(f, problemOf(text, ticketAsk?.[1]))
  if (manager) f.claims.manager = manager
  const departments = departmentsOf(text)
  if (departments.length) Object.assign(f.claims, {department: departments[0], departments})
  const role = roleOf(text)
  if (role) f.claims.role = role
  return f
}

/** "joins Engineering", "from Sales", "in the Customer Support department", "on the platform team": in the order written. */
function departmentsOf(text: string): string[] {
  const found: {at: number; name: string}[] = []
  for (const m of text.matchAll(/\b(?:joins|joining|in|on|from|to|at|with|for) the ([A-Za-z][\w&-]*(?: [A-Za-z][\w&-]*){0,2}?) (?:team|department|group)\b/gi)) found.push({at: m.index!, name: m[1]!})
  for (const m of text.matchAll(/\b(?:from|in|joins|joining) ([A-Z][a-z]+(?: [A-Z][a-z]+)?)\b/g)) {
    if (!CALENDAR.test(m[1]!.split(' ')[0]!) && !mentions(m[0]).some(x => x.name) && !found.some(f => f.at === m.index)) found.push({at: m.index!, name: m[1]!})
  }
  return [...new Set(found.sort((a, b) => a.at - b.at).map(f => norm(f.name)))]
}

/** "as a software engineer", "as our new paralegal". */
function roleOf(text: string): string | undefined {
  let role = /\bas (?:a|an|our) (?:new )?([a-z][a-z -]+?)(?=[,.;]| in | on | at | for | starting| from| who| and |$)/i.exec(text)?.[1]?.toLowerCase().trim()
  if (!role) return undefined
  for (const [re, id] of SYNONYMS) role = role.replace(re, id)
  return norm(role)
}

/**
 * What a ticket is about: the other sentences about the person and the words after "a ticket
 * for/about/because" ("… for facilities to collect his badge"). The subject of a new ticket is those
 * words when they say something, else the other sentences ("… for the helpdesk" names a team).
 */
function problemOf(text: string, after: string | undefined): {problem: string; subject: string} {
  const clean = (s: string) => s.replace(/\s*\(E-\d{4}\)/g, '').replace(/\s+/g, ' ').trim()
  const own = clean(after ?? '').replace(/^(it|this|that|him|her|them)\b/i, '').trim()
  const rest = clean(sentences(text).map(s => s.text).filter(s => !/\bticket\b/i.test(s)).join(' '))
  const telling = own.split(' ').filter(w => w.length > 3).length >= 3
  return {problem: [rest, own].filter(Boolean).join(' ') || clean(text), subject: (telling ? own : rest || own) || clean(text)}
}

export function parseTask(text: string): TaskFacts {
  // a line break inside a sentence is not the end of it
  const flat = text.replace(/\s*\n\s*/g, ' ').trim()
  const all = segments(flat).map(s => personFacts(s.parts.join(' '), s.mention))
  // a person the task asks nothing for ("Fiona Walsh is away this week") is context, not a subject
  const asked = all.filter(p => p.intents.size || p.ticketId)
  return {text, people: asked.length ? asked : all.slice(0, 1)}
}
