import { Type, type Static, type TProperties, type TSchema } from 'typebox';
import { PositiveQuantity } from '@wms/platform';

/** Schema pieces of the stock-holding request flows (outbound, borrow, scrap). */

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
const CompanyName = Type.String({ minLength: 1, maxLength: 64 });

/**
 * A submission (spec 3.2, 3.3): the flow's own fields at two places, `kind` first (outbound_type) and
 * `details` after the remark (expected_return_date). Fields are validated in this order, and the
 * first invalid one is the one a 400 names.
 */
export function submitBodySchema<Kind extends TProperties, Details extends TProperties>(own: { kind: Kind; details: Details }) {
  return Type.Object({
    ...own.kind,
    items: Type.Array(Type.Object({ base_id: Id, quantity: PositiveQuantity }), {
      minItems: 1,
      maxItems: 500,
      description: '同一物料的多行会合并后分配',
    }),
    remark: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    ...own.details,
    company_name: Type.Optional(Type.String({ ...CompanyName, description: '仅跨公司账号需要且必须填写' })),
  });
}

/** An optional reason (reject); the whole body may be absent. */
export const ReasonBody = Type.Object({ reason: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))) });
export type ReasonBody = Static<typeof ReasonBody>;

/** A stored line as spec 2.4 names it (items_json). */
export const ReservationLineView = Type.Object({
  base_id: Type.Integer(),
  quantity: Type.Number(),
  stock_id: Type.Integer(),
  source_table: Type.String(),
  reserved: Type.Boolean(),
});

/** A stored line with what a person needs to read it. sku and location are null when the row is gone. */
export const RequestLineView = Type.Object({
  base_id: Type.Integer(),
  material_name: Type.String(),
  spec_model: Type.String(),
  unit: Type.String(),
  quantity: Type.Number(),
  stock_id: Type.Integer(),
  source_table: Type.String(),
  sku: Nullable(Type.String()),
  warehouse_location: Nullable(Type.String()),
  reserved: Type.Boolean(),
});

const applicantFields = {
  id: Type.Integer(),
  biz_type: Type.String(),
  applicant_id: Type.Integer(),
  applicant_name: Nullable(Type.String()),
  company_name: Type.String(),
};

const contentFields = {
  status: Type.Integer(),
  status_label: Type.String(),
  items: Type.Array(RequestLineView),
  items_json: Type.Array(ReservationLineView),
  remark: Nullable(Type.String()),
};

const decisionFields = {
  reject_reason: Nullable(Type.String()),
  close_reason: Nullable(Type.String({ description: 'closed 关闭 | withdrawn 撤回' })),
  approver_id: Nullable(Type.Integer()),
  approved_at: Nullable(Type.String()),
  rejected_at: Nullable(Type.String()),
  closer_id: Nullable(Type.Integer()),
  closed_at: Nullable(Type.String()),
};

const timeFields = { created_at: Type.String(), updated_at: Type.String() };

/** The fields every request view has (request-views.ts maps them). */
export const SharedRequestView = Type.Object({ ...applicantFields, ...contentFields, ...decisionFields, ...timeFields });
export type SharedRequestView = Static<typeof SharedRequestView>;

/**
 * A request view: the shared fields with the flow's own at three places — `kind` after company_name
 * (outbound_type), `details` after remark (source_return_id, expected_return_date) and `milestone`
 * after closed_at (executed_at, dispatched_at). Responses list the fields in this order. A flow whose
 * lines say more (scrap: scrap_qty, location) adds `line` fields to both line lists.
 */
export function requestViewSchema<
  Kind extends TProperties,
  Details extends TProperties,
  Milestone extends TProperties,
  Line extends TProperties = Record<never, never>,
>(own: { kind: Kind; details: Details; milestone: Milestone; line?: Line }) {
  const line = (own.line ?? {}) as Line;
  return Type.Object({
    ...applicantFields,
    ...own.kind,
    status: contentFields.status,
    status_label: contentFields.status_label,
    items: Type.Array(Type.Object({ ...RequestLineView.properties, ...line })),
    items_json: Type.Array(Type.Object({ ...ReservationLineView.properties, ...line })),
    remark: contentFields.remark,
    ...own.details,
    ...decisionFields,
    ...own.milestone,
    ...timeFields,
  });
}
