import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { API_PREFIX, createExportThread, errorResponses, type ExportJob, PageOf, sendXlsx, siblingModule, type StreamedFile, type UseCaseContext, XlsxDownload } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { AUDIT_EXPORT_NICE } from '../../config.js';
import { AUDIT_EXPORT_CAP } from './export.js';
import { exportJobs, type AuditExportJobs } from './export-jobs.js';
import { auditFilterOf } from './filters.js';
import { auditLabels } from './labels.js';
import { getAuditLog, listAuditLogs, listAuditModules } from './list-service.js';
import {
  AuditFilterQuery,
  AuditLabelsView,
  AuditLogParams,
  AuditLogQuery,
  AuditLogView,
  DailyReportQuery,
  ModuleOption,
} from './schemas.js';

/** spec §5: the audit list, detail and export (and the daily report built on them). */
export const SYSTEM_AUDIT = 'system_audit';

/** The workbook is streamed as it is written (rows are read in batches). */
const xlsxResponse = { 200: XlsxDownload, ...errorResponses };

/** Aborted when the client goes away (or the answer is done), so a job waiting for its plan stops too. */
function closeSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => controller.abort());
  return controller.signal;
}

const sendWorkbook = (reply: FastifyReply, { fileName, stream }: StreamedFile) => sendXlsx(reply, fileName, stream);

/**
 * Audit views (spec 2.12, 2.13, 4.8; contract §4, §8): the list, one record, the export, the modules
 * present, the static labels and the daily report. Records are written only by the audit triggers.
 */
export function registerAuditRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['audit'];
  const base = `${API_PREFIX}/audit`;
  const cap = () => deps.config.auditExportCap ?? AUDIT_EXPORT_CAP;
  // PostgreSQL: the export and the daily report are built in a thread of lower priority over its own
  // connection (PGlite lives in this thread and cannot be opened from another: built here).
  const exportThread =
    deps.database.kind === 'postgres'
      ? createExportThread<AuditExportJobs>({
          databaseUrl: deps.config.databaseUrl,
          jobs: siblingModule(import.meta.url, 'export-jobs'),
          niceness: deps.config.auditExportNice ?? AUDIT_EXPORT_NICE,
        })
      : null;
  if (exportThread) app.addHook('onClose', () => exportThread.close());
  /** The file of one audit export job: on the export thread, or in process (the same function) on PGlite. */
  const sendFile = async <Name extends keyof AuditExportJobs>(
    ctx: UseCaseContext,
    reply: FastifyReply,
    job: Name,
    input: Parameters<AuditExportJobs[Name]>[1],
  ) => {
    const file = exportThread
      ? await exportThread.run(job, ctx, input, closeSignal(reply))
      : await (exportJobs[job] as ExportJob<Parameters<AuditExportJobs[Name]>[1]>)(ctx, input);
    return sendWorkbook(reply, file);
  };

  app.get(`${base}/logs`, {
    config: { permission: SYSTEM_AUDIT },
    schema: {
      tags,
      summary: '审计日志（最新在前）：模块（入库 为分组）、操作（逗号分隔，含历史别名）、对象关键字、北京时间日期闭区间',
      querystring: AuditLogQuery,
      response: { 200: PageOf(AuditLogView), ...errorResponses },
    },
  }, (request) => listAuditLogs(ctxOf(deps, request), request.query));

  app.get(`${base}/logs/export`, {
    config: { permission: SYSTEM_AUDIT },
    schema: {
      tags,
      summary: '导出审计日志 xlsx（筛选同列表，不分页）：汇总、审计日志、变更明细 三个工作表；上限 100000 条，截断写入文件名与汇总表',
      querystring: AuditFilterQuery,
      response: xlsxResponse,
    },
  }, async (request, reply) => {
    const ctx = ctxOf(deps, request);
    auditFilterOf(ctx, request.query); // a bad filter is refused here, without waking the thread
    return sendFile(ctx, reply, 'auditLogs', { query: request.query, cap: cap() });
  });

  app.get(`${base}/logs/:id`, {
    config: { permission: SYSTEM_AUDIT },
    schema: {
      tags,
      summary: '审计记录详情；不存在或属于其他公司均为 404',
      params: AuditLogParams,
      response: { 200: AuditLogView, ...errorResponses },
    },
  }, (request) => getAuditLog(ctxOf(deps, request), request.params.id));

  app.get(`${base}/modules`, {
    schema: {
      tags,
      summary: '本公司审计记录中出现的模块 [{value,label}]；入库管理、采购入库、成品入库、库存管理 合并为一个选项 入库',
      querystring: Type.Object({ company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效' })) }),
      response: { 200: Type.Array(ModuleOption), ...errorResponses },
    },
  }, (request) => listAuditModules(ctxOf(deps, request), request.query.company));

  app.get(`${base}/labels`, {
    schema: {
      tags,
      summary: '审计显示用的静态标签：字段名、枚举值（先按模块+字段）、ID 引用、快照视图、隐藏字段、模块显示名',
      response: { 200: AuditLabelsView, ...errorResponses },
    },
  }, () => auditLabels());

  app.get(`${base}/daily-report`, {
    config: { permission: SYSTEM_AUDIT },
    schema: {
      tags,
      summary: '审计日报 xlsx：北京时间某日按模块、按人员的新增/修改/删除数量及明细（规则同导出）',
      querystring: DailyReportQuery,
      response: xlsxResponse,
    },
  }, async (request, reply) => {
    return sendFile(ctxOf(deps, request), reply, 'dailyReport', { query: request.query, cap: cap() });
  });
}
