CREATE TABLE `scim_group_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subscription_id` text NOT NULL,
	`at_ms` integer NOT NULL,
	`user_id` text,
	`email` text,
	`display_name` text,
	`change` text NOT NULL,
	`detail` text
);
--> statement-breakpoint
CREATE INDEX `scim_group_log_subscription` ON `scim_group_log` (`subscription_id`,`id`);--> statement-breakpoint
CREATE TABLE `scim_groups` (
	`subscription_id` text PRIMARY KEY NOT NULL,
	`group_id` text NOT NULL,
	`group_name` text NOT NULL,
	`synced_ms` integer,
	`outcome` text NOT NULL,
	`error` text,
	`last_ok_ms` integer,
	`version` text,
	`group_deleted` integer NOT NULL,
	`revision` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `scim_member_sends` (
	`delivery_key` text NOT NULL,
	`user_id` text NOT NULL,
	`state` text NOT NULL,
	`at_ms` integer NOT NULL,
	PRIMARY KEY(`delivery_key`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `scim_member_sends_at` ON `scim_member_sends` (`at_ms`);--> statement-breakpoint
CREATE TABLE `scim_members` (
	`subscription_id` text NOT NULL,
	`user_id` text NOT NULL,
	`email` text,
	`active` integer NOT NULL,
	`time_zone` text,
	`display_name` text NOT NULL,
	PRIMARY KEY(`subscription_id`, `user_id`)
);
--> statement-breakpoint
CREATE TABLE `scim_mutes` (
	`subscription_id` text NOT NULL,
	`user_id` text NOT NULL,
	`muted_ms` integer NOT NULL,
	PRIMARY KEY(`subscription_id`, `user_id`)
);
