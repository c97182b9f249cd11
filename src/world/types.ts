/**
 * The shape of the deterministic enterprise world (docs/scenarios.md).
 *
 * Every collection is a plain object keyed by record id, so a scenario can address any
 * value with a dotted path (`workflows.WF-1031.status`) and the state serializes to
 * canonical JSON unchanged. The state is treated as immutable: tools replace the records
 * and collections they change (see state.ts), which lets digests be cached per collection.
 */

export type EmployeeStatus = 'pending' | 'active' | 'offboarding' | 'terminated'
export type EmploymentType = 'employee' | 'contractor' | 'intern'

/** An absence: from and until are dates (YYYY-MM-DD, both included); the delegate approves in the person's place. */
export interface Leave {
  from: string
  until: string
  delegate: string | null
}

export interface Employee {
  id: string
  name: string
  email: string
  department: string
  manager: string | null
  role: string
  status: EmployeeStatus
  /** contractors and interns may not hold every system (AccessSystem.allowed_employment) */
  employment_type: EmploymentType
  start_date: string | null
  /** the last day: a leaver's, or the end of a contractor's contract */
  end_date: string | null
  leave: Leave | null
  /** fields HR has not confirmed yet; onboarding must not proceed while non-empty */
  pending_info: string[]
}

export interface Department {
  id: string
  name: string
  manager: string
}

export interface DeviceModel {
  model: string
  name: string
  category: 'laptop' | 'phone' | 'monitor' | 'accessory'
  stock: number
  unit_cost: number
  /** roles that may be given this model; empty: every role (assign_device refuses others with MODEL_NOT_ALLOWED) */
  allowed_roles: string[]
}

export interface Assignment {
  id: string
  employee: string
  model: string
  status: 'assigned' | 'returned'
  assigned_at: string
  returned_at: string | null
}

export interface AccessSystem {
  id: string
  name: string
  allowed_roles: string[]
  /** employment types that may hold the system; empty: every type (grant_access refuses others with EMPLOYMENT_NOT_ALLOWED) */
  allowed_employment: string[]
  approval: {required: boolean; approver: 'manager' | 'security' | null; enforced: boolean}
}

export interface AccessGrant {
  employee: string
  system: string
  status: 'active' | 'revoked'
  granted_at: string
  revoked_at: string | null
  /** approval id the grant relied on, null when granted without one */
  approval: string | null
}

export interface Approval {
  id: string
  employee: string
  system: string
  approver: string
  status: 'approved'
  requested_at: string
}

export interface Blocker {
  id: string
  reason: string
  category: string
  status: 'open' | 'resolved'
  created_at: string
}

export interface Ticket {
  id: string
  subject: string
  description: string
  employee: string | null
  category: string
  priority: 'low' | 'normal' | 'high'
  status: 'open' | 'in_progress' | 'blocked' | 'resolved' | 'closed' | 'duplicate'
  duplicate_of: string | null
  blockers: Blocker[]
  comments: string[]
  created_at: string
  updated_at: string
}

export interface ProcurementRequest {
  id: string
  employee: string | null
  model: string
  quantity: number
  justification: string
  status: 'requested'
  requested_at: string
}

export type WorkflowItem = {type: 'device'; model: string} | {type: 'access'; system: string}

export interface Workflow {
  id: string
  type: 'onboarding' | 'offboarding'
  employee: string
  status: 'open' | 'completed'
  items: WorkflowItem[]
  blockers: Blocker[]
  completed_at: string | null
}

export interface Escalation {
  id: string
  employee: string | null
  target: string | null
  team: string
  reason: string
  created_at: string
}

/** A request refused under policy, with the reason the requester is given. */
export interface Denial {
  id: string
  employee: string | null
  /** the model, system or other thing refused */
  item: string | null
  /** the workflow or ticket the request came with */
  target: string | null
  reason: string
  created_at: string
}

export interface Document {
  id: string
  title: string
  tags: string[]
  body: string
}

export interface Policy {
  topic: string
  title: string
  text: string
  rules: Record<string, unknown>
}

export interface Settings {
  company: string
  /** the simulated clock starts here (ISO UTC) */
  now: string
  /** technical enforcement: when false the tool lets the action through and only the grader notices */
  enforce: {
    workflow_blockers: boolean
    offboarding_items: boolean
    ticket_dedupe: boolean
  }
}

/** Next number of each id sequence (ids are `<PREFIX>-<4 digits>`). */
export type Sequences = Record<'ticket' | 'assignment' | 'approval' | 'procurement' | 'escalation' | 'blocker' | 'denial', number>

export interface WorldState {
  settings: Settings
  seq: Sequences
  departments: Record<string, Department>
  employees: Record<string, Employee>
  devices: Record<string, DeviceModel>
  assignments: Record<string, Assignment>
  systems: Record<string, AccessSystem>
  access: Record<string, AccessGrant>
  approvals: Record<string, Approval>
  tickets: Record<string, Ticket>
  procurement: Record<string, ProcurementRequest>
  workflows: Record<string, Workflow>
  escalations: Record<string, Escalation>
  denials: Record<string, Denial>
  documents: Record<string, Document>
  policies: Record<string, Policy>
}

export type CollectionName = keyof WorldState

/** Collections in digest order (fixed, so the state digest never depends on key insertion). */
export const COLLECTIONS: readonly CollectionName[] = [
  'settings', 'seq', 'departments', 'employees', 'devices', 'assignments', 'systems', 'access',
  'approvals', 'tickets', 'procurement', 'workflows', 'escalations', 'denials', 'documents', 'policies',
]

/** Key of an access grant: one grant record per (employee, system). */
export function accessKey(employee: string, system: string): string {
  return `${employee}/${system}`
}
