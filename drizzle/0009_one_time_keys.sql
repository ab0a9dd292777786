CREATE TABLE `one_time_keys` (
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`payload` text NOT NULL,
	`created_ms` integer NOT NULL,
	`expires_ms` integer NOT NULL,
	PRIMARY KEY(`kind`, `key`)
);
--> statement-breakpoint
CREATE INDEX `one_time_keys_kind_created` ON `one_time_keys` (`kind`,`created_ms`);