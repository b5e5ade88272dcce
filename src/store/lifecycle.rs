//! The lifecycle through the facade: gated writes, introspection, compression,
//! consolidation, pins, keyed facts, the graph, and the ways out of memory.

use super::MemoryStore;
use crate::engine::refs::{self, address_of, Resolved};
use crate::error::Result;
use crate::lifecycle::compress::{CompressOptions, Compressed};
use crate::lifecycle::{
    cycle, dreams, persona, review, ConsolidationReport, FactVersion, GraphNeighbour, Ingested, PruneReport,
};
use crate::model::{validate_taxonomy, validate_value, IntrospectionReport, PersonaInput};

impl MemoryStore {
    /// Stores a persona memory through the novelty gate: the new value is compared with
    /// the memories of the same domain and facet (cosine of embeddings when vectors are
    /// on, word overlap otherwise) and the gate decides ([`crate::lifecycle::gate`]):
    ///
    /// - **reinforce**: a near-duplicate strengthens the existing memory (an access, its
    ///   themes merged) instead of adding one;
    /// - **update**: the same memory said more fully rewrites the existing value;
    /// - **supersede**: a correction ("actually", a negation, a changed number), or a
    ///   contradiction of any memory of the same subject however little it overlaps
    ///   ("switched from coffee to green tea", an antonym, a changed object or value: see
    ///   [`crate::lifecycle::gate::contradiction`]), is stored as `input.key`, and the old
    ///   memory gets `superseded_by` and `contradicts`, so it decays four times faster; a
    ///   memory already superseded is not superseded again;
    /// - **create**: novel content is stored as `input.key`.
    ///
    /// Writing to an existing key is an explicit update and skips the gate
    /// ([`MemoryStore::persona_remember`]). Thresholds: `LifecycleOptions::gate`.
    pub async fn persona_ingest(&self, input: PersonaInput) -> Result<Ingested> {
        input.validate()?;
        review::ingest(&self.parts(), input).await
    }

    /// Reviews the persona (seed 003's `persona_introspect`): counts per state,
    /// contradiction pairs, stale beliefs, orphans, overloaded facets, suggested
    /// connections (two shared themes, or embeddings at least `link_similarity` alike)
    /// and revisions. The report is stored as an introspection event and returned, with
    /// the dream insights consolidation stored ([`MemoryStore::insights`]) in `insights`.
    pub async fn persona_introspect(&self) -> Result<IntrospectionReport> {
        self.parts().record_accesses().await?;
        let mut report = review::introspect_persona(&self.parts()).await?;
        report.insights = self.insights().await?;
        Ok(report)
    }

    /// The dream insights consolidation cycles found and stored (docs/lifecycle.md, "Dream
    /// insights"): by kind, strongest first, each with the memories it rests on. Found and
    /// retired by [`MemoryStore::consolidate`] while `Behaviour::DreamInsights` is on;
    /// never among search results.
    pub async fn insights(&self) -> Result<Vec<crate::model::Insight>> {
        dreams::stored(&self.parts()).await
    }

    /// The current persona for an LLM's context: memories quoted whole or to their first
    /// clauses, pinned, important and newest first, none that a newer memory replaces
    /// (`domain` narrows it), within `max_tokens` (500 by default) as estimated for
    /// GPT-style tokenizers. See docs/lifecycle.md, section 6.
    pub async fn persona_compress(&self, domain: Option<&str>) -> Result<String> {
        let options = CompressOptions { domain: domain.map(str::to_string), ..Default::default() };
        Ok(self.persona_compress_with(options).await?.text)
    }

    /// [`MemoryStore::persona_compress`] with every option, the coverage (`covered` of
    /// `total`) and what was left out.
    pub async fn persona_compress_with(&self, options: CompressOptions) -> Result<Compressed> {
        self.parts().record_accesses().await?;
        review::compress(&self.engine, &self.life, options).await
    }

