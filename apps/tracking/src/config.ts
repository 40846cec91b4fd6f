import { createHmac } from 'node:crypto';
import { join, resolve } from 'node:path';
import {
  ConfigError,
  persistentSecret,
  readAdminPassword,
  readCredentialLimits,
  readDatabasePoolSize,
  readDatabaseUrl,
  readJwtSecretSetting,
  readOneOf,
  readOptional,
  readPort,
  readRedisUrl,
  readString,
  type CredentialLimits,
} from '@wms/platform';

export const UNGROUPED_SCOPES = ['ALL', 'NONE'] as const;
export type UngroupedScope = (typeof UNGROUPED_SCOPES)[number];

export interface TrackingConfig {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string;
  /** Connections of the PostgreSQL pool (DATABASE_POOL_SIZE; default 2 per core + 2); PGlite has none. */
  databasePoolSize?: number;
  /** Where the credential-failure counters live (in process when unset); the idempotency locks stay in process. */
  redisUrl?: string;
  jwtSecret: string;
  adminUsername: string;
  adminPassword?: string;
  /** The webhook key setting: the X-API-Key the notification receivers expect (spec 4.1). */
  webhookApiKey?: string;
  /** The one department this instance serves, trimmed and upper-cased. */
  orgDepartment: string;
  /** Material categories of this instance start with `<prefix>/`. */
  materialCategoryPrefix: string;
  /** Empty or exactly one alphanumeric character, upper-cased. */
  serialPrefix: string;
  dataScopeUngrouped: UngroupedScope;
  /** Failed-credential limits; a config built by hand (tests) may set some, the rest take the defaults. */
  credentialLimits?: Partial<CredentialLimits>;
  nodeEnv: string;
}

type Env = Record<string, string | undefined>;

const JWT_SECRET_FILE = 'jwt-secret-tracking';

/**
 * Each service signs with its own secret (contract §3). One JWT_SECRET serves both services, so the
 * tracking service signs with a key derived from it: an inventory token fails the signature check here
 * even before its audience is looked at.
 */
function readJwtSecret(env: Env, nodeEnv: string, dataDir: string): string {
  const shared = readJwtSecretSetting(env, nodeEnv);
  if (!shared) return persistentSecret(dataDir, JWT_SECRET_FILE);
  return createHmac('sha256', shared).update('tracking').digest('base64url');
}

/** Unset or empty means the default; a value of blanks only is a mistake, not a wish for the default. */
function readNonBlank(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = raw.trim();
  if (!value) throw new ConfigError(name, '不能为空白');
  return value;
}

function readDepartment(env: Env): string {
  return readNonBlank(env, 'ORG_DEPARTMENT', 'ALPHA').toUpperCase();
}

/**
 * Defaults to the department (ALPHA under the default settings, contract §1), so a BETA instance that
 * forgets this setting never lists ALPHA's materials.
 */
function readCategoryPrefix(env: Env, department: string): string {
  const prefix = readNonBlank(env, 'MATERIAL_CATEGORY_PREFIX', department);
  if (prefix.startsWith('/') || prefix.endsWith('/')) {
    throw new ConfigError('MATERIAL_CATEGORY_PREFIX', `首尾不能是 "/"（匹配时会自动加上 "/"），收到 "${prefix}"`);
  }
  return prefix;
}

/** Serial numbers are always 16 characters: the prefix takes one, hex digits the rest (contract §6). */
function readSerialPrefix(env: Env): string {
  const prefix = (env.SERIAL_PREFIX ?? '').trim();
  if (prefix === '') return '';
  if (!/^[A-Za-z0-9]$/.test(prefix)) {
    throw new ConfigError('SERIAL_PREFIX', `必须为空或恰好一个字母或数字，收到 "${prefix}"`);
  }
  return prefix.toUpperCase();
}

/**
 * Reads and validates every tracking setting; a bad value throws a ConfigError naming the setting.
 * The generated secret is written last, so a rejected configuration leaves nothing behind.
 */
export function loadTrackingConfig(env: Env = process.env): TrackingConfig {
  const nodeEnv = readString(env, 'NODE_ENV', 'development');
  const dataDir = resolve(readString(env, 'DATA_DIR', './data'));
  const adminPassword = readAdminPassword(env);
  const orgDepartment = readDepartment(env);
  const settings = {
    host: readString(env, 'HOST', '127.0.0.1'),
    port: readPort(env, 'TRACKING_PORT', 8081),
    dataDir,
    databaseUrl: readDatabaseUrl(env, 'TRACKING_DATABASE_URL', join(dataDir, 'tracking')),
    databasePoolSize: readDatabasePoolSize(env),
    redisUrl: readRedisUrl(env, 'REDIS_URL'),
    adminUsername: readNonBlank(env, 'ADMIN_USERNAME', 'admin'),
    adminPassword,
    webhookApiKey: readOptional(env, 'WEBHOOK_API_KEY'),
    orgDepartment,
    materialCategoryPrefix: readCategoryPrefix(env, orgDepartment),
    serialPrefix: readSerialPrefix(env),
    dataScopeUngrouped: readOneOf(env, 'DATA_SCOPE_UNGROUPED', UNGROUPED_SCOPES, 'ALL'),
    credentialLimits: readCredentialLimits(env),
    nodeEnv,
  };
  return { ...settings, jwtSecret: readJwtSecret(env, nodeEnv, dataDir) };
}
