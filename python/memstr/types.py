"""The records memstr.MemoryStore returns: frozen dataclasses over the native module's dicts.

Field names are those of the Rust types (and of the JSON the CLI prints with --json)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union


@dataclass(frozen=True)
class Memory:
    """A flat key-value memory (the published client's `remember`)."""

    key: str
    value: str
    created_at: float
    archived_at: Optional[float] = None

    @classmethod
    def _of(cls, d: Mapping[str, Any]) -> "Memory":
        return cls(d["key"], d["value"], d["created_at"], d.get("archived_at"))


@dataclass(frozen=True)
class JournalEntry:
    """A journal entry (append-only)."""

    content: str
    created_at: float
    archived_at: Optional[float] = None

    @classmethod
    def _of(cls, d: Mapping[str, Any]) -> "JournalEntry":
        return cls(d["content"], d["created_at"], d.get("archived_at"))


@dataclass(frozen=True)
class PersonaMemory:
    """A persona memory at `domain/facet/key`, with its lifecycle fields.

    `current_relevance` and `live_state` are its decay evaluated now, under the store's
    policy, when the call computes them (persona_recall); `state` is the stored one."""

    domain: str
    facet: str
    key: str
    value: str
    relevance: float
    halflife_days: float
    last_accessed: float
    last_reinforced: float
    access_count: int
    connections: Tuple[str, ...]
    contradicts: Tuple[str, ...]
    superseded_by: Optional[str]
    themes: Tuple[str, ...]
    source: str
    confidence: float
    state: str
    created_at: float
    pinned: bool = False
    importance: Optional[float] = None
    archived_at: Optional[float] = None
    current_relevance: Optional[float] = None
    live_state: Optional[str] = None

    @property
    def address(self) -> str:
        """`domain/facet/key`: how the forgetting verbs and connect name it."""
        return f"{self.domain}/{self.facet}/{self.key}"

    @classmethod
    def _of(cls, d: Mapping[str, Any]) -> "PersonaMemory":
        life = (d.get("sync") or {}).get("life") or {}
        return cls(
            domain=d["domain"],
            facet=d["facet"],
            key=d["key"],
            value=d["value"],
            relevance=d["relevance"],
            halflife_days=d["halflife_days"],
            last_accessed=d["last_accessed"],
            last_reinforced=d["last_reinforced"],
            access_count=d["access_count"],
            connections=tuple(d["connections"]),
            contradicts=tuple(d["contradicts"]),
            superseded_by=d.get("superseded_by"),
            themes=tuple(d["themes"]),
            source=d["source"],
            confidence=d["confidence"],
            state=d["state"],
            created_at=d["created_at"],
            pinned=bool(life.get("pinned", False)),
            importance=life.get("importance"),
            archived_at=life.get("archived_at"),
            current_relevance=d.get("current_relevance"),
            live_state=d.get("live_state"),
        )


Record = Union[Memory, JournalEntry, PersonaMemory]


def _record(d: Mapping[str, Any]) -> Record:
    kind = d["kind"]
    if kind == "persona":
        return PersonaMemory._of(d)
    if kind == "journal":
        return JournalEntry._of(d)
    return Memory._of(d)


@dataclass(frozen=True)
class Signal:
    """One signal of a search hit's score: its raw value, its rank among the candidates
    (when it ranked them) and what it added to the score."""

    name: str
    value: float
    rank: Optional[int]
    contribution: float


@dataclass(frozen=True)
class SearchHit:
    """One result of `MemoryStore.search`.

    `score` orders the hits of one search; `strength` (0 to 1) is comparable across
    searches; `signals` explain the score, signal by signal."""

    path: str
    kind: str
    record: Record
    score: float
    strength: float
    coverage: float
    signals: Tuple[Signal, ...]
    revived: bool
    status: str
    superseded_by: Optional[str]

    @property
    def text(self) -> str:
        """What a person reads: the value, or the journal entry's content."""
        r = self.record
        return r.content if isinstance(r, JournalEntry) else r.value

    def explain(self) -> str:
        """The score, signal by signal, one line each."""
        lines = [f"{self.path}: score {self.score:.4f}, strength {self.strength:.3f}, {self.status}"]
        for s in self.signals:
            rank = f"#{s.rank}" if s.rank is not None else "-"
            lines.append(f"  {s.name:<12} {s.value:>9.4f} {rank:>5} {s.contribution:+.4f}")
        return "\n".join(lines)

    @classmethod
    def _of(cls, d: Mapping[str, Any]) -> "SearchHit":
        found = d["found"]
        return cls(
            path=d["path"],
            kind=found["kind"],
            record=_record(found),
            score=d["score"],
            strength=d["strength"],
            coverage=d["coverage"],
            signals=tuple(Signal(s["name"], s["value"], s.get("rank"), s["contribution"]) for s in d["signals"]),
            revived=d["revived"],
            status=d["status"],
            superseded_by=d.get("superseded_by"),
        )


@dataclass(frozen=True)
class PersonaHit:
    """One result of `persona_search` (the published client's ranking: top k, no cutoff)."""

    memory: PersonaMemory
    score: float
    match_score: float
    relevance: float
    state: str

    @classmethod
    def _of(cls, d: Mapping[str, Any]) -> "PersonaHit":
        return cls(PersonaMemory._of(d["memory"]), d["score"], d["match_score"], d["relevance"], d["state"])


@dataclass(frozen=True)
class Written:
    """What a persona write did. Without the gate, `decision` is "write"; with it, one of
    "create", "reinforce", "update", "supersede", "might_correct", "related" and
    `existing` names the memory it was compared with."""

    decision: str
    address: str
    event_id: str
    existing: Optional[str] = None
    similarity: Optional[float] = None


@dataclass(frozen=True)
class FactVersion:
    """One value of a keyed fact: true from `from_` until `until` (None: still true)."""

    value: str
    from_: float
    until: Optional[float]

    @classmethod
    def _of(cls, d: Mapping[str, Any]) -> "FactVersion":
        return cls(d["value"], d["from"], d.get("until"))


@dataclass(frozen=True)
class SyncReport:
    """One relay's part of a sync pass. `error` is None when the pass went through."""

    url: str
    method: str
    pulled: Dict[str, int]
    pushed: int
    pending: int
    error: Optional[str]
    misbehaved: Optional[str]
    refused: List[Tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None and self.misbehaved is None

    @classmethod
    def _of(cls, d: Mapping[str, Any]) -> "SyncReport":
        return cls(
            url=d["url"],
            method=d["method"],
            pulled=dict(d["pulled"]),
            pushed=d["pushed"],
            pending=d["pending"],
            error=d.get("error"),
            misbehaved=d.get("misbehaved"),
            refused=[tuple(r) for r in d.get("refused", [])],  # type: ignore[misc]
        )


__all__ = [
    "Memory",
    "JournalEntry",
    "PersonaMemory",
    "Record",
    "Signal",
    "SearchHit",
    "PersonaHit",
    "Written",
    "FactVersion",
    "SyncReport",
]
