import { DEFECTIVE_STATUSES, OUTBOUND_TYPES, REASON_CATEGORIES, STOCK_KINDS, STOCK_STATUSES } from '../../db/schema/index.js';
import { STATUS_LABELS as BORROW_STATUS } from '../borrow/request-status.js';
import { LINE_STATUS_LABELS } from '../borrow/line-access.js';
import { STATUS_LABELS as OUTBOUND_STATUS } from '../outbound/request-status.js';
import { purchaseStatusLabel } from '../purchase/purchase-status.js';
import { STATUS_LABELS as SCRAP_STATUS } from '../scrap/request-status.js';
import { STOCK_KIND_LABELS } from '../stock/schemas.js';

const option = (value: string | number, label: string) => ({ value, label });
const sameLabel = (values: readonly string[]) => values.map((value) => option(value, value));
const fromRecord = (labels: Record<number, string>) => Object.entries(labels).map(([value, label]) => option(Number(value), label));

/**
 * GET /common/labels: the dictionary a client needs to show and pick the enumerated values of every
 * flow, each as `[{ value, label }]` in display order. Status 3 means something else in each request
 * flow, so request statuses are listed per flow. Built from the flows' own label tables.
 */
export function dictionaryLabels() {
  return {
    stock_status: sameLabel(STOCK_STATUSES),
    source_table: STOCK_KINDS.map((kind) => option(kind, STOCK_KIND_LABELS[kind])),
    outbound_type: OUTBOUND_TYPES.map((type) => option(type, { SALES: '销售出库', USE: '领用出库', PRODUCTION: '生产出库' }[type])),
    biz_type: [option('outbound', '出库'), option('borrow', '借用'), option('scrap', '报废'), option('purchase', '采购'), option('stocktake', '盘点')],
    request_status: {
      outbound: fromRecord(OUTBOUND_STATUS),
      borrow: fromRecord(BORROW_STATUS),
      scrap: fromRecord(SCRAP_STATUS),
      purchase: [0, 1, 2, 3, 4].map((status) => option(status, purchaseStatusLabel(status))),
    },
    borrow_line_status: Object.entries(LINE_STATUS_LABELS).map(([value, label]) => option(value, label)),
    transfer_status: [option('PENDING', '待接收'), option('ACCEPTED', '已接收'), option('REJECTED', '已拒绝')],
    return_type: [option('good', '良品退回'), option('defective', '不良品退回')],
    defective_status: sameLabel(DEFECTIVE_STATUSES),
    scrap_mode: [option('scan', '扫码执行'), option('auto', '按审批数量自动执行')],
    scrap_reason_category: sameLabel(REASON_CATEGORIES),
    stocktake_mode: [option('blind', '盲盘'), option('open', '明盘')],
    stocktake_scope_type: [option('full', '全盘'), option('active', '动态盘点（指定库位）')],
  };
}
