import { count } from 'drizzle-orm';
import { DEMO_COMPANIES, DEMO_PASSWORD, DEMO_PRODUCT_SERIALS, hashPassword, type Database, type Tx } from '@wms/platform';
import { materials, stockRows, users, type StockKind } from '../db/schema/index.js';
import { seedDemoBoms } from './demo-bom.js';

/**
 * Demo data that makes the product explorable (issue 2): two companies, a user for every role in each,
 * a few dozen materials in category trees, published BOMs, and stock rows of all three kinds in nested locations.
 * Loaded only into an empty database.
 */
const DEMO_ROLES = [
  ['super', 'SUPERVISOR', '主管'],
  ['wh', 'WAREHOUSE_MGR', '仓库经理'],
  ['in', 'INBOUND', '入库员'],
  ['out', 'OUTBOUND', '出库员'],
  ['sales', 'SALES', '销售'],
] as const;

interface DemoMaterial {
  name: string;
  spec: string;
  category: string;
  unit: string;
  price: string;
  kind: StockKind;
}

function materialsOf(company: string): DemoMaterial[] {
  const parts: DemoMaterial[] = [
    ...['1kΩ', '4.7kΩ', '10kΩ', '100kΩ'].map((spec) => ({ name: '贴片电阻', spec: `0603 ${spec}`, category: `${company}/电子元件/电阻`, unit: '个', price: '0.02', kind: 'stock_buy' as const })),
    ...['10uF', '100nF', '1uF'].map((spec) => ({ name: '陶瓷电容', spec: `0805 ${spec}`, category: `${company}/电子元件/电容`, unit: '个', price: '0.05', kind: 'stock_buy' as const })),
    ...['STM32F103C8T6', 'ESP32-S3'].map((spec) => ({ name: '主控芯片', spec, category: `${company}/电子元件/芯片`, unit: '片', price: '12.50', kind: 'stock_buy' as const })),
    ...['M3×8', 'M4×12', 'M5×16'].map((spec) => ({ name: '内六角螺丝', spec, category: `${company}/机械件/紧固件`, unit: '颗', price: '0.10', kind: 'stock_buy' as const })),
    { name: '铝合金外壳', spec: '120×80×40', category: `${company}/机械件/外壳`, unit: '个', price: '35.00', kind: 'stock_buy' },
    { name: '万用表', spec: 'FLUKE 17B+', category: `${company}/工具/仪表`, unit: '台', price: '980.00', kind: 'stock_buy' },
    { name: '示波器探头', spec: '100MHz', category: `${company}/工具/仪表`, unit: '支', price: '150.00', kind: 'stock_buy' },
    { name: '主控板组件', spec: 'MB-V2', category: `${company}/半成品/电路板`, unit: '块', price: '80.00', kind: 'stock_semi' },
    { name: '电源板组件', spec: 'PB-V1', category: `${company}/半成品/电路板`, unit: '块', price: '45.00', kind: 'stock_semi' },
    { name: '智能控制器', spec: 'SC-100', category: `${company}/成品/控制器`, unit: '台', price: '1200.00', kind: 'stock_product' },
    { name: '智能网关', spec: 'GW-200', category: `${company}/成品/网关`, unit: '台', price: '2100.00', kind: 'stock_product' },
  ];
  return parts;
}

const LOCATIONS = ['A区/01排/01层', 'A区/01排/02层', 'A区/02排/01层', 'B区/01排/01层', 'B区/03排/02层', 'C区/成品架/01格'];

export async function seedDemoIfEmpty(database: Database): Promise<boolean> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  return database.transaction({ actor: 'system' }, async (tx) => {
    const [existing] = await tx.select({ n: count() }).from(materials);
    if (existing?.n) return false;
    await seedUsers(tx, passwordHash);
    for (const company of DEMO_COMPANIES) await seedCompanyStock(tx, company);
    return true;
  });
}

async function seedUsers(tx: Tx, passwordHash: string) {
  const rows = DEMO_COMPANIES.flatMap((company) =>
    DEMO_ROLES.map(([suffix, role, title]) => ({
      username: `${company.toLowerCase()}_${suffix}`,
      passwordHash,
      name: `${company}${title}`,
      role,
      companyName: company,
      email: `${company.toLowerCase()}_${suffix}@example.com`,
    })),
  );
  await tx.insert(users).values(rows).onConflictDoNothing({ target: users.username });
}

async function seedCompanyStock(tx: Tx, company: string) {
  const inserted = await tx
    .insert(materials)
    .values(
      materialsOf(company).map((m, index) => ({
        name: m.name,
        specModel: m.spec,
        category: m.category,
        unit: m.unit,
        companyName: company,
        referencePrice: m.price,
        redThreshold: m.kind === 'stock_buy' ? '20' : '1',
        yellowThreshold: m.kind === 'stock_buy' ? '50' : '2',
        targetThreshold: m.kind === 'stock_buy' ? '200' : '5',
        remark: index % 4 === 0 ? '常用物料' : null,
      })),
    )
    .returning({ id: materials.id, category: materials.category });
  const kinds = materialsOf(company);
  const builtFrom = await seedDemoBoms(tx, company, inserted.map((material, index) => ({ id: material.id, name: kinds[index]!.name, spec: kinds[index]!.spec })));
  let serialIndex = 0;
  const stock = inserted.flatMap((material, index) => {
    const kind = kinds[index]!.kind;
    const count = kind === 'stock_product' ? 3 : 2;
    return Array.from({ length: count }, (_, n) => {
      const quantity = kind === 'stock_product' ? '1' : String(100 * (n + 1) + index * 10);
      const serial = kind === 'stock_product' ? nextSerial(company, serialIndex++) : null;
      return {
        sourceTable: kind,
        sku: `${company}-${kind.slice(6).toUpperCase()}-${String(material.id).padStart(4, '0')}-${n + 1}`,
        baseId: material.id,
        stockQuantity: quantity,
        availableQuantity: quantity,
        inQuantity: quantity,
        warehouseLocation: LOCATIONS[(index + n) % LOCATIONS.length]!,
        batchNumber: kind === 'stock_product' ? null : `B2026${String(index + 1).padStart(2, '0')}${n + 1}`,
        serialNumber: serial,
        inDate: '2026-11-01',
        unitCost: kind === 'stock_buy' ? '1.00' : null,
        bomVersionId: kind === 'stock_product' ? (builtFrom.get(material.id) ?? null) : null,
      };
    });
  });
  await tx.insert(stockRows).values(stock);
}

/** ALPHA's products carry the shared demo serials; BETA's get their own. */
function nextSerial(company: string, index: number): string {
  if (company === 'ALPHA' && index < DEMO_PRODUCT_SERIALS.length) return DEMO_PRODUCT_SERIALS[index]!;
  return `${company[0]}${(0xb000 + index).toString(16).toUpperCase().padStart(15, '0')}`;
}
