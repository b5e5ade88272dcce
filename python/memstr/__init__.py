"""memstr: memory an AI agent owns, from Python.

    import memstr
    store = await memstr.MemoryStore.open("agent.db", nsec)
    await store.persona_remember("people", "facts", "alice-dark-mode", "Alice prefers dark mode")
    for hit in await store.search("which colour scheme does Alice like?"):
        print(hit.score, hit.text)

`memstr.compat` is a drop-in for the sense-memory 0.3.1 client (`import memstr.compat as
sense_memory`). Docs: docs/python.md in the repository.
"""

from ._errors import (
    Ambiguous,
    IdentityError,
    InvalidInput,
    MemstrError,
    ModelError,
    NotFound,
    ReadOnly,
    RelayError,
    StoreError,
    WrongKey,
)
from ._native import __version__, generate_secret, public_key_of
from .store import MemoryStore, default_path
from .types import (
    FactVersion,
    JournalEntry,
    Memory,
    PersonaHit,
    PersonaMemory,
    SearchHit,
    Signal,
    SyncReport,
    Written,
)

__all__ = [
    "MemoryStore",
    "default_path",
    "generate_secret",
    "public_key_of",
    "Memory",
    "JournalEntry",
    "PersonaMemory",
    "PersonaHit",
    "SearchHit",
    "Signal",
    "FactVersion",
    "SyncReport",
    "Written",
    "MemstrError",
    "InvalidInput",
    "NotFound",
    "Ambiguous",
    "WrongKey",
    "StoreError",
    "IdentityError",
    "ModelError",
    "RelayError",
    "ReadOnly",
    "__version__",
]
