-- Sale order direction, partner type and webhook entity type become enums (issue 17), as in
-- 20261124145046_status_source_direction_enums: converted in place (ALTER ... TYPE ... USING), so rows
-- keep their values and the indexes on these columns are rebuilt by the type change. Prisma's generated
-- version dropped and re-added the columns, which would lose every row's value.

-- CreateEnum
CREATE TYPE "sale_order_direction" AS ENUM ('inbound', 'outbound');

-- CreateEnum
CREATE TYPE "partner_type" AS ENUM ('B', 'C', 'D', 'O');

-- CreateEnum
CREATE TYPE "failure_entity_type" AS ENUM ('product', 'partner', 'sale_order');

-- AlterTable
ALTER TABLE "partners" ALTER COLUMN "type" TYPE "partner_type" USING "type"::"partner_type";

-- AlterTable
ALTER TABLE "sale_orders" ALTER COLUMN "direction" TYPE "sale_order_direction" USING "direction"::"sale_order_direction";

-- AlterTable
ALTER TABLE "webhook_configs" ALTER COLUMN "entity_type" TYPE "failure_entity_type" USING "entity_type"::"failure_entity_type";

-- The pending-count scope is text: the trigger casts the direction explicitly (the implicit
-- assignment cast from an enum to text would do, but the intent should be visible).
CREATE OR REPLACE FUNCTION pending_count_delta_by_direction() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    FOR d IN SELECT r.direction::text AS scope, count(*) AS n FROM new_rows AS r WHERE r.pending GROUP BY r.direction LOOP
      INSERT INTO pending_count_deltas (table_name, scope, delta) VALUES (TG_TABLE_NAME::text, d.scope, d.n);
    END LOOP;
  ELSIF TG_OP = 'UPDATE' THEN
    FOR d IN SELECT c.scope, sum(c.n) AS n
               FROM (SELECT r.direction::text AS scope, 1 AS n FROM new_rows AS r WHERE r.pending
                     UNION ALL
                     SELECT r.direction::text, -1 FROM old_rows AS r WHERE r.pending) AS c
              GROUP BY c.scope HAVING sum(c.n) <> 0 LOOP
      INSERT INTO pending_count_deltas (table_name, scope, delta) VALUES (TG_TABLE_NAME::text, d.scope, d.n);
    END LOOP;
  ELSE
    FOR d IN SELECT r.direction::text AS scope, count(*) AS n FROM old_rows AS r WHERE r.pending GROUP BY r.direction LOOP
      INSERT INTO pending_count_deltas (table_name, scope, delta) VALUES (TG_TABLE_NAME::text, d.scope, -d.n);
    END LOOP;
  END IF;
  RETURN NULL;
END $$;
