import { Type, type Static } from 'typebox';

export const MAX_LABELS = 500;

const LabelFormat = Type.Union([Type.Literal('code128'), Type.Literal('qr')], {
  description: '只印一种条码；不传则 Code 128 与二维码都印（非 ASCII 内容无法可靠印成 Code 128，只印二维码）',
});

const Layout = Type.Object(
  {
    columns: Type.Integer({ minimum: 1, maximum: 4, description: '每行标签数' }),
    rows: Type.Integer({ minimum: 1, maximum: 12, description: '每页行数' }),
  },
  { description: 'A4 纸上的网格，默认 2 列 × 8 行' },
);

export const StockLabelsBody = Type.Object({
  ids: Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), {
    minItems: 1,
    maxItems: MAX_LABELS,
    description: '库存行 ID，按顺序每个 ID 印一张；重复的 ID 印多张',
  }),
  format: Type.Optional(LabelFormat),
  layout: Type.Optional(Layout),
});
export type StockLabelsBody = Static<typeof StockLabelsBody>;

export const LocationLabelsBody = Type.Object({
  locations: Type.Array(Type.String({ minLength: 1, maxLength: 255, description: '完整库位路径, 如 A/01/03' }), {
    minItems: 1,
    maxItems: MAX_LABELS,
    description: '库位路径，须是本公司库位树中的节点（某库存行的库位或其上级）',
  }),
  format: Type.Optional(LabelFormat),
  layout: Type.Optional(Layout),
});
export type LocationLabelsBody = Static<typeof LocationLabelsBody>;

export const PdfFile = Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'application/pdf' });
