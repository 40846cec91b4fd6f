/**
 * `npm run lint:openapi` (run by CI): lints the OpenAPI document of each service with Redocly's
 * recommended rules and the project's own (decisions: API description). Prints every problem;
 * exits 1 when any is an error, warnings stay visible but pass.
 */
import { errorsOf, formatProblem, lintOpenApi } from '@wms/platform/testing';
import { SERVICE_DOCUMENTS } from './openapi/documents.js';

async function main() {
  let errors = 0;
  for (const service of SERVICE_DOCUMENTS) {
    const problems = await lintOpenApi(service.name, await service.load());
    for (const problem of problems) console.log(formatProblem(service.name, problem));
    const serviceErrors = errorsOf(problems).length;
    console.log(`${service.name}: ${serviceErrors} error(s), ${problems.length - serviceErrors} warning(s)`);
    errors += serviceErrors;
  }
  process.exitCode = errors > 0 ? 1 : 0;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
