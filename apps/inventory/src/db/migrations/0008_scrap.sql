CREATE TABLE "scrap_requests" (
	"id" serial PRIMARY KEY NOT NULL,
	"biz_type" text DEFAULT 'scrap' NOT NULL,
	"applicant_id" integer NOT NULL,
	"company_name" text NOT NULL,
	"status" integer DEFAULT 0 NOT NULL,
	"items_json" jsonb NOT NULL,
	"remark" text,
	"reject_reason" text,
	"close_reason" text,
	"approver_id" integer,
	"approved_at" timestamp with time zone,
	"rejected_at" timestamp with time zone,
	"closer_id" integer,
	"closed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"mode" text NOT NULL,
	"reason" text NOT NULL,
	"reason_category" text NOT NULL,
	"allowed_approvers" integer[] NOT NULL,
	"track_ref" text,
	"executor_id" integer,
	"executed_at" timestamp with time zone,
	CONSTRAINT "scrap_requests_status" CHECK ("scrap_requests"."status" IN (0, 1, 2, 3, 4)),
	CONSTRAINT "scrap_requests_biz_type" CHECK ("scrap_requests"."biz_type" = 'scrap'),
	CONSTRAINT "scrap_requests_close_reason" CHECK (("scrap_requests"."status" = 4 AND "scrap_requests"."close_reason" IN ('closed', 'withdrawn')) OR ("scrap_requests"."status" <> 4 AND "scrap_requests"."close_reason" IS NULL)),
	CONSTRAINT "scrap_requests_mode" CHECK ("scrap_requests"."mode" IN ('scan', 'auto')),
	CONSTRAINT "scrap_requests_reason_category" CHECK ("scrap_requests"."reason_category" IN ('库存报废', '借用报废', '不良品报废', '生产报废'))
);
--> statement-breakpoint
CREATE TABLE "trans_scrap" (
	"id" serial PRIMARY KEY NOT NULL,
	"request_id" integer,
	"source_table" text NOT NULL,
	"stock_id" integer NOT NULL,
	"base_id" integer NOT NULL,
	"sku" text NOT NULL,
	"material_name" text NOT NULL,
	"spec_model" text DEFAULT '' NOT NULL,
	"unit" text DEFAULT '' NOT NULL,
	"quantity" numeric NOT NULL,
	"cost_at_scrap" numeric(12, 2) NOT NULL,
	"total_loss" numeric(14, 2) NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"reason_category" text,
	"track_ref" text,
	"location" text DEFAULT '' NOT NULL,
	"applicant_id" integer,
	"operator" text NOT NULL,
	"operator_id" integer,
	"company_name" text NOT NULL,
	"scrapped_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trans_scrap_quantity_positive" CHECK ("trans_scrap"."quantity" > 0),
	CONSTRAINT "trans_scrap_cost_non_negative" CHECK ("trans_scrap"."cost_at_scrap" >= 0 AND "trans_scrap"."total_loss" >= 0),
	CONSTRAINT "trans_scrap_source" CHECK ("trans_scrap"."source_table" IN ('stock_buy', 'stock_semi', 'stock_product', 'trans_borrow', 'trans_defective_goods'))
);
--> statement-breakpoint
ALTER TABLE "scrap_requests" ADD CONSTRAINT "scrap_requests_applicant_id_users_id_fk" FOREIGN KEY ("applicant_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scrap_requests" ADD CONSTRAINT "scrap_requests_approver_id_users_id_fk" FOREIGN KEY ("approver_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scrap_requests" ADD CONSTRAINT "scrap_requests_closer_id_users_id_fk" FOREIGN KEY ("closer_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scrap_requests" ADD CONSTRAINT "scrap_requests_executor_id_users_id_fk" FOREIGN KEY ("executor_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trans_scrap" ADD CONSTRAINT "trans_scrap_request_id_scrap_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."scrap_requests"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "scrap_requests_company_status_idx" ON "scrap_requests" USING btree ("company_name","status");--> statement-breakpoint
CREATE INDEX "scrap_requests_applicant_idx" ON "scrap_requests" USING btree ("applicant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "scrap_requests_track_ref_unique" ON "scrap_requests" USING btree ("track_ref");--> statement-breakpoint
CREATE INDEX "trans_scrap_company_time_idx" ON "trans_scrap" USING btree ("company_name","scrapped_at");--> statement-breakpoint
CREATE INDEX "trans_scrap_request_idx" ON "trans_scrap" USING btree ("request_id");--> statement-breakpoint
CREATE UNIQUE INDEX "trans_scrap_track_ref_unique" ON "trans_scrap" USING btree ("track_ref");