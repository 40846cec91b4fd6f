import { STATUS_LABELS as BORROW_STATUS_LABELS } from '../borrow/request-status.js';
import { STATUS_LABELS as OUTBOUND_STATUS_LABELS } from '../outbound/request-status.js';
import { PURCHASE_STATUS_LABELS } from '../purchase/purchase-status.js';
import { STATUS_LABELS as SCRAP_STATUS_LABELS } from '../scrap/request-status.js';
import { STOCK_KIND_LABELS } from '../stock/schemas.js';
import { INBOUND_GROUP, INBOUND_GROUP_MEMBERS, MODULE_DISPLAY } from './modules.js';

/**
 * The static labels of the audit views (spec 2.13, GET /audit/labels): field names, enum values by
 * (module, field) then by field, id references per module, snapshot views and hidden fields. The
 * summaries and exports read the same tables, so the screen and the file say the same thing.
 */

export const FIELD_LABELS: Readonly<Record<string, string>> = {
  name: '名称', username: '用户名', role: '角色', role_code: '角色', permission_code: '权限码', email: '邮箱', active: '启用',
  company_name: '公司', category: '分类', spec_model: '规格型号', unit: '单位', remark: '备注',
  purchase_link: '采购链接', reference_price: '参考价', product_image_remark: '产品图片备注', manual_link_remark: '说明书备注',
  red_threshold: '红色预警线', yellow_threshold: '黄色预警线', target_threshold: '目标库存', level: '预警级别', alerted_at: '预警时间',
  source_table: '库存类型', sku: '条码', base_id: '物料', material_name: '物料名称', stock_id: '库存行',
  in_quantity: '入库数量', stock_quantity: '库存数量', available_quantity: '可用数量', initial_quantity: '初始数量',
  status: '状态', warehouse_location: '库位', location: '库位', from_location: '原库位', to_location: '新库位',
  batch_number: '批次号', serial_number: '序列号', in_date: '入库日期', production_date: '生产日期', unit_cost: '单位成本',
  request_id: '申请单', request_no: '申请单号', biz_type: '业务类型', applicant_id: '申请人', approver_id: '审批人',
  closer_id: '关闭人', items_json: '明细', items: '明细', lines: '明细', reject_reason: '驳回原因', close_reason: '关闭原因', approved_at: '审批时间',
  rejected_at: '驳回时间', closed_at: '关闭时间', outbound_type: '出库类型', outbound_no: '出库单号', outbound_id: '出库记录',
  outbound_time: '出库时间', consumer_name: '领用人', operator: '经办人', operator_id: '经办人', operator_name: '经办人',
  quantity: '数量', returned_quantity: '已归还数量', remaining_qty: '剩余数量', return_type: '退货类型', return_id: '退货记录',
  reason: '原因', reason_category: '原因类别', borrow_no: '借用单号', borrow_id: '借用记录', borrower_id: '借用人',
  borrower_name: '借用人', current_holder_id: '当前持有人', expected_return_date: '预计归还日期', borrowed_at: '借出时间',
  returned_at: '归还时间', dispatched_at: '发放时间', dispatch_operator: '发放人', dispatch_operator_id: '发放人',
  from_user_id: '转出人', to_user_id: '接收人', decided_at: '处理时间', decision_reason: '处理原因', reject_seen_at: '驳回已读时间',
  split_from_id: '拆分自', split_at: '拆分时间', split_operator: '拆分人', split_operator_id: '拆分人',
  mode: '模式', allowed_approvers: '可审批人', track_ref: '追踪号', executor_id: '执行人', executed_at: '执行时间',
  cost_at_scrap: '报废单价', total_loss: '损失金额', scrapped_at: '报废时间',
  supplier_id: '供应商', contact: '联系人', lead_time_days: '交期(天)', unit_price: '单价', total_price: '总价', tax_rate: '税率',
  purchase_date: '采购日期', expected_date: '预计到货日期', requester_id: '申请人', requester_email: '申请人邮箱', completed_at: '完成时间',
  session_id: '盘点会话', scope_type: '盘点范围', scope_config: '范围设置', initiator_id: '发起人', initiator_name: '发起人',
  started_at: '开始时间', finished_at: '结束时间', finish_reason: '结束原因', uuid: '条码', user_id: '用户', scan_time: '扫码时间',
  book_quantity: '账面数量', book_location: '账面库位', before_quantity: '调整前数量', after_quantity: '调整后数量',
  difference: '差异', forced: '强制调整', adjusted_at: '调整时间', adjusted_from: '调整前账面数量', draft_id: '盘点记录',
  superseded_by_id: '被替代为', moved_at: '移库时间', to_sku: '新条码', to_stock_id: '新库存行', whole: '整行移动',
  parent_id: '上级', child_id: '子件', version: '版本', line_no: '行号', created_by: '创建人', published_by: '发布人', published_at: '发布时间',
  bom_version_id: 'BOM版本', source_return_id: '来源退货记录', file_name: '文件名', byte_size: '文件大小', width: '宽度',
  height: '高度', mime: '文件类型', phash: '图像指纹', storage_path: '存储路径',
  credentials: '凭据', id: 'ID', created_at: '创建时间', updated_at: '更新时间', target_id: '对象ID', module_name: '模块',
};

