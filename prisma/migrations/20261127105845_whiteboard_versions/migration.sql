-- CreateTable
CREATE TABLE "WhiteboardVersion" (
    "id" BIGSERIAL NOT NULL,
    "versionId" UUID NOT NULL,
    "whiteboardId" BIGINT NOT NULL,
    "yjsState" BYTEA NOT NULL,
    "createdAt" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "WhiteboardVersion_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "WhiteboardVersion_versionId_key" ON "WhiteboardVersion"("versionId");

-- CreateIndex
CREATE INDEX "WhiteboardVersion_whiteboardId_createdAt_id_idx" ON "WhiteboardVersion"("whiteboardId", "createdAt" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "WhiteboardVersion" ADD CONSTRAINT "WhiteboardVersion_whiteboardId_fkey" FOREIGN KEY ("whiteboardId") REFERENCES "Whiteboard"("id") ON DELETE CASCADE ON UPDATE CASCADE;
