import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditContext, Database } from '@wms/platform';
import { attachGenericCaptureBeside, capturedRecords, keepIdentityInGenericUpdates, lastAuditId, stepwiseRunner, sweepAuditedTables } from '@wms/platform/testing';
import { INVENTORY_MIGRATIONS } from '../src/app.js';
import { seedDemoIfEmpty } from '../src/seed/demo.js';
import { buildTestInventory, type TestInventory } from './helpers.js';

/**
 * The generated per-table capture functions (migration 0028) write exactly the records of 0022's generic
 * audit_capture_statement(). The generic function is made again from 0022's own text (0028 drops it from
 * the schema, so nothing can attach it by mistake; the file is what shipped, so this copy cannot drift)
 * and attached beside the generated one on every audited table, writing into audit_logs_generic: one run
 * of statements gives both captures of the very same transition tables, then every column of every
 * record (details as jsonb text, so 1.5 and 1.50 differ) and their order are compared.
 */

const ALPHA: AuditContext = { actor: 'eq_alpha', company: 'ALPHA', requestUrl: '/api/v1/equivalence?x=1' };
const NO_SESSION: AuditContext = { actor: '' };
const SWEEP: AuditContext = { actor: 'eq_sweep', company: 'BETA', requestUrl: '/api/v1/sweep' };

