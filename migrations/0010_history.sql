-- A recipe's revisions on this device (`recipes history`, `recipes undo`; docs/editing.md, "History and undo"): each
-- revision's whole content, kept for the last 50 revisions of each recipe, also after the recipe is deleted (for the
-- 200 recipes deleted last: an undo brings one back under its old id).
--   recipe_id: the recipe's local id, kept when the recipe's row goes (no foreign key: a deleted recipe's history stays).
--   uuid:      the recipe's identity on the server.
--   revision:  the local revision this content became.
--   at:        when (unix seconds).
--   origin:    where it came from: 'new', 'edit', 'import', 'pull', 'merge', 'resolve', 'undo', 'delete',
--              'removed' (deleted on the server), 'earlier' (as it was when history began, written by this migration's
--              seeding: RecipeStore.seedHistory).
--   command:   for an edit, the command that made it when known (`title`, `ingredient add`, `edit`).
--   deleted:   1 when this revision deleted the recipe (its fields are what it had).
--   fields:    the content as RecipeFields' stored JSON (the form of `recipes.base_fields`).
--   restores:  for an undo, the seq of the revision whose content it brought back (a second undo goes before it).
--   tombstone: for a deletion the server has, the version of its tombstone (an undo re-creates it as tombstone + 1).
--   image_file, image_sha256: the revision's image (its media copy's name, its hash), read from `fields`: the files
--              the garbage collection of media/ and images/ keeps while a revision that an undo may bring back names them.
CREATE TABLE recipe_history (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    recipe_id INTEGER NOT NULL,
    uuid      TEXT    NOT NULL,
    revision  INTEGER NOT NULL,
    at        REAL    NOT NULL,
    origin    TEXT    NOT NULL,
    command   TEXT,
    deleted   INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
    fields    TEXT    NOT NULL,
    restores  INTEGER,
    tombstone INTEGER,
    image_file   TEXT GENERATED ALWAYS AS (json_extract(fields, '$.image.file')) VIRTUAL,
    image_sha256 TEXT GENERATED ALWAYS AS (json_extract(fields, '$.image.sha256')) VIRTUAL
);
CREATE INDEX recipe_history_recipe ON recipe_history (recipe_id, seq);
CREATE INDEX recipe_history_image_file ON recipe_history (image_file) WHERE image_file IS NOT NULL;
CREATE INDEX recipe_history_image_sha256 ON recipe_history (image_sha256) WHERE image_sha256 IS NOT NULL;

-- The recipes the current transaction made a new revision of (or removed), with where the change came from when the
-- writer said so; the store turns each mark into a history row just before every commit (`RecipeStore.recordHistory`),
-- as it refreshes the search index, so that every writer keeps the history in its own transaction.
CREATE TABLE recipe_history_due (
    recipe_id INTEGER PRIMARY KEY,
    uuid      TEXT,
    origin    TEXT,
    command   TEXT,
    restores  INTEGER,
    gone      INTEGER NOT NULL DEFAULT 0,
    tombstone INTEGER
);

CREATE TRIGGER recipe_history_insert AFTER INSERT ON recipes BEGIN
    INSERT INTO recipe_history_due (recipe_id, uuid) VALUES (NEW.id, NEW.uuid)
        ON CONFLICT (recipe_id) DO UPDATE SET uuid = NEW.uuid, gone = 0;
END;
CREATE TRIGGER recipe_history_revision AFTER UPDATE OF revision ON recipes WHEN NEW.revision != OLD.revision BEGIN
    INSERT INTO recipe_history_due (recipe_id, uuid) VALUES (NEW.id, NEW.uuid)
        ON CONFLICT (recipe_id) DO UPDATE SET uuid = NEW.uuid;
END;
-- A removed row: a deletion the server confirmed leaves a tombstone one version above the one the DELETE named.
CREATE TRIGGER recipe_history_delete AFTER DELETE ON recipes BEGIN
    INSERT INTO recipe_history_due (recipe_id, uuid, gone, tombstone)
        VALUES (OLD.id, OLD.uuid, 1,
            CASE WHEN OLD.deleted = 1 AND OLD.server_version IS NOT NULL THEN OLD.server_version + 1 END)
        ON CONFLICT (recipe_id) DO UPDATE SET uuid = OLD.uuid, gone = 1,
            tombstone = coalesce(recipe_history_due.tombstone, excluded.tombstone);
END;
