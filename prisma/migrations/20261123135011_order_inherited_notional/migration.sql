-- AlterTable
ALTER TABLE "Order" ADD COLUMN     "inheritedNotionalQ9" DECIMAL(78,0) NOT NULL DEFAULT 0;
