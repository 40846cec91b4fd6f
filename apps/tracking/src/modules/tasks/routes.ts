import { API_PREFIX, errorResponses, ErrorBody, IdParams, PageOf } from '@wms/platform';
import { ctxOf, type TrackingDeps, type TrackingFastify } from '../../app-types.js';
import { addTaskLog } from './task-log-service.js';
import { getTask, listTaskLogs, listTasks } from './task-read-service.js';
import { createTask, updateTask } from './task-service.js';
import { CreateTaskBody, CreateTaskLogBody, TaskListQuery, TaskLogListQuery, TaskLogView, TaskView, UpdateTaskBody } from './schemas.js';

const responses = { ...errorResponses, 422: ErrorBody };

/**
 * Tasks and task logs (contract §6, §8). Everything is inside the caller's data scope: the list is
 * filtered before paging, a task of a product outside the scope is 403 to read or write.
 */
export function registerTaskRoutes(app: TrackingFastify, deps: TrackingDeps) {
  const tags = ['tasks'];

  app.get(`${API_PREFIX}/tasks`, {
    schema: { tags, summary: '任务列表（按数据范围过滤后分页）', querystring: TaskListQuery, response: { 200: PageOf(TaskView), ...responses } },
  }, (request) => listTasks(ctxOf(deps, request), request.query));

  app.post(`${API_PREFIX}/tasks`, {
    config: { idempotent: true },
    schema: { tags, summary: '新建任务（指派时提醒负责人）', body: CreateTaskBody, response: { 201: TaskView, ...responses } },
  }, async (request, reply) => reply.code(201).send(await createTask(ctxOf(deps, request), request.body)));

  app.get(`${API_PREFIX}/tasks/:id`, {
    schema: { tags, summary: '任务详情', params: IdParams, response: { 200: TaskView, ...responses } },
  }, (request) => getTask(ctxOf(deps, request), request.params.id));

  app.patch(`${API_PREFIX}/tasks/:id`, {
    config: { idempotent: true },
    schema: { tags, summary: '修改任务（数据范围外 403）', params: IdParams, body: UpdateTaskBody, response: { 200: TaskView, ...responses } },
  }, (request) => updateTask(ctxOf(deps, request), request.params.id, request.body));

  app.get(`${API_PREFIX}/tasks/:id/logs`, {
    schema: { tags, summary: '任务日志（按时间顺序）', params: IdParams, querystring: TaskLogListQuery, response: { 200: PageOf(TaskLogView), ...responses } },
  }, (request) => listTaskLogs(ctxOf(deps, request), request.params.id, request.query));

  app.post(`${API_PREFIX}/tasks/:id/logs`, {
    config: { idempotent: true },
    schema: {
      tags,
      summary: '记录任务日志（START/FINISH 改变任务状态，工时累加）',
      params: IdParams,
      body: CreateTaskLogBody,
      response: { 201: TaskLogView, ...responses },
    },
  }, async (request, reply) => reply.code(201).send(await addTaskLog(ctxOf(deps, request), request.params.id, request.body)));
}
