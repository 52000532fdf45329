-- AlterTable
ALTER TABLE "TradingJournal" ADD COLUMN     "accounts" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- Backfill: entries already kept name their accounts too. In an entry's JSON the account's
-- public id is element 37 of an order version ("v") and element 12 of a trigger event ("e").
UPDATE "TradingJournal" SET "accounts" = ARRAY(
  SELECT DISTINCT a FROM (
    SELECT x->>37 AS a FROM jsonb_array_elements(payload::jsonb->'v') x
    UNION SELECT x->>12 FROM jsonb_array_elements(COALESCE(payload::jsonb->'e', '[]'::jsonb)) x
  ) s WHERE a IS NOT NULL ORDER BY a
);

-- CreateIndex
CREATE INDEX "TradingJournal_accounts_idx" ON "TradingJournal" USING GIN ("accounts");
