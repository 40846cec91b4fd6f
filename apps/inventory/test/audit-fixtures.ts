import ExcelJS from 'exceljs';
import { unzipSync, strFromU8 } from 'fflate';
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { TestInventory } from './helpers.js';

export const auditApi = (path: string) => `/api/v1/audit${path}`;

export interface AuditLogJson {
  id: number;
  module: string;
  module_label: string;
  action: string;
  action_label: string | null;
  table_name: string;
  target_id: string | null;
  target_name: string | null;
  target_display: string | null;
  summary: string;
  username: string;
  user_display: string | null;
  company_name: string | null;
  source: string | null;
  time: string;
  details: Record<string, unknown> & { changes?: Array<{ field: string; old: unknown; new: unknown }> };
}

export interface AuditPageJson {
  items: AuditLogJson[];
  total: number;
  page: number;
  limit: number;
}

/** GET /audit/logs, expecting 200. */
export async function auditLogs(t: TestInventory, token: string, query = ''): Promise<AuditPageJson> {
  const response = await t.request('GET', auditApi(`/logs?limit=200${query}`), { token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as AuditPageJson;
}

export interface StoredAudit {
  module: string;
  action: string;
  table_name?: string;
  target_id?: string | null;
  target_name?: string | null;
  username?: string;
  company_name?: string | null;
  request_url?: string | null;
  /** `{}` when absent */
  details?: unknown;
  /** ISO instant; now when absent */
  created_at?: string;
}

/**
 * Writes an audit record as older versions of the service (or a module not built yet) did: the
 * triggers write only their own shapes, so historic aliases, payloads and English modules need this.
 */
export async function storeAudit(t: TestInventory, record: StoredAudit): Promise<number> {
  const rows = await t.service.deps.database.transaction({ actor: 'test-fixture' }, (tx) =>
    tx.execute(sql`insert into audit_logs (module, action, table_name, target_id, target_name, username, company_name, request_url, details, created_at)
      values (${record.module}, ${record.action}, ${record.table_name ?? 'legacy_table'}, ${record.target_id ?? null}, ${record.target_name ?? null},
              ${record.username ?? 'system'}, ${record.company_name ?? null}, ${record.request_url ?? null}, ${JSON.stringify(record.details ?? {})}::jsonb,
              ${record.created_at ?? new Date().toISOString()}::timestamptz)
      returning id`),
  );
  return Number((rows as unknown as { rows: Array<{ id: number | string }> }).rows[0]!.id);
}

export interface Workbook {
  sheets: Record<string, unknown[][]>;
  /** Every XML part of the file as text, to search the raw bytes. */
  xml: string;
  fileName: string;
}

/** An xlsx answer: its sheets as rows of cell values (header first), its raw XML and the file name. */
export async function readWorkbook(response: LightMyRequestResponse): Promise<Workbook> {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toContain('spreadsheetml');
  const bytes = response.rawPayload;
  const parts = unzipSync(new Uint8Array(bytes));
  const xml = Object.values(parts).map((part) => strFromU8(part)).join('\n');
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  const sheets: Record<string, unknown[][]> = {};
  workbook.eachSheet((sheet) => {
    const rows: unknown[][] = [];
    sheet.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
    sheets[sheet.name] = rows;
  });
  const disposition = String(response.headers['content-disposition']);
  const fileName = decodeURIComponent(/filename\*=UTF-8''(.+)$/.exec(disposition)?.[1] ?? '');
  return { sheets, xml, fileName };
}

/** The 汇总 sheet as a map of 项目 → 内容. */
export const summaryOfSheet = (rows: unknown[][]) => new Map(rows.slice(1).map((row) => [String(row[0]), row[1]]));
