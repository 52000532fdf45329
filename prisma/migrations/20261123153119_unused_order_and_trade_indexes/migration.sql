-- DropIndex
DROP INDEX "Order_accountId_isOpen_symbolId_side_createdAt_id_idx";

-- DropIndex
DROP INDEX "Order_accountId_createdAt_id_idx";

-- DropIndex
DROP INDEX "Order_accountId_lineageId_generation_idx";

-- DropIndex
DROP INDEX "Order_originTriggerId_idx";

-- DropIndex
DROP INDEX "Order_parentOrderId_idx";

-- DropIndex
DROP INDEX "Trade_accountId_symbolId_matchId_idx";
