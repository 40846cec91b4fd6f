import { Type } from 'typebox';
import { API_PREFIX, errorResponses, ErrorBody, IdParams, PageOf, SUPER_ADMIN_ONLY } from '@wms/platform';
import { ctxOf, type TrackingDeps, type TrackingFastify } from '../../app-types.js';
import { getGroup, listGroups, listMemberCandidates } from './group-read-service.js';
import { createGroup, deleteGroup, updateGroup } from './group-write-service.js';
import { addMembers, removeMember, setLeader } from './member-service.js';
import {
  AddMembersBody,
  AddMembersResult,
  CandidateQuery,
  CandidateView,
  CreateGroupBody,
  GroupDetailView,
  GroupListQuery,
  GroupView,
  MemberParams,
  MemberView,
  UpdateGroupBody,
  UpdateMemberBody,
} from './schemas.js';

const responses = { ...errorResponses, 422: ErrorBody };
const noContent = { 204: Type.Null({ description: '无内容' }) };

/**
 * Business groups (spec 4.2, contract §6). Reading needs a login (others than the super admin see only
 * their own groups); group create / update / delete and phases are SUPER_ADMIN only; members and
 * leaders: SUPER_ADMIN, any SUPERVISOR or a leader of the group (checked in the use case).
 */
export function registerGroupRoutes(app: TrackingFastify, deps: TrackingDeps) {
  const tags = ['groups'];
  const GROUPS = `${API_PREFIX}/groups`;

  app.get(GROUPS, {
    schema: { tags, summary: '业务组列表（超级管理员看全部，其他人只看自己所在的组）', querystring: GroupListQuery, response: { 200: PageOf(GroupView), ...responses } },
  }, (request) => listGroups(ctxOf(deps, request), request.query));

  app.get(`${GROUPS}/member-candidates`, {
    schema: {
      tags,
      summary: '可选成员：本部门在职用户，不含超级管理员；给出 group_id 时不含该组现有成员',
      querystring: CandidateQuery,
      response: { 200: Type.Array(CandidateView), ...responses },
    },
  }, (request) => listMemberCandidates(ctxOf(deps, request), request.query));

  app.get(`${GROUPS}/:id`, {
    schema: { tags, summary: '业务组详情及成员（非超级管理员只能看自己所在的组）', params: IdParams, response: { 200: GroupDetailView, ...responses } },
  }, (request) => getGroup(ctxOf(deps, request), request.params.id));

  app.post(GROUPS, {
    config: { permission: SUPER_ADMIN_ONLY, idempotent: true },
    schema: { tags, summary: '新建业务组（超级管理员）', body: CreateGroupBody, response: { 201: GroupView, ...responses } },
  }, async (request, reply) => reply.code(201).send(await createGroup(ctxOf(deps, request), request.body)));

  app.patch(`${GROUPS}/:id`, {
    config: { permission: SUPER_ADMIN_ONLY, idempotent: true },
    schema: { tags, summary: '修改业务组、启停、阶段（超级管理员）', params: IdParams, body: UpdateGroupBody, response: { 200: GroupView, ...responses } },
  }, (request) => updateGroup(ctxOf(deps, request), request.params.id, request.body));

  app.delete(`${GROUPS}/:id`, {
    config: { permission: SUPER_ADMIN_ONLY, idempotent: true },
    schema: { tags, summary: '删除业务组（超级管理员；有成员或子组时拒绝）', params: IdParams, response: { ...noContent, ...responses } },
  }, async (request, reply) => {
    await deleteGroup(ctxOf(deps, request), request.params.id);
    return reply.code(204).send(null);
  });

  app.post(`${GROUPS}/:id/members`, {
    config: { idempotent: true },
    schema: {
      tags,
      summary: '添加成员（超级管理员、主管或组长）',
      params: IdParams,
      body: AddMembersBody,
      response: { 201: AddMembersResult, ...responses },
    },
  }, async (request, reply) => reply.code(201).send(await addMembers(ctxOf(deps, request), request.params.id, request.body.user_ids)));

  app.patch(`${GROUPS}/:id/members/:user_id`, {
    config: { idempotent: true },
    schema: { tags, summary: '设置或取消组长（超级管理员、主管或组长）', params: MemberParams, body: UpdateMemberBody, response: { 200: MemberView, ...responses } },
  }, (request) => setLeader(ctxOf(deps, request), request.params.id, request.params.user_id, request.body));

  app.delete(`${GROUPS}/:id/members/:user_id`, {
    config: { idempotent: true },
    schema: { tags, summary: '移除成员（超级管理员、主管或组长）', params: MemberParams, response: { ...noContent, ...responses } },
  }, async (request, reply) => {
    await removeMember(ctxOf(deps, request), request.params.id, request.params.user_id);
    return reply.code(204).send(null);
  });
}
