import { sql } from 'drizzle-orm';
import { queryRows, type Queryable, type UseCaseContext } from '@wms/platform';
import type { UngroupedScope } from '../../config.js';
import { businessGroupMembers, businessGroupPhases, businessGroups, LIFECYCLE_PHASES, type LifecyclePhase } from '../../db/schema/index.js';

export { LIFECYCLE_PHASES, type LifecyclePhase };

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

/**
 * The phases of the user's active groups (spec §3 rule 2). A sub-group counts as active only while its
 * parent is active too (deactivating a group switches off its whole branch), and a sub-group without
 * phase rows of its own inherits its parent's. A user whose active groups grant no phase gets an empty
 * list (grouped, sees nothing); a user in no active group gets null (the ungrouped rules decide).
 */
export const loadGroupPhases: GroupPhasesLoader = async (q, userId) => {
  const rows = await queryRows<{ phase: LifecyclePhase | null }>(
    q,
    sql`with my_groups as (
          select g.id, g.parent_id
            from ${businessGroupMembers} m
            join ${businessGroups} g on g.id = m.group_id
            left join ${businessGroups} p on p.id = g.parent_id
           where m.user_id = ${userId} and g.active and coalesce(p.active, true)
        )
        select ph.phase
          from my_groups mg
          left join ${businessGroupPhases} ph on ph.group_id = case
            when exists (select 1 from ${businessGroupPhases} own where own.group_id = mg.id) then mg.id
            else mg.parent_id
          end`,
  );
  if (rows.length === 0) return null;
  return LIFECYCLE_PHASES.filter((phase) => rows.some((row) => row.phase === phase));
};

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

/**
 * The use-case context of the tracking service: the platform context plus the caller's data scope,
 * resolved at most once per context. Resolve it BEFORE opening a transaction: in PGlite mode a read
 * inside a transaction would wait for the transaction's own lock.
 */
export interface TrackingContext extends UseCaseContext {
  dataScope(): Promise<DataScope>;
}

export function withDataScope(ctx: UseCaseContext, resolver: DataScopeResolver): TrackingContext {
  let resolved: Promise<DataScope> | undefined;
  return Object.assign(ctx, { dataScope: () => (resolved ??= resolver.scopeOf(ctx)) });
}

/** Whether the scope shows rows of this lifecycle phase. */
export function scopeShows(scope: DataScope, phase: LifecyclePhase): boolean {
  return scope.unrestricted || scope.phases.includes(phase);
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
