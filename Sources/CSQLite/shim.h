#ifndef RECIPES_CSQLITE_SHIM_H
#define RECIPES_CSQLITE_SHIM_H
// SQLite settings GRDB does not expose, for the RecipeStore target. sqlite3_db_config is variadic and not callable
// from Swift: each wrapper below fixes its arguments. Page mirrored: https://www.sqlite.org/c3ref/db_config.html
#include <sqlite3.h>

/// Stops `db` from checkpointing the WAL into the database file when it closes (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE):
/// what a store does once SQLite reported the file damaged, so that nothing more is written to it. Returns
/// SQLITE_OK when the setting took.
static inline int recipes_sqlite3_no_checkpoint_on_close(sqlite3 *db) {
    int applied = 0;
    int code = sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &applied);
    return code == SQLITE_OK && applied == 1 ? SQLITE_OK : SQLITE_ERROR;
}

#endif
