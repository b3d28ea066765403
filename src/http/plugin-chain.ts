import type { Plugin, YogaServerOptions } from 'graphql-yoga';
import type { RequestContext, ServerContext } from '../graphql/context';

/**
 * What a step of the request pipeline has done for the plugins after it. Yoga's `Plugin` generics
 * type what a plugin sees, not what ran before it (`createYoga` takes any array in any order), so
 * the order is carried by these names: a plugin needs some, gives others, and the chain below
 * compiles only when each need was given earlier.
 */
export type Stage =
  /** The request's route is matched: `routeOf` answers (route-match.plugin.ts). */
  | 'route'
  /** The body is read once and bounded: `bodyText` and `bodyShape` are set. */
  | 'body'
  /** The caller is looked up: `auth` is set when the request carries a valid token. */
  | 'caller'
  /** The rate limit counted the request, so every answer from here on is counted (401s too). */
  | 'counted'
  /** OPTIONS, HEAD and 405 are answered, so that they need no token. */
  | 'conventions'
  /** The bearer gate let the request on: it carries a valid token or asks for a public route. */
  | 'token'
  /** A REST caller's role may make the call: a 403 comes before any work below. */
  | 'role'
  /** The Idempotency-Key is claimed (or its answer replayed), so a later refusal is stored too. */
  | 'idempotency';

// Keys of the type only: nothing is added to a plugin object at run time.
declare const needs: unique symbol;
declare const gives: unique symbol;

/**
 * A Yoga plugin that says in its type which stages must be done before it runs (`Needs`) and which
 * it does for the plugins after it (`Gives`). Any other plugin needs and gives nothing.
 */
export type StepPlugin<Needs extends Stage = never, Gives extends Stage = never, Context extends ServerContext = ServerContext> = Plugin<
  object,
  Context
> & {
  readonly [needs]?: Needs;
  readonly [gives]?: Gives;
};

/** Whatever `createYoga` takes as a plugin (Yoga's, envelop's, any context). */
type AnyPlugin = NonNullable<YogaServerOptions<ServerContext, RequestContext>['plugins']>[number];

type NeedsOf<P> = P extends unknown ? (typeof needs extends keyof P ? Extract<P[typeof needs], Stage> : never) : never;
type GivesOf<P> = P extends unknown ? (typeof gives extends keyof P ? Extract<P[typeof gives], Stage> : never) : never;

/** Names, in the compiler's message, the stages the plugins need that no earlier plugin gave. */
type Placed<Needs, Done> = [Exclude<Needs, Done>] extends [never] ? unknown : { needsEarlierStages: Exclude<Needs, Done> };

/** Plugins in order, and the stages they have done. */
export type PluginChain<Done extends Stage> = {
  /**
   * A chain with `plugins` after the ones so far. Compiles only when every stage they need was
   * given by an earlier `use` (not by one in the same call). Not named `then`: that would make the
   * chain a thenable, which `await` would call.
   */
  use<P extends AnyPlugin[]>(...plugins: P & Placed<NeedsOf<P[number]>, Done>): PluginChain<Done | GivesOf<P[number]>>;
  /** The plugins in the order they were added, for `createYoga`. */
  readonly plugins: AnyPlugin[];
};

/** An empty chain: `pluginChain().use(a).use(b, c).plugins` is `[a, b, c]`. Each `use` returns a new chain. */
export function pluginChain(): PluginChain<never> {
  return chainOf([]);
}

function chainOf<Done extends Stage>(added: readonly AnyPlugin[]): PluginChain<Done> {
  return {
    use: (...plugins) => chainOf([...added, ...plugins]),
    get plugins() {
      return [...added];
    },
  };
}
