import { count } from 'drizzle-orm';
import { DEMO_PASSWORD, DEMO_PRODUCT_SERIALS, hashPassword, type Database, type Tx } from '@wms/platform';
import type { TrackingConfig } from '../config.js';
import {
  businessGroupMembers,
  businessGroupPhases,
  businessGroups,
  materials,
  products,
  reminders,
  taskLogs,
  tasks,
  users,
  type LifecyclePhase,
  type ProductStage,
  type ProductStatus,
  type TaskLogAction,
  type TaskStatus,
  type TaskType,
  type TrackingRole,
} from '../db/schema/index.js';

/**
 * Demo data for the tracking service (loaded by `npm start` when the database has no products): the
 * department's people, business groups with phases and members, and products whose serials are the
 * finished products of the inventory demo (DEMO_PRODUCT_SERIALS, stocked in there, so 已入库 here).
 * A few products await receipt (待仓库收货) under other serials, so a stock-in by identity card can be
 * tried; others are in production or after-sales, with tasks, logs and reminders.
 * Usernames follow the inventory demo (`alpha_in` stocks in there): the audit log of a notification
 * then shows the person's display name.
 */
const PEOPLE: ReadonlyArray<readonly [key: string, role: TrackingRole, name: string]> = [
  ['super', 'SUPERVISOR', '张主管'],
  ['eng1', 'ENGINEER', '李工'],
  ['eng2', 'ENGINEER', '王工'],
  ['op1', 'OPERATOR', '赵师傅'],
  ['op2', 'OPERATOR', '钱师傅'],
  ['op3', 'OPERATOR', '孙师傅'],
  ['wh', 'OPERATOR', '吴仓库经理'],
  ['in', 'OPERATOR', '郑仓管（入库）'],
  ['out', 'OPERATOR', '冯仓管（出库）'],
];

const CONTROLLER = '智能控制器';
const GATEWAY = '智能网关';

interface DemoProduct {
  serial: string;
  model: string;
  status: ProductStatus;
  stage: ProductStage;
  phase?: LifecyclePhase;
  group: 'production' | 'assembly' | 'afterSales';
}

/** The inventory demo stocked DEMO_PRODUCT_SERIALS in on its in_date: they are 已入库 here. */
const INVENTORY_DEMO_STOCK_IN = new Date('2026-11-01T01:30:00.000Z');

const PRODUCTS: DemoProduct[] = [
  ...DEMO_PRODUCT_SERIALS.map((serial, index): DemoProduct => ({
    serial,
    model: index < 3 ? CONTROLLER : GATEWAY,
    status: '已入库',
    stage: '包装',
    group: 'production',
  })),
  { serial: 'A00000000000C106', model: CONTROLLER, status: '待仓库收货', stage: '包装', group: 'production' },
  { serial: 'A00000000000C107', model: CONTROLLER, status: '待仓库收货', stage: '包装', group: 'production' },
  { serial: 'A00000000000D202', model: GATEWAY, status: '待仓库收货', stage: '包装', group: 'production' },
  { serial: 'A00000000000C108', model: CONTROLLER, status: '生产中', stage: '调试', group: 'assembly' },
  { serial: 'A00000000000C109', model: CONTROLLER, status: '生产中', stage: '老化', group: 'production' },
  { serial: 'A00000000000D203', model: GATEWAY, status: '生产中', stage: '装配', group: 'assembly' },
  { serial: 'A00000000000D301', model: GATEWAY, status: '售后中', stage: '检验', phase: 'AFTER_SALES', group: 'afterSales' },
];

interface DemoTask {
  serial: string;
  title: string;
  type: TaskType;
  stage: ProductStage | null;
  status: TaskStatus;
  assignee: string;
  /** Days from today; negative is overdue. */
  dueInDays: number;
  /** Logs after CREATE, with hours. */
  logs: Array<[TaskLogAction, string, number]>;
}

