import { API_PREFIX, attachmentHeader, errorResponses } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { inBothStockGroups } from '../stock/stock-paths.js';
import { assertUsableFont } from './label-sheet.js';
import { printLocationLabels } from './location-labels.js';
import { LocationLabelsBody, PdfFile, StockLabelsBody } from './schemas.js';
import { printStockLabels } from './stock-labels.js';

const PDF_MIME = 'application/pdf';

/**
 * Printable label sheets (A4 PDF) for stock rows and locations. Printing is a read: a login is enough, the
 * company scope decides which rows and locations exist (as GET /inbound/stock/:id and /warehouse/tree).
 */
export function registerLabelRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['labels'];
  const { labelFontPath, labelFontFamily } = deps.config;
  const font = labelFontPath ? { path: labelFontPath, family: labelFontFamily } : undefined;
  if (font) assertUsableFont(font);

  inBothStockGroups('/labels', (path) =>
    app.post(path, {
      schema: {
        tags,
        summary: '打印库存行标签（A4 PDF）：sku 的 Code 128 与二维码，物料名称、规格、批次或序列号、库位',
        description: '未配置 LABEL_FONT_PATH（含中文字形的字体）时不印物料名称，文字只印 ASCII。他公司或不存在的 ID 为 404 并列出这些 ID。',
        body: StockLabelsBody,
        response: { 200: PdfFile, ...errorResponses },
      },
    }, async (request, reply) => {
      const pdf = await printStockLabels(ctxOf(deps, request), request.body, font);
      return reply.header('content-type', PDF_MIME).header('content-disposition', attachmentHeader('stock-labels.pdf')).send(pdf);
    }),
  );

  app.post(`${API_PREFIX}/warehouse/location-labels`, {
    schema: {
      tags,
      summary: '打印库位标签（A4 PDF）：库位路径的二维码与 Code 128',
      description: '库位须是本公司库位树中的节点（某库存行的库位或其上级路径），否则 404 并列出这些库位。',
      body: LocationLabelsBody,
      response: { 200: PdfFile, ...errorResponses },
    },
  }, async (request, reply) => {
    const pdf = await printLocationLabels(ctxOf(deps, request), request.body, font);
    return reply.header('content-type', PDF_MIME).header('content-disposition', attachmentHeader('location-labels.pdf')).send(pdf);
  });
}
