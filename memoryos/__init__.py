"""memoryos: a tiered memory for AI agents that can prove what happened to every memory.

import memoryos
mem = memoryos.open("agent-memory.db")
scope = memoryos.Scope(user="alice", assistant="coder")
mem.remember(scope, "I deploy blyck with make release")
"""

from memoryos._version import __version__
from memoryos.errors import (
    ConfigError,
    DiskFull,
    InjectedFault,
    InvalidInput,
    MemoryOSError,
    MigrationError,
    NotFound,
    ReadOnlyStore,
    Rejected,
    StoreBusy,
    StoreClosed,
    StoreError,
    StorePathError,
    StoreVersionError,
)
from memoryos.memory import Memory, open
from memoryos.model import (
    Candidate,
    Context,
    Excluded,
    Finding,
    Forgotten,
    Hit,
    Maintenance,
    Recall,
    Record,
    Stored,
    Topic,
    Turn,
)
from memoryos.policies.capture import Event
from memoryos.scope import Scope
from memoryos.settings import Config

__all__ = [
    "Candidate",
    "Config",
    "ConfigError",
    "Context",
    "DiskFull",
    "Event",
    "Excluded",
    "Finding",
    "Forgotten",
    "Hit",
    "InjectedFault",
    "InvalidInput",
    "Maintenance",
    "Memory",
    "MemoryOSError",
    "MigrationError",
    "NotFound",
    "ReadOnlyStore",
    "Recall",
    "Record",
    "Rejected",
    "Scope",
    "StoreBusy",
    "StoreClosed",
    "StoreError",
    "StorePathError",
    "StoreVersionError",
    "Stored",
    "Topic",
    "Turn",
    "__version__",
    "open",
]
