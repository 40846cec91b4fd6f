export * from './identity.js';
export * from './materials.js';
export * from './bom.js';
export * from './stock.js';
export * from './audit.js';
export * from './outbound.js';
export * from './returns.js';
export * from './notifications.js';
export * from './borrow.js';
export * from './scrap.js';
export * from './scan-drafts.js';
export * from './suppliers.js';
export * from './purchase.js';
export * from './stocktake.js';
export * from './stock-moves.js';
/** Stored answers of Idempotency-Key retries (platform table; technical, no audit trigger). */
export { idempotencyKeys } from '@wms/platform/db-schema';
export * from './material-images.js';
