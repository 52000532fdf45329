-- AlterEnum
ALTER TYPE "LifecycleReason" ADD VALUE 'TRANSACTION_DROPPED';

-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "withdrawAllowListOnly" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "WithdrawIntent" ADD COLUMN     "fee" DECIMAL(78,0) NOT NULL DEFAULT 0;
