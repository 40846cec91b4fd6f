import { API_PREFIX, errorResponses, IdParams, PageOf } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { CreateSupplierBody, DeletedSupplier, SupplierListQuery, SupplierView, UpdateSupplierBody } from './schemas.js';
import { createSupplier, deleteSupplier, getSupplier, listSuppliers, updateSupplier } from './supplier-service.js';

/** Writing suppliers is the purchasers' business; reading needs only a login (docs/decisions.md). */
const WRITE = 'inbound_purchase:operation';

/** Suppliers per company (beyond the spec; docs/decisions.md, Purchasing and suppliers). */
export function registerSupplierRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['suppliers'];
  const base = `${API_PREFIX}/suppliers`;
  const one = { 200: SupplierView, ...errorResponses };

  app.get(base, {
    schema: { tags, summary: '供应商列表（本公司）', querystring: SupplierListQuery, response: { 200: PageOf(SupplierView), ...errorResponses } },
  }, (request) => listSuppliers(ctxOf(deps, request), request.query));

  app.post(base, {
    config: { permission: WRITE, idempotent: true },
    schema: { tags, summary: '新建供应商（名称在公司内唯一，重复 409）', body: CreateSupplierBody, response: { 201: SupplierView, ...errorResponses } },
  }, async (request, reply) => reply.code(201).send(await createSupplier(ctxOf(deps, request), request.body)));

  app.get(`${base}/:id`, {
    schema: { tags, summary: '供应商详情', params: IdParams, response: one },
  }, (request) => getSupplier(ctxOf(deps, request), request.params.id));

  app.put(`${base}/:id`, {
    config: { permission: WRITE, idempotent: true },
    schema: { tags, summary: '修改供应商（部分更新）', params: IdParams, body: UpdateSupplierBody, response: one },
  }, (request) => updateSupplier(ctxOf(deps, request), request.params.id, request.body));

  app.delete(`${base}/:id`, {
    config: { permission: WRITE, idempotent: true },
    schema: { tags, summary: '删除供应商（仍被采购申请引用时 400 IN_USE）', params: IdParams, response: { 200: DeletedSupplier, ...errorResponses } },
  }, (request) => deleteSupplier(ctxOf(deps, request), request.params.id));
}
