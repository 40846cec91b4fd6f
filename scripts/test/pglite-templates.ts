import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { writePgliteTemplate } from '@wms/platform/testing';
import { INVENTORY_MIGRATIONS, INVENTORY_PGLITE_EXTENSIONS } from '../../apps/inventory/src/app.js';
import { TRACKING_MIGRATIONS } from '../../apps/tracking/src/app.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Each service's migrated PGlite database (writePgliteTemplate); null on PostgreSQL. */
    pgliteTemplates: { inventory: string; tracking: string } | null;
  }
}

/**
 * Vitest's global setup: on PGlite, migrates each service's database once for the whole run, so that the
 * test files' fresh databases start from it instead of from initdb, which takes seconds each (decisions Platform 24).
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (process.env.TEST_DATABASE_URL) {
    project.provide('pgliteTemplates', null);
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'wms-pglite-templates-'));
  const templates = { inventory: join(dir, 'inventory.tar'), tracking: join(dir, 'tracking.tar') };
  await writePgliteTemplate(templates.inventory, { migrationsFolder: INVENTORY_MIGRATIONS, extensions: INVENTORY_PGLITE_EXTENSIONS });
  await writePgliteTemplate(templates.tracking, { migrationsFolder: TRACKING_MIGRATIONS });
  project.provide('pgliteTemplates', templates);
  return () => rmSync(dir, { recursive: true, force: true });
}
