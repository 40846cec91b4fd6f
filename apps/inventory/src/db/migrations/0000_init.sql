CREATE TABLE "role_permissions" (
	"role_code" text NOT NULL,
	"permission_code" text NOT NULL,
	CONSTRAINT "role_permissions_pk" PRIMARY KEY("role_code","permission_code")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" serial PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"password_hash" text NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"company_name" text,
	"email" text,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "materials" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"spec_model" text DEFAULT '' NOT NULL,
	"category" text NOT NULL,
	"unit" text DEFAULT '' NOT NULL,
	"company_name" text NOT NULL,
	"purchase_link" text,
	"reference_price" numeric(10, 2),
	"product_image_remark" text,
	"manual_link_remark" text,
	"remark" text,
	"red_threshold" numeric,
	"yellow_threshold" numeric,
	"target_threshold" numeric,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stock_rows" (
	"id" serial PRIMARY KEY NOT NULL,
	"source_table" text NOT NULL,
	"sku" text NOT NULL,
	"base_id" integer NOT NULL,
	"stock_quantity" numeric NOT NULL,
	"available_quantity" numeric NOT NULL,
	"in_quantity" numeric NOT NULL,
	"status" text DEFAULT '在库' NOT NULL,
	"warehouse_location" text DEFAULT '' NOT NULL,
	"batch_number" text,
	"serial_number" text,
	"in_date" date,
	"production_date" date,
	"request_id" integer,
	"unit_cost" numeric(12, 2),
	"remark" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "stock_rows_available_range" CHECK ("stock_rows"."available_quantity" >= 0 AND "stock_rows"."available_quantity" <= "stock_rows"."stock_quantity"),
	CONSTRAINT "stock_rows_quantities_positive" CHECK ("stock_rows"."stock_quantity" >= 0 AND "stock_rows"."in_quantity" > 0),
	CONSTRAINT "stock_rows_kind" CHECK ("stock_rows"."source_table" IN ('stock_buy', 'stock_semi', 'stock_product')),
	CONSTRAINT "stock_rows_status" CHECK ("stock_rows"."status" IN ('在库', '冻结', '不良品')),
	CONSTRAINT "stock_rows_product_has_no_batch" CHECK ("stock_rows"."source_table" <> 'stock_product' OR "stock_rows"."batch_number" IS NULL)
);
--> statement-breakpoint
CREATE TABLE "audit_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"module" text NOT NULL,
	"action" text NOT NULL,
	"table_name" text NOT NULL,
	"target_id" text,
	"target_name" text,
	"username" text NOT NULL,
	"company_name" text,
	"request_url" text,
	"details" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "stock_rows" ADD CONSTRAINT "stock_rows_base_id_materials_id_fk" FOREIGN KEY ("base_id") REFERENCES "public"."materials"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "users_username_unique" ON "users" USING btree ("username");--> statement-breakpoint
CREATE INDEX "materials_company_category_idx" ON "materials" USING btree ("company_name","category");--> statement-breakpoint
CREATE UNIQUE INDEX "stock_rows_sku_unique" ON "stock_rows" USING btree ("sku");--> statement-breakpoint
CREATE INDEX "stock_rows_base_status_idx" ON "stock_rows" USING btree ("base_id","status");--> statement-breakpoint
CREATE INDEX "audit_logs_company_time_idx" ON "audit_logs" USING btree ("company_name","created_at");--> statement-breakpoint
CREATE INDEX "audit_logs_module_idx" ON "audit_logs" USING btree ("module");