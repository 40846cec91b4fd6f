import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import {
  ConfigError,
  readDatabaseUrl,
  readHttpUrl,
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

/** A secret generated once and kept in the data folder, so restarts keep tokens valid. */
export function persistentSecret(dataDir: string, fileName: string): string {
  const path = join(dataDir, fileName);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(path, secret, { mode: 0o600 });
  return secret;
}

function readFlag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `必须是 1 或 0，收到 "${raw}"`);
}

export function loadInventoryConfig(env: Env = process.env): InventoryConfig {
  const nodeEnv = readString(env, 'NODE_ENV', 'development');
  const dataDir = resolve(readString(env, 'DATA_DIR', './data'));
  const explicitSecret = readOptional(env, 'JWT_SECRET');
  if (nodeEnv === 'production' && !explicitSecret) throw new ConfigError('JWT_SECRET', 'NODE_ENV=production 时必须设置');
  if (explicitSecret && explicitSecret.length < 16) throw new ConfigError('JWT_SECRET', '长度至少 16 个字符');
  const adminPassword = readOptional(env, 'ADMIN_PASSWORD');
  if (adminPassword && adminPassword.length < 6) throw new ConfigError('ADMIN_PASSWORD', '长度至少 6 个字符');
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
