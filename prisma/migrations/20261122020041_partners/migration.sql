-- CreateTable
CREATE TABLE "partners" (
    "id" SERIAL NOT NULL,
    "external_id" TEXT NOT NULL,
    "erp_id" INTEGER,
    "type" TEXT,
    "parent_external_id" TEXT,
    "parent_id" INTEGER,
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

    CONSTRAINT "partners_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "partners_external_id_key" ON "partners"("external_id");

-- CreateIndex
CREATE INDEX "partners_pending_updated_at_id_idx" ON "partners"("pending", "updated_at", "id");

-- CreateIndex
CREATE INDEX "partners_parent_id_idx" ON "partners"("parent_id");

-- CreateIndex
CREATE INDEX "partners_parent_external_id_idx" ON "partners"("parent_external_id");

-- AddForeignKey
ALTER TABLE "partners" ADD CONSTRAINT "partners_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "partners"("id") ON DELETE SET NULL ON UPDATE CASCADE;
