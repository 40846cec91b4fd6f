/**
 * The closed set of error codes the services answer with (contract §8), each mapped to its
 * HTTP status in exactly one place. A code is never reused for another meaning.
 */
export const errorStatus = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  /** Too many failed logins or wrong keys: the Retry-After header says when to try again. */
  TOO_MANY_ATTEMPTS: 429,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  OTHER_COMPANY: 403,
  LOCK_HELD: 409,
  /** An Idempotency-Key already used for a different request by the same caller. */
  IDEMPOTENCY_KEY_REUSED: 422,
  /** The first call under this Idempotency-Key is still running (the repeat waited and gave up). */
  IDEMPOTENCY_IN_PROGRESS: 409,
  STOCK_SHORTAGE: 400,
  NOT_IN_STOCK: 400,
  STATUS_NOT_ALLOWED: 400,
  NOT_HOLDER: 403,
  NOT_RECEIVER: 403,
  NOT_APPROVER: 400,
  NOT_OWNER: 403,
  QUANTITY_EXCEEDS: 400,
  QUANTITY_BELOW_RESERVED: 400,
  SPLIT_REQUIRED: 400,
  NO_APPLICANT: 400,
  SCOPE_INVALID: 400,
  /** A stocktake scan of an item outside the session's frozen location scope. */
  OUTSIDE_SCOPE: 400,
  COMPANY_REQUIRED: 400,
  /** A cross-domain caller named a company no user belongs to. */
  UNKNOWN_COMPANY: 400,
  MIXED_SCRAP_MODES: 400,
  AMBIGUOUS_BARCODE: 400,
  IN_USE: 400,
  /** The account's role may not take part (e.g. a SUPER_ADMIN added to a business group). */
  ROLE_NOT_ALLOWED: 400,
  DUPLICATE: 409,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  /** A body in a content type the endpoint does not read (JSON, or multipart for uploads). */
  UNSUPPORTED_MEDIA_TYPE: 415,
  URI_TOO_LONG: 414,
  HEADERS_TOO_LARGE: 431,
  REQUEST_TIMEOUT: 408,
  /** A refusal of the framework's own that no code here names; the answer keeps the framework's 4xx status. */
  BAD_REQUEST: 400,
  ENDPOINT_REMOVED: 410,
  KEY_NOT_CONFIGURED: 503,
  UNAVAILABLE: 503,
  /** The other service (e.g. production tracking) is not configured, unreachable or refused the call. */
  UPSTREAM_UNAVAILABLE: 503,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** Extra named fields an error body may carry next to msg and code (contract §2). */
export type ErrorExtras = Record<string, unknown>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extras: ErrorExtras;

  constructor(code: ErrorCode, msg: string, extras: ErrorExtras = {}, status?: number) {
    super(msg);
    this.name = 'AppError';
    this.code = code;
    this.status = status ?? errorStatus[code];
    this.extras = extras;
  }

  toBody(): Record<string, unknown> {
    return { ...this.extras, msg: this.message, code: this.code };
  }
}

export const validationFailed = (msg: string, extras?: ErrorExtras) =>
  new AppError('VALIDATION_FAILED', msg, extras);
export const notFound = (what: string) => new AppError('NOT_FOUND', `${what}不存在`);
export const forbidden = (msg = '没有权限执行此操作') => new AppError('FORBIDDEN', msg);
export const unauthenticated = (msg = '未登录或登录已失效') => new AppError('UNAUTHENTICATED', msg);

/** PostgreSQL SQLSTATE codes we translate, in one place, into domain errors. */
const pgStates = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  checkViolation: '23514',
  notNullViolation: '23502',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
  invalidTextRepresentation: '22P02',
  numericOutOfRange: '22003',
  datetimeFieldOverflow: '22008',
  invalidDatetimeFormat: '22007',
} as const;

interface PgLikeError {
  code?: string;
  constraint?: string;
  detail?: string;
  cause?: unknown;
}

function findPgError(err: unknown): PgLikeError | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const candidate = current as PgLikeError;
    if (typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code)) return candidate;
    current = candidate.cause;
  }
  return undefined;
}

/** A serialization failure (40001): the transaction lost a race and may run again from the start. */
export function isSerializationFailure(err: unknown): boolean {
  return findPgError(err)?.code === pgStates.serializationFailure;
}

/** Human messages for named constraints; the fallback names the constraint. */
const constraintMessages: Record<string, string> = {
  stock_rows_available_range: '可用数量必须在 0 与库存数量之间',
  stock_rows_sku_unique: '条码(SKU)已存在',
  users_username_unique: '用户名已存在',
};

/** The database's own message (never the SQL text or its parameters), for the few places that pass it on. */
export function databaseMessageOf(err: unknown): string {
  const pg = findPgError(err) as (PgLikeError & { message?: string }) | undefined;
  if (pg?.message) return pg.message;
  return err instanceof Error && !/^Failed query:/.test(err.message) ? err.message : '数据库查询失败';
}

export function translateDatabaseError(err: unknown): AppError | undefined {
  const pg = findPgError(err);
  if (!pg) return undefined;
  const constraintMsg = pg.constraint ? constraintMessages[pg.constraint] : undefined;
  switch (pg.code) {
    case pgStates.uniqueViolation:
      return new AppError('DUPLICATE', constraintMsg ?? '数据重复', { constraint: pg.constraint });
    case pgStates.foreignKeyViolation:
      // a write naming a row that does not exist is NOT_FOUND; IN_USE keeps its one meaning, a row still referenced
      if (/is not present in table/.test(pg.detail ?? '')) return new AppError('NOT_FOUND', constraintMsg ?? '引用的数据不存在', { constraint: pg.constraint });
      return new AppError('IN_USE', constraintMsg ?? '数据仍被引用，不能删除或修改', { constraint: pg.constraint });
    case pgStates.checkViolation:
      return new AppError('VALIDATION_FAILED', constraintMsg ?? '数据不满足约束', { constraint: pg.constraint });
    case pgStates.notNullViolation:
      return new AppError('VALIDATION_FAILED', '缺少必填字段');
    case pgStates.invalidTextRepresentation:
    case pgStates.numericOutOfRange:
      return new AppError('VALIDATION_FAILED', '数值格式不正确或超出范围');
    case pgStates.datetimeFieldOverflow:
    case pgStates.invalidDatetimeFormat:
      return new AppError('VALIDATION_FAILED', '日期格式不正确或超出范围');
    case pgStates.serializationFailure:
    case pgStates.deadlockDetected:
      return new AppError('CONFLICT', '并发冲突，请重试');
    default:
      return undefined;
  }
}
