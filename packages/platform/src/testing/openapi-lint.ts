import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/** One finding about an OpenAPI document: an error fails the lint, a warning is only shown. */
export interface OpenApiProblem {
  severity: 'error' | 'warn';
  rule: string;
  message: string;
  /** JSON pointer into the document. */
  where: string;
}

/** The part of an OpenAPI document these checks read. */
export interface OpenApiDocument {
  openapi: string;
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, unknown>>;
}

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export interface DescribedOperation {
  method: string;
  path: string;
  operationId?: string;
}

export function operationsOf(document: OpenApiDocument): DescribedOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    OPERATION_METHODS.filter((method) => item[method]).map((method) => ({
      method,
      path,
      operationId: (item[method] as { operationId?: string }).operationId,
    })),
  );
}

/**
 * Lints a document with Redocly's recommended rules (the `redocly lint` CLI, as any consumer would run it)
 * plus this project's own (decisions: API description): OpenAPI 3.1, a server, an operationId on every
 * operation, each once, and no path with a trailing slash.
 */
export async function lintOpenApi(name: string, document: OpenApiDocument): Promise<OpenApiProblem[]> {
  return [...projectRuleProblems(document), ...(await redoclyProblems(name, document))];
}

export const errorsOf = (problems: OpenApiProblem[]) => problems.filter((problem) => problem.severity === 'error');

export function formatProblem(name: string, problem: OpenApiProblem): string {
  return `${name}: ${problem.severity === 'error' ? 'error' : 'warning'} [${problem.rule}] ${problem.message} (${problem.where})`;
}

function projectRuleProblems(document: OpenApiDocument): OpenApiProblem[] {
  const problems: OpenApiProblem[] = [];
  const error = (rule: string, message: string, where: string) => problems.push({ severity: 'error', rule, message, where });
  if (!/^3\.1\.\d+$/.test(document.openapi)) error('wms/openapi-3.1', `openapi should be 3.1.x, is ${document.openapi}`, '#/openapi');
  if (!document.servers?.length) error('wms/servers', 'servers must name at least one server', '#/servers');
  for (const path of Object.keys(document.paths)) {
    if (path.length > 1 && path.endsWith('/')) error('wms/no-trailing-slash', `${path} ends with a slash`, pointerOf('paths', path));
  }
  const seen = new Map<string, string>();
  for (const { method, path, operationId } of operationsOf(document)) {
    const where = pointerOf('paths', path, method);
    if (!operationId) error('wms/operation-id', `${method.toUpperCase()} ${path} has no operationId`, where);
    else if (seen.has(operationId)) error('wms/operation-id-unique', `operationId ${operationId} is also used by ${seen.get(operationId)}`, where);
    else seen.set(operationId, `${method.toUpperCase()} ${path}`);
  }
  return problems;
}

const pointerOf = (...parts: string[]) => `#/${parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

const run = promisify(execFile);

interface RedoclyReport {
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer?: string }> }>;
}

/** Runs the project's @redocly/cli on the document in a scratch folder whose config names only `recommended`. */
async function redoclyProblems(name: string, document: OpenApiDocument): Promise<OpenApiProblem[]> {
  const folder = await mkdtemp(join(tmpdir(), 'wms-openapi-'));
  try {
    const file = `${name}.json`;
    await writeFile(join(folder, file), JSON.stringify(document));
    await writeFile(join(folder, 'redocly.yaml'), 'extends:\n  - recommended\n');
    const args = [redoclyCli(), 'lint', file, '--format=json', '--max-problems=100000'];
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    // exit code 1 only says "errors found": the report on stdout is what counts
    const { stdout, stderr } = await run(process.execPath, args, { cwd: folder, env, maxBuffer: 64 * 1024 * 1024 }).catch(
      (failure: { stdout?: string; stderr?: string }) => ({ stdout: failure.stdout ?? '', stderr: failure.stderr ?? String(failure) }),
    );
    let report: RedoclyReport;
    try {
      report = JSON.parse(stdout) as RedoclyReport;
    } catch {
      throw new Error(`redocly lint gave no report for ${name}: ${stderr.slice(0, 2000)}`);
    }
    return report.problems.map((problem) => ({
      severity: problem.severity === 'error' ? 'error' : 'warn',
      rule: problem.ruleId,
      message: problem.message,
      where: problem.location[0]?.pointer ?? '#',
    }));
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

function redoclyCli(): string {
  const manifestPath = createRequire(import.meta.url).resolve('@redocly/cli/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifestPath), manifest.bin.redocly ?? 'bin/cli.js');
}
