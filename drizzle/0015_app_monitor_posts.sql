CREATE TABLE `app_monitor_posts` (
	`subscription_id` text NOT NULL,
	`delivery_key` text NOT NULL,
	`ts` text,
	`created_ms` integer NOT NULL,
	PRIMARY KEY(`subscription_id`, `delivery_key`)
);
--> statement-breakpoint
CREATE INDEX `app_monitor_posts_subscription_created` ON `app_monitor_posts` (`subscription_id`,`created_ms`);--> statement-breakpoint
CREATE INDEX `app_conversation_holds_until` ON `app_conversation_holds` (`until_ms`);