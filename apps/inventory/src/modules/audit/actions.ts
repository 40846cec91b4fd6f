import { validationFailed } from '@wms/platform';

export const AUDIT_ACTIONS = ['CREATE', 'UPDATE', 'DELETE'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Every stored spelling of an action (spec 2.12: historical Chinese aliases are folded in). Older
 * records wrote the verb of the page that made the change; the trigger writes the canonical value.
 */
export const ACTION_ALIASES: Readonly<Record<AuditAction, readonly string[]>> = {
  CREATE: ['CREATE', 'INSERT', 'create', 'insert', '新增', '创建', '添加', '新建'],
  UPDATE: ['UPDATE', 'update', '修改', '更新', '编辑'],
  DELETE: ['DELETE', 'delete', '删除', '移除'],
};

export const ACTION_LABELS: Readonly<Record<AuditAction, string>> = { CREATE: '新增', UPDATE: '修改', DELETE: '删除' };

const CANONICAL = new Map<string, AuditAction>(
  AUDIT_ACTIONS.flatMap((action) => ACTION_ALIASES[action].map((alias) => [alias.toUpperCase(), action] as const)),
);

/** The canonical action of a stored value; an unknown value is answered as stored. */
export function normaliseAction(stored: string): AuditAction | string {
  return CANONICAL.get(stored.trim().toUpperCase()) ?? stored;
}

/**
 * `action=CREATE,修改` → the canonical actions asked for (commas, full-width commas and spaces
 * separate; aliases and lower case accepted). An unknown action is a validation error naming it.
 */
export function parseActionFilter(text: string | undefined): AuditAction[] {
  const parts = (text ?? '').split(/[,，\s]+/).map((part) => part.trim()).filter(Boolean);
  const actions = new Set<AuditAction>();
  for (const part of parts) {
    const action = CANONICAL.get(part.toUpperCase());
    if (!action) throw validationFailed(`字段 action 不合法: ${part}（可选 CREATE、UPDATE、DELETE 或 新增、修改、删除 等）`, { field: 'action' });
    actions.add(action);
  }
  return [...actions];
}

/**
 * The stored values that mean one of these actions, as compared by the filter: trimmed and upper-cased
 * (`upper(btrim(action))`), the way normaliseAction reads them, so the filter finds what the answers show.
 */
export const storedActionsOf = (actions: readonly AuditAction[]): string[] => [
  ...new Set(actions.flatMap((action) => ACTION_ALIASES[action].map((alias) => alias.toUpperCase()))),
];
