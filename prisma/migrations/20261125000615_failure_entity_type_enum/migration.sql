-- sync_failures.entity_type becomes the failure_entity_type enum webhook_configs.entity_type already
-- uses (issue 17), converted in place as in 20261124221609_tracked_value_enums: every failure keeps
-- its entity type, and the two indexes on the column are rebuilt by the type change. Prisma's
-- generated version dropped and re-added the column (NOT NULL, no default): on a table holding
-- failures it fails, and with a default it would lose every failure's entity type.

-- AlterTable
ALTER TABLE "sync_failures" ALTER COLUMN "entity_type" TYPE "failure_entity_type" USING "entity_type"::"failure_entity_type";
