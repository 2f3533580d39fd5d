-- Two-way sync (docs/sync-engine.md, "Two-way sync and conflicts"): what a recipe's draft is based on, what a merge left for a person, and where in
-- the server's changes feed this home has read to.
--   server_version: from now on the server version this draft is based on, NULL when the server never had the
--                      recipe (until now it held the newer version a 409 answer named; servers answer 412 instead).
--                      Servers took the client's revision as the version until now, so a synced recipe's base
--                      version is its synced revision.
--   base_fields:    that version's fields (the base of three-way merges) as RecipeFields' stored JSON; NULL when
--                      unknown: a recipe edited since its last upload then merges against nothing, and every field
--                      both sides set differently is a conflict a person resolves.
--   conflicts:      what a merge left for a person (RecipeConflict's stored JSON); NULL when none. The recipe is in
--                      `conflict` while it is set; `state` keeps what it was.
ALTER TABLE recipes ADD COLUMN base_fields TEXT;
ALTER TABLE recipes ADD COLUMN conflicts TEXT;
UPDATE recipes SET server_version = CASE WHEN synced_revision > 0 THEN synced_revision ELSE NULL END;
UPDATE recipes SET base_fields = json_object(
        'description', description,
        'image', CASE WHEN image_sha256 IS NOT NULL AND image_sha256 = remote_image_sha256 AND remote_image_url IS NOT NULL
            THEN json_object('sha256', image_sha256, 'url', remote_image_url) END,
        'ingredients', json((SELECT coalesce(json_group_array(text), '[]') FROM
            (SELECT text FROM ingredients WHERE recipe_id = recipes.id ORDER BY position))),
        'keywords', keywords,
        'recipeYield', recipe_yield,
        'steps', json((SELECT coalesce(json_group_array(text), '[]') FROM
            (SELECT text FROM steps WHERE recipe_id = recipes.id ORDER BY position))),
        'title', title)
    WHERE synced_revision > 0 AND revision = synced_revision AND deleted = 0;
-- json_object writes a NULL image as "image":null; the stored form leaves it out.
UPDATE recipes SET base_fields = json_remove(base_fields, '$.image')
    WHERE base_fields IS NOT NULL AND json_type(base_fields, '$.image') = 'null';

-- The changes feed: the server it belongs to (its id, from GET /v1/health or a changes page) and the sequence number
-- of the last change applied. One row.
CREATE TABLE sync_cursor (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    server_id TEXT,
    seq       INTEGER NOT NULL DEFAULT 0 CHECK (seq >= 0)
);
INSERT INTO sync_cursor (id, seq) VALUES (1, 0);
