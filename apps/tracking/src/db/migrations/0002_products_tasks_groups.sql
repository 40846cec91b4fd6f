CREATE TABLE "business_group_members" (
	"id" serial PRIMARY KEY NOT NULL,
	"group_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"is_leader" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "business_group_phases" (
	"group_id" integer NOT NULL,
	"phase" text NOT NULL,
	CONSTRAINT "business_group_phases_group_id_phase_pk" PRIMARY KEY("group_id","phase"),
	CONSTRAINT "business_group_phases_valid" CHECK ("business_group_phases"."phase" in ('PRODUCTION', 'AFTER_SALES'))
);
--> statement-breakpoint
CREATE TABLE "business_groups" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"parent_id" integer,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "business_groups_not_own_parent" CHECK ("business_groups"."parent_id" is null or "business_groups"."parent_id" <> "business_groups"."id")
);
--> statement-breakpoint
CREATE TABLE "materials" (
	"id" serial PRIMARY KEY NOT NULL,
	"base_id" integer,
	"name" text NOT NULL,
	"category" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "products" (
	"id" serial PRIMARY KEY NOT NULL,
	"serial_number" text NOT NULL,
	"model" text NOT NULL,
	"base_id" integer,
	"status" text DEFAULT '生产中' NOT NULL,
	"lifecycle_phase" text DEFAULT 'PRODUCTION' NOT NULL,
	"current_stage" text DEFAULT '装配' NOT NULL,
	"group_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	"stocked_in_at" timestamp with time zone,
	"shipped_at" timestamp with time zone,
	CONSTRAINT "products_serial_length" CHECK (char_length("products"."serial_number") between 1 and 16),
	CONSTRAINT "products_status_valid" CHECK ("products"."status" in ('生产中', '待仓库收货', '已入库', '已出库', '售后中')),
	CONSTRAINT "products_phase_valid" CHECK ("products"."lifecycle_phase" in ('PRODUCTION', 'AFTER_SALES')),
	CONSTRAINT "products_stage_valid" CHECK ("products"."current_stage" in ('装配', '调试', '老化', '检验', '包装'))
);
--> statement-breakpoint
CREATE TABLE "reminders" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"task_id" integer,
	"content" text NOT NULL,
	"read_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "task_logs" (
	"id" serial PRIMARY KEY NOT NULL,
	"task_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"action" text NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"hours" numeric(10, 2) DEFAULT '0' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "task_logs_action_valid" CHECK ("task_logs"."action" in ('CREATE', 'START', 'PROGRESS', 'FINISH', 'COMMENT')),
	CONSTRAINT "task_logs_hours_non_negative" CHECK ("task_logs"."hours" >= 0)
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" serial PRIMARY KEY NOT NULL,
	"product_id" integer NOT NULL,
	"title" text NOT NULL,
	"type" text NOT NULL,
	"stage" text,
	"status" text DEFAULT 'TODO' NOT NULL,
	"assignee_id" integer,
	"due_date" date,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"hours" numeric(10, 2) DEFAULT '0' NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tasks_type_valid" CHECK ("tasks"."type" in ('PRODUCTION', 'INSPECTION', 'REPAIR', 'AFTER_SALES')),
	CONSTRAINT "tasks_status_valid" CHECK ("tasks"."status" in ('TODO', 'IN_PROGRESS', 'DONE')),
	CONSTRAINT "tasks_stage_valid" CHECK ("tasks"."stage" is null or "tasks"."stage" in ('装配', '调试', '老化', '检验', '包装')),
	CONSTRAINT "tasks_hours_non_negative" CHECK ("tasks"."hours" >= 0)
);
--> statement-breakpoint
ALTER TABLE "business_group_members" ADD CONSTRAINT "business_group_members_group_id_business_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."business_groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "business_group_members" ADD CONSTRAINT "business_group_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "business_group_phases" ADD CONSTRAINT "business_group_phases_group_id_business_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."business_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "business_groups" ADD CONSTRAINT "business_groups_parent_id_business_groups_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."business_groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_group_id_business_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."business_groups"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reminders" ADD CONSTRAINT "reminders_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reminders" ADD CONSTRAINT "reminders_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_logs" ADD CONSTRAINT "task_logs_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_logs" ADD CONSTRAINT "task_logs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_assignee_id_users_id_fk" FOREIGN KEY ("assignee_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "business_group_members_unique" ON "business_group_members" USING btree ("group_id","user_id");--> statement-breakpoint
CREATE INDEX "business_group_members_user_idx" ON "business_group_members" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "business_groups_parent_idx" ON "business_groups" USING btree ("parent_id");--> statement-breakpoint
CREATE UNIQUE INDEX "materials_base_id_unique" ON "materials" USING btree ("base_id");--> statement-breakpoint
CREATE UNIQUE INDEX "materials_manual_unique" ON "materials" USING btree ("category","name") WHERE "materials"."base_id" is null;--> statement-breakpoint
CREATE INDEX "materials_category_idx" ON "materials" USING btree ("category");--> statement-breakpoint
CREATE UNIQUE INDEX "products_serial_number_unique" ON "products" USING btree ("serial_number");--> statement-breakpoint
CREATE INDEX "products_phase_status_idx" ON "products" USING btree ("lifecycle_phase","status");--> statement-breakpoint
CREATE INDEX "products_group_idx" ON "products" USING btree ("group_id");--> statement-breakpoint
CREATE INDEX "products_created_idx" ON "products" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "reminders_user_idx" ON "reminders" USING btree ("user_id","read_at");--> statement-breakpoint
CREATE INDEX "task_logs_task_idx" ON "task_logs" USING btree ("task_id","created_at");--> statement-breakpoint
CREATE INDEX "task_logs_user_idx" ON "task_logs" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "tasks_product_idx" ON "tasks" USING btree ("product_id");--> statement-breakpoint
CREATE INDEX "tasks_assignee_status_idx" ON "tasks" USING btree ("assignee_id","status");--> statement-breakpoint
CREATE INDEX "tasks_status_due_idx" ON "tasks" USING btree ("status","due_date");