export * from './identity.js';
export * from './audit.js';
