-- Full-text index over incident titles and note bodies (notes as plain text, HTML stripped).
-- rowid is incidents.sort_key, so matches come out in list order (newest first) and a search
-- can stop after one page. Kept in step by the store in the same transaction that writes the
-- incident, not by triggers: the text is derived from HTML in code, which a trigger cannot do.
-- Porter stemming so that "upload" finds "uploading"; diacritics folded.
CREATE VIRTUAL TABLE `incidents_fts` USING fts5(title, notes, tokenize = 'porter unicode61 remove_diacritics 2');
