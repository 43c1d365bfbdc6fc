ALTER TABLE "renders" ALTER COLUMN "composition_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "renders" ALTER COLUMN "composition_version" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "uploads" ADD COLUMN "font_families" jsonb;