-- CreateEnum
CREATE TYPE "ProjectionQuarantineStatus" AS ENUM ('PARKED', 'REAPPLIED');

-- CreateTable
CREATE TABLE "ProjectionQuarantine" (
    "name" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,
    "status" "ProjectionQuarantineStatus" NOT NULL DEFAULT 'PARKED',
    "error" TEXT NOT NULL,
    "sqlState" TEXT,
    "behindSeq" BIGINT,
    "keys" TEXT[],
    "accountIds" BIGINT[],
    "parkedAt" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "reappliedAt" TIMESTAMPTZ(6),

    CONSTRAINT "ProjectionQuarantine_pkey" PRIMARY KEY ("name","seq")
);

-- CreateIndex
CREATE INDEX "ProjectionQuarantine_name_status_seq_idx" ON "ProjectionQuarantine"("name", "status", "seq");
