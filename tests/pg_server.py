"""The PostgreSQL server the tests use: MEMORYOS_TEST_POSTGRES (a libpq URL to a database the tests
may create databases from), default the machine's local server. Each test gets a database of its
own, dropped afterwards, so tests never see each other's rows.

On a fresh machine nothing may listen there. Then the first test that needs PostgreSQL starts a
throwaway cluster from the installed binaries (`initdb`/`pg_ctl`: on PATH, or Debian's
/usr/lib/postgresql/*/bin) in a temporary directory on a free port, and the cluster is stopped when
the test process exits. With no binaries at all the PostgreSQL tests are skipped with the reason,
except in CI (CI=true), where they fail: CI installs Debian's `postgresql` package (.ci/run).

`Cluster` is also what the fault tests restart and crash: never the shared server.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

DEFAULT_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
ENV_URL = "MEMORYOS_TEST_POSTGRES"
#: Where to look for initdb/pg_ctl after PATH (Debian's layout); a test points it elsewhere.
ENV_BINDIRS = "MEMORYOS_TEST_POSTGRES_BINDIRS"
DEBIAN_BINDIRS = "/usr/lib/postgresql/*/bin"
#: initdb refuses to run as root: as root, the cluster belongs to this system user.
CLUSTER_USER = "postgres"
SUPERUSER = "postgres"


class NoPostgres(RuntimeError):
    """No server is reachable and this machine has no PostgreSQL binaries to start one."""


class ClusterError(RuntimeError):
    """The binaries are there but a cluster would not start: a broken install fails, never skips."""


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1")


# -- finding and starting binaries ----------------------------------------------------------------------
def bindir() -> Path | None:
    """The directory holding initdb and pg_ctl: PATH first, then the newest Debian install."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    pattern = os.environ.get(ENV_BINDIRS, DEBIAN_BINDIRS)
    candidates = [Path(d) for p in pattern.split(os.pathsep) for d in glob.glob(p)]
    usable = [d for d in candidates if (d / "initdb").exists() and (d / "pg_ctl").exists()]
    return max(usable, key=_version_key, default=None)


def _version_key(directory: Path) -> tuple[int, ...]:
    digits = "".join(c if c.isdigit() else " " for c in str(directory))
    return tuple(int(n) for n in digits.split())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cluster_parent() -> str:
    """The temporary directory, or /tmp when run as root and the cluster user could not reach it
    (pytest's and many TMPDIRs are private to their owner)."""
    parent = Path(tempfile.gettempdir()).resolve()
    if os.geteuid() != 0:
        return str(parent)
    reachable = all(p.stat().st_mode & 0o001 for p in (parent, *parent.parents))
    return str(parent) if reachable else "/tmp"


def cluster_user() -> pwd.struct_passwd:
    """The `postgres` system user, created when missing (a fresh container may have none)."""
    try:
        return pwd.getpwnam(CLUSTER_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", CLUSTER_USER], check=True)
        return pwd.getpwnam(CLUSTER_USER)


def _as_cluster_user(argv: list[str]) -> list[str]:
    """initdb and postgres refuse root; run them as the `postgres` system user (created if missing)."""
    if os.geteuid() != 0:
        return argv
    cluster_user()
    return ["runuser", "-u", CLUSTER_USER, "--", *argv]


class Cluster:
    """A throwaway PostgreSQL cluster in a temporary directory, on 127.0.0.1:`port`, trust auth."""

    def __init__(self, binaries: Path, port: int | None = None) -> None:
        self.bin = binaries
        self.port = port or free_port()
        self.root = Path(tempfile.mkdtemp(prefix="memoryos-pg-", dir=cluster_parent()))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        if os.geteuid() == 0:  # the cluster user must own its directory
            entry = cluster_user()
            os.chown(self.root, entry.pw_uid, entry.pw_gid)

    @property
    def url(self) -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/postgres"

    def _run(self, *argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            _as_cluster_user(list(argv)), capture_output=True, text=True, timeout=timeout, check=False
        )
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise ClusterError(f"{Path(argv[0]).name} failed: {done.stdout}{done.stderr}{log}")
        return done

    def _options(self) -> str:
        # Sockets in our own directory (never /var/run/postgresql), TCP on loopback only, and a crash
        # restart that does not wait for a checkpoint: this cluster holds nothing worth an fsync.
        return f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"

    def init(self) -> Cluster:
        self._run(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8"
        )
        return self

    def start(self) -> Cluster:
        self._pg_ctl("start", "-w", "-t", "60", "-l", str(self.log), "-o", self._options())
        return self

    def restart_immediate(self) -> None:
        """A crash: every backend is killed without a checkpoint; recovery replays the WAL on start."""
        self._pg_ctl("restart", "-m", "immediate", "-w", "-t", "60", "-l", str(self.log))

    def stop_immediate(self) -> None:
        self._pg_ctl("stop", "-m", "immediate", "-w", "-t", "60")

    def stop(self) -> None:
        with contextlib.suppress(ClusterError, subprocess.TimeoutExpired):
            self._pg_ctl("stop", "-m", "fast", "-w", "-t", "60")

    def _pg_ctl(self, *args: str) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), *args)

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


