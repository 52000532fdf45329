import { ApiError, errors } from '../../domain/errorCatalogue.ts';
import { invalidArgument } from '../../domain/errors.ts';

/** The trading errors more than one command or the engine raise. */
export function duplicateClientOrderId(): ApiError {
  return errors.CONFLICT_DUPLICATE_CLIENT_ORDER_ID('this clientOrderId is still retained by an earlier order', {
    violations: [{ fieldPath: 'order.clientOrderId', message: 'is retained by an earlier order', ruleId: 'unique' }],
  });
}

export function insufficientBalance(fieldPath: string): ApiError {
  return errors.INSUFFICIENT_BALANCE('insufficient available balance in the trading account', {
    violations: [{ fieldPath, message: 'exceeds what the available balance can pay', ruleId: 'balance' }],
  });
}

export function tooManyTriggers(cap: number): ApiError {
  return invalidArgument('trigger', `an account keeps at most ${cap} live standalone triggers: cancel some first`, 'max-live-triggers', errors.TOO_MANY_TRIGGERS);
}

export function orderNotFound(detail: string): ApiError {
  return errors.ORDER_NOT_FOUND(detail);
}
