-- CreateTable
CREATE TABLE "EngineFence" (
    "name" TEXT NOT NULL,
    "epoch" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "EngineFence_pkey" PRIMARY KEY ("name")
);

-- Raised by a trading commit whose fence epoch was superseded (src/services/trading/persist.ts).
-- VOLATILE (the default), so the planner never evaluates it ahead of the CASE that guards it.
CREATE FUNCTION "engine_fence_lost"(fence TEXT, expected BIGINT) RETURNS INT LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'engine fence "%" moved past epoch %: another process owns trading state', fence, expected
    USING ERRCODE = 'EF001';
END
$$;
