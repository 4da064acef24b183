"""What an audit learns from a store beyond its receipts: the key beside it and its head mark.

- **The key.** A store keeps its receipt key beside it (`<store>.receipt-key`). Auditing a store
  uses that key when the caller gives none and the file can be read, so a relinked forgery cannot
  pass on a chain that merely links; the report always says whether MACs were verified and, when
  not, why (`auditor.report.Macs`). One key verifies one audit: when the stores listed have
  different keys (or one has none), no key is guessed and the report says so.
- **The head mark** (`receipts.head`, `<store>.receipt-head`): the store's keyed record of the seq
  and link its chain had reached after its latest commit. Deleting the newest receipts leaves a
  chain that is intact as far as it goes; only the mark tells that it used to go further. Fewer
  receipts than the mark, or another receipt at its seq, is a finding (`uncertain`: receipts known
  to be missing are evidence that cannot be interpreted safely, like a seq gap); a mark that is
  damaged or does not verify under the key is a finding too. A store without a mark (made before
  marks existed) is noted in the report, not an error.

The mark is read before the outbox, so a commit that lands during the audit can only put the outbox
ahead of the mark (which is fine: the mark is a lower bound), never behind it.

A **PostgreSQL store** (`--db postgresql://...`) is read in one REPEATABLE READ, READ ONLY
transaction under the role its URL names (the auditor's own: SELECT on `receipt_outbox` and
`receipt_chains` is all it needs). Its key is the `receipt_key` table, which only the owning role
can read (another role passes --key-file), and its head mark is the chain head row, written in the
same transaction as the receipts it counts, read in the same snapshot as the outbox.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from auditor.engine import FILE_RUN, Outcome
from auditor.parse import from_object
from auditor.report import NO_KEY, Macs
from auditor.sources import AuditInputError, Item, is_store
from auditor.states import Finding, finding
from receipts import Line, link_hash, parse_line, read_key_file
from receipts.head import Head, HeadError, head_path, read_head
from receipts.outbox import open_outbox

__all__ = [
    "KEY_SUFFIX",
    "HeadCheck",
    "check_head",
    "check_heads",
    "choose_key",
    "compare_head",
    "key_path",
    "pg_items",
    "read_private_key",
    "stores_in",
]

KEY_SUFFIX = ".receipt-key"
GIVEN = "given"
_MARK_TRIES, _MARK_PAUSE_S = 3, 0.02

Source = tuple[str | os.PathLike[str], bool]  # (path, insist that it is a store)
Store = Path | str  # a store file, or a postgresql:// URL
URL_SCHEMES = ("postgresql://", "postgres://")


def is_url(source: object) -> bool:
    return isinstance(source, str) and source.startswith(URL_SCHEMES)


def _where(url: str) -> str:
    """A URL's server and database, without its user or password."""
    parts = urlsplit(url)
    return f"postgresql://{parts.hostname or 'localhost'}{f':{parts.port}' if parts.port else ''}{parts.path}"


