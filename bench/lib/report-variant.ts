import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ReportTarget } from './failure-load';
import { runCliCommand, spawnServe, type FreshDatabase } from './service';

/** A build of the service serving failure reports on a database of its own, and how to stop it. */
export type ReportVariant = { name: string; target: ReportTarget; pid: number; databaseUrl: string; stop(): Promise<void> };

/**
 * Starts the build in `root` (a checkout with `bin/` and a built `dist/`) on `db`, unthrottled, with
 * a token and `configurations` webhook configurations per entity type (to_webshop, each at
 * `${receiverUrl}/${entityType}-${n}`). The probes that compare builds on failure reports share it.
 */
export async function startReportVariant(
  variant: { name: string; root: string; db: FreshDatabase; receiverUrl: string },
  configurations: ReadonlyArray<readonly [entityType: string, count: number]>,
  nodeArgs: readonly string[] = [],
): Promise<ReportVariant> {
  const { name, root, db, receiverUrl } = variant;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sgw-variant-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    PORT: '0',
    LOG_LEVEL: 'info',
    RATE_LIMIT_READ_PER_MINUTE: '1000000000',
    RATE_LIMIT_WRITE_PER_MINUTE: '1000000000',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
  };
  const token = (await runCliCommand(['token', 'create', '--name', `variant-${name}`], env, root)).trim().split('\n').pop()!;
  for (const [entityType, count] of configurations) {
    for (let c = 1; c <= count; c++) {
      const secret = `whsec_${randomBytes(24).toString('base64')}`;
      const args = ['webhook', 'add', '--url', `${receiverUrl}/${entityType}-${c}`, '--entity-type', entityType];
      await runCliCommand([...args, '--direction', 'to_webshop', '--secret', secret], env, root);
    }
  }
  const { child, url } = await spawnServe(env, { root, nodeArgs: [...nodeArgs] });
  child.stdout!.resume();
  return {
    name,
    target: { url, token },
    pid: child.pid!,
    databaseUrl: db.url,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
