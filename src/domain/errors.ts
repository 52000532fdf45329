import { errors, type ApiError, type ERROR_CATALOGUE, type ErrorCode, type ErrorFactory } from './errorCatalogue.ts';

/** The codes whose key is 'invalid-argument': the ones a field's violation may be answered with. */
type InvalidArgumentCode = { [C in ErrorCode]: (typeof ERROR_CATALOGUE)[C]['key'] extends 'invalid-argument' ? C : never }[ErrorCode];

/**
 * A 400 naming the one field that is wrong, built by `factory` (BAD_REQUEST unless the
 * refusal has a code of its own, e.g. `errors.UNKNOWN_SYMBOL`); a factory of another
 * status does not compile.
 */
export function invalidArgument(fieldPath: string, message: string, ruleId: string, factory: ErrorFactory<InvalidArgumentCode> = errors.BAD_REQUEST): ApiError {
  return factory(`${fieldPath}: ${message}`, { violations: [{ fieldPath, message, ruleId }] });
}
