import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { businessGroups } from '../src/db/schema/index.js';
import { buildTestTracking, type TestTracking } from './helpers.js';
import { createGroup } from './scope-fixtures.js';

describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL: group parents changed at the same moment', () => {
  let t: TestTracking;
  beforeAll(async () => {
    t = await buildTestTracking();
  });
  afterAll(() => t.close());

  const setParent = (id: number, parentId: number) =>
    t.request('PATCH', `/api/v1/groups/${id}`, { token: t.adminToken, body: { parent_id: parentId } });

  it('never makes three levels: P under Q and X under P at once, round after round, one of the two is refused', async () => {
    for (let round = 0; round < 12; round++) {
      const [q, p, x] = await Promise.all([createGroup(t), createGroup(t), createGroup(t)]);
      const answers = await Promise.all(round % 2 ? [setParent(p.id, q.id), setParent(x.id, p.id)] : [setParent(x.id, p.id), setParent(p.id, q.id)]);
      const codes = answers.map((answer) => answer.statusCode).sort();
      expect(codes).toEqual([200, 422]); // tracking answers validation failures with 422 (contract §2)
      const rows = await t.service.deps.database.read((tx) => tx.select({ id: businessGroups.id, parentId: businessGroups.parentId }).from(businessGroups));
      const parentOf = new Map(rows.map((row) => [row.id, row.parentId]));
      for (const row of rows) {
        if (row.parentId !== null) expect(parentOf.get(row.parentId), `group ${row.id}`).toBeNull();
      }
    }
  });
});
