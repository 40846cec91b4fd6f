import { randomBytes } from 'node:crypto';

export interface MultipartFile {
  name?: string;
  filename: string;
  contentType?: string;
  data: Buffer;
}

/** A multipart/form-data body as a browser sends it: text fields, then at most one file. */
export function multipartBody(fields: Record<string, string>, file?: MultipartFile): { body: Buffer; headers: Record<string, string> } {
  const boundary = `----wmsTest${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  if (file) {
    const header =
      `--${boundary}\r\nContent-Disposition: form-data; name="${file.name ?? 'file'}"; filename="${file.filename}"\r\n` +
      `Content-Type: ${file.contentType ?? 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'}\r\n\r\n`;
    chunks.push(Buffer.from(header), file.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
