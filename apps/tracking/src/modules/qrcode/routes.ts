import { API_PREFIX, ErrorBody, imageDownload } from '@wms/platform';
import type { TrackingFastify } from '../../app-types.js';
import { SerialParams } from '../products/schemas.js';
import { renderQrPng } from './qrcode.js';

/**
 * GET /products/qrcode/{sn} (spec 4.3): no authentication, so label printers and <img> tags can load it
 * without a token in the URL; the image carries only the given string.
 */
export function registerQrCodeRoutes(app: TrackingFastify) {
  app.get(`${API_PREFIX}/products/qrcode/:sn`, {
    config: { public: true },
    schema: {
      tags: ['products'],
      summary: '序列号二维码 PNG（300×300，无需登录）',
      security: [],
      params: SerialParams,
      response: { 200: imageDownload('image/png'), 422: ErrorBody },
    },
  }, async (request, reply) => {
    const png = await renderQrPng(request.params.sn);
    return reply.header('content-type', 'image/png').header('cache-control', 'public, max-age=86400').send(png);
  });
}
