import { and, eq } from 'drizzle-orm';
import { AppError, companyCondition, isCrossDomain, notFound, scopeAllows, type Actor, type CompanyScope, type Queryable, type Tx } from '@wms/platform';
import { stocktakeSessions, type StocktakeSessionRow } from '../../db/schema/index.js';
import { companyForRead } from '../identity/company-rules.js';
import type { SessionView } from './schemas.js';

const SESSION = '盘点会话';

/** A session of the caller's scope; another company's and unknown ids are both 404. */
export async function readSession(q: Queryable, scope: CompanyScope, id: number): Promise<StocktakeSessionRow | undefined> {
  const [session] = await q.select().from(stocktakeSessions).where(and(eq(stocktakeSessions.id, id), companyCondition(scope, stocktakeSessions.companyName)));
  return session;
}

/**
 * The session a read names, for the reads that answer a missing session as blind (spec 4.6 rule 3: "also
 * when the session row is missing"): undefined when no session has that id, 404 when it is another
 * company's (contract §3: another company's id is 404).
 */
export async function readSessionUnlessForeign(q: Queryable, scope: CompanyScope, id: number): Promise<StocktakeSessionRow | undefined> {
  const [session] = await q.select().from(stocktakeSessions).where(eq(stocktakeSessions.id, id));
  if (session && !scopeAllows(scope, session.companyName)) throw notFound(SESSION);
  return session;
}

/**
 * Whose active session "the" active session is (active-session, all-items without session_id): the caller's
 * company, or the one a cross-domain caller names. A cross-domain caller who names none sees every company
 * (spec 2.1), so gets the one company with an active session, null when no company has one, and 400
 * COMPANY_REQUIRED only when several have one (which is "the" one is then theirs to say).
 */
export async function companyOfActiveSession(q: Queryable, actor: Actor, requested: string | undefined): Promise<string | null> {
  // a caller whose token carries no company has no session (spec 2.1: the filter matches nothing)
  if (!isCrossDomain(actor)) return actor.company ?? null;
  if (requested?.trim()) return companyForRead(actor, requested);
  // one active session per company (the partial unique index), so two rows are two companies
  const active = await q
    .select({ company: stocktakeSessions.companyName })
    .from(stocktakeSessions)
    .where(eq(stocktakeSessions.status, 'active'))
    .limit(2);
  if (active.length > 1) {
    throw new AppError('COMPANY_REQUIRED', '多个公司都有进行中的盘点，跨公司账号须用 company 参数指定公司', { field: 'company' });
  }
  return active[0]?.company ?? null;
}

export async function requireSession(q: Queryable, scope: CompanyScope, id: number): Promise<StocktakeSessionRow> {
  const session = await readSession(q, scope, id);
  if (!session) throw notFound(SESSION);
  return session;
}

/**
 * Locks a session of the caller's scope. Writers of counts take it shared (parallel scans go on side by
 * side) and check it is still active; generate-missing and start-new finish it under an exclusive lock,
 * so no count lands in a session after it was closed.
 */
export async function lockSession(tx: Tx, scope: CompanyScope, id: number, strength: 'share' | 'update'): Promise<StocktakeSessionRow> {
  const [session] = await tx
    .select()
    .from(stocktakeSessions)
    .where(and(eq(stocktakeSessions.id, id), companyCondition(scope, stocktakeSessions.companyName)))
    .for(strength === 'share' ? 'share' : 'update');
  if (!session) throw notFound(SESSION);
  return session;
}

export function assertActive(session: StocktakeSessionRow): void {
  if (session.status !== 'active') {
    throw new AppError('STATUS_NOT_ALLOWED', `盘点会话 ${session.id} 已结束，不能再修改盘点记录`, { status: session.status });
  }
}

/**
 * Spec 4.6 rules 3 and 8: book quantity and variance stay hidden while a blind session is active, and also
 * when the session cannot be found (a missing session never falls back to showing the book).
 */
export function bookHidden(session: Pick<StocktakeSessionRow, 'mode' | 'status'> | undefined | null): boolean {
  return !session || (session.mode === 'blind' && session.status === 'active');
}

export function toSessionView(session: StocktakeSessionRow): SessionView {
  return {
    session_id: session.id,
    company_name: session.companyName,
    mode: session.mode,
    scope_type: session.scopeType,
    scope_config: { locations: session.scopeConfig.locations },
    status: session.status,
    finish_reason: session.finishReason ?? null,
    initiator: session.initiatorName,
    initiator_id: session.initiatorId,
    started_at: session.startedAt.toISOString(),
    finished_at: session.finishedAt?.toISOString() ?? null,
  };
}
