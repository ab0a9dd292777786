CREATE TABLE `source_components` (
	`source_id` text NOT NULL,
	`component_id` text NOT NULL,
	`name` text NOT NULL,
	`group_id` text,
	`is_group` integer NOT NULL,
	`position` integer,
	`status` text NOT NULL,
	`vendor_status` text NOT NULL,
	`updated_ms` integer NOT NULL,
	PRIMARY KEY(`source_id`, `component_id`)
);
--> statement-breakpoint
CREATE TABLE `sources` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`created_ms` integer NOT NULL,
	`validators` text DEFAULT '{}' NOT NULL,
	`last_success_ms` integer,
	`last_failure_ms` integer,
	`last_error` text,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`blind_since_ms` integer,
	`blind_told_ms` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sources_url` ON `sources` (`url`);