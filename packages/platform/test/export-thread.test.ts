/**
 * The export thread (platform export-thread): jobs run on a worker thread of lowered priority with
 * the caller's actor, scope and clock; the bytes come back chunk by chunk with back-pressure; errors
 * before the first byte reject, later ones break the stream; a reader that goes away stops the job;
 * close() ends the thread. The fixture jobs never touch the database, so no engine is needed.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { threadId as mainThreadId } from 'node:worker_threads';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Actor } from '../src/auth/actor.js';
import type { Database } from '../src/db/database.js';
import { AppError } from '../src/errors.js';
import { createExportThread, EXPORT_THREAD_CHANNEL, type ExportThreadStart } from '../src/export-thread/host.js';
import { createUseCaseContext } from '../src/http/context.js';
import type { FixtureJobs, ThreadReport } from './fixtures/export-thread-jobs.js';

const NICENESS = 7;
const linux = existsSync('/proc/thread-self');

const thread = createExportThread<FixtureJobs>({
  databaseUrl: 'postgres://nobody@127.0.0.1:1/never-opened',
  jobs: new URL('./fixtures/export-thread-jobs.ts', import.meta.url),
  niceness: NICENESS,
});
afterAll(() => thread.close());

const actor: Actor = { id: 7, username: 'auditor', name: '审计员', role: 'WAREHOUSE_MGR', company: 'ALPHA', grants: new Set(['system_audit']) };
const now = new Date('2025-06-01T02:03:04.005Z');
const ctx = createUseCaseContext({} as Database, actor, '/api/v1/audit/logs/export?x=1', now);

/** What a fixture job tells on its BroadcastChannel: bytes produced, and whether its stream was destroyed. */
function listen() {
  const name = `export-thread-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const channel = new BroadcastChannel(name);
  let destroyed = false;
  const news = {
    name,
    produced: 0,
    /** Waits up to 5 s for the job's stream to be destroyed. */
    async destroyed() {
      for (let waited = 0; !destroyed && waited < 5000; waited += 20) await sleep(20);
      return destroyed;
    },
    close: () => channel.close(),
  };
  channel.onmessage = (event) => {
    const message = (event as MessageEvent<{ produced: number; destroyed?: boolean }>).data;
    news.produced = Math.max(news.produced, message.produced);
    if (message.destroyed) destroyed = true;
  };
  return news;
}

describe('export thread', () => {
  it('runs a job on another thread at the lower priority, with the caller’s actor, scope, clock and URL', async () => {
    const started: Array<{ job: string; thread: ExportThreadStart }> = [];
    const listener = (message: unknown) => started.push(message as (typeof started)[number]);
    subscribe(EXPORT_THREAD_CHANNEL, listener);
    try {
      const file = await thread.run('whoAmI', ctx, { company: 'BETA' });
      expect((await buffer(file.stream)).toString()).toBe('ok');
      const report = JSON.parse(file.fileName) as ThreadReport;
      expect(report.isMainThread).toBe(false);
      expect(report.threadId).not.toBe(mainThreadId);
      expect(report).toMatchObject({ username: 'auditor', scope: { kind: 'one', company: 'ALPHA' }, now: now.toISOString(), requestUrl: '/api/v1/audit/logs/export?x=1' });
      expect(started).toEqual([{ job: 'whoAmI', thread: { threadId: report.threadId, tid: linux ? expect.any(Number) : null, niceness: linux ? NICENESS : null } }]);
      if (linux) {
        expect(report.niceness).toBe(NICENESS);
        expect(getPriority()).toBe(0); // the main thread keeps its priority
        expect(getPriority(started[0]!.thread.tid!)).toBe(NICENESS);
      }
    } finally {
      unsubscribe(EXPORT_THREAD_CHANNEL, listener);
    }
  });

  it('hands over a workbook of several MB written and deflated on the thread', async () => {
    const rows = 40_000;
    const file = await thread.run('numbered', ctx, { rows });
    const bytes = await buffer(file.stream);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet('明细')!;
    expect(sheet.rowCount).toBe(rows + 1);
    expect(sheet.getRow(2).values).toEqual([undefined, 1, '第 1 行 <&> x']);
    expect(sheet.getRow(rows + 1).getCell(1).value).toBe(rows);
    expect(sheet.getRow(rows + 1).getCell(2).value).toBe(`第 ${rows} 行 <&> ${'x'.repeat(rows % 50)}`);
  });

  it('waits while the reader does not read, and stops the job when the reader goes away', async () => {
    const news = listen();
    try {
      const file = await thread.run('endless', ctx, { channel: news.name });
      const first = await new Promise<Buffer>((resolve) => file.stream.once('data', resolve));
      expect(first.length).toBeGreaterThan(0);
      file.stream.pause();
      await sleep(500);
      const held = news.produced;
      await sleep(300);
      // the reader's buffer, the chunks in flight and the job's own buffers: a few MB, and no more while nobody reads
      expect(held).toBeGreaterThan(0);
      expect(news.produced).toBeLessThan(4 << 20);
      expect(news.produced).toBe(held);
      file.stream.destroy();
      expect(await news.destroyed()).toBe(true);
    } finally {
      news.close();
    }
  });

  it('answers an error before the first byte as the job threw it, and breaks the stream on a later one', async () => {
    const refused = await thread.run('refuses', ctx, {}).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).toBody()).toEqual({ msg: '字段 date 不合法', code: 'VALIDATION_FAILED', field: 'date' });
    expect((refused as AppError).status).toBe(400);

    const broken = await thread.run('failsLater', ctx, {});
    expect(broken.fileName).toBe('broken.bin');
    await expect(buffer(broken.stream)).rejects.toThrow('the database went away');
  });

  it('stops a job that is still planning when its signal aborts', async () => {
    const already = new AbortController();
    already.abort();
    await expect(thread.run('whoAmI', ctx, {}, already.signal)).rejects.toThrow();

    const news = listen();
    try {
      const controller = new AbortController();
      const file = thread.run('slowPlan', ctx, { ms: 300, channel: news.name }, controller.signal);
      await sleep(50);
      controller.abort();
      await expect(file).rejects.toThrow();
      expect(await news.destroyed()).toBe(true); // its stream, once planned, was dropped on the thread
    } finally {
      news.close();
    }
  });

  it('ends the thread and its running jobs on close; the next job starts a new thread', async () => {
    const own = createExportThread<FixtureJobs>({
      databaseUrl: 'postgres://nobody@127.0.0.1:1/never-opened',
      jobs: new URL('./fixtures/export-thread-jobs.ts', import.meta.url),
      niceness: NICENESS,
    });
    const threadOf = async (file: Promise<{ fileName: string; stream: Readable }>) => {
      const { fileName, stream } = await file;
      await buffer(stream);
      return (JSON.parse(fileName) as ThreadReport).threadId;
    };
    const first = await threadOf(own.run('whoAmI', ctx, {}));
    const running = await own.run('endless', ctx, { channel: `unused-${process.pid}-${Date.now()}` });
    const broken = new Promise<Error>((resolve) => running.stream.once('error', resolve));
    await own.close();
    expect((await broken).message).toMatch(/stopped/);
    const second = await threadOf(own.run('whoAmI', ctx, {}));
    expect(second).not.toBe(first);
    await own.close();
  });
});
