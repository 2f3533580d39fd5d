-- The search index in linear time, and what a draft sent to the server held.
--
-- Until now each row written to `ingredients` or `steps` rebuilt its recipe's whole list in the index (the trigger
-- joined every ingredient again, and FTS5 re-indexed the whole row): a recipe of n ingredients cost n² to write
-- (4,000 ingredients: 17 s, holding the database's write lock). Now a row written only marks its recipe stale, once
-- per transaction, and the store deletes the marks just before every commit (`RecipeStore.refreshSearch`): each
-- deleted mark rebuilds that recipe's lists in the index once. Every writer still keeps the index in step inside its
-- own transaction without knowing about it. A later migration that indexes more lists marks its tables' recipes
-- stale the same way and redefines `recipe_search_refresh`.
CREATE TABLE recipe_search_stale (recipe_id INTEGER PRIMARY KEY);

CREATE TRIGGER recipe_search_refresh AFTER DELETE ON recipe_search_stale BEGIN
    UPDATE recipe_search SET
        ingredients = coalesce((SELECT group_concat(text, char(10)) FROM
            (SELECT text FROM ingredients WHERE recipe_id = OLD.recipe_id ORDER BY position)), ''),
        steps = coalesce((SELECT group_concat(text, char(10)) FROM
            (SELECT text FROM steps WHERE recipe_id = OLD.recipe_id ORDER BY position)), '')
    WHERE rowid = OLD.recipe_id;
END;

DROP TRIGGER recipe_search_ingredient_insert;
DROP TRIGGER recipe_search_ingredient_update;
DROP TRIGGER recipe_search_ingredient_delete;
DROP TRIGGER recipe_search_step_insert;
DROP TRIGGER recipe_search_step_update;
DROP TRIGGER recipe_search_step_delete;

CREATE TRIGGER recipe_search_ingredient_insert AFTER INSERT ON ingredients BEGIN
    INSERT OR IGNORE INTO recipe_search_stale (recipe_id) VALUES (NEW.recipe_id);
END;
CREATE TRIGGER recipe_search_ingredient_update AFTER UPDATE OF text, position ON ingredients BEGIN
    INSERT OR IGNORE INTO recipe_search_stale (recipe_id) VALUES (NEW.recipe_id);
END;
CREATE TRIGGER recipe_search_ingredient_delete AFTER DELETE ON ingredients BEGIN
    INSERT OR IGNORE INTO recipe_search_stale (recipe_id) VALUES (OLD.recipe_id);
END;
CREATE TRIGGER recipe_search_step_insert AFTER INSERT ON steps BEGIN
    INSERT OR IGNORE INTO recipe_search_stale (recipe_id) VALUES (NEW.recipe_id);
END;
CREATE TRIGGER recipe_search_step_update AFTER UPDATE OF text, position ON steps BEGIN
    INSERT OR IGNORE INTO recipe_search_stale (recipe_id) VALUES (NEW.recipe_id);
END;
CREATE TRIGGER recipe_search_step_delete AFTER DELETE ON steps BEGIN
    INSERT OR IGNORE INTO recipe_search_stale (recipe_id) VALUES (OLD.recipe_id);
END;

-- The draft this device sent and the server may have stored without its answer arriving (docs/sync-engine.md, "Two-way sync and conflicts": a
-- server version equal to what this client sent becomes the base, and only the edits made since are merged on it).
-- Kept by the edit that changes a draft whose upload is unacknowledged: `sent_version` is the version that upload
-- would have made (its base + 1), `sent_fields` its fields in RecipeFields' stored JSON. NULL when there is none; a
-- pair whose version is not the recipe's `server_version` + 1 is out of date and means nothing.
ALTER TABLE recipes ADD COLUMN sent_version INTEGER;
ALTER TABLE recipes ADD COLUMN sent_fields TEXT;
