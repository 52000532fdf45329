export type RuleShape = { vipTier: number; policyClass: 'PLACE' | 'CANCEL'; periodMs: number; quotaWeight: number; burstWeight: number };
export type EffectiveRuleShape = { scope: string; policyClass: 'PLACE' | 'CANCEL'; source: string; periodMs: number; quotaWeight: number; burstWeight: number };
