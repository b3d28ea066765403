-- AlterTable
ALTER TABLE "api_tokens" ADD COLUMN     "channel_id" INTEGER;

-- CreateTable
CREATE TABLE "channels" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "started_from" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "channels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "channel_cursors" (
    "channel_id" INTEGER NOT NULL,
    "table_name" TEXT NOT NULL,
    "stamp" TIMESTAMPTZ(3) NOT NULL,
    "record_id" INTEGER NOT NULL,

    CONSTRAINT "channel_cursors_pkey" PRIMARY KEY ("channel_id","table_name")
);

-- CreateTable
CREATE TABLE "channel_acks" (
    "channel_id" INTEGER NOT NULL,
    "table_name" TEXT NOT NULL,
    "record_id" INTEGER NOT NULL,
    "acked_revision" INTEGER NOT NULL,

    CONSTRAINT "channel_acks_pkey" PRIMARY KEY ("channel_id","table_name","record_id")
);

-- CreateTable
CREATE TABLE "channel_pending_deltas" (
    "id" BIGSERIAL NOT NULL,
    "channel_id" INTEGER NOT NULL,
    "table_name" TEXT NOT NULL,
    "scope" TEXT NOT NULL DEFAULT '',
    "delta" BIGINT NOT NULL,

    CONSTRAINT "channel_pending_deltas_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "channels_name_key" ON "channels"("name");

-- CreateIndex
CREATE INDEX "channel_acks_table_name_record_id_idx" ON "channel_acks"("table_name", "record_id");

-- CreateIndex
CREATE INDEX "channel_pending_deltas_channel_id_table_name_scope_idx" ON "channel_pending_deltas"("channel_id", "table_name", "scope");

-- CreateIndex
CREATE INDEX "api_tokens_channel_id_idx" ON "api_tokens"("channel_id");

-- CreateIndex
CREATE INDEX "partners_updated_at_id_idx" ON "partners"("updated_at", "id");

-- CreateIndex
CREATE INDEX "price_items_updated_at_id_idx" ON "price_items"("updated_at", "id");

-- CreateIndex
CREATE INDEX "purchase_orders_updated_at_id_idx" ON "purchase_orders"("updated_at", "id");

-- CreateIndex
CREATE INDEX "sale_orders_updated_at_id_idx" ON "sale_orders"("updated_at", "id");

-- CreateIndex
CREATE INDEX "stocks_updated_at_id_idx" ON "stocks"("updated_at", "id");

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "channel_cursors" ADD CONSTRAINT "channel_cursors_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "channel_acks" ADD CONSTRAINT "channel_acks_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "channel_pending_deltas" ADD CONSTRAINT "channel_pending_deltas_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Channel pending counts (ADR 0045), kept like channel default's (ADR 0030): each statement that
-- writes a tracked table appends, per channel and scope, the net change of the rows pending for that
-- channel. A row is pending for channel c when it lies above c's cursor in (updated_at, id) order and
-- c has not acknowledged its current revision. No acknowledgement ever covers a revision that did
-- not exist when it was written, so a row whose revision moved is pending for every channel (its new
-- stamp lies beyond every cursor): +1 per channel, less the rows that were pending already. Those
-- are found set-based: the statement's rows above each cursor, less the ones acknowledged at their
-- old revision, read from channel_acks in one join for all channels (not one lookup per row and
-- channel: a 10,000-row push with ten channels would make 100,000). An update that moves no
-- revision (a listing mark, channel default's acknowledgement) changes no channel's pending rows:
-- the revision sums tell it apart without a join; one that moves every row's revision by one (a
-- push, a resync) needs no join of the old rows with the new either. Transition tables have no
-- statistics, so the planner's estimates are far off: JIT would compile these statements on every
-- push (a quarter of a second), hence jit = off. TG_ARGV[0] is the SQL of a row r's scope.
CREATE FUNCTION channel_pending_delta() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  scope text := COALESCE(TG_ARGV[0], $s$''::text$s$);
  -- The rows that were pending for a channel before the statement: `before` (id, revision,
  -- updated_at, scope) above the cursor, not acknowledged at that revision.
  was_pending text := format(
    $q$SELECT c.channel_id, b.scope, -count(*) AS n
         FROM before AS b JOIN cursors AS c ON (b.updated_at, b.id) > (c.stamp, c.record_id)
        WHERE NOT EXISTS (SELECT 1 FROM acked AS x WHERE x.channel_id = c.channel_id AND x.record_id = b.id)
        GROUP BY 1, 2$q$);
  acked text := format(
    $q$acked AS MATERIALIZED (
         SELECT a.channel_id, a.record_id FROM before AS b
           JOIN channel_acks AS a ON a.table_name = %1$L AND a.record_id = b.id AND a.acked_revision >= b.revision)$q$, TG_TABLE_NAME);
  changes text;
  old_sum bigint;
  new_sum bigint;
  moved bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM channel_cursors WHERE table_name = TG_TABLE_NAME) THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    changes := format('SELECT c.channel_id, %s AS scope, count(*) AS n FROM new_rows AS r JOIN cursors AS c
                        ON (r.updated_at, r.id) > (c.stamp, c.record_id) GROUP BY 1, 2', scope);
  ELSIF TG_OP = 'UPDATE' THEN
    SELECT sum(revision), count(*) INTO new_sum, moved FROM new_rows;
    SELECT sum(revision) INTO old_sum FROM old_rows;
    IF new_sum IS NOT DISTINCT FROM old_sum THEN
      RETURN NULL;
    END IF;
    IF new_sum - old_sum = moved THEN
      -- Every row one revision on (revisions only grow, one step per statement): +1 per row and
      -- channel by its new scope, less the rows pending before, read from the old rows alone.
      changes := format('WITH before AS MATERIALIZED (SELECT o.id, o.revision, o.updated_at, %2$s AS scope FROM old_rows AS o), %3$s
                         SELECT c.channel_id, m.scope, m.n
                           FROM (SELECT %1$s AS scope, count(*) AS n FROM new_rows AS r GROUP BY 1) AS m CROSS JOIN cursors AS c
                         UNION ALL %4$s',
                        scope, replace(scope, 'r.', 'o.'), acked, was_pending);
    ELSE
      changes := format('WITH moved AS MATERIALIZED (
                           SELECT o.id, o.revision, o.updated_at, %2$s AS scope, %1$s AS new_scope
                             FROM old_rows AS o JOIN new_rows AS r ON r.id = o.id AND r.revision <> o.revision
                         ), before AS (SELECT id, revision, updated_at, scope FROM moved), %3$s
                         SELECT c.channel_id, m.new_scope AS scope, m.n
                           FROM (SELECT new_scope, count(*) AS n FROM moved GROUP BY 1) AS m CROSS JOIN cursors AS c
                         UNION ALL %4$s',
                        scope, replace(scope, 'r.', 'o.'), acked, was_pending);
    END IF;
  ELSE
    -- Counted while the acknowledgements are still there (a row above a cursor may be acknowledged).
    changes := format('WITH before AS MATERIALIZED (SELECT o.id, o.revision, o.updated_at, %1$s AS scope FROM old_rows AS o), %2$s %3$s',
                      replace(scope, 'r.', 'o.'), acked, was_pending);
  END IF;
  EXECUTE format('WITH cursors AS MATERIALIZED (SELECT * FROM channel_cursors WHERE table_name = %1$L)
                  INSERT INTO channel_pending_deltas (channel_id, table_name, scope, delta)
                  SELECT d.channel_id, %1$L, d.scope, sum(d.n) FROM (%2$s) AS d
                   GROUP BY d.channel_id, d.scope HAVING sum(d.n) <> 0', TG_TABLE_NAME, changes);
  IF TG_OP = 'DELETE' THEN
    DELETE FROM channel_acks WHERE table_name = TG_TABLE_NAME AND record_id IN (SELECT id FROM old_rows);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION channel_pending_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM channel_pending_deltas WHERE table_name = TG_TABLE_NAME::text;
  DELETE FROM channel_acks WHERE table_name = TG_TABLE_NAME::text;
  RETURN NULL;
END $$;

CREATE TRIGGER products_channel_pending_insert AFTER INSERT ON products REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta();
CREATE TRIGGER products_channel_pending_update AFTER UPDATE ON products REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta();
CREATE TRIGGER products_channel_pending_delete AFTER DELETE ON products REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta();
CREATE TRIGGER products_channel_pending_truncate AFTER TRUNCATE ON products FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_truncated();

CREATE TRIGGER partners_channel_pending_insert AFTER INSERT ON partners REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta();
CREATE TRIGGER partners_channel_pending_update AFTER UPDATE ON partners REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta();
CREATE TRIGGER partners_channel_pending_delete AFTER DELETE ON partners REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta();
CREATE TRIGGER partners_channel_pending_truncate AFTER TRUNCATE ON partners FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_truncated();

CREATE TRIGGER price_items_channel_pending_insert AFTER INSERT ON price_items REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta();
CREATE TRIGGER price_items_channel_pending_update AFTER UPDATE ON price_items REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta();
CREATE TRIGGER price_items_channel_pending_delete AFTER DELETE ON price_items REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta();
CREATE TRIGGER price_items_channel_pending_truncate AFTER TRUNCATE ON price_items FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_truncated();

CREATE TRIGGER stocks_channel_pending_insert AFTER INSERT ON stocks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta();
CREATE TRIGGER stocks_channel_pending_update AFTER UPDATE ON stocks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta();
CREATE TRIGGER stocks_channel_pending_delete AFTER DELETE ON stocks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta();
CREATE TRIGGER stocks_channel_pending_truncate AFTER TRUNCATE ON stocks FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_truncated();

CREATE TRIGGER purchase_orders_channel_pending_insert AFTER INSERT ON purchase_orders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta();
CREATE TRIGGER purchase_orders_channel_pending_update AFTER UPDATE ON purchase_orders REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta();
CREATE TRIGGER purchase_orders_channel_pending_delete AFTER DELETE ON purchase_orders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta();
CREATE TRIGGER purchase_orders_channel_pending_truncate AFTER TRUNCATE ON purchase_orders FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_truncated();

CREATE TRIGGER sale_orders_channel_pending_insert AFTER INSERT ON sale_orders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta('r.direction::text');
CREATE TRIGGER sale_orders_channel_pending_update AFTER UPDATE ON sale_orders REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta('r.direction::text');
CREATE TRIGGER sale_orders_channel_pending_delete AFTER DELETE ON sale_orders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_delta('r.direction::text');
CREATE TRIGGER sale_orders_channel_pending_truncate AFTER TRUNCATE ON sale_orders FOR EACH STATEMENT EXECUTE FUNCTION channel_pending_truncated();
