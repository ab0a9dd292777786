CREATE TABLE `app_conversation_holds` (
	`installation_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`until_ms` integer NOT NULL,
	PRIMARY KEY(`installation_id`, `conversation_id`)
);
--> statement-breakpoint
CREATE TABLE `app_messages` (
	`subscription_id` text NOT NULL,
	`incident_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`root_ts` text,
	`root_key` text NOT NULL,
	`revision` integer NOT NULL,
	`note_json` text,
	`pending_replies` text DEFAULT '[]' NOT NULL,
	`created_ms` integer NOT NULL,
	`updated_ms` integer NOT NULL,
	PRIMARY KEY(`subscription_id`, `incident_id`)
);
