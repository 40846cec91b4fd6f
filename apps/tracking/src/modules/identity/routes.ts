import { API_PREFIX, errorResponses, ErrorBody, IdParams, PageOf, SUPER_ADMIN_ONLY, tooManyAttemptsResponse } from '@wms/platform';
import { ctxOf, type TrackingDeps, type TrackingFastify } from '../../app-types.js';
import { currentUser, login } from './auth-service.js';
import { CreateUserBody, LoginBody, LoginResult, MeView, UpdateUserBody, UserListQuery, UserView } from './schemas.js';
import { createUser, getUser, listUsers, updateUser } from './user-service.js';

/** Tracking answers validation failures with 422 (contract §2). */
const responses = { ...errorResponses, 422: ErrorBody };

export function registerIdentityRoutes(app: TrackingFastify, deps: TrackingDeps) {
  const tags = ['identity'];

  app.post(`${API_PREFIX}/auth/login`, {
    config: { public: true },
    schema: {
      tags,
      summary: '登录（仅本部门 ORG_DEPARTMENT 的在职账号；失败次数过多时 429，见 Retry-After）',
      security: [],
      body: LoginBody,
      response: { 200: LoginResult, ...responses, ...tooManyAttemptsResponse },
    },
  }, (request, reply) => deps.throttle.login(request, reply, request.body.username, () => login(deps, request.body)));

  app.get(`${API_PREFIX}/auth/me`, {
    schema: { tags, summary: '当前用户及数据范围', response: { 200: MeView, ...responses } },
  }, (request) => currentUser(ctxOf(deps, request), deps));

  app.get(`${API_PREFIX}/users`, {
    config: { permission: SUPER_ADMIN_ONLY },
    schema: { tags, summary: '本部门用户列表（超级管理员）', querystring: UserListQuery, response: { 200: PageOf(UserView), ...responses } },
  }, (request) => listUsers(ctxOf(deps, request), request.query));

  app.get(`${API_PREFIX}/users/:id`, {
    config: { permission: SUPER_ADMIN_ONLY },
    schema: { tags, summary: '本部门用户详情（超级管理员）', params: IdParams, response: { 200: UserView, ...responses } },
  }, (request) => getUser(ctxOf(deps, request), request.params.id));

  app.post(`${API_PREFIX}/users`, {
    config: { permission: SUPER_ADMIN_ONLY, idempotent: true },
    schema: { tags, summary: '创建本部门用户（超级管理员）', body: CreateUserBody, response: { 201: UserView, ...responses } },
  }, async (request, reply) => reply.code(201).send(await createUser(ctxOf(deps, request), request.body)));

  app.patch(`${API_PREFIX}/users/:id`, {
    config: { permission: SUPER_ADMIN_ONLY },
    schema: {
      tags,
      summary: '修改本部门用户（超级管理员）',
      params: IdParams,
      body: UpdateUserBody,
      response: { 200: UserView, ...responses },
    },
  }, (request) => updateUser(ctxOf(deps, request), request.params.id, request.body));
}
