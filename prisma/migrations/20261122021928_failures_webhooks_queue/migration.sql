-- CreateTable
CREATE TABLE "sync_failures" (
    "id" SERIAL NOT NULL,
    "entity_type" TEXT NOT NULL,
    "external_id" TEXT,
    "middleware_id" INTEGER,
    "source" TEXT NOT NULL,
    "error_message" TEXT NOT NULL,
    "error_details" JSONB NOT NULL DEFAULT '[]',
    "raw_data" JSONB,
    "has_raw_data" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL DEFAULT 'open',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolved_at" TIMESTAMPTZ(3),
    "resolved_by" TEXT,
    "resolution_note" TEXT,

    CONSTRAINT "sync_failures_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_configs" (
    "id" SERIAL NOT NULL,
    "url" TEXT NOT NULL,
    "entity_type" TEXT NOT NULL,
    "direction" TEXT NOT NULL,
    "secret_encrypted" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_configs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbound_queue_items" (
    "id" SERIAL NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "max_attempts" INTEGER NOT NULL DEFAULT 6,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "schedule_started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_token" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "last_status_code" INTEGER,
    "message_id" TEXT NOT NULL,
    "event" TEXT NOT NULL DEFAULT 'sync_failure',
    "payload" JSONB NOT NULL,
    "webhook_config_id" INTEGER,
    "failure_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "outbound_queue_items_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "sync_failures_status_created_at_idx" ON "sync_failures"("status", "created_at");

-- CreateIndex
CREATE INDEX "sync_failures_entity_type_middleware_id_idx" ON "sync_failures"("entity_type", "middleware_id");

-- CreateIndex
CREATE INDEX "sync_failures_entity_type_external_id_idx" ON "sync_failures"("entity_type", "external_id");

-- CreateIndex
CREATE INDEX "webhook_configs_entity_type_direction_active_idx" ON "webhook_configs"("entity_type", "direction", "active");

-- CreateIndex
CREATE UNIQUE INDEX "outbound_queue_items_message_id_key" ON "outbound_queue_items"("message_id");

-- CreateIndex
CREATE INDEX "outbound_queue_items_status_next_attempt_at_id_idx" ON "outbound_queue_items"("status", "next_attempt_at", "id");

-- CreateIndex
CREATE INDEX "outbound_queue_items_status_lease_expires_at_idx" ON "outbound_queue_items"("status", "lease_expires_at");

-- CreateIndex
CREATE INDEX "outbound_queue_items_failure_id_idx" ON "outbound_queue_items"("failure_id");

-- AddForeignKey
ALTER TABLE "outbound_queue_items" ADD CONSTRAINT "outbound_queue_items_webhook_config_id_fkey" FOREIGN KEY ("webhook_config_id") REFERENCES "webhook_configs"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "outbound_queue_items" ADD CONSTRAINT "outbound_queue_items_failure_id_fkey" FOREIGN KEY ("failure_id") REFERENCES "sync_failures"("id") ON DELETE SET NULL ON UPDATE CASCADE;