    /// Runs one consolidation cycle now (see the module doc and docs/lifecycle.md). Cycles
    /// never overlap: a call waits for a running one.
    pub async fn consolidate(&self) -> Result<ConsolidationReport> {
        cycle::consolidate(&self.parts()).await
    }

    /// Waits until no consolidation cycle is running: the automatic one started by the
    /// `consolidate_every`-th write runs in the background, and what it archives or promotes
    /// depends on when it reads the store. Returns at once when none runs. A benchmark or a
    /// test that must see the same store on every run settles after each write;
    /// [`MemoryStore::close`] settles first, so a cycle is never cut off by the process
    /// ending.
    pub async fn settle(&self) {
        cycle::settle(&self.life).await
    }

    /// Pins (or unpins) a persona memory, by `key` or `domain/facet/key`: a pinned memory
    /// never decays and is never pruned or deleted by the lifecycle (seed 002).
    pub async fn persona_pin(&self, reference: &str, pinned: bool) -> Result<()> {
        let reference = reference.to_string();
        self.parts().write(move |tx, engine, life| persona::pin(tx, engine, life, &reference, pinned)).await
    }

    /// Moves every persona memory to the state its decay puts it in (active, fading,
    /// forgotten, dissolved), writing only those that changed; memories dissolved for
    /// `dissolve_after_days` (30) are deleted like a forget, on relays too. Forgotten
    /// memories leave search results; exact recall still finds them. Pinned memories stay.
    pub async fn persona_prune(&self) -> Result<PruneReport> {
        self.parts().write(persona::prune).await
    }

    /// Sets a keyed fact (seed 002): one current value per `subject` and `attribute`, kept
    /// as the persona memory `domain/facts/{subject}:{attribute}`. A different earlier value
    /// moves to the fact's history ([`MemoryStore::fact_history`]). Returns the event id.
    pub async fn fact_set(&self, domain: &str, subject: &str, attribute: &str, value: &str) -> Result<String> {
        self.fact_set_inner(domain, subject, attribute, value, None).await
    }

    /// [`MemoryStore::fact_set`] dated `at` (Unix seconds): when the value became true, as
    /// an agent importing its history knows it. The event is still signed at the system
    /// clock; [`MemoryStore::fact_history`] shows `at`.
    pub async fn fact_set_at(
        &self,
        domain: &str,
        subject: &str,
        attribute: &str,
        value: &str,
        at: f64,
    ) -> Result<String> {
        self.fact_set_inner(domain, subject, attribute, value, Some(at)).await
    }

    async fn fact_set_inner(
        &self,
        domain: &str,
        subject: &str,
        attribute: &str,
        value: &str,
        at: Option<f64>,
    ) -> Result<String> {
        validate_taxonomy("domain", domain)?;
        validate_value(value)?;
        let key = persona::fact_key(subject, attribute)?;
        let (domain, value) = (domain.to_string(), value.to_string());
        self.parts().write(move |tx, engine, life| persona::fact_set(tx, engine, life, &domain, &key, value, at)).await
    }

    /// The current value of a keyed fact in `domain`, if set.
    pub async fn fact_get(&self, domain: &str, subject: &str, attribute: &str) -> Result<Option<String>> {
        Ok(self.fact_history(domain, subject, attribute).await?.pop().map(|v| v.value))
    }

    /// Every value a keyed fact has had, oldest first; the last is current.
    pub async fn fact_history(&self, domain: &str, subject: &str, attribute: &str) -> Result<Vec<FactVersion>> {
        validate_taxonomy("domain", domain)?;
        let address = format!("{domain}/facts/{}", persona::fact_key(subject, attribute)?);
        self.parts().record_accesses().await?;
        self.engine.read(move |conn, _| persona::fact_history(conn, &address)).await
    }

    /// A memory's neighbours in the knowledge graph, strongest first: by `key` or
    /// `domain/facet/key` for persona memories, or by path (`sense-memory/...`).
    pub async fn graph_neighbours(&self, reference: &str) -> Result<Vec<GraphNeighbour>> {
        self.parts().record_accesses().await?;
        review::neighbours(&self.engine, &self.life, reference).await
    }

