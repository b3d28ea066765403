-- CreateTable
CREATE TABLE "purchase_orders" (
    "id" SERIAL NOT NULL,
    "external_id" TEXT NOT NULL,
    "erp_id" INTEGER,
    "supplier_external_id" TEXT NOT NULL,
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

    CONSTRAINT "purchase_orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "purchase_order_lines" (
    "id" SERIAL NOT NULL,
    "purchase_order_id" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "product_external_id" TEXT NOT NULL,
    "quantity" DOUBLE PRECISION NOT NULL,
    "price" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "purchase_order_lines_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "purchase_orders_external_id_key" ON "purchase_orders"("external_id");

-- CreateIndex
CREATE INDEX "purchase_orders_pending_updated_at_id_idx" ON "purchase_orders"("pending", "updated_at", "id");

-- CreateIndex
CREATE INDEX "purchase_orders_supplier_external_id_idx" ON "purchase_orders"("supplier_external_id");

-- CreateIndex
CREATE INDEX "purchase_order_lines_product_external_id_idx" ON "purchase_order_lines"("product_external_id");

-- CreateIndex
CREATE UNIQUE INDEX "purchase_order_lines_purchase_order_id_position_key" ON "purchase_order_lines"("purchase_order_id", "position");

-- AddForeignKey
ALTER TABLE "purchase_order_lines" ADD CONSTRAINT "purchase_order_lines_purchase_order_id_fkey" FOREIGN KEY ("purchase_order_id") REFERENCES "purchase_orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;
