import { API_PREFIX, ErrorBody, errorResponses, readUpload, sendXlsx, type Upload, XlsxDownload } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { executeImport, importTemplate, previewImport } from './import-service.js';
import { ImportQuery, ImportResult, ImportUpload, TemplateQuery } from './schemas.js';

/** Either write code lets the route run; the use case then checks the one the import type needs. */
const IMPORTERS = ['material_list:operation', 'bom_manage:operation'];
const BASE = `${API_PREFIX}/import`;
const uploadErrors = { ...errorResponses, 413: ErrorBody, 415: ErrorBody };

/**
 * Excel import of materials and BOMs (spec 4.9, contract §7–§8): template, preview (dry run) and execute.
 * The upload is multipart/form-data with the fields file, type and mode; type and mode may also be sent
 * in the query string (a form field of the same name wins).
 */
export function registerImportRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['import'];

  app.get(`${BASE}/template`, {
    config: { permission: IMPORTERS },
    schema: {
      tags,
      summary: '下载导入模板 xlsx（type=material 需 material_list:operation，type=bom 需 bom_manage:operation）',
      querystring: TemplateQuery,
      response: { 200: XlsxDownload, ...errorResponses },
    },
  }, async (request, reply) => {
    const { fileName, workbook } = await importTemplate(ctxOf(deps, request), request.query.type);
    return sendXlsx(reply, fileName, workbook);
  });

  app.post(`${BASE}/preview`, {
    config: { permission: IMPORTERS },
    schema: {
      tags,
      summary: '导入预览（不写入）：逐行给出 success / update / error / duplicate 与说明',
      querystring: ImportQuery,
      multipart: ImportUpload,
      response: { 200: ImportResult, ...uploadErrors },
    },
  }, async (request) => previewImport(ctxOf(deps, request), withQueryFields(await readUpload(request), request.query)));

  app.post(`${BASE}/execute`, {
    config: { permission: IMPORTERS, idempotent: true },
    schema: {
      tags,
      summary: '执行导入：重新校验同一文件，只写入 success 与 update 行，一个事务内完成',
      querystring: ImportQuery,
      multipart: ImportUpload,
      response: { 200: ImportResult, ...uploadErrors },
    },
  }, async (request) => executeImport(ctxOf(deps, request), withQueryFields(await readUpload(request), request.query)));
}

/** The query's type and mode as form fields, under the form's own (a validated query holds only the names sent). */
function withQueryFields(upload: Upload, query: ImportQuery): Upload {
  return { ...upload, fields: { ...(query as Record<string, string>), ...upload.fields } };
}
