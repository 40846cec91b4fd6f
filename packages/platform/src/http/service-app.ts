import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError, translateDatabaseError } from '../errors.js';
import { clientErrorHandler, dropEmptyInput, frameworkErrorHandler, refuseNulCharacters } from './input-guards.js';
import { registerOpenApi } from './openapi.js';
import { registerUploads, uploadErrorOf } from './uploads.js';
import { createValidatorCompiler, describeValidationError } from './validation.js';

export const API_PREFIX = '/api/v1';
export const JSON_BODY_LIMIT = 1024 * 1024;

export interface ServiceAppOptions {
  title: string;
  description: string;
  /** Validation failures: 400 in the inventory service, 422 in the tracking service (contract §2). */
  validationStatus: 400 | 422;
  logger?: FastifyServerOptions['logger'];
  exposeStackTraces?: boolean;
  health: () => Promise<boolean>;
}

export type ServiceApp = FastifyInstance & { withTypeProvider: () => unknown };

export async function createServiceApp(options: ServiceAppOptions) {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: JSON_BODY_LIMIT,
    // `/inbound/base/` is how the spec writes a path; a client's trailing slash never makes a route 404
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    ajv: { customOptions: { removeAdditional: 'all' } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(createValidatorCompiler());
  // JSON in (contract §2): Fastify's plain-text parser would hand a JSON schema a string; without it such a body is 415
  app.removeContentTypeParser('text/plain');
  acceptEmptyJsonBody(app);
  installErrorHandling(app, options);
  // registered before the guards' own preHandler hooks, so a NUL never reaches a lock or a handler
  app.addHook('preHandler', refuseNulCharacters);
  app.addHook('preValidation', dropEmptyInput);

  await registerOpenApi(app, { title: options.title, description: options.description });
  await registerUploads(app);
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...(route.config ?? {}), public: true };
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.get(`${API_PREFIX}/openapi.json`, { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  app.get(
    `${API_PREFIX}/health`,
    { config: { public: true }, schema: { tags: ['system'], summary: '健康检查' } },
    async (_request, reply) => {
      if (await options.health()) return reply.code(200).send({ status: 'ok' });
      // an error answer like every other (contract §2), with the status a probe reads
      return reply.code(503).send({ status: 'unavailable', ...new AppError('UNAVAILABLE', '服务暂不可用：数据库不可达或尚未就绪').toBody() });
    },
  );
  return app;
}

/**
 * An empty body sent as application/json is no body: clients that put the JSON content type on every call
 * (approve, reject, execute have no body) are not refused for it. A route that needs a body still answers its
 * validation error. Everything else goes to Fastify's own JSON parser (prototype poisoning refused as before).
 */
function acceptEmptyJsonBody(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text === '') return done(null, undefined);
    return parseJson(request, text, done);
  });
}

function installErrorHandling(app: FastifyInstance, options: ServiceAppOptions) {
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ msg: `接口不存在: ${request.method} ${request.url.split('?')[0]}`, code: 'NOT_FOUND' });
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = toAppError(error, options.validationStatus);
    if (known) {
      // one validation status per service: thrown VALIDATION_FAILED and CHECK violations included
      const remap = known.code === 'VALIDATION_FAILED' && known.status === 400 && !isMalformedBody(error);
      const status = remap ? options.validationStatus : known.status;
      if (status >= 500) request.log.error({ err: known.cause ?? known }, known.message);
      return reply.code(status).send(known.toBody());
    }
    request.log.error({ err: error }, 'unexpected failure');
    const body: Record<string, unknown> = { msg: '服务器内部错误', code: 'INTERNAL' };
    if (options.exposeStackTraces) body.stack = error.stack;
    return reply.code(500).send(body);
  });
}

/** A body that is not JSON at all stays 400 in both services; only schema failures follow validationStatus. */
function isMalformedBody(error: FastifyError): boolean {
  return error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY';
}

function toAppError(error: FastifyError, validationStatus: number): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error.validation) {
    const { msg, field } = describeValidationError(error.validation, error.validationContext ?? 'body');
    return new AppError('VALIDATION_FAILED', msg, { field }, validationStatus);
  }
  const uploadError = uploadErrorOf(error);
  if (uploadError) return uploadError;
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('VALIDATION_FAILED', '请求体不是合法的 JSON', {}, 400);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', '请求体过大');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', '不支持的请求内容类型');
    default:
      break;
  }
  if (error instanceof SyntaxError) return new AppError('VALIDATION_FAILED', '请求体不是合法的 JSON', {}, 400);
  const translated = translateDatabaseError(error);
  if (translated) return translated;
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    // a refusal of the framework's that no case above names: its status kept, a code that claims no more than that
    return new AppError('BAD_REQUEST', `请求无法处理（${error.message}）`, {}, error.statusCode);
  }
  return undefined;
}

export type FastifyServerOptionsLogger = FastifyServerOptions['logger'];
