-- AlterTable
ALTER TABLE "partners" ADD COLUMN     "source_updated_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "products" ADD COLUMN     "source_updated_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "purchase_orders" ADD COLUMN     "source_updated_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "sale_orders" ADD COLUMN     "source_updated_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "stocks" ADD COLUMN     "source_updated_at" TIMESTAMPTZ(3);
