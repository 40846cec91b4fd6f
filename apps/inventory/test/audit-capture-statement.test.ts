import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type AuditContext } from '@wms/platform';
import { auditRecordsSince, auditTriggerProblems, lastAuditId, runAudited } from '@wms/platform/testing';
import { auditLogs } from './audit-fixtures.js';
import { buildTestInventory, type TestInventory } from './helpers.js';

/**
 * The audit capture runs once per statement (migration 0022; one generated function per table since 0028):
 * what a statement-level trigger could get wrong that a row-level one could not — pairing old and new rows,
 * one record per row, no record for a no-op, the settings of the transaction, the company rule, credentials.
 * Writes go straight to SQL in one transaction, as a service does, so each case controls exactly which
 * statements run.
 */

interface AuditRow {
  action: string;
  table_name: string;
  target_id: string | null;
  target_name: string | null;
  username: string;
  company_name: string | null;
  request_url: string | null;
  details: { [key: string]: unknown; changes?: Array<{ field: string; old: unknown; new: unknown }> };
}

const ACTOR: AuditContext = { actor: 'capture_wh', company: 'ALPHA', requestUrl: '/api/v1/test/capture?x=1' };

describe('audit capture per statement', () => {
  let t: TestInventory;
  let materialAlpha: number;
  let materialBeta: number;
  const stockIds: number[] = [];

  const run = (statements: SQL[], audit: AuditContext = ACTOR) => runAudited(t.service.deps.database, statements, audit);
  const lastId = () => lastAuditId(t.service.deps.database);
  /** The records written after `since`, in the order they were written. */
  const recordsSince = (since: number, table: string) => auditRecordsSince<AuditRow>(t.service.deps.database, since, table, 'company_name');

  beforeAll(async () => {
    t = await buildTestInventory();
    const materials = await t.service.deps.database.transaction({ actor: 'seed' }, (tx) =>
      queryRows<{ id: number; company_name: string }>(
        tx,
        sql`insert into materials (name, category, company_name) values ('捕获甲', 'ALPHA/测试', 'ALPHA'), ('捕获乙', 'BETA/测试', 'BETA')
            returning id, company_name`,
      ),
    );
    materialAlpha = materials.find((m) => m.company_name === 'ALPHA')!.id;
    materialBeta = materials.find((m) => m.company_name === 'BETA')!.id;
    const rows = await t.service.deps.database.transaction({ actor: 'seed' }, (tx) =>
      queryRows<{ id: number }>(
        tx,
        sql`insert into stock_rows (source_table, sku, base_id, stock_quantity, available_quantity, in_quantity)
            values ('stock_buy', 'CAP-1', ${materialAlpha}, 10, 10, 10), ('stock_buy', 'CAP-2', ${materialBeta}, 20, 20, 20),
                   ('stock_buy', 'CAP-3', ${materialAlpha}, 30, 30, 30)
            returning id`,
      ),
    );
    stockIds.push(...rows.map((r) => r.id).sort((a, b) => a - b));
  });
  afterAll(() => t.close());

  const ids = () => sql.join(stockIds.map((id) => sql`${id}`), sql`, `);

  it('gives one record per row of a 3-row UPDATE, each with its own old and new values and its own company', async () => {
    const since = await lastId();
    await run([sql`update stock_rows set available_quantity = available_quantity - (stock_quantity / 10) where id in (${ids()})`]);
    const records = await recordsSince(since, 'stock_rows');
    expect(records).toHaveLength(3);
    const byId = new Map(records.map((r) => [Number(r.target_id), r]));
    expect([...byId.keys()].sort((a, b) => a - b)).toEqual(stockIds);
    for (const [n, id] of stockIds.entries()) {
      const record = byId.get(id)!;
      const stock = (n + 1) * 10;
      expect(record).toMatchObject({ action: 'UPDATE', target_name: `CAP-${n + 1}`, username: 'capture_wh', request_url: '/api/v1/test/capture?x=1' });
      expect(record.details.changes).toEqual([{ field: 'available_quantity', old: stock, new: stock - (n + 1) }]);
      // an update keeps the row's sku and references, not the whole row (decisions Platform 8)
      expect(record.details.snapshot).toEqual({ sku: `CAP-${n + 1}`, base_id: expect.any(Number), request_id: null, bom_version_id: null });
      // stock rows have no company column: the company is the material's, not the session's ALPHA
      expect(record.company_name).toBe(n === 1 ? 'BETA' : 'ALPHA');
    }

    // the same records through the audit trail API
    const page = await auditLogs(t, t.adminToken, '&target_keyword=CAP-2');
    const latest = page.items.find((item) => item.action === 'UPDATE')!;
    expect(latest).toMatchObject({ company_name: 'BETA', username: 'capture_wh' });
    expect(latest.details.changes).toEqual([{ field: 'available_quantity', old: 20, new: 18 }]);
  });

  it('writes nothing for a no-op UPDATE and the credentials pseudo-change when only updated_at moved', async () => {
    const since = await lastId();
    await run([sql`update stock_rows set available_quantity = available_quantity, remark = remark where id in (${ids()})`]);
    expect(await recordsSince(since, 'stock_rows')).toEqual([]);

    await run([sql`update stock_rows set updated_at = updated_at + interval '1 second' where id = ${stockIds[0]!}`]);
    const records = await recordsSince(since, 'stock_rows');
    expect(records).toHaveLength(1);
    expect(records[0]!.details.changes).toEqual([{ field: 'credentials', old: null, new: null }]);
  });

  it('gives two records for a row updated by two statements of one transaction', async () => {
    const since = await lastId();
    const id = stockIds[2]!;
    await run([
      sql`update stock_rows set remark = 'first' where id = ${id}`,
      sql`update stock_rows set remark = 'second', warehouse_location = 'B-02' where id = ${id}`,
    ]);
    const records = await recordsSince(since, 'stock_rows');
    expect(records.map((r) => r.details.changes)).toEqual([
      [{ field: 'remark', old: null, new: 'first' }],
      [
        { field: 'remark', old: 'first', new: 'second' },
        { field: 'warehouse_location', old: '', new: 'B-02' },
      ],
    ]);
  });

  it('gives one record per row of a multi-row INSERT and DELETE, in the order the rows were written', async () => {
    const since = await lastId();
    await run([
      sql`insert into materials (name, category, company_name) values ('批量一', 'ALPHA/测试', 'ALPHA'), ('批量二', 'BETA/测试', 'BETA'), ('批量三', 'ALPHA/测试', 'ALPHA')`,
      sql`delete from materials where name like '批量%'`,
    ]);
    const records = await recordsSince(since, 'materials');
    // an INSERT's records follow its VALUES; a DELETE's follow its scan, so they are compared as a set
    expect(records.slice(0, 3).map((r) => [r.action, r.target_name, r.company_name])).toEqual([
      ['CREATE', '批量一', 'ALPHA'],
      ['CREATE', '批量二', 'BETA'],
      ['CREATE', '批量三', 'ALPHA'],
    ]);
    const deleted = records.slice(3);
    expect(deleted.map((r) => r.action)).toEqual(['DELETE', 'DELETE', 'DELETE']);
    expect(deleted.map((r) => [r.target_id, r.target_name, r.company_name]).sort()).toEqual(
      records.slice(0, 3).map((r) => [r.target_id, r.target_name, r.company_name]).sort(),
    );
    expect(records[1]!.details.created).toMatchObject({ name: '批量二', company_name: 'BETA' });
    expect(deleted.find((r) => r.target_name === '批量二')!.details.deleted_snapshot).toMatchObject({ name: '批量二', company_name: 'BETA' });
    expect(records[0]!.target_id).toBe(String((records[0]!.details.created as { id: number }).id));
  });

  it('never records a credential column, in created, changes, snapshot or deleted_snapshot', async () => {
    const since = await lastId();
    const hash = '$argon2id$capture-secret-hash';
    await run([
      sql`insert into users (username, password_hash, name, role, company_name) values
            ('capture_a', ${hash}, 'A', 'OUTBOUND', 'ALPHA'), ('capture_b', ${hash}, 'B', 'OUTBOUND', null)`,
      sql`update users set password_hash = ${hash + '2'} where username like 'capture_%'`,
      sql`update users set password_hash = ${hash + '3'}, name = name || '+' where username = 'capture_a'`,
      sql`delete from users where username like 'capture_%'`,
    ]);
    const records = await recordsSince(since, 'users');
    // rows of one UPDATE or DELETE come in the order of its scan, which the engine chooses
    expect(records.map((r) => [r.action, r.target_name, r.details.changes ?? null]).sort()).toEqual([
      ['CREATE', 'capture_a', null],
      ['CREATE', 'capture_b', null],
      ['DELETE', 'capture_a', null],
      ['DELETE', 'capture_b', null],
      ['UPDATE', 'capture_a', [{ field: 'credentials', old: null, new: null }]],
      ['UPDATE', 'capture_a', [{ field: 'name', old: 'A', new: 'A+' }]],
      ['UPDATE', 'capture_b', [{ field: 'credentials', old: null, new: null }]],
    ]);
    expect(records[4]!.details.changes).toEqual([{ field: 'name', old: 'A', new: 'A+' }]);
    const text = JSON.stringify(records);
    expect(text).not.toContain('password');
    expect(text).not.toContain('capture-secret');
    // a user without a company is recorded under the session's company
    expect(records.map((r) => r.company_name)).toEqual(['ALPHA', 'ALPHA', 'ALPHA', 'ALPHA', 'ALPHA', 'ALPHA', 'ALPHA']);
  });

  it('pairs the rows of an UPDATE that changes a composite primary key (role_permissions)', async () => {
    const since = await lastId();
    await run([
      sql`insert into role_permissions (role_code, permission_code) values ('CAPTURE_ROLE', 'cap:a'), ('CAPTURE_ROLE', 'cap:b')`,
      sql`update role_permissions set permission_code = permission_code || ':v2' where role_code = 'CAPTURE_ROLE'`,
      sql`delete from role_permissions where role_code = 'CAPTURE_ROLE'`,
    ]);
    const records = await recordsSince(since, 'role_permissions');
    const updates = records.filter((r) => r.action === 'UPDATE');
    expect(updates.map((r) => [r.target_id, r.target_name, r.details.changes]).sort()).toEqual([
      ['CAPTURE_ROLE', 'cap:a:v2', [{ field: 'permission_code', old: 'cap:a', new: 'cap:a:v2' }]],
      ['CAPTURE_ROLE', 'cap:b:v2', [{ field: 'permission_code', old: 'cap:b', new: 'cap:b:v2' }]],
    ]);
    expect(records.filter((r) => r.action === 'DELETE').map((r) => r.target_name).sort()).toEqual(['cap:a:v2', 'cap:b:v2']);
  });

  it('takes actor, company and URL from the transaction settings, else system and no company', async () => {
    const since = await lastId();
    await run([sql`insert into role_permissions (role_code, permission_code) values ('CAPTURE_CTX', 'ctx:a')`], {
      actor: 'ctx_user',
      company: 'BETA',
      requestUrl: '/api/v1/ctx',
    });
    await run([sql`delete from role_permissions where role_code = 'CAPTURE_CTX'`], { actor: '' });
    const records = await recordsSince(since, 'role_permissions');
    expect(records.map((r) => [r.action, r.username, r.company_name, r.request_url])).toEqual([
      ['CREATE', 'ctx_user', 'BETA', '/api/v1/ctx'],
      ['DELETE', 'system', null, null],
    ]);
  });

  it('falls back from company_name to the material of base_id to the session company', async () => {
    const since = await lastId();
    await run([
      sql`insert into material_stock_alerts (base_id, level) values (${materialBeta}, 'red'), (${materialAlpha}, 'red')`,
      sql`update material_stock_alerts set level = 'yellow' where base_id in (${materialAlpha}, ${materialBeta})`,
    ]);
    const records = await recordsSince(since, 'material_stock_alerts');
    expect(records.map((r) => [r.action, r.target_id, r.company_name])).toEqual([
      ['CREATE', String(materialBeta), 'BETA'],
      ['CREATE', String(materialAlpha), 'ALPHA'],
      ['UPDATE', expect.any(String), expect.any(String)],
      ['UPDATE', expect.any(String), expect.any(String)],
    ]);
    for (const record of records.slice(2)) {
      expect(record.company_name).toBe(record.target_id === String(materialBeta) ? 'BETA' : 'ALPHA');
      expect(record.details.changes).toEqual([{ field: 'level', old: 'red', new: 'yellow' }]);
    }
  });
});

