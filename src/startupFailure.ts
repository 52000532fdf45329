import type { Config } from './config.ts';

/**
 * One actionable line for the failures a person starting the service can fix themselves
 * (no database, wrong address or credentials); undefined for anything else, which keeps its
 * stack trace. The URL is shown without its password.
 */
export function startupFailure(err: unknown, config: Config): string | undefined {
  if (config.database.kind !== 'postgres') return undefined;
  const e = err as { code?: unknown; message?: unknown };
  const url = new URL(config.database.url);
  if (url.password) url.password = '***';
  const where = `DATABASE_URL=${url.toString()}`;
  const database = decodeURIComponent(url.pathname.slice(1)) || url.username;
  switch (e?.code) {
    case '3D000':
      return `cannot start: the database "${database}" does not exist (${where}); create it with \`createdb ${database}\` or point DATABASE_URL at an existing one`;
    case '28P01':
    case '28000':
      return `cannot start: PostgreSQL refused the credentials of ${where}; fix the user or password in DATABASE_URL`;
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EHOSTUNREACH':
    case 'ETIMEDOUT':
      return `cannot start: PostgreSQL is not reachable at ${url.host} (${where}, ${String(e.code)}); start PostgreSQL or fix DATABASE_URL`;
    default:
      return undefined;
  }
}
