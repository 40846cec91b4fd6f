import {
  can,
  compileValueChecker,
  forbidden,
  readFirstSheet,
  requireUploadedFile,
  sheetOf,
  validationFailed,
  writeWorkbook,
  type ImportSheet,
  type Queryable,
  type Upload,
  type UseCaseContext,
} from '@wms/platform';
import { bomImport } from './bom-import.js';
import { countStatuses, importable, type ImportKind, type ImportMode, type ImportPlan, type ImportType } from './import-plan.js';
import { materialImport } from './material-import.js';
import { ImportForm, type ImportResult } from './schemas.js';

const KINDS: Record<ImportType, ImportKind> = { material: materialImport, bom: bomImport };
const checkForm = compileValueChecker<ImportForm>(ImportForm);

/** Each kind needs its own write code (contract §3: material_list:operation, bom_manage:operation). */
function kindFor(ctx: UseCaseContext, type: ImportType): ImportKind {
  const kind = KINDS[type];
  if (!can(ctx.actor, kind.permission)) throw forbidden(`缺少权限: ${kind.permission}`);
  return kind;
}

/** GET /import/template: the kind's columns with a note and an example row, through the platform writer. */
export async function importTemplate(ctx: UseCaseContext, type: ImportType): Promise<{ fileName: string; workbook: Buffer }> {
  const kind = kindFor(ctx, type);
  const { columns } = kind.template;
  const data = sheetOf({
    name: `${kind.label}导入`,
    columns: columns.map((column, index) => ({ header: column.header, type: 'text' as const, value: (row: string[]) => row[index] })),
    rows: [] as string[][],
  });
  const notes = sheetOf({
    name: '填写说明',
    columns: [
      { header: '列', type: 'text' as const, value: (row: (typeof columns)[number]) => row.header },
      { header: '说明', type: 'text' as const, value: (row: (typeof columns)[number]) => row.note },
      { header: '示例', value: (row: (typeof columns)[number]) => row.example },
    ],
    rows: columns,
  });
  return { fileName: `${kind.label}导入模板.xlsx`, workbook: await writeWorkbook([data, notes]) };
}

/** The upload's form as the import reads it: type, mode and the file (400 naming what is wrong). */
export function importRequestOf(upload: Upload): { type: ImportType; mode: ImportMode; file: Buffer } {
  const checked = checkForm({ ...upload.fields });
  if (!checked.ok) throw validationFailed(checked.msg, { field: checked.field });
  return { type: checked.value.type ?? 'material', mode: checked.value.mode, file: requireUploadedFile(upload).data };
}

function resultOf(type: ImportType, mode: ImportMode, plan: ImportPlan, executed: boolean): ImportResult {
  const counts = countStatuses(plan.rows);
  return {
    type,
    mode,
    executed,
    total: plan.rows.length,
    counts,
    imported: executed ? plan.rows.filter(importable).length : 0,
    ignored_columns: plan.ignoredColumns,
    rows: plan.rows.map((row) => ({ row: row.row, status: row.status, message: row.message, id: row.id ?? null })),
  };
}

interface ReadImport {
  type: ImportType;
  mode: ImportMode;
  kind: ImportKind;
  sheet: ImportSheet;
}

/**
 * The first half of the one path preview and execute share: the form checked, the kind's permission
 * checked, and the file read — what is not xlsx, a zip bomb or more than 10,000 rows is refused here,
 * before any row is judged or any transaction opened.
 */
async function readImport(ctx: UseCaseContext, upload: Upload): Promise<ReadImport> {
  const { type, mode, file } = importRequestOf(upload);
  const kind = kindFor(ctx, type);
  return { type, mode, kind, sheet: await readFirstSheet(file) };
}

/** The second half: the kind's one validation judges every row (preview on a read, execute in its transaction). */
const judge = (ctx: UseCaseContext, q: Queryable, read: ReadImport): Promise<ImportPlan> => read.kind.plan(ctx, q, read.sheet, read.mode);

/** POST /import/preview: a dry run; nothing is written. */
export async function previewImport(ctx: UseCaseContext, upload: Upload): Promise<ImportResult> {
  const read = await readImport(ctx, upload);
  const plan = await ctx.read((q) => judge(ctx, q, read));
  return resultOf(read.type, read.mode, plan, false);
}

/**
 * POST /import/execute: the file again, judged again by the same path inside one transaction (so a
 * verdict rests on what the transaction sees), then only the success and update rows are written.
 * Any failure while writing rolls everything back.
 */
export async function executeImport(ctx: UseCaseContext, upload: Upload): Promise<ImportResult> {
  const read = await readImport(ctx, upload);
  const plan = await ctx.transaction(async (tx) => {
    const judged = await judge(ctx, tx, read);
    await judged.apply(tx);
    return judged;
  });
  return resultOf(read.type, read.mode, plan, true);
}
