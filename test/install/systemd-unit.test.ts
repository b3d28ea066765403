import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.join(__dirname, '..', '..');
const UNIT = path.join(ROOT, 'deploy', 'sync-gateway.service');

/** The unit's settings: key → values in file order (Environment= may repeat). */
async function readUnit(): Promise<Map<string, string[]>> {
  const settings = new Map<string, string[]>();
  for (const line of (await readFile(UNIT, 'utf8')).split('\n')) {
    const m = /^(\w+)=(.*)$/.exec(line.trim());
    if (m) settings.set(m[1]!, [...(settings.get(m[1]!) ?? []), m[2]!]);
  }
  return settings;
}

it('the systemd unit restarts on failure, runs as its own user with a data directory and an environment file', async () => {
  const unit = await readUnit();
  expect(unit.get('Restart')).toEqual(['on-failure']);
  expect(unit.get('User')?.[0]).toBe('sync-gateway');
  expect(unit.get('EnvironmentFile')).toEqual(['-/etc/sync-gateway/env']);
  expect(unit.get('StateDirectory')).toEqual(['sync-gateway']);
  expect(unit.get('Environment')?.join(' ')).toContain('DATA_DIR=/var/lib/sync-gateway');
  expect(unit.get('ReadWritePaths')).toEqual(['/var/lib/sync-gateway']);
  // Longer than SHUTDOWN_GRACE_MS (10 s) plus the cluster's fast shutdown, so a stop is never a SIGKILL.
  expect(Number(unit.get('TimeoutStopSec')?.[0])).toBeGreaterThan(15);
  if (existsSync('/usr/bin/systemd-analyze')) {
    const copy = path.join(await mkdtemp(path.join(tmpdir(), 'sgw-unit-')), 'sync-gateway.service');
    await writeFile(copy, await readFile(UNIT));
    const { stderr } = await promisify(execFile)('/usr/bin/systemd-analyze', ['verify', copy]);
    expect(stderr).toBe('');
  }
});

it("the unit's ExecStart and Environment start the service (the release in /opt/sync-gateway being this checkout)", async () => {
  const unit = await readUnit();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sgw-unit-data-'));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dataDir, PORT: '0', LOG_LEVEL: 'info' };
  for (const assignment of (unit.get('Environment') ?? []).join(' ').split(/\s+/)) {
    const [key, value] = assignment.split('=') as [string, string];
    env[key] = key === 'DATA_DIR' ? dataDir : value;
  }
  const [command, ...args] = unit.get('ExecStart')![0]!.replaceAll('/opt/sync-gateway', ROOT).split(/\s+/) as [string, ...string[]];
  const child = spawn(command, args, { env, cwd: ROOT });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (d: Buffer) => {
        output += d;
        const line = output.split('\n').find((l) => l.includes('"sync-gateway listening"'));
        if (line) resolve(JSON.parse(line).url as string);
      });
      child.stderr.on('data', (d: Buffer) => (output += d));
      child.on('close', (code) => reject(new Error(`exited with ${code}: ${output}`)));
    });
    expect((await fetch(`${url}/health`)).status).toBe(200);
  } finally {
    const exited = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  }
});
