#include <sqlite3.h>
/// SQLITE_TRANSIENT is a macro cast and does not import into Swift.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
/// Process-wide settings, before the first connection (sqlite3_config is variadic and does not import):
/// no memory statistics (a mutex and counters around every malloc, unused by schedd), and savepoint
/// sub-journals kept in memory in chunks of `statement_journal_spill` bytes up to that size (SQLite's
/// in-memory sub-journal otherwise grows in 1 KiB chunks: 8 mallocs per 8 KiB page pre-image).
/// SQLITE_MISUSE when SQLite was already initialized (then the defaults stay).
static inline int csqlite_configure(int statement_journal_spill) {
    int rc = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    int spill = sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, statement_journal_spill);
    return rc != SQLITE_OK ? rc : spill;
}
