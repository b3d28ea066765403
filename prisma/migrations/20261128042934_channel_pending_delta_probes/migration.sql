-- A push with ten channels spent more time in channel_pending_delta than in its own writes
-- (issue 31's bench, ADR 0045): it hashed every acknowledgement of the table to find the few at
-- or above a row's old revision, and compared every row with every cursor in a sorted anti-join.
-- The index gains acked_revision so that a probe per row finds only those acknowledgements; the
-- rows pending before are counted as rows above the cursor less the acknowledged ones.

-- DropIndex
DROP INDEX "channel_acks_table_name_record_id_idx";

-- CreateIndex
CREATE INDEX "channel_acks_table_name_record_id_acked_revision_idx" ON "channel_acks"("table_name", "record_id", "acked_revision");


CREATE OR REPLACE FUNCTION channel_pending_delta() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  scope text := COALESCE(TG_ARGV[0], $s$''::text$s$);
  -- The rows that were pending for a channel before the statement, counted as the rows of `before`
  -- (id, revision, updated_at, scope) above the cursor less those acknowledged at that revision
  -- (`acked`, a subset of them). Rows above the highest cursor are above every cursor: counted once,
  -- not compared with each cursor (a push's rows usually all are).
  was_pending text := format(
    $q$SELECT c.channel_id, m.scope, -m.n AS n
         FROM (SELECT b.scope, count(*) AS n FROM before AS b
                WHERE (b.updated_at, b.id) > (SELECT stamp, record_id FROM cursors ORDER BY stamp DESC, record_id DESC LIMIT 1)
                GROUP BY 1) AS m CROSS JOIN cursors AS c
       UNION ALL
       SELECT c.channel_id, b.scope, -count(*) AS n
         FROM before AS b JOIN cursors AS c ON (b.updated_at, b.id) > (c.stamp, c.record_id)
        WHERE (b.updated_at, b.id) <= (SELECT stamp, record_id FROM cursors ORDER BY stamp DESC, record_id DESC LIMIT 1)
        GROUP BY 1, 2
       UNION ALL
       SELECT c.channel_id, b.scope, count(*) AS n
         FROM acked AS x JOIN before AS b ON b.id = x.record_id
         JOIN cursors AS c ON c.channel_id = x.channel_id AND (b.updated_at, b.id) > (c.stamp, c.record_id)
        GROUP BY 1, 2$q$);
  -- The acknowledgements of `before` at or above its revision: one probe of the index on
  -- (table_name, record_id, acked_revision) per row, which finds nothing for a row whose revision
  -- moved since (the usual case), instead of a hash of every acknowledgement of the table.
  acked text := format(
    $q$acked AS MATERIALIZED (
         SELECT a.channel_id, b.id AS record_id FROM before AS b CROSS JOIN LATERAL (
           SELECT x.channel_id FROM channel_acks AS x
            WHERE x.table_name = %1$L AND x.record_id = b.id AND x.acked_revision >= b.revision OFFSET 0) AS a)$q$, TG_TABLE_NAME);
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
