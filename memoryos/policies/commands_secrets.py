"""Credential shapes on a command line: a password, token or key written into the command itself
(a flag's value, an inline variable, a connect string, a URL's userinfo, a literal piped into a
login). A reference to a secret (`$NPM_TOKEN`, `$env:KEY`, `%PW%`, `@key.json`, `--password-stdin`,
`-Credential $cred`) is not one: the command shows where the secret lives, not what it is.
Pure data and one function; `memoryos.policies.commands` re-exports both.
"""

from __future__ import annotations

import re

# A value that only names where the secret is: a shell, PowerShell or cmd variable, a command
# substitution, a file given with @.
_NOT_A_REFERENCE = r"(?![\"']?(?:\$|%\w+%|@[\w./~-]))"
_SECRET_FLAG_NAMES = (
    r"password|passwd|pass|pwd|pw|token|secret|api-key|apikey|nugetapikey|client-secret|clientsecret|"
    r"auth-token|access-token|accesstoken|secret-key|secretkey|access-key|accesskey|account-key|"
    r"accountkey|sas-token|sastoken|private-key-password|key-password|certificatepassword|"
    r"keystore-password|storepass|keypass|personal-access-token|otp|passphrase"
)

#: The names with `_` as well as `-` between their parts: `--secret_key`, `--api_key`, `--db_password`.
_SECRET_FLAG_NAMES = _SECRET_FLAG_NAMES.replace("-", "[-_]?")
#: A value that is not a port or other bare number: `-p 5432` is a port for most clients.
_NOT_A_NUMBER = r"(?!\d+(?:[\s\"'`]|$))"
#: A value of one or two characters is a placeholder, never a secret: Azure Artifacts' documented
#: `--api-key az`, `--token x` for a feed that ignores it.
_NOT_A_PLACEHOLDER = r"(?!\S{1,2}(?:[\s\"'`]|$))"
#: Remote-desktop, file-share and admin clients whose `-p` is the password.
_DASH_P_PASSWORD = (
    r"rdesktop|smbclient|ncftp\w*|lftp|sqsh|dbisql|nzsql|psexec|paexec|evil-winrm|crackmapexec|"
    r"impacket-\w+|vncviewer|xfreerdp|wfreerdp"
)

