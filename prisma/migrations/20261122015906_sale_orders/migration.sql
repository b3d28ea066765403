-- CreateTable
CREATE TABLE "sale_orders" (
    "id" SERIAL NOT NULL,
    "external_id" TEXT NOT NULL,
    "erp_id" INTEGER,
    "direction" TEXT NOT NULL,
    "partner_external_id" TEXT,
    "data" JSONB NOT NULL DEFAULT '{}',
    "context" TEXT NOT NULL DEFAULT 'erp_sync',
    "revision" INTEGER NOT NULL DEFAULT 1,
    "acked_revision" INTEGER NOT NULL DEFAULT 0,
    "listed_revision" INTEGER,
    "field_revisions" JSONB NOT NULL DEFAULT '{}',
    "changed_fields" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "is_new" BOOLEAN NOT NULL DEFAULT true,
    "pending" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "acknowledged_at" TIMESTAMPTZ(3),

    CONSTRAINT "sale_orders_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "sale_orders_external_id_key" ON "sale_orders"("external_id");

-- CreateIndex
CREATE INDEX "sale_orders_pending_updated_at_id_idx" ON "sale_orders"("pending", "updated_at", "id");

-- CreateIndex
CREATE INDEX "sale_orders_direction_pending_updated_at_id_idx" ON "sale_orders"("direction", "pending", "updated_at", "id");

-- CreateIndex
CREATE INDEX "sale_orders_partner_external_id_idx" ON "sale_orders"("partner_external_id");
