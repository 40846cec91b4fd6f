import type { Tx } from '@wms/platform';
import { bomLines, bomVersions } from '../db/schema/index.js';

export interface SeededMaterial {
  id: number;
  name: string;
  spec: string;
}

/** Demo BOMs (contract §1: the demo has a BOM): parent [name, spec] → children [name, spec, quantity of use]. */
const DEMO_BOMS: { parent: [string, string]; remark: string; children: [string, string, string][] }[] = [
  {
    parent: ['主控板组件', 'MB-V2'],
    remark: '贴片工艺，回流焊',
    children: [['贴片电阻', '0603 10kΩ', '8'], ['贴片电阻', '0603 1kΩ', '4'], ['陶瓷电容', '0805 100nF', '6'], ['主控芯片', 'STM32F103C8T6', '1']],
  },
  {
    parent: ['智能控制器', 'SC-100'],
    remark: '整机装配，出厂前老化 24 小时',
    children: [['主控板组件', 'MB-V2', '1'], ['电源板组件', 'PB-V1', '1'], ['铝合金外壳', '120×80×40', '1'], ['内六角螺丝', 'M3×8', '4']],
  },
];

/**
 * Publishes the demo BOMs (version 1) of one company's materials and answers, per parent material, the
 * version its finished products are stocked in as built from.
 */
export async function seedDemoBoms(tx: Tx, company: string, seeded: SeededMaterial[]): Promise<Map<number, number>> {
  const idOf = (name: string, spec: string) => seeded.find((m) => m.name === name && m.spec === spec)?.id;
  const builtFrom = new Map<number, number>();
  const now = new Date();
  for (const bom of DEMO_BOMS) {
    const parentId = idOf(...bom.parent);
    if (parentId === undefined) continue;
    const [version] = await tx
      .insert(bomVersions)
      .values({ parentId, companyName: company, version: 1, status: 'published', remark: bom.remark, publishedAt: now, createdAt: now, updatedAt: now })
      .returning();
    const lines = bom.children.flatMap(([name, spec, quantity], index) => {
      const childId = idOf(name, spec);
      return childId === undefined ? [] : [{ bomVersionId: version!.id, parentId, childId, quantity, lineNo: index + 1, companyName: company }];
    });
    await tx.insert(bomLines).values(lines);
    builtFrom.set(parentId, version!.id);
  }
  return builtFrom;
}
