CREATE TABLE `events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`incident_id` text NOT NULL,
	`revision` integer NOT NULL,
	`occurred_ms` integer NOT NULL,
	`detected_ms` integer NOT NULL,
	`backfill` integer NOT NULL,
	`data_json` text NOT NULL,
	`poll_run_id` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_id` ON `events` (`id`);--> statement-breakpoint
CREATE INDEX `events_incident` ON `events` (`incident_id`,`seq`);--> statement-breakpoint
CREATE INDEX `events_type` ON `events` (`type`,`seq`);--> statement-breakpoint
CREATE TABLE `incident_services` (
	`incident_pk` integer NOT NULL,
	`service` text NOT NULL,
	`sort_key` integer NOT NULL,
	PRIMARY KEY(`incident_pk`, `service`)
);
--> statement-breakpoint
CREATE INDEX `incident_services_service` ON `incident_services` (`service`,`sort_key`);--> statement-breakpoint
CREATE TABLE `incident_versions` (
	`incident_id` text NOT NULL,
	`revision` integer NOT NULL,
	`snapshot_json` text NOT NULL,
	`recorded_ms` integer NOT NULL,
	`poll_run_id` text,
	PRIMARY KEY(`incident_id`, `revision`)
);
--> statement-breakpoint
CREATE TABLE `incidents` (
	`pk` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`sort_key` integer NOT NULL,
	`title` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`url` text NOT NULL,
	`services_json` text NOT NULL,
	`date_created` text NOT NULL,
	`date_updated` text NOT NULL,
	`created_ms` integer NOT NULL,
	`updated_ms` integer NOT NULL,
	`resolved_ms` integer,
	`first_seen_ms` integer NOT NULL,
	`last_seen_ms` integer NOT NULL,
	`revision` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `incidents_id` ON `incidents` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `incidents_sort_key` ON `incidents` (`sort_key`);--> statement-breakpoint
CREATE INDEX `incidents_updated` ON `incidents` (`updated_ms`);--> statement-breakpoint
CREATE INDEX `incidents_status_sort` ON `incidents` (`status`,`sort_key`);--> statement-breakpoint
CREATE INDEX `incidents_type_sort` ON `incidents` (`type`,`sort_key`);--> statement-breakpoint
CREATE TABLE `leases` (
	`name` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`expires_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `notes` (
	`incident_id` text NOT NULL,
	`key` text NOT NULL,
	`date_created` text NOT NULL,
	`created_ms` integer NOT NULL,
	`seq` integer NOT NULL,
	`body` text NOT NULL,
	`text` text NOT NULL,
	`first_seen_ms` integer NOT NULL,
	`changed_ms` integer NOT NULL,
	PRIMARY KEY(`incident_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `notes_latest` ON `notes` (`incident_id`,`created_ms`,`seq`);--> statement-breakpoint
CREATE TABLE `poll_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`started_ms` integer NOT NULL,
	`finished_ms` integer NOT NULL,
	`outcome` text NOT NULL,
	`sources_json` text NOT NULL,
	`changes_json` text NOT NULL,
	`event_count` integer NOT NULL,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `poll_runs_started` ON `poll_runs` (`started_ms`);--> statement-breakpoint
CREATE INDEX `poll_runs_outcome` ON `poll_runs` (`outcome`,`started_ms`);--> statement-breakpoint
CREATE TABLE `rejected_payloads` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`poll_run_id` text NOT NULL,
	`source` text NOT NULL,
	`url` text NOT NULL,
	`body` text NOT NULL,
	`error` text NOT NULL,
	`received_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rejected_payloads_run` ON `rejected_payloads` (`poll_run_id`);