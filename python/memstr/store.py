"""memstr.MemoryStore: the full API, async, over the native store (memstr._native)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from . import _native
from .types import (
    FactVersion,
    JournalEntry,
    Memory,
    PersonaHit,
    PersonaMemory,
    SearchHit,
    SyncReport,
    Written,
)

PathLike = Union[str, "os.PathLike[str]"]


def default_path() -> Path:
    """The store the `memstr` CLI uses: `$MEMSTR_DIR/memstr.db`, else `memstr/memstr.db`
    in the platform's data directory (`~/.local/share` on Linux)."""
    env = os.environ.get("MEMSTR_DIR")
    if env:
        return Path(env) / "memstr.db"
    base = _native.data_dir()
    if base is None:
        from ._errors import StoreError

        raise StoreError("no platform data directory: pass path= or set MEMSTR_DIR")
    return Path(base) / "memstr" / "memstr.db"


def secret_of(identity: Any) -> str:
    """The secret key of `identity`: a string (nsec or hex) or an object with
    `private_key_hex` (nostrkey's Identity, the published client's). Never logged."""
    if isinstance(identity, str):
        return identity
    secret = getattr(identity, "private_key_hex", None)
    if isinstance(secret, str):
        return secret
    from ._errors import IdentityError

    raise IdentityError(
        f"expected the agent's secret key (an nsec or 64 hex digits) or an identity with "
        f"private_key_hex, got {type(identity).__name__}"
    )


