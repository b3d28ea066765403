-- DropIndex
DROP INDEX "partners_pending_updated_at_id_idx";

-- DropIndex
DROP INDEX "price_items_pending_updated_at_id_idx";

-- DropIndex
DROP INDEX "products_pending_updated_at_id_idx";

-- DropIndex
DROP INDEX "purchase_orders_pending_updated_at_id_idx";

-- DropIndex
DROP INDEX "sale_orders_pending_updated_at_id_idx";

-- DropIndex
DROP INDEX "stocks_pending_updated_at_id_idx";

-- CreateIndex
CREATE INDEX "partners_pending_idx" ON "partners"("updated_at", "id") WHERE (pending);

-- CreateIndex
CREATE INDEX "price_items_pending_idx" ON "price_items"("updated_at", "id") WHERE (pending);

-- CreateIndex
CREATE INDEX "products_pending_idx" ON "products"("updated_at", "id") WHERE (pending);

-- CreateIndex
CREATE INDEX "purchase_orders_pending_idx" ON "purchase_orders"("updated_at", "id") WHERE (pending);

-- CreateIndex
CREATE INDEX "sale_orders_pending_idx" ON "sale_orders"("updated_at", "id") WHERE (pending);

-- CreateIndex
CREATE INDEX "stocks_pending_idx" ON "stocks"("updated_at", "id") WHERE (pending);
