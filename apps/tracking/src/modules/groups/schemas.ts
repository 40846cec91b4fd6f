import { Type, type Static } from 'typebox';
import { PageQuery, timeRangeQuery } from '@wms/platform';
import { LIFECYCLE_PHASES } from '../../db/schema/index.js';

const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
const Phase = Type.Enum(LIFECYCLE_PHASES);

export const GroupView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  parent_id: Type.Union([Type.Integer(), Type.Null()]),
  parent_name: Type.Union([Type.String(), Type.Null()]),
  active: Type.Boolean(),
  phases: Type.Array(Phase, { description: '本组自己的阶段' }),
  effective_phases: Type.Array(Phase, { description: '生效的阶段: 子组没有自己的阶段时继承上级组' }),
  member_count: Type.Integer(),
  can_manage_members: Type.Boolean({ description: '当前用户可增删成员、设组长: 超级管理员、主管或本组组长' }),
  can_manage_group: Type.Boolean({ description: '当前用户可修改、删除本组及其阶段: 仅超级管理员' }),
  is_my_leader: Type.Boolean({ description: '当前用户是本组组长' }),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type GroupView = Static<typeof GroupView>;

export const MemberView = Type.Object({
  user_id: Type.Integer(),
  username: Type.String(),
  name: Type.String(),
  role: Type.String(),
  active: Type.Boolean(),
  is_leader: Type.Boolean(),
  joined_at: Type.String(),
});
export type MemberView = Static<typeof MemberView>;

export const GroupDetailView = Type.Intersect([GroupView, Type.Object({ members: Type.Array(MemberView) })]);
export type GroupDetailView = Static<typeof GroupDetailView>;

export const GroupListQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 64, description: '组名（不区分大小写）' })),
  active: Type.Optional(Type.Boolean()),
  ...timeRangeQuery('创建时间'),
});
export type GroupListQuery = Static<typeof GroupListQuery>;

const Name = Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' });
const Phases = Type.Array(Phase, { maxItems: LIFECYCLE_PHASES.length * 4, description: '可见的生命周期阶段（重复项忽略）' });

export const CreateGroupBody = Type.Object({
  name: Name,
  parent_id: Type.Optional(Type.Union([Id, Type.Null()], { description: '上级组（必须是顶级组：最多两级）' })),
  active: Type.Optional(Type.Boolean()),
  phases: Type.Optional(Phases),
});
export type CreateGroupBody = Static<typeof CreateGroupBody>;

export const UpdateGroupBody = Type.Object(
  {
    name: Type.Optional(Name),
    parent_id: Type.Optional(Type.Union([Id, Type.Null()])),
    active: Type.Optional(Type.Boolean({ description: '停用立即生效：成员按未分组规则取数据范围' })),
    phases: Type.Optional(Phases),
  },
  { minProperties: 1 },
);
export type UpdateGroupBody = Static<typeof UpdateGroupBody>;

export const AddMembersBody = Type.Object({
  user_ids: Type.Array(Id, { minItems: 1, maxItems: 500, description: '不能为空；已是成员的跳过；含超级管理员则整批拒绝' }),
});
export type AddMembersBody = Static<typeof AddMembersBody>;

export const AddMembersResult = Type.Object({
  added: Type.Array(Type.Integer()),
  skipped: Type.Array(Type.Integer(), { description: '已是成员，跳过' }),
  skipped_names: Type.Array(Type.String()),
});
export type AddMembersResult = Static<typeof AddMembersResult>;

export const UpdateMemberBody = Type.Object({ is_leader: Type.Boolean() });
export type UpdateMemberBody = Static<typeof UpdateMemberBody>;

export const MemberParams = Type.Object({ id: Id, user_id: Id });
export type MemberParams = Static<typeof MemberParams>;

export const CandidateQuery = Type.Object({ group_id: Type.Optional(Id) });
export type CandidateQuery = Static<typeof CandidateQuery>;

export const CandidateView = Type.Object({ id: Type.Integer(), username: Type.String(), name: Type.String(), role: Type.String() });
export type CandidateView = Static<typeof CandidateView>;
