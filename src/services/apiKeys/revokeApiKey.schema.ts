export { keyIdParams as revokeApiKeyParams } from './getApiKey.schema.ts';
