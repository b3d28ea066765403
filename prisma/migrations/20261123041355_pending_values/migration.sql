-- AlterTable
ALTER TABLE "partners" ADD COLUMN     "pending_values" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "products" ADD COLUMN     "pending_values" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "purchase_orders" ADD COLUMN     "pending_values" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "sale_orders" ADD COLUMN     "pending_values" JSONB NOT NULL DEFAULT '{}';
