import { API_PREFIX, errorResponses, IdParams, PageOf, SUPER_ADMIN_ONLY } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { MailListQuery, MailView } from './mail-outbox-schemas.js';
import { listMails, retryMail } from './mail-outbox-service.js';

/** The mail outbox as administrators see it (docs/decisions.md, Purchasing and suppliers). */
export function registerMailOutboxRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['mail'];

  app.get(`${API_PREFIX}/mail/outbox`, {
    config: { permission: SUPER_ADMIN_ONLY },
    schema: {
      tags,
      summary: '邮件发件箱：库存预警与采购审批邮件及发送状态（仅超级管理员）',
      description: 'status=failed 查看发送失败的邮件（error、attempts）。最新的在前。',
      querystring: MailListQuery,
      response: { 200: PageOf(MailView), ...errorResponses },
    },
  }, (request) => listMails(ctxOf(deps, request), request.query));

  app.post(`${API_PREFIX}/mail/outbox/:id/retry`, {
    config: { permission: SUPER_ADMIN_ONLY, idempotent: true },
    schema: {
      tags,
      summary: '重新发送一封失败的邮件（failed → pending，提交后交给邮件服务器；仅超级管理员）',
      params: IdParams,
      response: { 200: MailView, ...errorResponses },
    },
  }, (request) => retryMail(ctxOf(deps, request), request.params.id));
}
