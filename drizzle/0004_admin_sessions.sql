CREATE TABLE `admin_sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`token_fingerprint` text NOT NULL,
	`created_ms` integer NOT NULL,
	`expires_ms` integer NOT NULL,
	`last_seen_ms` integer NOT NULL
);
