ALTER TABLE `scim_groups` ADD `member_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `deliveries_pending_subscription` ON `deliveries` (`subscription_id`,`id`) WHERE state = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX `subscriptions_app_target` ON `subscriptions` (`target`) WHERE channel = 'app';--> statement-breakpoint
UPDATE `scim_groups` SET `member_count` = (SELECT COUNT(*) FROM `scim_members` m WHERE m.`subscription_id` = `scim_groups`.`subscription_id`);
