CREATE TABLE "integration_events" (
	"event_id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"reference" text DEFAULT '' NOT NULL,
	"operator" text,
	"matched" boolean NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "integration_events_kind_valid" CHECK ("integration_events"."kind" in ('stock-in', 'outbound'))
);
--> statement-breakpoint
CREATE INDEX "integration_events_received_idx" ON "integration_events" USING btree ("received_at");