def start_cluster(port: int | None = None) -> Cluster:
    """A new cluster, running; NoPostgres when this machine has no PostgreSQL binaries."""
    binaries = bindir()
    if binaries is None:
        raise NoPostgres(
            "PostgreSQL is not installed (no initdb/pg_ctl on PATH or in /usr/lib/postgresql/*/bin) and"
            f" no server answers at {configured_url()}: install Debian's `postgresql` package or set"
            f" {ENV_URL} to a server's URL"
        )
    cluster = Cluster(binaries, port).init()
    try:
        return cluster.start()
    except BaseException:
        shutil.rmtree(cluster.root, ignore_errors=True)
        raise


# -- the server the tests use ---------------------------------------------------------------------------
def configured_url() -> str:
    return os.environ.get(ENV_URL, DEFAULT_ADMIN)


def reachable(url: str) -> bool:
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=3, autocommit=True) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error:
        return False
    return True


_server: dict[str, str] = {}


def admin_url() -> str:
    """The configured server when it answers, else a throwaway cluster started once per process."""
    if "url" not in _server:
        url = configured_url()
        if not reachable(url):
            cluster = start_cluster()
            atexit.register(cluster.destroy)
            url = cluster.url
        _server["url"] = url
    return _server["url"]


def require_postgres() -> str:
    """admin_url(), or skip the test with the reason (fail instead in CI: it must never skip there)."""
    try:
        return admin_url()
    except NoPostgres as exc:
        if in_ci():
            pytest.fail(f"CI must run the PostgreSQL tests: {exc}")
        pytest.skip(str(exc))


def fresh_database() -> str:
    """Create an empty database on the test server; return its URL."""
    import psycopg

    name = f"memoryos_test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(require_postgres(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return database_url(name)


def database_url(name: str, admin: str | None = None) -> str:
    """The admin URL with its database replaced by `name`."""
    parts = urlsplit(admin or admin_url())
    if parts.scheme not in ("postgresql", "postgres"):
        raise RuntimeError(f"{ENV_URL} must be a postgresql:// URL")
    return urlunsplit(parts._replace(path="/" + name))


def drop_database(url: str, admin: str | None = None) -> None:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    name = conninfo_to_dict(url)["dbname"]
    with psycopg.connect(admin or admin_url(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A libpq connection string to a new, empty database, dropped after the test."""
    url = fresh_database()
    try:
        yield url
    finally:
        drop_database(url)


@pytest.fixture(scope="module")
def own_cluster() -> Iterator[Cluster]:
    """A cluster of the module's own on a free port, to crash and restart (never the shared server)."""
    try:
        cluster = start_cluster()
    except NoPostgres as exc:
        if in_ci():
            pytest.fail(f"CI must run the PostgreSQL fault tests: {exc}")
        pytest.skip(str(exc))
    try:
        yield cluster
    finally:
        cluster.destroy()
