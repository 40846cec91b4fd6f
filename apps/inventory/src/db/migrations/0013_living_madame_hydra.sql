CREATE TABLE "stocktake_adjustments" (
	"id" serial PRIMARY KEY NOT NULL,
	"session_id" integer NOT NULL,
	"draft_id" integer NOT NULL,
	"stock_id" integer NOT NULL,
	"source_table" text NOT NULL,
	"sku" text NOT NULL,
	"base_id" integer NOT NULL,
	"company_name" text NOT NULL,
	"before_quantity" numeric NOT NULL,
	"after_quantity" numeric NOT NULL,
	"difference" numeric NOT NULL,
	"forced" boolean DEFAULT false NOT NULL,
	"operator" text NOT NULL,
	"operator_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stocktake_drafts" (
	"id" serial PRIMARY KEY NOT NULL,
	"session_id" integer NOT NULL,
	"uuid" text NOT NULL,
	"stock_id" integer NOT NULL,
	"source_table" text NOT NULL,
	"base_id" integer NOT NULL,
	"user_id" text NOT NULL,
	"operator_id" integer,
	"quantity" numeric NOT NULL,
	"remark" text,
	"scan_time" timestamp with time zone NOT NULL,
	"company_name" text NOT NULL,
	"book_quantity" numeric NOT NULL,
	"book_location" text NOT NULL,
	"adjusted_at" timestamp with time zone,
	"adjusted_from" numeric,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "stocktake_drafts_quantity" CHECK ("stocktake_drafts"."quantity" >= 0)
);
--> statement-breakpoint
CREATE TABLE "stocktake_sessions" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_name" text NOT NULL,
	"mode" text NOT NULL,
	"scope_type" text NOT NULL,
	"scope_config" jsonb NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"initiator_id" integer,
	"initiator_name" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"finish_reason" text,
	"superseded_by_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "stocktake_sessions_mode" CHECK ("stocktake_sessions"."mode" IN ('blind', 'open')),
	CONSTRAINT "stocktake_sessions_scope_type" CHECK ("stocktake_sessions"."scope_type" IN ('full', 'active')),
	CONSTRAINT "stocktake_sessions_status" CHECK ("stocktake_sessions"."status" IN ('active', 'finished')),
	CONSTRAINT "stocktake_sessions_finished" CHECK (("stocktake_sessions"."status" = 'active' AND "stocktake_sessions"."finished_at" IS NULL) OR ("stocktake_sessions"."status" = 'finished' AND "stocktake_sessions"."finished_at" IS NOT NULL AND "stocktake_sessions"."finish_reason" IN ('completed', 'superseded')))
);
--> statement-breakpoint
CREATE TABLE "stock_moves" (
	"id" serial PRIMARY KEY NOT NULL,
	"stock_id" integer NOT NULL,
	"to_stock_id" integer NOT NULL,
	"source_table" text NOT NULL,
	"sku" text NOT NULL,
	"to_sku" text NOT NULL,
	"base_id" integer NOT NULL,
	"company_name" text NOT NULL,
	"from_location" text NOT NULL,
	"to_location" text NOT NULL,
	"quantity" numeric NOT NULL,
	"whole" boolean NOT NULL,
	"operator" text NOT NULL,
	"operator_name" text NOT NULL,
	"operator_id" integer,
	"moved_at" timestamp with time zone NOT NULL,
	CONSTRAINT "stock_moves_quantity" CHECK ("stock_moves"."quantity" >= 0)
);
--> statement-breakpoint
ALTER TABLE "stocktake_adjustments" ADD CONSTRAINT "stocktake_adjustments_session_id_stocktake_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."stocktake_sessions"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stocktake_adjustments" ADD CONSTRAINT "stocktake_adjustments_draft_id_stocktake_drafts_id_fk" FOREIGN KEY ("draft_id") REFERENCES "public"."stocktake_drafts"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stocktake_drafts" ADD CONSTRAINT "stocktake_drafts_session_id_stocktake_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."stocktake_sessions"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stocktake_sessions" ADD CONSTRAINT "stocktake_sessions_initiator_id_users_id_fk" FOREIGN KEY ("initiator_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "stocktake_adjustments_session_idx" ON "stocktake_adjustments" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "stocktake_adjustments_stock_idx" ON "stocktake_adjustments" USING btree ("stock_id");--> statement-breakpoint
CREATE UNIQUE INDEX "stocktake_drafts_session_item_unique" ON "stocktake_drafts" USING btree ("session_id","uuid");--> statement-breakpoint
CREATE INDEX "stocktake_drafts_session_stock_idx" ON "stocktake_drafts" USING btree ("session_id","stock_id");--> statement-breakpoint
CREATE UNIQUE INDEX "stocktake_sessions_one_active_per_company" ON "stocktake_sessions" USING btree ("company_name") WHERE "stocktake_sessions"."status" = 'active';--> statement-breakpoint
CREATE INDEX "stocktake_sessions_company_idx" ON "stocktake_sessions" USING btree ("company_name","started_at");--> statement-breakpoint
CREATE INDEX "stock_moves_stock_idx" ON "stock_moves" USING btree ("stock_id");--> statement-breakpoint
CREATE INDEX "stock_moves_to_stock_idx" ON "stock_moves" USING btree ("to_stock_id");--> statement-breakpoint
CREATE INDEX "stock_moves_company_time_idx" ON "stock_moves" USING btree ("company_name","moved_at");