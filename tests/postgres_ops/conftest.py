"""PostgreSQL operations: a per-test database on the test server, or a cluster of the module's own
to crash (tests/pg_server.py starts one from the installed binaries when no server answers)."""

from tests.pg_server import own_cluster, pg_url

__all__ = ["own_cluster", "pg_url"]
