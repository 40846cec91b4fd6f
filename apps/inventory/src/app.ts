import { fileURLToPath } from 'node:url';
import { createCredentialThrottle, createLockStore, createTokenService, PGLITE_CUBE, PGLITE_PG_TRGM, startService, type FastifyServerOptionsLogger, type LockStore } from '@wms/platform';
import type { InventoryConfig } from './config.js';
import type { InventoryDeps, InventoryFastify } from './app-types.js';
import { bootstrapInventory, type BootstrapResult } from './bootstrap.js';
import { createActorLoader } from './modules/identity/actor-loader.js';
import { registerIdentityRoutes } from './modules/identity/routes.js';
import { registerMaterialRoutes } from './modules/materials/routes.js';
import { registerBomRoutes } from './modules/bom/routes.js';
import { registerImportRoutes } from './modules/import/routes.js';
import { registerStockRoutes } from './modules/stock/routes.js';
import { registerLabelRoutes } from './modules/labels/routes.js';
import { registerOutboundRoutes } from './modules/outbound/routes.js';
import { registerSystemRoutes } from './modules/system/routes.js';
import { registerAuditRoutes } from './modules/audit/routes.js';
import { registerReturnRoutes } from './modules/returns/routes.js';
import { registerDefectiveRoutes } from './modules/defective/routes.js';
import { registerBorrowRoutes } from './modules/borrow/routes.js';
import { registerStocktakeRoutes } from './modules/stocktake/routes.js';
import { registerScrapRoutes } from './modules/scrap/routes.js';
import { registerScanDraftRoutes } from './modules/scan-drafts/routes.js';
import { registerCommonRoutes } from './modules/common/routes.js';
import { registerImageSearchRoutes } from './modules/image-search/routes.js';
import { registerPurchaseRoutes } from './modules/purchase/routes.js';
import { registerSupplierRoutes } from './modules/suppliers/routes.js';
import { registerMailOutboxRoutes } from './modules/notifications/mail-outbox-routes.js';
import { installMailer } from './modules/notifications/mailer.js';
import { registerIntegrationRoutes } from './modules/integrations/routes.js';
import { installOutboxDispatcher, type DispatcherOptions } from './modules/integrations/install-dispatcher.js';
import { installLedgerReconcileJob } from './modules/stock/ledger-reconcile.js';

export const INVENTORY_MIGRATIONS = fileURLToPath(new URL('./db/migrations', import.meta.url));
export const INVENTORY_AUDIENCE = 'inventory';
/** PGlite extensions the inventory migrations need (cube: image search descriptors; pg_trgm: list keyword indexes). */
export const INVENTORY_PGLITE_EXTENSIONS = { ...PGLITE_CUBE, ...PGLITE_PG_TRGM };

export interface BuildOptions {
  logger?: FastifyServerOptionsLogger;
  /** Replaces the lock store chosen from REDIS_URL (tests inject an unreachable one). */
  locks?: LockStore;
  /** The notification outbox dispatcher (tests: disable it, or shorten its interval and backoff). */
  dispatcher?: DispatcherOptions;
}

export interface InventoryApp {
  app: InventoryFastify;
  deps: InventoryDeps;
  bootstrap: BootstrapResult;
  close(): Promise<void>;
}

/** Builds the inventory service: database (migrated), bootstrap, guards and every module's routes. */
export async function buildInventoryApp(config: InventoryConfig, options: BuildOptions = {}): Promise<InventoryApp> {
  return startService({
    title: '库存与仓储服务 (Inventory service)',
    description: '物料、库存、出库、借用、退货、报废、盘点、采购与审计。错误体为 { msg, code }。',
    validationStatus: 400,
    logger: options.logger,
    nodeEnv: config.nodeEnv,
    database: { url: config.databaseUrl, poolSize: config.databasePoolSize, migrationsFolder: INVENTORY_MIGRATIONS, pgliteExtensions: INVENTORY_PGLITE_EXTENSIONS },
    locks: () => options.locks ?? createLockStore(config.redisUrl),
    throttle: () => createCredentialThrottle({ redisUrl: config.redisUrl, limits: config.credentialLimits, namespace: 'inventory' }),
    bootstrap: (database) => bootstrapInventory(database, { username: config.adminUsername, password: config.adminPassword }),
    tokens: createTokenService(config.jwtSecret, INVENTORY_AUDIENCE),
    actors: createActorLoader,
    modules: ({ app, database, tokens, locks, throttle }) => {
      const deps: InventoryDeps = { config, database, tokens, locks, throttle };
      registerSystemRoutes(app, deps);
      registerAuditRoutes(app, deps);
      registerIdentityRoutes(app, deps);
      registerMaterialRoutes(app, deps);
      registerBomRoutes(app, deps);
      registerImportRoutes(app, deps);
      registerStockRoutes(app, deps);
      registerLabelRoutes(app, deps);
      registerOutboundRoutes(app, deps);
      registerReturnRoutes(app, deps);
      registerDefectiveRoutes(app, deps);
      registerBorrowRoutes(app, deps);
      registerStocktakeRoutes(app, deps);
      registerScrapRoutes(app, deps);
      registerScanDraftRoutes(app, deps);
      registerCommonRoutes(app, deps);
      registerImageSearchRoutes(app, deps);
      registerPurchaseRoutes(app, deps);
      registerSupplierRoutes(app, deps);
      registerMailOutboxRoutes(app, deps);
      installMailer(app, deps);
      registerIntegrationRoutes(app, deps);
      installOutboxDispatcher(app, deps, options.dispatcher);
      installLedgerReconcileJob(app, deps.database);
      return deps;
    },
  });
}
