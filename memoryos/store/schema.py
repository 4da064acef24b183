"""The schema as named migrations. Each is applied once, in order, inside one transaction."""

from __future__ import annotations

SCHEMA_VERSION = 8

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
        # Ranking per scope (DESIGN §9): FTS5's bm25() counts every scope's documents, so the full-text
        # table gives way to per-scope postings with their own statistics, maintained by triggers in
        # the transaction that writes the unit. `terms` (JSON {term: frequency}, made by
        # memoryos.retrieval.terms) is NULL until the unit is indexed; the store indexes such rows in
        # the migration's transaction, so a store made by 0.1.0 opens with every unit searchable.
        "0005_search_per_scope",
        """
        DROP TRIGGER units_fts_insert;
        DROP TRIGGER units_fts_delete;
        DROP TRIGGER units_fts_update;
        DROP TABLE units_fts;
        ALTER TABLE units ADD COLUMN terms TEXT;
        ALTER TABLE units ADD COLUMN term_count INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX units_unindexed ON units (rowid) WHERE terms IS NULL;
        CREATE TABLE search_postings (
            scope_token TEXT NOT NULL,
            term TEXT NOT NULL,
            doc INTEGER NOT NULL,
            tf INTEGER NOT NULL,
            length INTEGER NOT NULL,
            PRIMARY KEY (scope_token, term, doc)
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE search_terms (
            scope_token TEXT NOT NULL,
            term TEXT NOT NULL,
            df INTEGER NOT NULL,
            PRIMARY KEY (scope_token, term)
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE search_scopes (
            scope_token TEXT PRIMARY KEY,
            docs INTEGER NOT NULL,
            length INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        CREATE TRIGGER units_search_insert AFTER INSERT ON units WHEN new.terms IS NOT NULL BEGIN
            INSERT INTO search_postings (scope_token, term, doc, tf, length)
                SELECT new.scope_token, key, new.rowid, value, new.term_count FROM json_each(new.terms);
            INSERT INTO search_terms (scope_token, term, df)
                SELECT new.scope_token, key, 1 FROM json_each(new.terms) WHERE true
                ON CONFLICT (scope_token, term) DO UPDATE SET df = df + 1;
            INSERT INTO search_scopes (scope_token, docs, length)
                SELECT new.scope_token, 1, new.term_count WHERE new.terms IS NOT NULL
                ON CONFLICT (scope_token) DO UPDATE SET docs = docs + 1, length = length + excluded.length;
        END;
        CREATE TRIGGER units_search_delete AFTER DELETE ON units WHEN old.terms IS NOT NULL BEGIN
            DELETE FROM search_postings WHERE scope_token = old.scope_token AND doc = old.rowid
                AND term IN (SELECT key FROM json_each(old.terms));
            UPDATE search_terms SET df = df - 1
                WHERE scope_token = old.scope_token AND term IN (SELECT key FROM json_each(old.terms));
            DELETE FROM search_terms WHERE scope_token = old.scope_token AND df <= 0
                AND term IN (SELECT key FROM json_each(old.terms));
            UPDATE search_scopes SET docs = docs - 1, length = length - old.term_count
                WHERE scope_token = old.scope_token AND old.terms IS NOT NULL;
            DELETE FROM search_scopes WHERE scope_token = old.scope_token AND docs <= 0;
        END;
        CREATE TRIGGER units_search_update AFTER UPDATE OF terms ON units BEGIN
            DELETE FROM search_postings WHERE scope_token = old.scope_token AND doc = old.rowid
                AND term IN (SELECT key FROM json_each(old.terms));
            UPDATE search_terms SET df = df - 1
                WHERE scope_token = old.scope_token AND term IN (SELECT key FROM json_each(old.terms));
            DELETE FROM search_terms WHERE scope_token = old.scope_token AND df <= 0
                AND term IN (SELECT key FROM json_each(old.terms));
            UPDATE search_scopes SET docs = docs - 1, length = length - old.term_count
                WHERE scope_token = old.scope_token AND old.terms IS NOT NULL;
            DELETE FROM search_scopes WHERE scope_token = old.scope_token AND docs <= 0;
            INSERT INTO search_postings (scope_token, term, doc, tf, length)
                SELECT new.scope_token, key, new.rowid, value, new.term_count FROM json_each(new.terms);
            INSERT INTO search_terms (scope_token, term, df)
                SELECT new.scope_token, key, 1 FROM json_each(new.terms) WHERE true
                ON CONFLICT (scope_token, term) DO UPDATE SET df = df + 1;
            INSERT INTO search_scopes (scope_token, docs, length)
                SELECT new.scope_token, 1, new.term_count WHERE new.terms IS NOT NULL
                ON CONFLICT (scope_token) DO UPDATE SET docs = docs + 1, length = length + excluded.length;
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
    (
        # PostgreSQL's 0007 makes its postings index covering and keeps per-term bounds for its
        # pruned ranking. Nothing to do here: search_postings is a WITHOUT ROWID table clustered
        # on (scope_token, term, doc), so its rows already are that covering index; and SQLite
        # ranks with the plain statement, which reads no bounds. Kept so that both backends apply
        # one list of migrations.
        "0007_search_term_bounds",
        "",
    ),
    (
        # Replies (memoryos/retrieval/replies.py): the turn a scope stored next after one of its
        # turns, by rowid (the insertion order; a page keeps its turn's rowid). One seek of this
        # index, however many rows other scopes wrote in between. SQLite appends the rowid to
        # every index anyway; it is named so that both backends declare the same index.
        "0008_scope_turn_order",
        """
        CREATE INDEX units_scope_turns ON units (user_scope, assistant_scope, rowid) WHERE tier != 'lpm';
        """,
    ),
)
