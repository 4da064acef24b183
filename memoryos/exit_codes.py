"""The exit code of each memoryos error, shared by `memoryos` and `memoryos mcp` (the README's table).

0 success; 1 `check` found problems; 2 usage or invalid input; 3 refused by the no-store rule;
4 not found; 5 store error. The first matching class wins, so subclasses come before their bases.
"""

from __future__ import annotations

from memoryos.errors import ConfigError, InvalidInput, MemoryOSError, NotFound, Rejected, StoreError

EXIT_CODES: tuple[tuple[type[BaseException], int], ...] = (
    (Rejected, 3),
    (NotFound, 4),
    (InvalidInput, 2),
    (ConfigError, 2),
    (StoreError, 5),
    (MemoryOSError, 5),
)


def exit_code(error: MemoryOSError) -> int:
    return next(code for kind, code in EXIT_CODES if isinstance(error, kind))
