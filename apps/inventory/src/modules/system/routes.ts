import { Type } from 'typebox';
import { API_PREFIX, errorResponses, tooManyAttemptsResponse } from '@wms/platform';
import type { InventoryDeps, InventoryFastify } from '../../app-types.js';

/** Lets an integrator check its X-API-Key against the internal key setting (503 while it is empty). */
export function registerSystemRoutes(app: InventoryFastify, deps: InventoryDeps) {
  app.get(`${API_PREFIX}/internal/ping`, {
    config: { apiKey: () => deps.config.internalApiKey },
    schema: {
      tags: ['system'],
      summary: '内部接口密钥自检 (X-API-Key)',
      security: [{ apiKey: [] }],
      response: { 200: Type.Object({ ok: Type.Boolean() }), ...errorResponses, ...tooManyAttemptsResponse, 503: errorResponses[401] },
    },
  }, async () => ({ ok: true }));
}
