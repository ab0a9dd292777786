CREATE TABLE `poll_run_rejections` (
	`poll_run_id` text NOT NULL,
	`source` text NOT NULL,
	`url` text NOT NULL,
	`error` text NOT NULL,
	`body_hash` text NOT NULL,
	`received_ms` integer NOT NULL,
	PRIMARY KEY(`poll_run_id`, `source`)
);
--> statement-breakpoint
CREATE TABLE `rejected_bodies` (
	`hash` text PRIMARY KEY NOT NULL,
	`bytes` integer NOT NULL,
	`seen_count` integer NOT NULL,
	`first_seen_ms` integer NOT NULL,
	`last_seen_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rejected_bodies_last_seen` ON `rejected_bodies` (`last_seen_ms`);--> statement-breakpoint
CREATE TABLE `rejected_body_texts` (
	`hash` text PRIMARY KEY NOT NULL,
	`body` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rate_limits_expires` ON `rate_limits` (`expires_ms`);--> statement-breakpoint
CREATE INDEX `subscriptions_pending_created` ON `subscriptions` (`created_ms`) WHERE status = 'pending';