import { mkdir, open, readFile, rename } from 'node:fs/promises';
import path from 'node:path';

/**
 * What the feed loop keeps across a crash, per entity type: where its pass through the change
 * list had got to (`since`/`after_id` of the last record handed out), and the records handed out
 * whose acknowledgement was not answered yet. After a restart those records come back from the
 * change list (they are still pending) and are marked `possiblyApplied`: the application may
 * have applied them before it died.
 */
export type FeedState = {
  checkpoint?: { since: string; after_id: number } | undefined;
  /** `${id}@${revision}` of the records handed out and not yet acknowledged. */
  unacknowledged: string[];
};

/** Where the feed keeps its state: a file (`fileJournal`), the application's database, or memory. */
export interface FeedJournal {
  read(entity: string): Promise<FeedState | undefined>;
  write(entity: string, state: FeedState): Promise<void>;
}

/** State in memory: survives nothing; for tests and loops that do not need to resume. */
export function memoryJournal(): FeedJournal {
  const states = new Map<string, FeedState>();
  return {
    read: async (entity) => states.get(entity),
    write: async (entity, state) => void states.set(entity, state),
  };
}

/**
 * State in one JSON file per entity type in `dir`, written to a temporary file, flushed and
 * renamed over the old one: a crash leaves the old state or the new one, never half of either.
 */
export function fileJournal(dir: string): FeedJournal {
  const file = (entity: string) => path.join(dir, `${entity}.feed.json`);
  return {
    async read(entity) {
      try {
        return JSON.parse(await readFile(file(entity), 'utf8')) as FeedState;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async write(entity, state) {
      await mkdir(dir, { recursive: true });
      const temporary = `${file(entity)}.${process.pid}.tmp`;
      const handle = await open(temporary, 'w');
      try {
        await handle.writeFile(JSON.stringify(state));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, file(entity));
      const directory = await open(dir, 'r');
      try {
        await directory.sync();
      } finally {
        await directory.close();
      }
    },
  };
}
