import { Type, type Static } from 'typebox';
import { PageQuery, PositiveQuantity, timeRangeQuery } from '@wms/platform';
import { StockKindSchema, StockRowView } from './schemas.js';

export const MoveStockBody = Type.Object({
  to_location: Type.String({ minLength: 1, maxLength: 255, description: '目标库位（斜杠路径，保存时各段去空格）' }),
  quantity: Type.Optional(PositiveQuantity),
  source_table: Type.Optional(StockKindSchema),
});
export type MoveStockBody = Static<typeof MoveStockBody>;

export const StockMoveView = Type.Object({
  id: Type.Integer(),
  stock_id: Type.Integer({ description: '被移动的库存行' }),
  to_stock_id: Type.Integer({ description: '移入的库存行：整行移动时等于 stock_id，拆分时为新行' }),
  source_table: Type.String(),
  sku: Type.String(),
  to_sku: Type.String(),
  base_id: Type.Integer(),
  company_name: Type.String(),
  from_location: Type.String(),
  to_location: Type.String(),
  quantity: Type.Number(),
  whole: Type.Boolean({ description: 'true: 整行移动；false: 拆出部分数量为新行' }),
  operator: Type.String({ description: '操作人用户名' }),
  operator_name: Type.String(),
  moved_at: Type.String(),
});
export type StockMoveView = Static<typeof StockMoveView>;

export const MoveStockResult = Type.Object({
  move: StockMoveView,
  from_row: StockRowView,
  to_row: StockRowView,
});
export type MoveStockResult = Static<typeof MoveStockResult>;

/** The filters of both move lists besides their own (keyword, moved_at range). */
const MoveFilterQuery = {
  keyword: Type.Optional(Type.String({ maxLength: 200, description: 'SKU、库位（移出或移入）、操作人、物料名称或规格（不区分大小写）' })),
  ...timeRangeQuery('移库时间'),
};

export const RowMovesQuery = Type.Object({ ...PageQuery, ...MoveFilterQuery });
export type RowMovesQuery = Static<typeof RowMovesQuery>;

export const LocationMovesQuery = Type.Object({
  ...PageQuery,
  ...MoveFilterQuery,
  location: Type.Optional(Type.String({ maxLength: 255, description: '库位前缀：移出或移入库位以此开头' })),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效' })),
});
export type LocationMovesQuery = Static<typeof LocationMovesQuery>;
