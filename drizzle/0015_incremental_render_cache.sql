CREATE TABLE "render_cache_entries" (
	"user_id" text NOT NULL,
	"key" text NOT NULL,
	"bytes" bigint NOT NULL,
	"upload_ids" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "render_cache_entries_user_id_key_pk" PRIMARY KEY("user_id","key")
);
--> statement-breakpoint
ALTER TABLE "render_segments" ADD COLUMN "reuse_key" text;--> statement-breakpoint
ALTER TABLE "renders" ADD COLUMN "reuse" jsonb;--> statement-breakpoint
ALTER TABLE "render_cache_entries" ADD CONSTRAINT "render_cache_entries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "render_cache_entries_lru_idx" ON "render_cache_entries" USING btree ("last_used_at");