class PgOutbox:
    """A PostgreSQL store's outbox in one read-only snapshot; errors are OSError, as for a file."""

    def __init__(self, conn: Any, source: str) -> None:
        self._conn = conn
        self.source = source

    def _rows(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        import psycopg

        try:
            return list(self._conn.execute(sql, params).fetchall())
        except psycopg.Error as exc:
            raise OSError(f"{self.source} has no readable receipt outbox ({type(exc).__name__})") from None

    def _line(self, seq: int, body: object) -> Line:
        raw = bytes(body) if isinstance(body, bytes | memoryview) else str(body).encode()
        return parse_line(raw, self.source, seq) or Line(self.source, seq, None, "empty outbox row")

    def raw_rows(self, after_seq: int = 0) -> Iterator[tuple[int, bytes]]:
        """(seq, body bytes) in seq order, a thousand rows a query."""
        last = after_seq
        while rows := self._rows(
            "SELECT seq, body FROM receipt_outbox WHERE seq > %s ORDER BY seq LIMIT 1000", (last,)
        ):
            for seq, body in rows:
                yield seq, bytes(body) if isinstance(body, bytes | memoryview) else str(body).encode()
            last = rows[-1][0]

    def lines(self, after_seq: int = 0) -> Iterator[Line]:
        for seq, raw in self.raw_rows(after_seq):
            yield self._line(seq, raw)

    def last(self) -> Line | None:
        rows = self._rows("SELECT seq, body FROM receipt_outbox ORDER BY seq DESC LIMIT 1")
        return self._line(*rows[0]) if rows else None

    def at(self, seq: int) -> Line | None:
        rows = self._rows("SELECT seq, body FROM receipt_outbox WHERE seq = %s", (seq,))
        return self._line(*rows[0]) if rows else None

    def head(self) -> Head | None:
        rows = self._rows("SELECT chain_id, seq, link FROM receipt_chains ORDER BY seq DESC LIMIT 1")
        return Head(str(rows[0][0]), int(rows[0][1]), str(rows[0][2])) if rows else None

    def key(self) -> bytes | str:
        try:
            rows = self._rows("SELECT key FROM receipt_key WHERE id = 1")
        except OSError:
            return f"this role cannot read the receipt key of {self.source}: pass --key-file"
        return bytes(rows[0][0]) if rows else f"{self.source} holds no receipt key: pass --key-file"


@contextmanager
def pg_outbox(url: str) -> Iterator[PgOutbox]:
    """A REPEATABLE READ, READ ONLY transaction on the store at `url` (OSError when unreachable)."""
    try:
        import psycopg
    except ImportError:
        raise OSError(
            "reading a postgresql:// store needs psycopg: pip install 'memoryos[postgres]'"
        ) from None
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise OSError(f"cannot connect to {_where(url)} ({type(exc).__name__})") from None
    try:
        try:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        except psycopg.Error as exc:  # the backend lost right after connecting
            raise OSError(f"cannot read {_where(url)} ({type(exc).__name__})") from None
        yield PgOutbox(conn, _where(url))
    finally:
        conn.close()


def pg_items(url: str, last_link: Callable[[], str | None]) -> Iterator[Item]:
    """The receipts of a PostgreSQL store, as auditor.sources yields a store file's."""
    try:
        with pg_outbox(url) as outbox:
            for line in outbox.lines():
                where = f"{outbox.source}#seq={line.number}"
                if line.receipt is None:
                    yield None, f"{where}: {line.error}"
                else:
                    yield from_object(line.receipt, last_link()), where
    except OSError as exc:
        raise AuditInputError(str(exc)) from None


def key_path(store: str | os.PathLike[str]) -> Path:
    """Where a store keeps its receipt key: beside it, as memoryos.open() creates it."""
    path = Path(store)
    return path.with_name(path.name + KEY_SUFFIX)


def stores_in(sources: Iterable[Source]) -> list[Store]:
    """The sources that are stores: every --db, and listed files that carry a SQLite header.
    A source that cannot be read is left to the reader, which reports it."""
    found: list[Store] = []
    for path, insist in sources:
        if is_url(path):
            found.append(str(path))
            continue
        source = Path(path)
        if insist or (source.is_file() and _readable_store(source)):
            found.append(source)
    return list(dict.fromkeys(found))


def _readable_store(path: Path) -> bool:
    try:
        return is_store(path)
    except OSError:
        return False


def read_private_key(path: str | os.PathLike[str]) -> bytes:
    """The key in `path`, refused (ValueError) when others may read or write the file, as ssh
    refuses such a private key: a key others can read may have signed a forgery."""
    mode = os.stat(path).st_mode & 0o777
    if mode & 0o077:
        raise ValueError(f"{path} is open to others (mode {mode:o}), so it is not trusted: chmod 600 it")
    return read_key_file(Path(path))


def _store_key(store: Store) -> bytes | str:
    """The key beside `store` (in it, for PostgreSQL), or why it cannot be used."""
    if isinstance(store, str):
        try:
            with pg_outbox(store) as outbox:
                return outbox.key()
        except OSError as exc:
            return str(exc)
    path = key_path(store)
    if not path.exists():
        return f"no key file beside {store} ({path.name}): pass --key-file"
    try:
        return read_private_key(path)
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    except ValueError as exc:
        return str(exc)


def _key_source(store: Store) -> str:
    return f"{_where(store)} (receipt_key)" if isinstance(store, str) else str(key_path(store))


def choose_key(given: bytes | None, stores: Sequence[Store]) -> tuple[bytes | None, Macs]:
    """The key that verifies this audit's MACs, and what the report says about it."""
    if given is not None:
        return given, Macs(True, GIVEN)
    if not stores:
        return None, NO_KEY
    found = [_store_key(store) for store in stores]
    keys = {key for key in found if isinstance(key, bytes)}
    problems = [why for why in found if isinstance(why, str)]
    if problems:  # verifying the other stores' receipts only would be a partial answer
        return None, Macs(False, None, problems[0])
    if len(keys) > 1:
        return None, Macs(False, None, "the stores have different keys: audit them one at a time")
    return keys.pop(), Macs(True, ", ".join(_key_source(store) for store in stores))


# ---- the head mark ------------------------------------------------------------------------------
@dataclass(frozen=True)
class HeadCheck:
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()


def _seqs(first: int, last: int) -> str:
    return f"seq {first}" if first == last else f"seqs {first}..{last} ({last - first + 1} receipts)"


def compare_head(
    store: str, head: Head, last_seq: int, at_mark: dict[str, object] | None
) -> tuple[Finding, ...]:
    """The mark against the outbox: `last_seq` is its highest seq (0 when empty), `at_mark` the
    receipt at the mark's seq (None when that row is missing or cannot be read). Pure."""
    if head.seq == 0:
        return ()
    if last_seq < head.seq:
        missing = _seqs(last_seq + 1, head.seq)
        reason = (
            f"{store}: {missing} missing: the store's head mark records seq {head.seq}, "
            f"the outbox ends at seq {last_seq}"
        )
        return (finding("evidence.truncated", (), reason),)
    if at_mark is None:
        reason = f"{store}: the receipt at seq {head.seq}, which the head mark records, is missing or bad"
        return (finding("evidence.truncated", (), reason),)
    rid = at_mark.get("receiptId")
    ids = (rid,) if isinstance(rid, str) else ()
    if at_mark.get("chainId") != head.chain_id:
        reason = f"{store}: the head mark is of chain {head.chain_id}, the receipt at seq {head.seq} is not"
        return (finding("evidence.head_mismatch", ids, reason),)
    if link_hash(at_mark) != head.link:
        reason = (
            f"{store}: the receipt at seq {head.seq} is not the one the head mark records "
            "(the chain was rewritten from there on)"
        )
        return (finding("evidence.head_mismatch", ids, reason),)
    return ()


def _read_mark(store: Path, key: bytes | None) -> Head | HeadCheck | None:
    try:
        for _ in range(_MARK_TRIES - 1):
            try:
                return read_head(store, key)
            except HeadError:
                time.sleep(_MARK_PAUSE_S)  # a rewrite in flight reads torn: look again before judging
        return read_head(store, key)
    except HeadError as exc:
        return HeadCheck((finding("evidence.head_invalid", (), f"{head_path(store)}: {exc}"),))
    except OSError as exc:
        why = exc.strerror or str(exc)
        return HeadCheck(notes=(f"{store}: cannot read its head mark {head_path(store)}: {why}",))


def _check_pg_head(url: str) -> HeadCheck:
    """The chain head row against the outbox, in one snapshot."""
    try:
        with pg_outbox(url) as outbox:
            mark = outbox.head()
            last = outbox.last()
            line = outbox.at(mark.seq) if mark is not None and mark.seq > 0 else None
            where = outbox.source
    except OSError as exc:
        return HeadCheck(notes=(f"{_where(url)}: its chain head was not compared: {exc}",))
    if mark is None:
        return HeadCheck(notes=(f"{where}: no chain head row yet (no receipts)",))
    found = compare_head(
        where, mark, 0 if last is None else last.number, None if line is None else line.receipt
    )
    return (
        HeadCheck(found)
        if found
        else HeadCheck(notes=(f"{where}: the chain head (seq {mark.seq}) matches the outbox",))
    )


def check_head(store: Store, key: bytes | None) -> HeadCheck:
    """Compare the store's head mark with its outbox; never raises (an unreadable outbox is the
    pass's finding, or its error, already)."""
    if isinstance(store, str):
        return _check_pg_head(store)
    mark = _read_mark(store, key)  # before the outbox: see the module's notes
    if isinstance(mark, HeadCheck):
        return mark
    if mark is None:
        return HeadCheck(
            notes=(
                f"{store}: no head mark ({head_path(store).name}): a store made before marks existed; "
                "deleted newest receipts cannot be detected",
            )
        )
    try:
        with open_outbox(store) as outbox:
            last = outbox.last()
            line = outbox.at(mark.seq) if mark.seq > 0 else None
    except OSError as exc:  # the pass over the receipts has reported this source already
        return HeadCheck(notes=(f"{store}: its head mark was not compared: {exc}",))
    last_seq = 0 if last is None else last.number
    found = compare_head(str(store), mark, last_seq, None if line is None else line.receipt)
    if found:
        return HeadCheck(found)
    trust = "" if key is not None else " (its MAC not verified: no key)"
    return HeadCheck(notes=(f"{store}: the head mark (seq {mark.seq}) matches the outbox{trust}",))


def check_heads(outcome: Outcome, stores: Iterable[Store], key: bytes | None) -> tuple[str, ...]:
    """Check every store's head mark: findings join the outcome (pseudo-run `-`), notes are returned."""
    notes: list[str] = []
    for store in stores:
        checked = check_head(store, key)
        if checked.findings:
            outcome.findings.setdefault(FILE_RUN, []).extend(checked.findings)
        notes.extend(checked.notes)
    return tuple(notes)
