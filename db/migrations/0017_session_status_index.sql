DROP INDEX "replay_sessions_status_received_idx";--> statement-breakpoint
CREATE INDEX "replay_sessions_status_idx" ON "replay_sessions" USING btree ("status");--> statement-breakpoint
-- Room on each page for the new version of a row, so that the per-batch update of a session is a
-- HOT update (docs/capacity.md#what-the-database-does-per-batch). Applies to pages written from now on.
ALTER TABLE "replay_sessions" SET (fillfactor = 80);
