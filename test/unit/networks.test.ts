import { base58 } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NETWORK_LIST, normaliseExternalDestination, normaliseSolanaAddress } from '../../src/domain/networks.ts';

describe('networks', () => {
  it('accepts the base58 text of any 32-byte Solana key as it is, and refuses other lengths', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((b) => b.some((x) => x !== 0)), fc.uint8Array({ minLength: 1, maxLength: 64 }), (key, other) => {
        const text = base58.encode(key);
        expect(normaliseSolanaAddress(text, 'a')).toBe(text);
        if (other.length !== 32) expect(() => normaliseSolanaAddress(base58.encode(other), 'a')).toThrow(/32-byte/);
      }),
    );
  });

  it('refuses the system program, characters outside base58, and an EVM address on Solana', () => {
    const rule = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return (err as { violations: { ruleId: string }[] }).violations[0]?.ruleId;
      }
      return undefined;
    };
    expect(rule(() => normaliseSolanaAddress('11111111111111111111111111111111', 'a'))).toBe('solana-system-address');
    expect(rule(() => normaliseSolanaAddress('0OIl', 'a'))).toBe('solana-address');
    expect(rule(() => normaliseExternalDestination({ address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', registryChainId: 501 }))).toBe('solana-address');
    expect(normaliseExternalDestination({ address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', registryChainId: 501 }).network.family).toBe('SOLANA');
  });

  it('numbers every chain asset uniquely, and every EVM token address is a checksummed address', () => {
    const zipped = NETWORK_LIST.flatMap((n) => n.assets.map((a) => a.zippedAssetId));
    expect(new Set(zipped).size).toBe(zipped.length);
    for (const n of NETWORK_LIST) {
      expect(n.withdrawConfirmations).toBeGreaterThanOrEqual(n.depositConfirmations);
      for (const a of n.assets) if (a.tokenAddress && n.family === 'EVM') expect(normaliseExternalDestination({ address: a.tokenAddress, registryChainId: n.registryChainId }).address).toBe(a.tokenAddress);
    }
  });
});
