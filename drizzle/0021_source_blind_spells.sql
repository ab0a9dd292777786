CREATE TABLE `source_blind_spells` (
	`source_id` text NOT NULL,
	`since_ms` integer NOT NULL,
	`until_ms` integer NOT NULL,
	PRIMARY KEY(`source_id`, `since_ms`)
);
--> statement-breakpoint
CREATE INDEX `source_blind_spells_until` ON `source_blind_spells` (`until_ms`);