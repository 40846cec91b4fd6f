import { AppError, type UseCaseContext } from '@wms/platform';
import type { StockRowWithMaterial } from '../stock/stock-rows.js';
import { symbologiesFor } from './barcodes.js';
import { readScopedStockRows } from './label-rows.js';
import { DEFAULT_LAYOUT, renderLabelSheet, type Label, type LabelFont } from './label-sheet.js';
import type { StockLabelsBody } from './schemas.js';

/**
 * POST /inbound/stock/labels: one label per id, in the order given. Every id must be a stock row of the
 * caller's scope; otherwise 404 naming the ids (another company's row is "not found", as on every stock read).
 */
export async function printStockLabels(ctx: UseCaseContext, input: StockLabelsBody, font?: LabelFont): Promise<Buffer> {
  const rows = await ctx.read((q) => readScopedStockRows(q, ctx.scope(), input.ids));
  const missing = [...new Set(input.ids.filter((id) => !rows.has(id)))];
  if (missing.length > 0) throw new AppError('NOT_FOUND', `库存记录不存在：${missing.join(', ')}`, { ids: missing });
  const labels = input.ids.map((id) => stockLabel(rows.get(id)!, input.format, font !== undefined));
  return renderLabelSheet(labels, { layout: input.layout ?? DEFAULT_LAYOUT, font });
}

/** The sku as the barcode; material, spec, batch (serial for finished products) and location as text. */
function stockLabel(row: StockRowWithMaterial, format: StockLabelsBody['format'], chinese: boolean): Label {
  const tracking = row.sourceTable === 'stock_product' ? row.serialNumber : row.batchNumber;
  const fields: [zh: string, ascii: string, value: string | null][] = [
    ['规格', 'Spec', row.specModel],
    row.sourceTable === 'stock_product' ? ['序列号', 'S/N', tracking] : ['批次', 'Lot', tracking],
    ['库位', 'Loc', row.warehouseLocation],
  ];
  const lines = fields.filter(([, , value]) => value).map(([zh, ascii, value]) => `${chinese ? zh : ascii} ${value}`);
  // The material name is Chinese in practice: printed only with a CJK font (decisions, Labels).
  return { code: row.sku, symbologies: symbologiesFor(row.sku, format), lines: chinese ? [row.materialName, ...lines] : lines };
}
