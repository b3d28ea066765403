/**
 * `npm run postman:write`: rewrites postman/sync-gateway.postman_collection.json from openapi.json
 * (openapi-to-postmanv2), committed like openapi.json and tested for staleness. Made runnable and
 * stable: optional query parameters are off, an Idempotency-Key is a new {{$guid}} per send,
 * generated ids and random example values are dropped, and each request checks that its status
 * is one the document lists for it (newman runs it against a live server in CI).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { convert } from 'openapi-to-postmanv2';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- Postman collections are loose JSON

const ROOT = path.join(__dirname, '..');
export const COLLECTION_FILE = path.join(ROOT, 'postman', 'sync-gateway.postman_collection.json');

export async function postmanCollectionText(openApiText = readFileSync(path.join(ROOT, 'openapi.json'), 'utf8')): Promise<string> {
  const doc = JSON.parse(openApiText) as Json;
  const converted = (await promisify(convert)(
    { type: 'string', data: openApiText },
    { folderStrategy: 'Tags', parametersResolution: 'Example', includeAuthInfoInExample: false },
  )) as Json;
  if (!converted.result) throw new Error(`openapi-to-postmanv2: ${converted.reason}`);
  const collection = converted.output[0].data as Json;
  collection.info = {
    _postman_id: uuidOf(openApiText),
    name: 'sync-gateway',
    description:
      'Every route of openapi.json. Set baseUrl (e.g. http://127.0.0.1:4000) and bearerToken (node bin/sync-gateway.js token create …).',
    schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
  };
  collection.variable = [
    { key: 'baseUrl', value: 'http://127.0.0.1:4000', type: 'string' },
    { key: 'bearerToken', value: '', type: 'string' },
  ];
  for (const item of requests(collection.item)) tidy(item, doc);
  return `${JSON.stringify(collection, null, 2)}\n`;
}

function* requests(items: Json[]): Generator<Json> {
  for (const item of items) {
    delete item.id;
    if (item.item) yield* requests(item.item);
    else yield item;
  }
}

/** One request: minimal, stable, and checked against the statuses its operation documents. */
function tidy(item: Json, doc: Json): void {
  delete item.response; // example answers: the document has them, and their generated values are random
  const request = item.request as Json;
  request.header = (request.header as Json[])
    .filter((h) => h.key !== 'X-Request-Id')
    .map((h) => (h.key === 'Idempotency-Key' ? { key: h.key, value: '{{$guid}}', description: h.description } : h));
  for (const query of (request.url.query ?? []) as Json[]) query.disabled = true;
  const template = `/${(request.url.path as string[]).map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s)).join('/')}`;
  const operation = doc.paths[template]?.[String(request.method).toLowerCase()] as Json | undefined;
  const statuses = Object.keys(operation?.responses ?? {});
  if (!operation || statuses.length === 0) throw new Error(`${request.method} ${template}: not in openapi.json`);
  if (request.body?.mode === 'raw') {
    // The operation's own example, not values the converter makes up (random where it has none).
    const example = operation.requestBody?.content?.['application/json']?.example as unknown;
    request.body.raw = JSON.stringify(example ?? {}, null, 2);
  }
  item.event = [
    {
      listen: 'test',
      script: {
        type: 'text/javascript',
        exec: [
          `const documented = ${JSON.stringify(statuses.map(Number))};`,
          `pm.test('${request.method} ${template} answers a status its operation documents', () => pm.expect(documented).to.include(pm.response.code));`,
          "pm.test('no server error', () => pm.expect(pm.response.code).to.be.below(500));",
        ],
      },
    },
  ];
}

/** A UUID that changes only when the document does, so the committed collection is stable. */
function uuidOf(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

if (require.main === module) {
  void postmanCollectionText().then((text) => {
    writeFileSync(COLLECTION_FILE, text);
    console.log(`wrote ${path.relative(ROOT, COLLECTION_FILE)}`);
  });
}
