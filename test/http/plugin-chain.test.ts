import type { Plugin } from 'graphql-yoga';
import type { useBearerAuth } from '../../src/http/auth.plugin';
import type { useAuthentication } from '../../src/http/authentication.plugin';
import type { useBodyLimits } from '../../src/http/body-limits.plugin';
import { pluginChain } from '../../src/http/plugin-chain';
import type { useHttpConventions } from '../../src/http/http-conventions.plugin';
import type { useRouteMatch } from '../../src/http/route-match.plugin';
import type { useRateLimit } from '../../src/http/use-rate-limit';
import type { useOps } from '../../src/ops/ops.plugin';
import type { useRestEdge } from '../../src/rest/rest-edge.plugin';

/**
 * The plugin order is held by the types (src/http/plugin-chain.ts). The `@ts-expect-error` lines
 * are the test of that: `tsc --noEmit -p .` (npm run typecheck, CI) fails when a misordered chain
 * compiles, because the directive is then unused. Each has a twin in the right order that compiles,
 * so that a directive cannot pass for another reason. Jest runs the same code for the order.
 */

// Stand-ins with the real plugins' types: only the types are checked, and the chain never calls a hook.
const plugin = <T>(name: string) => ({ name }) as unknown as T;
const route = plugin<ReturnType<typeof useRouteMatch>['plugin']>('route');
const body = plugin<ReturnType<typeof useBodyLimits>>('body');
const caller = plugin<ReturnType<typeof useAuthentication>>('caller');
const rateLimit = plugin<ReturnType<typeof useRateLimit>>('rate limit');
const conventions = plugin<ReturnType<typeof useHttpConventions>>('conventions');
const bearerGate = plugin<ReturnType<typeof useBearerAuth>>('bearer gate');
const ops = plugin<ReturnType<typeof useOps>>('ops');
const restEdge = plugin<ReturnType<typeof useRestEdge>>('REST edge');
const plain = plugin<Plugin>('plain');
const envelopOnly = plugin<Plugin<{ anything: string }>>('envelop');

const names = (plugins: readonly unknown[]) => plugins.map((p) => (p as { name: string }).name);

describe('pluginChain', () => {
  it('hands the plugins to createYoga in the order they were added, arrays spread in place', () => {
    const chain = pluginChain()
      .use(plain, route, body)
      .use(caller)
      .use(...[rateLimit, envelopOnly]);
    expect(names(chain.plugins)).toEqual(['plain', 'route', 'body', 'caller', 'rate limit', 'envelop']);
  });

  it('leaves a chain as it was when another is built from it', () => {
    const base = pluginChain().use(route);
    const one = base.use(plain);
    const other = base.use(envelopOnly);
    expect(names(base.plugins)).toEqual(['route']);
    expect(names(one.plugins)).toEqual(['route', 'plain']);
    expect(names(other.plugins)).toEqual(['route', 'envelop']);
  });

  it('does not compile a plugin before the step that gives what it needs', () => {
    // The REST edge reads the route and the body, and comes after the Idempotency-Key's claim.
    // @ts-expect-error the REST edge needs 'route', 'body' and 'idempotency'
    pluginChain().use(restEdge);

    // /metrics is behind the token: the ops plugin comes after the bearer gate.
    const counted = pluginChain().use(route, body, caller).use(rateLimit).use(conventions);
    // @ts-expect-error the ops plugin needs 'token'
    counted.use(ops);
    counted.use(bearerGate).use(ops);

    // The caller: the rate limit keys on it.
    // @ts-expect-error the rate limit needs the authentication step before it
    pluginChain().use(route, body).use(rateLimit);
    pluginChain().use(route, body).use(caller).use(rateLimit);

    // A stage counts from the next `use`, not within the call that gives it.
    // @ts-expect-error 'caller' is given in the same call
    pluginChain().use(body, caller, rateLimit);
    pluginChain().use(body, caller).use(rateLimit);

    // A plugin that declares nothing (Yoga's, envelop's) fits anywhere.
    pluginChain().use(plain, envelopOnly).use(route).use(plain);
  });
});
