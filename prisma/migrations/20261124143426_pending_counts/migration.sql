-- CreateTable
CREATE TABLE "pending_count_deltas" (
    "id" BIGSERIAL NOT NULL,
    "table_name" TEXT NOT NULL,
    "scope" TEXT NOT NULL DEFAULT '',
    "delta" BIGINT NOT NULL,

    CONSTRAINT "pending_count_deltas_pkey" PRIMARY KEY ("id")
);

-- Pending counts in O(1) (docs/adr/0030). Each statement that inserts, updates or deletes rows of a
-- tracked table appends the net change of its pending rows, per scope, when that is not zero; the
-- list total is then sum(delta), exact in every snapshot because the delta commits (or rolls back)
-- with the rows. Transition tables need one event per trigger and no column list, hence three
-- statement-level triggers per table; an update that leaves `pending` alone (the poll's listing
-- mark) nets zero and appends nothing. TRUNCATE leaves no rows, so it drops the table's deltas.
CREATE FUNCTION pending_count_delta() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT count(*) INTO n FROM new_rows WHERE pending;
  ELSIF TG_OP = 'UPDATE' THEN
    SELECT (SELECT count(*) FROM new_rows WHERE pending) - (SELECT count(*) FROM old_rows WHERE pending) INTO n;
  ELSE
    SELECT -count(*) INTO n FROM old_rows WHERE pending;
  END IF;
  -- Most updates (the poll's listing mark) net zero: no INSERT is even started for them.
  IF n <> 0 THEN
    INSERT INTO pending_count_deltas (table_name, scope, delta) VALUES (TG_TABLE_NAME::text, '', n);
  END IF;
  RETURN NULL;
END $$;

-- Sale orders are listed per direction too: their scope is the direction.
CREATE FUNCTION pending_count_delta_by_direction() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    FOR d IN SELECT r.direction AS scope, count(*) AS n FROM new_rows AS r WHERE r.pending GROUP BY r.direction LOOP
      INSERT INTO pending_count_deltas (table_name, scope, delta) VALUES (TG_TABLE_NAME::text, d.scope, d.n);
    END LOOP;
  ELSIF TG_OP = 'UPDATE' THEN
    FOR d IN SELECT c.scope, sum(c.n) AS n
               FROM (SELECT r.direction AS scope, 1 AS n FROM new_rows AS r WHERE r.pending
                     UNION ALL
                     SELECT r.direction, -1 FROM old_rows AS r WHERE r.pending) AS c
              GROUP BY c.scope HAVING sum(c.n) <> 0 LOOP
      INSERT INTO pending_count_deltas (table_name, scope, delta) VALUES (TG_TABLE_NAME::text, d.scope, d.n);
    END LOOP;
  ELSE
    FOR d IN SELECT r.direction AS scope, count(*) AS n FROM old_rows AS r WHERE r.pending GROUP BY r.direction LOOP
      INSERT INTO pending_count_deltas (table_name, scope, delta) VALUES (TG_TABLE_NAME::text, d.scope, -d.n);
    END LOOP;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION pending_count_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM pending_count_deltas WHERE table_name = TG_TABLE_NAME::text;
  RETURN NULL;
END $$;

CREATE TRIGGER products_pending_count_insert AFTER INSERT ON products REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta();
CREATE TRIGGER products_pending_count_update AFTER UPDATE ON products REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta();
CREATE TRIGGER products_pending_count_delete AFTER DELETE ON products REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta();
CREATE TRIGGER products_pending_count_truncate AFTER TRUNCATE ON products FOR EACH STATEMENT EXECUTE FUNCTION pending_count_truncated();

CREATE TRIGGER partners_pending_count_insert AFTER INSERT ON partners REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta();
CREATE TRIGGER partners_pending_count_update AFTER UPDATE ON partners REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta();
CREATE TRIGGER partners_pending_count_delete AFTER DELETE ON partners REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta();
CREATE TRIGGER partners_pending_count_truncate AFTER TRUNCATE ON partners FOR EACH STATEMENT EXECUTE FUNCTION pending_count_truncated();

CREATE TRIGGER price_items_pending_count_insert AFTER INSERT ON price_items REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta();
CREATE TRIGGER price_items_pending_count_update AFTER UPDATE ON price_items REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta();
CREATE TRIGGER price_items_pending_count_delete AFTER DELETE ON price_items REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta();
CREATE TRIGGER price_items_pending_count_truncate AFTER TRUNCATE ON price_items FOR EACH STATEMENT EXECUTE FUNCTION pending_count_truncated();

CREATE TRIGGER stocks_pending_count_insert AFTER INSERT ON stocks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta();
CREATE TRIGGER stocks_pending_count_update AFTER UPDATE ON stocks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta();
CREATE TRIGGER stocks_pending_count_delete AFTER DELETE ON stocks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta();
CREATE TRIGGER stocks_pending_count_truncate AFTER TRUNCATE ON stocks FOR EACH STATEMENT EXECUTE FUNCTION pending_count_truncated();

CREATE TRIGGER purchase_orders_pending_count_insert AFTER INSERT ON purchase_orders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta();
CREATE TRIGGER purchase_orders_pending_count_update AFTER UPDATE ON purchase_orders REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta();
CREATE TRIGGER purchase_orders_pending_count_delete AFTER DELETE ON purchase_orders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta();
CREATE TRIGGER purchase_orders_pending_count_truncate AFTER TRUNCATE ON purchase_orders FOR EACH STATEMENT EXECUTE FUNCTION pending_count_truncated();

CREATE TRIGGER sale_orders_pending_count_insert AFTER INSERT ON sale_orders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta_by_direction();
CREATE TRIGGER sale_orders_pending_count_update AFTER UPDATE ON sale_orders REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta_by_direction();
CREATE TRIGGER sale_orders_pending_count_delete AFTER DELETE ON sale_orders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_count_delta_by_direction();
CREATE TRIGGER sale_orders_pending_count_truncate AFTER TRUNCATE ON sale_orders FOR EACH STATEMENT EXECUTE FUNCTION pending_count_truncated();

-- The counts of the rows already there, after the triggers exist (the migration runs before any
-- writer of this version starts).
INSERT INTO pending_count_deltas (table_name, scope, delta)
SELECT 'products', '', count(*) FROM products WHERE pending HAVING count(*) > 0
UNION ALL SELECT 'partners', '', count(*) FROM partners WHERE pending HAVING count(*) > 0
UNION ALL SELECT 'price_items', '', count(*) FROM price_items WHERE pending HAVING count(*) > 0
UNION ALL SELECT 'stocks', '', count(*) FROM stocks WHERE pending HAVING count(*) > 0
UNION ALL SELECT 'purchase_orders', '', count(*) FROM purchase_orders WHERE pending HAVING count(*) > 0
UNION ALL SELECT 'sale_orders', direction, count(*) FROM sale_orders WHERE pending GROUP BY direction;
