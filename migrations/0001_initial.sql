-- The first schema of a recipes home: drafts, their ordered parts, and the sync bookkeeping.
-- Every edit bumps recipes.revision and sets state = 'pending' in the same transaction as the change.

CREATE TABLE recipes (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,          -- the small local number `list` shows
    uuid                TEXT    NOT NULL UNIQUE,                    -- identity on the server
    title               TEXT    NOT NULL CHECK (length(title) > 0),
    description         TEXT    NOT NULL DEFAULT '',
    recipe_yield        TEXT    NOT NULL DEFAULT '',
    keywords            TEXT    NOT NULL DEFAULT '',
    -- the attached image (a copy in <home>/media/ named by its SHA-256), NULL when none
    image_sha256        TEXT,
    image_format        TEXT    CHECK (image_format IN ('jpeg', 'png', 'gif', 'webp')),
    image_bytes         INTEGER,
    image_file          TEXT,                                       -- file name in media/, NULL once uploaded and removed
    -- what the server has
    remote_image_url    TEXT,
    remote_image_sha256 TEXT,
    revision            INTEGER NOT NULL DEFAULT 1 CHECK (revision >= 1),
    synced_revision     INTEGER NOT NULL DEFAULT 0 CHECK (synced_revision >= 0),
    sent_revision       INTEGER NOT NULL DEFAULT 0,                 -- highest revision whose upload was started
    -- sync state machine
    state               TEXT    NOT NULL DEFAULT 'pending'
                        CHECK (state IN ('synced', 'pending', 'waiting', 'uploading', 'failed', 'cancelled', 'deleting')),
    attempts            INTEGER NOT NULL DEFAULT 0,
    next_attempt_at     REAL,                                       -- unix seconds
    last_error          TEXT,
    offline_since       REAL,
    lease_owner         TEXT,                                       -- "<pid>:<process start>"
    lease_expires_at    REAL,
    cancel_requested    INTEGER NOT NULL DEFAULT 0 CHECK (cancel_requested IN (0, 1)),
    created_at          REAL    NOT NULL,
    updated_at          REAL    NOT NULL,
    CHECK ((image_sha256 IS NULL) = (image_format IS NULL))
);

CREATE INDEX recipes_due ON recipes (state, next_attempt_at);

CREATE TABLE ingredients (
    id        INTEGER PRIMARY KEY,
    recipe_id INTEGER NOT NULL REFERENCES recipes (id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    text      TEXT    NOT NULL
);
CREATE INDEX ingredients_order ON ingredients (recipe_id, position);

CREATE TABLE steps (
    id        INTEGER PRIMARY KEY,
    recipe_id INTEGER NOT NULL REFERENCES recipes (id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    text      TEXT    NOT NULL
);
CREATE INDEX steps_order ON steps (recipe_id, position);
