import {ARG, defineTool, fail, ok} from './define.js'

export const getInventory = defineTool<{model?: string; category?: string}>({
  name: 'get_inventory',
  kind: 'read',
  description: 'List device models in the IT stockroom with their current stock and the roles each model is reserved for (`allowed_roles`, empty: anyone), optionally one model or one category (laptop, phone, monitor, accessory). A model with stock 0 cannot be assigned until procurement delivers. Fails with NOT_FOUND for an unknown model.',
  parameters: {properties: {model: ARG.model, category: {type: 'string', enum: ['laptop', 'phone', 'monitor', 'accessory']}}},
  reads: ['devices'],
  writes: [],
  errors: ['NOT_FOUND'],
  latencyMs: 70,
  run(tx, {model, category}) {
    const devices = tx.get('devices')
    if (model && !devices[model]) return fail('NOT_FOUND', `no device model ${model}`)
    const items = Object.values(devices)
      .filter(d => (!model || d.model === model) && (!category || d.category === category))
      .map(d => ({model: d.model, name: d.name, category: d.category, stock: d.stock, allowed_roles: d.allowed_roles}))
    return ok({items})
  },
})
