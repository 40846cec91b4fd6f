import { randomUUID } from 'node:crypto';
import type { Tx } from '@wms/platform';
import type { InventoryNoticeKind } from '../../db/schema/index.js';
import { normalizeDepartment } from '../identity/department.js';
import { operatorLabel } from './operator-label.js';
import { findProcessedEvent, RedeliveredEvent, recordProcessedEvent } from './processed-events.js';
import type { ReceiverContext } from './receiver-context.js';
import type { ReceiverAnswer } from './schemas.js';

/** What every inventory notification carries besides its own fields. */
export interface NoticeEnvelope {
  event_id?: string;
  company_name?: string | null;
  operator?: string | null;
}

/** The change one message made: whether a product moved, and what the message was about (for the audit). */
export interface AppliedNotice {
  matched: boolean;
  reference: string;
}

const IGNORED: ReceiverAnswer = { ok: true, matched: false, reason: 'ignored_company' };

/**
 * Spec 4.1 rule 2: a strict allow-list. Only a company_name equal to ORG_DEPARTMENT (trimmed and
 * upper-cased) is processed; empty, missing and any other value is ignored. (The sibling instance accepts
 * empty values instead; the two rules must stay different.)
 */
export function isOwnDepartment(companyName: string | null | undefined, department: string): boolean {
  const sent = normalizeDepartment(companyName);
  return sent !== '' && sent === department;
}

/**
 * The receiver flow shared by stock-in and outbound (spec 4.1, contract §5, §8), after the key check:
 *  1. another department → 200 ignored_company, nothing written, no audit actor;
 *  2. the operator's label becomes the audit actor of one transaction that
 *  3. answers a redelivered event_id as a duplicate without changing anything, else
 *  4. applies the message and records its event_id (whose audit entry exists even when nothing matched).
 * A message without event_id is processed under a generated id: it cannot be recognised when redelivered.
 */
export async function receiveNotice(
  ctx: ReceiverContext,
  kind: InventoryNoticeKind,
  notice: NoticeEnvelope,
  apply: (tx: Tx) => Promise<AppliedNotice>,
): Promise<ReceiverAnswer> {
  if (!isOwnDepartment(notice.company_name, ctx.department)) return IGNORED;
  const label = await ctx.read((q) => operatorLabel(q, notice.operator, ctx.department));
  const eventId = notice.event_id?.trim() || `local-${randomUUID()}`;
  try {
    return await ctx.transactionAs(label, async (tx) => {
      const earlier = await findProcessedEvent(tx, eventId);
      if (earlier) return duplicateOf(earlier.matched);
      const applied = await apply(tx);
      await recordProcessedEvent(tx, {
        eventId,
        kind,
        reference: applied.reference,
        operator: notice.operator?.trim() || null,
        matched: applied.matched,
        receivedAt: ctx.now,
      });
      return { ok: true, matched: applied.matched };
    });
  } catch (err) {
    if (!(err instanceof RedeliveredEvent)) throw err;
    const earlier = await ctx.read((q) => findProcessedEvent(q, eventId));
    return duplicateOf(earlier?.matched ?? false);
  }
}

/** A redelivery answers what the first delivery did, and says it changed nothing now. */
const duplicateOf = (matched: boolean): ReceiverAnswer => ({ ok: true, matched, duplicate: true });
