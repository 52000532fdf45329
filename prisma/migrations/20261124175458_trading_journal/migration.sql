-- CreateTable
CREATE TABLE "TradingJournal" (
    "seq" BIGINT NOT NULL,
    "committedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "payload" TEXT NOT NULL,

    CONSTRAINT "TradingJournal_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "ProjectionWatermark" (
    "name" TEXT NOT NULL,
    "seq" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "ProjectionWatermark_pkey" PRIMARY KEY ("name")
);
