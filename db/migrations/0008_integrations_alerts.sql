CREATE TABLE "alert_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"rule_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"window_start" timestamp (3) with time zone,
	"window_minutes" integer,
	"items" integer DEFAULT 1 NOT NULL,
	"integration_delivery_id" uuid,
	"webhook_delivery_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_messages_kind_check" CHECK ("alert_messages"."kind" in ('single', 'digest'))
);
--> statement-breakpoint
CREATE TABLE "alert_rule_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"rule_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"trigger" text NOT NULL,
	"issue_id" uuid,
	"signal_id" uuid,
	"title" text NOT NULL,
	"decision" text NOT NULL,
	"message_id" uuid,
	"window_start" timestamp (3) with time zone NOT NULL,
	"window_minutes" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_rule_events_window" CHECK ("alert_rule_events"."window_minutes" between 1 and 1440),
	CONSTRAINT "alert_rule_events_trigger_check" CHECK ("alert_rule_events"."trigger" in ('issue_created', 'issue_regressed', 'issue_spiking', 'signal_matched')),
	CONSTRAINT "alert_rule_events_decision_check" CHECK ("alert_rule_events"."decision" in ('sent', 'digest', 'held_cooldown'))
);
--> statement-breakpoint
CREATE TABLE "alert_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"trigger" text NOT NULL,
	"filters" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"integration_id" uuid,
	"endpoint_id" uuid,
	"mode" text DEFAULT 'immediate' NOT NULL,
	"window_minutes" integer DEFAULT 10 NOT NULL,
	"max_per_window" integer DEFAULT 5 NOT NULL,
	"issue_cooldown_minutes" integer DEFAULT 60 NOT NULL,
	"paused_at" timestamp (3) with time zone,
	"created_by_user_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_rules_trigger_check" CHECK ("alert_rules"."trigger" in ('issue_created', 'issue_regressed', 'issue_spiking', 'signal_matched')),
	CONSTRAINT "alert_rules_mode_check" CHECK ("alert_rules"."mode" in ('immediate', 'digest')),
	CONSTRAINT "alert_rules_name_length" CHECK (char_length("alert_rules"."name") <= 64),
	CONSTRAINT "alert_rules_one_destination" CHECK (("alert_rules"."integration_id" is null) <> ("alert_rules"."endpoint_id" is null)),
	CONSTRAINT "alert_rules_window" CHECK ("alert_rules"."window_minutes" between 1 and 1440),
	CONSTRAINT "alert_rules_max_per_window" CHECK ("alert_rules"."max_per_window" between 0 and 100),
	CONSTRAINT "alert_rules_cooldown" CHECK ("alert_rules"."issue_cooldown_minutes" between 0 and 10080)
);
--> statement-breakpoint
CREATE TABLE "integration_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"integration_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"purpose" text NOT NULL,
	"alert_message_id" uuid,
	"issue_id" uuid,
	"body" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone DEFAULT now(),
	"last_attempt_at" timestamp (3) with time zone,
	"last_status" integer,
	"last_error" text,
	"request_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "integration_deliveries_purpose_check" CHECK ("integration_deliveries"."purpose" in ('alert', 'ticket', 'test')),
	CONSTRAINT "integration_deliveries_status_check" CHECK ("integration_deliveries"."status" in ('pending', 'succeeded', 'failed', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "integration_delivery_attempts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"delivery_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"http_status" integer,
	"error_label" text
);
--> statement-breakpoint
CREATE TABLE "integrations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"settings" jsonb NOT NULL,
	"secret_ciphertext" text NOT NULL,
	"secret_hint" text NOT NULL,
	"created_by_user_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	"last_delivery_at" timestamp (3) with time zone,
	"last_status" integer,
	"last_error" text,
	CONSTRAINT "integrations_kind_check" CHECK ("integrations"."kind" in ('slack', 'linear', 'github')),
	CONSTRAINT "integrations_name_length" CHECK (char_length("integrations"."name") <= 64)
);
--> statement-breakpoint
ALTER TABLE "alert_messages" ADD CONSTRAINT "alert_messages_rule_id_alert_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."alert_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_messages" ADD CONSTRAINT "alert_messages_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_messages" ADD CONSTRAINT "alert_messages_integration_delivery_id_integration_deliveries_id_fk" FOREIGN KEY ("integration_delivery_id") REFERENCES "public"."integration_deliveries"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_messages" ADD CONSTRAINT "alert_messages_webhook_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("webhook_delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_rule_events" ADD CONSTRAINT "alert_rule_events_rule_id_alert_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."alert_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_rule_events" ADD CONSTRAINT "alert_rule_events_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_rule_events" ADD CONSTRAINT "alert_rule_events_issue_id_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."issues"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_rule_events" ADD CONSTRAINT "alert_rule_events_message_id_alert_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."alert_messages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integration_deliveries" ADD CONSTRAINT "integration_deliveries_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integration_deliveries" ADD CONSTRAINT "integration_deliveries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integration_deliveries" ADD CONSTRAINT "integration_deliveries_alert_message_id_alert_messages_id_fk" FOREIGN KEY ("alert_message_id") REFERENCES "public"."alert_messages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integration_deliveries" ADD CONSTRAINT "integration_deliveries_issue_id_issues_id_fk" FOREIGN KEY ("issue_id") REFERENCES "public"."issues"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integration_delivery_attempts" ADD CONSTRAINT "integration_delivery_attempts_delivery_id_integration_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."integration_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integrations" ADD CONSTRAINT "integrations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "integrations" ADD CONSTRAINT "integrations_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "alert_messages_one_digest_per_window" ON "alert_messages" USING btree ("rule_id","window_start","window_minutes") WHERE "alert_messages"."kind" = 'digest';--> statement-breakpoint
CREATE INDEX "alert_messages_rule_created_idx" ON "alert_messages" USING btree ("rule_id","created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE UNIQUE INDEX "alert_rule_events_rule_event_unique" ON "alert_rule_events" USING btree ("rule_id","event_id");--> statement-breakpoint
CREATE INDEX "alert_rule_events_window_sent_idx" ON "alert_rule_events" USING btree ("rule_id","window_start") WHERE "alert_rule_events"."decision" = 'sent';--> statement-breakpoint
CREATE INDEX "alert_rule_events_digest_due_idx" ON "alert_rule_events" USING btree ("window_start","rule_id") WHERE "alert_rule_events"."decision" = 'digest' and "alert_rule_events"."message_id" is null;--> statement-breakpoint
CREATE INDEX "alert_rule_events_rule_created_idx" ON "alert_rule_events" USING btree ("rule_id","created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "alert_rule_events_rule_issue_idx" ON "alert_rule_events" USING btree ("rule_id","issue_id","created_at");--> statement-breakpoint
CREATE INDEX "alert_rules_org_trigger_idx" ON "alert_rules" USING btree ("organization_id","trigger");--> statement-breakpoint
CREATE UNIQUE INDEX "integration_deliveries_alert_message_unique" ON "integration_deliveries" USING btree ("alert_message_id");--> statement-breakpoint
CREATE INDEX "integration_deliveries_due_idx" ON "integration_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "integration_deliveries_integration_created_idx" ON "integration_deliveries" USING btree ("integration_id","created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE UNIQUE INDEX "integration_delivery_attempts_unique" ON "integration_delivery_attempts" USING btree ("delivery_id","attempt");--> statement-breakpoint
CREATE INDEX "integrations_org_idx" ON "integrations" USING btree ("organization_id","created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE UNIQUE INDEX "integrations_one_tracker_per_org" ON "integrations" USING btree ("organization_id","kind") WHERE "integrations"."revoked_at" is null and "integrations"."kind" in ('linear', 'github');