CREATE TABLE "bom_lines" (
	"id" serial PRIMARY KEY NOT NULL,
	"bom_version_id" integer NOT NULL,
	"parent_id" integer NOT NULL,
	"child_id" integer NOT NULL,
	"quantity" numeric NOT NULL,
	"remark" text,
	"line_no" integer NOT NULL,
	"company_name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bom_lines_quantity_positive" CHECK ("bom_lines"."quantity" > 0),
	CONSTRAINT "bom_lines_not_own_parent" CHECK ("bom_lines"."child_id" <> "bom_lines"."parent_id")
);
--> statement-breakpoint
CREATE TABLE "bom_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"parent_id" integer NOT NULL,
	"company_name" text NOT NULL,
	"version" integer NOT NULL,
	"status" text NOT NULL,
	"remark" text,
	"created_by" integer,
	"published_by" integer,
	"published_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bom_versions_status" CHECK ("bom_versions"."status" IN ('draft', 'published')),
	CONSTRAINT "bom_versions_published_stamped" CHECK ("bom_versions"."status" = 'draft' OR "bom_versions"."published_at" IS NOT NULL),
	CONSTRAINT "bom_versions_version_positive" CHECK ("bom_versions"."version" > 0)
);
--> statement-breakpoint
ALTER TABLE "stock_rows" ADD COLUMN "bom_version_id" integer;--> statement-breakpoint
ALTER TABLE "bom_lines" ADD CONSTRAINT "bom_lines_bom_version_id_bom_versions_id_fk" FOREIGN KEY ("bom_version_id") REFERENCES "public"."bom_versions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bom_lines" ADD CONSTRAINT "bom_lines_parent_id_materials_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."materials"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bom_lines" ADD CONSTRAINT "bom_lines_child_id_materials_id_fk" FOREIGN KEY ("child_id") REFERENCES "public"."materials"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bom_versions" ADD CONSTRAINT "bom_versions_parent_id_materials_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."materials"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "bom_lines_version_child_unique" ON "bom_lines" USING btree ("bom_version_id","child_id");--> statement-breakpoint
CREATE INDEX "bom_lines_child_idx" ON "bom_lines" USING btree ("child_id");--> statement-breakpoint
CREATE INDEX "bom_lines_parent_idx" ON "bom_lines" USING btree ("parent_id");--> statement-breakpoint
CREATE UNIQUE INDEX "bom_versions_parent_version_unique" ON "bom_versions" USING btree ("parent_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "bom_versions_one_draft_per_parent" ON "bom_versions" USING btree ("parent_id") WHERE "bom_versions"."status" = 'draft';--> statement-breakpoint
CREATE INDEX "bom_versions_company_idx" ON "bom_versions" USING btree ("company_name");--> statement-breakpoint
ALTER TABLE "stock_rows" ADD CONSTRAINT "stock_rows_bom_version_id_bom_versions_id_fk" FOREIGN KEY ("bom_version_id") REFERENCES "public"."bom_versions"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "stock_rows_bom_version_idx" ON "stock_rows" USING btree ("bom_version_id");--> statement-breakpoint
ALTER TABLE "stock_rows" ADD CONSTRAINT "stock_rows_bom_version_only_on_products" CHECK ("stock_rows"."source_table" = 'stock_product' OR "stock_rows"."bom_version_id" IS NULL);