export * from './identity.js';
export * from './materials.js';
export * from './stock.js';
export * from './audit.js';
