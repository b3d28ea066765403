import { createHash } from 'node:crypto';

/**
 * What the queue's statements run on: a Prisma client through its tagged `$queryRaw`, or, in the
 * worker thread, a pg pool behind the same tagged call (the thread runs without Prisma's runtime).
 * Every statement is a tagged template, so values are always parameters, never spliced.
 */
export type QueueDatabase = {
  $queryRaw<T = unknown>(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<T>;
};

/** Anything with pg's `query`: a `Pool` or a `Client`. */
export type PgQueryable = {
  query(config: { text: string; values: unknown[]; name?: string }): Promise<{ rows: unknown[] }>;
};

/** A template's text, and its statement name once one was given (per generation, see below). */
type Statement = { text: string; name: string | undefined };

/**
 * The tagged call over pg: the template's values become `$1…$n`, in order. Each statement is a
 * named prepared statement: PostgreSQL parses and analyses its text once per connection, not on
 * every claim and every result batch (the result statement is the largest the worker runs; with
 * its CTEs its parse and analysis cost more than its execution for a batch of one). The texts are
 * the templates written in `src/queue/sql/`, a bounded set, never input. PostgreSQL still plans
 * the first five executions for their values and keeps a generic plan only when it costs no more
 * than those, so a statement whose best plan depends on its values (the claim's `now`, `limit` and
 * exclusions) keeps being planned for them.
 */
export function queueDatabaseOverPg(pg: PgQueryable): QueueDatabase {
  // A call site's template is the same object on every call: its text is built once.
  const statements = new WeakMap<TemplateStringsArray, Statement>();
  let generation = 0;
  const statementOf = (strings: TemplateStringsArray): Statement => {
    let statement = statements.get(strings);
    if (!statement)
      statements.set(strings, (statement = { text: strings.reduce((sql, part, i) => `${sql}$${i}${part}`), name: undefined }));
    statement.name ??= `sgq_${createHash('sha256').update(statement.text).digest('hex').slice(0, 24)}_${generation}`;
    return statement;
  };
  return {
    async $queryRaw<T>(strings: TemplateStringsArray, ...values: unknown[]): Promise<T> {
      const statement = statementOf(strings);
      try {
        return (await pg.query({ name: statement.name!, text: statement.text, values })).rows as T;
      } catch (error) {
        if (!isStalePlan(error)) throw error;
        // A migration (another replica's, in a rolling deploy) changed what a statement prepared
        // before it returns. PostgreSQL refuses it before executing anything, so running it again
        // under a new name, prepared afresh, repeats nothing (src/db/prepared-query.ts does the same).
        generation++;
        statement.name = undefined;
        return (await pg.query({ name: statementOf(strings).name!, text: statement.text, values })).rows as T;
      }
    },
  };
}

function isStalePlan(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}
