/**
 * `npm run openapi:types`: rewrites the committed client types (openapi-typescript) of both services
 * from the documents they serve. The typed end-to-end tests use them with openapi-fetch; a test fails
 * while a committed file differs from what this would write.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { openApiTypes } from '@wms/platform/testing';
import { SERVICE_DOCUMENTS } from './openapi/documents.js';

async function main() {
  for (const service of SERVICE_DOCUMENTS) {
    const types = await openApiTypes(await service.load());
    await mkdir(dirname(service.typesFile), { recursive: true });
    await writeFile(service.typesFile, types);
    console.log(`${service.name}: wrote ${relative(process.cwd(), service.typesFile)}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
