import { Type, type Static } from 'typebox';
import { PageQuery, timeRangeQuery } from '@wms/platform';
import { MAIL_KINDS } from '../../db/schema/index.js';

export const MAIL_STATUSES = ['pending', 'sent', 'failed'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

export const MailView = Type.Object({
  id: Type.Integer(),
  kind: Type.String({ description: 'low_stock 库存预警, purchase_submitted 采购待审批, purchase_decided 采购审批结果' }),
  status: Type.String({ description: 'pending 未交给邮件服务器（未配置 SMTP_URL 时记录即送达）, sent 已发送, failed 发送失败' }),
  to_addresses: Type.Array(Type.String()),
  subject: Type.String(),
  body: Type.String(),
  attempts: Type.Integer({ description: '交给邮件服务器的次数' }),
  error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  sent_at: Type.Union([Type.String(), Type.Null()]),
});
export type MailView = Static<typeof MailView>;

export const MailListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.Union(MAIL_STATUSES.map((status) => Type.Literal(status)), { description: 'pending, sent, failed' })),
  kind: Type.Optional(Type.Union(MAIL_KINDS.map((kind) => Type.Literal(kind)), { description: MAIL_KINDS.join(', ') })),
  keyword: Type.Optional(Type.String({ maxLength: 100, description: '主题或收件人（不区分大小写）' })),
  ...timeRangeQuery('写入时间'),
});
export type MailListQuery = Static<typeof MailListQuery>;
