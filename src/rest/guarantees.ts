/**
 * What the change feed guarantees, as the OpenAPI document states it to client authors (the
 * section "What the change feed guarantees" of docs/api.md says the same; ADRs 0002, 0003, 0010, 0011, 0013).
 */
export const GUARANTEES_MARKDOWN = [
  '## What the change feed guarantees',
  '',
  '- **An acknowledgement covers what you were shown, never more.** Every outbound record carries its `revision`. ' +
    'An acknowledgement naming it (`DELETE …/{id}?revision=N`, batch `{"items":[{"id","revision"}]}`, detailed ack `{"revision"}`) ' +
    'covers that revision and nothing newer. By id alone it covers the revision last listed to the same API token: another ' +
    "client's listing never widens it, and a record your token was never listed is not acknowledged (409, or notListed in a batch). " +
    'A change that arrives after your listing stays pending with just the newer fields. Dashboard GraphQL queries are not listings.',
  '- **Paging with since never skips a later commit.** `updatedAt` follows commit order: a push that commits later carries a later ' +
    '`updatedAt`, however long the transactions. The records of one push share one `updatedAt`: after a full page pass `since` and ' +
    '`after_id` = the `updatedAt` and `id` of its last record; after a page that was not full, `since` alone.',
  '- **Bad records never fail the good ones.** Text the database cannot store is refused, never altered: a NUL character (\\u0000) or an ' +
    'unpaired UTF-16 surrogate in any string (at any depth of a JSON value, object keys included), a number JSON cannot write back ' +
    '(1e400), or a path or query parameter whose percent-encoding is not UTF-8 (%FF). In a batch only the record concerned is rejected ' +
    '(listed in errors with its field); anywhere else the request is a 400 naming the field. Integer fields stored as 32-bit integers ' +
    '(erp_id, middleware_id, ids) accept -2147483648 to 2147483647.',
  '- **Retries with Idempotency-Key** on a POST replay the first answer (`Idempotent-Replayed: true`) instead of running twice; ' +
    'the same key with another request is a 422, one still running a 409. Keys are per API token and kept 24 hours.',
  '- **Durability.** A 2xx to a write means it is committed and on stable storage: on PostgreSQL as its settings make it, on the ' +
    'embedded store with its write-ahead log synced to disk before the answer (unless the operator set EMBEDDED_FSYNC=false).',
].join('\n');
