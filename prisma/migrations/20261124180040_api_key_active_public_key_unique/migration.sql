-- Keys registered twice before this index existed: the oldest stays active, later
-- duplicates are revoked.
UPDATE "ApiKey" k SET "status" = 'REVOKED', "revokedAt" = now(), "revision" = k."revision" + 1
  WHERE k."status" = 'ACTIVE' AND EXISTS (
    SELECT 1 FROM "ApiKey" o
     WHERE o."status" = 'ACTIVE' AND o."publicKeyEd25519" = k."publicKeyEd25519" AND o."id" < k."id");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_active_publicKeyEd25519_key" ON "ApiKey"("publicKeyEd25519") WHERE (status = 'ACTIVE');
