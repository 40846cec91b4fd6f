import { Type, type Static } from 'typebox';
import { PageQuery, timeRangeQuery } from '@wms/platform';
import { LIFECYCLE_PHASES, PRODUCT_STAGES, PRODUCT_STATUSES } from '../../db/schema/index.js';

const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);
const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });

export const LifecyclePhaseSchema = Type.Enum(LIFECYCLE_PHASES, { description: 'PRODUCTION 生产, AFTER_SALES 售后' });
export const ProductStatusSchema = Type.Enum(PRODUCT_STATUSES);
export const ProductStageSchema = Type.Enum(PRODUCT_STAGES);

export const ProductView = Type.Object({
  id: Type.Integer(),
  serial_number: Type.String({ description: 'SERIAL_PREFIX + 大写十六进制，共 16 位' }),
  model: Type.String({ description: '型号（物料名称）' }),
  base_id: NullableInteger,
  status: ProductStatusSchema,
  lifecycle_phase: LifecyclePhaseSchema,
  current_stage: ProductStageSchema,
  group_id: NullableInteger,
  created_at: Type.String(),
  updated_at: Type.String(),
  completed_at: NullableString,
});
export type ProductView = Static<typeof ProductView>;

const Model = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });

export const CreateProductBody = Type.Object(
  {
    model: Type.Optional(Model),
    base_id: Type.Optional(Type.Union([Id, Type.Null()], { description: '库存物料 id；已知物料时可省略 model' })),
    lifecycle_phase: Type.Optional(LifecyclePhaseSchema),
    status: Type.Optional(
      Type.Union([Type.Literal('生产中'), Type.Literal('待仓库收货'), Type.Literal('售后中')], {
        description: '初始状态，默认按阶段（生产 生产中，售后 售后中）；待仓库收货 = 已完工待入库（记完工时间）；售后中 意味着售后阶段',
      }),
    ),
    current_stage: Type.Optional(ProductStageSchema),
    group_id: Type.Optional(Type.Union([Id, Type.Null()])),
  },
  { description: '序列号由服务生成；生产阶段的新产品状态为 生产中，售后阶段为 售后中，除非 status 另行指定' },
);
export type CreateProductBody = Static<typeof CreateProductBody>;

export const UpdateProductBody = Type.Object(
  {
    model: Type.Optional(Model),
    base_id: Type.Optional(Type.Union([Id, Type.Null()])),
    status: Type.Optional(ProductStatusSchema),
    lifecycle_phase: Type.Optional(LifecyclePhaseSchema),
    current_stage: Type.Optional(ProductStageSchema),
    group_id: Type.Optional(Type.Union([Id, Type.Null()])),
  },
  { minProperties: 1, description: '部分更新；状态只能按允许的流转修改' },
);
export type UpdateProductBody = Static<typeof UpdateProductBody>;

export const ProductListQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 200, description: '序列号或型号（不区分大小写）' })),
  status: Type.Optional(ProductStatusSchema),
  lifecycle_phase: Type.Optional(LifecyclePhaseSchema),
  current_stage: Type.Optional(ProductStageSchema),
  group_id: Type.Optional(Id),
  base_id: Type.Optional(Id),
  ...timeRangeQuery('创建时间'),
});
export type ProductListQuery = Static<typeof ProductListQuery>;

/** What the server accepts as a serial in a path: 1–64 printable ASCII characters without spaces. */
export const SerialParams = Type.Object({
  sn: Type.String({ minLength: 1, maxLength: 64, pattern: '^[\\x21-\\x7E]+$', description: '序列号（1–64 个可打印字符）' }),
});
export type SerialParams = Static<typeof SerialParams>;

export const MaterialView = Type.Object({
  id: Type.Integer(),
  base_id: NullableInteger,
  name: Type.String(),
  category: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type MaterialView = Static<typeof MaterialView>;

export const CreateMaterialBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
  category: Type.String({ minLength: 1, maxLength: 255, pattern: '[^\\s/]', description: '以 / 分隔的路径；列表只显示 MATERIAL_CATEGORY_PREFIX/ 下的分类' }),
  base_id: Type.Optional(Type.Union([Id, Type.Null()], { description: '库存物料 id（可选）' })),
});
export type CreateMaterialBody = Static<typeof CreateMaterialBody>;

export const MaterialListQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 200, description: '名称或分类（不区分大小写）' })),
  ...timeRangeQuery('创建时间'),
});
export type MaterialListQuery = Static<typeof MaterialListQuery>;
