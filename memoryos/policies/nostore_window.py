"""A credential keyword and its value a few words apart in one clause ("use this Snowflake password
whenever you connect as ETL_SVC: VpfvU%KGpxod3l", "my wifi password, in case you need it: hunter2x").

The keyword finder's other connectors join a keyword to its value directly or through a short
phrase (a preposition and three words, or four words before a verb). This one lets up to
`MAX_WINDOW_WORDS` words stand between them, so its tests are the strictest of all:

- the window stays inside one clause: no sentence punctuation, no line break, no conjunction that
  opens another clause ("I reset the password and the new host is db7-prod"), and with a verb as
  the separator no comma either;
- the keyword is not the modifier of a compound noun ("password manager", "token bucket", "API key
  rotation"): then the clause is about the manager, the bucket or the rotation, not a credential;
- the word just before the separator is not the label of another field ("..., ticket: OPS-4821");
- the value has none of the shapes that prose puts after a colon and that would pass a letters-
  and-digits test: versions, dates, times, numbers with a unit, ticket ids, host names.

Everything here is a pure test of words; nothing keeps or returns the text.
"""

from __future__ import annotations

import re

# Ten words: the gaps the other connectors miss are relative and conditional clauses ("whenever you
# connect to the warehouse as ETL_SVC" is eight words); past a dozen words a keyword rarely still
# governs the value, and the benchmark corpora gain no true detection from a wider window
# (bench/results/secrets.md, 2026-12-01).
MAX_WINDOW_WORDS = 10

# Nouns that a credential word modifies: "password manager", "token bucket", "key rotation".
COMPOUND_HEADS: frozenset[str] = frozenset(
    """
    manager managers policy policies reset resets rotation rotations bucket buckets length lengths
    requirement requirements rule rules strength hint hints field fields expiry expiration expires
    expired hash hashes hashing history prompt prompts change changes changed update updated
    complexity recovery generator generators vault vaults store storage file files format formats
    validation validator check checks count limit limits leak leaks breach breaches audit audits
    scope scopes lifetime ttl refresh endpoint endpoints url urls link links page pages form forms
    screen dialog flow flows issue issues ticket tickets error errors usage budget budgets size
    limiter economy economics bucketing spent price prices counts counter
    """.split()
)
# Words that open another clause; the value after them belongs to that clause. Not "or", which
# mostly joins nouns ("the wifi or guest password is x"), nor words that are also nouns or articles
# in another language ("car", Portuguese "o").
CLAUSE_OPENERS: frozenset[str] = frozenset(
    """
    and but so then because although though while whereas unless und aber weil denn et mais donc puis
    y pero porque mientras e ma perché mas porém
    """.split()
)
# Field labels that, just before the separator, name what the value is instead of the credential.
FIELD_LABELS: frozenset[str] = frozenset(
    """
    ticket issue ref reference id host hostname server url link uri path file see date due deadline
    eta time when version release build port size length count limit user username login email
    mail phone error code status note notes owner contact team channel region zone env branch commit
    tag colour colours color colors
    """.split()
)

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+.][0-9A-Za-z.]+)?|v\d+[a-z]?", re.IGNORECASE)
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DATE_TIME = re.compile(
    r"\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}(?:T\d{1,2}:\d{2}\S*)?|\d{1,2}:\d{2}(?::\d{2})?(?:am|pm|h|z)?"
    rf"|{_MONTH}[-/]?\d{{1,4}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?[-/]?{_MONTH}|q[1-4][-/]?\d{{2,4}}",
    re.IGNORECASE,
)
_QUANTITY = re.compile(
    r"[<>~≈]?\$?€?£?\d+(?:[.,]\d+)?(?:%|x|k|m|b|kb|mb|gb|tb|ms|s|sec|secs|min|mins|h|hr|hrs|d|day|days|"
    r"w|wk|wks|mo|mos|y|yr|yrs|chars?|characters?|digits?|bits?|bytes?|rps|qps|req|reqs|tokens?|"
    r"usd|eur|gbp|st|nd|rd|th)",
    re.IGNORECASE,
)
_TICKET = re.compile(r"[A-Z][A-Z0-9]{1,9}-\d{1,7}|#\d+")
_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
# Lower case only: host names are written so, and "Pa55.word" is a password.
_HOST = re.compile(r"[a-z0-9][a-z0-9\-]*(?:\.[a-z0-9\-]+)*\.[a-z]{2,12}")


def words(phrase: str) -> list[str]:
    """The letter words of a window, lower-cased ("ETL_SVC" gives "etl", "svc")."""
    return [word.casefold() for word in _WORD.findall(phrase)]


_TOKEN_PUNCTUATION = ",;:()\"'«»“”"


def opens_clause(window: str) -> bool:
    """Whether a conjunction in the window starts another clause ("password and the host is x").

    A conjunction is a whole word between spaces: the "e" of "e-mail" is no Portuguese "and"
    ("a minha senha do e-mail é x")."""
    return any(token.strip(_TOKEN_PUNCTUATION).casefold() in CLAUSE_OPENERS for token in window.split())


def window_ok(window: str, verb: bool) -> bool:
    """Whether the words between a keyword and its separator keep the keyword the subject.

    `window` is the text after the keyword up to the separator; `verb` is true when the separator
    is a prose verb ("is", "ist"), which a comma would leave in another clause.
    """
    if "\n" in window or (verb and "," in window):
        return False
    tokens = window.replace(",", " ").split()
    if not tokens or len(tokens) > MAX_WINDOW_WORDS:
        return False
    first, last = words(tokens[0]), words(tokens[-1])
    if first and first[0] in COMPOUND_HEADS:
        return False
    if last and last[-1] in FIELD_LABELS:
        return False
    return not opens_clause(window)


def prose_shape(value: str) -> bool:
    """Values that prose puts after a colon and that are no credential, though they mix letters and
    digits: "v2.4.1", "2026-12-04", "14:30", "12chars", "90days", "OPS-4821", "#a0a376", "db-01.internal"."""
    return any(
        pattern.fullmatch(value) is not None
        for pattern in (_VERSION, _DATE_TIME, _QUANTITY, _TICKET, _COLOUR, _HOST)
    )