    /// The memory `reference` names: an address (`domain/facet/key`, `kv/{key}`,
    /// `journal/{ts}`), a plain d tag, or a bare key (flat or persona). A bare key naming
    /// several memories is [`Error::Ambiguous`], listing their addresses.
    pub async fn resolve(&self, reference: &str) -> Result<Resolved> {
        let reference = reference.to_string();
        let path = self.engine.read(move |conn, _| refs::resolve(conn, &reference, false)).await?;
        Ok(Resolved::of(&path))
    }

    /// Archives a memory of any kind: out of search and context, kept locally and on relays
    /// (a new encrypted version carries the mark), back with [`MemoryStore::restore`] or
    /// when a search matches it strongly. Returns its address. Archiving an archived
    /// memory changes nothing.
    pub async fn archive(&self, reference: &str) -> Result<String> {
        self.set_archived(reference, true).await
    }

    /// Brings an archived memory back into search and context (counting an access, so it
    /// starts alive). Returns its address; restoring a memory that is not archived changes
    /// nothing.
    pub async fn restore(&self, reference: &str) -> Result<String> {
        self.set_archived(reference, false).await
    }

    /// [`MemoryStore::restore`] that says whether there was anything to restore: `None`
    /// when the memory was not archived (nothing changed, nothing signed).
    pub async fn restore_if_archived(&self, reference: &str) -> Result<Option<String>> {
        let (address, changed) = self.set_archived_reporting(reference, false).await?;
        Ok(changed.then_some(address))
    }

    async fn set_archived(&self, reference: &str, archived: bool) -> Result<String> {
        Ok(self.set_archived_reporting(reference, archived).await?.0)
    }

    async fn set_archived_reporting(&self, reference: &str, archived: bool) -> Result<(String, bool)> {
        let reference = reference.to_string();
        self.parts()
            .write(move |tx, engine, life| {
                let path = refs::resolve(tx, &reference, false)?;
                let at = archived.then(|| engine.now());
                let changed = persona::set_archived(tx, engine, life, &path, at, true)?;
                Ok((address_of(&path), changed))
            })
            .await
    }

    /// Forgets a memory of any kind everywhere: a tombstone replaces it and a NIP-09
    /// deletion asks relays to drop it; it leaves search at once. `reference` is a flat
    /// key (the published client's `forget`), an address, or a d tag; a bare key naming
    /// several memories is [`Error::Ambiguous`]. A flat key this device has never seen is
    /// still forgotten (relays may hold it). Returns the deletion's event id.
    pub async fn forget(&self, reference: &str) -> Result<String> {
        let reference = reference.to_string();
        self.parts()
            .write(move |tx, engine, _| {
                let path = refs::resolve(tx, &reference, true)?;
                crate::engine::write::forget_path(tx, engine, &path)
            })
            .await
    }

    /// Forgets a memory ([`MemoryStore::forget`]) and wipes its local remnants: the
    /// full-text rows, its vector (the row, and the point in the index, blanked and
    /// saved), its learned graph edges, its published embedding, its address and key, and
    /// what older versions left (the full-text index rebuilt, the database rewritten
    /// without free pages, the WAL truncated: seconds on a large store). Returns the
    /// deletion's event id.
    pub async fn purge(&self, reference: &str) -> Result<String> {
        let reference = reference.to_string();
        let (id, rid) = self.parts().write(move |tx, engine, _| refs::purge(tx, engine, &reference)).await?;
        #[cfg(feature = "vectors")]
        if let (Some(rid), Some(v)) = (rid, self.vectors.clone()) {
            crate::index::pipeline::blank(v, rid).await?;
        }
        #[cfg(not(feature = "vectors"))]
        let _ = rid;
        self.engine.on_writer(refs::after_purge).await?;
        Ok(id)
    }
}
