-- CreateTable
CREATE TABLE "change_history" (
    "id" BIGSERIAL NOT NULL,
    "entity_type" TEXT NOT NULL,
    "record_id" INTEGER NOT NULL,
    "revision" INTEGER NOT NULL,
    "token_name" TEXT,
    "changed_at" TIMESTAMPTZ(3) NOT NULL,
    "old_values" JSONB,
    "new_values" JSONB NOT NULL,

    CONSTRAINT "change_history_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "change_history_entity_type_record_id_id_idx" ON "change_history"("entity_type", "record_id", "id");

-- CreateIndex
CREATE INDEX "change_history_changed_at_idx" ON "change_history" USING BRIN ("changed_at");
