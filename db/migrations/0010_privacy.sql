CREATE TABLE "audit_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"action" text NOT NULL,
	"target_type" text,
	"target_id" text,
	"metadata" jsonb,
	"request_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_events_actor_check" CHECK ("audit_events"."actor_type" in ('user', 'credential', 'oauth_client', 'system'))
);
--> statement-breakpoint
CREATE TABLE "data_exports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"person_kind" text NOT NULL,
	"person_sealed" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"blob_key" text,
	"wrapped_key" text,
	"kek_id" text,
	"byte_size" bigint,
	"counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"requested_by_type" text NOT NULL,
	"requested_by_id" text,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"started_at" timestamp (3) with time zone,
	"completed_at" timestamp (3) with time zone,
	"error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "data_exports_person_kind_check" CHECK ("data_exports"."person_kind" in ('user_id', 'email', 'anonymous_id')),
	CONSTRAINT "data_exports_status_check" CHECK ("data_exports"."status" in ('pending', 'running', 'completed', 'failed')),
	CONSTRAINT "data_exports_requested_by_check" CHECK ("data_exports"."requested_by_type" in ('user', 'credential', 'oauth_client', 'system'))
);
--> statement-breakpoint
CREATE TABLE "erasures" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"person_kind" text NOT NULL,
	"person_sealed" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"requested_by_type" text NOT NULL,
	"requested_by_id" text,
	"due_at" timestamp (3) with time zone NOT NULL,
	"started_at" timestamp (3) with time zone,
	"completed_at" timestamp (3) with time zone,
	"error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "erasures_person_kind_check" CHECK ("erasures"."person_kind" in ('user_id', 'email', 'anonymous_id')),
	CONSTRAINT "erasures_status_check" CHECK ("erasures"."status" in ('pending', 'running', 'completed', 'failed')),
	CONSTRAINT "erasures_requested_by_check" CHECK ("erasures"."requested_by_type" in ('user', 'credential', 'oauth_client', 'system'))
);
--> statement-breakpoint
CREATE TABLE "remaskings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"selectors" text[] DEFAULT '{}'::text[] NOT NULL,
	"patterns" text[] DEFAULT '{}'::text[] NOT NULL,
	"from_time" timestamp (3) with time zone,
	"to_time" timestamp (3) with time zone,
	"status" text DEFAULT 'pending' NOT NULL,
	"counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"requested_by_type" text NOT NULL,
	"requested_by_id" text,
	"started_at" timestamp (3) with time zone,
	"completed_at" timestamp (3) with time zone,
	"error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "remaskings_status_check" CHECK ("remaskings"."status" in ('pending', 'running', 'completed', 'failed')),
	CONSTRAINT "remaskings_requested_by_check" CHECK ("remaskings"."requested_by_type" in ('user', 'credential', 'oauth_client', 'system'))
);
--> statement-breakpoint
CREATE TABLE "session_data_keys" (
	"organization_id" uuid NOT NULL,
	"external_id" text NOT NULL,
	"wrapped_key" text NOT NULL,
	"kek_id" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "session_data_keys_organization_id_external_id_pk" PRIMARY KEY("organization_id","external_id")
);
--> statement-breakpoint
ALTER TABLE "insights" ADD COLUMN "redacted_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "mask_selectors" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "mask_patterns" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "replay_sessions" ADD COLUMN "pinned_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "replay_sessions" ADD COLUMN "pinned_by" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "data_exports" ADD CONSTRAINT "data_exports_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "erasures" ADD CONSTRAINT "erasures_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "remaskings" ADD CONSTRAINT "remaskings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session_data_keys" ADD CONSTRAINT "session_data_keys_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_events_org_created_idx" ON "audit_events" USING btree ("organization_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "audit_events_created_idx" ON "audit_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "data_exports_org_created_idx" ON "data_exports" USING btree ("organization_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "data_exports_expires_idx" ON "data_exports" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "erasures_org_created_idx" ON "erasures" USING btree ("organization_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "remaskings_org_created_idx" ON "remaskings" USING btree ("organization_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "session_data_keys_kek_idx" ON "session_data_keys" USING btree ("kek_id");--> statement-breakpoint
-- The audit trail is append-only: no statement may rewrite an entry (docs/privacy.md#audit-trail).
CREATE OR REPLACE FUNCTION audit_events_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER audit_events_append_only BEFORE UPDATE ON "audit_events" FOR EACH ROW EXECUTE FUNCTION audit_events_refuse_update();
