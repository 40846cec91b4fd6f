import { fileURLToPath } from 'node:url';
import { createCredentialThrottle, createTokenService, MemoryLockStore, startService, type FastifyServerOptionsLogger, type LockStore } from '@wms/platform';
import type { TrackingConfig } from './config.js';
import type { TrackingDeps, TrackingFastify } from './app-types.js';
import { bootstrapTracking, type BootstrapResult } from './bootstrap.js';
import { createActorLoader } from './modules/identity/actor-loader.js';
import { createDataScopeResolver, loadGroupPhases } from './modules/identity/data-scope.js';
import { registerIdentityRoutes } from './modules/identity/routes.js';
import { registerGroupRoutes } from './modules/groups/routes.js';
import { registerProductRoutes } from './modules/products/routes.js';
import { registerQrCodeRoutes } from './modules/qrcode/routes.js';
import { registerReminderRoutes } from './modules/reminders/routes.js';
import { registerStatsRoutes } from './modules/stats/routes.js';
import { registerTaskRoutes } from './modules/tasks/routes.js';
import { registerIntegrationRoutes } from './modules/integrations/routes.js';
import { registerAuditRoutes } from './modules/audit/routes.js';

export const TRACKING_MIGRATIONS = fileURLToPath(new URL('./db/migrations', import.meta.url));
export const TRACKING_AUDIENCE = 'tracking';

export interface BuildOptions {
  logger?: FastifyServerOptionsLogger;
  /** Replaces the in-process idempotency lock store. */
  locks?: LockStore;
}

export interface TrackingApp {
  app: TrackingFastify;
  deps: TrackingDeps;
  bootstrap: BootstrapResult;
  close(): Promise<void>;
}

/** Builds the tracking service: database (migrated), bootstrap, guards and every module's routes. */
export async function buildTrackingApp(config: TrackingConfig, options: BuildOptions = {}): Promise<TrackingApp> {
  return startService({
    title: '生产追踪服务 (Production-tracking service)',
    description: `部门实例 ${config.orgDepartment}: 产品、任务、业务组与数据范围、库存通知接收、统计。错误体为 { msg, code }，校验失败为 422。`,
    validationStatus: 422,
    logger: options.logger,
    nodeEnv: config.nodeEnv,
    database: { url: config.databaseUrl, poolSize: config.databasePoolSize, migrationsFolder: TRACKING_MIGRATIONS },
    locks: () => options.locks ?? new MemoryLockStore(),
    // one department's accounts: instances of the same department share counters, other departments do not
    throttle: () =>
      createCredentialThrottle({ redisUrl: config.redisUrl, limits: config.credentialLimits, namespace: `tracking:${config.orgDepartment}` }),
    bootstrap: (database) =>
      bootstrapTracking(database, { username: config.adminUsername, password: config.adminPassword, department: config.orgDepartment }),
    tokens: createTokenService(config.jwtSecret, TRACKING_AUDIENCE),
    actors: (database) => createActorLoader(database, config.orgDepartment),
    modules: ({ app, database, tokens, locks, throttle }) => {
      const dataScope = createDataScopeResolver({
        ungrouped: config.dataScopeUngrouped,
        loadGroupPhases,
        warn: (message) => app.log.warn(message),
      });
      const deps: TrackingDeps = { config, database, tokens, locks, throttle, dataScope };
      registerIdentityRoutes(app, deps);
      registerProductRoutes(app, deps);
      registerQrCodeRoutes(app);
      registerTaskRoutes(app, deps);
      registerReminderRoutes(app, deps);
      registerGroupRoutes(app, deps);
      registerStatsRoutes(app, deps);
      registerIntegrationRoutes(app, deps);
      registerAuditRoutes(app, deps);
      return deps;
    },
  });
}
