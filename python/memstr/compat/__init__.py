"""A drop-in for the sense-memory 0.3.1 client, over memstr's local store.

    import memstr.compat as sense_memory          # or: from memstr.compat import MemoryStore

The same module layout (`memstr.compat.store`, `memstr.compat.types`), names, signatures,
validation rules and errors as the client; behind them a local memstr store, offline-first,
synced with the relays given, in the client's wire format (see `memstr.compat.store`).
"""

from .types import (
    Memory,
    JournalEntry,
    PersonaMemory,
    IntrospectionReport,
    DEFAULT_DOMAINS,
    DEFAULT_FACETS,
    STATE_ACTIVE,
    STATE_FADING,
    STATE_FORGOTTEN,
    STATE_DISSOLVED,
)
from .store import MemoryStore

# The client's version this module is a drop-in for (code that checks it keeps working).
__version__ = "0.3.1"

__all__ = [
    "Memory",
    "JournalEntry",
    "PersonaMemory",
    "IntrospectionReport",
    "MemoryStore",
    "DEFAULT_DOMAINS",
    "DEFAULT_FACETS",
    "STATE_ACTIVE",
    "STATE_FADING",
    "STATE_FORGOTTEN",
    "STATE_DISSOLVED",
]
