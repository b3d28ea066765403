/**
 * What the queue's statements run on: a Prisma client through its tagged `$queryRaw`, or, in the
 * worker thread, a pg pool behind the same tagged call (the thread runs without Prisma's runtime).
 * Every statement is a tagged template, so values are always parameters, never spliced.
 */
export type QueueDatabase = {
  $queryRaw<T = unknown>(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<T>;
};

/** Anything with pg's `query(text, values)`: a `Pool` or a `Client`. */
export type PgQueryable = { query(text: string, values: unknown[]): Promise<{ rows: unknown[] }> };

/** The tagged call over pg: the template's values become `$1…$n`, in order. */
export function queueDatabaseOverPg(pg: PgQueryable): QueueDatabase {
  return {
    async $queryRaw<T>(strings: TemplateStringsArray, ...values: unknown[]): Promise<T> {
      const text = strings.reduce((sql, part, i) => `${sql}$${i}${part}`);
      return (await pg.query(text, values)).rows as T;
    },
  };
}