describe('audit trigger arguments', () => {
  let t: TestInventory;
  beforeAll(async () => {
    t = await buildTestInventory();
  });
  afterAll(() => t.close());

  it('gives every audited table one statement-level trigger per event, naming exactly its credential-like columns', async () => {
    const { tables, problems } = await auditTriggerProblems(t.service.deps.database);
    expect(tables).toBeGreaterThan(20);
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
    const stale =
      'audit_drift_probe: audit_audit_drift_probe_capture() was generated for other columns than the table has now; call audit_attach() again in the migration that changed them';
    await ddl(sql`create table audit_drift_probe (id serial primary key, name text not null, company_name text, updated_at timestamptz not null default now())`);
    try {
      await ddl(sql`select audit_attach('audit_drift_probe', '系统管理', 'name')`);
      expect(await problems()).toEqual([]);

      await ddl(sql`alter table audit_drift_probe add column note text`);
      expect(await problems()).toEqual([stale]);
      await ddl(sql`select audit_attach('audit_drift_probe', '系统管理', 'name')`);
      expect(await problems()).toEqual([]);
      const since = await lastAuditId(database);
      await runAudited(database, [sql`insert into audit_drift_probe (name) values ('p')`, sql`update audit_drift_probe set note = 'n'`], { actor: 'drift' });
      const records = await auditRecordsSince<AuditRow>(database, since, 'audit_drift_probe', 'company_name');
      expect(records.map((r) => r.details.changes ?? r.details.created)).toEqual([
        expect.objectContaining({ name: 'p', note: null }),
        [{ field: 'note', old: null, new: 'n' }],
      ]);

      // a credential-like column: the triggers' arguments and the function both disagree
      await ddl(sql`alter table audit_drift_probe add column api_token text`);
      expect((await problems()).filter((problem) => problem.includes('credential columns {api_token}'))).toHaveLength(3);
      expect(await problems()).toContain(stale);
      await ddl(sql`select audit_attach('audit_drift_probe', '系统管理', 'name')`);
      expect(await problems()).toEqual([]);

      // a retype the function does not depend on (text and varchar compare alike), one it does (an array
      // compares as JSON), and a dropped name column (the function cannot even be generated again)
      await ddl(sql`alter table audit_drift_probe alter column note type varchar(20)`);
      expect(await problems()).toEqual([]);
      await ddl(sql`alter table audit_drift_probe alter column note type text[] using array[note]`);
      expect(await problems()).toEqual([stale]);
      await ddl(sql`alter table audit_drift_probe drop column name`);
      expect(await problems()).toEqual([expect.stringMatching(/^audit_drift_probe: audit_audit_drift_probe_capture\(\) cannot be generated again \(.*has no column name/)]);
    } finally {
      await ddl(sql`drop table audit_drift_probe`);
      await ddl(sql`drop function audit_audit_drift_probe_capture()`);
    }
  });
});
