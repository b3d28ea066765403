import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, rmdir, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { DataDirLockedError, lockDataDir } from '../../src/db/data-dir-lock';
import { holderFile, lockIdentity, startTicks, type LockHolder } from '../../src/db/lock-holder';
import { openStore } from '../../src/db/store';
import { LOADER, ROOT, sourceModule } from '../support/process';

describe('embedded data directory', () => {
  let dataDir: string;
  const logger = pino({ level: 'silent' });

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-lock-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('refuses a second opener while held, and keeps the data across a restart', async () => {
    const first = await openStore({ dataDir, logger });
    await first.migrate();
    await first.prisma.product.create({ data: { externalId: 'KEEP' } });

    await expect(openStore({ dataDir, logger })).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(openStore({ dataDir, logger })).rejects.toThrow(/in use by another sync-gateway process/);

    await first.close();
    const second = await openStore({ dataDir, logger });
    try {
      expect(await second.migrate()).toEqual([]);
      expect(await second.prisma.product.findUnique({ where: { externalId: 'KEEP' } })).not.toBeNull();
    } finally {
      await second.close();
    }
  });
});

describe('the data-directory lock after its holder died', () => {
  const logger = pino({ level: 'silent' });
  let dataDir: string;
  let lockPath: string;
  const noop = () => undefined;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-lock-holder-'));
    lockPath = path.join(dataDir, 'sync-gateway.lock');
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  /** A process of its own that takes the lock and keeps it until killed. */
  async function holderProcess(): Promise<ChildProcess> {
    const script = `require(${JSON.stringify(sourceModule('db/data-dir-lock'))})
      .lockDataDir(${JSON.stringify(dataDir)}, () => {}).then(() => { console.log('locked'); setInterval(() => {}, 1000); });`;
    const child = spawn(process.execPath, [...LOADER, '-e', script], { cwd: ROOT });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('locked') && resolve());
      child.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
    });
    return child;
  }

  async function fakeHolder(holder: Partial<LockHolder>): Promise<void> {
    await mkdir(lockPath);
    const record: LockHolder = {
      pid: process.pid,
      hostname: os.hostname(),
      bootId: null,
      startTicks: startTicks(process.pid),
      ...(await lockIdentity(lockPath)),
      ...holder,
    };
    await writeFile(holderFile(lockPath), JSON.stringify(record));
  }

  it('is taken over at once, with a log line, when the holder on this host was killed', async () => {
    const child = await holderProcess();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const lines: string[] = [];
    const capture = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    // The lock is seconds old, far from the 20 s staleness: only the dead holder lets it go.
    const release = await lockDataDir(dataDir, noop, capture);
    expect(lines.join('')).toContain('taking it over');
    expect(lines.join('')).toContain(`"pid":${child.pid}`);
    expect(JSON.parse(await readFile(holderFile(lockPath), 'utf8'))).toMatchObject({ pid: process.pid });
    await release();
  });

  it('still refuses while the holder lives, naming it', async () => {
    const child = await holderProcess();
    try {
      await expect(lockDataDir(dataDir, noop, logger)).rejects.toThrow(`pid ${child.pid} on ${os.hostname()}`);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('treats a reused PID (same number, other start time) as a dead holder', async () => {
    await fakeHolder({ pid: process.pid, startTicks: '1' });
    const release = await lockDataDir(dataDir, noop, logger);
    await release();
  });

  it('keeps the staleness rule for a holder on another host', async () => {
    await fakeHolder({ hostname: 'another-host.example', pid: 999_999 });
    await expect(lockDataDir(dataDir, noop, logger)).rejects.toBeInstanceOf(DataDirLockedError);
    const longAgo = new Date(Date.now() - 30_000);
    await utimes(lockPath, longAgo, longAgo);
    const release = await lockDataDir(dataDir, noop, logger);
    await release();
  });

  it('ignores a holder record that describes an earlier lock directory', async () => {
    await fakeHolder({ pid: 999_999 });
    await rmdir(lockPath);
    await mkdir(lockPath); // a new lock whose holder has not written its record yet
    await expect(lockDataDir(dataDir, noop, logger)).rejects.toBeInstanceOf(DataDirLockedError);
  });
});
