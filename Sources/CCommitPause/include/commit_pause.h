#ifndef FRONTDOOR_COMMIT_PAUSE_H
#define FRONTDOOR_COMMIT_PAUSE_H

/// Tests only (armed by TestHooks in debug builds): makes SQLite's default VFS one that holds the
/// process between the two commits of a transaction that wrote the session file and the store
/// (`SessionFile`). Call before the first connection opens; SQLITE_OK or an SQLite error code.
int frontdoor_arm_commit_pause(void);

#endif
