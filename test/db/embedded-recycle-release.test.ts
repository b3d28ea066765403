import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { fullCollection } from '../../src/db/collect-garbage';
import { embeddedStoreOpener } from '../../src/db/durable-nodefs';

/**
 * The recycle (ADR 0035) collects the closed PGlite instance before it opens the next, so that two
 * WebAssembly memories are never resident at once: that needs the opener, whose file system
 * outlives the instances, to let go of the closed one.
 */
describe('releasing a closed embedded store for the recycle', () => {
  let dir: string;
  const collect = fullCollection();
  // A WeakRef's target is kept until the current job ends: collect on a later turn.
  const collected = async (ref: WeakRef<PGlite>) => {
    await new Promise((resolve) => setImmediate(resolve));
    collect();
    return ref.deref() === undefined;
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sgw-release-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  // One opener for both cases, as the store's thread has: its file system is the same object throughout.
  it('lets a closed instance be collected once released, and not before', async () => {
    const opener = await embeddedStoreOpener(dir, { fsync: true });
    const openAndClose = async () => {
      const pglite = await opener.open();
      await pglite.query('SELECT 1');
      await pglite.close();
      return new WeakRef(pglite);
    };

    // The first open creates the store (initdb runs through an instance of its own on the same file system).
    await openAndClose();
    opener.releaseClosed();

    // Unreleased, the file system still holds the instance: this is what kept both memories alive.
    const kept = await openAndClose();
    expect(await collected(kept)).toBe(false);

    opener.releaseClosed();
    expect(await collected(kept)).toBe(true);

    // And the store opens again on the same file system, with its data.
    const reopened = await opener.open();
    try {
      expect((await reopened.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
    } finally {
      await reopened.close();
    }
  });
});
