/**
 * The JSON codec of spec 2.1: the request side lives with the operations' input schemas
 * (services/inputCodec.ts), the response side with the presenters (presenters/scalars.ts).
 */
export { bytes, int32, INT32_MAX, int64, nonNegativeInt64, queryBool, queryInt, queryList, rfc3339, rfc3339Ns, uint64 } from '../../services/inputCodec.ts';
export { toBase64, toInt64, toRfc3339 } from '../../presenters/scalars.ts';
