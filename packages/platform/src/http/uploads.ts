import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, validationFailed } from '../errors.js';
import { nulField, nulRefused } from './input-guards.js';

/** Uploads up to 20 MiB (contract §2); JSON bodies keep their own 1 MiB limit. */
export const UPLOAD_LIMIT_BYTES = 20 * 1024 * 1024;
const MAX_FIELD_BYTES = 64 * 1024;
const MAX_FIELDS = 20;

declare module 'fastify' {
  interface FastifySchema {
    /** The form fields of an upload route, described as its multipart/form-data body (OpenAPI only). */
    multipart?: unknown;
  }
}

/**
 * multipart/form-data for every route of a service, registered once (two registrations would clash).
 * It only adds a content-type parser: JSON routes are untouched, and a route reads its upload with
 * `readUpload(request)` in the handler (nothing is buffered before the guards have run).
 */
export async function registerUploads(app: FastifyInstance): Promise<void> {
  await app.register(multipart, {
    limits: { fileSize: UPLOAD_LIMIT_BYTES, files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: MAX_FIELDS + 1 },
  });
}

export interface UploadedFile {
  fieldName: string;
  filename: string;
  mimetype: string;
  data: Buffer;
}

export interface Upload {
  file?: UploadedFile;
  /** Text fields of the form (the last value wins when a name repeats). */
  fields: Record<string, string>;
}

/**
 * The form of a multipart request: its one file (read into memory, at most UPLOAD_LIMIT_BYTES) and its
 * text fields. A request that is not multipart is 415; a file over the limit 413 (uploadErrorOf); a form the
 * parser cannot read (truncated, no boundary) 400; a NUL in a field or file name 400 naming it, as in JSON
 * bodies (the database cannot store U+0000).
 */
export async function readUpload(request: FastifyRequest): Promise<Upload> {
  if (!request.isMultipart()) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', '请求应为 multipart/form-data 文件上传', { field: 'file' });
  }
  const upload: Upload = { fields: {} };
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        upload.file = { fieldName: part.fieldname, filename: part.filename, mimetype: part.mimetype, data: await part.toBuffer() };
      } else if (typeof part.value === 'string') {
        upload.fields[part.fieldname] = part.value;
      }
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw uploadErrorOf(err as { code?: string }) ?? validationFailed('上传表单格式不正确（无法读取 multipart 内容）', { field: 'file' });
  }
  return withoutNul(upload);
}

/** A form is read in the handler, after refuseNulCharacters has looked at path, query and JSON body. */
function withoutNul(upload: Upload): Upload {
  const field = nulField(upload.fields) ?? (upload.file?.filename.includes('\u0000') ? upload.file.fieldName : undefined);
  if (field !== undefined) throw nulRefused(field.replaceAll('\u0000', '') || 'form');
  return upload;
}

/** The upload's file, or 400 naming the form field. */
export function requireUploadedFile(upload: Upload, field = 'file'): UploadedFile {
  if (!upload.file || upload.file.data.length === 0) throw validationFailed(`缺少上传文件 ${field}`, { field });
  return upload.file;
}

/** The plugin's own errors in the one error shape, with Chinese messages (contract §2). */
export function uploadErrorOf(error: { code?: string }): AppError | undefined {
  switch (error.code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', `上传文件超过 ${UPLOAD_LIMIT_BYTES / 1024 / 1024} MB`, { field: 'file' });
    case 'FST_FILES_LIMIT':
      return new AppError('VALIDATION_FAILED', '一次只能上传一个文件', { field: 'file' });
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new AppError('VALIDATION_FAILED', '上传表单的字段过多');
    case 'FST_PROTO_VIOLATION':
      return new AppError('VALIDATION_FAILED', '上传表单的字段名不合法');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', '请求应为 multipart/form-data 文件上传', { field: 'file' });
    default:
      return undefined;
  }
}
