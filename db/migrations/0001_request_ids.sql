ALTER TABLE "job_runs" ADD COLUMN "request_id" text;--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "request_id" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "request_id" text;