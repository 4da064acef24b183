"""How a simple command's words reach the program that does the work: wrappers taken off (sudo,
env, `VAR=value`, npx, `poetry run`, `op run --`, `timeout 60`, `docker compose run app`, `kubectl
exec pod --`, PowerShell's `&` call operator), and Windows paths read as paths. Pure functions over
the tables of `commands_vocab`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryos.policies import commands_vocab as vocab

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# `&` is PowerShell's call operator and `.` its dot-sourcing; `call` is cmd's.
WRAPPERS = frozenset(
    {"sudo", "env", "time", "nohup", "command", "exec", "doas", "nice", "caffeinate", "&", ".", "call"}
)
_WRAPPER_VALUED = frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-n"})
EXECUTORS = frozenset({"npx", "pnpx", "bunx"})  # always start the program named next
RUNNERS = frozenset(
    {"poetry", "pipenv", "uv", "pdm", "rye", "bundle", "conda", "hatch", "pixi"}
)  # with `run`
PY_TOOLS = frozenset({"pytest", "unittest", "build", "tox", "nox", "doctest", "nose2", "green"})
#: What `poetry run test` runs is the project's `test` script, not the shell's `test` builtin.
_TASK_NAMES = frozenset("test tests build deploy release publish lint check e2e".split())
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "pwsh", "powershell", "cmd"})
_SHELL_COMMAND = frozenset({"-c", "-lc", "-ic", "-command", "/c", "/k", "/s/c", "-encodedcommand"})
#: Interpreters whose first argument, when it is a file, is the script that does the work.
INTERPRETERS = frozenset({"python", "python3", "py", "node", "ruby", "php", "perl", "deno", "bun"})
_SCRIPT_FILE = re.compile(r"[/\\]|\.(?:sh|bash|zsh|ps1|psm1|bat|cmd|py|js|mjs|cjs|ts|rb|php|pl)$", re.I)

_UNC = re.compile(r"(?<![\w\\])\\\\(?=\w)")
_BACKSLASH = re.compile(r"\\(?=[A-Za-z0-9_.\-])")


def windows_paths(part: str) -> str:
    r"""`C:\tools\x.exe`, `.\build.ps1` and `\\server\share` with forward slashes: a POSIX reading
    of the line would take each backslash for an escape and glue the path's parts together.
    `\"`, `\$` and `\ ` stay escapes."""
    return _BACKSLASH.sub("/", _UNC.sub("//", part))


def base(word: str) -> str:
    """A program's name: its path's last part, lower case, without `.exe`/`.cmd`/`.bat`/`.com`."""
    name = re.split(r"[/\\]", word)[-1].lower()
    return re.sub(r"\.(?:exe|cmd|bat|com)$", "", name)


def _skip_options(words: Sequence[str], valued: frozenset[str]) -> int:
    """The index of the first word after the options (and `--`) at the start of `words`."""
    index = 0
    while index < len(words) and (words[index].startswith("-") or _ASSIGNMENT.match(words[index])):
        if words[index] == "--":
            return index + 1
        index += 2 if words[index] in valued and "=" not in words[index] else 1
    return index


def _after_dashdash(words: Sequence[str]) -> list[str] | None:
    return list(words[words.index("--") + 1 :]) if "--" in words else None


def _leading_wrappers(words: list[str]) -> list[str]:
    """Without sudo (and its options), env, VAR=value: `sudo -u deploy ./release.sh` runs release.sh."""
    wrapped = False
    while words and (words[0] in WRAPPERS or _ASSIGNMENT.match(words[0]) or words[0].startswith("-")):
        if wrapped and words[0] in _WRAPPER_VALUED and len(words) > 1:
            words = words[1:]
        wrapped = wrapped or words[0] in WRAPPERS
        words = words[1:]
    return words


def _container_inner(words: list[str]) -> list[str] | None:
    """The command run inside a container or pod, or None when only the container is started
    (`docker run -d nginx` starts a service; `docker compose run --rm app make build` builds)."""
    program = base(words[0])
    rest = words[1:]
    if program in ("kubectl", "oc") and rest[:1] == ["exec"]:
        return _after_dashdash(rest)
    if program not in vocab.CONTAINER_TOOLS:
        return None
    start = _skip_options(rest, vocab.CONTAINER_VALUED)
    subs = rest[start : start + 2]
    if program.endswith("compose") and subs[:1] in (["run"], ["exec"]):
        rest = rest[start + 1 :]
    elif subs in (["compose", "run"], ["compose", "exec"], ["container", "run"], ["container", "exec"]):
        rest = rest[start + 2 :]
        if subs[0] == "compose":
            rest = rest[_skip_options(rest, vocab.CONTAINER_VALUED) :]
            rest = rest[1:] if rest[:1] in (["run"], ["exec"]) else rest
    elif subs[:1] in (["run"], ["exec"]):
        rest = rest[start + 1 :]
    else:
        return None
    rest = rest[_skip_options(rest, vocab.CONTAINER_VALUED) :]
    inner = rest[1:]  # after the image, container or service
    return inner or None


def _nix_inner(program: str, rest: list[str]) -> list[str] | None:
    """`nix develop -c make`, `nix shell nixpkgs#go -c go build`, `nix-shell --run "make test"`."""
    if program == "nix" and rest[:1] in (["develop"], ["shell"]):
        marks = [i for i, w in enumerate(rest) if w in ("-c", "--command")]
        return rest[marks[0] + 1 :] if marks else None
    if program == "nix-shell" and "--run" in rest:
        return rest[rest.index("--run") + 1 :][:1] or None
    return None


#: Runners that start the program named after their options, with the options that take a value:
#: xargs runs it on the items it reads, xcrun finds an Xcode tool.
_ITEM_RUNNERS = {
    "xargs": frozenset(
        "-I -n -P -L -d -s -a -E --max-args --max-procs --max-lines --delimiter --replace "
        "--arg-file --eof --max-chars --process-slot-var".split()
    ),
    "xcrun": frozenset({"-sdk", "--sdk", "--toolchain", "-toolchain"}),
    # `sshpass -e ssh host`: the ssh it starts (a `-p` password is refused on the whole line)
    "sshpass": frozenset({"-p", "-f", "-d", "-P"}),
    # GNU parallel: `parallel -j4 pytest {} ::: tests/unit tests/api`
    "parallel": frozenset(
        "-j --jobs -a --arg-file --joblog -N -n --max-args --delay --timeout --results --tmpdir -S "
        "--sshlogin --colsep -d --delimiter -I --memfree --load --retries".split()
    ),
}


def _positional_inner(program: str, rest: list[str]) -> list[str] | None:
    """`timeout 60 X`, `... | xargs -n 1 pytest -q`, `xcrun -sdk iphoneos xcodebuild`."""
    if program in _ITEM_RUNNERS:
        return rest[_skip_options(rest, _ITEM_RUNNERS[program]) :] or None
    start = _skip_options(rest, vocab.RUNNER_VALUED) + vocab.POSITIONAL_RUNNERS[program]
    return rest[start:] or None


def _runner_inner(words: list[str]) -> list[str] | None:
    """The command a runner starts: `op run -- X`, `timeout 60 X`, `pipx run X`, `nix develop -c X`."""
    program, rest = base(words[0]), words[1:]
    if program in vocab.DASHDASH_RUNNERS:
        return _after_dashdash(rest)
    if program in vocab.POSITIONAL_RUNNERS or program in _ITEM_RUNNERS:
        return _positional_inner(program, rest)
    if program in ("nix", "nix-shell"):
        return _nix_inner(program, rest)
    skip = vocab.SUB_RUNNERS.get((program, rest[0].lower() if rest else ""))
    if skip is None or skip == -2:
        return None
    if skip == -1:
        return rest  # `ibmcloud cf push`: a cf command
    after = rest[1:]
    return _named_package(program, after[_skip_options(after, vocab.RUNNER_VALUED) + skip :])


def _named_package(program: str, inner: list[str]) -> list[str] | None:
    """`pnpm dlx netlify-cli deploy`: a package a JS manager runs is named for its tool."""
    if inner and program in _JS_MANAGERS:
        return [package_tool(inner[0]), *inner[1:]]
    return inner or None


_JS_MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun"})


def package_tool(name: str) -> str:
    """The tool an npm package starts: `netlify-cli@17` is netlify, `@railway/cli` railway,
    `vercel@latest` vercel (a package named `<tool>-cli` or `@<tool>/cli` is that tool's CLI)."""
    name = re.sub(r"(?<=.)@[^/@]*$", "", name)  # a version or a dist-tag
    scoped = re.fullmatch(r"@([\w.-]+)/(?:cli|cli-\w+)", name)
    if scoped:
        return scoped[1]
    return re.sub(r"(?<=\w)-cli$", "", name)


#: Flags of the JS package managers that choose a workspace package; the command follows them.
_WORKSPACE_FLAGS = {
    "npm": frozenset({"-w", "--workspace", "--prefix", "-C"}),
    "pnpm": frozenset({"--filter", "-F", "--dir", "-C", "--filter-prod"}),
    "yarn": frozenset({"--cwd"}),
    "bun": frozenset({"--filter", "--cwd"}),
}


def _workspace_selected(program: str, words: list[str]) -> list[str] | None:
    """`yarn workspace web build`, `pnpm --filter web build`, `npm -w web run build`: the package
    manager's command with the selector of the package it runs in moved after it, as `--flag=value`
    (the command's words come first, and which package it built still tells two builds apart);
    None without a selector."""
    flags = _WORKSPACE_FLAGS.get(program)
    if flags is None:
        return None
    if program == "yarn" and len(words) > 3 and words[1] == "workspace":
        return [words[0], *words[3:], f"--workspace={words[2]}"]
    if program == "yarn" and words[1:3] == ["workspaces", "foreach"]:  # every workspace, in turn
        rest = words[3:]
        start = _skip_options(rest, frozenset({"--include", "--exclude", "--from", "-j", "--jobs"}))
        return [words[0], *rest[start:], "--workspaces"] if start < len(rest) else None
    selectors, index = [], 1
    while index < len(words) and words[index].split("=", 1)[0] in flags:
        if "=" in words[index]:
            selectors.append(words[index])
        elif index + 1 < len(words):
            selectors.append(f"{words[index]}={words[index + 1]}")
            index += 1
        index += 1
    return [words[0], *words[index:], *selectors] if selectors and index < len(words) else None


def _executed(words: list[str]) -> list[str]:
    """What `npx [-p pkg] <package> ...` starts, named for its tool (`npx netlify-cli` is netlify)."""
    inner = words[1 + _skip_options(words[1:], frozenset({"-p", "--package"})) :]
    return [package_tool(inner[0]), *inner[1:]] if inner else words


def _unwrap_once(words: list[str]) -> list[str]:
    words = _leading_wrappers(words)
    if not words:
        return words
    program = base(words[0])
    if len(words) > 1 and program in EXECUTORS:
        return _executed(words)
    if len(words) > 1 and program in ("yarn", "pnpm", "bun") and words[1].lower() in vocab.JS_BINARIES:
        return words[1:]
    if len(words) > 2 and program in RUNNERS and words[1] in ("run", "exec", "x"):
        return words if re.split(r"[:_-]", words[2])[0] in _TASK_NAMES else words[2:]
    if len(words) > 2 and program.startswith("python") and words[1] == "-m" and words[2] not in PY_TOOLS:
        return words[2:]  # `python -m twine upload` is twine's
    inner = _container_inner(words) or _runner_inner(words) or _workspace_selected(program, words)
    inner = inner or _hpc_inner(words)
    return inner if inner else words


#: HPC launchers that run the command named after their options on allocated nodes.
HPC_LAUNCHERS = frozenset({"srun", "mpirun", "mpiexec", "ibrun", "aprun", "jsrun", "salloc"})
#: Their options that take no value (every other `-x` or `-np` takes the next word).
_HPC_BOOLEAN = frozenset(
    "-l -v -u -K -E -Q -X -Z -O -s -h -H -k -I --pty --exclusive --overcommit --oversubscribe "
    "--allow-run-as-root --label --unbuffered --verbose --quiet -q --immediate --bind-to-core".split()
)
_HPC_VALUED_LONG = frozenset(
    "--partition --ntasks --nodes --time --account --job-name --gres --gpus --mem --cpus-per-task "
    "--output --error --qos --constraint --nodelist --hostfile --host --map-by --bind-to".split()
)


def _hpc_inner(words: list[str]) -> list[str] | None:
    """`srun -n 4 make test`, `mpirun -np 8 ./run_tests`: the command the launcher runs."""
    if base(words[0]) not in HPC_LAUNCHERS:
        return None
    index = 1
    while index < len(words) and words[index].startswith("-"):
        word = words[index]
        if word == "--":
            index += 1
            break
        short = not word.startswith("--") and word not in _HPC_BOOLEAN
        valued = "=" not in word and (short or word in _HPC_VALUED_LONG)
        index += 2 if valued else 1
    return words[index:] or None


def hpc_wrapped(words: Sequence[str]) -> str | None:
    """The command string `sbatch --wrap="pytest tests"` submits, to read again."""
    if not words or base(words[0]) != "sbatch":
        return None
    for index, word in enumerate(words):
        if word.startswith("--wrap="):
            return word.split("=", 1)[1] or None
        if word == "--wrap" and index + 1 < len(words):
            return words[index + 1]
    return None


def unwrap(words: list[str]) -> list[str]:
    """The words of the program that does the work, wrappers taken off (a few layers at most:
    `sudo -E op run -- poetry run pytest` is pytest)."""
    for _ in range(6):
        unwrapped = _unwrap_once(words)
        if unwrapped == words:
            break
        words = unwrapped
    return words


def shell_payload(words: Sequence[str]) -> str | list[str] | None:
    """What a shell or an interpreter runs: the command string of `bash -lc '...'`, `cmd /c "..."`,
    `pwsh -Command "..."` (to read again), or the words of the script it is given (`bash deploy.sh`,
    `powershell -ExecutionPolicy Bypass -File .\\deploy.ps1`, `python scripts/run_tests.py`)."""
    if not words:
        return None
    program = base(words[0])
    if program == "sbatch":
        return hpc_wrapped(words)
    if program in SHELLS:
        lowered = [w.lower() for w in words]
        for mark in _SHELL_COMMAND:
            if mark in lowered[1:]:
                rest = words[lowered.index(mark) + 1 :]
                return " ".join(rest) if rest else None
        if "-file" in lowered[1:]:
            return list(words[lowered.index("-file") + 1 :]) or None
    if program in SHELLS or program in INTERPRETERS:
        start = 1 + _skip_options(words[1:], frozenset({"-executionpolicy", "-ExecutionPolicy"}))
        if start < len(words) and _SCRIPT_FILE.search(words[start]):
            return list(words[start:])
    return None
