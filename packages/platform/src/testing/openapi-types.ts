import type { OpenAPI3 } from 'openapi-typescript';
import type { OpenApiDocument } from './openapi-lint.js';

/** The line under openapi-typescript's own header naming the command that rewrites the file. */
const REGENERATE = '// Regenerate with `npm run openapi:types`; a test fails while this file differs from the served document.\n\n';

/**
 * The TypeScript description (openapi-typescript) of a served OpenAPI document: the `paths` and
 * `components` types openapi-fetch takes. The same text for the same document, so the committed file
 * can be compared with a fresh one.
 */
export async function openApiTypes(document: OpenApiDocument): Promise<string> {
  // loaded here, not at import: it brings the TypeScript compiler, which no other test needs
  const { default: openapiTS, astToString, COMMENT_HEADER } = await import('openapi-typescript');
  const ast = await openapiTS(structuredClone(document) as unknown as OpenAPI3, { silent: true, alphabetize: false });
  return `${COMMENT_HEADER}${REGENERATE}${astToString(ast)}`;
}
