-- AlterEnum
BEGIN;
CREATE TYPE "WhiteboardAudience_new" AS ENUM ('PRIVATE', 'AUTHENTICATED');
ALTER TABLE "Whiteboard" ALTER COLUMN "audience" DROP DEFAULT;
ALTER TABLE "Whiteboard" ALTER COLUMN "audience" TYPE "WhiteboardAudience_new" USING ("audience"::text::"WhiteboardAudience_new");
ALTER TYPE "WhiteboardAudience" RENAME TO "WhiteboardAudience_old";
ALTER TYPE "WhiteboardAudience_new" RENAME TO "WhiteboardAudience";
DROP TYPE "WhiteboardAudience_old";
ALTER TABLE "Whiteboard" ALTER COLUMN "audience" SET DEFAULT 'PRIVATE';
COMMIT;

-- DropForeignKey
ALTER TABLE "WhiteboardUpdate" DROP CONSTRAINT "WhiteboardUpdate_whiteboardId_fkey";

-- DropTable
DROP TABLE "WhiteboardUpdate";
