import { expect } from 'vitest';
import type { TestTracking, TestUser } from './helpers.js';

/** Request helpers for the tracking domain tests: each one asserts its call succeeded. */

export type Phase = 'PRODUCTION' | 'AFTER_SALES';

export async function createGroup(
  t: TestTracking,
  body: { name?: string; parent_id?: number | null; active?: boolean; phases?: Phase[] } = {},
): Promise<{ id: number }> {
  const res = await t.request('POST', '/api/v1/groups', { token: t.adminToken, body: { name: `组${Math.random().toString(36).slice(2, 7)}`, ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export async function addMembers(t: TestTracking, groupId: number, userIds: number[], token = t.adminToken) {
  const res = await t.request('POST', `/api/v1/groups/${groupId}/members`, { token, body: { user_ids: userIds } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { added: number[]; skipped: number[]; skipped_names: string[] };
}

export async function setGroup(t: TestTracking, groupId: number, body: Record<string, unknown>) {
  const res = await t.request('PATCH', `/api/v1/groups/${groupId}`, { token: t.adminToken, body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** A user of the role placed in a new group with these phases. */
export async function groupedUser(t: TestTracking, role: string, phases: Phase[]): Promise<TestUser & { groupId: number }> {
  const user = await t.user(role);
  const group = await createGroup(t, { phases });
  await addMembers(t, group.id, [user.id]);
  return { ...user, groupId: group.id };
}

export async function createProduct(t: TestTracking, body: Record<string, unknown> = {}, token = t.adminToken) {
  const res = await t.request('POST', '/api/v1/products', { token, body: { model: 'TX-100', ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; serial_number: string; lifecycle_phase: Phase; status: string };
}

export async function createTask(t: TestTracking, body: Record<string, unknown>, token = t.adminToken) {
  const res = await t.request('POST', '/api/v1/tasks', { token, body: { title: '装配整机', ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; status: string; hours: number };
}

export async function meScope(t: TestTracking, token: string) {
  const res = await t.request('GET', '/api/v1/auth/me', { token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().scope as { phases: Phase[]; labels: Record<string, string>; unrestricted: boolean };
}
