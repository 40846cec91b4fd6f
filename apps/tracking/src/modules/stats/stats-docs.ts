import { ErrorBody, errorResponses } from '@wms/platform';

/** Error responses of the statistics routes: 401 without a login, 422 for a bad query parameter. */
export const statsResponses = { ...errorResponses, 422: ErrorBody };

/** Appended to every statistics route's OpenAPI description. */
export const SCOPE_NOTE =
  ' 需要登录；按调用者的数据范围统计（超级管理员不限；组内用户只看所属业务组的生命周期阶段；空范围得到 0 和空列表）。日期为北京时间 YYYY-MM-DD；参数不合法为 422 { msg, code }。';
