"""memstr's exceptions. The native module raises these (memstr._native looks them up here),
so each can also derive from the built-in exception a Python caller already catches."""

from __future__ import annotations


class MemstrError(Exception):
    """Any error from memstr. The message says what went wrong and what to do."""


class InvalidInput(MemstrError, ValueError):
    """An argument breaks a rule (a key too long, a slash in a domain, ...)."""


class NotFound(MemstrError, LookupError):
    """No memory answers to the reference given."""


class Ambiguous(MemstrError, LookupError):
    """A bare key names several memories; the message lists their addresses."""


class WrongKey(MemstrError):
    """The store file belongs to another key."""


class StoreError(MemstrError):
    """The store file could not be opened, read or written."""


class IdentityError(MemstrError, ValueError):
    """The secret key is not an nsec or 64 hex digits. The message never quotes it."""


class ModelError(MemstrError):
    """The embedding model is missing or broken."""


class RelayError(MemstrError, ConnectionError):
    """A relay could not be reached or misbehaved."""


class ReadOnly(MemstrError):
    """The store is open to evaluate at a fixed time and writes nothing."""


__all__ = [
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
]
