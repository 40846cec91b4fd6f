import { Type } from 'typebox';
import { or, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { containsIgnoringCase } from '@wms/platform';

/** The request lists' keyword (contract §8 names keyword among every list's query parameters). */
export const RequestKeywordQuery = {
  keyword: Type.Optional(Type.String({ maxLength: 128, description: '匹配单号（请求 ID）、备注、申请人姓名或账号、物料名称或规格' })),
};

interface KeywordColumns {
  id: AnyPgColumn;
  applicantId: AnyPgColumn;
  remark: AnyPgColumn;
  itemsJson: AnyPgColumn;
}

/**
 * What a keyword finds in a request list (outbound, borrow, scrap): the request's number itself, its remark,
 * the applicant's name or username, or a material of its lines by name or spec, case-insensitive and
 * literal (LIKE wildcards escaped); `also` adds a flow's own text columns (a scrap request's reason).
 * Blank: no condition.
 */
export function requestKeywordCondition(table: KeywordColumns, keyword: string | undefined, also: AnyPgColumn[] = []): SQL | undefined {
  const text = keyword?.trim();
  if (!text) return undefined;
  return or(
    requestNumberCondition(table.id, text),
    containsIgnoringCase(table.remark, text),
    ...also.map((column) => containsIgnoringCase(column, text)),
    sql`exists (select from users u where u.id = ${table.applicantId}
                 and (${containsIgnoringCase(sql`u.name`, text)} or ${containsIgnoringCase(sql`u.username`, text)}))`,
    sql`exists (select from jsonb_array_elements(${table.itemsJson}) line
                  join materials m on m.id = (line->>'base_id')::int
                 where ${containsIgnoringCase(sql`m.name`, text)} or ${containsIgnoringCase(sql`coalesce(m.spec_model, '')`, text)})`,
  );
}

/** A keyword that is a request's number (its id, exactly); undefined when the text cannot be one. */
export function requestNumberCondition(id: AnyPgColumn | SQL, text: string): SQL | undefined {
  return /^\d{1,9}$/.test(text) ? sql`${id} = ${Number(text)}` : undefined;
}
