import type { MaterialRow, ProductRow } from '../../db/schema/index.js';
import type { MaterialView, ProductView } from './schemas.js';

export function toProductView(row: ProductRow): ProductView {
  return {
    id: row.id,
    serial_number: row.serialNumber,
    model: row.model,
    base_id: row.baseId,
    status: row.status,
    lifecycle_phase: row.lifecyclePhase,
    current_stage: row.currentStage,
    group_id: row.groupId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
  };
}

export function toMaterialView(row: MaterialRow): MaterialView {
  return {
    id: row.id,
    base_id: row.baseId,
    name: row.name,
    category: row.category,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
