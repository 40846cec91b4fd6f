import { and, asc, eq, sql } from 'drizzle-orm';
import { queryRows } from '@wms/platform';
import { businessGroups, PRODUCT_STAGES, PRODUCT_STATUSES, products, TASK_STATUSES, TASK_TYPES, taskLogs, tasks, users } from '../../../db/schema/index.js';
import { PHASE_LABELS, type TrackingContext } from '../../identity/data-scope.js';
import { toProductView } from '../../products/product-mapper.js';
import { selectTaskRecords } from '../../tasks/task-access.js';
import { toTaskView } from '../../tasks/task-mapper.js';
import { statusLabel } from '../../tasks/task-status.js';
import { selectActivity, toActivityView } from '../activity.js';
import { productFilterOf } from '../stats-filters.js';
import { TASK_TYPE_LABELS } from '../labels.js';
import type { DeviceRecordQuery } from './schemas.js';

/** Values present in the data, in the canonical order of `all`. */
const present = <T extends string>(all: readonly T[], found: readonly (string | null)[]) => all.filter((value) => found.includes(value));

interface ProductOptionsRow {
  statuses: string[];
  stages: string[];
  models: string[];
}

interface TaskOptionsRow {
  types: string[];
  statuses: string[];
  stages: string[];
}

/**
 * GET /analytics/filter-options: the choices for the statistics filters, taken from the data the caller
 * may see (spec 4.3: option lists are filtered). An empty scope gets empty lists. Four queries.
 */
export async function filterOptions(ctx: TrackingContext) {
  const scope = await ctx.dataScope();
  const where = productFilterOf(scope) ?? sql`true`;
  const taskSource = sql`from ${tasks} join ${products} on ${products.id} = ${tasks.productId}`;
  return ctx.read(async (q) => {
    const [productOptions] = await queryRows<ProductOptionsRow>(
      q,
      sql`select coalesce(json_agg(distinct ${products.status}), '[]') as statuses,
                 coalesce(json_agg(distinct ${products.currentStage}), '[]') as stages,
                 coalesce(json_agg(distinct ${products.model} order by ${products.model}), '[]') as models
            from ${products} where ${where}`,
    );
    const [taskOptions] = await queryRows<TaskOptionsRow>(
      q,
      sql`select coalesce(json_agg(distinct ${tasks.type}), '[]') as types,
                 coalesce(json_agg(distinct ${tasks.status}), '[]') as statuses,
                 coalesce(json_agg(distinct ${tasks.stage}) filter (where ${tasks.stage} is not null), '[]') as stages
            ${taskSource} where ${where}`,
    );
    const groups = await q
      .selectDistinct({ id: businessGroups.id, name: businessGroups.name })
      .from(products)
      .innerJoin(businessGroups, eq(businessGroups.id, products.groupId))
      .where(where)
      .orderBy(asc(businessGroups.name), asc(businessGroups.id));
    const people = await queryRows<{ id: number; name: string }>(
      q,
      sql`select ${users.id} as id, ${users.name} as name from ${users}
           where ${users.id} in (
             select ${tasks.assigneeId} ${taskSource} where ${where} and ${tasks.assigneeId} is not null
             union
             select ${taskLogs.userId} from ${taskLogs} join ${tasks} on ${tasks.id} = ${taskLogs.taskId}
               join ${products} on ${products.id} = ${tasks.productId} where ${where})
           order by ${users.name}, ${users.id}`,
    );
    const stages = [...(productOptions?.stages ?? []), ...(taskOptions?.stages ?? [])];
    return {
      phases: scope.phases.map((phase) => ({ value: phase, label: PHASE_LABELS[phase] })),
      statuses: present(PRODUCT_STATUSES, productOptions?.statuses ?? []).map((status) => ({ value: status, label: status })),
      stages: present(PRODUCT_STAGES, stages).map((stage) => ({ value: stage, label: stage })),
      models: productOptions?.models ?? [],
      groups,
      task_types: present(TASK_TYPES, taskOptions?.types ?? []).map((type) => ({ value: type, label: TASK_TYPE_LABELS[type] })),
      task_statuses: present(TASK_STATUSES, taskOptions?.statuses ?? []).map((status) => ({ value: status, label: statusLabel(status) })),
      users: people,
    };
  });
}

/**
 * GET /analytics/device-record?sn=: the record of one device (product, its tasks, its logs in time
 * order). A serial outside the caller's scope, like an unknown one, answers an empty list (spec 4.3),
 * not 403 or 404. The serial is matched exactly, upper-cased like the scan.
 */
export async function deviceRecord(ctx: TrackingContext, query: DeviceRecordQuery) {
  const serial = query.sn.trim().toUpperCase();
  const where = and(productFilterOf(await ctx.dataScope()), eq(products.serialNumber, serial));
  return ctx.read(async (q) => {
    const [product] = await q.select().from(products).where(where);
    if (!product) return [];
    const taskRows = await selectTaskRecords(q).where(eq(tasks.productId, product.id)).orderBy(asc(tasks.id));
    const logRows = await selectActivity(q).where(eq(tasks.productId, product.id)).orderBy(asc(taskLogs.createdAt), asc(taskLogs.id));
    return [
      {
        product: toProductView(product),
        stocked_in_at: product.stockedInAt?.toISOString() ?? null,
        shipped_at: product.shippedAt?.toISOString() ?? null,
        tasks: taskRows.map(toTaskView),
        logs: logRows.map(toActivityView),
      },
    ];
  });
}
