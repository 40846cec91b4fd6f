/**
 * `@wms/platform/db-schema`: the Drizzle schema pieces both apps share. drizzle-kit loads this file, so it
 * may import nothing but drizzle-orm (decisions, Shared service infrastructure 5).
 */
export * from './audit-columns.js';
export * from './idempotency-table.js';
