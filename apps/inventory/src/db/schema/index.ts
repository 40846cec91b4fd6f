export * from './identity.js';
export * from './materials.js';
export * from './stock.js';
export * from './audit.js';
export * from './outbound.js';
export * from './returns.js';
export * from './notifications.js';
export * from './borrow.js';
