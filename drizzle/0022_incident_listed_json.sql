CREATE TABLE `incident_listed_json` (
	`incident_pk` integer PRIMARY KEY NOT NULL,
	`revision` integer NOT NULL,
	`json_head` text NOT NULL,
	`json_tail` text NOT NULL
);
--> statement-breakpoint
-- Every archived incident's listed JSON, as sqlite-incident-json.ts stores it with each write (storeListedJsonSql).
INSERT INTO "incident_listed_json" (incident_pk, revision, json_head, json_tail)
  SELECT "incidents"."pk", "incidents"."revision", rtrim(json_object('id', "incidents"."id",
  'title', "incidents"."title",
  'type', "incidents"."type",
  'status', "incidents"."status",
  'url', "incidents"."url",
  'services', json("incidents"."services_json"),
  'date_created', "incidents"."date_created",
  'date_updated', "incidents"."date_updated",
  'source', (CASE WHEN instr("incidents"."id", ':') = 0 THEN 'main' ELSE substr("incidents"."id", 1, instr("incidents"."id", ':') - 1) END),
  'created_at', (CASE WHEN "incidents"."created_ms" BETWEEN -62167219200000 AND 253402300799999
    THEN replace(datetime("incidents"."created_ms" / 1000.0, 'unixepoch', 'subsec'), ' ', 'T') || 'Z'
    ELSE printf('%+07d', strftime('%Y', ("incidents"."created_ms" - (CASE WHEN "incidents"."created_ms" >= -62167219200000 THEN ("incidents"."created_ms" - -62167219200000) / 12622780800000 ELSE -((-62167219200000 - "incidents"."created_ms" + 12622780800000 - 1) / 12622780800000) END) * 12622780800000) / 1000.0, 'unixepoch') + 400 * (CASE WHEN "incidents"."created_ms" >= -62167219200000 THEN ("incidents"."created_ms" - -62167219200000) / 12622780800000 ELSE -((-62167219200000 - "incidents"."created_ms" + 12622780800000 - 1) / 12622780800000) END)) || substr(strftime('%Y-%m-%dT%H:%M:%fZ', ("incidents"."created_ms" - (CASE WHEN "incidents"."created_ms" >= -62167219200000 THEN ("incidents"."created_ms" - -62167219200000) / 12622780800000 ELSE -((-62167219200000 - "incidents"."created_ms" + 12622780800000 - 1) / 12622780800000) END) * 12622780800000) / 1000.0, 'unixepoch'), 5) END),
  'updated_at', (CASE WHEN "incidents"."updated_ms" BETWEEN -62167219200000 AND 253402300799999
    THEN replace(datetime("incidents"."updated_ms" / 1000.0, 'unixepoch', 'subsec'), ' ', 'T') || 'Z'
    ELSE printf('%+07d', strftime('%Y', ("incidents"."updated_ms" - (CASE WHEN "incidents"."updated_ms" >= -62167219200000 THEN ("incidents"."updated_ms" - -62167219200000) / 12622780800000 ELSE -((-62167219200000 - "incidents"."updated_ms" + 12622780800000 - 1) / 12622780800000) END) * 12622780800000) / 1000.0, 'unixepoch') + 400 * (CASE WHEN "incidents"."updated_ms" >= -62167219200000 THEN ("incidents"."updated_ms" - -62167219200000) / 12622780800000 ELSE -((-62167219200000 - "incidents"."updated_ms" + 12622780800000 - 1) / 12622780800000) END)) || substr(strftime('%Y-%m-%dT%H:%M:%fZ', ("incidents"."updated_ms" - (CASE WHEN "incidents"."updated_ms" >= -62167219200000 THEN ("incidents"."updated_ms" - -62167219200000) / 12622780800000 ELSE -((-62167219200000 - "incidents"."updated_ms" + 12622780800000 - 1) / 12622780800000) END) * 12622780800000) / 1000.0, 'unixepoch'), 5) END),
  'resolved_at', (CASE WHEN "incidents"."resolved_ms" BETWEEN -62167219200000 AND 253402300799999
    THEN replace(datetime("incidents"."resolved_ms" / 1000.0, 'unixepoch', 'subsec'), ' ', 'T') || 'Z'
    ELSE printf('%+07d', strftime('%Y', ("incidents"."resolved_ms" - (CASE WHEN "incidents"."resolved_ms" >= -62167219200000 THEN ("incidents"."resolved_ms" - -62167219200000) / 12622780800000 ELSE -((-62167219200000 - "incidents"."resolved_ms" + 12622780800000 - 1) / 12622780800000) END) * 12622780800000) / 1000.0, 'unixepoch') + 400 * (CASE WHEN "incidents"."resolved_ms" >= -62167219200000 THEN ("incidents"."resolved_ms" - -62167219200000) / 12622780800000 ELSE -((-62167219200000 - "incidents"."resolved_ms" + 12622780800000 - 1) / 12622780800000) END)) || substr(strftime('%Y-%m-%dT%H:%M:%fZ', ("incidents"."resolved_ms" - (CASE WHEN "incidents"."resolved_ms" >= -62167219200000 THEN ("incidents"."resolved_ms" - -62167219200000) / 12622780800000 ELSE -((-62167219200000 - "incidents"."resolved_ms" + 12622780800000 - 1) / 12622780800000) END) * 12622780800000) / 1000.0, 'unixepoch'), 5) END),
  'duration_seconds', (CASE WHEN "incidents"."resolved_ms" IS NULL THEN NULL
  WHEN "incidents"."resolved_ms" - "incidents"."created_ms" + 500 >= 0 THEN ("incidents"."resolved_ms" - "incidents"."created_ms" + 500) / 1000
  ELSE -(("incidents"."created_ms" - "incidents"."resolved_ms" - 500 + 999) / 1000) END),
  'first_seen_at', (CASE WHEN "incidents"."first_seen_ms" BETWEEN -62167219200000 AND 253402300799999
    THEN replace(datetime("incidents"."first_seen_ms" / 1000.0, 'unixepoch', 'subsec'), ' ', 'T') || 'Z'
    ELSE printf('%+07d', strftime('%Y', ("incidents"."first_seen_ms" - (CASE WHEN "incidents"."first_seen_ms" >= -62167219200000 THEN ("incidents"."first_seen_ms" - -62167219200000) / 12622780800000 ELSE -((-62167219200000 - "incidents"."first_seen_ms" + 12622780800000 - 1) / 12622780800000) END) * 12622780800000) / 1000.0, 'unixepoch') + 400 * (CASE WHEN "incidents"."first_seen_ms" >= -62167219200000 THEN ("incidents"."first_seen_ms" - -62167219200000) / 12622780800000 ELSE -((-62167219200000 - "incidents"."first_seen_ms" + 12622780800000 - 1) / 12622780800000) END)) || substr(strftime('%Y-%m-%dT%H:%M:%fZ', ("incidents"."first_seen_ms" - (CASE WHEN "incidents"."first_seen_ms" >= -62167219200000 THEN ("incidents"."first_seen_ms" - -62167219200000) / 12622780800000 ELSE -((-62167219200000 - "incidents"."first_seen_ms" + 12622780800000 - 1) / 12622780800000) END) * 12622780800000) / 1000.0, 'unixepoch'), 5) END)), '}') || ',"last_seen_at":', ',' || substr(json_object('revision', "incidents"."revision",
  'note_count', (SELECT count(*) FROM "notes" c WHERE c.incident_id = "incidents"."id"), 'latest_note', json((SELECT json_object('key', n.key,
    'date_created', n.date_created,
    'created_at', (CASE WHEN n.created_ms BETWEEN -62167219200000 AND 253402300799999
    THEN replace(datetime(n.created_ms / 1000.0, 'unixepoch', 'subsec'), ' ', 'T') || 'Z'
    ELSE printf('%+07d', strftime('%Y', (n.created_ms - (CASE WHEN n.created_ms >= -62167219200000 THEN (n.created_ms - -62167219200000) / 12622780800000 ELSE -((-62167219200000 - n.created_ms + 12622780800000 - 1) / 12622780800000) END) * 12622780800000) / 1000.0, 'unixepoch') + 400 * (CASE WHEN n.created_ms >= -62167219200000 THEN (n.created_ms - -62167219200000) / 12622780800000 ELSE -((-62167219200000 - n.created_ms + 12622780800000 - 1) / 12622780800000) END)) || substr(strftime('%Y-%m-%dT%H:%M:%fZ', (n.created_ms - (CASE WHEN n.created_ms >= -62167219200000 THEN (n.created_ms - -62167219200000) / 12622780800000 ELSE -((-62167219200000 - n.created_ms + 12622780800000 - 1) / 12622780800000) END) * 12622780800000) / 1000.0, 'unixepoch'), 5) END),
    'body', n.body,
    'text', n.text) FROM "notes" n WHERE n.rowid = (SELECT m.rowid FROM "notes" m WHERE m.incident_id = "incidents"."id" ORDER BY m.created_ms DESC, m.seq DESC LIMIT 1)))), 2)
  FROM "incidents" WHERE true
  ON CONFLICT (incident_pk) DO UPDATE SET revision = excluded.revision, json_head = excluded.json_head, json_tail = excluded.json_tail
;
