import { and, asc, inArray } from 'drizzle-orm';
import { AppError, companyCondition, validationFailed, type CompanyScope, type Queryable } from '@wms/platform';
import { materials } from '../../db/schema/index.js';
import type { MaterialCandidate } from './schemas.js';

export interface MatchedMaterial {
  id: number;
  name: string;
  specModel: string;
  unit: string;
  category: string;
  companyName: string;
}

/** How an item names its material: by id, or by name and spec_model. */
export interface MaterialReference {
  base_id?: number;
  name?: string;
  spec_model?: string;
}

const columns = {
  id: materials.id,
  name: materials.name,
  specModel: materials.specModel,
  unit: materials.unit,
  category: materials.category,
  companyName: materials.companyName,
};

/** The most materials a refusal lists. */
const LISTED = 10;

export const toCandidate = (material: MatchedMaterial): MaterialCandidate => ({
  base_id: material.id,
  name: material.name,
  spec_model: material.specModel,
  unit: material.unit,
  category: material.category,
  company_name: material.companyName,
});

/**
 * The material of each reference, in order, within the company scope (spec 2.9: items given by name and
 * spec_model are matched automatically). A base_id outside the scope is 404. A name is matched exactly
 * (trimmed; case-sensitive, since 10m and 10M are different parts) together with spec_model (absent = '');
 * no match or several matches is 400 VALIDATION_FAILED naming the item and listing what was found:
 * `matches` (several) or `candidates` (same name, other specs). Two queries whatever the number of items.
 */
export async function matchMaterials(q: Queryable, scope: CompanyScope, references: readonly MaterialReference[], single = false): Promise<MatchedMaterial[]> {
  const ids = references.flatMap((ref) => (ref.base_id === undefined ? [] : [ref.base_id]));
  const names = references.flatMap((ref) => (ref.base_id === undefined && ref.name !== undefined ? [ref.name.trim()] : []));
  const inScope = companyCondition(scope, materials.companyName);
  const byId = ids.length ? await q.select(columns).from(materials).where(and(inArray(materials.id, ids), inScope)) : [];
  const byName = names.length
    ? await q.select(columns).from(materials).where(and(inArray(materials.name, [...new Set(names)]), inScope)).orderBy(asc(materials.id))
    : [];
  return references.map((ref, index) => {
    const item: ItemLabel = single ? { prefix: '', field: (name) => name } : { prefix: `第 ${index + 1} 项：`, field: (name) => `items[${index}].${name}` };
    if (ref.base_id !== undefined) {
      const found = byId.find((material) => material.id === ref.base_id);
      if (!found) throw new AppError('NOT_FOUND', `${item.prefix}物料 ${ref.base_id} 不存在`, { field: item.field('base_id') });
      return found;
    }
    if (ref.name === undefined) throw validationFailed(`${item.prefix}请填写 base_id，或物料名称 name 与规格型号 spec_model`, { field: item.field('name') });
    return matchOne(byName, ref.name.trim(), ref.spec_model?.trim() ?? '', item);
  });
}

/** How a refusal names the item: 「第 2 项：」 and items[1].name in a submission, nothing and name alone in a lookup. */
interface ItemLabel {
  prefix: string;
  field(name: string): string;
}

function matchOne(sameNames: MatchedMaterial[], name: string, specModel: string, item: ItemLabel): MatchedMaterial {
  const named = sameNames.filter((material) => material.name === name);
  const matches = named.filter((material) => material.specModel === specModel);
  const described = `名称「${name}」规格「${specModel || '（空）'}」`;
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw validationFailed(`${item.prefix}${described}匹配到 ${matches.length} 个物料，请指定 base_id`, {
      field: item.field('name'),
      reason: 'ambiguous',
      matches: matches.slice(0, LISTED).map(toCandidate),
    });
  }
  const others = named.length ? `；同名物料的规格有：${named.slice(0, LISTED).map((material) => material.specModel || '（空）').join('、')}` : '';
  throw validationFailed(`${item.prefix}没有${described}的物料${others}`, {
    field: item.field('name'),
    reason: 'no_match',
    candidates: named.slice(0, LISTED).map(toCandidate),
  });
}

/** One material in scope by id or by name + spec_model (auto-fill), same rules as a submission. */
export async function matchMaterial(q: Queryable, scope: CompanyScope, reference: MaterialReference): Promise<MatchedMaterial> {
  const [material] = await matchMaterials(q, scope, [reference], true);
  return material!;
}
