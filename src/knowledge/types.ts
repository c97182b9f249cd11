import type {PreCall as SchemaPreCall, Rule as SchemaRule, RuleCondition} from '../records/types.generated.js'

/**
 * The rule language of skills (docs/scripted-agent.md): what the miner records, the proposer
 * writes into SKILL.md and the scripted agent follows. The types are the ones generated from
 * `schemas/defs.schema.json#/$defs/Rule`, so a rule in a knowledge record and a rule in
 * memory are the same thing.
 */
export type Rule = SchemaRule
export type PreCall = SchemaPreCall
export type Condition = RuleCondition
export type ConditionTest = Condition['test']

export type BeforeRule = Extract<Rule, {kind: 'before'}>
export type OnErrorRule = Extract<Rule, {kind: 'on_error'}>
export type OnResultRule = Extract<Rule, {kind: 'on_result'}>
export type NeverRule = Extract<Rule, {kind: 'never'}>
