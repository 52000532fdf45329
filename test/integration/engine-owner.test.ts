import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { TEST_DATABASE_URL } from '../helpers/env.ts';
import { dropSchema, testConfig, uniqueName } from '../helpers/infra.ts';
import { pollUntil } from '../helpers/wait.ts';

describe('one engine owner per database', () => {
  it('refuses to start a second process on the same database, and lets one start once the owner is gone', async () => {
    const schema = uniqueName('own');
    const config = testConfig({ DATABASE_SCHEMA: schema, REDIS_KEY_PREFIX: `${schema}:` });
    const owner = await createApp({ config });
    try {
      await expect(createApp({ config })).rejects.toThrow(/another process owns the trading engines/);
    } finally {
      await owner.close();
    }
    const next = await createApp({ config });
    await next.close();
    await dropSchema(schema);
  });

  it('tells the owner when the connection holding its lock dies (another process can take it at once), and not on a normal close', async () => {
    const schema = uniqueName('own');
    const config = testConfig({ DATABASE_SCHEMA: schema, REDIS_KEY_PREFIX: `${schema}:` });
    const lost: Error[] = [];
    const owner = await createApp({ config, onEngineLockLost: (err) => lost.push(err) });
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      const killed = await admin.query('SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1', [`lock:${schema}:trading-engine`]);
      expect(killed.rows).toEqual([{ ok: true }]);
      await pollUntil(() => lost.length > 0, 2000);
      expect(lost).toHaveLength(1);
      // Why the owner must stop: the lock is free for the next process right away.
      const successor = await createApp({ config, onEngineLockLost: (err) => lost.push(err) });
      await successor.close();
      expect(lost).toHaveLength(1);
    } finally {
      await admin.end();
      await owner.close();
      await dropSchema(schema);
    }
  });
});
