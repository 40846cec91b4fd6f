import type { Tx } from '@wms/platform';
import { SCRAP_STATUS, scrapRequests, type ReasonCategory, type ScrapLine, type ScrapMode, type ScrapRequestRow } from '../../db/schema/index.js';
import { allowedApproversFor } from './allowed-approvers.js';

export interface NewScrapRequest {
  applicantId: number;
  companyName: string;
  mode: ScrapMode;
  reason: string;
  reasonCategory: ReasonCategory;
  lines: ScrapLine[];
  approverIds: readonly number[] | undefined;
  remark?: string | null;
  trackRef?: string | null;
}

/**
 * Writes a scrap request in status 0 inside the caller's transaction, with its allowed_approvers
 * resolved now (contract §4). Every submission path ends here: stock rows, borrow lines, the ledger and
 * production scrap. The caller has checked (and, for stock rows, reserved) the lines.
 */
export async function createScrapRequest(tx: Tx, now: Date, input: NewScrapRequest): Promise<ScrapRequestRow> {
  const allowedApprovers = await allowedApproversFor(tx, input.companyName, input.approverIds);
  const [created] = await tx
    .insert(scrapRequests)
    .values({
      applicantId: input.applicantId,
      companyName: input.companyName,
      status: SCRAP_STATUS.pending,
      itemsJson: input.lines,
      mode: input.mode,
      reason: input.reason.trim(),
      reasonCategory: input.reasonCategory,
      allowedApprovers,
      trackRef: input.trackRef ?? null,
      remark: input.remark?.trim() || null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return created!;
}
