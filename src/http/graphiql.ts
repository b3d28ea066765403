import type { GraphiQLOptions } from 'graphql-yoga';

/**
 * GraphiQL inlined from @graphql-yoga/render-graphiql (Yoga's default loads it from a CDN, which a
 * closed network never reaches). The module is a 9 MB bundle held in memory once loaded, so it is
 * loaded on the first GraphiQL request rather than at start.
 */
export async function renderGraphiQL(options: GraphiQLOptions): Promise<string> {
  const { renderGraphiQL: render } = await import('@graphql-yoga/render-graphiql');
  return render(options);
}
