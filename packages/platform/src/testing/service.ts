import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { API_PREFIX } from '../http/service-app.js';
import { createTestDatabase } from './database.js';

export interface TestUser {
  id: number;
  username: string;
  token: string;
}

export interface TestRequestOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Calls a built service in-process (app.inject), the way a client would over HTTP. */
export interface TestClient {
  request(method: string, url: string, options?: TestRequestOptions): Promise<LightMyRequestResponse>;
  login(username: string, password: string): Promise<LightMyRequestResponse>;
}

export interface TestService<TService> extends TestClient {
  service: TService;
  /** The answer to the administrator's login (each service decides whether a failure is fatal). */
  adminLogin: LightMyRequestResponse;
  /** Closes the service, then drops its database. */
  close(): Promise<void>;
}

export interface StartTestServiceOptions<TService> {
  /** Names the PostgreSQL test database, so leftovers show which service made them. */
  databasePrefix: string;
  build: (databaseUrl: string) => Promise<TService>;
  admin: { username: string; password: string };
  /** On PGlite: the service's migrated database to start from (writePgliteTemplate). */
  pgliteTemplate?: string;
}

/** One service on a fresh database (PGlite in memory, or a new PostgreSQL database), its administrator logged in. */
export async function startTestService<TService extends { app: Pick<FastifyInstance, 'inject'>; close(): Promise<void> }>(
  options: StartTestServiceOptions<TService>,
): Promise<TestService<TService>> {
  const database = await createTestDatabase(options.databasePrefix, options.pgliteTemplate);
  const service = await options.build(database.url);
  const { request, login } = testClient(service.app);
  const adminLogin = await login(options.admin.username, options.admin.password);
  return {
    service,
    request,
    login,
    adminLogin,
    async close() {
      await service.close();
      await database.drop();
    },
  };
}

export function testClient(app: Pick<FastifyInstance, 'inject'>): TestClient {
  const request: TestClient['request'] = (method, url, opts = {}) =>
    app.inject({
      method: method as 'GET',
      url,
      headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...opts.headers },
      ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
    });
  const login = (username: string, password: string) => request('POST', `${API_PREFIX}/auth/login`, { body: { username, password } });
  return { request, login };
}

/** Creates an account through POST /users as the administrator, then logs in as it. */
export async function createTestUser(
  client: TestClient,
  adminToken: string,
  body: Record<string, unknown> & { username: string; password: string },
): Promise<TestUser> {
  const created = await client.request('POST', `${API_PREFIX}/users`, { token: adminToken, body });
  if (created.statusCode !== 201) throw new Error(`creating test user failed: ${created.body}`);
  const loggedIn = await client.login(body.username, body.password);
  return { id: created.json().id as number, username: body.username, token: loggedIn.json().token as string };
}

let testNumber = 0;

/** 1, 2, 3… within one test file. */
export function nextTestNumber(): number {
  testNumber += 1;
  return testNumber;
}

/** `<prefix>_<n>_<random>`: unique within a test file and, thanks to the random part, across runs. */
export function uniqueName(prefix: string, n = nextTestNumber()): string {
  return `${prefix.toLowerCase()}_${n}_${Math.random().toString(36).slice(2, 6)}`;
}
