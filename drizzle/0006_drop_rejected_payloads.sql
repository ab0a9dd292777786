-- Hand-written (not drizzle-kit): moves the payloads kept before deduplication into the new
-- tables, one body each (they were never hashed: keyed 'legacy:<id>'), so the admin view of old
-- poll runs keeps showing them until retention prunes them like any other.
INSERT OR IGNORE INTO `rejected_bodies` (`hash`, `bytes`, `seen_count`, `first_seen_ms`, `last_seen_ms`)
  SELECT 'legacy:' || `id`, length(CAST(`body` AS BLOB)), 1, `received_ms`, `received_ms` FROM `rejected_payloads`;
--> statement-breakpoint
INSERT OR IGNORE INTO `rejected_body_texts` (`hash`, `body`) SELECT 'legacy:' || `id`, `body` FROM `rejected_payloads`;
--> statement-breakpoint
INSERT OR IGNORE INTO `poll_run_rejections` (`poll_run_id`, `source`, `url`, `error`, `body_hash`, `received_ms`)
  SELECT `poll_run_id`, `source`, `url`, `error`, 'legacy:' || `id`, `received_ms` FROM `rejected_payloads`;
--> statement-breakpoint
DROP TABLE `rejected_payloads`;
