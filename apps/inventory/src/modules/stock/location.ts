/**
 * A warehouse location is a slash path (spec 2.2). Stored trimmed, each segment trimmed, empty segments
 * dropped: " A / 01 /" is "A/01", so the same place is always written the same way.
 */
export function normalizeLocation(location: string | undefined): string | undefined {
  if (location === undefined) return undefined;
  return location
    .split('/')
    .map((segment) => segment.trim())
    .filter(Boolean)
    .join('/');
}
