import { Type } from 'typebox';
import { API_PREFIX, ErrorBody, errorResponses, PageOf, SUPER_ADMIN_ONLY } from '@wms/platform';
import { ctxOf, type TrackingDeps, type TrackingFastify } from '../../app-types.js';
import { auditModules, listAudit } from './audit-service.js';
import { AuditEntry, AuditQuery } from './schemas.js';

const responses = { ...errorResponses, 422: ErrorBody };

export function registerAuditRoutes(app: TrackingFastify, deps: TrackingDeps) {
  const tags = ['audit'];
  app.get(`${API_PREFIX}/audit`, {
    config: { permission: SUPER_ADMIN_ONLY },
    schema: {
      tags,
      summary: '审计日志（超级管理员）',
      description: '按模块、动作（逗号分隔多个）、操作人、目标关键字和北京时间日期区间筛选；接收库存通知的写入显示通知中的操作人。',
      querystring: AuditQuery,
      response: { 200: PageOf(AuditEntry), ...responses },
    },
  }, (request) => listAudit(ctxOf(deps, request), request.query));

  app.get(`${API_PREFIX}/audit/modules`, {
    config: { permission: SUPER_ADMIN_ONLY },
    schema: { tags, summary: '审计日志中出现的模块', response: { 200: Type.Array(Type.Object({ value: Type.String(), label: Type.String() })), ...responses } },
  }, (request) => auditModules(ctxOf(deps, request)));
}
