import { fileURLToPath } from 'node:url';
import {
  createServiceApp,
  createTokenService,
  installRequestGuards,
  MemoryLockStore,
  openDatabase,
  type Database,
  type FastifyServerOptionsLogger,
  type LockStore,
} from '@wms/platform';
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
  const database: Database = await openDatabase({ url: config.databaseUrl, migrationsFolder: TRACKING_MIGRATIONS });
  const locks = options.locks ?? new MemoryLockStore();
  try {
    const bootstrap = await bootstrapTracking(database, {
      username: config.adminUsername,
      password: config.adminPassword,
      department: config.orgDepartment,
    });
    const tokens = createTokenService(config.jwtSecret, TRACKING_AUDIENCE);
    const app = (await createServiceApp({
      title: '生产追踪服务 (Production-tracking service)',
      description: `部门实例 ${config.orgDepartment}: 产品、任务、业务组与数据范围、库存通知接收、统计。错误体为 { msg, code }，校验失败为 422。`,
      validationStatus: 422,
      logger: options.logger,
      exposeStackTraces: config.nodeEnv === 'development' && process.env.EXPOSE_STACK === '1',
      health: () => database.ping(),
    })) as unknown as TrackingFastify;
    const dataScope = createDataScopeResolver({
      ungrouped: config.dataScopeUngrouped,
      loadGroupPhases,
      warn: (message) => app.log.warn(message),
    });
    const deps: TrackingDeps = { config, database, tokens, locks, dataScope };
    installRequestGuards(app, { tokens, loadActor: createActorLoader(database, config.orgDepartment), locks });
    registerIdentityRoutes(app, deps);
    registerProductRoutes(app, deps);
    registerQrCodeRoutes(app);
    registerTaskRoutes(app, deps);
    registerReminderRoutes(app, deps);
    registerGroupRoutes(app, deps);
    registerStatsRoutes(app, deps);
    registerIntegrationRoutes(app, deps);
    registerAuditRoutes(app, deps);
    await app.ready();
    let closed = false;
    return {
      app,
      deps,
      bootstrap,
      close: async () => {
        if (closed) return;
        closed = true;
        await app.close();
        await locks.close();
        await database.close();
      },
    };
  } catch (err) {
    await locks.close();
    await database.close();
    throw err;
  }
}
