ALTER TABLE "replay_sessions" ADD COLUMN "automation" text;--> statement-breakpoint
ALTER TABLE "sourcemap_files" ADD COLUMN "heap_estimate_bytes" bigint;--> statement-breakpoint
ALTER TABLE "replay_sessions" ADD CONSTRAINT "replay_sessions_automation_check" CHECK ("replay_sessions"."automation" in ('reproduction', 'webdriver', 'bot'));