CREATE TABLE `mcp_spent_assertions` (
	`key` text PRIMARY KEY NOT NULL,
	`expires_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mcp_spent_assertions_expires` ON `mcp_spent_assertions` (`expires_ms`);--> statement-breakpoint
CREATE TABLE `mcp_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`label` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mcp_tokens_token_hash_unique` ON `mcp_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `events_detected` ON `events` (`detected_ms`);