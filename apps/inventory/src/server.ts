import { closeOnSignals, exitOnStartFailure } from '@wms/platform';
import { buildInventoryApp } from './app.js';
import { loadInventoryConfig } from './config.js';
import { seedDemoIfEmpty } from './seed/demo.js';

/** Runs the inventory service alone (`npm start` at the root runs both services together). */
async function main() {
  const config = loadInventoryConfig();
  const service = await buildInventoryApp(config, { logger: { level: process.env.LOG_LEVEL ?? 'info' } });
  closeOnSignals(service.close);
  if (config.seedDemo) await seedDemoIfEmpty(service.deps.database);
  const address = await service.app.listen({ host: config.host, port: config.port });
  console.log(`库存服务 (inventory) ${address}/docs  Node.js ${process.version}`);
  if (service.bootstrap.admin) console.log(`管理员 ${service.bootstrap.admin.username} / ${service.bootstrap.admin.password}`);
}

main().catch(exitOnStartFailure);
