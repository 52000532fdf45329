-- Raised by a trading journal append that reached PostgreSQL after its group's deadline
-- (src/services/trading/persist.ts): the group was already refused to its clients, so it
-- must never be stored.
CREATE FUNCTION "journal_deadline_passed"(deadline TIMESTAMPTZ) RETURNS INT LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'trading journal append arrived after its deadline %', deadline
    USING ERRCODE = 'EJ001';
END
$$;
