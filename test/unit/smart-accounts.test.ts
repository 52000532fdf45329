import fc from 'fast-check';
import { getAddress, getContractAddress, keccak256, stringToBytes } from 'viem';
import { describe, expect, it } from 'vitest';
import { smartAccountAddressOf } from '../../src/domain/smartAccounts.ts';

describe('smart-account addresses', () => {
  it('are the CREATE2 address under the factory with the public id as salt: checksummed, stable, one per account', () => {
    // Computed by hand from the CREATE2 rule: keccak256(0xff ++ factory ++ salt ++ initCodeHash)[12:].
    const factory = '5fa0b1c8e2d3f4a5b6c7d8e9f0a1b2c3d4e5f6a7';
    const salt = keccak256(stringToBytes('RuhMHnK15b9Lgc4ehVWbDc')).slice(2);
    const initCodeHash = keccak256(stringToBytes('spot-exchange smart account v1')).slice(2);
    const expected = getAddress(`0x${keccak256(`0xff${factory}${salt}${initCodeHash}`).slice(26)}`);
    expect(smartAccountAddressOf('RuhMHnK15b9Lgc4ehVWbDc')).toBe(expected);
    expect(getContractAddress({ opcode: 'CREATE2', from: `0x${factory}`, salt: `0x${salt}`, bytecodeHash: `0x${initCodeHash}` })).toBe(expected);
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 30 }), fc.string({ minLength: 1, maxLength: 30 }), (a, b) => {
        const x = smartAccountAddressOf(a);
        expect(x).toBe(getAddress(x));
        expect(smartAccountAddressOf(a)).toBe(x);
        if (a !== b) expect(smartAccountAddressOf(b)).not.toBe(x);
      }),
    );
  });
});
