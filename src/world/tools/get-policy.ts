import {ARG, defineTool, fail, ok} from './define.js'

const TOPICS = ['onboarding', 'offboarding', 'hardware', 'access', 'tickets', 'escalation'] as const

export const getPolicy = defineTool<{topic: (typeof TOPICS)[number]; system?: string}>({
  name: 'get_policy',
  kind: 'read',
  description: 'Read a company policy by topic. With topic `access` and a `system`, returns that system\'s access policy: which roles and employment types may hold it (an empty list: any), whether an approval is required and who approves (the employee\'s manager, or their delegate while the manager is on leave, or the security team). Without a system, `access` lists every system. Fails with NOT_FOUND for an unknown system.',
  parameters: {
    required: ['topic'],
    properties: {topic: {type: 'string', enum: [...TOPICS]}, system: ARG.system},
  },
  reads: ['policies', 'systems'],
  writes: [],
  errors: ['NOT_FOUND'],
  latencyMs: 80,
  run(tx, {topic, system}) {
    if (topic === 'access' && system) {
      const s = tx.get('systems')[system]
      if (!s) return fail('NOT_FOUND', `no access system ${system}`)
      return ok({topic, system: s.id, name: s.name, allowed_roles: s.allowed_roles, allowed_employment: s.allowed_employment, requires_approval: s.approval.required, approver: s.approval.approver})
    }
    const p = tx.get('policies')[topic]
    if (!p) return fail('NOT_FOUND', `no policy for topic ${topic}`)
    if (topic === 'access') {
      const systems = Object.values(tx.get('systems')).map(s => ({system: s.id, name: s.name, requires_approval: s.approval.required}))
      return ok({...p, systems})
    }
    return ok(p)
  },
})
