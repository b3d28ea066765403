import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { JsonResponse } from './http';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the OpenAPI document is loose JSON

/** One operation of the document: `GET /api/v1/x`, its path template and its Operation Object. */
export type Operation = { key: string; method: string; template: string; op: Json };

/** What is wrong with an answer by the document: its status, content type, body or headers. */
export function responseProblems(doc: Json, ajv: Ajv, operation: Operation, res: JsonResponse): string[] {
  const pointer = `#/paths/${escape(operation.template)}/${operation.method.toLowerCase()}/responses/${res.status}`;
  let documented: Json | undefined = operation.op.responses[String(res.status)];
  if (!documented) return [`status ${res.status} is not documented`];
  let base = pointer;
  if (documented.$ref) {
    base = documented.$ref;
    documented = resolve(doc, documented.$ref);
  }
  const problems: string[] = [];
  const type = res.headers.get('content-type')?.split(';')[0]?.trim();
  const content: Json = documented!.content ?? {};
  if (Object.keys(content).length === 0) {
    if (res.text !== '') problems.push(`a body where none is documented (${type})`);
  } else if (!type || !content[type]) {
    problems.push(`content type ${type} is not among ${Object.keys(content).join(', ')}`);
  } else if (type === 'application/json') {
    const validate = ajv.getSchema(`openapi.json${base}/content/application~1json/schema`) as ValidateFunction;
    if (!validate(res.body)) problems.push(...(validate.errors ?? []).map((e) => `body${e.instancePath} ${e.message}`));
  }
  for (const [name, header] of Object.entries((documented!.headers ?? {}) as Json)) {
    const spec: Json = header.$ref ? resolve(doc, header.$ref) : header;
    const value = res.headers.get(name);
    if (value === null) {
      if (spec.required) problems.push(`header ${name} is missing`);
      continue;
    }
    const typed = spec.schema?.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
    if (!ajv.validate(spec.schema, typed)) problems.push(`header ${name}: ${value} ${ajv.errorsText()}`);
  }
  return problems;
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

function resolve(doc: Json, ref: string): Json {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<Json>((node, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** Ajv over the whole document, so that every `#/components/...` reference resolves as in the document. */
export function documentValidator(doc: Json): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false });
  addFormats(ajv);
  // OpenAPI's annotations, and the document's own members that hold schemas.
  ajv.addVocabulary(['example', 'openapi', 'info', 'servers', 'security', 'tags', 'paths', 'components']);
  ajv.addSchema({ ...closed(structuredClone(doc)), $id: 'openapi.json' });
  return ajv;
}

/**
 * An answer must not carry fields the document does not name: every object schema that lists its
 * properties (and says nothing of others) is closed for the check. The document itself stays open,
 * so that clients tolerate fields added later.
 */
function closed(node: unknown): Json {
  if (Array.isArray(node)) node.forEach(closed);
  else if (node && typeof node === 'object') {
    const schema = node as Json;
    if (schema.properties && typeof schema.properties === 'object' && schema.additionalProperties === undefined && !schema.allOf) {
      schema.additionalProperties = false;
    }
    Object.values(schema).forEach(closed);
  }
  return node as Json;
}