class MemoryStore:
    """An agent's memory: a local SQLite store of signed, NIP-44-encrypted events, synced
    with relays on request. Open one with `await MemoryStore.open(...)`.

    Every method is a coroutine; the work runs on memstr's tokio runtime, off the event
    loop. Use `async with` (or `await store.close()`) so pending accesses are signed and
    the vector index saved."""

    __slots__ = ("_s",)

    def __init__(self, native: "_native.Store") -> None:
        self._s = native

    @classmethod
    async def open(
        cls,
        path: Optional[PathLike] = None,
        identity: Any = None,
        *,
        relays: Sequence[str] = (),
        allow_insecure_relays: bool = False,
        d_tag_mode: Optional[str] = None,
        model: str = "auto",
    ) -> "MemoryStore":
        """Opens (creating if needed) the store at `path` (default: the CLI's, see
        `default_path`) for `identity` (nsec, hex, or an object with `private_key_hex`;
        default: `$MEMSTR_NSEC`).

        `relays` are added to the store's relay list (kept in the store; `sync` uses them).
        `d_tag_mode`: "compatible" for a store shared with the sense-memory client,
        "blinded" (the default for a new store) otherwise. `model`: "auto" loads the
        embedding model when installed (`memstr model install`) and warns once when it is
        not, "required" fails without it, "none" searches by words only."""
        if identity is None:
            identity = os.environ.get("MEMSTR_NSEC")
            if not identity:
                from ._errors import IdentityError

                raise IdentityError("no key: pass identity= or set MEMSTR_NSEC (nsec or hex)")
        target = Path(path) if path is not None else default_path()
        target.parent.mkdir(parents=True, exist_ok=True)
        native, info = await _native.open(str(target), secret_of(identity), d_tag_mode=d_tag_mode, model=model)
        if info.get("model_problem"):
            warnings.warn(
                f"memstr: searching by words only: {info['model_problem']}", RuntimeWarning, stacklevel=2
            )
        store = cls(native)
        for url in relays:
            await store.add_relay(url, allow_insecure=allow_insecure_relays)
        return store

    async def __aenter__(self) -> "MemoryStore":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"MemoryStore(public_key={self.public_key[:8]}..., path={str(self.path)!r}, d_tag_mode={self.d_tag_mode!r})"

    @property
    def public_key(self) -> str:
        """The agent's public key, hex."""
        return self._s.public_key

    @property
    def path(self) -> Path:
        """The SQLite file."""
        return Path(self._s.path)

    @property
    def d_tag_mode(self) -> str:
        """"compatible" or "blinded"."""
        return self._s.d_tag_mode

    @property
    def has_model(self) -> bool:
        """Whether search ranks by meaning (the embedding model is loaded)."""
        return self._s.has_model

    # --- flat memories and the journal (the published client's calls) ---

    async def remember(self, key: str, value: str, *, at: Optional[float] = None) -> str:
        """Stores `value` under `key`, replacing any previous value. Returns the event id."""
        return await self._s.remember(key, value, at)

    async def recall(self, key: str) -> Optional[Memory]:
        """The memory under `key`, or None."""
        d = await self._s.recall(key)
        return None if d is None else Memory._of(d)

    async def recall_all(self) -> List[Memory]:
        """Every flat memory, by key."""
        return [Memory._of(d) for d in await self._s.recall_all()]

    async def journal(self, content: str, *, at: Optional[float] = None) -> str:
        """Appends a journal entry. Returns the event id."""
        return await self._s.journal(content, at)

    async def recent(
        self, limit: int = 20, *, since: Optional[float] = None, until: Optional[float] = None
    ) -> List[JournalEntry]:
        """The newest journal entries (dated in [since, until) when given), newest first."""
        return [JournalEntry._of(d) for d in await self._s.recent(max(1, int(limit)), since, until)]

    # --- persona memories ---

    async def persona_remember(
        self,
        domain: str,
        facet: str,
        key: str,
        value: str,
        *,
        themes: Iterable[str] = (),
        connections: Iterable[str] = (),
        source: Optional[str] = None,
        confidence: Optional[float] = None,
        halflife_days: Optional[float] = None,
        importance: Optional[float] = None,
        at: Optional[float] = None,
        gate: bool = False,
    ) -> Written:
        """Stores a persona memory at `domain/facet/key` (an existing one keeps its history).
        With `gate=True` the novelty gate decides first: a near-duplicate reinforces the
        memory it repeats, a correction supersedes the memory it corrects."""
        d = await self._s.persona_remember(
            domain,
            facet,
            key,
            value,
            themes=list(themes),
            connections=list(connections),
            source=source,
            confidence=confidence,
            halflife_days=halflife_days,
            importance=importance,
            at=at,
            gate=gate,
        )
        return Written(**d)

    async def persona_recall(
        self,
        domain: Optional[str] = None,
        facet: Optional[str] = None,
        key: Optional[str] = None,
        *,
        count_access: bool = True,
    ) -> List[PersonaMemory]:
        """Persona memories matching the filters (unset: all), each with its current
        relevance and state. A recall counts as an access unless `count_access=False`."""
        rows = await self._s.persona_recall(domain, facet, key, count_access=count_access)
        return [PersonaMemory._of(d) for d in rows]

    async def persona_search(self, query: str, limit: int = 5) -> List[PersonaHit]:
        """Persona memories by content, best first: the published client's ranking (its top
        `limit`, no strength cutoff)."""
        return [PersonaHit._of(d) for d in await self._s.persona_search(query, int(limit))]

    async def persona_connect(self, a: str, b: str) -> None:
        """Links two memories both ways (each by key or `domain/facet/key`)."""
        await self._s.persona_connect(a, b)

    async def persona_contradict(self, old: str, new: str) -> None:
        """Records that `new` replaces `old` (which then decays four times faster)."""
        await self._s.persona_contradict(old, new)

    async def persona_domains(self) -> List[str]:
        return list(await self._s.persona_domains())

    async def persona_facets(self, domain: str) -> List[str]:
        return list(await self._s.persona_facets(domain))

    async def persona_stats(self) -> Dict[str, Any]:
        """Totals, per live state, per domain and per facet."""
        return await self._s.persona_stats()

    async def pin(self, reference: str, pinned: bool = True) -> None:
        """Pins (or unpins) a persona memory: a pinned memory never decays."""
        await self._s.persona_pin(reference, pinned)

    async def compress(self, domain: Optional[str] = None) -> str:
        """The current persona quoted for an LLM's context, in under 500 tokens."""
        return await self._s.persona_compress(domain)

    async def introspect(self) -> Dict[str, Any]:
        """Reviews the persona: counts per state, contradictions, stale beliefs, orphans,
        suggested connections and revisions. The report is also stored."""
        return await self._s.introspect()

    async def consolidate(self) -> Dict[str, Any]:
        """One consolidation cycle now: prune, promote recurring journal content, learn links."""
        return await self._s.consolidate()

    # --- search ---

    async def search(
        self,
        text: str,
        *,
        limit: int = 10,
        kinds: Optional[Sequence[str]] = None,
        domain: Optional[str] = None,
        facet: Optional[str] = None,
        states: Optional[Sequence[str]] = None,
        since: Optional[float] = None,
        until: Optional[float] = None,
        min_strength: Optional[float] = None,
        history: bool = False,
        strengthen: bool = True,
        phrasings: Optional[Sequence[str]] = None,
    ) -> List[SearchHit]:
        """Searches persona memories, flat memories and the journal together, by meaning
        (with the model) and words, ranked with the lifecycle signals; every hit explains
        its score (`hit.signals`, `hit.explain()`). Hits weaker than the calibrated cutoff
        are dropped (`min_strength` overrides it): a query about nothing stored returns []."""
        rows = await self._s.search(
            text,
            limit=int(limit),
            kinds=list(kinds) if kinds is not None else None,
            domain=domain,
            facet=facet,
            states=list(states) if states is not None else None,
            since=since,
            until=until,
            min_strength=min_strength,
            history=history,
            strengthen=strengthen,
            phrasings=list(phrasings) if phrasings is not None else None,
        )
        return [SearchHit._of(d) for d in rows]

    # --- keyed facts ---

    async def fact_set(
        self, domain: str, subject: str, attribute: str, value: str, *, at: Optional[float] = None
    ) -> str:
        """Sets the one current value of `subject`'s `attribute`; an earlier different value
        moves to the fact's history. Returns the event id."""
        return await self._s.fact_set(domain, subject, attribute, value, at)

    async def fact_get(self, domain: str, subject: str, attribute: str) -> Optional[str]:
        return await self._s.fact_get(domain, subject, attribute)

    async def fact_history(self, domain: str, subject: str, attribute: str) -> List[FactVersion]:
        """Every value the fact has had, oldest first; the last is current."""
        return [FactVersion._of(d) for d in await self._s.fact_history(domain, subject, attribute)]

    async def graph_neighbours(self, reference: str) -> List[Dict[str, Any]]:
        """A memory's neighbours in the knowledge graph, strongest first."""
        return list(await self._s.graph_neighbours(reference))

    # --- the ways out of memory: archive (reversible), forget, purge ---

    async def archive(self, reference: str) -> str:
        """Out of search and context, kept everywhere. Returns the memory's address."""
        return await self._s.archive(reference)

    async def restore(self, reference: str) -> str:
        """Back from the archive. Returns the memory's address."""
        return await self._s.restore(reference)

    async def forget(self, reference: str) -> str:
        """Deleted everywhere (a tombstone and a NIP-09 deletion). `reference`: a flat key,
        `domain/facet/key`, `kv/KEY`, `journal/TS`. Returns the deletion's event id."""
        return await self._s.forget(reference)

    async def purge(self, reference: str) -> str:
        """Forget, and wipe every local remnant (full text, vector, edges, freed pages)."""
        return await self._s.purge(reference)

    # --- relays ---

    async def add_relay(self, url: str, *, allow_insecure: bool = False) -> str:
        """Adds a relay (`wss://`; `ws://` only to loopback, or with allow_insecure)."""
        return await self._s.add_relay(url, allow_insecure)

    async def remove_relay(self, url: str) -> bool:
        return await self._s.remove_relay(url)

    async def relays(self) -> List[Dict[str, Any]]:
        """The store's relays, with their last sync and last error."""
        return list(await self._s.relays())

    async def sync(self, *, full: bool = False, timeout: Optional[float] = None) -> List[SyncReport]:
        """One pass with every relay: pull what is new, then push what a relay lacks.
        Never raises for a relay that is down: its report carries the error."""
        return [SyncReport._of(d) for d in await self._s.sync(full=full, timeout=timeout)]

    # --- upkeep ---

    async def embed_pending(self, max: Optional[int] = None) -> Dict[str, Any]:
        """Embeds records waiting for a vector (a search embeds at most 32 itself)."""
        return await self._s.embed_pending(max)

    async def pending_embeddings(self) -> int:
        return await self._s.pending_embeddings()

    async def stats(self) -> Dict[str, Any]:
        """Counts, outbox depth, rejected events per reason."""
        return await self._s.stats()

    async def close(self) -> None:
        """Signs pending accesses and saves the vector index."""
        await self._s.close()
