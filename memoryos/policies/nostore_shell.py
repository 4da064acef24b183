"""Passwords where commands and config files put them, with no "password:" before them.

A password keyword joined to its value is `nostore_keywords`' job. These are the places where the
keyword is a flag, a position or a markup tag instead:

- the password flags of well-known command-line tools: `mysql -p'x'`, `sshpass -p x`, `ldapsearch -w x`,
  `curl -u user:x`, `echo x | sudo -S`, `net use Z: \\\\srv\\share x /user:DOMAIN\\u`, and Oracle's
  `user/x@db` connect string (`sqlplus`, `jdbc:oracle:thin:`);
- an environment variable whose name ends in a password word (`PGPASSWORD=x`, `MYSQL_PWD=x`,
  `SSHPASS=x`), which the keyword tables cannot see inside one upper-case word;
- markup and code that name the key then the value: `<password>x</password>`,
  `define('DB_PASSWORD', 'x')`, `setdefault("smtp_password", "x")`;
- a `.pgpass` line (`host:port:database:user:password`) and a `pass:` key of a config file.

Every value must pass the keyword finder's strict test (`value_ok` as after a prose verb): a
placeholder (`$PW`, `<password>`, `****`), a variable name or a word of prose is not a password.
The finder returns the span of the value only; nothing here keeps or logs it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memoryos.policies.nostore_keywords import value_ok

# A value as a shell or a config file writes it: quoted, or a bare run up to the next space.
_ARG = r"(?:'(?P<sq>[^'\n]{3,128})'|\"(?P<dq>[^\"\n]{3,128})\"|(?P<bare>[^\s'\"|;&<>]{3,128}))"
# Windows passwords often hold "&", which ends a bare value of any other shell.
_WIN_ARG = r"(?:\"(?P<dq>[^\"\n]{3,128})\"|(?P<bare>[^\s\"]{3,128}))"
# A command line's other words, bounded so that a flag is looked for only on the command's own line.
_WORDS = r"(?:[ \t]+[^\s|;&]{1,200}){0,12}?"

_COMMANDS: tuple[re.Pattern[str], ...] = (
    # mysql, mariadb and their tools take the password glued to -p: "-p'x'", "-px" (never "-p x").
    re.compile(rf"(?<![\w\-])(?:mysql\w*|mariadb\w*)\b{_WORDS}[ \t]+-p{_ARG}"),
    re.compile(rf"(?<![\w\-])sshpass[ \t]+-p[ \t]*{_ARG}"),
    re.compile(rf"(?<![\w\-])smbclient\b{_WORDS}[ \t]+-U[ \t]*[^\s%'\"]{{1,64}}%{_ARG}"),
    re.compile(
        rf"(?<![\w\-])ldap(?:search|modify|add|delete|whoami|passwd|compare)\b{_WORDS}[ \t]+-w[ \t]+{_ARG}"
    ),
    re.compile(
        rf"(?<![\w\-])(?:curl|wget|http|https|xh)\b{_WORDS}[ \t]+(?:-u|--user)[ \t]*=?[ \t]*"
        r"['\"]?[^\s:'\"/@]{1,64}:(?P<bare>[^\s'\"@]{3,128})['\"]?(?=\s|$)"
    ),
    re.compile(rf"(?<![\w\-])echo[ \t]+{_ARG}[ \t]*\|[ \t]*sudo[ \t]+(?:-\w+[ \t]+)*-S\b"),
    re.compile(
        rf"(?i)(?<![\w\-])net[ \t]+use\b(?:[ \t]+[^\s/]\S{{0,200}}){{1,2}}?[ \t]+{_WIN_ARG}[ \t]+/user:"
    ),
    re.compile(rf"(?i)(?<![\w\-])net[ \t]+use\b{_WORDS}[ \t]+/user:\S{{1,128}}[ \t]+{_WIN_ARG}"),
    re.compile(
        r"(?:(?<![\w\-])(?:sqlplus|expdp|impdp|exp|imp|rman|sqlldr)[ \t]+(?:-\w+[ \t]+)*|jdbc:oracle:\w+:)"
        r"[\w$#]{1,64}/(?P<bare>[^\s/@'\"]{3,128})@"
    ),
)
# "PGPASSWORD='x'", "MYSQL_PWD=x", "export SSHPASS=x": one upper-case name ending in a password word.
_ENV_PASSWORD = re.compile(rf"(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*(?:PASSWORD|PASSWD|PWD|PASS)[ \t]*=[ \t]*{_ARG}")
# "<password>x</password>", "<db.password>x</db.password>": a markup element named after a password.
_ELEMENT = re.compile(
    r"<(?P<tag>[\w.:\-]{0,40}(?i:password|passwd|passphrase|pwd|secret|token|apikey|api_key))>"
    r"(?P<bare>[^<>\n]{3,128})</(?P=tag)>"
)
# "define('DB_PASSWORD', 'x')", "os.environ.setdefault("API_TOKEN", "x")": a quoted name, then its value.
_NAME_THEN_VALUE = re.compile(
    r"(?P<k>['\"])[\w.\-]{0,40}(?i:password|passwd|passphrase|pwd|secret|token|api_?key)(?P=k)"
    r"[ \t]*,[ \t]*(?:'(?P<sq>[^'\n]{3,128})'|\"(?P<dq>[^\"\n]{3,128})\")"
)
# A .pgpass line: host (or *), port (or *), database, user, password; the host names a machine.
_PGPASS = re.compile(
    r"(?m)^[ \t]*(?:[A-Za-z0-9.\-]*[A-Za-z][A-Za-z0-9.\-]*|\*):(?:\d{1,5}|\*):[^\s:]{1,64}:[^\s:]{1,64}:"
    r"(?P<bare>\S{4,128})[ \t]*$"
)
# "pass: x" as a key of a config file or of a "user: … / pass: …" pair; "pass" alone is too common
# an English word for the keyword tables, so the value must hold a digit and a letter or a symbol.
_PASS_KEY = re.compile(
    r"(?<![\w\-])(?i:pass)[ \t]*[:=][ \t]*"
    r"(?:'(?P<sq>[^'\n]{4,128})'|\"(?P<dq>[^\"\n]{4,128})\"|(?P<bare>\S{6,128}))"
)

# A cheap gate before `_COMMAND_WORD`, whose lookbehind is tried at every position of the text.
_COMMAND_HINT = re.compile(
    r"mysql|mariadb|sshpass|smbclient|ldap|curl|wget|https? -|xh |echo|net |sqlplus|expdp|impdp|exp |imp |"
    r"rman|sqlldr|jdbc:oracle:"
)
# Where a command of `_COMMANDS` can start: one pass finds them, and only there are the patterns tried.
_COMMAND_WORD = re.compile(
    r"(?<![\w\-])(?:mysql|mariadb|sshpass|smbclient|ldap|curl|wget|https?[ \t]|xh[ \t]|echo|(?i:net)[ \t]|"
    r"sqlplus|expdp|impdp|exp[ \t]|imp[ \t]|rman|sqlldr)|jdbc:oracle:"
)


def _value(match: re.Match[str]) -> tuple[int, int, bool] | None:
    for group, quoted in (("sq", True), ("dq", True), ("bare", False)):
        if group in match.re.groupindex and match.group(group) is not None:
            start, end = match.span(group)
            return start, end, quoted
    return None


def _credential(text: str, match: re.Match[str], keyword: str = "password") -> Iterator[tuple[int, int]]:
    found = _value(match)
    if found is None:
        return
    start, end, quoted = found
    if not quoted:
        while end > start and text[end - 1] in ".,;)]}":
            end -= 1
    if value_ok(text[start:end], keyword, True, 1, quoted):
        yield start, end


def _pass_value_ok(value: str) -> bool:
    """After "pass", a digit and a symbol or both cases: "pass: through", "pass = 12" are not passwords."""
    if not any(char.isdigit() for char in value) or value.isdigit():
        return False
    mixed_case = any(char.isupper() for char in value) and any(char.islower() for char in value)
    return mixed_case or not value.isalnum()


def _commands(text: str) -> Iterator[re.Match[str]]:
    for word in _COMMAND_WORD.finditer(text):
        for pattern in _COMMANDS:
            match = pattern.match(text, word.start())
            if match is not None:
                yield match
                break


def _pass_key(text: str, match: re.Match[str]) -> Iterator[tuple[int, int]]:
    found = _value(match)
    if found is not None and _pass_value_ok(text[found[0] : found[1]].rstrip(".,;")):
        yield from _credential(text, match)


def _element(text: str, match: re.Match[str]) -> Iterator[tuple[int, int]]:
    return _credential(text, match, match.group("tag"))


def find_command_passwords(text: str) -> Iterator[tuple[int, int]]:
    """Values of password flags, password variables, password elements, .pgpass lines and `pass:` keys."""
    folded = text.lower()
    keyed = "," in text and any(word in folded for word in ("pass", "pwd", "secret", "token", "key"))
    if _COMMAND_HINT.search(folded) is not None:
        for match in _commands(text):
            yield from _credential(text, match)
    runs = (
        ("PASS" in text or "PWD" in text, (_ENV_PASSWORD,), _credential),
        ("</" in text, (_ELEMENT,), _element),
        (keyed, (_NAME_THEN_VALUE,), _credential),
        (text.count(":") >= 4, (_PGPASS,), _credential),
        ("pass" in folded, (_PASS_KEY,), _pass_key),
    )
    for hinted, patterns, judge in runs:
        if hinted:
            for pattern in patterns:
                for match in pattern.finditer(text):
                    yield from judge(text, match)


# What sets each pattern off, for the hostile-input tests: each alone, repeated, must stay linear.
TRIGGERS: tuple[str, ...] = (
    "mysql -p", "mysql a -p'", "sshpass -p ", "smbclient -U a%", "ldapsearch -w ", "curl -u a:",
    "wget --user=", "echo a | sudo -S", "net use ", "/user:", "sqlplus a/", "jdbc:oracle:thin:a/",
    "PGPASSWORD=", "MYSQL_PWD='", "<password>", "</password>", "'DB_PASSWORD', '", "a:5432:*:",
    "pass: ", "pass=",
)  # fmt: skip
