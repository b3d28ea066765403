-- The PostGraphile peer (issue 18): what an integrator would put over the service's tables to
-- serve the webshop's change list without the service. A schema of its own holds only what
-- PostGraphile exposes. Applied by postgraphile-server.ts at start-up; safe to apply again.
CREATE SCHEMA IF NOT EXISTS peer;

-- 1. A plain view: the pending products in listing order. PostGraphile serves it as
--    allPendingProducts(first: 50, orderBy: [UPDATED_AT_ASC, ID_ASC]) { totalCount nodes { … } }:
--    the page and a count(*) of every pending row, two statements in one transaction. It remembers
--    nothing, so an acknowledgement by id cannot tell what the webshop was shown (not as safe as
--    the service: a change pushed between the listing and the ack would be acknowledged unseen).
CREATE OR REPLACE VIEW peer.pending_products AS
  SELECT id, external_id, erp_id, is_new, changed_fields, context, data, updated_at, revision
    FROM public.products
   WHERE pending;

-- 2. PostGraphile as an integrator would first write it: equally safe, but not equal in cost. One
--    function doing what the service's change list does in one statement
--    (src/changes/page.ts): the page, the total and the listing mark (the revision each record
--    was shown to this reader at, which the acknowledgement covers), rows a push holds locked
--    skipped. It writes, so PostGraphile serves it as a mutation:
--    listPendingProducts(input: {reader: "…", pageSize: 50}) { listedProducts { total id … } }.
--    The total is repeated on each row (a set of a composite type is what PostGraphile maps
--    without plugins). PL/pgSQL, not SQL: a set-returning SQL function is evaluated lazily, and
--    PostgreSQL refuses a write in it ("AfterTriggerSaveEvent() called outside of query").
--    Its total is count(*) of every pending row, O(pending) on each poll, where the service reads
--    its O(1) counters: a ratio against it measures the counter, not the request path (issue 33).
DROP FUNCTION IF EXISTS peer.list_pending_products(text, int);
DROP TYPE IF EXISTS peer.listed_product;
CREATE TYPE peer.listed_product AS (
  total int,
  id int,
  external_id text,
  erp_id int,
  is_new boolean,
  changed_fields text[],
  context text,
  data jsonb,
  updated_at timestamptz,
  revision int
);

CREATE FUNCTION peer.list_pending_products(reader text, page_size int DEFAULT 50)
RETURNS SETOF peer.listed_product
LANGUAGE plpgsql VOLATILE STRICT AS $$
BEGIN
  RETURN QUERY
  WITH page AS MATERIALIZED (
    SELECT id, external_id, erp_id, is_new, changed_fields, context, data, updated_at, revision
      FROM public.products WHERE pending
     ORDER BY updated_at, id LIMIT page_size
  ), listed AS (
    UPDATE public.products AS t SET listed_revisions = t.listed_revisions || jsonb_build_object(reader, page.revision)
      FROM page
     WHERE t.id = page.id AND t.id IN (
       SELECT u.id FROM public.products AS u JOIN page AS p ON u.id = p.id
        WHERE (u.listed_revisions ->> reader) IS DISTINCT FROM p.revision::text
        FOR UPDATE OF u SKIP LOCKED)
  )
  SELECT (SELECT count(*)::int FROM public.products WHERE pending),
         page.id, page.external_id, page.erp_id, page.is_new, page.changed_fields, page.context, page.data,
         page.updated_at, page.revision
    FROM page
   ORDER BY page.updated_at, page.id;
END
$$;

-- 3. The fair peer (issue 33): the same function running the service's own statement. The page,
--    the per-reader listing mark with SKIP LOCKED, and the total from the pending counters the
--    service keeps (pending_count_deltas, ADR 0030), exactly as src/changes/page.ts builds them
--    for an unfiltered poll without `since`. Equal in safety and in database cost: what differs
--    from the service is the request path (PostGraphile and its GraphQL mutation instead of the
--    service's REST or GraphQL). Served as listPendingProductsCounted(input: {reader, pageSize}).
DROP FUNCTION IF EXISTS peer.list_pending_products_counted(text, int);
CREATE FUNCTION peer.list_pending_products_counted(reader text, page_size int DEFAULT 50)
RETURNS SETOF peer.listed_product
LANGUAGE plpgsql VOLATILE STRICT AS $$
BEGIN
  RETURN QUERY
  WITH page AS MATERIALIZED (
    SELECT id, external_id, erp_id, is_new, changed_fields, context, data, updated_at, revision
      FROM public.products WHERE pending
     ORDER BY updated_at, id LIMIT page_size
  ), listed AS (
    UPDATE public.products AS t SET listed_revisions = t.listed_revisions || jsonb_build_object(reader, page.revision)
      FROM page
     WHERE t.id = page.id AND t.id IN (
       SELECT u.id FROM public.products AS u JOIN page AS p ON u.id = p.id
        WHERE (u.listed_revisions ->> reader) IS DISTINCT FROM p.revision::text
        FOR UPDATE OF u SKIP LOCKED)
  )
  SELECT (SELECT COALESCE(sum(delta), 0)::int FROM public.pending_count_deltas WHERE table_name = 'products'),
         page.id, page.external_id, page.erp_id, page.is_new, page.changed_fields, page.context, page.data,
         page.updated_at, page.revision
    FROM page
   ORDER BY page.updated_at, page.id;
END
$$;
