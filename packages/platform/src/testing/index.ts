export * from './database.js';
export * from './service.js';
