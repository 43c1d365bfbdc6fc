CREATE TABLE "autoedits" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"project_id" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"request" jsonb NOT NULL,
	"attempt" integer DEFAULT 0 NOT NULL,
	"progress" real,
	"stage" text,
	"result" jsonb,
	"error" jsonb,
	"heartbeat_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "autoedits" ADD CONSTRAINT "autoedits_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autoedits" ADD CONSTRAINT "autoedits_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "autoedits_user_idx" ON "autoedits" USING btree ("user_id","id");