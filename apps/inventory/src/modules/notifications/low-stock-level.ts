import { sql, type SQL } from 'drizzle-orm';
import type { Tx } from '@wms/platform';
import { materialStockAlerts, type AlertLevel } from '../../db/schema/index.js';

// The level a supply stands at is decided in SQL by modules/supply (alertLevelSql), the rule the
// pending pool and the material list use too; here only its ordering and the stored state.

const RANK = { none: 0, yellow: 1, red: 2 } as const;
export const severity = (level: AlertLevel | null) => RANK[level ?? 'none'];

const rankSql = (level: SQL | AlertLevel | null): SQL =>
  sql`(case ${level} when 'red' then 2 when 'yellow' then 1 else 0 end)`;

/**
 * Raises the material's alert level to `level` unless it already stands there or higher. True when this
 * call raised it: that is the crossing, and only one of several concurrent checks can win it (the
 * upsert's WHERE is re-checked against the committed row).
 */
export async function claimAlertLevel(tx: Tx, baseId: number, level: AlertLevel, now: Date): Promise<boolean> {
  const raised = await tx
    .insert(materialStockAlerts)
    .values({ baseId, level, alertedAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: materialStockAlerts.baseId,
      set: { level, alertedAt: now, updatedAt: now },
      setWhere: sql`${rankSql(sql`${materialStockAlerts.level}`)} < ${rankSql(level)}`,
    })
    .returning({ baseId: materialStockAlerts.baseId });
  return raised.length > 0;
}

/** Lowers the stored level to `level` (null: not alerted) when supply rose; no mail. */
export async function lowerAlertLevel(tx: Tx, baseId: number, level: AlertLevel | null, now: Date): Promise<void> {
  await tx
    .update(materialStockAlerts)
    .set({ level, updatedAt: now })
    .where(sql`${materialStockAlerts.baseId} = ${baseId} and ${rankSql(sql`${materialStockAlerts.level}`)} > ${rankSql(level)}`);
}
