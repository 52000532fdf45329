import { describe, expect, it } from 'vitest';
import { apiErrorFromDatabase } from '../../src/infra/databaseErrors.ts';

describe('database errors as answers', () => {
  it.each([
    ['Prisma: the server closed the connection', { code: 'P1017', message: 'Server has closed the connection.' }],
    ['Prisma: no connection from the pool in time', { code: 'P2024' }],
    ['driver adapter: connection closed', { code: 'P2010', meta: { driverAdapterError: { cause: { kind: 'ConnectionClosed' } } } }],
    ['PostgreSQL: shutting down (57P01)', { code: '57P01' }],
    ['PostgreSQL: connection failure (08006)', { code: '08006' }],
    ['pg: connection reset', { code: 'ECONNRESET' }],
    ['pg: connection ended under a query', new Error('Connection terminated unexpectedly')],
  ])('%s is a 503 to retry', (_, err) => {
    expect(apiErrorFromDatabase(err)).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
  });

  it('a NUL in text is the caller\'s 400', () => {
    expect(apiErrorFromDatabase({ code: '22021' })).toMatchObject({ status: 400, code: 'INVALID_CHARACTER' });
  });

  it.each([
    ['a unique violation', { code: '23505' }],
    ['a syntax error (a bug)', { code: '42601' }],
    ['an unknown error', new Error('boom')],
  ])('%s stays internal', (_, err) => {
    expect(apiErrorFromDatabase(err)).toBeUndefined();
  });
});
