-- The whole recipe (docs/http-api.md, "The recipe document"): the schema.org properties cooks and recipe sites use,
-- steps grouped in named sections, and every other property a recipe arrived with, kept as it came. Every column
-- starts empty, so every recipe of an existing home reads as it did; nothing is rewritten.
--   prep_time, cook_time, total_time: ISO 8601 durations as written ('' unset).
--   recipe_category, recipe_cuisine, tool, suitable_for_diet: JSON arrays of texts.
--   author, url: texts ('' unset); url is looked up when a page is imported again (index below).
--   nutrition: a JSON object of NutritionInformation properties and their texts.
--   other_properties: a JSON object of every other property the recipe arrived with, each value exactly as written.
--   property_forms: a JSON object of the properties read as fields, each as the document that last brought the
--                   recipe wrote it; NULL for a recipe made here (see RecipeModels' ReceivedProperties).
--   steps.section: the name of the HowToSection the step is in ('' none).
ALTER TABLE recipes ADD COLUMN prep_time TEXT NOT NULL DEFAULT '';
ALTER TABLE recipes ADD COLUMN cook_time TEXT NOT NULL DEFAULT '';
ALTER TABLE recipes ADD COLUMN total_time TEXT NOT NULL DEFAULT '';
ALTER TABLE recipes ADD COLUMN recipe_category TEXT NOT NULL DEFAULT '[]';
ALTER TABLE recipes ADD COLUMN recipe_cuisine TEXT NOT NULL DEFAULT '[]';
ALTER TABLE recipes ADD COLUMN author TEXT NOT NULL DEFAULT '';
ALTER TABLE recipes ADD COLUMN url TEXT NOT NULL DEFAULT '';
ALTER TABLE recipes ADD COLUMN nutrition TEXT NOT NULL DEFAULT '{}';
ALTER TABLE recipes ADD COLUMN tool TEXT NOT NULL DEFAULT '[]';
ALTER TABLE recipes ADD COLUMN suitable_for_diet TEXT NOT NULL DEFAULT '[]';
ALTER TABLE recipes ADD COLUMN other_properties TEXT NOT NULL DEFAULT '{}';
ALTER TABLE recipes ADD COLUMN property_forms TEXT;
ALTER TABLE steps ADD COLUMN section TEXT NOT NULL DEFAULT '';
CREATE INDEX recipes_url ON recipes (url) WHERE url != '';

-- Search (`recipes search`, `category:soup`) covers the category, the cuisine and the author. FTS5 tables take no new
-- columns, so the index is made again with them after the five it had (same tokenizer and prefixes), filled from the
-- recipes, and the triggers on `recipes` that write whole rows are made again to write them. The lists of ingredients
-- and steps stay refreshed once per change through migration 0007's stale marks (`recipe_search_refresh`, unchanged).
DROP TRIGGER recipe_search_recipe_insert;
DROP TRIGGER recipe_search_recipe_update;
DROP TRIGGER recipe_search_recipe_delete;
DROP TRIGGER recipe_search_recipe_deleted;
DROP TRIGGER recipe_search_recipe_restored;
DROP TABLE recipe_search;
CREATE VIRTUAL TABLE recipe_search USING fts5(
    title, description, keywords, ingredients, steps, category, cuisine, author,
    tokenize = 'porter unicode61 remove_diacritics 2',
    prefix = '2 3'
);
-- Ranking: the title counts most, then keywords and category, then cuisine, then ingredients, then the rest.
INSERT INTO recipe_search (recipe_search, rank) VALUES ('rank', 'bm25(10.0, 1.0, 5.0, 2.0, 1.0, 5.0, 3.0, 1.0)');

INSERT INTO recipe_search (rowid, title, description, keywords, ingredients, steps, category, cuisine, author)
SELECT id, title, description, keywords,
    coalesce((SELECT group_concat(text, char(10)) FROM
        (SELECT text FROM ingredients WHERE recipe_id = recipes.id ORDER BY position)), ''),
    coalesce((SELECT group_concat(text, char(10)) FROM
        (SELECT text FROM steps WHERE recipe_id = recipes.id ORDER BY position)), ''),
    coalesce((SELECT group_concat(value, char(10)) FROM json_each(recipes.recipe_category)), ''),
    coalesce((SELECT group_concat(value, char(10)) FROM json_each(recipes.recipe_cuisine)), ''), author
FROM recipes WHERE deleted = 0;

CREATE TRIGGER recipe_search_recipe_insert AFTER INSERT ON recipes BEGIN
    INSERT INTO recipe_search (rowid, title, description, keywords, ingredients, steps, category, cuisine, author)
    VALUES (NEW.id, NEW.title, NEW.description, NEW.keywords, '', '',
        coalesce((SELECT group_concat(value, char(10)) FROM json_each(NEW.recipe_category)), ''),
        coalesce((SELECT group_concat(value, char(10)) FROM json_each(NEW.recipe_cuisine)), ''), NEW.author);
END;
CREATE TRIGGER recipe_search_recipe_update
AFTER UPDATE OF title, description, keywords, recipe_category, recipe_cuisine, author ON recipes
WHEN NEW.title IS NOT OLD.title OR NEW.description IS NOT OLD.description OR NEW.keywords IS NOT OLD.keywords
    OR NEW.recipe_category IS NOT OLD.recipe_category OR NEW.recipe_cuisine IS NOT OLD.recipe_cuisine
    OR NEW.author IS NOT OLD.author BEGIN
    UPDATE recipe_search SET title = NEW.title, description = NEW.description, keywords = NEW.keywords,
        category = coalesce((SELECT group_concat(value, char(10)) FROM json_each(NEW.recipe_category)), ''),
        cuisine = coalesce((SELECT group_concat(value, char(10)) FROM json_each(NEW.recipe_cuisine)), ''),
        author = NEW.author
    WHERE rowid = NEW.id;
END;
CREATE TRIGGER recipe_search_recipe_delete AFTER DELETE ON recipes BEGIN
    DELETE FROM recipe_search WHERE rowid = OLD.id;
END;
CREATE TRIGGER recipe_search_recipe_deleted AFTER UPDATE OF deleted ON recipes
WHEN NEW.deleted = 1 AND OLD.deleted = 0 BEGIN
    DELETE FROM recipe_search WHERE rowid = NEW.id;
END;
CREATE TRIGGER recipe_search_recipe_restored AFTER UPDATE OF deleted ON recipes
WHEN NEW.deleted = 0 AND OLD.deleted = 1 BEGIN
    INSERT INTO recipe_search (rowid, title, description, keywords, ingredients, steps, category, cuisine, author)
    VALUES (NEW.id, NEW.title, NEW.description, NEW.keywords,
        coalesce((SELECT group_concat(text, char(10)) FROM
            (SELECT text FROM ingredients WHERE recipe_id = NEW.id ORDER BY position)), ''),
        coalesce((SELECT group_concat(text, char(10)) FROM
            (SELECT text FROM steps WHERE recipe_id = NEW.id ORDER BY position)), ''),
        coalesce((SELECT group_concat(value, char(10)) FROM json_each(NEW.recipe_category)), ''),
        coalesce((SELECT group_concat(value, char(10)) FROM json_each(NEW.recipe_cuisine)), ''), NEW.author);
END;
