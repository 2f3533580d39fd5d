-- Full-text search (`recipes search`) over what a cook writes: title, description, keywords, ingredients and steps.
-- One row per recipe not deleted, rowid = recipes.id. The triggers below keep it in step inside the transaction of
-- every change, whoever makes it (an edit, an import, a pull); nothing reads or writes it while a home is opened.
-- porter: "tomatoes" finds "tomato"; remove_diacritics: "creme" finds "crème"; prefix indexes: typed prefixes stay quick.
CREATE VIRTUAL TABLE recipe_search USING fts5(
    title, description, keywords, ingredients, steps,
    tokenize = 'porter unicode61 remove_diacritics 2',
    prefix = '2 3'
);
-- Ranking: a word in the title counts most, then keywords, then ingredients, then description and steps.
INSERT INTO recipe_search (recipe_search, rank) VALUES ('rank', 'bm25(10.0, 1.0, 5.0, 2.0, 1.0)');

INSERT INTO recipe_search (rowid, title, description, keywords, ingredients, steps)
SELECT id, title, description, keywords,
    coalesce((SELECT group_concat(text, char(10)) FROM
        (SELECT text FROM ingredients WHERE recipe_id = recipes.id ORDER BY position)), ''),
    coalesce((SELECT group_concat(text, char(10)) FROM
        (SELECT text FROM steps WHERE recipe_id = recipes.id ORDER BY position)), '')
FROM recipes WHERE deleted = 0;

CREATE TRIGGER recipe_search_recipe_insert AFTER INSERT ON recipes BEGIN
    INSERT INTO recipe_search (rowid, title, description, keywords, ingredients, steps)
    VALUES (NEW.id, NEW.title, NEW.description, NEW.keywords, '', '');
END;
CREATE TRIGGER recipe_search_recipe_update AFTER UPDATE OF title, description, keywords ON recipes
WHEN NEW.title IS NOT OLD.title OR NEW.description IS NOT OLD.description OR NEW.keywords IS NOT OLD.keywords BEGIN
    UPDATE recipe_search SET title = NEW.title, description = NEW.description, keywords = NEW.keywords
    WHERE rowid = NEW.id;
END;
CREATE TRIGGER recipe_search_recipe_delete AFTER DELETE ON recipes BEGIN
    DELETE FROM recipe_search WHERE rowid = OLD.id;
END;
-- A deleted recipe (kept as `deleting` until the server confirms) is not found; one brought back is found again.
CREATE TRIGGER recipe_search_recipe_deleted AFTER UPDATE OF deleted ON recipes
WHEN NEW.deleted = 1 AND OLD.deleted = 0 BEGIN
    DELETE FROM recipe_search WHERE rowid = NEW.id;
END;
CREATE TRIGGER recipe_search_recipe_restored AFTER UPDATE OF deleted ON recipes
WHEN NEW.deleted = 0 AND OLD.deleted = 1 BEGIN
    INSERT INTO recipe_search (rowid, title, description, keywords, ingredients, steps)
    VALUES (NEW.id, NEW.title, NEW.description, NEW.keywords,
        coalesce((SELECT group_concat(text, char(10)) FROM
            (SELECT text FROM ingredients WHERE recipe_id = NEW.id ORDER BY position)), ''),
        coalesce((SELECT group_concat(text, char(10)) FROM
            (SELECT text FROM steps WHERE recipe_id = NEW.id ORDER BY position)), ''));
END;

CREATE TRIGGER recipe_search_ingredient_insert AFTER INSERT ON ingredients BEGIN
    UPDATE recipe_search SET ingredients = coalesce((SELECT group_concat(text, char(10)) FROM
        (SELECT text FROM ingredients WHERE recipe_id = NEW.recipe_id ORDER BY position)), '')
    WHERE rowid = NEW.recipe_id;
END;
CREATE TRIGGER recipe_search_ingredient_update AFTER UPDATE OF text, position ON ingredients BEGIN
    UPDATE recipe_search SET ingredients = coalesce((SELECT group_concat(text, char(10)) FROM
        (SELECT text FROM ingredients WHERE recipe_id = NEW.recipe_id ORDER BY position)), '')
    WHERE rowid = NEW.recipe_id;
END;
CREATE TRIGGER recipe_search_ingredient_delete AFTER DELETE ON ingredients BEGIN
    UPDATE recipe_search SET ingredients = coalesce((SELECT group_concat(text, char(10)) FROM
        (SELECT text FROM ingredients WHERE recipe_id = OLD.recipe_id ORDER BY position)), '')
    WHERE rowid = OLD.recipe_id;
END;

CREATE TRIGGER recipe_search_step_insert AFTER INSERT ON steps BEGIN
    UPDATE recipe_search SET steps = coalesce((SELECT group_concat(text, char(10)) FROM
        (SELECT text FROM steps WHERE recipe_id = NEW.recipe_id ORDER BY position)), '')
    WHERE rowid = NEW.recipe_id;
END;
CREATE TRIGGER recipe_search_step_update AFTER UPDATE OF text, position ON steps BEGIN
    UPDATE recipe_search SET steps = coalesce((SELECT group_concat(text, char(10)) FROM
        (SELECT text FROM steps WHERE recipe_id = NEW.recipe_id ORDER BY position)), '')
    WHERE rowid = NEW.recipe_id;
END;
CREATE TRIGGER recipe_search_step_delete AFTER DELETE ON steps BEGIN
    UPDATE recipe_search SET steps = coalesce((SELECT group_concat(text, char(10)) FROM
        (SELECT text FROM steps WHERE recipe_id = OLD.recipe_id ORDER BY position)), '')
    WHERE rowid = OLD.recipe_id;
END;
