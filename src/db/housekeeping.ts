import type { EmbeddedSql } from './embedded-thread';
import type { Logger } from 'pino';

/**
 * What PostgreSQL's background workers do, for the embedded store, which has none
 * (docs/adr/0025-embedded-housekeeping-and-memory.md): VACUUM of tables that collected dead
 * tuples, and CHECKPOINT so that WAL segments are recycled instead of piling up.
 *
 * Every statement goes through PGlite's own queue (in the store's thread, ADR 0032), behind any open
 * transaction: a request waits at most for one VACUUM of one table (each table is its own
 * statement, so requests run in between). The timers stay here; the statements run there.
 */

export type HousekeepingOptions = {
  logger?: Logger | undefined;
  /** How often dead tuples are looked at (and tables vacuumed when over the threshold). */
  vacuumCheckMs?: number;
  /** How often a CHECKPOINT runs (besides the one at shutdown). */
  checkpointMs?: number;
  /** A table is vacuumed once its dead tuples exceed this base plus this share of its live ones (autovacuum's rule). */
  deadTupleBase?: number;
  deadTupleShare?: number;
};

export type TableStats = { table: string; live: number; dead: number; modifiedSinceAnalyze: number };

export type VacuumRun = { table: string; deadBefore: number; pauseMs: number };

export type Housekeeping = {
  /** Vacuums every table over the threshold, one statement per table; returns what it did. */
  vacuumDue(): Promise<VacuumRun[]>;
  checkpoint(): Promise<number>;
  /**
   * Longest single VACUUM, ANALYZE and CHECKPOINT so far, in milliseconds, from asking PGlite to
   * done: the statement itself plus any wait behind statements queued before it.
   */
  longestPauseMs(): { vacuum: number; analyze: number; checkpoint: number };
  start(): void;
  /** Stops the timers and checkpoints once more, so a restart replays no WAL. */
  stop(): Promise<void>;
};

export const HOUSEKEEPING_DEFAULTS = { vacuumCheckMs: 5_000, checkpointMs: 60_000, deadTupleBase: 1_000, deadTupleShare: 0.1 };

export async function tableStats(pglite: Pick<EmbeddedSql, 'query'>): Promise<TableStats[]> {
  const { rows } = await pglite.query<TableStats>(
    `SELECT relname AS table, n_live_tup::int AS live, n_dead_tup::int AS dead, n_mod_since_analyze::int AS "modifiedSinceAnalyze"
       FROM pg_stat_user_tables WHERE schemaname = 'public' ORDER BY relname`,
  );
  return rows;
}

export function createHousekeeping(pglite: EmbeddedSql, options: HousekeepingOptions = {}): Housekeeping {
  const settings = { ...HOUSEKEEPING_DEFAULTS, ...options };
  const timers: NodeJS.Timeout[] = [];
  const longest = { vacuum: 0, analyze: 0, checkpoint: 0 };
  // One pass at a time: a pass slower than its interval is not run twice over.
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;

  const timed = async (kind: keyof typeof longest, sql: string) => {
    const started = performance.now();
    await pglite.exec(sql);
    const ms = performance.now() - started;
    longest[kind] = Math.max(longest[kind], ms);
    return ms;
  };

  const vacuumDue = async (): Promise<VacuumRun[]> => {
    const overThreshold = (n: number, t: TableStats) => n > settings.deadTupleBase + settings.deadTupleShare * t.live;
    const runs: VacuumRun[] = [];
    for (const t of await tableStats(pglite)) {
      if (stopped) break;
      // Names come from the catalogue; quoted all the same.
      const table = `"${t.table.replaceAll('"', '""')}"`;
      if (overThreshold(t.dead, t)) runs.push({ table: t.table, deadBefore: t.dead, pauseMs: await timed('vacuum', `VACUUM ${table}`) });
      // Planner statistics, as autovacuum keeps them; a statement of its own, so each pause stays one job long.
      if (overThreshold(t.modifiedSinceAnalyze, t)) await timed('analyze', `ANALYZE ${table}`);
    }
    if (runs.length > 0) settings.logger?.debug({ runs }, 'embedded store vacuumed');
    return runs;
  };

  const checkpoint = () => timed('checkpoint', 'CHECKPOINT');

  const serialised = <T>(work: () => Promise<T>): Promise<T> => {
    const next = running.then(work);
    running = next.catch((error: unknown) =>
      settings.logger?.warn({ err: error }, 'embedded store housekeeping failed; trying again later'),
    );
    return next;
  };

  const every = (ms: number, work: () => Promise<unknown>) => {
    const timer = setInterval(() => void serialised(work).catch(() => undefined), ms);
    timer.unref(); // housekeeping alone never keeps a process alive
    timers.push(timer);
  };

  return {
    vacuumDue: () => serialised(vacuumDue),
    checkpoint: () => serialised(checkpoint),
    longestPauseMs: () => ({ ...longest }),
    start() {
      if (timers.length > 0 || stopped) return;
      every(settings.vacuumCheckMs, vacuumDue);
      every(settings.checkpointMs, checkpoint);
    },
    async stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      timers.length = 0;
      await running;
      if (!pglite.closed)
        await checkpoint().catch((error: unknown) => settings.logger?.warn({ err: error }, 'checkpoint at shutdown failed'));
    },
  };
}
