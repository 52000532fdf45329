import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { dropSchema, testConfig, uniqueName } from '../helpers/infra.ts';

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
});
