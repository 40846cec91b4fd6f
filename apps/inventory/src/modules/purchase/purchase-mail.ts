import { toQuantityOrZero, type UseCaseContext } from '@wms/platform';
import { holderAddresses } from '../identity/permission-holders.js';
import { sendMail, type OutgoingMail } from '../notifications/mailer.js';
import type { PurchaseRecord } from './purchase-views.js';
import { batchKeyOf } from './request-no.js';
import type { PurchaseDecision } from './purchase-status.js';

/** Who approves purchase requests and therefore gets the submission mail (contract §8). */
export const PURCHASE_APPROVER_CODE = 'inbound_purchase:operation';

const DECISION_WORDS: Record<PurchaseDecision, string> = { approve: '已通过', reject: '已驳回', close: '已关闭' };

/** One line per request: number, material, quantity, supplier, expected date, remark. Prices never go into mail. */
function itemLines(records: readonly PurchaseRecord[]): string[] {
  return records.map((record, index) => {
    const { row } = record;
    const material = record.specModel ? `${record.materialName}（${record.specModel}）` : record.materialName;
    const unit = /^\d*$/.test(record.unit) ? '' : record.unit;
    const extras = [
      record.supplierName ? `供应商：${record.supplierName}` : '',
      row.expectedDate ? `期望到货：${row.expectedDate}` : '',
      row.remark ? `备注：${row.remark}` : '',
    ].filter(Boolean);
    return `${index + 1}. ${row.requestNo}  ${material}  数量 ${toQuantityOrZero(row.quantity)}${unit}${extras.length ? `  ${extras.join('；')}` : ''}`;
  });
}

/** The mail to the company's approvers about one submission. */
export function submissionMail(records: readonly PurchaseRecord[], to: readonly string[]): OutgoingMail {
  const first = records[0]!;
  const batchKey = batchKeyOf(first.row.requestNo);
  return {
    kind: 'purchase_submitted',
    to,
    subject: `【采购审批】${first.requesterName} 提交了 ${records.length} 项采购申请（${batchKey}）`,
    body: [
      `批次：${batchKey}`,
      `申请人：${first.requesterName}`,
      `公司：${first.row.companyName}`,
      `采购日期：${first.row.purchaseDate}`,
      '',
      ...itemLines(records),
      '',
      '请在库存系统「采购申请」中审批（通过、驳回）。',
    ].join('\n'),
  };
}

/** The mail to a requester about a decision on some of their requests. */
export function decisionMail(decision: PurchaseDecision, records: readonly PurchaseRecord[], decidedBy: string, reason: string | null, to: string): OutgoingMail {
  return {
    kind: 'purchase_decided',
    to: [to],
    subject: `【采购审批结果】${records.length} 项采购申请${DECISION_WORDS[decision]}`,
    body: [
      `处理结果：${DECISION_WORDS[decision]}`,
      `处理人：${decidedBy}`,
      ...(reason ? [`原因：${reason}`] : []),
      '',
      ...itemLines(records),
    ].join('\n'),
  };
}

/**
 * After the commit of a submission, in the background (spec 6.2): one mail to the approvers of the
 * company with an address. None: logged, nothing recorded. Never throws.
 */
export async function sendSubmissionMail(ctx: UseCaseContext, company: string, records: readonly PurchaseRecord[]): Promise<void> {
  try {
    const to = await ctx.read((q) => holderAddresses(q, company, PURCHASE_APPROVER_CODE));
    if (to.length === 0) {
      console.warn(`[purchase] ${company} 没有可接收采购审批邮件的用户（需 ${PURCHASE_APPROVER_CODE} 且有邮箱）`);
      return;
    }
    await sendMail(ctx, submissionMail(records, to));
  } catch (err) {
    console.error('[purchase] 采购审批邮件失败', err);
  }
}

/**
 * After the commit of a decision: one mail per requester listing their decided requests, to the
 * requester's address today, else the one recorded at submission. Never throws.
 */
export async function sendDecisionMails(ctx: UseCaseContext, decision: PurchaseDecision, records: readonly PurchaseRecord[], reason: string | null): Promise<void> {
  const byRequester = new Map<number, PurchaseRecord[]>();
  for (const record of records) byRequester.set(record.row.requesterId, [...(byRequester.get(record.row.requesterId) ?? []), record]);
  for (const decided of byRequester.values()) {
    const address = decided[0]!.requesterUserEmail?.trim() || decided[0]!.row.requesterEmail;
    if (address) await sendMail(ctx, decisionMail(decision, decided, ctx.actor.name, reason, address));
  }
}
