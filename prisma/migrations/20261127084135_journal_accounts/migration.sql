-- CreateTable
CREATE TABLE "TradingJournalAccount" (
    "accountPublicId" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,

    CONSTRAINT "TradingJournalAccount_pkey" PRIMARY KEY ("accountPublicId","seq")
);

-- CreateIndex
CREATE INDEX "TradingJournalAccount_seq_idx" ON "TradingJournalAccount"("seq");

-- Backfill: entries already kept name their accounts too. In an entry's JSON the account's
-- public id is element 37 of an order version ("v") and element 12 of a trigger event ("e").
INSERT INTO "TradingJournalAccount" ("accountPublicId", "seq")
SELECT DISTINCT a, seq FROM (
  SELECT j.seq, x->>37 AS a FROM "TradingJournal" j, jsonb_array_elements(j.payload::jsonb->'v') x
  UNION ALL
  SELECT j.seq, x->>12 FROM "TradingJournal" j, jsonb_array_elements(COALESCE(j.payload::jsonb->'e', '[]'::jsonb)) x
) s WHERE a IS NOT NULL;
