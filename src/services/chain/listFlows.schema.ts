import { z } from 'zod';
import { INT32_MAX, queryInt, queryList } from '../inputCodec.ts';

export const FLOWS_LIST_MAX = 500;

/** A chain or asset id filter: the int32 its column holds (a larger one cannot be bound). */
const int32Id = z
  .string()
  .regex(/^[0-9]{1,10}$/, { error: 'must be an integer' })
  .refine((v) => Number(v) <= INT32_MAX, { error: `must be at most ${INT32_MAX}` });

export const listFlowsQuery = z.strictObject({
  flowKind: z.enum(['FLOW_KIND_UNSPECIFIED', 'DEPOSIT', 'WITHDRAW_TO_EXTERNAL_CHAIN', 'WITHDRAW_TO_FUNDING']).optional(),
  flowState: z.enum(['FLOW_STATE_UNSPECIFIED', 'PENDING_SOURCE', 'SOURCE_CONFIRMING', 'PENDING_VALIDATION', 'PENDING_DESTINATION', 'DESTINATION_CONFIRMING', 'COMPLETED', 'FAILED', 'REJECTED', 'EXPIRED', 'DROPPED']).optional(),
  scope: z.enum(['OPEN', 'TERMINAL', 'ALL']).optional(),
  orderBy: z.enum(['LAST_ACTIVITY', 'STARTED', 'UPDATED']).optional(),
  sort: z.enum(['NEWEST', 'OLDEST']).optional(),
  ownerAccountId: z.string().max(64).optional(),
  serviceChainIds: queryList(int32Id).optional(),
  unifiedAssetIds: queryList(int32Id).optional(),
  zippedAssetIds: queryList(int32Id).optional(),
  txRef: z.string().max(200).optional(),
  smartAccountAddress: z.string().max(64).optional(),
  flowId: z.string().max(64).optional(),
  limit: queryInt(1, FLOWS_LIST_MAX).optional(),
  pageToken: z.string().max(2048).optional(),
});
export type ListFlowsQuery = z.output<typeof listFlowsQuery>;
