import type { FastifyInstance, FastifySchema } from 'fastify';
import swagger, { type SwaggerTransform } from '@fastify/swagger';

/** The OpenAPI version both services describe themselves in (JSON Schema 2020-12, as TypeBox writes it). */
export const OPENAPI_VERSION = '3.1.0';

/** Operation ids are named from the path below this prefix (`/api/v1/health` → `getHealth`). */
const OPERATION_ID_PREFIX = '/api/v1';

export interface OpenApiOptions {
  title: string;
  description: string;
}

/**
 * Registers @fastify/swagger for the service's OpenAPI document (decisions: API description). The one
 * server is relative (`/`): the document's own origin, so it stays right behind any proxy or port.
 * Every operation carries an operationId.
 */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions) {
  await app.register(swagger, {
    openapi: {
      openapi: OPENAPI_VERSION,
      info: { title: options.title, description: options.description, version: '1.0.0' },
      servers: [{ url: '/', description: '本服务（与本文档同源）' }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
      security: [{ bearer: [] }],
    },
    transform: describeRoute,
  });
}

const describeRoute: SwaggerTransform = ({ schema, url, route }) => {
  const described: FastifySchema & { hide?: boolean; operationId?: string } = { ...schema };
  // an upload route's form fields (uploads.ts): described as its multipart/form-data body, never validated
  if (described.multipart) {
    described.body = described.multipart;
    described.consumes = ['multipart/form-data'];
    delete described.multipart;
  }
  described.operationId ??= operationIdOf(route.method, url);
  return { schema: described, url };
};

/**
 * A readable, stable id from method and path: `POST /api/v1/outbound/request` → `postOutboundRequest`,
 * `GET /api/v1/inbound/base/:id` → `getInboundBaseById`, `:serial_number` → `BySerialNumber`.
 * Method + path is unique per document, and so is the id unless two paths differ only in punctuation
 * (`/a-b` and `/a/b`): the linter's operation-operationId-unique rule catches that.
 */
export function operationIdOf(method: string | string[], url: string): string {
  const verb = (Array.isArray(method) ? method : [method]).map((m, i) => (i === 0 ? m.toLowerCase() : capitalize(m))).join('Or');
  const path = url.startsWith(`${OPERATION_ID_PREFIX}/`) ? url.slice(OPERATION_ID_PREFIX.length) : url;
  const words = path
    .split('/')
    .filter((segment) => segment.length > 0)
    .flatMap((segment) => {
      const param = /^[:{](\w+)/.exec(segment)?.[1];
      if (param) return ['by', ...wordsOf(param)];
      return wordsOf(segment === '*' ? 'wildcard' : segment);
    });
  return verb + words.map(capitalize).join('');
}

const wordsOf = (text: string) => text.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/).filter((word) => word.length > 0);

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
