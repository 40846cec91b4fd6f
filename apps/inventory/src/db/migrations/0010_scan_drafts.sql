CREATE TABLE "scan_drafts" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"biz_type" text NOT NULL,
	"request_id" text NOT NULL,
	"items_json" jsonb NOT NULL,
	"company_name" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "scan_drafts_owner_request_unique" ON "scan_drafts" USING btree ("user_id","biz_type","request_id");--> statement-breakpoint
CREATE INDEX "scan_drafts_user_updated_idx" ON "scan_drafts" USING btree ("user_id","updated_at");