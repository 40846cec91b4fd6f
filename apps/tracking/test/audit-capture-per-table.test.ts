import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditContext, Database } from '@wms/platform';
import { attachGenericCaptureBeside, capturedRecords, keepIdentityInGenericUpdates, lastAuditId, stepwiseRunner, sweepAuditedTables } from '@wms/platform/testing';
import { TRACKING_MIGRATIONS } from '../src/app.js';
import { seedTrackingDemoIfEmpty } from '../src/seed/demo.js';
import { buildTestTracking, DEPARTMENT, type TestTracking } from './helpers.js';

/**
 * The generated per-table capture functions (migration 0009) write exactly the records of 0008's generic
 * audit_capture_statement(). The generic function is made again from 0008's own text (0009 drops it from
 * the schema; the file is what shipped, so this copy cannot drift) and attached beside the generated one
 * on every audited table, writing into audit_logs_generic: one run of statements gives both captures of
 * the very same transition tables, then every column of every record (details as jsonb text) and their
 * order are compared.
 */

const ALPHA: AuditContext = { actor: 'eq_alpha', company: 'ALPHA', requestUrl: '/api/v1/equivalence?x=1' };
const NO_SESSION: AuditContext = { actor: '' };
const SWEEP: AuditContext = { actor: 'eq_sweep', company: 'BETA', requestUrl: '/api/v1/sweep' };

describe('tracking audit capture per table', () => {
  let t: TestTracking;
  let database: Database;
  let since = 0;
  const { run, failedSteps } = stepwiseRunner(() => database);

  beforeAll(async () => {
    t = await buildTestTracking();
    database = t.service.deps.database;
    await seedTrackingDemoIfEmpty(database, { orgDepartment: DEPARTMENT, materialCategoryPrefix: DEPARTMENT });
    const generic = readFileSync(join(TRACKING_MIGRATIONS, '0008_audit_capture_statement.sql'), 'utf8');
    expect(await attachGenericCaptureBeside(database, generic)).toBeGreaterThanOrEqual(30);
    // a user without a department, which the schema refuses but the department rule handles
    await database.transaction({ actor: 'setup' }, (tx) => tx.execute(sql`alter table users alter column department drop not null`));
    since = await lastAuditId(database);
  });
  afterAll(() => t.close());

  it('writes the same records as the generic capture, for every kind of statement', async () => {
    await run(ALPHA, [
      // credentials: created, changed alone, changed with a name, updated_at alone; a user without a department
      sql`insert into users (username, password_hash, name, role, department) values
            ('eq_a', 'hash-a', 'A', 'OPERATOR', 'BETA'), ('eq_b', 'hash-b', 'B', 'ENGINEER', null)`,
      sql`update users set password_hash = password_hash || '2' where username like 'eq\\_%'`,
      sql`update users set password_hash = password_hash || '3', name = name || '+' where username = 'eq_a'`,
      sql`update users set updated_at = updated_at + interval '1 second' where username like 'eq\\_%'`,
      sql`update users set active = false where username = 'eq_b'`,
      // multi-row INSERT and UPDATE, a no-op, the same rows twice
      sql`insert into business_groups (name) values ('等价组一'), ('等价组二'), ('等价组三')`,
      sql`update business_groups set name = name || '改' where name like '等价组%'`,
      sql`update business_groups set active = active, name = name where name like '等价组%'`,
      sql`update business_groups set active = false, parent_id = (select min(id) from business_groups) where name like '等价组%' and name <> '等价组一改'`,
      // an UPDATE that changes the primary key (every change to business_group_phases does)
      sql`insert into business_group_phases (group_id, phase) select id, 'PRODUCTION' from business_groups where name like '等价组%'`,
      sql`update business_group_phases set phase = 'AFTER_SALES' where group_id in (select id from business_groups where name like '等价组%')`,
      sql`insert into business_group_members (group_id, user_id, is_leader)
          select g.id, u.id, false from business_groups g, users u where g.name like '等价组%' and u.username like 'eq\\_%'`,
      sql`update business_group_members set is_leader = true where user_id = (select id from users where username = 'eq_a')`,
      // a text id; numeric(10,2) written with another scale (equal: no record); a date
      sql`insert into integration_events (event_id, kind, reference, operator, matched) values ('eq-ev-1', 'stock-in', 'SN-EQ', null, false)`,
      sql`update integration_events set matched = true, operator = '仓管' where event_id = 'eq-ev-1'`,
      sql`update tasks set hours = hours + 0.00`,
      sql`update tasks set hours = hours + 1.25, due_date = date '2026-12-24' where status <> 'DONE'`,
      sql`insert into task_logs (task_id, user_id, action, content, hours)
          select min(t.id), min(u.id), 'COMMENT', '等价', 0.5 from tasks t, users u where u.username = 'eq_a'`,
      sql`insert into reminders (user_id, task_id, content) select u.id, null, '提醒' from users u where u.username like 'eq\\_%'`,
      sql`update reminders set read_at = now() where content = '提醒'`,
      sql`update products set status = '售后中', lifecycle_phase = 'AFTER_SALES' where id = (select min(id) from products)`,
      sql`update materials set base_id = 42 where id = (select min(id) from materials)`,
    ]);
    // no actor, company or URL in the session: system, the row's department, else none
    await run(NO_SESSION, [
      sql`update users set name = name || '!' where username like 'eq\\_%'`,
      sql`update business_groups set name = name || '!' where name like '等价组%'`,
      sql`delete from business_group_phases where group_id in (select id from business_groups where name like '等价组%')`,
    ]);

    const swept = await sweepAuditedTables(database, (statements) => run(SWEEP, statements));
    expect(swept).toBeGreaterThanOrEqual(10);

    // the generated functions keep only an update's identity as its snapshot (migration audit_update_snapshot_identity)
    await keepIdentityInGenericUpdates(database, since);
    const generated = await capturedRecords(database, 'audit_logs', since, 'department');
    const generic = await capturedRecords(database, 'audit_logs_generic', since, 'department');
    expect(generated.length).toBeGreaterThan(100);
    expect(generated).toEqual(generic);
    expect(failedSteps()).toBeGreaterThan(0);

    // the cases above happened (so the comparison covered them)
    const details = (table: string, action: string) =>
      generated.filter((r) => r.table_name === table && r.action === action && r.username !== 'eq_sweep');
    const pseudo = '[{"new": null, "old": null, "field": "credentials"}]';
    expect(details('users', 'UPDATE').filter((r) => r.details!.includes(`"changes": ${pseudo}`)).length).toBeGreaterThanOrEqual(4);
    expect(details('business_group_phases', 'UPDATE').map((r) => r.target_name)).toEqual(['AFTER_SALES', 'AFTER_SALES', 'AFTER_SALES']);
    expect(details('business_groups', 'UPDATE')).toHaveLength(3 + 2 + 3);
    expect(new Set(details('users', 'UPDATE').map((r) => r.owner))).toEqual(new Set(['BETA', 'ALPHA', null]));
    expect(generated.some((r) => r.username === 'system' && r.request_url === null)).toBe(true);
    expect(generated.filter((r) => r.action === 'DELETE').length).toBeGreaterThan(20);
  });
});
