import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

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
  return ajv;
}

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

/** Turns the first validation error into one sentence naming the field, and the field itself. */
export function describeValidationError(errors: AjvLikeError[], part: string): { msg: string; field: string } {
  const first = errors[0] ?? {};
  const missing = first.keyword === 'required' ? String(first.params?.missingProperty ?? '') : '';
  const path = (first.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const field = [path, missing].filter(Boolean).join('.') || part;
  if (missing) return { msg: `缺少必填字段 ${field}`, field };
  return { msg: `字段 ${field} 不合法: ${first.message ?? 'invalid'}`, field };
}
