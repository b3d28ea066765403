-- AlterTable
ALTER TABLE "sync_failures" ADD COLUMN     "idempotency_ref" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "sync_failures_idempotency_ref_key" ON "sync_failures"("idempotency_ref");
