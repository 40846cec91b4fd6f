/**
 * `npm start`: both services in one process on embedded PGlite under ./data, wired to each other
 * (the inventory service's outbox dispatcher notifies the tracking service with a shared webhook key),
 * demo data on an empty database, and the admin login printed once.
 */
import { closeOnSignals, exitOnStartFailure, persistentSecret, randomPassword } from '@wms/platform';
import { loadInventoryConfig } from '../apps/inventory/src/config.js';
import { buildInventoryApp } from '../apps/inventory/src/app.js';
import { seedDemoIfEmpty } from '../apps/inventory/src/seed/demo.js';
import { loadTrackingConfig } from '../apps/tracking/src/config.js';
import { buildTrackingApp } from '../apps/tracking/src/app.js';
import { seedTrackingDemoIfEmpty } from '../apps/tracking/src/seed/demo.js';

async function main() {
  const env = { ...process.env };
  env.SEED_DEMO ??= '1';
  // one generated admin password for both services, so the printed login works on either
  if (!env.ADMIN_PASSWORD?.trim()) env.ADMIN_PASSWORD = randomPassword();
  const inventoryConfig = loadInventoryConfig(env);
  const webhookKey = env.WEBHOOK_API_KEY?.trim() || persistentSecret(inventoryConfig.dataDir, 'webhook-key');
  env.WEBHOOK_API_KEY = webhookKey;
  const trackingConfig = loadTrackingConfig(env);
  const wiredInventory = {
    ...inventoryConfig,
    trackingUrl: inventoryConfig.trackingUrl ?? `http://${trackingConfig.host}:${trackingConfig.port}`,
    trackingWebhookKey: inventoryConfig.trackingWebhookKey ?? webhookKey,
  };

  const logger = { level: process.env.LOG_LEVEL ?? 'warn' };
  const tracking = await buildTrackingApp(trackingConfig, { logger });
  const inventory = await buildInventoryApp(wiredInventory, { logger }).catch(async (err: unknown) => {
    await tracking.close();
    throw err;
  });
  closeOnSignals(async () => {
    await inventory.close();
    await tracking.close();
  });

  if (inventoryConfig.seedDemo) {
    await seedDemoIfEmpty(inventory.deps.database);
    await seedTrackingDemoIfEmpty(tracking.deps.database, trackingConfig);
  }
  const trackingAddress = await tracking.app.listen({ host: trackingConfig.host, port: trackingConfig.port });
  const inventoryAddress = await inventory.app.listen({ host: inventoryConfig.host, port: inventoryConfig.port });

  console.log('');
  console.log(`运行时 (runtime)          Node.js ${process.version}`);
  console.log(`库存服务 (inventory)      ${inventoryAddress}/api/v1   文档 ${inventoryAddress}/docs`);
  console.log(`生产跟踪服务 (tracking)   ${trackingAddress}/api/v1   文档 ${trackingAddress}/docs`);
  printAdmin('库存服务', inventory.bootstrap.admin, inventoryConfig.adminUsername);
  printAdmin('生产跟踪服务', tracking.bootstrap.admin, trackingConfig.adminUsername);
  console.log('按 Ctrl-C 安全退出。');
}

function printAdmin(service: string, created: { username: string; password: string } | undefined, username: string) {
  if (created) console.log(`${service}管理员: ${created.username} / ${created.password}  (只显示这一次)`);
  else console.log(`${service}管理员: ${username} (密码为首次启动时显示或 ADMIN_PASSWORD 设置的值)`);
}

main().catch(exitOnStartFailure);
