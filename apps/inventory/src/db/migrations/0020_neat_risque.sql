CREATE TABLE "material_images" (
	"id" serial PRIMARY KEY NOT NULL,
	"base_id" integer NOT NULL,
	"company_name" text NOT NULL,
	"file_name" text NOT NULL,
	"storage_path" text NOT NULL,
	"mime" text NOT NULL,
	"byte_size" integer NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"phash" bigint NOT NULL,
	"color_embedding" "cube" NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "material_images" ADD CONSTRAINT "material_images_base_id_materials_id_fk" FOREIGN KEY ("base_id") REFERENCES "public"."materials"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "material_images_base_idx" ON "material_images" USING btree ("base_id");--> statement-breakpoint
CREATE INDEX "material_images_company_idx" ON "material_images" USING btree ("company_name");--> statement-breakpoint
CREATE INDEX "material_images_embedding_gist" ON "material_images" USING gist ("color_embedding");