/**
 * Field names that mean something else in one module, read before FIELD_LABELS: a BOM line's quantity is the
 * quantity of use (用量, as its 添加子件 summary says) and its parent_id the parent item, not a menu's parent.
 */
export const FIELD_LABELS_BY_MODULE: Readonly<Record<string, Record<string, string>>> = {
  BOM管理: { quantity: '用量', parent_id: '父件' },
};

/**
 * Request status values (contract §4): the same number means a different state per module, labelled as the
 * module's own answers label it (status_label), so the audit view and the request say the same word.
 */
const REQUEST_STATUS_BASE = { 0: '待审批', 1: '已审批', 2: '已驳回' } as const;

export const ENUM_LABELS_BY_MODULE: Readonly<Record<string, Record<string, Record<string, string>>>> = {
  出库管理: { status: OUTBOUND_STATUS_LABELS },
  借用管理: {
    status: {
      ...BORROW_STATUS_LABELS,
      borrowed: '借用中', returned: '已归还', scrapped: '已报废', PENDING: '待接收', ACCEPTED: '已接收', REJECTED: '已拒绝',
    },
  },
  报废管理: { status: SCRAP_STATUS_LABELS, mode: { scan: '扫码执行', auto: '自动执行' } },
  采购入库: { status: PURCHASE_STATUS_LABELS },
  采购管理: { status: PURCHASE_STATUS_LABELS },
  purchase_request: { status: PURCHASE_STATUS_LABELS },
  库存盘点: {
    status: { active: '进行中', finished: '已结束' },
    mode: { blind: '盲盘', open: '明盘' },
    finish_reason: { completed: '已完成', superseded: '被新盘点替代' },
  },
  库存预警: { level: { yellow: '黄色预警', red: '红色预警' } },
  BOM管理: { status: { draft: '草稿', published: '已发布' } },
};

export const ENUM_LABELS_BY_FIELD: Readonly<Record<string, Record<string, string>>> = {
  status: { ...REQUEST_STATUS_BASE },
  source_table: { ...STOCK_KIND_LABELS, trans_borrow: '借用物品', trans_defective_goods: '不良品台账' },
  outbound_type: { SALES: '销售出库', USE: '领用出库', PRODUCTION: '生产出库' },
  return_type: { good: '良品退回', defective: '不良品退回' },
  close_reason: { closed: '关闭', withdrawn: '撤回' },
  role: { SUPER_ADMIN: '超级管理员', SUPERVISOR: '主管', WAREHOUSE_MGR: '仓库管理员', INBOUND: '入库员', OUTBOUND: '出库员', SALES: '销售' },
  role_code: { SUPER_ADMIN: '超级管理员', SUPERVISOR: '主管', WAREHOUSE_MGR: '仓库管理员', INBOUND: '入库员', OUTBOUND: '出库员', SALES: '销售' },
  active: { true: '启用', false: '停用' },
  forced: { true: '是', false: '否' },
  whole: { true: '是', false: '否' },
  scope_type: { full: '全盘', active: '指定库位' },
  biz_type: { outbound: '出库', borrow: '借用', scrap: '报废', purchase: '采购', stocktake: '盘点' },
};

