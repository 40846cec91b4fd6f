import type { Queryable } from '../db/database.js';
import { runStatement, statement, type Statement } from '../db/statement.js';
import type { Actor } from './actor.js';

/** An actor as loaded, with the version of the account it was loaded at. */
export interface LoadedActor {
  actor: Actor;
  version: string;
}

/**
 * Where a service's callers come from. The version changes whenever anything the actor is built from
 * changes (the user row, its role's grants); reading it is one primary-key lookup.
 */
export interface ActorSource {
  /** The whole actor; null when the account is gone, inactive or not this service's. */
  load(userId: number): Promise<LoadedActor | null>;
  /** SQL with $1 for the user id: one row with the column `version`, no row when gone or inactive. */
  versionQuery: string;
}

/**
 * The state of one request's actor. A request that took its actor from the cache carries an
 * unconfirmed check until its first round trip to the database has read the account's version.
 */
export interface ActorCheck {
  readonly userId: number;
  readonly version: string;
  confirmed: boolean;
}

/** The account changed since its actor was cached: the request is re-run with the actor loaded again. */
export class ActorChanged extends Error {
  constructor() {
    super('actor changed since it was cached');
  }
}

/** Throws ActorChanged unless the version read now is the one the actor was cached at. */
export function confirmActorVersion(check: ActorCheck, version: string | null): void {
  if (version !== check.version) throw new ActorChanged();
  check.confirmed = true;
}

const CACHED_ACTORS_MAX = 10_000;

/**
 * Actors by user id with the version they were built at. An entry is only ever used together with a
 * version read in the same request, so a deactivation or a role change takes effect on the very next
 * request, in every process.
 */
export class ActorCache {
  private readonly entries = new Map<number, LoadedActor>();

  get(userId: number): LoadedActor | undefined {
    return this.entries.get(userId);
  }

  set(userId: number, loaded: LoadedActor): void {
    this.entries.delete(userId);
    if (this.entries.size >= CACHED_ACTORS_MAX) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(userId, loaded);
  }

  forget(userId: number): void {
    this.entries.delete(userId);
  }
}

const versionStatements = new Map<string, Statement<{ version: string }>>();

/** The account's version now (one prepared primary-key read of the service's version SQL); null when gone or inactive. */
export async function readActorVersion(q: Queryable, versionQuery: string, userId: number): Promise<string | null> {
  let versionOf = versionStatements.get(versionQuery);
  if (!versionOf) versionStatements.set(versionQuery, (versionOf = statement('actor_version', versionQuery)));
  const [row] = await runStatement(q, versionOf, [userId]);
  return row?.version ?? null;
}
