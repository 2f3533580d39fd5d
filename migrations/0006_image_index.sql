-- Which recipes show an image is asked by its SHA-256 once per finished upload (does a recipe still show the media
-- copy it let go, so that it moves to images/?) and once per pulled change; without an index each question scanned the
-- whole table, which made a sync quadratic in the number of recipes.
CREATE INDEX recipes_image_sha256 ON recipes (image_sha256) WHERE image_sha256 IS NOT NULL;
