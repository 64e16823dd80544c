ALTER TABLE "organizations" ADD COLUMN "network_details" text DEFAULT 'redact' NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "network_redact_keys" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "replay_sessions" ADD COLUMN "degraded" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_network_details_check" CHECK ("organizations"."network_details" in ('redact', 'drop'));