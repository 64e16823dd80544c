DROP INDEX "sourcemap_files_uploaded_idx";--> statement-breakpoint
ALTER TABLE "sourcemap_files" ADD COLUMN "last_used_at" timestamp (3) with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
UPDATE "sourcemap_files" SET "last_used_at" = "uploaded_at";--> statement-breakpoint
CREATE INDEX "sourcemap_files_used_idx" ON "sourcemap_files" USING btree ("last_used_at");