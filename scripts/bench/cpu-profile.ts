import { readFileSync } from 'node:fs';

/**
 * The V8 profiles the bench takes of one product process for one phase: `cpu` (.cpuprofile) or the sampling
 * allocation profile `heap` (.heapprofile); both open in Chrome DevTools.
 */
export type ProfileKind = 'cpu' | 'heap';

export const profileFileName = (kind: ProfileKind, stem: string) => `${stem}.${kind === 'heap' ? 'heapprofile' : 'cpuprofile'}`;

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

/** A profile node with its own weight: samples (cpu) or bytes (heap). */
interface WeightedFrame {
  frame: CallFrame;
  weight: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
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
  kind: ProfileKind;
  /** Share of sampled server time (cpu) or of the bytes allocated (heap) per area (package, app module, GC, idle). */
  byArea: Array<{ area: string; share: number }>;
  /** The functions with the most self time, or that allocated most. */
  topFunctions: Array<{ fn: string; share: number }>;
  /** heap: bytes allocated while the profile ran (the sampler's estimate, freed objects included). */
  allocatedBytes?: number;
}

interface HeapProfileNode {
  callFrame: CallFrame;
  selfSize: number;
  children: HeapProfileNode[];
}

/** Reads a profile file written by the product's meter and summarises it (heap: by bytes allocated). */
export function summarizeProfileFile(kind: ProfileKind, file: string): ProfileSummary {
  return kind === 'heap' ? summarizeHeapProfile(file) : summarizeCpuProfile(file);
}

function summarizeCpuProfile(file: string): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const weights = profile.nodes.map((node): WeightedFrame => ({ frame: node.callFrame, weight: node.hitCount ?? 0 }));
  return { file, kind: 'cpu', ...summarize(weights) };
}

function summarizeHeapProfile(file: string): ProfileSummary {
  const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapProfileNode };
  const weights: WeightedFrame[] = [];
  const visit = (node: HeapProfileNode) => {
    weights.push({ frame: node.callFrame, weight: node.selfSize });
    node.children.forEach(visit);
  };
  visit(head);
  const allocatedBytes = weights.reduce((sum, one) => sum + one.weight, 0);
  return { file, kind: 'heap', allocatedBytes, ...summarize(weights) };
}

/** Where a function lives: a package under node_modules, a project folder, node itself, or V8. */
function areaOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const project = /\/(apps\/[^/]+\/src\/modules\/[^/]+|apps\/[^/]+\/src|packages\/[^/]+\/src\/[^/]+|scripts)\//.exec(url);
  return project ? project[1]! : url;
}

/** Self weight (samples or bytes) of each profile node, ranked by area and by function. */
function summarize(nodes: readonly WeightedFrame[]): Pick<ProfileSummary, 'byArea' | 'topFunctions'> {
  const total = nodes.reduce((sum, node) => sum + node.weight, 0) || 1;
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const { frame, weight } of nodes) {
    if (!weight) continue;
    const area = areaOf(frame);
    areas.set(area, (areas.get(area) ?? 0) + weight);
    const name = `${frame.functionName || '(anonymous)'} ${area}:${frame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + weight);
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