const TASKS: DemoTask[] = [
  {
    serial: 'A00000000000C108', title: '调试主控板固件', type: 'PRODUCTION', stage: '调试', status: 'IN_PROGRESS', assignee: 'op1', dueInDays: 2,
    logs: [['START', '开始调试', 0], ['PROGRESS', '串口通信正常，继续测试网口', 2.5]],
  },
  {
    serial: 'A00000000000C108', title: '装配外壳与面板', type: 'PRODUCTION', stage: '装配', status: 'DONE', assignee: 'op2', dueInDays: -3,
    logs: [['START', '开始装配', 0], ['FINISH', '装配完成', 3]],
  },
  { serial: 'A00000000000C109', title: '老化测试 48 小时', type: 'PRODUCTION', stage: '老化', status: 'TODO', assignee: 'op2', dueInDays: 1, logs: [] },
  { serial: 'A00000000000D203', title: '装配底板与电源板', type: 'PRODUCTION', stage: '装配', status: 'TODO', assignee: 'op1', dueInDays: -1, logs: [] },
  {
    serial: 'A00000000000C106', title: '出厂检验', type: 'INSPECTION', stage: '检验', status: 'DONE', assignee: 'eng1', dueInDays: -2,
    logs: [['START', '开始检验', 0], ['FINISH', '检验合格，待入库', 1.5]],
  },
  {
    serial: 'A00000000000D301', title: '客户返修：网口无响应', type: 'REPAIR', stage: null, status: 'IN_PROGRESS', assignee: 'eng2', dueInDays: 5,
    logs: [['START', '已收到返修件', 0], ['COMMENT', '初步判断为网口变压器损坏', 0.5]],
  },
];

const DAY = 24 * 3600 * 1000;

export async function seedTrackingDemoIfEmpty(database: Database, config: Pick<TrackingConfig, 'orgDepartment' | 'materialCategoryPrefix'>): Promise<boolean> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  return database.transaction({ actor: 'system', company: config.orgDepartment }, async (tx) => {
    const [existing] = await tx.select({ n: count() }).from(products);
    if (existing?.n) return false;
    const now = new Date();
    const people = await seedPeople(tx, config.orgDepartment, passwordHash);
    const groups = await seedGroups(tx, people);
    await tx.insert(materials).values([
      { name: CONTROLLER, category: `${config.materialCategoryPrefix}/成品/控制器` },
      { name: GATEWAY, category: `${config.materialCategoryPrefix}/成品/网关` },
    ]).onConflictDoNothing();
    const productIds = await seedProducts(tx, groups, now);
    await seedTasks(tx, people, productIds, now);
    return true;
  });
}

async function seedPeople(tx: Tx, department: string, passwordHash: string): Promise<Map<string, number>> {
  const prefix = department.toLowerCase();
  await tx
    .insert(users)
    .values(PEOPLE.map(([key, role, name]) => ({ username: `${prefix}_${key}`, passwordHash, name, role, department })))
    .onConflictDoNothing();
  const rows = await tx.select({ id: users.id, username: users.username }).from(users);
  const byKey = new Map<string, number>();
  for (const [key] of PEOPLE) {
    const row = rows.find((user) => user.username === `${prefix}_${key}`);
    if (row) byKey.set(key, row.id);
  }
  return byKey;
}

async function seedGroups(tx: Tx, people: Map<string, number>): Promise<Record<DemoProduct['group'], number>> {
  const [production] = await tx.insert(businessGroups).values({ name: '生产部' }).returning({ id: businessGroups.id });
  const [assembly] = await tx.insert(businessGroups).values({ name: '装配班', parentId: production!.id }).returning({ id: businessGroups.id });
  const [afterSales] = await tx.insert(businessGroups).values({ name: '售后服务组' }).returning({ id: businessGroups.id });
  // the assembly team has no phases of its own: it inherits 生产 from its parent
  await tx.insert(businessGroupPhases).values([
    { groupId: production!.id, phase: 'PRODUCTION' },
    { groupId: afterSales!.id, phase: 'AFTER_SALES' },
  ]);
  const members: Array<[number, string, boolean]> = [
    [production!.id, 'eng1', true],
    [production!.id, 'op1', false],
    [production!.id, 'op2', false],
    [assembly!.id, 'op1', true],
    [assembly!.id, 'op2', false],
    [afterSales!.id, 'eng2', true],
    [afterSales!.id, 'op3', false],
  ];
  const rows = members
    .filter(([, key]) => people.has(key))
    .map(([groupId, key, isLeader]) => ({ groupId, userId: people.get(key)!, isLeader }));
  if (rows.length) await tx.insert(businessGroupMembers).values(rows).onConflictDoNothing();
  return { production: production!.id, assembly: assembly!.id, afterSales: afterSales!.id };
}

