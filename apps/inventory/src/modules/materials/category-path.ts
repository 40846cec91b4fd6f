import { validationFailed } from '@wms/platform';

/**
 * A category is a slash path whose first segment names the owning department (spec 2.3).
 * Stored normalised: segments trimmed, empty segments dropped (' A / B /' → 'A/B').
 */
export function normaliseCategory(raw: string): string {
  return raw
    .split('/')
    .map((segment) => segment.trim())
    .filter((segment) => segment.length > 0)
    .join('/');
}

/** The normalised category of a write; a path with no segment left is bad input. */
export function requireCategory(raw: string): string {
  const category = normaliseCategory(raw);
  if (!category) throw validationFailed('分类不能为空，应为以 / 分隔的路径', { field: 'category' });
  return category;
}

/** The first segment: the owning department. */
export function topLevelOf(category: string): string {
  return category.split('/')[0] ?? '';
}
