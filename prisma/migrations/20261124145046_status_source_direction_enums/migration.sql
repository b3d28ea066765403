-- Status, source and direction become enums (issue 17). Converted in place (ALTER ... TYPE ... USING):
-- rows keep their values, and the indexes on these columns are rebuilt by the type change.
-- Prisma's generated version dropped and re-added the columns, which would lose every row's value.

-- CreateEnum
CREATE TYPE "queue_status" AS ENUM ('pending', 'processing', 'completed', 'failed');

-- CreateEnum
CREATE TYPE "failure_status" AS ENUM ('open', 'resolved');

-- CreateEnum
CREATE TYPE "failure_source" AS ENUM ('erp', 'webshop');

-- CreateEnum
CREATE TYPE "webhook_direction" AS ENUM ('to_erp', 'to_webshop');

-- AlterTable
ALTER TABLE "outbound_queue_items" ALTER COLUMN "status" DROP DEFAULT,
ALTER COLUMN "status" TYPE "queue_status" USING "status"::"queue_status",
ALTER COLUMN "status" SET DEFAULT 'pending';

-- AlterTable
ALTER TABLE "sync_failures" ALTER COLUMN "source" TYPE "failure_source" USING "source"::"failure_source",
ALTER COLUMN "status" DROP DEFAULT,
ALTER COLUMN "status" TYPE "failure_status" USING "status"::"failure_status",
ALTER COLUMN "status" SET DEFAULT 'open';

-- AlterTable
ALTER TABLE "webhook_configs" ALTER COLUMN "direction" TYPE "webhook_direction" USING "direction"::"webhook_direction";
