-- Whether a media copy is still referenced is asked once per finished upload; without an index each question
-- scanned the whole table, which made a 10,000-recipe sync quadratic.
CREATE INDEX recipes_image_file ON recipes (image_file) WHERE image_file IS NOT NULL;
