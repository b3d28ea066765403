-- Change webhooks (ADR 0047): a channel pushes its change records through a configuration of kind
-- `changes` (channel default's has no channel_id; the service keeps it to one).
-- AlterTable
ALTER TABLE "webhook_configs" ADD COLUMN     "batch_size" INTEGER,
ADD COLUMN     "channel_id" INTEGER,
ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'failures';

-- CreateIndex
CREATE INDEX "outbound_queue_items_webhook_config_id_status_idx" ON "outbound_queue_items"("webhook_config_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_configs_channel_id_key" ON "webhook_configs"("channel_id");

-- AddForeignKey
ALTER TABLE "webhook_configs" ADD CONSTRAINT "webhook_configs_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE CASCADE ON UPDATE CASCADE;
