CREATE TABLE "session_timeline_entries" (
	"session_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"at" bigint NOT NULL,
	"kind" text NOT NULL,
	"entry" jsonb NOT NULL,
	CONSTRAINT "session_timeline_entries_session_id_position_pk" PRIMARY KEY("session_id","position")
);
--> statement-breakpoint
ALTER TABLE "issue_activities" DROP CONSTRAINT "issue_activities_kind_check";--> statement-breakpoint
ALTER TABLE "replay_sessions" ADD COLUMN "trail_truncated" boolean;--> statement-breakpoint
ALTER TABLE "replay_sessions" ADD COLUMN "ai_summary" text;--> statement-breakpoint
ALTER TABLE "session_timeline_entries" ADD CONSTRAINT "session_timeline_entries_session_id_replay_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."replay_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session_timeline_entries" ADD CONSTRAINT "session_timeline_entries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "session_timeline_entries_at_idx" ON "session_timeline_entries" USING btree ("session_id","at");--> statement-breakpoint
CREATE INDEX "replay_sessions_org_user_idx" ON "replay_sessions" USING btree ("organization_id","user_id");--> statement-breakpoint
CREATE INDEX "replay_sessions_org_email_idx" ON "replay_sessions" USING btree ("organization_id",lower("user_email"));--> statement-breakpoint
CREATE INDEX "replay_sessions_org_started_idx" ON "replay_sessions" USING btree ("organization_id","started_at");--> statement-breakpoint
CREATE INDEX "signal_matches_session_idx" ON "signal_matches" USING btree ("session_id");--> statement-breakpoint
ALTER TABLE "issue_activities" ADD CONSTRAINT "issue_activities_kind_check" CHECK ("issue_activities"."kind" in ('created', 'status_changed', 'regressed', 'ticket_linked', 'note'));