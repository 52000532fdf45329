-- AlterEnum
ALTER TYPE "TriggerCancelReason" ADD VALUE 'ATTACHED_RISK_REPLACED';

-- AlterEnum
ALTER TYPE "TriggerEventType" ADD VALUE 'AMENDED';
