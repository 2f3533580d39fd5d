-- What the sync engine needs beyond the first schema.
--   deleted:        the user deleted the recipe; it stays until the server confirms the DELETE. Kept apart from
--                   `state` so that a cancelled or failed deletion is still a deletion when it is resumed.
--   server_version: the newer version a server reported in a 409 answer; an explicit `recipes sync <id>` uploads
--                   the local draft above it (the user chose to overwrite), a background run leaves it failed.
ALTER TABLE recipes ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1));
ALTER TABLE recipes ADD COLUMN server_version INTEGER;
UPDATE recipes SET deleted = 1 WHERE state = 'deleting';
-- The lease owner is looked up by every cancellation poll and lease renewal.
CREATE INDEX recipes_lease ON recipes (lease_owner) WHERE lease_owner IS NOT NULL;
