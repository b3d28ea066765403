-- AlterTable
ALTER TABLE "webhook_configs" ADD COLUMN     "auto_disabled_at" TIMESTAMPTZ(3),
ADD COLUMN     "consecutive_failed_items" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "failing_since" TIMESTAMPTZ(3),
ADD COLUMN     "last_success_at" TIMESTAMPTZ(3);
