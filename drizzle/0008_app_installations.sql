CREATE TABLE `app_installations` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`bot_user_id` text NOT NULL,
	`scopes_json` text NOT NULL,
	`access_token_sealed` text,
	`refresh_token_sealed` text,
	`access_expires_ms` integer NOT NULL,
	`state` text NOT NULL,
	`reason` text,
	`refresh_claimed_ms` integer,
	`created_ms` integer NOT NULL,
	`updated_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `app_installations_team_id_unique` ON `app_installations` (`team_id`);