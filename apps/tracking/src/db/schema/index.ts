export * from './identity.js';
export * from './audit.js';
export * from './groups.js';
export * from './products.js';
export * from './tasks.js';
export * from './integrations.js';
