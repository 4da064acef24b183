"""The schema as named migrations. Each is applied once, in order, inside one transaction."""

from __future__ import annotations

SCHEMA_VERSION = 6

MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "0001_initial",
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
        CREATE TABLE units (
            rowid INTEGER PRIMARY KEY,
            memory_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            tier TEXT NOT NULL CHECK (tier IN ('stm', 'mtm', 'lpm')),
            user_scope TEXT NOT NULL,
            assistant_scope TEXT NOT NULL,
            session TEXT,
            role TEXT,
            segment_id TEXT,
            list TEXT,
            key TEXT,
            kind TEXT,
            status TEXT NOT NULL DEFAULT 'active',
            body TEXT NOT NULL,
            confidence REAL,
            proof TEXT,
            source TEXT,
            reason TEXT,
            source_ids TEXT NOT NULL DEFAULT '[]',
            derived_from TEXT NOT NULL DEFAULT '[]',
            content_hash TEXT,
            created_at INTEGER NOT NULL,
            valid_from INTEGER NOT NULL,
            valid_until INTEGER,
            last_seen INTEGER NOT NULL,
            reinforced INTEGER NOT NULL DEFAULT 0,
            run_id TEXT NOT NULL,
            scope_token TEXT GENERATED ALWAYS AS
                ('s' || substr(user_scope, 1, 16) || substr(assistant_scope, 1, 16)) VIRTUAL,
            UNIQUE (memory_id, version)
        ) STRICT;
        CREATE INDEX units_stm ON units (user_scope, assistant_scope, created_at) WHERE tier = 'stm';
        CREATE INDEX units_key ON units (user_scope, assistant_scope, key, version) WHERE key IS NOT NULL;
        CREATE INDEX units_segment ON units (segment_id) WHERE segment_id IS NOT NULL;
        CREATE INDEX units_list ON units (user_scope, assistant_scope, list, content_hash)
            WHERE list IS NOT NULL;
        CREATE INDEX units_expiry ON units (valid_until)
            WHERE valid_until IS NOT NULL AND status != 'superseded';
        CREATE INDEX units_decay ON units (last_seen) WHERE kind IS NOT NULL;
        CREATE TABLE unit_sources (
            source_id TEXT NOT NULL,
            memory_id TEXT NOT NULL,
            PRIMARY KEY (source_id, memory_id)
        ) STRICT, WITHOUT ROWID;
        -- The scope is a token column of the index, so a query scores only its own scope's units.
        CREATE VIRTUAL TABLE units_fts USING fts5 (
            body, scope_token, content = 'units', content_rowid = 'rowid',
            tokenize = 'unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER units_fts_insert AFTER INSERT ON units BEGIN
            INSERT INTO units_fts (rowid, body, scope_token) VALUES (new.rowid, new.body, new.scope_token);
        END;
        CREATE TRIGGER units_fts_delete AFTER DELETE ON units BEGIN
            INSERT INTO units_fts (units_fts, rowid, body, scope_token)
                VALUES ('delete', old.rowid, old.body, old.scope_token);
        END;
        CREATE TRIGGER units_fts_update AFTER UPDATE OF body ON units BEGIN
            INSERT INTO units_fts (units_fts, rowid, body, scope_token)
                VALUES ('delete', old.rowid, old.body, old.scope_token);
            INSERT INTO units_fts (rowid, body, scope_token) VALUES (new.rowid, new.body, new.scope_token);
        END;
        CREATE TABLE segments (
            segment_id TEXT PRIMARY KEY,
            user_scope TEXT NOT NULL,
            assistant_scope TEXT NOT NULL,
            keywords TEXT NOT NULL,
            summary TEXT NOT NULL,
            visits INTEGER NOT NULL DEFAULT 0,
            interactions INTEGER NOT NULL DEFAULT 0,
            last_visit_at INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            version INTEGER NOT NULL DEFAULT 1
        ) STRICT;
        CREATE INDEX segments_scope ON segments (user_scope, assistant_scope);
        CREATE TABLE intents (
            run_id TEXT PRIMARY KEY,
            boundary TEXT NOT NULL,
            subject_id TEXT NOT NULL,
            subject_version INTEGER NOT NULL,
            owner TEXT NOT NULL,
            started_at INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE tombstones (
            memory_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            tier TEXT NOT NULL,
            user_scope TEXT NOT NULL,
            assistant_scope TEXT NOT NULL,
            key_hash TEXT,
            reason TEXT NOT NULL,
            at INTEGER NOT NULL,
            PRIMARY KEY (memory_id, version)
        ) STRICT;
        CREATE TABLE receipt_outbox (
            seq INTEGER PRIMARY KEY,
            chain_id TEXT NOT NULL,
            receipt_id TEXT NOT NULL UNIQUE,
            run_id TEXT NOT NULL,
            link TEXT NOT NULL,
            body BLOB NOT NULL
        ) STRICT;
        CREATE INDEX receipt_outbox_run ON receipt_outbox (run_id);
        CREATE TABLE export_cursors (name TEXT PRIMARY KEY, seq INTEGER NOT NULL) STRICT;
        """,
    ),
    (
        # Several workers may find the same hot segment: the first to commit its intent claims it.
        "0002_one_open_intent_per_subject",
        """
        CREATE UNIQUE INDEX intents_subject ON intents (subject_id);
        """,
    ),
    (
        # Captured activity waits here for a person's approval before it enters the typed drawer.
        "0003_candidates",
        """
        CREATE TABLE candidates (
            candidate_id TEXT PRIMARY KEY,
            user_scope TEXT NOT NULL,
            assistant_scope TEXT NOT NULL,
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            body TEXT NOT NULL,
            proof TEXT,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
            created_at INTEGER NOT NULL,
            decided_at INTEGER,
            memory_id TEXT
        ) STRICT;
        CREATE INDEX candidates_scope ON candidates (user_scope, assistant_scope, status, created_at);
        """,
    ),
    (
        # Summaries leave the promotion: maintain() (or a worker, with a model) writes them later, so a
        # segment records which of its versions its summary describes. Pages get notes: a summary and
        # the earlier page they continue. A note goes with its page.
        "0004_summaries_off_the_request_path",
        """
        ALTER TABLE segments ADD COLUMN summary_version INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE segments ADD COLUMN summary_degraded INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE page_notes (
            memory_id TEXT PRIMARY KEY,
            segment_id TEXT NOT NULL,
            summary TEXT NOT NULL,
            follows TEXT,
            degraded INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX page_notes_follows ON page_notes (follows) WHERE follows IS NOT NULL;
        CREATE TRIGGER page_notes_gone AFTER DELETE ON units WHEN old.tier = 'mtm' BEGIN
            DELETE FROM page_notes WHERE memory_id = old.memory_id;
            UPDATE page_notes SET follows = NULL WHERE follows = old.memory_id;
        END;
        """,
    ),
    (
        # Bounded work per promotion (issue 12). A segment records how many pages it holds (a full
        # one takes no more) and the last page its distillation has read (by rowid, the insertion
        # order): the next distillation reads only the pages after it. An existing segment's
        # `interactions` counted the pages joined since its last distillation, so its newest
        # `interactions` pages are the undistilled ones.
        "0006_incremental_distillation",
        """
        ALTER TABLE segments ADD COLUMN pages INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE segments ADD COLUMN distilled_through INTEGER NOT NULL DEFAULT 0;
        UPDATE segments SET pages = counted.n
            FROM (SELECT segment_id AS sid, count(*) AS n FROM units WHERE segment_id IS NOT NULL
                  GROUP BY segment_id) AS counted
            WHERE counted.sid = segments.segment_id;
        UPDATE segments SET distilled_through = newest.page
            FROM (SELECT rowid AS page, segment_id AS sid,
                         row_number() OVER (PARTITION BY segment_id ORDER BY rowid DESC) AS n
                  FROM units WHERE segment_id IS NOT NULL) AS newest
            WHERE newest.sid = segments.segment_id AND newest.n = segments.interactions + 1;
        CREATE INDEX segments_open ON segments (user_scope, assistant_scope, pages);
        CREATE INDEX segments_stale ON segments (last_visit_at DESC, segment_id)
            WHERE summary_version != version;
        """,
    ),
)
