import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

describe('TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['false', false],
    ['true', { hops: 1 }],
    ['2', { hops: 2 }],
    ['10.0.0.1, 10.1.0.0/16, ::1', { addresses: ['10.0.0.1', '10.1.0.0/16', '::1'] }],
  ])('%s means %j', (value, expected) => {
    expect(loadConfig(value === undefined ? {} : { TRUST_PROXY: value }).http.trustProxy).toEqual(expected);
  });

  it('refuses anything else at start-up', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY/);
  });
});
