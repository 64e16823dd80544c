ALTER TABLE "replay_sessions" ADD COLUMN "browser" text;--> statement-breakpoint
ALTER TABLE "replay_sessions" ADD COLUMN "os" text;--> statement-breakpoint
ALTER TABLE "replay_sessions" ADD COLUMN "device" text;--> statement-breakpoint
CREATE INDEX "replay_sessions_org_user_lower_idx" ON "replay_sessions" USING btree ("organization_id",lower("user_id"));--> statement-breakpoint
CREATE INDEX "session_timeline_entries_org_kind_at_idx" ON "session_timeline_entries" USING btree ("organization_id","kind","at");--> statement-breakpoint
CREATE INDEX "session_timeline_entries_session_kind_idx" ON "session_timeline_entries" USING btree ("session_id","kind","at","position");--> statement-breakpoint
ALTER TABLE "replay_sessions" ADD CONSTRAINT "replay_sessions_device_check" CHECK ("replay_sessions"."device" in ('desktop', 'mobile', 'tablet'));--> statement-breakpoint
-- Search reads a custom event's payload (JSON text cut at a limit, so possibly not JSON) as
-- jsonb: null where it does not parse, instead of failing the query (docs/search.md#event-properties).
-- pg_input_is_valid would do it without a subtransaction, but only from Postgres 16.
CREATE OR REPLACE FUNCTION search_try_jsonb(value text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN value::jsonb;
EXCEPTION WHEN others THEN
  RETURN NULL;
END;
$$;
