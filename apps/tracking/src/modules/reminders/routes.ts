import { API_PREFIX, errorResponses, ErrorBody, IdParams } from '@wms/platform';
import { ctxOf, type TrackingDeps, type TrackingFastify } from '../../app-types.js';
import { listMyReminders, markReminderRead } from './reminder-service.js';
import { ReminderListQuery, ReminderPage, ReminderView } from './schemas.js';

const responses = { ...errorResponses, 422: ErrorBody };

/** Reminders (the spec's Notification, contract §8): each user reads and marks only their own. */
export function registerReminderRoutes(app: TrackingFastify, deps: TrackingDeps) {
  const tags = ['notifications'];

  app.get(`${API_PREFIX}/notifications`, {
    schema: { tags, summary: '我的提醒（最新在前）', querystring: ReminderListQuery, response: { 200: ReminderPage, ...responses } },
  }, (request) => listMyReminders(ctxOf(deps, request), request.query));

  app.post(`${API_PREFIX}/notifications/:id/read`, {
    schema: { tags, summary: '标记提醒已读（只能标记自己的）', params: IdParams, response: { 200: ReminderView, ...responses } },
  }, (request) => markReminderRead(ctxOf(deps, request), request.params.id));
}
