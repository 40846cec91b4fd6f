import { AppError } from '@wms/platform';
import type { LifecyclePhase, ProductStatus } from '../../db/schema/index.js';

/**
 * Status moves a user may make with PATCH /products/{id}. The receivers own the warehouse moves
 * (待仓库收货 → 已入库 on stock-in, → 已出库 on outbound); nobody else makes them.
 */
export const MANUAL_STATUS_MOVES: Readonly<Record<ProductStatus, readonly ProductStatus[]>> = {
  生产中: ['待仓库收货'],
  待仓库收货: ['生产中'],
  已入库: [],
  已出库: ['售后中'],
  售后中: ['已出库', '待仓库收货'],
};

export function assertManualMove(from: ProductStatus, to: ProductStatus): void {
  if (MANUAL_STATUS_MOVES[from].includes(to)) return;
  const allowed = MANUAL_STATUS_MOVES[from];
  const hint = allowed.length ? `，只能改为 ${allowed.join('、')}` : '（该状态由仓库通知更新）';
  throw new AppError('STATUS_NOT_ALLOWED', `产品状态不能从 ${from} 改为 ${to}${hint}`, { status: from });
}

/** A new product starts in production, or directly in after-sales when registered for it. */
export function initialStatusOf(phase: LifecyclePhase): ProductStatus {
  return phase === 'AFTER_SALES' ? '售后中' : '生产中';
}

/**
 * What else a status move changes: finishing production (生产中 → 待仓库收货) stamps completed_at, going
 * back to production clears it, and entering 售后中 puts the product into the AFTER_SALES phase.
 * A repaired product going back to the warehouse keeps its production completion time.
 */
export function effectsOfMove(from: ProductStatus, to: ProductStatus, now: Date): { completedAt?: Date | null; lifecyclePhase?: LifecyclePhase } {
  if (from === '生产中' && to === '待仓库收货') return { completedAt: now };
  if (to === '生产中') return { completedAt: null };
  if (to === '售后中') return { lifecyclePhase: 'AFTER_SALES' };
  return {};
}
