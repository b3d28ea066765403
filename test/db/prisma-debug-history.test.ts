import { spawn } from 'node:child_process';
import path from 'node:path';
import { backends } from '../support/database';
import { ROOT } from '../support/process';
import type { Kept, ProbeResults } from './prisma-debug-history.probe';

/*
 * Prisma keeps the last 100 debug calls' arguments (ADR 0006); these tests prove where that history
 * is and that releaseBulkParameters and the store's thread evict bulk parameters from it. The heap
 * is read by a probe process of its own (prisma-debug-history.probe.ts): a snapshot of this jest
 * worker, grown by the test files it ran before, took minutes.
 */
const PROBE = path.join(__dirname, 'prisma-debug-history.probe.ts');

function runProbe(): Promise<ProbeResults> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', PROBE], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let output = '';
    let results: ProbeResults | undefined;
    child.stdout!.on('data', (d: Buffer) => (output += d));
    child.stderr!.on('data', (d: Buffer) => (output += d));
    child.on('message', (message: ProbeResults) => (results = message));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0 && results) resolve(results);
      else reject(new Error(`the probe exited with ${code}:\n${output}`));
    });
  });
}

// Started once for the whole file: one process, one load of Prisma and PGlite.
let probe: Promise<ProbeResults> | undefined;
async function kept(part: string): Promise<Kept> {
  const found = (await (probe ??= runProbe()))[part];
  if (!found) throw new Error(`the probe did not check ${part}`);
  return found;
}

describe.each(backends)("Prisma's debug history and bulk parameters on %s (main thread)", (backend) => {
  let history: Kept;
  beforeAll(async () => {
    history = await kept(backend);
  });

  it('keeps a raw statement parameter alive (the reason for releaseBulkParameters)', () => {
    expect(history.rawStatement).toBe(true);
  });

  it('lets it go after releaseBulkParameters()', () => {
    expect(history.afterReleaseBulkParameters).toBe(false);
  });

  it('lets it go after every inTransaction batch, which all bulk syncs run in', () => {
    expect(history.afterInTransaction).toBe(false);
  });
});

describe("Prisma's debug history in the embedded store's thread", () => {
  let history: Kept;
  beforeAll(async () => {
    history = await kept('thread');
  });

  it('keeps a small parameter in the PGlite adapter history (so the probe can see one)', () => {
    expect(history.smallParameter).toBe(true);
  });

  it('evicts a bulk parameter there after its statement, with no call from this thread', () => {
    expect(history.bulkParameter).toBe(false);
  });
});
