import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from './config.ts';

export const OPERATOR_TOKEN_FILE = 'operator.token';

/**
 * `npm start` on the embedded defaults serves the operator API with a token of its own, kept
 * in DATA_DIR, so a newcomer can fund accounts (`npm run demo` reads it from there). Only
 * there: with PostgreSQL or in production the operator API exists only when OPERATOR_TOKEN
 * is configured. Returns the file's path when it made or reused one.
 */
export async function localOperatorToken(config: Config): Promise<{ token: string; file: string } | undefined> {
  if (config.operatorToken || config.env === 'production' || config.database.kind !== 'pglite') return undefined;
  const file = path.resolve(config.dataDir, OPERATOR_TOKEN_FILE);
  const existing = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (existing.length >= 16) return { token: existing, file };
  const token = randomBytes(24).toString('base64url');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  return { token, file };
}
