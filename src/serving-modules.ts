import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * The modules `serve` needs once the store is open: Yoga, the GraphQL schema and its services,
 * SOFA and the OpenAPI document, graphql-jit, the app. About a second of `require()` on a busy
 * two-core machine, which `startServer` spends while the embedded cluster starts (issue 29's
 * restart after kill -9). Loading is synchronous, so it goes one group at a time with a turn of
 * the event loop between: the cluster's start (pg_ctl, in processes of its own) and Prisma's
 * warm-up go on between the groups instead of waiting for all of them. The order only spreads the
 * work; each module is loaded once, and the app finds them in the module cache.
 */
export async function loadServingModules() {
  await import('./events/hub.js'); // graphql-yoga's subscriptions and Redis event target
  await nextTurn();
  await import('./accounts/account.schema.js'); // the Pothos builder, graphql-scalars
  await nextTurn();
  await import('./modules.js'); // the GraphQL schema and the REST route table
  await nextTurn();
  await import('./rest/openapi.js'); // SOFA
  await nextTurn();
  await import('./graphql/compiled-execution.plugin.js'); // graphql-jit
  await nextTurn();
  const [{ createApp }, { attachGraphqlWs }, { createEventHub }] = await Promise.all([
    import('./app.js'),
    import('./http/graphql-ws.js'),
    import('./events/hub.js'),
  ]);
  return { createApp, attachGraphqlWs, createEventHub };
}

export type ServingModules = Awaited<ReturnType<typeof loadServingModules>>;
