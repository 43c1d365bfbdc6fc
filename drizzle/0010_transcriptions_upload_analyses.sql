CREATE TABLE "transcriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"upload_id" text NOT NULL,
	"project_id" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"language" text,
	"engine" jsonb NOT NULL,
	"quality" text NOT NULL,
	"vendor_request_id" text,
	"attempt" integer DEFAULT 0 NOT NULL,
	"progress" real,
	"result" jsonb,
	"error" jsonb,
	"heartbeat_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "upload_analyses" (
	"upload_id" text NOT NULL,
	"params_key" text NOT NULL,
	"result" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "upload_analyses_upload_id_params_key_pk" PRIMARY KEY("upload_id","params_key")
);
--> statement-breakpoint
ALTER TABLE "transcriptions" ADD CONSTRAINT "transcriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcriptions" ADD CONSTRAINT "transcriptions_upload_id_uploads_id_fk" FOREIGN KEY ("upload_id") REFERENCES "public"."uploads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcriptions" ADD CONSTRAINT "transcriptions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upload_analyses" ADD CONSTRAINT "upload_analyses_upload_id_uploads_id_fk" FOREIGN KEY ("upload_id") REFERENCES "public"."uploads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "transcriptions_user_idx" ON "transcriptions" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "transcriptions_upload_idx" ON "transcriptions" USING btree ("upload_id");