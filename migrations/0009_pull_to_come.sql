-- The changes a pull went past without applying them (their image could not be fetched): one recipe whose image cannot
-- be fetched never holds back the recipes after it. The cursor stays before the first of them, so the next pull reads
-- it again and tries its image once more; until then `status` names each one and why (CONTRACT section 5, 9). A row
-- goes in the transaction that applies its recipe's change (or a later one), or that starts a server's feed again.
CREATE TABLE pull_to_come (
    uuid     TEXT PRIMARY KEY NOT NULL,
    seq      INTEGER NOT NULL,
    version  INTEGER NOT NULL,
    title    TEXT NOT NULL,
    reason   TEXT NOT NULL,
    since    REAL NOT NULL
);
