/** Writes the OpenAPI document served at /api/doc to build/openapi.json, for linting in CI. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { schema } from '../src/graphql/schema';
import { buildOpenApiDocument } from '../src/rest/openapi';
import { restRoutes } from '../src/rest/routes';

const out = path.join(__dirname, '..', 'build', 'openapi.json');
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(buildOpenApiDocument(schema, restRoutes), null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), out)}`);
