import { Type, type Static } from 'typebox';

const TypeField = Type.Union([Type.Literal('material'), Type.Literal('bom')], { description: 'material 物料，bom BOM' });
const ModeField = Type.Union([Type.Literal('create'), Type.Literal('update')], {
  description: 'create 只新建（已存在为 duplicate）；update 已存在则更新（update），不存在则新建',
});

export const TemplateQuery = Type.Object({ type: TypeField });

/**
 * The text fields of the upload form (checked in the use case: Fastify does not parse multipart bodies).
 * The spec names only the file and mode: type defaults to material.
 */
export const ImportForm = Type.Object({ type: Type.Optional(TypeField), mode: ModeField });
export type ImportForm = Static<typeof ImportForm>;

/** type and mode may come in the query string too; a form field of the same name wins. */
export const ImportQuery = Type.Object({ type: Type.Optional(TypeField), mode: Type.Optional(ModeField) });
export type ImportQuery = Static<typeof ImportQuery>;

/** The upload form as OpenAPI describes it. */
export const ImportUpload = Type.Object({
  file: Type.String({ format: 'binary', description: 'xlsx 文件（最多 20 MB，解压后最多 50 MB，最多 10000 行数据）' }),
  type: Type.Optional(TypeField),
  mode: ModeField,
});

const Status = Type.Union([Type.Literal('success'), Type.Literal('update'), Type.Literal('error'), Type.Literal('duplicate')]);

export const ImportResult = Type.Object({
  type: TypeField,
  mode: ModeField,
  executed: Type.Boolean({ description: 'false 为预览（未写入），true 为已执行' }),
  total: Type.Integer({ description: '数据行数（不含表头与空行）' }),
  counts: Type.Object({ success: Type.Integer(), update: Type.Integer(), error: Type.Integer(), duplicate: Type.Integer() }),
  imported: Type.Integer({ description: '已写入的行数（success 与 update）；预览为 0' }),
  ignored_columns: Type.Array(Type.String(), { description: '未读取的列：无法识别，或当前账号无权写入的字段' }),
  rows: Type.Array(
    Type.Object({
      row: Type.Integer({ description: '工作表中的行号（表头为第 1 行）' }),
      status: Status,
      message: Type.String(),
      id: Type.Union([Type.Integer(), Type.Null()], { description: '新建或更新的物料 ID / 发布的 BOM 版本 ID' }),
    }),
  ),
});
export type ImportResult = Static<typeof ImportResult>;
