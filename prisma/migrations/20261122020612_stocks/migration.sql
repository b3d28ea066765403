-- CreateTable
CREATE TABLE "stocks" (
    "id" SERIAL NOT NULL,
    "supplier_external_id" TEXT NOT NULL,
    "product_external_id" TEXT NOT NULL,
    "quantity" DOUBLE PRECISION NOT NULL,
    "previous_quantity" DOUBLE PRECISION,
    "purchase_price" DOUBLE PRECISION,
    "suggested_sale_price" DOUBLE PRECISION,
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

    CONSTRAINT "stocks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "stocks_pending_updated_at_id_idx" ON "stocks"("pending", "updated_at", "id");

-- CreateIndex
CREATE INDEX "stocks_product_external_id_idx" ON "stocks"("product_external_id");

-- CreateIndex
CREATE UNIQUE INDEX "stocks_supplier_external_id_product_external_id_key" ON "stocks"("supplier_external_id", "product_external_id");
