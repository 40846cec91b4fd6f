import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import localizeZhModule from 'ajv-i18n/localize/zh/index.js';
import type { FastifySchemaCompiler } from 'fastify';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
/** ajv-i18n's Chinese locale: rewrites each error's message in place. */
const localizeZh = localizeZhModule as unknown as (errors: AjvLikeError[]) => void;

/**
 * Two validators: query strings, params and headers are text and get coerced to the declared types;
 * JSON bodies are validated as sent, so `"quantity": "5"` is a wrong type, not a number.
 * Unknown body fields are removed before the handler sees them (contract §2).
 */
function buildAjv(coerceTypes: Options['coerceTypes']): Ajv {
  const ajv = new Ajv({
    removeAdditional: 'all',
    useDefaults: true,
    coerceTypes,
    allErrors: false,
    strict: false,
  });
  addFormats(ajv);
  ajv.addKeyword(capKeyword);
  return ajv;
}

/**
 * `x-cap: n` on a number: a larger value is lowered to n instead of refused (contract §2: `limit` is
 * capped at 200, so `limit=500` answers the first 200 with `limit: 200`). Declared in the schema, so
 * every list of both services caps the same way and OpenAPI shows the cap.
 */
export const CAP_KEYWORD = 'x-cap';
const capKeyword = {
  keyword: CAP_KEYWORD,
  type: 'number' as const,
  schemaType: 'number' as const,
  modifying: true,
  validate: (cap: number, data: number, _schema?: unknown, where?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number }) => {
    if (where && data > cap) where.parentData[where.parentDataProperty] = cap;
    return true;
  },
};

export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const bodyAjv = buildAjv(false);
  const textAjv = buildAjv('array');
  return ({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object);
}

interface AjvLikeError {
  instancePath?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  message?: string;
}

/**
 * Turns the first validation error into one Chinese sentence naming the field, and the field itself.
 * The validator's own wording comes from ajv-i18n's Chinese locale (a kept translation, not a table of ours).
 */
export function describeValidationError(errors: AjvLikeError[], part: string): { msg: string; field: string } {
  const first = errors[0] ?? {};
  const missing = first.keyword === 'required' ? String(first.params?.missingProperty ?? '') : '';
  const path = (first.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const field = [path, missing].filter(Boolean).join('.') || part;
  if (missing) return { msg: `缺少必填字段 ${field}`, field };
  const allowed = allowedValuesAt(errors, first);
  if (allowed) return { msg: `字段 ${field} 不合法: 应当是以下值之一 (${allowed.join(', ')})`, field };
  return { msg: `字段 ${field} 不合法: ${chineseMessageOf(first)}`, field };
}

function chineseMessageOf(error: AjvLikeError): string {
  const localized = [{ ...error }];
  localizeZh(localized);
  return localized[0]?.message ?? '不合法';
}

/** An enum, or a union of constants (TypeBox literals), at the failing field: the values it allows. */
function allowedValuesAt(errors: AjvLikeError[], first: AjvLikeError): unknown[] | undefined {
  if (first.keyword === 'enum' && Array.isArray(first.params?.allowedValues)) return first.params.allowedValues as unknown[];
  if (first.keyword !== 'const') return undefined;
  return errors
    .filter((error) => error.keyword === 'const' && error.instancePath === first.instancePath)
    .map((error) => error.params?.allowedValue);
}

export type ValueCheck<T> = { ok: true; value: T } | { ok: false; msg: string; field: string };

/**
 * A checker with the body rules (no coercion, unknown fields removed, the same Chinese messages), for
 * values that arrive outside a route schema: upload form fields, spreadsheet rows.
 */
export function compileValueChecker<T>(schema: object): (value: unknown) => ValueCheck<T> {
  const validate = buildAjv(false).compile(schema);
  return (value) => {
    if (validate(value)) return { ok: true, value: value as T };
    return { ok: false, ...describeValidationError(validate.errors ?? [], 'value') };
  };
}
