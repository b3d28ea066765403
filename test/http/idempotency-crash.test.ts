import { Client } from 'pg';
import { createToken } from '../../src/auth/token.service';
import { useApiFixture } from '../support/http';
import { postgresEnv, serveProcess } from '../support/process';
import { waitFor } from '../support/wait-for';

/** Once per run, on the embedded test cluster: the child serves from the fixture's database over its socket. */
describe('a server process killed while it holds an Idempotency-Key', () => {
  const ctx = useApiFixture('embedded');

  it('leaves a claim without an answer: retries get 409 until its lease runs out, then the report is stored exactly once', async () => {
    const { token } = await createToken(ctx.db.prisma, 'crash-erp');
    const body = { entity_type: 'product', external_id: 'CRASH-1', source: 'erp', error_message: 'boom' };
    const headers = { 'idempotency-key': 'crash-key-1' };

    // Holding the failures table makes the child's report wait inside its handler, after the claim.
    const blocker = new Client({ connectionString: ctx.db.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE sync_failures IN ACCESS EXCLUSIVE MODE');
    const child = await serveProcess(postgresEnv(ctx.db.url, { WORKER_ENABLED: 'false' }));
    try {
      const inFlight = fetch(`${child.url}/api/v1/failures`, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).catch((error: unknown) => error);
      // The child has claimed the key and its report statement waits for the lock.
      const waiting = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`;
      // (Asked outside the blocker's transaction: pg_stat_activity is a snapshot within one.)
      await waitFor(async () => (await ctx.db.prisma.$queryRawUnsafe<unknown[]>(waiting)).length > 0, 60_000, 'the report waiting');
      expect(await ctx.db.prisma.idempotencyKey.count({ where: { key: 'crash-key-1' } })).toBe(1);
      await child.stop('SIGKILL');
      expect(String(await inFlight)).toMatch(/fetch failed/); // no answer: the connection died with the process
      // A backend blocked on a lock does not notice that its client died; a crash before the statement
      // was sent is what this test is about, so that orphan goes too (see ADR 0013 for the other case).
      expect(await ctx.db.prisma.$queryRawUnsafe<unknown[]>(`SELECT pg_terminate_backend(pid) FROM (${waiting}) AS w`)).toHaveLength(1);
    } finally {
      await child.stop('SIGKILL');
      await blocker.query('ROLLBACK');
      await blocker.end();
    }

    const claim = await ctx.db.prisma.idempotencyKey.findFirstOrThrow({ where: { key: 'crash-key-1' } });
    expect(claim).toMatchObject({ responseStatus: null, completedAt: null, leaseToken: expect.any(String) });
    expect(await ctx.db.prisma.syncFailure.count()).toBe(0);

    const retry = () => ctx.api.request('POST', '/api/v1/failures', { body, headers, token });
    const tooSoon = await retry();
    expect(tooSoon.status).toBe(409);
    expect(await ctx.db.prisma.syncFailure.count()).toBe(0);

    // The lease (30 s) passes: moved into the past instead of waiting for it.
    await ctx.db.prisma.idempotencyKey.update({
      where: { scope_key: { scope: claim.scope, key: claim.key } },
      data: { leaseExpiresAt: new Date(Date.now() - 1) },
    });
    const rerun = await retry();
    expect(rerun.status).toBe(201);
    expect(rerun.headers.get('idempotent-replayed')).toBeNull();
    const replay = await retry();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(rerun.text);
    expect(await ctx.db.prisma.syncFailure.count()).toBe(1);
  }, 180_000);
});
