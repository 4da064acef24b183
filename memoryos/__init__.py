"""memoryos: a tiered memory for AI agents that can prove what happened to every memory.

import memoryos
mem = memoryos.open("agent-memory.db")
scope = memoryos.Scope(user="alice", assistant="coder")
mem.remember(scope, "I deploy blyck with make release")
"""

from memoryos.errors import (
    ConfigError,
    InjectedFault,
    InvalidInput,
    MemoryOSError,
    NotFound,
    Rejected,
    StoreBusy,
    StoreClosed,
    StoreError,
    StoreVersionError,
)
from memoryos.memory import Memory, __version__, open
from memoryos.model import (
    Candidate,
    Context,
    Excluded,
    Finding,
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
    "Event",
    "Excluded",
    "Finding",
    "Hit",
    "InjectedFault",
    "InvalidInput",
    "Maintenance",
    "Memory",
    "MemoryOSError",
    "NotFound",
    "Recall",
    "Record",
    "Rejected",
    "Scope",
    "StoreBusy",
    "StoreClosed",
    "StoreError",
    "StoreVersionError",
    "Stored",
    "Topic",
    "Turn",
    "__version__",
    "open",
]
