import { join, resolve } from 'node:path';
import {
  ConfigError,
  persistentSecret,
  readAdminPassword,
  readDatabaseUrl,
  readFlag,
  readHttpUrl,
  readJwtSecretSetting,
  readOptional,
  readPort,
  readRedisUrl,
  readString,
} from '@wms/platform';

export interface InventoryConfig {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string;
  redisUrl?: string;
  jwtSecret: string;
  adminUsername: string;
  adminPassword?: string;
  internalApiKey?: string;
  trackingUrl?: string;
  trackingWebhookKey?: string;
  smtpUrl?: string;
  seedDemo: boolean;
  nodeEnv: string;
}

type Env = Record<string, string | undefined>;

export function loadInventoryConfig(env: Env = process.env): InventoryConfig {
  const nodeEnv = readString(env, 'NODE_ENV', 'development');
  const dataDir = resolve(readString(env, 'DATA_DIR', './data'));
  const explicitSecret = readJwtSecretSetting(env, nodeEnv);
  const adminPassword = readAdminPassword(env);
  const smtpUrl = readOptional(env, 'SMTP_URL');
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl)) throw new ConfigError('SMTP_URL', `必须以 smtp:// 或 smtps:// 开头，收到 "${smtpUrl}"`);
  return {
    host: readString(env, 'HOST', '127.0.0.1'),
    port: readPort(env, 'INVENTORY_PORT', 8080),
    dataDir,
    databaseUrl: readDatabaseUrl(env, 'DATABASE_URL', join(dataDir, 'inventory')),
    redisUrl: readRedisUrl(env, 'REDIS_URL'),
    jwtSecret: explicitSecret ?? persistentSecret(dataDir, 'jwt-secret-inventory'),
    adminUsername: readString(env, 'ADMIN_USERNAME', 'admin'),
    adminPassword,
    internalApiKey: readOptional(env, 'INTERNAL_API_KEY'),
    trackingUrl: readHttpUrl(env, 'TRACKING_URL'),
    trackingWebhookKey: readOptional(env, 'TRACKING_WEBHOOK_KEY'),
    smtpUrl,
    seedDemo: readFlag(env, 'SEED_DEMO', false),
    nodeEnv,
  };
}
