export * from './identity.js';
export * from './audit.js';
export * from './groups.js';
export * from './products.js';
export * from './tasks.js';
export * from './integrations.js';
/** Stored answers of Idempotency-Key retries (platform table; technical, no audit trigger). */
export { idempotencyKeys } from '@wms/platform/db-schema';
