import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { buildTestTracking, type TestTracking } from '../../tracking/test/helpers.js';

/** A real tracking service listening on a local port, its webhook key set: the peer of the end-to-end tests. */
export async function listeningTracking(webhookApiKey: string): Promise<{ tracking: TestTracking; origin: string }> {
  const tracking = await buildTestTracking({ config: { webhookApiKey } });
  await tracking.service.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = tracking.service.app.server.address() as AddressInfo;
  return { tracking, origin: `http://127.0.0.1:${port}` };
}

/** A tracking product finished in production, waiting for the warehouse. */
export async function awaitingProduct(tracking: TestTracking, model: string): Promise<{ id: number; serial_number: string }> {
  const created = await tracking.request('POST', '/api/v1/products', { token: tracking.adminToken, body: { model } });
  expect(created.statusCode, created.body).toBe(201);
  const moved = await tracking.request('PATCH', `/api/v1/products/${created.json().id}`, { token: tracking.adminToken, body: { status: '待仓库收货' } });
  expect(moved.statusCode, moved.body).toBe(200);
  return created.json();
}
