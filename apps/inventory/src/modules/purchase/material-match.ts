import { and, asc, inArray, type SQL } from 'drizzle-orm';
import { AppError, companyCondition, containsIgnoringCase, validationFailed, type CompanyScope, type Queryable } from '@wms/platform';
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
 * no match or several matches is 400 VALIDATION_FAILED naming the item and listing what was found, in
 * `msg` (contract §2: the body a client is sure to read) and as `matches` (several) or `candidates`
 * (same name, other specs; without any, names that differ only in case or contain it). Two queries
 * whatever the number of items, a third only to list near names for a refusal.
 */
export async function matchMaterials(q: Queryable, scope: CompanyScope, references: readonly MaterialReference[], single = false): Promise<MatchedMaterial[]> {
  const ids = references.flatMap((ref) => (ref.base_id === undefined ? [] : [ref.base_id]));
  const names = references.flatMap((ref) => (ref.base_id === undefined && ref.name !== undefined ? [ref.name.trim()] : []));
  const inScope = companyCondition(scope, materials.companyName);
  const byId = ids.length ? await q.select(columns).from(materials).where(and(inArray(materials.id, ids), inScope)) : [];
  const byName = names.length
    ? await q.select(columns).from(materials).where(and(inArray(materials.name, [...new Set(names)]), inScope)).orderBy(asc(materials.id))
    : [];
  const matched: MatchedMaterial[] = [];
  for (const [index, ref] of references.entries()) {
    const item: ItemLabel = single ? { prefix: '', field: (name) => name } : { prefix: `第 ${index + 1} 项：`, field: (name) => `items[${index}].${name}` };
    if (ref.base_id !== undefined) {
      const found = byId.find((material) => material.id === ref.base_id);
      if (!found) throw new AppError('NOT_FOUND', `${item.prefix}物料 ${ref.base_id} 不存在`, { field: item.field('base_id') });
      matched.push(found);
      continue;
    }
    if (ref.name === undefined) throw validationFailed(`${item.prefix}请填写 base_id，或物料名称 name 与规格型号 spec_model`, { field: item.field('name') });
    const name = ref.name.trim();
    const specModel = ref.spec_model?.trim() ?? '';
    const named = byName.filter((candidate) => candidate.name === name);
    const material = onlyMatch(named, name, specModel, item);
    if (!material) throw noMatch(name, specModel, item, named.length ? named.slice(0, LISTED) : await nearNames(q, inScope, name), named.length > 0);
    matched.push(material);
  }
  return matched;
}

/** How a refusal names the item: 「第 2 项：」 and items[1].name in a submission, nothing and name alone in a lookup. */
interface ItemLabel {
  prefix: string;
  field(name: string): string;
}

/** 「ID 12 名称「电阻」规格「10K」分类 ALPHA/电子」 for each of at most LISTED materials. */
const listed = (found: readonly MatchedMaterial[]) =>
  found
    .slice(0, LISTED)
    .map((material) => `ID ${material.id} 名称「${material.name}」规格「${material.specModel || '（空）'}」分类 ${material.category}`)
    .join('、');

const describe = (name: string, specModel: string) => `名称「${name}」规格「${specModel || '（空）'}」`;

/** The one material of that name with that spec; undefined when none; several are 400 listing them. */
function onlyMatch(named: readonly MatchedMaterial[], name: string, specModel: string, item: ItemLabel): MatchedMaterial | undefined {
  const matches = named.filter((material) => material.specModel === specModel);
  if (matches.length > 1) {
    throw validationFailed(`${item.prefix}${describe(name, specModel)}匹配到 ${matches.length} 个物料：${listed(matches)}；请指定 base_id`, {
      field: item.field('name'),
      reason: 'ambiguous',
      matches: matches.slice(0, LISTED).map(toCandidate),
    });
  }
  return matches[0];
}

/** The no-match refusal, listing the same-name materials (other specs) or else the near names found. */
function noMatch(name: string, specModel: string, item: ItemLabel, found: readonly MatchedMaterial[], sameName: boolean): AppError {
  const listing = found.length ? `；${sameName ? '同名物料有' : '相近的物料有'}：${listed(found)}` : '；没有同名或相近名称的物料';
  return validationFailed(`${item.prefix}没有${describe(name, specModel)}的物料${listing}`, {
    field: item.field('name'),
    reason: 'no_match',
    candidates: found.map(toCandidate),
  });
}

/**
 * Without a material of that exact name, the names a typing slip would explain: names containing it,
 * case aside (so the same name in another case too; wildcards literal), by id. Read only for a refusal.
 */
function nearNames(q: Queryable, inScope: SQL | undefined, name: string): Promise<MatchedMaterial[]> {
  return q
    .select(columns)
    .from(materials)
    .where(and(inScope, containsIgnoringCase(materials.name, name)))
    .orderBy(asc(materials.id))
    .limit(LISTED);
}

/** One material in scope by id or by name + spec_model (auto-fill), same rules as a submission. */
export async function matchMaterial(q: Queryable, scope: CompanyScope, reference: MaterialReference): Promise<MatchedMaterial> {
  const [material] = await matchMaterials(q, scope, [reference], true);
  return material!;
}
