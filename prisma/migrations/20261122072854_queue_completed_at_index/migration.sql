-- CreateIndex
CREATE INDEX "outbound_queue_items_completed_at_idx" ON "outbound_queue_items"("completed_at");
