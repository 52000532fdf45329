-- DropForeignKey
ALTER TABLE "LedgerTransferLeg" DROP CONSTRAINT "LedgerTransferLeg_transferId_fkey";

-- DropForeignKey
ALTER TABLE "LedgerTransferLeg" DROP CONSTRAINT "LedgerTransferLeg_accountId_fkey";

-- DropForeignKey
ALTER TABLE "LedgerTransferLeg" DROP CONSTRAINT "LedgerTransferLeg_assetId_fkey";

-- DropForeignKey
ALTER TABLE "LedgerTransferLeg" DROP CONSTRAINT "LedgerTransferLeg_sourceAccountId_fkey";

-- DropForeignKey
ALTER TABLE "LedgerTransferLeg" DROP CONSTRAINT "LedgerTransferLeg_destinationAccountId_fkey";

-- DropForeignKey
ALTER TABLE "Trade" DROP CONSTRAINT "Trade_symbolId_fkey";

-- DropForeignKey
ALTER TABLE "Trade" DROP CONSTRAINT "Trade_orderId_fkey";

-- DropForeignKey
ALTER TABLE "Trade" DROP CONSTRAINT "Trade_accountId_fkey";

-- DropForeignKey
ALTER TABLE "Trade" DROP CONSTRAINT "Trade_transferId_fkey";
