import type { Readable } from 'node:stream';
import { Type, type Static, type TSchema } from 'typebox';
import { XLSX_MIME } from '../xlsx/export.js';

/** Shared request and response shapes (contract §2). */
export const ErrorBody = Type.Object(
  { msg: Type.String(), code: Type.String() },
  { additionalProperties: true, description: '错误: msg 为中文说明, code 为稳定的机器码' },
);

export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
export type IdParams = Static<typeof IdParams>;

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 200;

/** A count of rows to answer: at least 1; above `cap` it is lowered to `cap`, never refused (contract §2). */
export const CappedLimit = (cap: number, description = `每页条数，默认 ${DEFAULT_LIMIT}，超过 ${cap} 按 ${cap}`) =>
  Type.Optional(Type.Integer({ minimum: 1, 'x-cap': cap, description }));

/** The highest page number accepted: far beyond any list, low enough that its offset stays a bigint. */
export const MAX_PAGE = 10_000_000;

export const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
  limit: CappedLimit(MAX_LIMIT),
  pageSize: CappedLimit(MAX_LIMIT),
};

export interface Paging {
  page: number;
  limit: number;
  offset: number;
}

export function pagingOf(query: { page?: number; limit?: number; pageSize?: number }): Paging {
  const page = query.page ?? 1;
  const limit = query.limit ?? query.pageSize ?? DEFAULT_LIMIT;
  return { page, limit, offset: (page - 1) * limit };
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
}

export function pageOf<T>(items: T[], total: number, paging: Paging): Page<T> {
  return { items, total, page: paging.page, limit: paging.limit };
}

export const PageOf = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() });

/** Standard error responses for the OpenAPI document. */
export const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
} as const;

/**
 * A calendar date `YYYY-MM-DD`: the pattern for the shape and for the year 0000, which `format: date` lets
 * through and PostgreSQL cannot store; `format: date` (ajv-formats, full mode) for 2024-02-30 and 2024-13-45.
 */
export const DateString = Type.String({ pattern: '^(?!0000)\\d{4}-\\d{2}-\\d{2}$', format: 'date', description: 'YYYY-MM-DD' });
/** A file answered as it is (an xlsx export, an image): binary content, described once for OpenAPI. */
export const FileDownload = Type.Unsafe<Buffer | Readable>({ type: 'string', format: 'binary' });
/** A 200 answer that is an xlsx file, documented under its own media type (the errors stay JSON). */
export const XlsxDownload = {
  description: 'xlsx 文件（附件）',
  content: { [XLSX_MIME]: { schema: FileDownload } },
};
/** A 200 answer that is an image file of one of `mimes`. */
export const imageDownload = (...mimes: string[]) => ({
  description: '图片文件',
  content: Object.fromEntries(mimes.map((mime) => [mime, { schema: FileDownload }])),
});
/** A quantity: a positive JSON number. */
export const PositiveQuantity = Type.Number({ exclusiveMinimum: 0, maximum: 1e12 });
export const NonNegativeQuantity = Type.Number({ minimum: 0, maximum: 1e12 });
