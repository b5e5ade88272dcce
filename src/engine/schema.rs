//! Numbered migrations, tracked with `PRAGMA user_version`.

use rusqlite::Connection;

/// Each entry moves the schema from version `i` to `i + 1`. Append; never edit.
const MIGRATIONS: &[&str] = &[
    // 1: the first schema.
    r#"
    CREATE TABLE meta (
        name  TEXT PRIMARY KEY,
        value TEXT NOT NULL
    ) STRICT;

    -- Every signed event the store holds: the current version of each record, its
    -- tombstones and deletion requests. Enough to republish the whole state anywhere.
    CREATE TABLE events (
        id         TEXT PRIMARY KEY,
        kind       INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        json       TEXT NOT NULL
    ) STRICT;
    CREATE INDEX events_created ON events(created_at, id);

    -- The decoded current state, one row per logical path.
    CREATE TABLE records (
        rid        INTEGER PRIMARY KEY,
        path       TEXT NOT NULL UNIQUE,
        kind       TEXT NOT NULL,
        d_tag      TEXT NOT NULL,
        event_id   TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        deleted    INTEGER NOT NULL DEFAULT 0,
        domain     TEXT,
        facet      TEXT,
        key        TEXT,
        ts         REAL,
        payload    TEXT,
        dirty      INTEGER NOT NULL DEFAULT 0
    ) STRICT;
    CREATE INDEX records_kind ON records(kind, deleted, ts);
    CREATE INDEX records_persona ON records(domain, facet, key) WHERE kind = 'persona';
    CREATE INDEX records_key ON records(key);
    CREATE INDEX records_d_tag ON records(d_tag);
    CREATE INDEX records_dirty ON records(dirty) WHERE dirty = 1;

    -- rowid = records.rid
    CREATE VIRTUAL TABLE records_fts USING fts5(key, themes, value, tokenize = 'unicode61 remove_diacritics 0');

    -- NIP-09 requests of ours: by event id (e tags) or by d tag up to a time (a tags).
    CREATE TABLE deletions (
        request_id TEXT NOT NULL,
        target_id  TEXT,
        target_d   TEXT,
        created_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX deletions_id ON deletions(target_id);
    CREATE INDEX deletions_d ON deletions(target_d);

    -- Events written or imported here that relays have not yet acknowledged.
    CREATE TABLE outbox (
        event_id  TEXT PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
        queued_at INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE rejections (
        reason        TEXT PRIMARY KEY,
        count         INTEGER NOT NULL,
        last_event_id TEXT,
        last_at       INTEGER
    ) STRICT;
    "#,
    // 2: relays, what each has acknowledged, and how far each has been read.
    r#"
    CREATE TABLE relays (
        url        TEXT PRIMARY KEY,
        added_at   INTEGER NOT NULL,
        -- newest created_at fully read from this relay (0 = never)
        checkpoint INTEGER NOT NULL DEFAULT 0,
        last_sync  INTEGER,
        last_full  INTEGER,
        last_error TEXT,
        -- NIP-77 support: NULL unknown, 0 no, 1 yes
        negentropy INTEGER
    ) STRICT;

    -- An event this relay has confirmed holding (OK true, or served it to us).
    CREATE TABLE acks (
        event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
        relay    TEXT NOT NULL REFERENCES relays(url) ON DELETE CASCADE,
        acked_at INTEGER NOT NULL,
        PRIMARY KEY (event_id, relay)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX acks_relay ON acks(relay);
    "#,
    // 3: embeddings, and porter stemming in the full-text index.
    r#"
    ALTER TABLE records ADD COLUMN text_hash TEXT;
    ALTER TABLE records ADD COLUMN needs_vec INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX records_needs_vec ON records(needs_vec) WHERE needs_vec = 1;
    UPDATE records SET needs_vec = 1 WHERE deleted = 0 AND kind IN ('kv', 'journal', 'persona');

    -- One vector per record, for one model; a new version gets a new vid, so points of
    -- old versions left in the HNSW graph are recognised and skipped.
    CREATE TABLE vectors (
        vid       INTEGER PRIMARY KEY AUTOINCREMENT,
        rid       INTEGER NOT NULL UNIQUE REFERENCES records(rid) ON DELETE CASCADE,
        model     TEXT NOT NULL,
        text_hash TEXT NOT NULL,
        vec       BLOB NOT NULL
    ) STRICT;

    CREATE VIRTUAL TABLE records_fts_new USING fts5(key, themes, value, tokenize = 'porter unicode61 remove_diacritics 2');
    INSERT INTO records_fts_new (rowid, key, themes, value) SELECT rowid, key, themes, value FROM records_fts;
    DROP TABLE records_fts;
    ALTER TABLE records_fts_new RENAME TO records_fts;
    "#,
    // 4: finding vectors of another model without reading every vector.
    r#"
    CREATE INDEX vectors_model ON vectors(model);
    "#,
    // 5: the knowledge graph's learned edges (semantic, co-activated). Local: another
    // device's consolidation finds its own.
    r#"
    CREATE TABLE edges (
        a          TEXT NOT NULL,
        b          TEXT NOT NULL,
        kind       TEXT NOT NULL,
        weight     REAL NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (a, b, kind)
    ) STRICT, WITHOUT ROWID;
    "#,
    // 6: untrusted relays and clocks. Events dated too far ahead wait in a quarantine
    // until their time comes; relays that break a pass's rules are marked and backed off.
    r#"
    CREATE TABLE quarantine (
        id          TEXT PRIMARY KEY,
        created_at  INTEGER NOT NULL,
        json        TEXT NOT NULL,
        source      TEXT NOT NULL,
        received_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX quarantine_created ON quarantine(created_at);
    ALTER TABLE relays ADD COLUMN misbehaving TEXT;
    ALTER TABLE relays ADD COLUMN strikes INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE relays ADD COLUMN backoff_until INTEGER;
    "#,
    // 7: when a record's oldest unsigned access was recorded (system clock): accesses are
    // signed in batches, by age and count, not at the end of every command.
    r#"
    ALTER TABLE records ADD COLUMN dirty_at INTEGER;
    UPDATE records SET dirty_at = unixepoch() WHERE dirty = 1;
    "#,
    // 8: the agent's relay list (NIP-37), merged across devices: each relay ever listed,
    // with its last add and its last removal (0: never removed).
    r#"
    CREATE TABLE relay_list (
        url        TEXT PRIMARY KEY,
        added_at   INTEGER NOT NULL,
        removed_at INTEGER NOT NULL DEFAULT 0
    ) STRICT;
    INSERT INTO relay_list (url, added_at) SELECT url, added_at FROM relays;

    -- A relay's final refusal of an event (it holds its deletion, or a newer version):
    -- the event is settled for that relay, and a reconciliation does not send it again.
    ALTER TABLE acks ADD COLUMN refused TEXT;
    "#,
    // 9: episodes in the full-text index (engine::episodes): a journal entry's row holds
    // the text of its neighbours within an hour (3600 s: episodes::EPISODE_GAP), each
    // on its own line, in a column of its own.
    r#"
    CREATE VIRTUAL TABLE records_fts_new USING fts5(key, themes, value, context, tokenize = 'porter unicode61 remove_diacritics 2');
    INSERT INTO records_fts_new (rowid, key, themes, value, context) SELECT rowid, key, themes, value, '' FROM records_fts;
    DROP TABLE records_fts;
    ALTER TABLE records_fts_new RENAME TO records_fts;
    WITH j AS (
        SELECT rid, ts, json_extract(payload, '$.content') AS text FROM records
        WHERE kind = 'journal' AND deleted = 0 AND payload IS NOT NULL
    ), w AS (
        SELECT rid, ts, text,
               lag(ts) OVER o AS pts, lag(text) OVER o AS ptext,
               lead(ts) OVER o AS nts, lead(text) OVER o AS ntext
        FROM j WINDOW o AS (ORDER BY ts, rid)
    )
    UPDATE records_fts SET context = (
        SELECT trim(CASE WHEN w.ts - w.pts <= 3600.0 THEN w.ptext ELSE '' END || char(10) ||
                    CASE WHEN w.nts - w.ts <= 3600.0 THEN w.ntext ELSE '' END, char(10))
        FROM w WHERE w.rid = records_fts.rowid
    ) WHERE rowid IN (SELECT rid FROM j);
    "#,
    // 10: a time range without a kind (a search for "last week") read every record: the
    // kind index begins with the kind. Partial, on the time alone: an index that began
    // with `deleted` drew every `deleted = 0` lookup by rowid into reading all of it.
    r#"
    CREATE INDEX IF NOT EXISTS records_time ON records(ts) WHERE deleted = 0;
    "#,
    // 11: what consolidation's linking compared last (engine::links): a fingerprint of
    // each persona memory as it was compared, and the similar pairs chosen, so a cycle
    // compares only what changed since. Local, like the edges.
    r#"
    CREATE TABLE link_memo (
        rid         INTEGER PRIMARY KEY,
        fingerprint INTEGER NOT NULL
    ) STRICT;
    CREATE TABLE link_pairs (
        a     INTEGER NOT NULL,
        b     INTEGER NOT NULL,
        milli INTEGER NOT NULL,
        PRIMARY KEY (a, b)
    ) STRICT, WITHOUT ROWID;
    "#,
    // 12: a read of a relay cut short (its deadline, its allowance of events) goes on
    // where it stopped (engine::books::Resume): a new device with a large store gets all of
    // it over several passes instead of reading the same newest part each time.
    r#"
    ALTER TABLE relays ADD COLUMN resume_started INTEGER;
    ALTER TABLE relays ADD COLUMN resume_until INTEGER;
    ALTER TABLE relays ADD COLUMN resume_newest INTEGER;
    ALTER TABLE relays ADD COLUMN resume_full INTEGER;
    ALTER TABLE relays ADD COLUMN resume_dm INTEGER;
    "#,
    // 13: which full-text rows were written, in order (engine::doc_sizes): searches keep
    // each row's size in memory and re-read the sizes of the rows written since. Rids
    // only; trimmed as it grows.
    r#"
    CREATE TABLE fts_writes (
        seq INTEGER PRIMARY KEY,
        rid INTEGER NOT NULL
    ) STRICT;
    "#,
];

/// The schema version this build writes.
pub const LATEST: i64 = MIGRATIONS.len() as i64;

/// Brings the schema up to [`LATEST`]. Returns the version found, or `Err(found)` when
/// the file is newer than this build understands.
pub fn migrate(conn: &mut Connection) -> rusqlite::Result<Result<i64, i64>> {
    let found: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if found > LATEST {
        return Ok(Err(found));
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Exclusive)?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        tx.commit()?;
    }
    Ok(Ok(found))
}
