CREATE TABLE `deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`key` text NOT NULL,
	`subscription_id` text NOT NULL,
	`channel` text NOT NULL,
	`event_ids_json` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_ms` integer NOT NULL,
	`claimed_by` text,
	`claim_until_ms` integer,
	`created_ms` integer NOT NULL,
	`finished_ms` integer,
	`last_error` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deliveries_key` ON `deliveries` (`key`);--> statement-breakpoint
CREATE INDEX `deliveries_due` ON `deliveries` (`next_attempt_ms`) WHERE state = 'pending';--> statement-breakpoint
CREATE INDEX `deliveries_subscription` ON `deliveries` (`subscription_id`,`id`);--> statement-breakpoint
CREATE INDEX `deliveries_created` ON `deliveries` (`created_ms`);--> statement-breakpoint
CREATE TABLE `delivery_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`delivery_id` integer NOT NULL,
	`attempted_ms` integer NOT NULL,
	`ok` integer NOT NULL,
	`status` integer,
	`duration_ms` integer NOT NULL,
	`response_excerpt` text NOT NULL,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `delivery_attempts_delivery` ON `delivery_attempts` (`delivery_id`,`id`);--> statement-breakpoint
CREATE TABLE `link_tokens` (
	`hash` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`subscription_id` text NOT NULL,
	`expires_ms` integer NOT NULL,
	`used_ms` integer
);
--> statement-breakpoint
CREATE INDEX `link_tokens_subscription` ON `link_tokens` (`subscription_id`);--> statement-breakpoint
CREATE INDEX `link_tokens_expires` ON `link_tokens` (`expires_ms`);--> statement-breakpoint
CREATE TABLE `rate_limits` (
	`key` text PRIMARY KEY NOT NULL,
	`hits_json` text NOT NULL,
	`expires_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`channel` text NOT NULL,
	`target` text NOT NULL,
	`filters_json` text NOT NULL,
	`time_zone` text NOT NULL,
	`status` text NOT NULL,
	`origin` text NOT NULL,
	`paused_reason` text,
	`secret_sealed` text,
	`previous_secret_sealed` text,
	`previous_secret_until_ms` integer,
	`failing_since_ms` integer,
	`last_success_ms` integer,
	`created_ms` integer NOT NULL,
	`updated_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `subscriptions_status` ON `subscriptions` (`status`);--> statement-breakpoint
CREATE INDEX `subscriptions_target` ON `subscriptions` (`channel`,`target`);--> statement-breakpoint
CREATE INDEX `incidents_resolved` ON `incidents` (`resolved_ms`);