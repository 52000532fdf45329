import { describe, expect, it } from 'vitest';
import type { Services } from '../../src/services/index.ts';
import { openApiDocument } from '../../src/transport/openapiDocument.ts';
import { restRoutes } from '../../src/transport/rest/routes.ts';
import { operatorRoutes } from '../../src/transport/rest/routes/operator.ts';

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

/**
 * Every operation answers a body its route's `response:` schema (src/presenters/) checks,
 * serializes and documents (issue 28).
 */
describe('typed success responses', () => {
  it('every route has a response schema', () => {
    expect(routes.filter((r) => r.response === undefined).map((r) => r.operationId)).toEqual([]);
  });

  it('/v1/openapi.json documents a concrete body for every operation', async () => {
    const schemas = await successSchemas();
    expect(schemas.size).toBe(routes.length);
    expect([...schemas].filter(([, s]) => !isConcrete(s)).map(([id]) => id)).toEqual([]);
  });
});