type Reference = 'user' | 'material' | 'stock' | 'menu' | 'supplier' | 'request';

/** Which record an id field names, per module ('*' for every module); a module entry wins. */
export const ID_REFERENCES: Readonly<Record<string, Record<string, Reference>>> = {
  '*': {
    base_id: 'material', stock_id: 'stock', to_stock_id: 'stock', supplier_id: 'supplier',
    applicant_id: 'user', approver_id: 'user', closer_id: 'user', operator_id: 'user', borrower_id: 'user',
    current_holder_id: 'user', dispatch_operator_id: 'user', from_user_id: 'user', to_user_id: 'user',
    split_operator_id: 'user', executor_id: 'user', requester_id: 'user', initiator_id: 'user', created_by: 'user', published_by: 'user',
  },
  系统管理: { parent_id: 'menu' },
  sys_element: { parent_id: 'menu' },
  BOM管理: { parent_id: 'material', child_id: 'material' },
};

export function referenceOf(module: string, field: string): Reference | undefined {
  return ID_REFERENCES[module]?.[field] ?? ID_REFERENCES['*']![field];
}

/** The snapshot shapes of spec 2.12, in the order a detail view shows them. */
export const SNAPSHOT_VIEWS = [
  { key: 'created', title: '新增内容' },
  { key: 'deleted_snapshot', title: '删除前内容' },
  { key: 'payload', title: '提交内容' },
] as const;

const HIDDEN_FIELDS = ['id', 'created_at', 'updated_at', 'target_id', 'module_name'];
const HIDDEN_SUFFIXES = ['embedding'];

/** Technical fields a reader never needs (spec 2.13); summaries skip them too. */
export const isHiddenField = (field: string): boolean =>
  HIDDEN_FIELDS.includes(field) || HIDDEN_SUFFIXES.some((suffix) => field.endsWith(suffix));

/** The label of a field: (module, field) first, then the field alone, else the field's own name. */
export const fieldLabel = (module: string, field: string): string => FIELD_LABELS_BY_MODULE[module]?.[field] ?? FIELD_LABELS[field] ?? field;

/** Whether a field has a label of its own (payload summaries name only labelled fields). */
export const hasFieldLabel = (module: string, field: string): boolean => fieldLabel(module, field) !== field;

/** The label of an enum value: (module, field) first, then the field alone; undefined when none. */
export function enumLabel(module: string, field: string, value: unknown): string | undefined {
  if (value === null || value === undefined || typeof value === 'object') return undefined;
  const key = String(value);
  return ENUM_LABELS_BY_MODULE[module]?.[field]?.[key] ?? ENUM_LABELS_BY_FIELD[field]?.[key];
}

/** GET /audit/labels. */
export function auditLabels() {
  return {
    fieldLabels: FIELD_LABELS,
    fieldLabelsByModule: FIELD_LABELS_BY_MODULE,
    enumLabels: { byModule: ENUM_LABELS_BY_MODULE, byField: ENUM_LABELS_BY_FIELD },
    idReferences: ID_REFERENCES,
    snapshotViews: SNAPSHOT_VIEWS.map((view) => ({ ...view })),
    hiddenFields: HIDDEN_FIELDS,
    hiddenFieldSuffixes: HIDDEN_SUFFIXES,
    moduleDisplay: MODULE_DISPLAY,
    moduleGroups: { [INBOUND_GROUP]: [...INBOUND_GROUP_MEMBERS] },
    actionLabels: { CREATE: '新增', UPDATE: '修改', DELETE: '删除' },
  };
}
