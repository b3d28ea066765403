import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openApiText } from '../../scripts/write-openapi';
import { restRoutes, schema } from '../../src/modules';
import { buildOpenApiDocument } from '../../src/rest/openapi';
import { completeOutputSchemas } from '../../src/rest/openapi-schemas';
import { documentValidator } from '../support/openapi-validation';
import { renderAiContext } from '../../src/rest/ai-context';
import { loadConfig } from '../../src/config';
import { fullPath, openApiPath } from '../../src/routing/route-table';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the OpenAPI document is loose JSON

it('openapi.json is the served document (run `npm run openapi:write` after a contract change)', () => {
  const committed = readFileSync(path.join(__dirname, '..', '..', 'openapi.json'), 'utf8');
  expect(committed).toBe(openApiText());
});

describe('OpenAPI document', () => {
  const doc: Json = buildOpenApiDocument(schema, restRoutes);

  it('documents exactly the routes of the contract plus the public ones', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops as Json).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const expected = [
      ...restRoutes.map((r) => `${r.method} ${openApiPath(fullPath(r))}`),
      'GET /health',
      'GET /ready',
      'GET /metrics',
      'GET /api/doc',
      'GET /.well-known/ai-context',
      'GET /api/reference',
    ];
    expect(documented.sort()).toEqual(expected.sort());
  });

  it('has no dangling $ref', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      const pointer = ref.slice('"$ref":"'.length, -1).replace(/^#\//, '').split('/');
      const target = pointer.reduce<Json | undefined>((node, key) => node?.[key], doc);
      expect({ ref, found: target !== undefined }).toEqual({ ref, found: true });
    }
  });

  it('documents JSON bodies as bodies, not as query parameters', () => {
    const sync = doc.paths['/api/v1/products'].post;
    expect(sync.parameters.map((p: Json) => p.name ?? p.$ref)).toEqual([
      'context',
      'dry_run',
      '#/components/parameters/RequestId',
      '#/components/parameters/IdempotencyKey',
    ]);
    const schemaOf = sync.requestBody.content['application/json'].schema;
    expect(schemaOf.oneOf[0].properties.products).toMatchObject({ type: 'array', maxItems: 5000 });
    expect(schemaOf.oneOf[1]).toEqual({ $ref: '#/components/schemas/ProductInput' });
    expect(doc.components.schemas.ProductInput.required).toEqual(['external_id']);

    const batch = doc.paths['/api/v1/updated-products/batch-delete'].post;
    expect(batch.parameters).toEqual([{ $ref: '#/components/parameters/RequestId' }, { $ref: '#/components/parameters/IdempotencyKey' }]);
    expect(batch.requestBody.content['application/json'].schema.properties.ids).toMatchObject({ maxItems: 10_000 });

    const ack = doc.paths['/api/v1/updated-products/{id}'].delete;
    expect(ack.requestBody).toBeUndefined();
    expect(ack.parameters).toEqual([
      expect.objectContaining({ name: 'id', in: 'path', required: true }),
      expect.objectContaining({ name: 'revision', in: 'query', required: false, schema: expect.objectContaining({ type: 'integer' }) }),
      { $ref: '#/components/parameters/RequestId' },
    ]);
    expect(batch.requestBody.content['application/json'].schema.properties.items).toMatchObject({ type: 'array', maxItems: 10_000 });
  });

  it('returns full change records in the change list, not just ids', () => {
    const list = doc.paths['/api/v1/updated-products'].get;
    const page = doc.components.schemas[list.responses['200'].content['application/json'].schema.$ref.split('/').pop()];
    const record = doc.components.schemas[page.properties.payload.items.$ref.split('/').pop()];
    expect(Object.keys(record.properties).sort()).toEqual(
      ['changedFields', 'context', 'data', 'erpId', 'externalId', 'id', 'isNew', 'previous', 'revision', 'updatedAt'].sort(),
    );
  });

  it('states the change feed guarantees for client authors', () => {
    expect(doc.info.description).toContain('## What the change feed guarantees');
    expect(doc.info.description).toMatch(/covers that revision and nothing newer/);
  });

  it('requires bearer auth except on the public routes, and documents the error responses', () => {
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/health'].get.security).toEqual([]);
    const sync = doc.paths['/api/v1/products'].post;
    expect(Object.keys(sync.responses).sort()).toEqual(['200', '400', '401', '403', '409', '413', '415', '422', '429', '500', '503']);
    expect(doc.components.responses.ServiceUnavailable.headers['Retry-After']).toBeDefined();
    expect(Object.keys(sync.responses['200'].headers).sort()).toEqual([
      'Idempotent-Replayed',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-Request-Id',
    ]);
    expect(doc.components.responses.RateLimited.headers['Retry-After']).toBeDefined();
    expect(doc.paths['/api/v1/updated-products/{id}'].delete.responses['404']).toBeDefined();
  });

  it('documents Idempotency-Key as a header parameter of every POST that needs a token, with its 409, 422 and replay header', () => {
    const posts = restRoutes.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThan(10);
    for (const route of posts) {
      const op = doc.paths[openApiPath(fullPath(route))].post;
      const refs = (op.parameters ?? []).flatMap((p: Json) => (p.$ref && p.$ref !== '#/components/parameters/RequestId' ? [p.$ref] : []));
      if (route.public) {
        expect({ route: route.path, refs }).toEqual({ route: route.path, refs: [] });
        continue;
      }
      expect({ route: route.path, refs }).toEqual({ route: route.path, refs: ['#/components/parameters/IdempotencyKey'] });
      expect(op.responses['409']).toEqual({ $ref: '#/components/responses/Conflict' });
      expect(op.responses['422']).toEqual({ $ref: '#/components/responses/IdempotencyKeyReused' });
      const ok = Object.keys(op.responses).find((s) => s.startsWith('2'))!;
      expect(op.responses[ok].headers['Idempotent-Replayed']).toEqual({ $ref: '#/components/headers/Idempotent-Replayed' });
    }
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { maxLength: 255 },
    });
    expect(doc.components.parameters.IdempotencyKey.description).toMatch(/GraphQL mutations/);
    for (const route of restRoutes.filter((r) => r.method !== 'POST')) {
      const op = doc.paths[openApiPath(fullPath(route))][route.method.toLowerCase()];
      expect((op.parameters ?? []).some((p: Json) => p.$ref && p.$ref !== '#/components/parameters/RequestId')).toBe(false);
    }
  });

  it('documents paging limits, X-Request-Id everywhere and Retry-After where it is always sent', () => {
    for (const path of [
      '/api/v1/updated-products',
      '/api/v1/pricelists/updated',
      '/api/v1/failures',
      '/api/v1/stocks/by-supplier/{supplierId}',
    ]) {
      const params = doc.paths[path].get.parameters as Json[];
      expect(params.find((p) => p.name === 'limit')?.schema).toMatchObject({ minimum: 1, maximum: 500, default: 50 });
      expect(params.find((p) => p.name === 'offset')?.schema).toMatchObject({ minimum: 0, default: 0 });
    }
    for (const [path, ops] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(ops as Json)) {
        expect({ path, method, requestId: op.parameters.some((p: Json) => p.$ref === '#/components/parameters/RequestId') }).toEqual({
          path,
          method,
          requestId: true,
        });
        for (const [status, response] of Object.entries(op.responses as Json)) {
          const headers = response.$ref ? doc.components.responses[response.$ref.split('/').pop()].headers : response.headers;
          expect({ path, method, status, header: headers?.['X-Request-Id'] }).toEqual({
            path,
            method,
            status,
            header: { $ref: '#/components/headers/X-Request-Id' },
          });
        }
      }
    }
    expect(doc.components.headers['Retry-After'].required).toBe(true);
    expect(doc.components.responses.RateLimited.headers['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    expect(doc.components.responses.Conflict.headers['Retry-After'].required).toBeUndefined();
    expect(doc.components.schemas.Error.properties.error.required).toEqual(['code', 'message', 'requestId']);
  });

  it('makes every field of an output type required, and null valid where GraphQL allows it', () => {
    const schemas = completeOutputSchemas(schema, {
      Shape: {
        type: 'object',
        required: ['id'],
        properties: {
          id: { type: 'integer' },
          state: { type: 'string', enum: ['on', 'off'] },
          status: { $ref: '#/components/schemas/FailureStatus' },
        },
      },
      FailureStatus: { type: 'string', enum: ['open', 'resolved'] },
      AckItemInput: { type: 'object', properties: { revision: { type: 'integer' } } },
    });
    expect(schemas.Shape.required).toEqual(['id', 'state', 'status']);
    expect(schemas.AckItemInput.required).toBeUndefined();
    const ajv = documentValidator({ components: { schemas } });
    const valid = (value: unknown) => ajv.validate({ $ref: 'openapi.json#/components/schemas/Shape' }, value);
    expect(valid({ id: 1, state: null, status: null })).toBe(true);
    expect(valid({ id: 1, state: 'on', status: 'open' })).toBe(true);
    expect(valid({ id: 1, state: 'up', status: null })).toBe(false);
    expect(valid({ id: 1, state: null, status: 'lost' })).toBe(false);
    expect(valid({ id: 1, state: null })).toBe(false);
  });

  it("passes the Redocly linter's recommended rules without a warning", () => {
    // What `npm run openapi:lint` lints, the served document, in a directory of its own with the
    // configuration and its ignore file: the script would rewrite the committed openapi.json,
    // whose staleness the first test checks.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sgw-openapi-'));
    const root = path.join(__dirname, '..', '..');
    for (const name of ['redocly.yaml', '.redocly.lint-ignore.yaml']) copyFileSync(path.join(root, name), path.join(dir, name));
    writeFileSync(path.join(dir, 'openapi.json'), openApiText());
    const redocly = path.join(path.dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
    const run = spawnSync(process.execPath, [redocly, 'lint', '--config', 'redocly.yaml', 'openapi.json'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    rmSync(dir, { recursive: true, force: true });
    // Errors exit non-zero; warnings only show in the summary, which Redocly writes to stderr.
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status).toBe(0);
    expect(output).toMatch(/Your API description is valid/);
    expect(output).not.toMatch(/You have \d+ warnings?/);
  });
});

describe('ai-context document', () => {
  const text = renderAiContext(restRoutes, loadConfig({}).requestBounds);

  it('explains authentication, pagination and the error body', () => {
    expect(text).toMatch(/Authorization: Bearer <token>/);
    expect(text).toMatch(/`limit` \(default 50/);
    expect(text).toMatch(/"error": \{"code": "VALIDATION_FAILED"/);
  });

  it('lists every route with its purpose and an example', () => {
    for (const route of restRoutes) {
      const heading = `#### ${route.method} ${openApiPath(fullPath(route))}\n`;
      expect(text).toContain(heading);
      const section = text.slice(text.indexOf(heading)).split('\n#### ')[0]!;
      expect(section).toContain(route.summary);
      expect(section).toMatch(/```json/);
    }
  });
});
