-- CreateTable
CREATE TABLE "WhiteboardVisit" (
    "whiteboardId" BIGINT NOT NULL,
    "accountId" BIGINT NOT NULL,
    "firstVisitedAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "WhiteboardVisit_pkey" PRIMARY KEY ("whiteboardId","accountId")
);

-- CreateIndex
CREATE INDEX "WhiteboardVisit_accountId_whiteboardId_idx" ON "WhiteboardVisit"("accountId", "whiteboardId");

-- AddForeignKey
ALTER TABLE "WhiteboardVisit" ADD CONSTRAINT "WhiteboardVisit_whiteboardId_fkey" FOREIGN KEY ("whiteboardId") REFERENCES "Whiteboard"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WhiteboardVisit" ADD CONSTRAINT "WhiteboardVisit_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
