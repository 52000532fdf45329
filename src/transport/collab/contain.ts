import type { Extension } from '@hocuspocus/server';
import type { Logger } from 'pino';

/**
 * Hooks whose promise Hocuspocus 3.4 leaves unawaited somewhere (a debounce timer, a Yjs or
 * awareness event handler, a socket's close callback): a rejection of one is unhandled and
 * ends the process. The hooks it awaits (authentication, loading, messages) refuse or
 * close the one connection instead, and are left as they are.
 */
const UNAWAITED_HOOKS = [
  'onConfigure',
  'onChange',
  'onStoreDocument',
  'afterStoreDocument',
  'onAwarenessUpdate',
  'beforeBroadcastStateless',
  'onDisconnect',
  'afterUnloadDocument',
] as const;

/**
 * Makes a failure of `extension`'s unawaited hooks a logged event of one room rather than
 * the end of the process. RoomPersistence handles its own store failures (it retries);
 * this is what catches the rest (the Redis fan-out's publishes, mostly).
 */
export function containHooks<E extends Extension>(extension: E, logger: Logger): E {
  const hooks = extension as unknown as Record<string, unknown>;
  for (const name of UNAWAITED_HOOKS) {
    const hook = hooks[name];
    if (typeof hook !== 'function') continue;
    hooks[name] = async (payload: unknown) => {
      try {
        return await (hook as (p: unknown) => Promise<unknown>).call(extension, payload);
      } catch (err) {
        logger.error({ hook: name, extension: extension.constructor.name, ...errorCause(err) }, 'room hook failed; the room goes on');
      }
    };
  }
  return extension;
}

/**
 * What a log may say of a hook's error: its class and code (Prisma's, or PostgreSQL's
 * SQLSTATE), never its message: a Prisma message quotes the statement's arguments, a
 * board's document among them.
 */
export function errorCause(err: unknown): { errorName: string; errorCode?: string } {
  if (!(err instanceof Error)) return { errorName: typeof err };
  const code = (err as { code?: unknown }).code;
  return { errorName: err.name, ...(typeof code === 'string' ? { errorCode: code } : {}) };
}
