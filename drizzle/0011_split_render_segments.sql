CREATE TABLE "render_segments" (
	"id" text PRIMARY KEY NOT NULL,
	"render_id" text NOT NULL,
	"kind" text NOT NULL,
	"index" integer NOT NULL,
	"start_frame" integer NOT NULL,
	"end_frame" integer NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempt" integer DEFAULT 0 NOT NULL,
	"progress" double precision DEFAULT 0 NOT NULL,
	"key" text,
	"error" jsonb,
	"heartbeat_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "renders" ADD COLUMN "segment_count" integer;--> statement-breakpoint
ALTER TABLE "renders" ADD COLUMN "segments_done" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "render_segments" ADD CONSTRAINT "render_segments_render_id_renders_id_fk" FOREIGN KEY ("render_id") REFERENCES "public"."renders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "render_segments_part_idx" ON "render_segments" USING btree ("render_id","kind","index");