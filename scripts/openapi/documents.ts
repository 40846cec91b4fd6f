/**
 * The OpenAPI documents both services serve, taken from each app built on an in-memory PGlite with the
 * test configuration (the same documents the tests see), and where their generated client types live.
 */
import { fileURLToPath } from 'node:url';
import type { OpenApiDocument } from '@wms/platform/testing';
import { buildInventoryApp } from '../../apps/inventory/src/app.js';
import { buildTrackingApp } from '../../apps/tracking/src/app.js';
import { testConfig as inventoryConfig } from '../../apps/inventory/test/helpers.js';
import { testConfig as trackingConfig } from '../../apps/tracking/test/helpers.js';

export interface ServiceDocument {
  name: 'inventory' | 'tracking';
  /** The committed openapi-typescript output for this service. */
  typesFile: string;
  load(): Promise<OpenApiDocument>;
}

const IN_MEMORY = 'memory://';

export const SERVICE_DOCUMENTS: ServiceDocument[] = [
  {
    name: 'inventory',
    typesFile: fileURLToPath(new URL('../../apps/inventory/test/generated/inventory-api.d.ts', import.meta.url)),
    load: () => documentOf(buildInventoryApp(inventoryConfig(IN_MEMORY), { dispatcher: { enabled: false } })),
  },
  {
    name: 'tracking',
    typesFile: fileURLToPath(new URL('../../apps/tracking/test/generated/tracking-api.d.ts', import.meta.url)),
    load: () => documentOf(buildTrackingApp(trackingConfig(IN_MEMORY))),
  },
];

async function documentOf(building: Promise<{ app: { swagger(): unknown }; close(): Promise<void> }>): Promise<OpenApiDocument> {
  const service = await building;
  try {
    return structuredClone(service.app.swagger()) as OpenApiDocument;
  } finally {
    await service.close();
  }
}
