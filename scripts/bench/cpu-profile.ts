import { readFileSync } from 'node:fs';

/** The summary of a V8 CPU profile of one product process for one phase (.cpuprofile, open in Chrome DevTools). */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

export interface ProfileSummary {
  file: string;
  /** Share of sampled server time per area (package, app module, GC, idle). */
  byArea: Array<{ area: string; share: number }>;
  /** The functions with the most self time. */
  topFunctions: Array<{ fn: string; share: number }>;
}

/** Reads a .cpuprofile file (written by the product's meter) and summarises it. */
export function summarizeProfileFile(file: string): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  return { file, ...summarize(profile) };
}

/** Where a function lives: a package under node_modules, a project folder, node itself, or V8. */
function areaOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const project = /\/(apps\/[^/]+\/src\/modules\/[^/]+|apps\/[^/]+\/src|packages\/[^/]+\/src\/[^/]+|scripts)\//.exec(url);
  return project ? project[1]! : url;
}

function summarize(profile: Profile): Omit<ProfileSummary, 'file'> {
  const total = profile.nodes.reduce((sum, node) => sum + (node.hitCount ?? 0), 0) || 1;
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (!hits) continue;
    const area = areaOf(node.callFrame);
    areas.set(area, (areas.get(area) ?? 0) + hits);
    const name = `${node.callFrame.functionName || '(anonymous)'} ${area}:${node.callFrame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + hits);
  }
  const ranked = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, hits]) => ({ key, share: Math.round((hits / total) * 1000) / 1000 }));
  return {
    byArea: ranked(areas, 15).map(({ key, share }) => ({ area: key, share })),
    topFunctions: ranked(functions, 20).map(({ key, share }) => ({ fn: key, share })),
  };
}