describe('audit capture per table', () => {
  let t: TestInventory;
  let database: Database;
  let since = 0;
  const { run, failedSteps } = stepwiseRunner(() => database);

  beforeAll(async () => {
    t = await buildTestInventory();
    database = t.service.deps.database;
    await seedDemoIfEmpty(database);
    const generic = readFileSync(join(INVENTORY_MIGRATIONS, '0022_audit_capture_statement.sql'), 'utf8');
    expect(await attachGenericCaptureBeside(database, generic)).toBeGreaterThan(60);
    // rows the schema refuses but the company rule handles: a material, and a purchase request, without a company
    await database.transaction({ actor: 'setup' }, async (tx) => {
      await tx.execute(sql`alter table materials alter column company_name drop not null`);
      await tx.execute(sql`alter table purchase_requests alter column company_name drop not null`);
    });
    since = await lastAuditId(database);
  });
  afterAll(() => t.close());

  it('writes the same records as the generic capture, for every kind of statement', async () => {
    const eq = sql`sku like 'EQ-%'`;
    await run(ALPHA, [
      // multi-row INSERT with materials of both companies and one without a company
      sql`insert into materials (name, category, company_name, red_threshold) values ('等价无主', 'X/测试', null, 20), ('等价甲', 'ALPHA/测试', 'ALPHA', 5)`,
      sql`insert into stock_rows (source_table, sku, base_id, stock_quantity, available_quantity, in_quantity, unit_cost, in_date)
          select 'stock_buy', 'EQ-' || m.id, m.id, 10, 10, 10, 1.00, date '2026-11-01'
            from (select id, row_number() over (partition by company_name order by id) as k from materials) m where m.k <= 2`,
      // 5-row UPDATE, the same rows again in the same transaction, one column to NULL and back
      sql`update stock_rows set available_quantity = available_quantity - 1 where ${eq}`,
      sql`update stock_rows set available_quantity = available_quantity - 1, remark = 'twice' where ${eq}`,
      sql`update stock_rows set remark = null, warehouse_location = 'Z-9' where ${eq}`,
      // no-op UPDATE, updated_at alone, a numeric written with another scale (equal: no record)
      sql`update stock_rows set remark = remark, available_quantity = available_quantity where ${eq}`,
      sql`update stock_rows set updated_at = updated_at + interval '1 second' where ${eq}`,
      sql`update stock_rows set unit_cost = 1.0 where ${eq}`,
      sql`update materials set red_threshold = red_threshold * 1.000 where red_threshold is not null`,
      sql`update materials set red_threshold = red_threshold * 1.000, remark = 'scaled' where name like '等价%'`,
      // credentials: created, changed alone, changed with a name, updated_at alone; a user without a company
      sql`insert into users (username, password_hash, name, role, company_name) values
            ('eq_a', 'hash-a', 'A', 'OUTBOUND', 'BETA'), ('eq_b', 'hash-b', 'B', 'OUTBOUND', null)`,
      sql`update users set password_hash = password_hash || '2' where username like 'eq\\_%'`,
      sql`update users set password_hash = password_hash || '3', name = name || '+' where username = 'eq_a'`,
      sql`update users set updated_at = updated_at + interval '1 second' where username like 'eq\\_%'`,
      sql`update users set active = false, email = 'eq@example.com' where username = 'eq_b'`,
      // an UPDATE that changes the primary key (every change to role_permissions does)
      sql`insert into role_permissions (role_code, permission_code) values ('EQ_ROLE', 'eq:a'), ('EQ_ROLE', 'eq:b'), ('EQ_ROLE', 'eq:c')`,
      sql`update role_permissions set permission_code = permission_code || ':v2' where role_code = 'EQ_ROLE'`,
      sql`update role_permissions set role_code = 'EQ_ROLE2' where role_code = 'EQ_ROLE' and permission_code <> 'eq:b:v2'`,
      // jsonb: equal under another spelling (no record), then changed; a row with its own company
      sql`insert into outbound_requests (applicant_id, company_name, outbound_type, items_json)
          select id, 'BETA', 'SALES', '[{"stock_id": 1, "quantity": 2}]' from users where username = 'eq_a'`,
      sql`update outbound_requests set items_json = '[{"quantity":2,"stock_id":1}]'`,
      sql`update outbound_requests set items_json = '[{"stock_id": 1, "quantity": 3.50}]', status = 1, approved_at = now()`,
      sql`update outbound_requests set status = 4, close_reason = 'closed', closed_at = now(), remark = '关闭'`,
      // integer[]: the same values under other bounds (equal as JSON: no record), then other values
      sql`insert into scrap_requests (applicant_id, company_name, items_json, mode, reason, reason_category, allowed_approvers)
          select id, 'ALPHA', '{"rows": [1]}', 'scan', '损坏', '库存报废', '{1,2}' from users where username = 'eq_a'`,
      sql`update scrap_requests set allowed_approvers = '[0:1]={1,2}'`,
      sql`update scrap_requests set allowed_approvers = '{2,3,null}', items_json = '{"rows": [1, 2]}'`,
      // cube and bigint; a table without updated_at
      sql`insert into material_images (base_id, company_name, file_name, storage_path, mime, byte_size, width, height, phash, color_embedding)
          select id, 'ALPHA', 'a.png', '/x/a.png', 'image/png', 10, 2, 2, 9007199254740993, cube(array[0.5, 0.25, 1]) from materials where name = '等价甲'`,
      sql`update material_images set color_embedding = cube(array[0.5, 0.25, 1.0])`,
      sql`update material_images set color_embedding = cube(array[0.75, 0.25, 1]), file_name = 'b.png'`,
      // a table keyed by base_id with no company column: the material's company, else the session's
      sql`insert into material_stock_alerts (base_id, level) select id, 'red' from materials where name like '等价%' or id = (select min(id) from materials)`,
      sql`update material_stock_alerts set level = 'yellow', alerted_at = now()`,
      // company_name null on a table that has both: the material's company
      sql`insert into purchase_requests (request_no, base_id, company_name, quantity, unit_price, tax_rate, purchase_date, requester_id)
          select 'EQ-PR-' || m.id, m.id, case when m.name = '等价甲' then null else 'BETA' end, 5, 2.5, 13, date '2026-11-02', u.id
            from materials m, users u where m.name like '等价%' and u.username = 'eq_a'`,
      sql`update purchase_requests set expected_date = date '2026-12-01', tax_rate = 13.00, total_price = 12.5 where request_no like 'EQ-PR-%'`,
      sql`insert into suppliers (company_name, name, lead_time_days) values ('ALPHA', '等价供应商', 7)`,
      sql`update suppliers set lead_time_days = null, contact = '张三'`,
    ]);
    // no actor, company or URL in the session: system, the row's or material's company, else none
    await run(NO_SESSION, [
      sql`update stock_rows set available_quantity = available_quantity + 1 where ${eq}`,
      sql`update users set name = name || '!' where username like 'eq\\_%'`,
      sql`update material_stock_alerts set level = null`,
      sql`delete from role_permissions where role_code like 'EQ\\_ROLE%'`,
    ]);

    const swept = await sweepAuditedTables(database, (statements) => run(SWEEP, statements));
    expect(swept).toBeGreaterThan(20);

    // the generated functions keep only an update's identity as its snapshot (migration audit_update_snapshot_identity)
    await keepIdentityInGenericUpdates(database, since);
    const generated = await capturedRecords(database, 'audit_logs', since, 'company_name');
    const generic = await capturedRecords(database, 'audit_logs_generic', since, 'company_name');
    expect(generated.length).toBeGreaterThan(200);
    expect(generated).toEqual(generic);
    expect(failedSteps()).toBeGreaterThan(0);

    // the cases above happened (so the comparison covered them)
    const details = (table: string, action: string) =>
      generated.filter((r) => r.table_name === table && r.action === action && r.username !== 'eq_sweep');
    const pseudo = '[{"new": null, "old": null, "field": "credentials"}]';
    expect(details('users', 'UPDATE').filter((r) => r.details!.includes(`"changes": ${pseudo}`)).length).toBeGreaterThanOrEqual(4);
    expect(details('stock_rows', 'UPDATE').filter((r) => r.details!.includes(`"changes": ${pseudo}`)).length).toBeGreaterThanOrEqual(5);
    expect(details('role_permissions', 'UPDATE').map((r) => r.target_name)).toEqual(expect.arrayContaining(['eq:a:v2', 'eq:b:v2', 'eq:c:v2']));
    expect(details('role_permissions', 'UPDATE').filter((r) => r.target_id === 'EQ_ROLE2')).toHaveLength(2);
    expect(details('scrap_requests', 'UPDATE')).toHaveLength(1);
    expect(details('material_images', 'UPDATE')).toHaveLength(1);
    expect(details('outbound_requests', 'UPDATE')).toHaveLength(2);
    expect(new Set(details('stock_rows', 'UPDATE').map((r) => r.owner))).toEqual(new Set(['ALPHA', 'BETA', null]));
    expect(generated.some((r) => r.table_name === 'stock_rows' && r.username === 'eq_alpha' && r.owner === 'ALPHA' && r.target_name!.startsWith('EQ-'))).toBe(true);
    expect(generated.some((r) => r.username === 'system' && r.request_url === null)).toBe(true);
    expect(new Set(details('material_stock_alerts', 'UPDATE').map((r) => r.owner))).toEqual(new Set(['ALPHA', null]));
    expect(generated.filter((r) => r.action === 'DELETE').length).toBeGreaterThan(20);
  });
});
