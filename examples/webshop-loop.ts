/**
 * The webshop side with the TypeScript client (clients/typescript): apply every pending product
 * change, acknowledge each page by revision, and resume after a crash.
 *
 *   SGW_URL=http://127.0.0.1:4000 SGW_TOKEN=sgw_… npx tsx examples/webshop-loop.ts [--once]
 *
 * In your own project: `npm install <path to sync-gateway>/clients/typescript` and import from
 * '@sync-gateway/client'. `--once` stops when nothing is pending (a batch job); without it the
 * loop polls every two seconds. The "shop" here is a JSON file, shop.json, in STATE_DIR.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createSyncGatewayClient, fileJournal, type FeedRecord } from '../clients/typescript/src';

const stateDir = process.env.STATE_DIR ?? './webshop-state';
const shopFile = path.join(stateDir, 'shop.json');

type Shop = Record<string, { revision: number; data: Record<string, unknown> }>;

/** Your shop's work. Idempotent: applying the same revision twice changes nothing. */
async function apply(records: Array<FeedRecord<'product'>>): Promise<void> {
  const shop = JSON.parse(await readFile(shopFile, 'utf8').catch(() => '{}')) as Shop;
  for (const record of records) {
    if (record.possiblyApplied && shop[record.externalId]?.revision === record.revision) continue; // applied before a crash
    const data = record.isNew ? record.data : { ...shop[record.externalId]?.data, ...pick(record.data, record.changedFields) };
    shop[record.externalId] = { revision: record.revision, data };
    console.log(
      `${record.isNew ? 'created' : 'updated'} ${record.externalId} (revision ${record.revision}: ${record.changedFields.join(', ')})`,
    );
  }
  await writeFile(shopFile, JSON.stringify(shop, null, 2));
}

const pick = (data: Record<string, unknown>, fields: string[]) => Object.fromEntries(fields.map((f) => [f, data[f]]));

async function main(): Promise<void> {
  await mkdir(stateDir, { recursive: true });
  const client = createSyncGatewayClient({
    baseUrl: process.env.SGW_URL ?? 'http://127.0.0.1:4000',
    token: process.env.SGW_TOKEN ?? '',
  });
  const feed = client.feed('product', { journal: fileJournal(stateDir), stopWhenEmpty: process.argv.includes('--once') });
  for await (const page of feed) {
    await apply(page.records);
    await page.ack();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
