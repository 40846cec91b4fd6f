import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultPoolSize } from './db/database.js';
import { DEFAULT_CREDENTIAL_LIMITS, type CredentialLimits } from './http/credential-throttle.js';

/**
 * Settings come from the environment and are validated at start: a bad value stops the start with
 * one line naming the setting.
 */
export class ConfigError extends Error {
  constructor(readonly setting: string, problem: string) {
    super(`配置错误 ${setting}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export function readString(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

export function readOptional(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function readPort(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(name, `端口必须是 0–65535 的整数，收到 "${raw}"`);
  return port;
}

export function readOneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = raw.trim().toUpperCase() as T;
  if (!allowed.includes(value)) throw new ConfigError(name, `必须是 ${allowed.join(' / ')} 之一，收到 "${raw}"`);
  return value;
}

/** postgres://…, memory://, or a folder for PGlite; anything else is a configuration error. */
export function readDatabaseUrl(env: Env, name: string, fallbackDir: string): string {
  const raw = env[name]?.trim();
  if (!raw) return fallbackDir;
  if (/^postgres(ql)?:\/\//.test(raw) || raw.startsWith('memory://')) return raw;
  if (raw.startsWith('file://')) return raw.slice('file://'.length);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) throw new ConfigError(name, `不支持的数据库地址 "${raw}"（应为 postgres://、memory:// 或目录）`);
  return raw;
}

export function readRedisUrl(env: Env, name: string): string | undefined {
  const raw = readOptional(env, name);
  if (raw && !/^rediss?:\/\//.test(raw)) throw new ConfigError(name, `必须以 redis:// 或 rediss:// 开头，收到 "${raw}"`);
  return raw;
}

export function readHttpUrl(env: Env, name: string): string | undefined {
  const raw = readOptional(env, name);
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError(name, `必须是 http(s) 地址，收到 "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

export function readFlag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `必须是 1 或 0，收到 "${raw}"`);
}

export function readPositiveInteger(env: Env, name: string, fallback: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > max) throw new ConfigError(name, `必须是 1–${max} 的整数，收到 "${raw}"`);
  return value;
}

/** The credential throttle's limits (README settings table), the same settings in both services. */
export function readCredentialLimits(env: Env): CredentialLimits {
  const defaults = DEFAULT_CREDENTIAL_LIMITS;
  return {
    loginFailuresPerUser: readPositiveInteger(env, 'LOGIN_MAX_FAILURES_PER_USER', defaults.loginFailuresPerUser, 100_000),
    loginFailuresPerAddress: readPositiveInteger(env, 'LOGIN_MAX_FAILURES_PER_IP', defaults.loginFailuresPerAddress, 100_000),
    apiKeyFailuresPerAddress: readPositiveInteger(env, 'API_KEY_MAX_FAILURES_PER_IP', defaults.apiKeyFailuresPerAddress, 100_000),
    windowSeconds: readPositiveInteger(env, 'AUTH_FAILURE_WINDOW_SECONDS', defaults.windowSeconds, 86_400),
  };
}

/** DATABASE_POOL_SIZE: connections each service process keeps to PostgreSQL, the same setting in both services. */
export function readDatabasePoolSize(env: Env): number {
  return readPositiveInteger(env, 'DATABASE_POOL_SIZE', defaultPoolSize(), 500);
}

/** ADMIN_PASSWORD: unset means a generated password for the first administrator. */
export function readAdminPassword(env: Env): string | undefined {
  const adminPassword = readOptional(env, 'ADMIN_PASSWORD');
  if (adminPassword && adminPassword.length < 6) throw new ConfigError('ADMIN_PASSWORD', '长度至少 6 个字符');
  return adminPassword;
}

/** JWT_SECRET as set, or undefined for a generated one; production must set it. */
export function readJwtSecretSetting(env: Env, nodeEnv: string): string | undefined {
  const secret = readOptional(env, 'JWT_SECRET');
  if (nodeEnv === 'production' && !secret) throw new ConfigError('JWT_SECRET', 'NODE_ENV=production 时必须设置');
  if (secret && secret.length < 16) throw new ConfigError('JWT_SECRET', '长度至少 16 个字符');
  return secret;
}

/** A secret generated once and kept in the data folder, so restarts keep tokens valid. */
export function persistentSecret(dataDir: string, fileName: string): string {
  const path = join(dataDir, fileName);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(path, secret, { mode: 0o600 });
  return secret;
}
