import { Type } from 'typebox';
import { API_PREFIX, errorResponses, IdParams, PageOf, tooManyAttemptsResponse } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { currentUser, login } from './auth-service.js';
import { readRolePermissions, replaceRolePermissions } from './role-permission-service.js';
import {
  ActiveUser,
  BatchCreateUsersBody,
  CreateUserBody,
  LoginBody,
  LoginResult,
  MeView,
  RoleParams,
  RolePermissionsBody,
  RolePermissionsView,
  UpdateUserBody,
  UserListQuery,
  UserView,
} from './schemas.js';
import { createUser, createUsersInBatch, listActiveUsers, listUsers, updateUser } from './user-service.js';
import { PERMISSION_CATALOG, ROLES } from './permission-catalog.js';

export function registerIdentityRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['identity'];

  app.post(`${API_PREFIX}/auth/login`, {
    config: { public: true },
    schema: {
      tags,
      summary: '登录（失败次数过多时 429，见 Retry-After）',
      security: [],
      body: LoginBody,
      response: { 200: LoginResult, ...errorResponses, ...tooManyAttemptsResponse },
    },
  }, (request, reply) =>
    deps.throttle.login(request, reply, request.body.username, () => login(deps.database, deps.tokens, request.body)));

  app.get(`${API_PREFIX}/auth/me`, {
    schema: { tags, summary: '当前用户及有效权限', response: { 200: MeView, ...errorResponses } },
  }, (request) => currentUser(ctxOf(deps, request)));

  app.get(`${API_PREFIX}/users`, {
    config: { permission: 'system_user' },
    schema: { tags, summary: '用户列表', querystring: UserListQuery, response: { 200: PageOf(UserView), ...errorResponses } },
  }, (request) => listUsers(ctxOf(deps, request), request.query));

  app.post(`${API_PREFIX}/users`, {
    config: { permission: 'system_user:operation', idempotent: true },
    schema: { tags, summary: '创建用户', body: CreateUserBody, response: { 201: UserView, ...errorResponses } },
  }, async (request, reply) => reply.code(201).send(await createUser(ctxOf(deps, request), request.body)));

  app.post(`${API_PREFIX}/users/batch`, {
    config: { permission: 'system_user:operation', idempotent: true },
    schema: {
      tags,
      summary: '批量创建用户（全部成功或全部不写入）',
      body: BatchCreateUsersBody,
      response: { 201: Type.Object({ created: Type.Array(UserView), count: Type.Integer() }), ...errorResponses },
    },
  }, async (request, reply) => reply.code(201).send(await createUsersInBatch(ctxOf(deps, request), request.body)));

  app.patch(`${API_PREFIX}/users/:id`, {
    config: { permission: 'system_user:operation' },
    schema: { tags, summary: '修改用户', params: IdParams, body: UpdateUserBody, response: { 200: UserView, ...errorResponses } },
  }, (request) => updateUser(ctxOf(deps, request), request.params.id, request.body));

  app.get(`${API_PREFIX}/common/active-users`, {
    schema: {
      tags,
      summary: '本公司在职用户（id 与姓名）',
      querystring: Type.Object({ company: Type.Optional(Type.String({ maxLength: 64 })) }),
      response: { 200: Type.Array(ActiveUser), ...errorResponses },
    },
  }, (request) => listActiveUsers(ctxOf(deps, request), request.query.company));

  app.get(`${API_PREFIX}/permissions/role/:role_code`, {
    schema: { tags, summary: '角色权限（本人角色无需 system_permission）', params: RoleParams, response: { 200: RolePermissionsView, ...errorResponses } },
  }, (request) => readRolePermissions(ctxOf(deps, request), request.params.role_code));

  app.put(`${API_PREFIX}/permissions/role/:role_code`, {
    config: { permission: 'system_permission:operation', idempotent: true },
    schema: {
      tags,
      summary: '替换角色权限（编辑本人角色时始终保留 system_permission 与 system_permission:operation）',
      params: RoleParams,
      body: RolePermissionsBody,
      response: { 200: RolePermissionsView, ...errorResponses },
    },
  }, (request) => replaceRolePermissions(ctxOf(deps, request), request.params.role_code, request.body.permissions));

  app.get(`${API_PREFIX}/permissions/catalog`, {
    config: { permission: 'system_permission' },
    schema: {
      tags,
      summary: '全部权限代码与角色',
      response: { 200: Type.Object({ codes: Type.Array(Type.String()), roles: Type.Array(Type.String()) }), ...errorResponses },
    },
  }, async () => ({ codes: [...PERMISSION_CATALOG], roles: [...ROLES] }));
}
