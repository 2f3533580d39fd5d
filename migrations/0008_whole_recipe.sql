-- The whole recipe (CONTRACT section 3, "The whole recipe"): the schema.org properties cooks and recipe sites use,
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
