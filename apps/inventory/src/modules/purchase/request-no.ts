import { beijingIso } from '@wms/platform';
import { sql } from 'drizzle-orm';
import type { Queryable, Tx } from '@wms/platform';
import { purchaseRequests } from '../../db/schema/index.js';

/**
 * Purchase request numbers (spec 2.9, contract §4), Beijing time of the submission:
 *   PUR-<yyyymmdd>-<hhmm>-<batch_seq>-<item_seq>   (batch_seq per day, item_seq per submission, 4+ digits)
 *   PUR-<yyyymmdd>-<hhmm>-<serial>                 (older shape, still read)
 * The batch key is the number without its last `-<…>` segment, for both shapes; it is never stored.
 */
const NEW_SHAPE = /^PUR-(\d{8})-(\d{4})-(\d{4,})-(\d{4,})$/;
const OLD_SHAPE = /^PUR-(\d{8})-(\d{4})-(\d{4,})$/;
const BATCH_KEY = /^PUR-\d{8}-\d{4}(-\d{4,})?$/;

export interface ParsedRequestNo {
  /** yyyymmdd */
  day: string;
  /** hhmm */
  time: string;
  /** null for the older shape */
  batchSeq: number | null;
  /** item_seq (new shape) or serial (older shape) */
  itemSeq: number;
  batchKey: string;
}

export function parseRequestNo(requestNo: string): ParsedRequestNo | null {
  const current = NEW_SHAPE.exec(requestNo);
  if (current) {
    const [, day, time, batch, item] = current;
    return { day: day!, time: time!, batchSeq: Number(batch), itemSeq: Number(item), batchKey: batchKeyOf(requestNo) };
  }
  const older = OLD_SHAPE.exec(requestNo);
  if (older) {
    const [, day, time, serial] = older;
    return { day: day!, time: time!, batchSeq: null, itemSeq: Number(serial), batchKey: batchKeyOf(requestNo) };
  }
  return null;
}

/** The request_no without its last segment: what every request of one submission shares. */
export function batchKeyOf(requestNo: string): string {
  const dash = requestNo.lastIndexOf('-');
  return dash > 0 ? requestNo.slice(0, dash) : requestNo;
}

/** A batch key of either shape: PUR-<yyyymmdd>-<hhmm>-<batch_seq> or PUR-<yyyymmdd>-<hhmm>. */
export const isBatchKey = (key: string) => BATCH_KEY.test(key);

/** The number's batch key in SQL (the same rule as batchKeyOf). */
export const batchKeySql = sql<string>`regexp_replace(${purchaseRequests.requestNo}, '-[^-]*$', '')`;

/** Beijing date and time of an instant as the number writes them: yyyymmdd, hhmm. */
export function beijingStamp(at: Date): { day: string; time: string } {
  const iso = beijingIso(at);
  return { day: iso.slice(0, 10).replaceAll('-', ''), time: iso.slice(11, 16).replace(':', '') };
}

const pad = (n: number) => String(n).padStart(4, '0');

export function requestNoOf(stamp: { day: string; time: string }, batchSeq: number, itemSeq: number): string {
  return `PUR-${stamp.day}-${stamp.time}-${pad(batchSeq)}-${pad(itemSeq)}`;
}

/** An arbitrary constant naming the purchase-number lock (with the day as the second key). */
const BATCH_LOCK_CLASS = 0x50555230;

/**
 * The next batch_seq of the Beijing day, reserved for the calling transaction: a transaction-level
 * advisory lock per day serialises submissions of that day until commit, so the max read after taking
 * it sees every committed number and two submissions never share a batch_seq. A rolled-back submission
 * leaves no gap.
 */
export async function takeBatchSeq(tx: Tx, day: string): Promise<number> {
  await tx.execute(sql`select pg_advisory_xact_lock(${BATCH_LOCK_CLASS}::int, ${Number(day)}::int)`);
  return (await lastBatchSeq(tx, day)) + 1;
}

/** The highest batch_seq of the day among stored numbers of the current shape (0 when none). */
export async function lastBatchSeq(q: Queryable, day: string): Promise<number> {
  const [row] = await q
    .select({
      last: sql<number>`coalesce(max(substring(${purchaseRequests.requestNo} from '^PUR-[0-9]{8}-[0-9]{4}-([0-9]{4,})-[0-9]{4,}$')::int), 0)::int`,
    })
    .from(purchaseRequests)
    .where(sql`${purchaseRequests.requestNo} like ${`PUR-${day}-%`}`);
  return Number(row?.last ?? 0);
}

/** The requests of one batch: the prefix finds them by index, the exact key drops longer keys sharing it. */
export const inBatch = (batchKey: string) =>
  sql`${purchaseRequests.requestNo} like ${`${batchKey}-%`} and ${batchKeySql} = ${batchKey}`;
