CREATE TABLE "composition_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"composition_id" text NOT NULL,
	"user_id" text NOT NULL,
	"version" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"author_kind" text NOT NULL,
	"author_key_id" text,
	"author_run_id" text,
	"summary" text NOT NULL,
	"patch" jsonb NOT NULL,
	"snapshot" jsonb
);
--> statement-breakpoint
ALTER TABLE "composition_versions" ADD CONSTRAINT "composition_versions_composition_id_compositions_id_fk" FOREIGN KEY ("composition_id") REFERENCES "public"."compositions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "composition_versions" ADD CONSTRAINT "composition_versions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "composition_versions_composition_version_idx" ON "composition_versions" USING btree ("composition_id","version");--> statement-breakpoint
CREATE INDEX "composition_versions_created_idx" ON "composition_versions" USING btree ("created_at");