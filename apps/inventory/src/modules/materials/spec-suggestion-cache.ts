import type { CompanyScope } from '@wms/platform';

const ONE_HOUR_MS = 60 * 60 * 1000;
/** Bounds memory: past this many distinct queries the oldest entry goes first. */
const MAX_ENTRIES = 2000;

interface Entry {
  expiresAt: number;
  values: string[];
}

/**
 * Spec-model suggestions cached one hour per (company scope, query) (spec §8). Any material
 * create, update or delete clears the whole cache, so a suggestion never outlives the data it came
 * from in this process. One cache per process: the service runs one app per process, and the cache is
 * emptied when that app closes (the tests build apps one after another in one process).
 */
export class SpecSuggestionCache {
  private readonly entries = new Map<string, Entry>();
  private clears = 0;

  /** Taken before a query and handed to set(): a result read before a clear is never stored after it. */
  get generation(): number {
    return this.clears;
  }

  static keyOf(scope: CompanyScope, query: { keyword: string; name: string }): string {
    const company = scope.kind === 'one' ? `one:${scope.company}` : scope.kind;
    return JSON.stringify([company, query.keyword.toLowerCase(), query.name.toLowerCase()]);
  }

  get(key: string, now: Date): string[] | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now.getTime()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.values;
  }

  set(key: string, values: string[], now: Date, generation: number): void {
    if (generation !== this.clears) return;
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { expiresAt: now.getTime() + ONE_HOUR_MS, values });
  }

  clear(): void {
    this.clears += 1;
    this.entries.clear();
  }
}

export const specSuggestionCache = new SpecSuggestionCache();
