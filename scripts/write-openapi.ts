/**
 * `npm run openapi:write`: rewrites openapi.json, the REST contract served at /api/doc, committed
 * beside schema.graphql so that every change of the contract (a SOFA upgrade included) is a
 * reviewable diff; a test fails when it is stale.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { restRoutes, schema } from '../src/modules';
import { buildOpenApiDocument } from '../src/rest/openapi';

export const openApiText = (): string => `${JSON.stringify(buildOpenApiDocument(schema, restRoutes), null, 2)}\n`;

if (require.main === module) {
  writeFileSync(path.join(__dirname, '..', 'openapi.json'), openApiText());
  console.log('wrote openapi.json');
}
