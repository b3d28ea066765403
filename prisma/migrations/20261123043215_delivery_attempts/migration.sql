-- CreateTable
CREATE TABLE "delivery_attempts" (
    "id" BIGSERIAL NOT NULL,
    "item_id" INTEGER NOT NULL,
    "attempt" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "outcome" TEXT NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,
    "response_body" TEXT,
    "retry_after" TEXT,

    CONSTRAINT "delivery_attempts_pkey" PRIMARY KEY ("item_id","id")
);

-- AddForeignKey
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "outbound_queue_items"("id") ON DELETE CASCADE ON UPDATE CASCADE;
