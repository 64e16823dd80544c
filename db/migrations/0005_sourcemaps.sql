CREATE TABLE "sourcemap_files" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"release" text NOT NULL,
	"url" text NOT NULL,
	"debug_id" text,
	"blob_key" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"uploaded_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "issues" ADD COLUMN "first_release" text;--> statement-breakpoint
ALTER TABLE "issues" ADD COLUMN "last_release" text;--> statement-breakpoint
ALTER TABLE "replay_sessions" ADD COLUMN "release" text;--> statement-breakpoint
ALTER TABLE "replay_sessions" ADD COLUMN "debug_ids" jsonb;--> statement-breakpoint
ALTER TABLE "sourcemap_files" ADD CONSTRAINT "sourcemap_files_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sourcemap_files_org_release_url_unique" ON "sourcemap_files" USING btree ("organization_id","release","url");--> statement-breakpoint
CREATE INDEX "sourcemap_files_org_debug_idx" ON "sourcemap_files" USING btree ("organization_id","debug_id");--> statement-breakpoint
CREATE INDEX "sourcemap_files_uploaded_idx" ON "sourcemap_files" USING btree ("uploaded_at");