CREATE TABLE "issue_verifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"issue_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"status" text NOT NULL,
	"release" text,
	"base_url" text NOT NULL,
	"summary" text,
	"duration_ms" integer,
	"runner" text NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "issue_verifications_status_check" CHECK ("issue_verifications"."status" in ('passed', 'failed')),
	CONSTRAINT "issue_verifications_runner_check" CHECK ("issue_verifications"."runner" in ('playwright', 'agent'))
);
--> statement-breakpoint
CREATE TABLE "releases" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"version" text NOT NULL,
	"semver" boolean NOT NULL,
	"first_seen_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"deployed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "issue_activities" DROP CONSTRAINT "issue_activities_kind_check";--> statement-breakpoint
ALTER TABLE "issue_sessions" ADD COLUMN "old_release" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "issues" ADD COLUMN "resolved_in_release" text;--> statement-breakpoint
ALTER TABLE "issues" ADD COLUMN "resolved_in_next_release" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "issues" ADD COLUMN "resolved_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "issue_verifications" ADD CONSTRAINT "issue_verifications_issue_id_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."issues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issue_verifications" ADD CONSTRAINT "issue_verifications_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "releases" ADD CONSTRAINT "releases_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "issue_verifications_issue_idx" ON "issue_verifications" USING btree ("issue_id","created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "issue_verifications_org_created_idx" ON "issue_verifications" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "releases_org_version_unique" ON "releases" USING btree ("organization_id","version");--> statement-breakpoint
CREATE INDEX "releases_org_first_seen_idx" ON "releases" USING btree ("organization_id","first_seen_at");--> statement-breakpoint
CREATE INDEX "replay_sessions_org_release_idx" ON "replay_sessions" USING btree ("organization_id","release","started_at");--> statement-breakpoint
ALTER TABLE "issue_activities" ADD CONSTRAINT "issue_activities_kind_check" CHECK ("issue_activities"."kind" in ('created', 'status_changed', 'regressed', 'ticket_linked', 'note', 'verification', 'fix_release'));--> statement-breakpoint
-- Releases already run by counted sessions, first seen when their first such session arrived. The
-- pattern is semver's own (semver.org), with the leading "v" lib/releases/order.ts also accepts.
INSERT INTO "releases" ("organization_id", "version", "semver", "first_seen_at")
SELECT "organization_id", "release",
  "release" ~ '^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*)?(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$',
  min("created_at")
FROM "replay_sessions"
WHERE "release" IS NOT NULL AND "automation" IS NULL
GROUP BY "organization_id", "release"
ON CONFLICT DO NOTHING;
