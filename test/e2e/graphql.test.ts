import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printSchemaSdl } from '../../src/transport/graphql/sdl.ts';
import { NodeDocument, ServerInfoDocument, ServerTimeDocument } from '../generated/graphql/graphql.ts';
import { collect, gql, wsClient } from '../helpers/graphql.ts';
import { startTestApp, type RunningApp } from '../helpers/infra.ts';

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server?.close();
});

describe('GraphQL over HTTP', () => {
  it('answers a codegen-typed query', async () => {
    const before = Date.now();
    const { status, body } = await gql(server.url, ServerInfoDocument);
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data?.serverInfo.apiVersion).toBe('v1');
    expect(Date.parse(body.data!.serverInfo.serverTime)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('hides an account from a caller who may not see it, as if it did not exist', async () => {
    await server.database.prisma.account.create({ data: { publicId: 'HiddenRoot1', kind: 'ROOT' } });
    const id = Buffer.from('Account:HiddenRoot1').toString('base64');
    const { body } = await gql(server.url, NodeDocument, { id });
    expect(body.errors).toBeUndefined();
    expect(body.data?.node).toBeNull();
  });

  it('answers a malformed node id as an invalid argument with the /v1 error fields', async () => {
    const { body } = await gql(server.url, NodeDocument, { id: '%%%' });
    expect(body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_REQUEST',
      key: 'invalid-argument',
      status: 400,
      violations: [{ fieldPath: 'id', message: expect.any(String), ruleId: 'global-id' }],
    });
  });

  it('labels GraphQL metrics by the root fields selected', async () => {
    await gql(server.url, ServerInfoDocument);
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(/http_requests_total\{operation="graphql:query:serverInfo",method="POST",status="200"\} \d+/);
  });
});

describe('GraphQL subscriptions over graphql-ws', () => {
  it('streams events to a real WebSocket client on /graphql', async () => {
    const client = wsClient(server.url);
    try {
      const results = await collect(client, ServerTimeDocument, { count: 2 }, 2);
      expect(results).toHaveLength(2);
      const [a, b] = results.map((r) => Date.parse(r.data!.serverTime));
      expect(b).toBeGreaterThan(a!);
    } finally {
      await client.dispose();
    }
  });
});

describe('graphql/schema.graphql', () => {
  it('is the SDL of the current schema (run `npm run schema:print` when this fails)', async () => {
    const checkedIn = await readFile(path.resolve(import.meta.dirname, '../../graphql/schema.graphql'), 'utf8');
    expect(checkedIn).toBe(printSchemaSdl());
  });
});
