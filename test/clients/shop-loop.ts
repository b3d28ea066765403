/**
 * A webshop's feed loop as an integrator writes it with the TypeScript client, run as a process of
 * its own by typescript-client.test.ts, which kills it with SIGKILL at random moments. Each applied
 * record is appended to APPLIED_LOG and flushed before the page is acknowledged (the shop's own
 * store), with the client's `possiblyApplied` flag. It then prints `applied` and takes
 * ACK_DELAY_MS (the rest of a shop's work) before acknowledging, the moment a crash hurts most.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { createSyncGatewayClient, fileJournal } from '../../clients/typescript/src';

async function main(): Promise<void> {
  const client = createSyncGatewayClient({ baseUrl: process.env.BASE_URL!, token: process.env.TOKEN!, retry: { baseDelayMs: 20 } });
  const log = openSync(process.env.APPLIED_LOG!, 'a');
  const feed = client.feed('product', { limit: 40, pollIntervalMs: 20, journal: fileJournal(process.env.JOURNAL_DIR!) });
  for await (const page of feed) {
    for (const record of page.records) {
      writeSync(log, `${JSON.stringify({ id: record.id, revision: record.revision, possiblyApplied: record.possiblyApplied })}\n`);
    }
    fsyncSync(log);
    process.stdout.write('applied\n');
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.ACK_DELAY_MS ?? 0)));
    await page.ack();
  }
  closeSync(log);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
