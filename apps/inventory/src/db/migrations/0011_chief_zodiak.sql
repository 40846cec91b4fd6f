CREATE TABLE "suppliers" (
	"id" serial PRIMARY KEY NOT NULL,
	"company_name" text NOT NULL,
	"name" text NOT NULL,
	"contact" text DEFAULT '' NOT NULL,
	"lead_time_days" integer,
	"remark" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "suppliers_lead_time_days" CHECK ("suppliers"."lead_time_days" IS NULL OR "suppliers"."lead_time_days" >= 0)
);
--> statement-breakpoint
CREATE TABLE "purchase_requests" (
	"id" serial PRIMARY KEY NOT NULL,
	"request_no" text NOT NULL,
	"base_id" integer NOT NULL,
	"company_name" text NOT NULL,
	"quantity" numeric NOT NULL,
	"unit_price" numeric(12, 2),
	"total_price" numeric(14, 2),
	"tax_rate" numeric(5, 2),
	"purchase_date" date NOT NULL,
	"expected_date" date,
	"supplier_id" integer,
	"requester_id" integer NOT NULL,
	"requester_email" text,
	"status" integer DEFAULT 0 NOT NULL,
	"remark" text,
	"decision_reason" text,
	"approver_id" integer,
	"approved_at" timestamp with time zone,
	"rejected_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "purchase_requests_status" CHECK ("purchase_requests"."status" IN (0, 1, 2, 3, 4)),
	CONSTRAINT "purchase_requests_quantity_positive" CHECK ("purchase_requests"."quantity" > 0),
	CONSTRAINT "purchase_requests_prices" CHECK (("purchase_requests"."unit_price" IS NULL OR "purchase_requests"."unit_price" >= 0) AND ("purchase_requests"."tax_rate" IS NULL OR ("purchase_requests"."tax_rate" >= 0 AND "purchase_requests"."tax_rate" <= 100)))
);
--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "kind" text DEFAULT 'low_stock' NOT NULL;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "purchase_requests" ADD CONSTRAINT "purchase_requests_base_id_materials_id_fk" FOREIGN KEY ("base_id") REFERENCES "public"."materials"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "purchase_requests" ADD CONSTRAINT "purchase_requests_supplier_id_suppliers_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."suppliers"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "purchase_requests" ADD CONSTRAINT "purchase_requests_requester_id_users_id_fk" FOREIGN KEY ("requester_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "purchase_requests" ADD CONSTRAINT "purchase_requests_approver_id_users_id_fk" FOREIGN KEY ("approver_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "suppliers_company_name_unique" ON "suppliers" USING btree ("company_name","name");--> statement-breakpoint
CREATE UNIQUE INDEX "purchase_requests_request_no_unique" ON "purchase_requests" USING btree ("request_no");--> statement-breakpoint
CREATE INDEX "purchase_requests_request_no_prefix_idx" ON "purchase_requests" USING btree ("request_no" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "purchase_requests_company_status_idx" ON "purchase_requests" USING btree ("company_name","status");--> statement-breakpoint
CREATE INDEX "purchase_requests_base_status_idx" ON "purchase_requests" USING btree ("base_id","status");--> statement-breakpoint
CREATE INDEX "purchase_requests_requester_idx" ON "purchase_requests" USING btree ("requester_id");