import { ApiError, invalidArgument } from '../../domain/errors.ts';

/** The trading errors more than one command or the engine raise. */
export function duplicateClientOrderId(): ApiError {
  return new ApiError('conflict', 'this clientOrderId is still retained by an earlier order', {
    code: 'CONFLICT_DUPLICATE_CLIENT_ORDER_ID',
    violations: [{ fieldPath: 'order.clientOrderId', message: 'is retained by an earlier order', ruleId: 'unique' }],
  });
}

export function insufficientBalance(fieldPath: string): ApiError {
  return new ApiError('invalid-argument', 'insufficient available balance in the trading account', {
    code: 'INSUFFICIENT_BALANCE',
    violations: [{ fieldPath, message: 'exceeds what the available balance can pay', ruleId: 'balance' }],
  });
}

export function tooManyTriggers(cap: number): ApiError {
  return invalidArgument('trigger', `an account keeps at most ${cap} live standalone triggers: cancel some first`, 'max-live-triggers', 'TOO_MANY_TRIGGERS');
}

export function orderNotFound(detail: string): ApiError {
  return new ApiError('not-found', detail, { code: 'ORDER_NOT_FOUND' });
}
