-- Listings become per reader (ADR 0002): a listing made before this migration is forgotten, so a
-- client that listed before the upgrade lists again before it acknowledges by id (it is told so).

-- AlterTable
ALTER TABLE "partners" DROP COLUMN "listed_revision",
ADD COLUMN     "listed_revisions" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "price_items" DROP COLUMN "listed_revision",
ADD COLUMN     "listed_revisions" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "products" DROP COLUMN "listed_revision",
ADD COLUMN     "listed_revisions" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "purchase_orders" DROP COLUMN "listed_revision",
ADD COLUMN     "listed_revisions" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "sale_orders" DROP COLUMN "listed_revision",
ADD COLUMN     "listed_revisions" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "stocks" DROP COLUMN "listed_revision",
ADD COLUMN     "listed_revisions" JSONB NOT NULL DEFAULT '{}';

-- CreateTable
CREATE TABLE "change_clocks" (
    "name" TEXT NOT NULL,
    "stamp" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "change_clocks_pkey" PRIMARY KEY ("name")
);
