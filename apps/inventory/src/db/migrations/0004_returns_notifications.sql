CREATE TABLE "trans_defective_goods" (
	"id" serial PRIMARY KEY NOT NULL,
	"return_id" integer NOT NULL,
	"sku" text NOT NULL,
	"stock_id" integer NOT NULL,
	"source_table" text NOT NULL,
	"base_id" integer NOT NULL,
	"material_name" text NOT NULL,
	"spec_model" text DEFAULT '' NOT NULL,
	"quantity" numeric NOT NULL,
	"remaining_qty" numeric NOT NULL,
	"status" text DEFAULT '待处理' NOT NULL,
	"company_name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trans_defective_goods_quantity_positive" CHECK ("trans_defective_goods"."quantity" > 0),
	CONSTRAINT "trans_defective_goods_remaining_range" CHECK ("trans_defective_goods"."remaining_qty" >= 0 AND "trans_defective_goods"."remaining_qty" <= "trans_defective_goods"."quantity"),
	CONSTRAINT "trans_defective_goods_status" CHECK ("trans_defective_goods"."status" IN ('待处理', '已退回库存', '已报废')),
	CONSTRAINT "trans_defective_goods_status_matches_remaining" CHECK (("trans_defective_goods"."status" = '待处理') = ("trans_defective_goods"."remaining_qty" > 0))
);
--> statement-breakpoint
CREATE TABLE "trans_return" (
	"id" serial PRIMARY KEY NOT NULL,
	"outbound_id" integer NOT NULL,
	"return_type" text NOT NULL,
	"quantity" numeric NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"operator" text NOT NULL,
	"operator_id" integer,
	"company_name" text NOT NULL,
	"outbound_no" text NOT NULL,
	"stock_id" integer NOT NULL,
	"source_table" text NOT NULL,
	"base_id" integer NOT NULL,
	"sku" text NOT NULL,
	"material_name" text NOT NULL,
	"spec_model" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trans_return_quantity_positive" CHECK ("trans_return"."quantity" > 0),
	CONSTRAINT "trans_return_type" CHECK ("trans_return"."return_type" IN ('good', 'defective'))
);
--> statement-breakpoint
CREATE TABLE "mail_outbox" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"to_addresses" text[] NOT NULL,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "material_stock_alerts" (
	"base_id" integer PRIMARY KEY NOT NULL,
	"level" text,
	"alerted_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "material_stock_alerts_level" CHECK ("material_stock_alerts"."level" IS NULL OR "material_stock_alerts"."level" IN ('yellow', 'red'))
);
--> statement-breakpoint
CREATE TABLE "notification_outbox" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	CONSTRAINT "notification_outbox_event_id_unique" UNIQUE("event_id"),
	CONSTRAINT "notification_outbox_kind" CHECK ("notification_outbox"."kind" IN ('stock-in', 'outbound')),
	CONSTRAINT "notification_outbox_status" CHECK ("notification_outbox"."status" IN ('pending', 'delivered', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "trans_defective_goods" ADD CONSTRAINT "trans_defective_goods_return_id_trans_return_id_fk" FOREIGN KEY ("return_id") REFERENCES "public"."trans_return"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trans_return" ADD CONSTRAINT "trans_return_outbound_id_trans_outbound_id_fk" FOREIGN KEY ("outbound_id") REFERENCES "public"."trans_outbound"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "material_stock_alerts" ADD CONSTRAINT "material_stock_alerts_base_id_materials_id_fk" FOREIGN KEY ("base_id") REFERENCES "public"."materials"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "trans_defective_goods_company_status_idx" ON "trans_defective_goods" USING btree ("company_name","status");--> statement-breakpoint
CREATE INDEX "trans_defective_goods_sku_idx" ON "trans_defective_goods" USING btree ("sku");--> statement-breakpoint
CREATE INDEX "trans_return_outbound_idx" ON "trans_return" USING btree ("outbound_id");--> statement-breakpoint
CREATE INDEX "trans_return_company_time_idx" ON "trans_return" USING btree ("company_name","created_at");--> statement-breakpoint
CREATE INDEX "notification_outbox_due_idx" ON "notification_outbox" USING btree ("status","next_attempt_at");