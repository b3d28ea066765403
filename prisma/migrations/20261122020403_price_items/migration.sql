-- CreateTable
CREATE TABLE "price_items" (
    "id" SERIAL NOT NULL,
    "pricelist_external_id" TEXT NOT NULL,
    "pricelist_name" TEXT NOT NULL,
    "product_external_id" TEXT NOT NULL,
    "price" DOUBLE PRECISION NOT NULL,
    "previous_price" DOUBLE PRECISION,
    "start_date" DATE,
    "end_date" DATE,
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

    CONSTRAINT "price_items_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "price_items_pending_updated_at_id_idx" ON "price_items"("pending", "updated_at", "id");

-- CreateIndex
CREATE INDEX "price_items_product_external_id_idx" ON "price_items"("product_external_id");

-- CreateIndex
CREATE UNIQUE INDEX "price_items_pricelist_external_id_product_external_id_key" ON "price_items"("pricelist_external_id", "product_external_id");

-- AddForeignKey
ALTER TABLE "price_items" ADD CONSTRAINT "price_items_product_external_id_fkey" FOREIGN KEY ("product_external_id") REFERENCES "products"("external_id") ON DELETE CASCADE ON UPDATE CASCADE;
