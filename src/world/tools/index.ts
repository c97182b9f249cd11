import type {ToolDef} from './define.js'
import {addBlocker} from './add-blocker.js'
import {assignDevice} from './assign-device.js'
import {completeOffboarding} from './complete-offboarding.js'
import {completeOnboarding} from './complete-onboarding.js'
import {createProcurementRequest} from './create-procurement-request.js'
import {createTicket} from './create-ticket.js'
import {denyRequest} from './deny-request.js'
import {escalate} from './escalate.js'
import {getEmployee} from './get-employee.js'
import {getInventory} from './get-inventory.js'
import {getPolicy} from './get-policy.js'
import {getWorkflow} from './get-workflow.js'
import {grantAccess} from './grant-access.js'
import {recoverDevice} from './recover-device.js'
import {requestApproval} from './request-approval.js'
import {revokeAccess} from './revoke-access.js'
import {searchDocuments} from './search-documents.js'
import {searchEmployees} from './search-employees.js'
import {searchTickets} from './search-tickets.js'
import {updateTicket} from './update-ticket.js'

/** Every tool of the world, in catalog order (reads first, then writes). */
export const TOOLS: readonly ToolDef<any>[] = [
  getEmployee, searchEmployees, getPolicy, searchDocuments, getInventory, getWorkflow, searchTickets,
  assignDevice, recoverDevice, createProcurementRequest, requestApproval, grantAccess, revokeAccess,
  createTicket, updateTicket, addBlocker, escalate, denyRequest, completeOnboarding, completeOffboarding,
]

export type {ToolDef, ToolMeta} from './define.js'
