ALTER TABLE "replay_sessions" ADD COLUMN "browser" text;--> statement-breakpoint
ALTER TABLE "replay_sessions" ADD COLUMN "os" text;--> statement-breakpoint
ALTER TABLE "replay_sessions" ADD COLUMN "device" text;--> statement-breakpoint
CREATE INDEX "replay_sessions_org_user_lower_idx" ON "replay_sessions" USING btree ("organization_id",lower("user_id"));--> statement-breakpoint
CREATE INDEX "session_timeline_entries_org_kind_at_idx" ON "session_timeline_entries" USING btree ("organization_id","kind","at");--> statement-breakpoint
CREATE INDEX "session_timeline_entries_session_kind_idx" ON "session_timeline_entries" USING btree ("session_id","kind","at","position");--> statement-breakpoint
ALTER TABLE "replay_sessions" ADD CONSTRAINT "replay_sessions_device_check" CHECK ("replay_sessions"."device" in ('desktop', 'mobile', 'tablet'));