import { closeOnSignals, exitOnStartFailure } from '@wms/platform';
import { buildTrackingApp } from './app.js';
import { loadTrackingConfig } from './config.js';

/** Runs the tracking service alone (`npm start` at the root runs both services together). */
async function main() {
  const config = loadTrackingConfig();
  const service = await buildTrackingApp(config, { logger: { level: process.env.LOG_LEVEL ?? 'info' } });
  closeOnSignals(service.close);
  const address = await service.app.listen({ host: config.host, port: config.port });
  console.log(`生产追踪服务 (tracking, ${config.orgDepartment}) ${address}/docs  Node.js ${process.version}`);
  if (service.bootstrap.admin) console.log(`管理员 ${service.bootstrap.admin.username} / ${service.bootstrap.admin.password}`);
}

main().catch(exitOnStartFailure);
