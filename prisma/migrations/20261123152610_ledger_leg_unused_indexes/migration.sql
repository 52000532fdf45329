-- DropIndex
DROP INDEX "LedgerTransferLeg_accountId_ledgerAccount_assetId_timestamp_idx";

-- DropIndex
DROP INDEX "LedgerTransferLeg_symbolId_matchId_idx";

-- DropIndex
DROP INDEX "LedgerTransferLeg_flowId_idx";
