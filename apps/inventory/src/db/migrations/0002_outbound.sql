CREATE SEQUENCE "public"."trans_outbound_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "outbound_requests" (
	"id" serial PRIMARY KEY NOT NULL,
	"biz_type" text DEFAULT 'outbound' NOT NULL,
	"applicant_id" integer NOT NULL,
	"company_name" text NOT NULL,
	"outbound_type" text NOT NULL,
	"status" integer DEFAULT 0 NOT NULL,
	"items_json" jsonb NOT NULL,
	"remark" text,
	"source_return_id" integer,
	"reject_reason" text,
	"close_reason" text,
	"approver_id" integer,
	"approved_at" timestamp with time zone,
	"rejected_at" timestamp with time zone,
	"closer_id" integer,
	"closed_at" timestamp with time zone,
	"executed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "outbound_requests_status" CHECK ("outbound_requests"."status" IN (0, 1, 2, 3, 4)),
	CONSTRAINT "outbound_requests_type" CHECK ("outbound_requests"."outbound_type" IN ('SALES', 'USE', 'PRODUCTION')),
	CONSTRAINT "outbound_requests_biz_type" CHECK ("outbound_requests"."biz_type" = 'outbound'),
	CONSTRAINT "outbound_requests_close_reason" CHECK (("outbound_requests"."status" = 4 AND "outbound_requests"."close_reason" IN ('closed', 'withdrawn')) OR ("outbound_requests"."status" <> 4 AND "outbound_requests"."close_reason" IS NULL))
);
--> statement-breakpoint
CREATE TABLE "trans_outbound" (
	"id" serial PRIMARY KEY NOT NULL,
	"outbound_no" text NOT NULL,
	"request_id" integer NOT NULL,
	"applicant_id" integer,
	"consumer_name" text DEFAULT '' NOT NULL,
	"outbound_type" text NOT NULL,
	"outbound_time" timestamp with time zone DEFAULT now() NOT NULL,
	"stock_id" integer NOT NULL,
	"source_table" text NOT NULL,
	"base_id" integer NOT NULL,
	"sku" text NOT NULL,
	"material_name" text NOT NULL,
	"spec_model" text DEFAULT '' NOT NULL,
	"unit" text DEFAULT '' NOT NULL,
	"batch_number" text,
	"serial_number" text,
	"quantity" numeric NOT NULL,
	"warehouse_location" text DEFAULT '' NOT NULL,
	"operator" text NOT NULL,
	"operator_id" integer,
	"company_name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trans_outbound_quantity_positive" CHECK ("trans_outbound"."quantity" > 0),
	CONSTRAINT "trans_outbound_type" CHECK ("trans_outbound"."outbound_type" IN ('SALES', 'USE', 'PRODUCTION'))
);
--> statement-breakpoint
ALTER TABLE "outbound_requests" ADD CONSTRAINT "outbound_requests_applicant_id_users_id_fk" FOREIGN KEY ("applicant_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outbound_requests" ADD CONSTRAINT "outbound_requests_approver_id_users_id_fk" FOREIGN KEY ("approver_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "outbound_requests" ADD CONSTRAINT "outbound_requests_closer_id_users_id_fk" FOREIGN KEY ("closer_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trans_outbound" ADD CONSTRAINT "trans_outbound_request_id_outbound_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."outbound_requests"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outbound_requests_company_status_idx" ON "outbound_requests" USING btree ("company_name","status");--> statement-breakpoint
CREATE INDEX "outbound_requests_applicant_idx" ON "outbound_requests" USING btree ("applicant_id");--> statement-breakpoint
CREATE INDEX "trans_outbound_no_idx" ON "trans_outbound" USING btree ("outbound_no");--> statement-breakpoint
CREATE INDEX "trans_outbound_request_idx" ON "trans_outbound" USING btree ("request_id");--> statement-breakpoint
CREATE INDEX "trans_outbound_company_time_idx" ON "trans_outbound" USING btree ("company_name","outbound_time");