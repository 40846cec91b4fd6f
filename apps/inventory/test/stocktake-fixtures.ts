import { inflateRawSync } from 'node:zlib';
import type { TestInventory, TestUser } from './helpers.js';
import { createMaterial, stockIn, type MaterialJson, type StockRowJson } from './fixtures.js';

/** Stocktake test helpers: everything through the API, throwing when the API refuses. */

export const API = '/api/v1';

export interface StocktakeCast {
  t: TestInventory;
  admin: string;
  /** WAREHOUSE_MGR of ALPHA (inventory_stocktake:operation, inbound_stock:operation). */
  mgr: TestUser;
  /** INBOUND of ALPHA. */
  counter: TestUser;
  /** OUTBOUND of ALPHA. */
  counter2: TestUser;
  /** SALES of ALPHA: no stocktake code. */
  sales: TestUser;
  /** WAREHOUSE_MGR of BETA. */
  betaMgr: TestUser;
  material: MaterialJson;
  betaMaterial: MaterialJson;
}

export async function stocktakeCast(t: TestInventory): Promise<StocktakeCast> {
  const [mgr, counter, counter2, sales, betaMgr] = [
    await t.user('WAREHOUSE_MGR', 'ALPHA', { name: '仓管甲' }),
    await t.user('INBOUND', 'ALPHA', { name: '盘点员乙' }),
    await t.user('OUTBOUND', 'ALPHA', { name: '盘点员丙' }),
    await t.user('SALES', 'ALPHA'),
    await t.user('WAREHOUSE_MGR', 'BETA'),
  ];
  const material = await createMaterial(t, mgr.token, { name: '盘点物料', spec_model: 'PD-1', unit: '个' });
  const betaMaterial = await createMaterial(t, betaMgr.token, { name: 'BETA 物料', category: 'BETA/电子' });
  return { t, admin: t.adminToken, mgr, counter, counter2, sales, betaMgr, material, betaMaterial };
}

export async function call(t: TestInventory, method: string, path: string, token: string, body?: unknown) {
  return t.request(method, `${API}${path}`, { token, ...(body !== undefined ? { body } : {}) });
}

async function ok<T>(t: TestInventory, method: string, path: string, token: string, body?: unknown): Promise<T> {
  const response = await call(t, method, path, token, body);
  if (response.statusCode >= 300) throw new Error(`${method} ${path} failed (${response.statusCode}): ${response.body}`);
  return response.json() as T;
}

export interface SessionJson {
  session_id: number;
  mode: string;
  scope_type: string;
  scope_config: { locations: string[] };
  status: string;
  superseded_count: number;
  superseded_session_id: number | null;
  [field: string]: unknown;
}

export const startSession = (t: TestInventory, token: string, body: Record<string, unknown>) =>
  ok<SessionJson>(t, 'POST', '/draft/start-new', token, { mode: 'open', scope_type: 'full', ...body });

export const scan = (t: TestInventory, token: string, sessionId: number, barcode: string, quantity: number, extra: Record<string, unknown> = {}) =>
  ok<Record<string, unknown>>(t, 'POST', '/draft/add', token, { session_id: sessionId, barcode, quantity, ...extra });

export const finish = (t: TestInventory, token: string, sessionId: number) =>
  ok<{ generated: number; counted: number; total: number; status: string }>(t, 'POST', '/stocktake/generate-missing', token, { session_id: sessionId });

export interface CountItemJson {
  stock_id: number;
  sku: string;
  uuid: string;
  warehouse_location: string;
  stock_qty: number | null;
  counted_qty: number | null;
  diff_qty: number | null;
  scanned: boolean;
  user_id: string | null;
  book_moved: boolean;
  [field: string]: unknown;
}

export interface MergedJson {
  list: CountItemJson[];
  total: number;
  total_scanned: number;
  mode: string;
  page: number;
  limit: number;
}

export const merged = (t: TestInventory, token: string, sessionId: number, query = '') =>
  ok<MergedJson>(t, 'GET', `/draft/merged-list?session_id=${sessionId}${query}`, token);

/** Rows of one fresh material at the given locations and quantities (stock_buy). */
export async function rowsAt(t: TestInventory, token: string, material: MaterialJson, rows: Array<[location: string, quantity: number]>): Promise<StockRowJson[]> {
  const created: StockRowJson[] = [];
  for (const [location, quantity] of rows) created.push(await stockIn(t, token, { base_id: material.id, warehouse_location: location, in_quantity: quantity }));
  return created;
}

/** A location unique to one test, so tests sharing an app never see each other's rows in an active scope. */
let zoneCounter = 0;
export const uniqueZone = (name = 'Z') => `${name}${++zoneCounter}-${Math.random().toString(36).slice(2, 6)}`;

/**
 * The entries of an xlsx (a zip) by name, read with node:zlib from the central directory, so a test can
 * search each sheet's raw XML.
 */
export function unzipEntries(zip: Buffer): Map<string, Buffer> {
  const entries = new Map<string, Buffer>();
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip file');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const dataStart = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const data = zip.subarray(dataStart, dataStart + compressedSize);
    entries.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Each worksheet's XML with shared-string cells replaced by their text (the writer may use either form). */
export function sheetTexts(entries: Map<string, Buffer>): string[] {
  const shared = [...(entries.get('xl/sharedStrings.xml')?.toString('utf8') ?? '').matchAll(/<si>([\s\S]*?)<\/si>/g)].map((match) =>
    match[1]!.replace(/<[^>]+>/g, ''),
  );
  return [...entries.keys()]
    .filter((name) => /^xl\/worksheets\/sheet\d+\.xml$/.test(name))
    .sort((a, b) => Number(/(\d+)\.xml$/.exec(a)![1]) - Number(/(\d+)\.xml$/.exec(b)![1]))
    .map((name) => entries.get(name)!.toString('utf8').replace(/t="s"([^>]*)><v>(\d+)<\/v>/g, (_all, rest: string, index: string) => `t="inlineStr"${rest}><is><t>${shared[Number(index)]}</t></is>`));
}