SECRET_FLAGS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "secret:inline_env",
        re.compile(
            r"(?<!-)\b[A-Z_]*(?:PASSWORD|PASSWD|PASS|PWD|PW|TOKEN|SECRET|API_KEY|APIKEY|ACCESS_KEY|AUTH|CREDENTIALS?|"
            r"ACCOUNTKEY|SHAREDACCESSKEY|SHAREDACCESSSIGNATURE)=" + _NOT_A_REFERENCE + r"\S+",
            re.IGNORECASE,
        ),
    ),
    (
        "secret:password_flag",
        re.compile(
            rf"(?:^|\s)--?(?:[A-Za-z0-9]+[-_])*(?:{_SECRET_FLAG_NAMES})(?:=|:|\s+){_NOT_A_REFERENCE}(?!-)"
            + _NOT_A_PLACEHOLDER
            + r"\S+",
            re.IGNORECASE,
        ),
    ),
    # -p glued to its value is a password for MySQL's tools (a lone -p makes them prompt)
    (
        "secret:password_flag",
        re.compile(r"\b(?:mysql|mariadb|mysqldump|mysqladmin|mysqlsh)\b.*\s-p(?=[^\s`])\S+"),
    ),
    (
        "secret:password_flag",
        re.compile(r"\b(?:sqlcmd|bcp|osql|isql|tsql)\b.*\s-P\s*" + _NOT_A_REFERENCE + r"(?=[^\s`-])\S+"),
    ),
    # -p VALUE is the password (not the port) for these shells; vsql's is -w
    (
        "secret:password_flag",
        re.compile(
            r"\b(?:hdbsql|cqlsh|cypher-shell|cbq|beeline|mongo|mongosh)\b.*\s-p\s*"
            + _NOT_A_REFERENCE
            + r"(?=[^\s`-])\S+"
        ),
    ),
    # unixODBC's `isql DSN USER PASSWORD`: the third word is the password
    (
        "secret:password_flag",
        re.compile(r"\bisql\b(?:\s+-\w+)*\s+[^-\s]\S*\s+[^-\s]\S*\s+" + _NOT_A_REFERENCE + r"[^-\s]\S*"),
    ),
    ("secret:password_flag", re.compile(r"\bvsql\b.*\s-w\s*" + _NOT_A_REFERENCE + r"(?=[^\s`-])\S+")),
    # Apple's uploaders take the Apple ID's (app-specific) password as -p: `xcrun altool -u x -p VALUE`
    # (`-p @keychain:NAME` names a keychain item)
    (
        "secret:password_flag",
        re.compile(
            r"\b(?:altool|itmstransporter|iTMSTransporter)\b.*\s-p\s*" + _NOT_A_REFERENCE + r"(?=[^\s`-])\S+"
        ),
    ),
    # knife's -P is the ssh or WinRM password (`knife ssh`, `knife winrm`, `knife bootstrap`)
    ("secret:password_flag", re.compile(r"\bknife\b.*\s-P\s*" + _NOT_A_REFERENCE + r"(?=[^\s`-])\S+")),
    # the short flag is the password or token of these publishers (`twine upload -p`, `vsce publish -p`,
    # `nuget push -k`)
    (
        "secret:password_flag",
        re.compile(
            r"\b(?:twine|poetry|vsce|ovsx|pdm|hatch|flit)\b.*\s-p\s*" + _NOT_A_REFERENCE + r"(?=[^\s`-])\S+"
            r"|\bnuget\b.*\spush\b.*\s-k\s+" + _NOT_A_REFERENCE + r"\S+"
        ),
    ),
    # a quoted literal given to a variable named for a secret: `$env:PGPASSWORD = "x"`, `$token = 'x'`
    (
        "secret:variable",
        re.compile(
            r"\$(?:env:)?\w*(?:pass|pwd|pw|token|secret|apikey|api_key|cred)\w*\s*=\s*([\"'])(?!\$)[^\"'$]+\1",
            re.IGNORECASE,
        ),
    ),
    ("secret:password_flag", re.compile(r"\b(?:redis-cli\b.*\s-a|sshpass\s+-p|htpasswd\s+-b\S*)\s+\S+")),
    (
        "secret:password_flag",
        re.compile(
            r"\b(?:docker|podman|nerdctl|buildah|az|oc|cf\d?|oras|helm\s+registry)\s+login\b.*\s-p\s*\S+"
        ),
    ),
    ("secret:password_flag", re.compile(r"\bcf\d?\s+auth\s+\S+\s+" + _NOT_A_REFERENCE + r"(?!-)\S+")),
    ("secret:password_flag", re.compile(r"\bdb2\b.*\busing\s+" + _NOT_A_REFERENCE + r"\S+", re.IGNORECASE)),
    ("secret:password_flag", re.compile(r"\s/pass(?:word)?:" + _NOT_A_REFERENCE + r"\S+", re.IGNORECASE)),
    # Oracle's user/password@service (sqlplus, rman, sqlldr, expdp, ...): `sqlplus / as sysdba` has none
    (
        "secret:connect_string",
        re.compile(
            r"\b(?:sqlplus|sqlldr|rman|expdp|impdp|exp|imp|dgmgrl|clpplus|sql)\b[^|;&]*?\s[\"']?[A-Za-z][\w$#.]*/"
            r"(?![/\s])" + _NOT_A_REFERENCE + r"[\"']?[^\s@/\"']+[\"']?(?:@|[\"']?(?:\s|$))",
            re.IGNORECASE,
        ),
    ),
    # a password in a URL's userinfo: scheme://user:password@host, and mysqlsh's user:password@host
    (
        "secret:url_password",
        re.compile(r"\b[a-z][\w+.-]*://[^/\s:@]*:" + _NOT_A_REFERENCE + r"[^@\s/]+@", re.I),
    ),
    (
        "secret:url_password",
        re.compile(
            r"\b(?:mysqlsh|mysql|mongosh|mongo)\b.*?[\s=][\"']?[\w.-]+:" + _NOT_A_REFERENCE + r"[^@\s/:]+@"
        ),
    ),
    ("secret:url_password", re.compile(r"[?&]sig=[^&\s]{10,}", re.IGNORECASE)),
    # a literal piped into something that reads a password from its input
    (
        "secret:piped_literal",
        re.compile(
            r"\b(?:echo|printf)\s+(?:-\w+\s+)*" + _NOT_A_REFERENCE + r"[^|$]+\|\s*(?:\S*/)?"
            r"(?:kinit\b|sudo\s+-S\b|chpasswd\b|passwd\b|\S+(?:\s+\S+)*\s+--password-stdin\b)"
        ),
    ),
    (
        "secret:plaintext",
        re.compile(r"ConvertTo-SecureString\s+(?:-String\s+)?([\"'])(?!\$)[^\"']+\1", re.IGNORECASE),
    ),
    # user:password after -u (curl); a JDBC or other URL after -u (beeline) is an address
    ("secret:basic_auth", re.compile(r"\s(?:-u|--user)\s+[^\s:/]+:(?!//)(?![\w+.-]*://)[^\s`]+")),
    ("secret:auth_header", re.compile(r"\bauthorization\s*:\s*\S+", re.IGNORECASE)),
    ("secret:auth_header", re.compile(r"\b(?:x-api-key|api-key|private-token)\s*:\s*\S+", re.IGNORECASE)),
    ("secret:literal", re.compile(r"--from-literal=\S*(?:pass|token|secret|key)\S*=\S+", re.IGNORECASE)),
    ("secret:configure", re.compile(r"\baws\s+configure\s+set\s+\S*(?:secret|token|key)\S*\s+\S+", re.I)),
    ("secret:token_arg", re.compile(r"\b(?:vault|gh|npm|heroku)\s+(?:login|auth)\s+(?!-)[\w.-]{12,}")),
    ("secret:auth_token", re.compile(r"_authToken=\S+|:_password=\S+", re.IGNORECASE)),
    ("secret:pass_arg", re.compile(r"-pass(?:in|out)?\s+pass:\S+", re.IGNORECASE)),
    # `<tool> login -u bob -p VALUE`: after a login verb, -p is the password whatever the tool (a
    # bare number is a port)
    (
        "secret:password_flag",
        re.compile(
            r"\b(?:login|logon|signin)\b[^`|;&]*\s-p\s+"
            + _NOT_A_REFERENCE
            + _NOT_A_NUMBER
            + r"(?=[^\s`-])\S+"
        ),
    ),
    (
        "secret:password_flag",
        re.compile(
            rf"\b(?:{_DASH_P_PASSWORD})\b[^`|;&]*\s-p\s*"
            + _NOT_A_REFERENCE
            + _NOT_A_NUMBER
            + r"(?=[^\s`-])\S+"
        ),
    ),
    # FreeRDP's `/p:VALUE` (never MSBuild's `/p:Name=Value`), `net use ... /user:DOMAIN\\bob VALUE`
    ("secret:password_flag", re.compile(r"(?:^|\s)/p:(?![^\s=]*=)" + _NOT_A_REFERENCE + r"\S+", re.I)),
    (
        "secret:password_flag",
        re.compile(r"\bnet\s+use\b.*\s/user:\S+\s+(?![/*])" + _NOT_A_REFERENCE + r"\S+", re.I),
    ),
    # SteamCMD's `+login USER PASSWORD`, redis' `AUTH [user] PASSWORD` given on the command line
    ("secret:password_arg", re.compile(r"\+login\s+\S+\s+(?![+$])\S+")),
    ("secret:password_arg", re.compile(r"\bredis-cli\b.*\s(?:AUTH|auth)\s+" + _NOT_A_REFERENCE + r"\S+")),
    # smbclient's `-U user%password`, lftp's `-u user,password`
    ("secret:basic_auth", re.compile(r"\s(?:-U|--user(?:name)?[= ])\s*[^\s%]+%(?!\$)\S+")),
    ("secret:basic_auth", re.compile(r"\blftp\b.*\s-u\s+[^\s,]+,(?!\$)\S+")),
    # a key, licence or credential given by value (never a file: `--key tls.key`, `--key ~/.ssh/x`)
    (
        "secret:key_flag",
        re.compile(
            r"(?:^|\s)--?(?:[A-Za-z0-9]+[-_])*(?:key|license|licence|auth|credentials?|creds?)(?:=|\s+)"
            + _NOT_A_REFERENCE
            + r"(?![^\s]*[/\\])(?![^\s]*\.[A-Za-z]{2,4}(?:\s|$))"
            + r"(?=[^\s]*\d)[A-Za-z0-9+=_-]{8,}(?=[\s`\"']|$)",
            re.IGNORECASE,
        ),
    ),
    # an upload token given as a UUID (`codecov -t 3f2504e0-...`)
    ("secret:token_arg", re.compile(r"\s-t\s+[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b", re.I)),
    # a long random word right after a login verb: a token pasted as the login's argument
    (
        "secret:token_arg",
        re.compile(
            r"\b(?:login|auth|authenticate)\s+(?!-)(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{20,}(?=[\s`\"']|$)"
        ),
    ),
)


def secret_reason(text: str) -> str | None:
    """The reason code of the first credential shape found on a command line, or None."""
    return next((reason for reason, pattern in SECRET_FLAGS if pattern.search(text)), None)
