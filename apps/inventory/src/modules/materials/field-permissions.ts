import { can, isCrossDomain, isSuperAdmin, type Actor } from '@wms/platform';
import type { CreateMaterialBody, MaterialInput, UpdateMaterialBody } from './schemas.js';

const OPERATION = 'material_list:operation';
const PURCHASE_LINK = 'material_list:purchaseLink';
const REFERENCE_PRICE = 'material_list:referencePrice';
const REMARK_EDIT = 'material_list:remark_edit';

interface FieldRule {
  /** Needed to see the field; absent = any logged-in caller. */
  read?: string;
  /** Needed to write the field on create and update. */
  write: string;
}

type MappedField = Exclude<keyof CreateMaterialBody, 'company_name'>;

/**
 * Who may read and write each material field (spec 2.3): the one map for both directions.
 * A body field missing from this map is never written. company_name is not a permission matter:
 * only cross-domain callers may choose it (companyForCreate on create, a move on update).
 * The field codes are not satisfied by material_list or material_list:operation (contract §3).
 */
export const MATERIAL_FIELD_RULES: Readonly<Record<MappedField, FieldRule>> = {
  name: { write: OPERATION },
  spec_model: { write: OPERATION },
  category: { write: OPERATION },
  unit: { write: OPERATION },
  remark: { write: OPERATION },
  red_threshold: { write: OPERATION },
  yellow_threshold: { write: OPERATION },
  target_threshold: { write: OPERATION },
  purchaseLink: { read: PURCHASE_LINK, write: PURCHASE_LINK },
  referencePrice: { read: REFERENCE_PRICE, write: REFERENCE_PRICE },
  productImageRemark: { read: REMARK_EDIT, write: REMARK_EDIT },
  manualLinkRemark: { read: REMARK_EDIT, write: REMARK_EDIT },
};

const mappedFields = Object.keys(MATERIAL_FIELD_RULES) as MappedField[];

/**
 * Who may send an update at all: a holder of any code that writes some field (spec 2.3 makes remark_edit,
 * purchaseLink and referencePrice the read **and write** codes of their fields). What the caller may not
 * write is then dropped from the body (dropUnwritableFields), never refused field by field.
 */
export const MATERIAL_UPDATE_PERMISSIONS: readonly string[] = [...new Set(Object.values(MATERIAL_FIELD_RULES).map((rule) => rule.write))];

/** The fields this caller may not see; the mapper leaves them out of the response. */
export function hiddenMaterialFields(actor: Actor): ReadonlySet<string> {
  if (isSuperAdmin(actor)) return new Set();
  return new Set(
    mappedFields.filter((field) => {
      const code = MATERIAL_FIELD_RULES[field].read;
      return code !== undefined && !can(actor, code);
    }),
  );
}

/**
 * The body with every field the caller may not write removed, before any use case sees it:
 * a dropped field is left as it is, never written as empty.
 */
export function dropUnwritableFields(actor: Actor, body: CreateMaterialBody | UpdateMaterialBody): MaterialInput {
  const input: Record<string, unknown> = {};
  const skipFiltering = isSuperAdmin(actor);
  for (const field of mappedFields) {
    if (body[field] === undefined) continue;
    if (skipFiltering || can(actor, MATERIAL_FIELD_RULES[field].write)) input[field] = body[field];
  }
  if (body.company_name !== undefined && isCrossDomain(actor)) input.company_name = body.company_name;
  return input as MaterialInput;
}
