CREATE SEQUENCE "public"."trans_borrow_no_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "borrow_requests" (
	"id" serial PRIMARY KEY NOT NULL,
	"biz_type" text DEFAULT 'borrow' NOT NULL,
	"applicant_id" integer NOT NULL,
	"company_name" text NOT NULL,
	"status" integer DEFAULT 0 NOT NULL,
	"items_json" jsonb NOT NULL,
	"remark" text,
	"expected_return_date" date,
	"reject_reason" text,
	"close_reason" text,
	"approver_id" integer,
	"approved_at" timestamp with time zone,
	"rejected_at" timestamp with time zone,
	"closer_id" integer,
	"closed_at" timestamp with time zone,
	"dispatched_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "borrow_requests_status" CHECK ("borrow_requests"."status" IN (0, 1, 2, 3, 4)),
	CONSTRAINT "borrow_requests_biz_type" CHECK ("borrow_requests"."biz_type" = 'borrow'),
	CONSTRAINT "borrow_requests_close_reason" CHECK (("borrow_requests"."status" = 4 AND "borrow_requests"."close_reason" IN ('closed', 'withdrawn')) OR ("borrow_requests"."status" <> 4 AND "borrow_requests"."close_reason" IS NULL))
);
--> statement-breakpoint
CREATE TABLE "trans_borrow" (
	"id" serial PRIMARY KEY NOT NULL,
	"borrow_no" text NOT NULL,
	"request_id" integer NOT NULL,
	"stock_id" integer NOT NULL,
	"source_table" text NOT NULL,
	"base_id" integer NOT NULL,
	"sku" text NOT NULL,
	"material_name" text NOT NULL,
	"spec_model" text DEFAULT '' NOT NULL,
	"unit" text DEFAULT '' NOT NULL,
	"quantity" numeric NOT NULL,
	"initial_quantity" numeric NOT NULL,
	"returned_quantity" numeric DEFAULT '0' NOT NULL,
	"borrower_id" integer NOT NULL,
	"borrower_name" text NOT NULL,
	"current_holder_id" integer,
	"dispatch_operator" text NOT NULL,
	"dispatch_operator_id" integer,
	"location" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'borrowed' NOT NULL,
	"company_name" text NOT NULL,
	"borrowed_at" timestamp with time zone NOT NULL,
	"returned_at" timestamp with time zone,
	"split_from_id" integer,
	"split_at" timestamp with time zone,
	"split_operator" text,
	"split_operator_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trans_borrow_quantity_positive" CHECK ("trans_borrow"."quantity" > 0 AND "trans_borrow"."initial_quantity" > 0),
	CONSTRAINT "trans_borrow_returned_range" CHECK ("trans_borrow"."returned_quantity" >= 0 AND "trans_borrow"."returned_quantity" <= "trans_borrow"."quantity"),
	CONSTRAINT "trans_borrow_status" CHECK ("trans_borrow"."status" IN ('borrowed', 'returned', 'scrapped')),
	CONSTRAINT "trans_borrow_holder" CHECK (("trans_borrow"."status" = 'borrowed' AND "trans_borrow"."current_holder_id" IS NOT NULL AND "trans_borrow"."returned_quantity" < "trans_borrow"."quantity")
        OR ("trans_borrow"."status" = 'returned' AND "trans_borrow"."current_holder_id" IS NULL AND "trans_borrow"."returned_quantity" = "trans_borrow"."quantity")
        OR "trans_borrow"."status" = 'scrapped')
);
--> statement-breakpoint
CREATE TABLE "trans_borrow_return" (
	"id" serial PRIMARY KEY NOT NULL,
	"borrow_id" integer NOT NULL,
	"quantity" numeric NOT NULL,
	"location" text DEFAULT '' NOT NULL,
	"remark" text,
	"operator" text NOT NULL,
	"operator_id" integer,
	"company_name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trans_borrow_return_quantity_positive" CHECK ("trans_borrow_return"."quantity" > 0)
);
--> statement-breakpoint
CREATE TABLE "trans_borrow_transfer" (
	"id" serial PRIMARY KEY NOT NULL,
	"borrow_id" integer NOT NULL,
	"from_user_id" integer NOT NULL,
	"to_user_id" integer NOT NULL,
	"quantity" numeric NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"reason" text,
	"reject_seen_at" timestamp with time zone,
	"company_name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	CONSTRAINT "trans_borrow_transfer_status" CHECK ("trans_borrow_transfer"."status" IN ('PENDING', 'ACCEPTED', 'REJECTED')),
	CONSTRAINT "trans_borrow_transfer_quantity_positive" CHECK ("trans_borrow_transfer"."quantity" > 0),
	CONSTRAINT "trans_borrow_transfer_distinct_users" CHECK ("trans_borrow_transfer"."from_user_id" <> "trans_borrow_transfer"."to_user_id")
);
--> statement-breakpoint
ALTER TABLE "borrow_requests" ADD CONSTRAINT "borrow_requests_applicant_id_users_id_fk" FOREIGN KEY ("applicant_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "borrow_requests" ADD CONSTRAINT "borrow_requests_approver_id_users_id_fk" FOREIGN KEY ("approver_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "borrow_requests" ADD CONSTRAINT "borrow_requests_closer_id_users_id_fk" FOREIGN KEY ("closer_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trans_borrow" ADD CONSTRAINT "trans_borrow_request_id_borrow_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."borrow_requests"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trans_borrow" ADD CONSTRAINT "trans_borrow_borrower_id_users_id_fk" FOREIGN KEY ("borrower_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trans_borrow" ADD CONSTRAINT "trans_borrow_current_holder_id_users_id_fk" FOREIGN KEY ("current_holder_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trans_borrow_return" ADD CONSTRAINT "trans_borrow_return_borrow_id_trans_borrow_id_fk" FOREIGN KEY ("borrow_id") REFERENCES "public"."trans_borrow"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trans_borrow_transfer" ADD CONSTRAINT "trans_borrow_transfer_borrow_id_trans_borrow_id_fk" FOREIGN KEY ("borrow_id") REFERENCES "public"."trans_borrow"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trans_borrow_transfer" ADD CONSTRAINT "trans_borrow_transfer_from_user_id_users_id_fk" FOREIGN KEY ("from_user_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trans_borrow_transfer" ADD CONSTRAINT "trans_borrow_transfer_to_user_id_users_id_fk" FOREIGN KEY ("to_user_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "borrow_requests_company_status_idx" ON "borrow_requests" USING btree ("company_name","status");--> statement-breakpoint
CREATE INDEX "borrow_requests_applicant_idx" ON "borrow_requests" USING btree ("applicant_id");--> statement-breakpoint
CREATE INDEX "trans_borrow_no_idx" ON "trans_borrow" USING btree ("borrow_no");--> statement-breakpoint
CREATE INDEX "trans_borrow_company_time_idx" ON "trans_borrow" USING btree ("company_name","borrowed_at");--> statement-breakpoint
CREATE INDEX "trans_borrow_holder_idx" ON "trans_borrow" USING btree ("current_holder_id");--> statement-breakpoint
CREATE INDEX "trans_borrow_borrower_idx" ON "trans_borrow" USING btree ("borrower_id");--> statement-breakpoint
CREATE INDEX "trans_borrow_stock_idx" ON "trans_borrow" USING btree ("stock_id");--> statement-breakpoint
CREATE INDEX "trans_borrow_split_from_idx" ON "trans_borrow" USING btree ("split_from_id");--> statement-breakpoint
CREATE INDEX "trans_borrow_return_borrow_idx" ON "trans_borrow_return" USING btree ("borrow_id");--> statement-breakpoint
CREATE UNIQUE INDEX "trans_borrow_transfer_one_pending" ON "trans_borrow_transfer" USING btree ("borrow_id") WHERE "trans_borrow_transfer"."status" = 'PENDING';--> statement-breakpoint
CREATE INDEX "trans_borrow_transfer_borrow_idx" ON "trans_borrow_transfer" USING btree ("borrow_id");--> statement-breakpoint
CREATE INDEX "trans_borrow_transfer_to_status_idx" ON "trans_borrow_transfer" USING btree ("to_user_id","status");--> statement-breakpoint
CREATE INDEX "trans_borrow_transfer_from_status_idx" ON "trans_borrow_transfer" USING btree ("from_user_id","status");