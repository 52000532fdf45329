import { describe, expect, it } from 'vitest';
import type { Services } from '../../src/services/index.ts';
import { openApiDocument } from '../../src/transport/openapiDocument.ts';
import { restRoutes } from '../../src/transport/rest/routes.ts';
import { operatorRoutes } from '../../src/transport/rest/routes/operator.ts';

/**
 * Every operation answers a body its route's `response:` schema (src/presenters/) checks,
 * serializes and documents. The operations below are not converted yet (issue 28): the list
 * may only shrink. Remove an operation from it as soon as its route gets its schema.
 */
const NOT_YET_TYPED = new Set([
  // Triggers (routes/triggers.ts)
  'createTrigger', 'listTriggers', 'cancelTrigger', 'modifyTrigger', 'cancelAllTriggers', 'pauseTrigger', 'resumeTrigger',
  'getTrigger', 'listTriggerEvents',
  // Operator API (routes/operator.ts and the operator routes beside each area)
  'putRateLimitOverride', 'deleteRateLimitOverride', 'setVipTier', 'checkReferences', 'operatorCredit', 'observeDeposit',
  'dropDeposit', 'rejectWithdrawal', 'dropWithdrawal', 'listQuarantinedEntries', 'reapplyQuarantinedEntry',
]);

/** The routes only call their services when they handle a request: none are needed to list them. */
const routes = [...restRoutes({} as Services), ...operatorRoutes({} as Services)];

type Schema = { type?: string; properties?: object; additionalProperties?: unknown; $ref?: string; anyOf?: Schema[]; oneOf?: Schema[] };

/** A success body is typed when its schema names its members, not when it is "any object". */
function isConcrete(schema: Schema | undefined): boolean {
  if (!schema) return false;
  if (schema.$ref) return true;
  if (schema.anyOf ?? schema.oneOf) return (schema.anyOf ?? schema.oneOf)!.every(isConcrete);
  return schema.type === 'object' && schema.properties !== undefined && schema.additionalProperties !== true;
}

async function successSchemas(): Promise<Map<string, Schema | undefined>> {
  const doc = (await openApiDocument()) as { paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>> };
  const out = new Map<string, Schema | undefined>();
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      const success = Object.entries(op.responses).find(([status]) => status.startsWith('2'))?.[1];
      out.set(op.operationId, success?.content?.['application/json']?.schema);
    }
  }
  return out;
}

describe('typed success responses', () => {
  it('every route outside the named list has a response schema', () => {
    const untyped = routes.filter((r) => r.response === undefined).map((r) => r.operationId);
    expect(untyped.filter((id) => !NOT_YET_TYPED.has(id))).toEqual([]);
  });

  it('every operation in the list is still untyped (the list only shrinks) and still exists', () => {
    const byId = new Map(routes.map((r) => [r.operationId, r]));
    const stale = [...NOT_YET_TYPED].filter((id) => !byId.has(id) || byId.get(id)!.response !== undefined);
    expect(stale).toEqual([]);
  });

  it('/v1/openapi.json documents a concrete body for every typed operation, and only for those', async () => {
    const schemas = await successSchemas();
    expect(schemas.size).toBe(routes.length);
    const loose = [...schemas].filter(([id, s]) => !NOT_YET_TYPED.has(id) && !isConcrete(s)).map(([id]) => id);
    expect(loose).toEqual([]);
    const typedButListed = [...schemas].filter(([id, s]) => NOT_YET_TYPED.has(id) && isConcrete(s)).map(([id]) => id);
    expect(typedButListed).toEqual([]);
  });
});
