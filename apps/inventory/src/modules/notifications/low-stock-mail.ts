import { toQuantityOrZero } from '@wms/platform';
import type { AlertLevel } from '../../db/schema/index.js';
import type { MaterialSupply } from './effective-supply.js';
import type { OutgoingMail } from './mailer.js';

const LEVEL_NAMES: Record<AlertLevel, string> = { red: '红色', yellow: '黄色' };

const shown = (value: string | null) => (value === null ? '未设置' : String(toQuantityOrZero(value)));

/** The text of one low-stock mail: one material that crossed to `level`. */
export function lowStockMail(material: MaterialSupply, level: AlertLevel, to: readonly string[]): OutgoingMail {
  const name = material.specModel ? `${material.name}（${material.specModel}）` : material.name;
  const unit = /^\d*$/.test(material.unit) ? '' : material.unit;
  const supply = `${toQuantityOrZero(material.supply.toString())}${unit}`;
  return {
    kind: 'low_stock',
    to,
    subject: `【库存${LEVEL_NAMES[level]}预警】${name} 有效库存 ${supply}`,
    body: [
      `物料：${name}`,
      `公司：${material.companyName}`,
      `预警级别：${LEVEL_NAMES[level]}`,
      `有效库存：${supply}（实物库存 ${toQuantityOrZero(material.physical.toString())}，不含不良品；在途 ${toQuantityOrZero(material.inTransit.toString())}）`,
      `红色阈值：${shown(material.redThreshold)}；黄色阈值：${shown(material.yellowThreshold)}`,
      '',
      '请在「待采购」中安排采购。本邮件在库存降至阈值时发送一次，库存回升后再次降低才会再发。',
    ].join('\n'),
  };
}
