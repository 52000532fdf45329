-- AlterTable
ALTER TABLE "LayoutTemplate" ADD COLUMN     "useCount" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "LayoutTemplate_isListed_useCount_id_idx" ON "LayoutTemplate"("isListed", "useCount" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "ChartDrawing_layerOwnerAccountId_layerId_updatedAt_id_idx" ON "ChartDrawing"("layerOwnerAccountId", "layerId", "updatedAt", "id");
