/**
 * CPU per execution of the poll's GraphQL document, measured alone (ADR 0033): the document SOFA
 * builds for `GET /api/v1/updated-products` on the REST schema, with the root field answering a
 * fixed page of 50 change records shaped as the database returns them, through graphql-tools'
 * executor (what Yoga runs) and through graphql-jit's compiled query (what the REST edge runs,
 * `src/graphql/compiled-execution.plugin.ts`). No HTTP, no database: only the executor differs.
 *
 *   npx tsx bench/probes/rest-execution-cpu.ts
 */
import { normalizedExecutor } from '@graphql-tools/executor';
import { buildOperationNodeForField, mapSchema, MapperKind } from '@graphql-tools/utils';
import { Kind, OperationTypeNode, type DocumentNode, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { restRoutes, schema } from '../../src/modules';
import { restSchema, sofaConfig } from '../../src/rest/sofa';

const EXECUTIONS = Number(process.env.EXECUTIONS ?? 5_000);
const ROUNDS = 5;

const page = {
  meta: { total: 10_000, limit: 50, offset: 0 },
  payload: Array.from({ length: 50 }, (_, i) => ({
    id: i + 1,
    externalId: `POLL-${i}`,
    erpId: i,
    data: { name: `Product ${i}`, description: 'A product as an ERP would describe it, with a few words of text.', price: i / 10 },
    context: 'erp_sync',
    revision: 1,
    changedFields: ['description', 'erp_id', 'name', 'price'],
    isNew: true,
    updatedAt: new Date(1_790_000_000_000 + i),
    pendingValues: {},
  })),
};

const served = mapSchema(restSchema(schema), {
  [MapperKind.ROOT_OBJECT]: (type) => type,
  [MapperKind.QUERY_ROOT_FIELD]: (config, fieldName) => (fieldName === 'updatedProducts' ? { ...config, resolve: () => page } : config),
});
const config = sofaConfig(served, restRoutes);
const document: DocumentNode = {
  kind: Kind.DOCUMENT,
  definitions: [
    buildOperationNodeForField({
      kind: OperationTypeNode.QUERY,
      schema: served,
      field: 'updatedProducts',
      ignore: config.ignore,
      circularReferenceDepth: config.depthLimit,
    }),
  ],
};
const variableValues = { limit: 50 };
const contextValue = {};
const compiled = compileQuery(served, document);
if (!isCompiledQuery(compiled)) throw new Error(`not compiled: ${JSON.stringify(compiled.errors)}`);

const runners: Record<string, () => Promise<ExecutionResult> | ExecutionResult> = {
  executor: () => normalizedExecutor({ schema: served, document, variableValues, contextValue }) as Promise<ExecutionResult>,
  jit: () => compiled.query(undefined, contextValue, variableValues),
};

async function cpuMsPerExecution(run: () => Promise<ExecutionResult> | ExecutionResult): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < EXECUTIONS; i++) {
    const result = await run();
    if (result.errors) throw new Error(JSON.stringify(result.errors));
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / EXECUTIONS;
}

async function main(): Promise<void> {
  const a = JSON.stringify(await runners.executor!());
  const b = JSON.stringify(await runners.jit!());
  if (a !== b) throw new Error('the executor and the compiled query answer differently');
  const samples: Record<string, number[]> = { executor: [], jit: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(runners)) samples[name]!.push(await cpuMsPerExecution(run));
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  console.log(
    JSON.stringify({
      executions: EXECUTIONS,
      rounds: ROUNDS,
      bytes: a.length,
      medianCpuMsPerExecution: Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, Number(median(xs).toFixed(4))])),
      rounds_ms: samples,
    }),
  );
}

void main();
