import { getContractAddress, keccak256, stringToBytes } from 'viem';

/**
 * Every root account and subaccount has a smart-account address (spec 2.11, 2.12): the
 * CREATE2 address its contract would have if the exchange's account factory deployed it
 * with the account's public id as salt. Known before any deployment (counterfactual, as
 * ERC-4337 wallets are), the same in every process, and derived, never stored unchecked.
 * The factory and init code are this deployment's constants.
 */
const ACCOUNT_FACTORY = '0x5FA0b1C8e2d3f4a5B6c7D8e9f0a1b2c3D4E5F6a7';
const ACCOUNT_INIT_CODE_HASH = keccak256(stringToBytes('spot-exchange smart account v1'));

export function smartAccountAddressOf(publicId: string): string {
  return getContractAddress({ opcode: 'CREATE2', from: ACCOUNT_FACTORY, salt: keccak256(stringToBytes(publicId)), bytecodeHash: ACCOUNT_INIT_CODE_HASH });
}
