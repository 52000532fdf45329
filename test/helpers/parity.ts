import { getNamedType, isObjectType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import { schema } from '../../src/transport/graphql/schema.ts';

/**
 * Which GraphQL field answers a /v1 operation, for the tests that walk the route table
 * (test/unit/graphql-parity.test.ts, test/e2e/transport-bounds.test.ts).
 */

/** Where a route's GraphQL counterpart differs from the default name (see counterpartName). */
export interface Counterpart {
  field?: string;
  /** REST parameter name (camelCase) -> GraphQL argument name. */
  args?: Record<string, string>;
  /** Path of fields from the GraphQL field's type down to what REST answers. */
  within?: string;
  /** REST response field -> GraphQL field, where the names differ. */
  fields?: Record<string, string>;
}

export const COUNTERPARTS: Record<string, Counterpart> = {
  createWalletNonce: { field: 'Mutation.requestWalletNonce' },
  getTerms: { field: 'Viewer.terms' },
  getApiKey: { field: 'Viewer.apiKey' },
  getRateLimitConfig: { field: 'Query.rateLimits' },
  listAddressBookEntries: { field: 'Viewer.addressBook' },
  getAddressBookEntry: { args: { entryId: 'addressBookEntryId' } },
  updateAddressBookEntry: { args: { entryId: 'addressBookEntryId' } },
  deleteAddressBookEntry: { args: { entryId: 'addressBookEntryId' } },
  tagAddressBookEntry: { args: { entryId: 'addressBookEntryId' } },
  untagAddressBookEntry: { args: { entryId: 'addressBookEntryId' } },
  getOrderByClientOrderId: { field: 'Query.order' },
  getOpenOrders: { field: 'Viewer.openOrders', args: { symbol: 'symbols' } },
  batchCancelOrders: { field: 'Mutation.cancelOrdersBatch' },
  getUserTrades: { field: 'Viewer.fills' },
  listBalances: { field: 'Viewer.balances' },
  listTransfers: { field: 'Viewer.transfers' },
  createInternalTransfer: { field: 'Mutation.internalTransfer' },
  listNetworks: { field: 'Query.chainNetworks' },
  listFlows: { field: 'Query.chainFlows' },
  getFlow: { field: 'Query.flow', args: { flowId: 'id' } },
  getWithdrawAllowList: { field: 'Query.withdrawAllowListOnly' },
  getLayout: { args: { layoutId: 'layoutId' } },
  listLayouts: { field: 'Viewer.layouts' },
  upsertLayer: { field: 'Mutation.upsertChartLayer' },
  listLayers: { field: 'Viewer.chartLayers' },
  getLayer: { field: 'Viewer.chartLayer' },
  deleteLayer: { field: 'Mutation.deleteChartLayer' },
  listDrawings: { field: 'Viewer.chartDrawings' },
  upsertDrawing: { field: 'Mutation.upsertChartDrawing' },
  syncDrawings: { field: 'Mutation.syncChartDrawings' },
  getDrawing: { field: 'Viewer.chartDrawing' },
  deleteDrawing: { field: 'Mutation.deleteChartDrawing' },
  listWhiteboardMembers: { field: 'Viewer.whiteboard', within: 'board' },
  exportWhiteboard: { field: 'Viewer.whiteboard', within: 'board', fields: { scene: 'currentScene' } },
};

export const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** `getOrder` -> `order`, `listLayouts` -> `layouts`; a write keeps its operationId. */
export function counterpartName(operationId: string, method: string): string[] {
  if (method !== 'GET') return [`Mutation.${operationId}`];
  const bare = operationId.replace(/^(get|list)/, '');
  const name = bare.charAt(0).toLowerCase() + bare.slice(1);
  return [`Query.${name}`, `Viewer.${name}`];
}

export function fieldAt(path: string): GraphQLField<unknown, unknown> | undefined {
  const [typeName, fieldName] = path.split('.') as [string, string];
  const type = schema.getType(typeName);
  return isObjectType(type) ? type.getFields()[fieldName] : undefined;
}

export const isConnection = (t: GraphQLObjectType) => 'edges' in t.getFields() && 'pageInfo' in t.getFields();


/** The GraphQL field of an operation and where it lives, or the names looked for. */
export function counterpartOf(operationId: string, method: string): { at: string; field: GraphQLField<unknown, unknown> } | { looked: string[] } {
  const explicit = COUNTERPARTS[operationId];
  const candidates = explicit?.field ? [explicit.field] : counterpartName(operationId, method);
  const at = candidates.find((c) => fieldAt(c));
  return at ? { at, field: fieldAt(at)! } : { looked: candidates };
}

/** Whether a field answers a Relay connection (paged by first/after). */
export function isPaged(field: GraphQLField<unknown, unknown>): boolean {
  const t = getNamedType(field.type);
  return isObjectType(t) && isConnection(t);
}
