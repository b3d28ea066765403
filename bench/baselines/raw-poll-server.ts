/**
 * The poll baseline: a minimal node:http server over pg doing the change list's work (the page,
 * the exact total read from the same pending counters as the service's, remembering the revisions
 * listed to this reader so that acks stay safe) and serving the same JSON.
 * Runs in a process of its own, like the service: `node --import tsx raw-poll-server.ts <databaseUrl>`
 * prints its URL.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';

const PAGE = 50;
/** Listings are remembered per reader (ADR 0002); the baseline has one. */
const READER = 'token:baseline';
const pool = new Pool({ connectionString: process.argv[2], max: 10 });

const server = createServer(async (_req, res) => {
  try {
    const [page, total] = await Promise.all([
      pool.query(
        `SELECT id, external_id, erp_id, is_new, changed_fields, context, data, updated_at, revision
           FROM products WHERE pending ORDER BY updated_at, id LIMIT ${PAGE}`,
      ),
      // The service's total: the pending counters the triggers keep (ADR 0030), not a count of rows.
      pool.query(`SELECT COALESCE(sum(delta), 0)::int AS n FROM pending_count_deltas WHERE table_name = 'products'`),
    ]);
    await pool.query(
      `UPDATE products AS t SET listed_revisions = t.listed_revisions || jsonb_build_object($2::text, v.revision)
         FROM jsonb_to_recordset($1::jsonb) AS v(id int, revision int)
        WHERE t.id = v.id AND (t.listed_revisions ->> $2::text) IS DISTINCT FROM v.revision::text`,
      [JSON.stringify(page.rows.map((r) => ({ id: r.id, revision: r.revision }))), READER],
    );
    const payload = page.rows.map((r) => ({
      changedFields: r.changed_fields,
      context: r.context,
      data: r.data,
      erpId: r.erp_id,
      externalId: r.external_id,
      id: r.id,
      isNew: r.is_new,
      updatedAt: r.updated_at.toISOString(),
      revision: r.revision,
    }));
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ meta: { limit: PAGE, offset: 0, total: total.rows[0].n }, payload }));
  } catch (error) {
    res.statusCode = 500;
    res.end(String(error));
  }
});

server.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
