/**
 * PostgreSQL only: the audit export and the daily report are built on the export thread (a worker
 * thread of lowered priority with its own database connection), and the file is the very file the
 * in-process path (PGlite's) writes for the same data, caller and clock: same company isolation, same
 * cut, no credential. PGlite keeps the in-process path (audit-logs and audit-export-scale tests).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { sql } from 'drizzle-orm';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUseCaseContext, EXPORT_THREAD_APPLICATION_NAME, EXPORT_THREAD_CHANNEL, type ExportThreadStart, type UseCaseContext } from '@wms/platform';
import { AUDIT_EXPORT_NICE } from '../src/config.js';
import { dailyAuditReport } from '../src/modules/audit/daily-report.js';
import { exportAuditLogs } from '../src/modules/audit/export.js';
import { createActorLoader } from '../src/modules/identity/actor-loader.js';
import { auditApi, readWorkbook } from './audit-fixtures.js';
import { queryRows } from './fixtures.js';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';

const CAP = 500;
const SEEDED = 900;
/** Every third record is BETA's. */
const ALPHA_RECORDS = SEEDED - SEEDED / 3;
const linux = existsSync('/proc/thread-self');

let t: TestInventory;
let mgr: TestUser;

describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL: audit files built on the export thread', () => {
  beforeAll(async () => {
    t = await buildTestInventory({ config: { auditExportCap: CAP } });
    mgr = await t.user('WAREHOUSE_MGR', 'ALPHA', { name: '审计员' });
    await t.service.deps.database.transaction({ actor: 'test-fixture' }, (tx) =>
      tx.execute(sql`insert into audit_logs (module, action, table_name, target_id, target_name, username, company_name, request_url, details, created_at)
        select (array['库存管理', '出库管理', 'BOM管理'])[g % 3 + 1],
               (array['CREATE', 'UPDATE', 'DELETE', '修改'])[g % 4 + 1],
               'thread_table', g::text,
               case when g % 3 = 0 then 'BETA-THREAD-' else 'THREAD-' end || g, ${mgr.username},
               case when g % 3 = 0 then 'BETA' else 'ALPHA' end,
               '/api/v1/thread/' || g || '?page=1',
               case when g % 4 in (1, 3)
                 then jsonb_build_object('changes', jsonb_build_array(
                        jsonb_build_object('field', 'remark', 'old', '旧' || g, 'new', '<新> & ' || g),
                        jsonb_build_object('field', 'password', 'old', 'pw-' || g, 'new', 'pw2-' || g)))
                 else jsonb_build_object('created', jsonb_build_object('in_quantity', g || '.0', 'warehouse_location', 'L/' || g, 'api_token', 'tok-' || g))
               end,
               timestamptz '2025-01-01 00:00:00+08' + g * interval '1 second'
          from generate_series(1, ${SEEDED}::int) g`),
    );
  });
  afterAll(() => t?.close());

  /** The parts of an xlsx file by name, as text. */
  const partsOf = (bytes: Uint8Array) => Object.fromEntries(Object.entries(unzipSync(bytes)).map(([name, part]) => [name, strFromU8(part)]));

  /** Runs fn with the clock stopped, so the request's context and the one built here read the same time. */
  async function atOneInstant<T>(fn: (now: Date) => Promise<T>): Promise<T> {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      return await fn(new Date());
    } finally {
      vi.useRealTimers();
    }
  }

  /** The manager's context as the route builds it, for the in-process path. */
  async function inProcessContext(url: string, now: Date): Promise<UseCaseContext> {
    const loaded = await createActorLoader(t.service.deps.database).load(mgr.id);
    return createUseCaseContext(t.service.deps.database, loaded!.actor, url, now);
  }

  /** What the export thread published while fn ran. */
  async function threadJobsDuring<T>(fn: () => Promise<T>): Promise<{ result: T; jobs: Array<{ job: string; thread: ExportThreadStart }> }> {
    const jobs: Array<{ job: string; thread: ExportThreadStart }> = [];
    const listener = (message: unknown) => jobs.push(message as (typeof jobs)[number]);
    subscribe(EXPORT_THREAD_CHANNEL, listener);
    try {
      return { result: await fn(), jobs };
    } finally {
      unsubscribe(EXPORT_THREAD_CHANNEL, listener);
    }
  }

  function expectExportThread(jobs: Array<{ job: string; thread: ExportThreadStart }>, job: string): void {
    expect(jobs.map((entry) => entry.job)).toEqual([job]);
    const { thread } = jobs[0]!;
    expect(thread.threadId).toBeGreaterThan(0); // a worker thread; the main thread's id is 0
    if (linux) {
      expect(thread.niceness).toBe(AUDIT_EXPORT_NICE);
      expect(getPriority(thread.tid!)).toBe(AUDIT_EXPORT_NICE);
      expect(getPriority()).toBe(0); // the event loop's thread keeps the normal priority
    }
  }

  it('exports on the thread over its own connection: the in-process file, one company, cut at the cap, no credential', async () => {
    const path = `/logs/export?${new URLSearchParams({ target_keyword: 'thread-' })}`;
    const { result, jobs } = await threadJobsDuring(() =>
      atOneInstant(async (now) => {
        const response = await t.request('GET', auditApi(path), { token: mgr.token });
        const local = await exportAuditLogs(await inProcessContext(auditApi(path), now), { target_keyword: 'thread-' }, CAP);
        return { response, local: { fileName: local.fileName, bytes: await buffer(local.stream as Readable) } };
      }),
    );
    expectExportThread(jobs, 'auditLogs');

    const file = await readWorkbook(result.response);
    expect(file.fileName).toBe(`审计日志（已截断：共${ALPHA_RECORDS}条，仅导出前${CAP}条）.xlsx`);
    expect(file.fileName).toBe(result.local.fileName);
    const threadParts = partsOf(result.response.rawPayload);
    expect(Object.keys(threadParts).sort()).toEqual(Object.keys(partsOf(result.local.bytes)).sort());
    expect(threadParts).toEqual(partsOf(result.local.bytes));

    const rows = file.sheets['审计日志']!.slice(1);
    expect(rows).toHaveLength(CAP);
    expect(rows.every((cells) => cells[10] === 'ALPHA' && String(cells[5]).startsWith('THREAD-'))).toBe(true);
    expect(file.xml).not.toMatch(/BETA-THREAD|pw-\d|pw2-\d|tok-\d/);
    expect(file.sheets['变更明细']!.slice(1).map((cells) => cells[6])).toContain('remark');

    const connections = await queryRows<{ n: number }>(
      t,
      sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = ${EXPORT_THREAD_APPLICATION_NAME}`,
    );
    expect(connections[0]!.n).toBe(1);
  });

  it('builds the daily report there too, the same file as in process', async () => {
    const path = '/daily-report?date=2025-01-01';
    const { result, jobs } = await threadJobsDuring(() =>
      atOneInstant(async (now) => {
        const response = await t.request('GET', auditApi(path), { token: mgr.token });
        const local = await dailyAuditReport(await inProcessContext(auditApi(path), now), { date: '2025-01-01' }, CAP);
        return { response, local: { fileName: local.fileName, bytes: await buffer(local.stream as Readable) } };
      }),
    );
    expectExportThread(jobs, 'dailyReport');
    const file = await readWorkbook(result.response);
    expect(file.fileName).toBe(result.local.fileName);
    expect(file.sheets['明细']!).toHaveLength(CAP + 1);
    expect(partsOf(result.response.rawPayload)).toEqual(partsOf(result.local.bytes));
    expect(file.xml).not.toMatch(/BETA-THREAD|pw-\d|tok-\d/);
  });

  it('answers an error of the thread before the first byte as an ordinary error', async () => {
    const { result, jobs } = await threadJobsDuring(() => t.request('GET', auditApi('/daily-report?date=2024-02-30'), { token: mgr.token }));
    expect(result.statusCode).toBe(400);
    expect(result.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'date' });
    expect(jobs).toEqual([]); // refused while planning: no file was started
  });
});
