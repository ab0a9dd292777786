ALTER TABLE `app_installations` ADD `team_name` text;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `target_name` text;