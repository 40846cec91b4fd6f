import type { Queryable, UseCaseContext } from '@wms/platform';
import type { UngroupedScope } from '../../config.js';

export const LIFECYCLE_PHASES = ['PRODUCTION', 'AFTER_SALES'] as const;
export type LifecyclePhase = (typeof LIFECYCLE_PHASES)[number];

/** Display labels come from the server (spec §2). */
export const PHASE_LABELS: Readonly<Record<LifecyclePhase, string>> = { PRODUCTION: '生产', AFTER_SALES: '售后' };

/**
 * What a user may see. `unrestricted` means no filter at all; otherwise only `phases` are visible,
 * and an empty list shows nothing (an explicit false, never "no filter").
 */
export interface DataScope {
  phases: LifecyclePhase[];
  unrestricted: boolean;
}

/** Phases granted by the user's active business groups, or null when the user is in no active group. */
export type GroupPhasesLoader = (q: Queryable, userId: number) => Promise<readonly LifecyclePhase[] | null>;

/** The loader while business groups do not exist yet: every user is ungrouped. */
export const withoutBusinessGroups: GroupPhasesLoader = async () => null;

export type ScopeRule = 'super_admin' | 'groups' | 'ungrouped_supervisor' | 'ungrouped_all' | 'ungrouped_none';

const everything = (): DataScope => ({ phases: [...LIFECYCLE_PHASES], unrestricted: true });

/** The data scope decision of spec §3; the first matching rule wins. */
export function decideDataScope(
  role: string,
  groupPhases: readonly LifecyclePhase[] | null,
  ungrouped: UngroupedScope,
): { scope: DataScope; rule: ScopeRule } {
  if (role === 'SUPER_ADMIN') return { scope: everything(), rule: 'super_admin' };
  if (groupPhases !== null) {
    const phases = LIFECYCLE_PHASES.filter((phase) => groupPhases.includes(phase));
    return { scope: { phases, unrestricted: false }, rule: 'groups' };
  }
  if (role === 'SUPERVISOR') return { scope: everything(), rule: 'ungrouped_supervisor' };
  if (ungrouped === 'ALL') return { scope: everything(), rule: 'ungrouped_all' };
  return { scope: { phases: [], unrestricted: false }, rule: 'ungrouped_none' };
}

export interface DataScopeResolver {
  scopeOf(ctx: UseCaseContext): Promise<DataScope>;
}

/**
 * Resolves the caller's scope on every call (a group change takes effect at once). Ungrouped users
 * let through by DATA_SCOPE_UNGROUPED=ALL are named in a warning, once per user and process.
 */
export function createDataScopeResolver(options: {
  ungrouped: UngroupedScope;
  loadGroupPhases: GroupPhasesLoader;
  warn: (message: string) => void;
}): DataScopeResolver {
  const warned = new Set<number>();
  return {
    async scopeOf(ctx) {
      const { actor } = ctx;
      const groupPhases = actor.role === 'SUPER_ADMIN' ? null : await ctx.read((q) => options.loadGroupPhases(q, actor.id));
      const { scope, rule } = decideDataScope(actor.role, groupPhases, options.ungrouped);
      if (rule === 'ungrouped_all' && !warned.has(actor.id)) {
        warned.add(actor.id);
        options.warn(`用户 ${actor.username} 未加入任何业务组，按 DATA_SCOPE_UNGROUPED=ALL 可见全部数据（过渡期设置）`);
      }
      return scope;
    },
  };
}

export interface DataScopeView {
  phases: LifecyclePhase[];
  labels: Record<string, string>;
  unrestricted: boolean;
}

/** The scope object of GET /auth/me: visible phases with their labels. */
export function toScopeView(scope: DataScope): DataScopeView {
  return {
    phases: scope.phases,
    labels: Object.fromEntries(scope.phases.map((phase) => [phase, PHASE_LABELS[phase]])),
    unrestricted: scope.unrestricted,
  };
}