async function seedProducts(tx: Tx, groups: Record<DemoProduct['group'], number>, now: Date): Promise<Map<string, number>> {
  const rows = await tx
    .insert(products)
    .values(
      PRODUCTS.map((product, index) => {
        const stockedIn = product.status === '已入库';
        const finished = stockedIn || product.status === '待仓库收货';
        const createdAt = stockedIn ? new Date(INVENTORY_DEMO_STOCK_IN.getTime() - 10 * DAY) : new Date(now.getTime() - (12 - index) * DAY);
        return {
          serialNumber: product.serial,
          model: product.model,
          status: product.status,
          lifecyclePhase: product.phase ?? 'PRODUCTION',
          currentStage: product.stage,
          groupId: groups[product.group],
          createdAt,
          updatedAt: stockedIn ? INVENTORY_DEMO_STOCK_IN : now,
          completedAt: stockedIn ? new Date(INVENTORY_DEMO_STOCK_IN.getTime() - 2 * DAY) : finished ? new Date(now.getTime() - DAY) : null,
          stockedInAt: stockedIn ? INVENTORY_DEMO_STOCK_IN : null,
        };
      }),
    )
    .onConflictDoNothing()
    .returning({ id: products.id, serial: products.serialNumber });
  return new Map(rows.map((row) => [row.serial, row.id]));
}

async function seedTasks(tx: Tx, people: Map<string, number>, productIds: Map<string, number>, now: Date): Promise<void> {
  const creator = people.get('super');
  for (const [index, demo] of TASKS.entries()) {
    const productId = productIds.get(demo.serial);
    const assigneeId = people.get(demo.assignee);
    if (!productId || !assigneeId || !creator) continue;
    const createdAt = new Date(now.getTime() - (6 - index * 0.5) * DAY);
    const hours = demo.logs.reduce((sum, [, , h]) => sum + h, 0);
    const startedAt = demo.status === 'TODO' ? null : new Date(createdAt.getTime() + 3600_000);
    const finishedAt = demo.status === 'DONE' ? new Date(createdAt.getTime() + 5 * 3600_000) : null;
    const [task] = await tx
      .insert(tasks)
      .values({
        productId,
        title: demo.title,
        type: demo.type,
        stage: demo.stage,
        status: demo.status,
        assigneeId,
        dueDate: new Date(now.getTime() + demo.dueInDays * DAY).toISOString().slice(0, 10),
        startedAt,
        finishedAt,
        hours: String(hours),
        createdBy: creator,
        createdAt,
        updatedAt: finishedAt ?? startedAt ?? createdAt,
      })
      .returning({ id: tasks.id });
    const logs: Array<typeof taskLogs.$inferInsert> = [
      { taskId: task!.id, userId: creator, action: 'CREATE', content: `创建任务：${demo.title}`, createdAt },
      ...demo.logs.map(([action, content, h], step) => ({
        taskId: task!.id,
        userId: assigneeId,
        action,
        content,
        hours: String(h),
        createdAt: new Date(createdAt.getTime() + (step + 1) * 3600_000),
      })),
    ];
    await tx.insert(taskLogs).values(logs);
    await tx.insert(reminders).values({
      userId: assigneeId,
      taskId: task!.id,
      content: `新任务指派给您：${demo.title}（产品 ${demo.serial}）`,
      readAt: demo.status === 'TODO' ? null : new Date(createdAt.getTime() + 1800_000),
      createdAt,
    });
  }
}
