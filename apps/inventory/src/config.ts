import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ConfigError,
  persistentSecret,
  readCredentialLimits,
  readDatabasePoolSize,
  readAdminPassword,
  readDatabaseUrl,
  readFlag,
  readHttpUrl,
  readJwtSecretSetting,
  readOptional,
  readPort,
  readPositiveInteger,
  readRedisUrl,
  readString,
  type CredentialLimits,
} from '@wms/platform';

export interface InventoryConfig {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string;
  /** Connections of the PostgreSQL pool (DATABASE_POOL_SIZE; default 2 per core + 2); PGlite has none. */
  databasePoolSize?: number;
  redisUrl?: string;
  jwtSecret: string;
  adminUsername: string;
  adminPassword?: string;
  internalApiKey?: string;
  trackingUrl?: string;
  trackingWebhookKey?: string;
  smtpUrl?: string;
  /** Failed-credential limits; a config built by hand (tests) may set some, the rest take the defaults. */
  credentialLimits?: Partial<CredentialLimits>;
  /** Rows per audit export and daily report (spec 8: 100,000); tests lower it to see the cut. */
  auditExportCap?: number;
  /** CPU priority (nice, 1–19) of the thread that builds audit exports on PostgreSQL (AUDIT_EXPORT_NICE). */
  auditExportNice?: number;
  /** A TrueType/OpenType font with CJK glyphs for label sheets (LABEL_FONT_PATH); without it labels print ASCII only. */
  labelFontPath?: string;
  /** The PostScript name of the font to use when LABEL_FONT_PATH is a collection (.ttc), e.g. NotoSansCJKsc-Regular. */
  labelFontFamily?: string;
  seedDemo: boolean;
  nodeEnv: string;
  /** HTTP worker processes of the production start (INVENTORY_WORKERS); more than 1 needs PostgreSQL and Redis. */
  workers?: number;
}

type Env = Record<string, string | undefined>;

/**
 * CPU priority (nice) of the thread that builds audit exports on PostgreSQL, unless AUDIT_EXPORT_NICE
 * says otherwise: beside a busy event loop on the same core it gets about two fifths of the core (scheduler
 * weights 655 : 1024), and an idle core whole (docs/decisions.md, Audit views 12: measured against 1, 3 and 10).
 */
export const AUDIT_EXPORT_NICE = 2;

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
    databasePoolSize: readDatabasePoolSize(env),
    redisUrl: readRedisUrl(env, 'REDIS_URL'),
    jwtSecret: explicitSecret ?? persistentSecret(dataDir, 'jwt-secret-inventory'),
    adminUsername: readString(env, 'ADMIN_USERNAME', 'admin'),
    adminPassword,
    internalApiKey: readOptional(env, 'INTERNAL_API_KEY'),
    trackingUrl: readHttpUrl(env, 'TRACKING_URL'),
    trackingWebhookKey: readOptional(env, 'TRACKING_WEBHOOK_KEY'),
    smtpUrl,
    credentialLimits: readCredentialLimits(env),
    auditExportNice: readPositiveInteger(env, 'AUDIT_EXPORT_NICE', AUDIT_EXPORT_NICE, 19),
    labelFontPath: readFontPath(env, 'LABEL_FONT_PATH'),
    labelFontFamily: readOptional(env, 'LABEL_FONT_FAMILY'),
    seedDemo: readFlag(env, 'SEED_DEMO', false),
    nodeEnv,
    workers: readWorkers(env),
  };
}

/**
 * Worker processes share one database and one port (node:cluster). PGlite lives inside one process,
 * and the 5-second idempotency lock and the credential counters must be shared: more than one worker
 * needs DATABASE_URL=postgres://… and REDIS_URL.
 */
function readWorkers(env: Env): number {
  const workers = readPositiveInteger(env, 'INVENTORY_WORKERS', 1, 64);
  if (workers === 1) return 1;
  if (!/^postgres(ql)?:\/\//.test(env.DATABASE_URL ?? '')) throw new ConfigError('INVENTORY_WORKERS', '多个工作进程需要 PostgreSQL (DATABASE_URL=postgres://…)；内嵌 PGlite 只能单进程运行');
  if (!readRedisUrl(env, 'REDIS_URL')) throw new ConfigError('INVENTORY_WORKERS', '多个工作进程需要 REDIS_URL，以便共享幂等锁和登录失败计数');
  return workers;
}

/** A configured font that cannot be read stops the start, instead of failing every label sheet later. */
function readFontPath(env: Env, name: string): string | undefined {
  const path = readOptional(env, name);
  if (path === undefined) return undefined;
  if (!existsSync(path)) throw new ConfigError(name, `字体文件不存在："${path}"`);
  return resolve(path);
}
