-- AlterTable
ALTER TABLE "Trigger" ADD COLUMN     "heldE18" DECIMAL(78,0) NOT NULL DEFAULT 0;

-- The trigger event log is append-only: history is never rewritten.
CREATE FUNCTION "trigger_event_append_only"() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'TriggerEvent is append-only: % refused', TG_OP USING ERRCODE = 'EA001';
END $$ LANGUAGE plpgsql;
CREATE TRIGGER "TriggerEvent_append_only" BEFORE UPDATE OR DELETE ON "TriggerEvent" FOR EACH ROW EXECUTE FUNCTION "trigger_event_append_only"();
