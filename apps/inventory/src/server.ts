import cluster from 'node:cluster';
import { closeOnSignals, exitOnStartFailure, openDatabase } from '@wms/platform';
import { buildInventoryApp, INVENTORY_MIGRATIONS, INVENTORY_PGLITE_EXTENSIONS } from './app.js';
import { bootstrapInventory } from './bootstrap.js';
import { loadInventoryConfig, type InventoryConfig } from './config.js';
import { seedDemoIfEmpty } from './seed/demo.js';

/**
 * Runs the inventory service alone, the production start (`npm start` at the root runs both services
 * together on PGlite). With INVENTORY_WORKERS=n (PostgreSQL and Redis) the primary prepares the database
 * once and n worker processes serve the same port; a worker that dies is replaced.
 */
async function main() {
  const config = loadInventoryConfig();
  if ((config.workers ?? 1) > 1 && cluster.isPrimary) return startPrimary(config);
  const service = await buildInventoryApp(config, { logger: { level: process.env.LOG_LEVEL ?? 'info' } });
  closeOnSignals(service.close, cluster.isWorker ? () => undefined : console.log);
  if (cluster.isWorker) {
    await service.app.listen({ host: config.host, port: config.port });
    return;
  }
  if (config.seedDemo) await seedDemoIfEmpty(service.deps.database);
  const address = await service.app.listen({ host: config.host, port: config.port });
  console.log(`库存服务 (inventory) ${address}/docs  Node.js ${process.version}`);
  if (service.bootstrap.admin) console.log(`管理员 ${service.bootstrap.admin.username} / ${service.bootstrap.admin.password}`);
}

/** Migrations, the first administrator and demo data once, before any worker opens the database. */
async function startPrimary(config: InventoryConfig) {
  const database = await openDatabase({ url: config.databaseUrl, migrationsFolder: INVENTORY_MIGRATIONS, pgliteExtensions: INVENTORY_PGLITE_EXTENSIONS });
  const bootstrap = await bootstrapInventory(database, { username: config.adminUsername, password: config.adminPassword });
  if (config.seedDemo) await seedDemoIfEmpty(database);
  await database.close();

  const workers = config.workers ?? 1;
  let stopping = false;
  let listening = 0;
  cluster.on('listening', (_worker, address) => {
    listening += 1;
    if (listening !== workers) return;
    console.log(`库存服务 (inventory) http://${config.host}:${address.port}/docs  Node.js ${process.version}, ${workers} 个工作进程`);
    if (bootstrap.admin) console.log(`管理员 ${bootstrap.admin.username} / ${bootstrap.admin.password}`);
  });
  cluster.on('exit', (worker, code) => {
    if (stopping) return;
    console.error(`工作进程 ${worker.process.pid} 退出 (${code})，重新启动`);
    cluster.fork();
  });
  closeOnSignals(async () => {
    stopping = true;
    await Promise.all(Object.values(cluster.workers ?? {}).map((worker) => stopWorker(worker!)));
  });
  for (let i = 0; i < workers; i++) cluster.fork();
}

function stopWorker(worker: NonNullable<typeof cluster.worker>): Promise<void> {
  return new Promise((resolve) => {
    if (worker.isDead()) return resolve();
    worker.once('exit', () => resolve());
    worker.process.kill('SIGTERM');
  });
}

main().catch(exitOnStartFailure);
