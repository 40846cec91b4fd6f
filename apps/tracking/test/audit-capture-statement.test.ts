import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type AuditContext } from '@wms/platform';
import { auditRecordsSince, auditTriggerProblems, lastAuditId, runAudited } from '@wms/platform/testing';
import { buildTestTracking, type TestTracking } from './helpers.js';

/**
 * The tracking service's audit capture runs once per statement (migration 0008; one generated function per
 * table since 0009): pairing old and new rows, one record per row, no record for a no-op, the transaction's
 * settings, the department rule and credentials. Writes go straight to SQL in one transaction, so each case
 * controls its statements.
 */

interface AuditRow {
  action: string;
  table_name: string;
  target_id: string | null;
  target_name: string | null;
  username: string;
  department: string | null;
  request_url: string | null;
  details: { [key: string]: unknown; changes?: Array<{ field: string; old: unknown; new: unknown }> };
}

const ACTOR: AuditContext = { actor: 'capture_eng', company: 'ALPHA', requestUrl: '/api/v1/test/capture' };

describe('tracking audit capture per statement', () => {
  let t: TestTracking;

  const run = (statements: SQL[], audit: AuditContext = ACTOR) => runAudited(t.service.deps.database, statements, audit);
  const lastId = () => lastAuditId(t.service.deps.database);
  /** The records written after `since`, in the order they were written. */
  const recordsSince = (since: number, table: string) => auditRecordsSince<AuditRow>(t.service.deps.database, since, table, 'department');

  beforeAll(async () => {
    t = await buildTestTracking();
  });
  afterAll(() => t.close());

  it('gives one record per row of a multi-row INSERT, UPDATE and DELETE, each with its own changes', async () => {
    const since = await lastId();
    await run([
      sql`insert into business_groups (name) values ('捕获组一'), ('捕获组二'), ('捕获组三')`,
      sql`update business_groups set name = name || '改' where name like '捕获组%'`,
      sql`update business_groups set active = active where name like '捕获组%'`,
      sql`delete from business_groups where name like '捕获组%'`,
    ]);
    const records = await recordsSince(since, 'business_groups');
    expect(records.slice(0, 3).map((r) => [r.action, r.target_name])).toEqual([
      ['CREATE', '捕获组一'],
      ['CREATE', '捕获组二'],
      ['CREATE', '捕获组三'],
    ]);
    const updates = records.filter((r) => r.action === 'UPDATE');
    // one record per row of the renaming UPDATE, none for the no-op one
    expect(Object.fromEntries(updates.map((r) => [r.target_name, r.details.changes]))).toEqual(
      Object.fromEntries(['捕获组一', '捕获组二', '捕获组三'].map((name) => [`${name}改`, [{ field: 'name', old: name, new: `${name}改` }]])),
    );
    // an update carries its changes and the row's references, not the whole row (decisions Platform 8)
    for (const update of updates) expect(update.details.snapshot).toEqual({ parent_id: null });
    expect(records.filter((r) => r.action === 'DELETE')).toHaveLength(3);
    // business groups have no department column: the session's company stands for it
    expect(new Set(records.map((r) => [r.username, r.department, r.request_url].join('|')))).toEqual(
      new Set(['capture_eng|ALPHA|/api/v1/test/capture']),
    );
  });

  it('keeps password hashes out of every record and takes the department from the row', async () => {
    const since = await lastId();
    const hash = '$argon2id$tracking-capture-secret';
    await run([
      sql`insert into users (username, password_hash, name, role, department) values
            ('cap_trk_a', ${hash}, 'A', 'OPERATOR', 'BETA'), ('cap_trk_b', ${hash}, 'B', 'OPERATOR', 'ALPHA')`,
      sql`update users set password_hash = ${hash + '2'} where username like 'cap\\_trk\\_%'`,
      sql`update users set name = 'A1' where username = 'cap_trk_a'`,
      sql`update users set name = 'A2' where username = 'cap_trk_a'`,
      sql`delete from users where username like 'cap\\_trk\\_%'`,
    ]);
    const records = await recordsSince(since, 'users');
    expect(records.map((r) => [r.action, r.target_name, r.department, r.details.changes ?? null]).sort()).toEqual([
      ['CREATE', 'cap_trk_a', 'BETA', null],
      ['CREATE', 'cap_trk_b', 'ALPHA', null],
      ['DELETE', 'cap_trk_a', 'BETA', null],
      ['DELETE', 'cap_trk_b', 'ALPHA', null],
      ['UPDATE', 'cap_trk_a', 'BETA', [{ field: 'credentials', old: null, new: null }]],
      ['UPDATE', 'cap_trk_a', 'BETA', [{ field: 'name', old: 'A', new: 'A1' }]],
      ['UPDATE', 'cap_trk_a', 'BETA', [{ field: 'name', old: 'A1', new: 'A2' }]],
      ['UPDATE', 'cap_trk_b', 'ALPHA', [{ field: 'credentials', old: null, new: null }]],
    ]);
    // the row updated by two statements got two records, in statement order
    expect(records.slice(4, 6).map((r) => r.details.changes)).toEqual([
      [{ field: 'name', old: 'A', new: 'A1' }],
      [{ field: 'name', old: 'A1', new: 'A2' }],
    ]);
    const text = JSON.stringify(records);
    expect(text).not.toContain('password');
    expect(text).not.toContain('tracking-capture-secret');
  });

  it('pairs the rows of an UPDATE that changes the composite key of business_group_phases', async () => {
    const [group] = await t.service.deps.database.transaction(ACTOR, (tx) =>
      queryRows<{ id: number }>(tx, sql`insert into business_groups (name) values ('阶段组') returning id`),
    );
    const since = await lastId();
    await run([
      sql`insert into business_group_phases (group_id, phase) values (${group!.id}, 'PRODUCTION')`,
      sql`update business_group_phases set phase = 'AFTER_SALES' where group_id = ${group!.id}`,
    ]);
    const records = await recordsSince(since, 'business_group_phases');
    expect(records.map((r) => [r.action, r.target_id, r.target_name, r.details.changes ?? null])).toEqual([
      ['CREATE', String(group!.id), 'PRODUCTION', null],
      ['UPDATE', String(group!.id), 'AFTER_SALES', [{ field: 'phase', old: 'PRODUCTION', new: 'AFTER_SALES' }]],
    ]);
  });

  it('gives every audited table one statement-level trigger per event, naming exactly its credential-like columns', async () => {
    const { tables, problems } = await auditTriggerProblems(t.service.deps.database);
    expect(tables).toBeGreaterThanOrEqual(10);
    expect(problems).toEqual([]);
    const [users] = await t.service.deps.database.read((q) =>
      queryRows<{ definition: string }>(q, sql`select pg_get_triggerdef(oid) as definition from pg_trigger where tgname = 'audit_users_update'`),
    );
    expect(users!.definition.endsWith(`, '{password_hash}')`)).toBe(true);
  });

  it('fails while a column of an audited table changed without audit_attach() again, which then records it', async () => {
    const database = t.service.deps.database;
    const ddl = (statement: SQL) => database.transaction({ actor: 'setup' }, (tx) => tx.execute(statement));
    const problems = async () => (await auditTriggerProblems(database)).problems.filter((problem) => problem.startsWith('audit_drift_probe:'));
    await ddl(sql`create table audit_drift_probe (id serial primary key, name text not null, department text)`);
    try {
      await ddl(sql`select audit_attach('audit_drift_probe', '用户管理', 'name')`);
      expect(await problems()).toEqual([]);
      await ddl(sql`alter table audit_drift_probe add column note text`);
      expect(await problems()).toEqual([
        'audit_drift_probe: audit_audit_drift_probe_capture() was generated for other columns than the table has now; call audit_attach() again in the migration that changed them',
      ]);
      await ddl(sql`select audit_attach('audit_drift_probe', '用户管理', 'name')`);
      expect(await problems()).toEqual([]);
      const since = await lastId();
      await run([sql`insert into audit_drift_probe (name, department) values ('p', 'BETA')`, sql`update audit_drift_probe set note = 'n'`]);
      const records = await recordsSince(since, 'audit_drift_probe');
      expect(records.map((r) => [r.department, r.details.changes ?? r.details.created])).toEqual([
        ['BETA', expect.objectContaining({ name: 'p', note: null })],
        ['BETA', [{ field: 'note', old: null, new: 'n' }]],
      ]);
    } finally {
      await ddl(sql`drop table audit_drift_probe`);
      await ddl(sql`drop function audit_audit_drift_probe_capture()`);
    }
  });
});
