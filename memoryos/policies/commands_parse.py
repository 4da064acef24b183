"""A raw command line as simple commands: split at the shell's separators outside quotes and
command substitutions, each split into shell words without redirections, with wrappers taken off
and what a shell or interpreter is given to run (`bash -lc '...'`, `cmd /c`, `eval $(...)`) read
in its place. Quoted text is one word, never a keyword.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from memoryos.policies import commands_shell as shell
from memoryos.policies.commands_targets import Simple

# `&` alone separates commands in cmd (`cd app & msbuild`) and backgrounds one in POSIX shells;
# in `2>&1`, `&>` and `>&` it is part of a redirection.
_SPLIT = re.compile(r"&&|\|\||[;|]|(?<![>&])&(?![>&])")
_EXTENSION = re.compile(r"\.(?:exe|cmd|bat|com|ps1|sh|py)$", re.IGNORECASE)


_REDIRECT = re.compile(r"^\d*(?:>>?|<)(?:&\d+)?$|^\d*(?:>>?|<)&?\S+$|^&>\S*$")


def _words(part: str) -> list[str]:
    """Shell words without redirections (`2>&1`, `> out.log`): they say where output goes."""
    try:
        words = shlex.split(part, comments=False, posix=True)
    except ValueError:  # an unbalanced quote: a half-typed command is still words
        words = part.split()
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif _REDIRECT.match(word):
            skip = word.strip("0123456789&") in (">", ">>", "<") and not word.endswith(("&1", "&2"))
        else:
            kept.append(word)
    return kept


def program_of(word: str) -> tuple[str, bool]:
    """The program's name and whether it is a script: `./scripts/deploy.sh` is (deploy, True),
    `.\\build.ps1` (build, True), `npm.cmd` (npm, False), `"C:\\...\\MSBuild.exe"` (msbuild, False)."""
    name = re.split(r"[/\\]", word)[-1]
    executable = bool(re.search(r"\.(?:exe|com)$", name, re.IGNORECASE))
    script = (name != word and not executable) or bool(re.search(r"\.(?:sh|ps1|py|bat)$", name, re.I))
    program = _EXTENSION.sub("", name).lower()
    return _ALIASES.get(program, program), script


#: Wrapper scripts that are the tool they wrap: `./mvnw package` is Maven's.
_ALIASES = {"mvnw": "mvn", "sbtx": "sbt", "python3": "python", "py": "python"}


def split_simple(command: str) -> list[str]:
    """The simple commands of a line, split at `&&`, `||`, `;`, `|` and `&` outside quotes and
    outside a command substitution `$( ... )`."""
    pieces, start, quote, index, nested = [], 0, "", 0, 0
    while index < len(command):
        char = command[index]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif command.startswith("$(", index) or (char == ")" and nested):
            nested += 1 if char == "$" else -1
        elif nested:
            pass
        elif (match := _SPLIT.match(command, index)) is not None:
            pieces.append(command[start:index])
            start = index = match.end()
            continue
        index += 1
    pieces.append(command[start:])
    return [p for p in pieces if p.strip()]


def _script_block(part: str, words: Sequence[str]) -> str | None:
    """What PowerShell's ForEach-Object (`%`) runs for each item: the text of its `{ ... }` block."""
    if not words or program_of(words[0])[0] not in ("foreach-object", "%", "foreach"):
        return None
    start, end = part.find("{"), part.rfind("}")
    return part[start + 1 : end] if 0 <= start < end else None


# `eval $(op signin)`, `export BW_SESSION="$(bw unlock --raw)"`, `$(aws ecr get-login)`: the
# substitution's command is what ran; the shell only evaluates or keeps what it printed.
_SUBSTITUTION = re.compile(
    r"^\s*(?:eval\s+|(?:source|\.)\s+(?=<)|(?:export\s+)?[A-Za-z_]\w*=)?([\"']?)"
    r"(?:[$<]\((?P<inner>.+)\)|`(?P<tick>[^`]+)`)\1\s*$"
)


def _subshell(part: str) -> str:
    """A piece of `(cd app && make test)` without the subshell's parentheses (or a `{ ...; }`
    group's braces) that the split left on it: `(cd app` is `cd app`, `make test)` is `make test`."""
    text = part.strip()
    text = re.sub(r"^(?:\(\s*|\{\s+)+", "", text) if not text.startswith("$(") else text
    for opening, closing in ("()", "{}"):  # only a closing mark the piece does not open itself
        while text.endswith(closing) and text.count(closing) > text.count(opening):
            text = text[:-1].rstrip()
    return text


def parts(command: str, depth: int = 0) -> list[Simple]:
    """The simple commands of a line, each with its wrappers taken off and what a shell or an
    interpreter is given to run read in its place (`bash -lc '...'`, `cmd /c`, `pwsh -File x.ps1`,
    `eval $(...)`)."""
    found: list[Simple] = []
    for piece in split_simple(command):
        part = _subshell(piece)
        substituted = _SUBSTITUTION.match(part) if depth < 4 else None
        if substituted is not None:
            found.extend(parts(substituted["inner"] or substituted["tick"], depth + 1))
            continue
        words = shell.unwrap(_words(shell.windows_paths(part.strip())))
        payload = shell.shell_payload(words) if depth < 4 else None
        if isinstance(payload, str):
            found.extend(parts(payload, depth + 1))
            continue
        words = payload or words
        block = _script_block(part, words)
        if block is not None and depth < 4:  # `... | ForEach-Object { dotnet nuget push $_ }`
            found.extend(parts(block, depth + 1))
        elif len(words) == 1 and " " in words[0] and depth < 4:  # `nix-shell --run "make test"`
            found.extend(parts(words[0], depth + 1))
        elif words:
            program, script = program_of(words[0])
            found.append(Simple(program, tuple(words[1:]), script or payload is not None, words[0]))
    return found
