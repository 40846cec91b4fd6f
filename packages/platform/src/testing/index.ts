export * from './database.js';
export * from './service.js';
export * from './openapi-lint.js';
export * from './openapi-responses.js';
export * from './openapi-types.js';
export * from './audit-triggers.js';
export * from './pglite-template.js';
