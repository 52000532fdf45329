import { createHash } from 'node:crypto';
import { errors } from '../domain/errorCatalogue.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { Clock } from '../infra/clock.ts';
import type { Db } from '../infra/database.ts';
import { canonicalJson } from './pageTokens.ts';

export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

/**
 * Runs an operation once per (account, operation, key): a repeat with the same payload
 * answers the first result without running again (so it is not charged again either);
 * the same key with another payload is a conflict. A failed run leaves no record, so the
 * client may retry with the same key; so does a result `codec.keep` declines (one that
 * holds a transient failure the client is told to retry).
 */
export async function once<T>(
  deps: { db: Db; clock: Clock },
  scope: { accountId: bigint; operation: string; key: string; request: unknown },
  run: () => Promise<T>,
  codec: { encode(value: T): Prisma.InputJsonValue; decode(json: Prisma.JsonValue): T; keep?(value: T): boolean },
): Promise<T> {
  const { db, clock } = deps;
  const requestHash = new Uint8Array(createHash('sha256').update(canonicalJson(scope.request)).digest());
  const where = { accountId_operation_key: { accountId: scope.accountId, operation: scope.operation, key: scope.key } };
  const existing = await db.idempotencyRecord.findUnique({ where });
  const now = clock.now();
  if (existing && existing.expiresAt > now) {
    if (Buffer.compare(Buffer.from(existing.requestHash), Buffer.from(requestHash)) !== 0) {
      throw errors.CONFLICT_IDEMPOTENCY_KEY_REUSED('this requestId was already used with a different request', {
        violations: [{ fieldPath: 'requestId', message: 'was used with another payload', ruleId: 'idempotency-key' }],
      });
    }
    if (existing.completedAt === null || existing.response === null) {
      throw errors.CONFLICT_REQUEST_IN_PROGRESS('a request with this requestId is still in progress');
    }
    return codec.decode(existing.response);
  }
  if (existing) await db.idempotencyRecord.delete({ where });
  try {
    await db.idempotencyRecord.create({
      data: { accountId: scope.accountId, operation: scope.operation, key: scope.key, requestHash, expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS) },
    });
  } catch (err) {
    // Another request with the same key got there first: answer as its repeat.
    if (!(await db.idempotencyRecord.findUnique({ where }))) throw err;
    return once(deps, scope, run, codec);
  }
  let result: T;
  try {
    result = await run();
  } catch (err) {
    await db.idempotencyRecord.delete({ where }).catch(() => undefined);
    throw err;
  }
  if (codec.keep?.(result) === false) await db.idempotencyRecord.delete({ where });
  else await db.idempotencyRecord.update({ where, data: { response: codec.encode(result), completedAt: clock.now() } });
  return result;
}
