-- AlterEnum
ALTER TYPE "LifecycleReason" ADD VALUE 'USER_CANCELED';

-- AlterEnum
ALTER TYPE "WithdrawIntentStatus" ADD VALUE 'CANCELED';
