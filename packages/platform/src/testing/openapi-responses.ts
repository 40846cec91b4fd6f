import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Middleware } from 'openapi-fetch';
import type { OpenApiDocument } from './openapi-lint.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const DOCUMENT_ID = 'openapi.json';

export interface ResponseChecker {
  /** An openapi-fetch middleware: a call whose answer the document does not describe rejects. */
  middleware: Middleware;
  /** `GET /api/v1/outbound/request/{id} 200` for every answer that was checked, in order. */
  checked: string[];
}

/**
 * Checks every answer a typed client receives against the served document: the status must be
 * documented and a JSON body must validate against that status's schema (JSON Schema 2020-12, formats
 * included). This is what catches a schema drifting from what a route answers — e.g. an enum value,
 * a null or a date format the document does not allow.
 */
export function responseChecker(document: OpenApiDocument): ResponseChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addSchema(structuredClone(document) as object, DOCUMENT_ID);
  const checked: string[] = [];

  const middleware: Middleware = {
    async onResponse({ request, response, schemaPath }) {
      const method = request.method.toLowerCase();
      const label = `${request.method} ${schemaPath} ${response.status}`;
      const operation = document.paths[schemaPath]?.[method] as { responses?: Record<string, { content?: Record<string, unknown> }> } | undefined;
      if (!operation) throw new Error(`${label}: the document has no such operation`);
      const status = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find((key) => operation.responses?.[key]);
      if (!status) throw new Error(`${label}: status not documented (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`);
      const mediaType = response.headers.get('content-type')?.split(';')[0]?.trim();
      if (mediaType === 'application/json') {
        if (!operation.responses?.[status]?.content?.[mediaType]) throw new Error(`${label}: JSON body not documented`);
        const body: unknown = await response.clone().json();
        const pointer = ['paths', schemaPath, method, 'responses', status, 'content', mediaType, 'schema'];
        const validate = ajv.getSchema(`${DOCUMENT_ID}#/${pointer.map(fragmentSegment).join('/')}`);
        if (!validate) throw new Error(`${label}: no schema at ${pointer.join(' → ')}`);
        if (!validate(body)) {
          const errors = (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
          throw new Error(`${label}: the body does not match the document:\n  ${errors.join('\n  ')}\nbody: ${JSON.stringify(body).slice(0, 2000)}`);
        }
      }
      checked.push(label);
      return undefined;
    },
  };
  return { middleware, checked };
}

/** A JSON pointer segment inside a URI fragment (`/api/v1/x/{id}` → `~1api~1v1~1x~1%7Bid%7D`). */
const fragmentSegment = (segment: string) => encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'));
