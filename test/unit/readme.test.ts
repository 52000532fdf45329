import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** The README stands alone: every link points at a file of this repository. */
describe('README.md', () => {
  const text = readFileSync('README.md', 'utf8');
  const links = [...text.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);

  it('links only to files that exist in the repository', () => {
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) {
      expect(link, link).not.toMatch(/^[a-z]+:/i);
      expect(existsSync(path.resolve(link.split('#')[0]!)), link).toBe(true);
    }
  });

  it('keeps the two set-up commands and names the demo and the client generator', () => {
    for (const command of ['npm ci && npm start', 'npm ci && npm test', 'npm run demo', 'npm run client:generate']) {
      expect(text).toContain(command);
    }
  });
});
