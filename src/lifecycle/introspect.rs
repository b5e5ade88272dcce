//! A persona's self-review (seed 003's `persona_introspect`): what it holds, what
//! contradicts, what is stale or unconnected, and what to link, revise or compress.
//!
//! Every list in the report is sorted, so the same persona always gives the same report.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};

use crate::ids::{PackedMap, PackedSet};
use crate::model::{IntrospectionReport, MemoryState, PersonaMemory};

/// Default of [`IntrospectOptions::max_listed`]: 50 entries of keys up to 256 bytes fit
/// the report's event several lists over.
pub const MAX_LISTED: usize = 50;

/// The thresholds of a review.
#[derive(Debug, Clone, PartialEq)]
pub struct IntrospectOptions {
    /// A belief below this confidence...
    pub stale_confidence: f64,
    /// ...and below this current relevance is stale.
    pub stale_relevance: f64,
    /// A `domain/facet` with more active memories than this is overloaded.
    pub overloaded_facet: usize,
    /// A domain with more active memories than this could be compressed.
    pub compress_domain: usize,
    /// Memories sharing at least this many themes should perhaps be connected...
    pub shared_themes: usize,
    /// ...as should those at least this similar (from the caller's embeddings).
    pub similar: f64,
    /// At most this many suggested connections, strongest first.
    pub max_suggested_connections: usize,
    /// At most this many entries in each other list (contradictions, stale beliefs,
    /// orphans, overloaded facets, revisions, compressions), the first in its order: the
    /// report is one encrypted event (NIP-44 holds 64 KiB), and a list of 100,000 orphans
    /// is no review. The state counts stay whole.
    pub max_listed: usize,
}

impl Default for IntrospectOptions {
    fn default() -> Self {
        IntrospectOptions {
            stale_confidence: 0.5,
            stale_relevance: 0.3,
            overloaded_facet: 15,
            compress_domain: 30,
            shared_themes: 2,
            similar: 0.8,
            max_suggested_connections: 20,
            max_listed: MAX_LISTED,
        }
    }
}

/// Reviews a persona: `memories` with their current relevance and state (the caller's decay
/// policy decides both), `similar` key pairs with their cosine similarity (empty without
/// embeddings), at time `now`.
///
/// Choices the seed leaves open:
/// - A contradiction is listed only when both memories are present, once per pair, as
///   (older, newer) by creation time (then key); one with a memory that is gone needs no
///   attention.
/// - Orphans are active or fading memories that no present memory connects to and that
///   connect to none; forgotten and dissolved ones are on their way out, and listing them
///   would bury the orphans worth linking. Contradiction links do not count as connections.
/// - Pinned memories are never stale: the agent chose to keep them as they are.
/// - Suggested connections are among active and fading memories, strongest first: more
///   shared themes, then higher similarity, then keys.
/// - `pruned_count` stays 0: this function changes nothing; the store fills it in.
pub fn introspect(
    memories: &[(&PersonaMemory, f64, MemoryState)],
    similar: &[(String, String, f64)],
    options: &IntrospectOptions,
    now: f64,
) -> IntrospectionReport {
    // Each key pair as a pair of memories holding the keys: similarity is a key's.
    let mut holder: HashMap<&str, usize> = HashMap::new();
    for (i, (m, _, _)) in memories.iter().enumerate() {
        holder.entry(m.key.as_str()).or_insert(i);
    }
    let similar: Vec<(usize, usize, f64)> = similar
        .iter()
        .filter_map(|(a, b, sim)| Some((*holder.get(a.as_str())?, *holder.get(b.as_str())?, *sim)))
        .collect();
    let never = |_: &str, _: &str| Ok::<_, std::convert::Infallible>(false);
    match introspect_linked(memories, &similar, options, now, never) {
        Ok(report) => report,
        Err(never) => match never {},
    }
}

/// [`introspect`] with `similar` pairs of positions in `memories` (a pair's similarity is
/// that of the two keys), and pairs of keys linked outside the memories (the store's
/// learned edges): `linked(a, b)` says whether they are, and a linked pair is never
/// suggested. It is asked only of pairs that would make the list, so the list holds the
/// best pairs not yet linked however many better ones there are. Its first error is
/// returned.
pub(crate) fn introspect_linked<E>(
    memories: &[(&PersonaMemory, f64, MemoryState)],
    similar: &[(usize, usize, f64)],
    options: &IntrospectOptions,
    now: f64,
    mut linked: impl FnMut(&str, &str) -> Result<bool, E>,
) -> Result<IntrospectionReport, E> {
    let mut report =
        IntrospectionReport { total_memories: memories.len() as u64, timestamp: now, ..Default::default() };
    for (_, _, state) in memories {
        match state {
            MemoryState::Active => report.active += 1,
            MemoryState::Fading => report.fading += 1,
            MemoryState::Forgotten => report.forgotten += 1,
            _ => report.dissolved += 1,
        }
    }
    for (m, _, _) in memories {
        *report.by_type.entry(m.memory_type().to_string()).or_default() += 1;
        *report.by_tier.entry(super::tier_of(m).to_string()).or_default() += 1;
        if m.goal_status() == Some(crate::model::GoalStatus::Open) && !m.is_superseded() {
            report.open_goals.push(m.key.clone());
        }
    }
    report.open_goals.sort();
    let by_key: BTreeMap<&str, &PersonaMemory> = memories.iter().map(|(m, _, _)| (m.key.as_str(), *m)).collect();
    let present = |k: &str| by_key.contains_key(k);
    let older_first = |a: &str, b: &str| {
        let age = |k: &str| by_key.get(k).map_or(f64::MAX, |m| m.created_at);
        if (age(a), a) <= (age(b), b) {
            (a.to_string(), b.to_string())
        } else {
            (b.to_string(), a.to_string())
        }
    };

    // Contradictions, both ways of recording one: a `contradicts` entry and `superseded_by`.
    let mut contradicting: BTreeSet<(String, String)> = BTreeSet::new();
    for (m, _, _) in memories {
        let others = m.contradicts.iter().map(String::as_str).chain(m.superseded_by.as_deref());
        for other in others.filter(|o| !o.is_empty() && *o != m.key && present(o)) {
            contradicting.insert(older_first(&m.key, other));
        }
    }
    report.contradictions = contradicting.iter().cloned().collect();

    let mut stale: Vec<(f64, &str)> = memories
        .iter()
        .filter(|(m, rel, state)| {
            m.facet == "beliefs"
                && *state != MemoryState::Dissolved
                && !m.sync.life.pinned
                && m.confidence < options.stale_confidence
                && *rel < options.stale_relevance
        })
        .map(|(m, rel, _)| (*rel, m.key.as_str()))
        .collect();
    stale.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
    report.stale_beliefs = dedup(stale.iter().map(|(_, k)| k.to_string()));

    // Connections as undirected edges between present memories.
    let mut edges: BTreeSet<(&str, &str)> = BTreeSet::new();
    for (m, _, _) in memories {
        for c in m.connections.iter().filter(|c| **c != m.key && present(c)) {
            edges.insert(pair(&m.key, c));
        }
    }
    let connected: BTreeSet<&str> = edges.iter().flat_map(|(a, b)| [*a, *b]).collect();
    let live = |s: &MemoryState| matches!(s, MemoryState::Active | MemoryState::Fading);
    let orphans: BTreeSet<String> = memories
        .iter()
        .filter(|(m, _, s)| live(s) && !connected.contains(m.key.as_str()))
        .map(|(m, _, _)| m.key.clone())
        .collect();
    report.orphaned = orphans.into_iter().collect();

    let mut per_facet: BTreeMap<String, usize> = BTreeMap::new();
    let mut per_domain: BTreeMap<&str, usize> = BTreeMap::new();
    for (m, _, _) in memories.iter().filter(|(_, _, s)| *s == MemoryState::Active) {
        *per_facet.entry(format!("{}/{}", m.domain, m.facet)).or_default() += 1;
        *per_domain.entry(&m.domain).or_default() += 1;
    }
    report.overloaded_facets =
        per_facet.into_iter().filter(|(_, n)| *n > options.overloaded_facet).map(|(f, _)| f).collect();
    report.suggested_compressions =
        per_domain.into_iter().filter(|(_, n)| *n > options.compress_domain).map(|(d, _)| d.to_string()).collect();

    report.suggested_connections =
        suggest_connections(memories, similar, &edges, &contradicting, options, &mut linked)?;

    // Beliefs and decisions a newer memory contradicts while nothing has replaced them,
    // and the stale beliefs.
    let mut revisions: BTreeSet<String> = report.stale_beliefs.iter().cloned().collect();
    for (old, new) in &contradicting {
        let m = by_key[old.as_str()];
        let newer = by_key[new.as_str()].created_at > m.created_at;
        if matches!(m.facet.as_str(), "beliefs" | "decisions") && newer && !m.is_superseded() {
            revisions.insert(old.clone());
        }
    }
    report.suggested_revisions = revisions.into_iter().collect();
    let cap = options.max_listed;
    report.contradictions.truncate(cap);
    report.stale_beliefs.truncate(cap);
    report.orphaned.truncate(cap);
    report.overloaded_facets.truncate(cap);
    report.suggested_revisions.truncate(cap);
    report.suggested_compressions.truncate(cap);
    Ok(report)
}

/// Pairs of live memories sharing enough themes or similar enough, not yet linked either
/// way (by a connection, a contradiction, or `linked`).
///
/// Keys are numbered in their sorted order, so pairs hash, compare and rank as numbers
/// the way they would as keys: at 100,000 memories millions of pairs share two themes,
/// and hashing and comparing their key strings was most of a review's time.
fn suggest_connections<E>(
    memories: &[(&PersonaMemory, f64, MemoryState)],
    similar: &[(usize, usize, f64)],
    edges: &BTreeSet<(&str, &str)>,
    contradicting: &BTreeSet<(String, String)>,
    options: &IntrospectOptions,
    linked: &mut impl FnMut(&str, &str) -> Result<bool, E>,
) -> Result<Vec<(String, String)>, E> {
    let live: Vec<&PersonaMemory> = memories
        .iter()
        .filter(|(_, _, s)| matches!(s, MemoryState::Active | MemoryState::Fading))
        .map(|(m, _, _)| *m)
        .collect();
    let mut keys: Vec<&str> = live.iter().map(|m| m.key.as_str()).collect();
    keys.sort_unstable();
    keys.dedup();
    // A map rather than a binary search: the keys' bytes lie all over the heap, and 17
    // probes into them for each of 600,000 similar pairs took two seconds.
    let numbers: HashMap<&str, u32> = keys.iter().enumerate().map(|(n, k)| (*k, n as u32)).collect();
    let number = |k: &str| numbers.get(k).copied();
    let numbered: Vec<u32> = live.iter().map(|m| numbers[m.key.as_str()]).collect();
    let pairs_of = |a: &str, b: &str| Some(code(number(a)?, number(b)?));
    let taken: PackedSet = edges
        .iter()
        .map(|(a, b)| (*a, *b))
        .chain(contradicting.iter().map(|(a, b)| (a.as_str(), b.as_str())))
        .filter_map(|(a, b)| pairs_of(a, b))
        .collect();
    // Each memory's key's number, when the key is live.
    let number_at: Vec<Option<u32>> = memories.iter().map(|(m, _, _)| number(&m.key)).collect();
    let mut similarity: PackedMap<f64> = PackedMap::default();
    for (i, j, sim) in similar {
        let (Some(Some(a)), Some(Some(b))) = (number_at.get(*i), number_at.get(*j)) else { continue };
        if a != b {
            let c = code(*a, *b);
            let e = similarity.entry(c).or_insert(*sim);
            *e = e.max(*sim);
        }
    }

    // Shared themes through an index over the rarest of each memory's themes
    // ([`super::pairs::set_pairs`]), so only pairs that can share enough are visited, and
    // a theme most memories carry costs each at most `PROBE_MAX` comparisons.
    let mut ids: BTreeMap<String, u32> = BTreeMap::new();
    let sets: Vec<Vec<u32>> = live
        .iter()
        .map(|m| {
            let mut set: Vec<u32> = m
                .themes
                .iter()
                .map(|t| t.trim().to_lowercase())
                .filter(|t| !t.is_empty())
                .map(|t| {
                    let next = ids.len() as u32;
                    *ids.entry(t).or_insert(next)
                })
                .collect();
            set.sort_unstable();
            set.dedup();
            set
        })
        .collect();
    let order: Vec<usize> = (0..live.len()).collect();
    let min_shared = options.shared_themes.max(1);
    let mut best =
        Best { cap: options.max_suggested_connections, kept: BinaryHeap::new(), taken, judged: PackedMap::default() };
    let mut themed = PackedSet::default();
    let mut failed = None;
    // Passes from the most themes a pair could share down to the fewest suggested: once
    // the list is full of pairs sharing at least k, no pair sharing fewer can make it, and
    // the passes for fewer (whose candidates are many more) are not run.
    let most = sets.iter().map(Vec::len).max().unwrap_or(0);
    let mut settled = false;
    for k in (min_shared..=most).rev() {
        if sets.iter().filter(|s| s.len() >= k).nth(1).is_none() {
            continue;
        }
        super::pairs::set_pairs_while(&sets, &order, super::pairs::SetRule::Overlap(k), |i, j| {
            let n = super::pairs::shared(&sets[i], &sets[j]);
            // Fewer shared themes than the weakest kept pair cannot make the list, whatever
            // the similarity: the common case once the list is full, decided without a lookup.
            if n < min_shared || best.full() && best.weakest_shared() > n {
                return true;
            }
            let c = code(numbered[i], numbered[j]);
            let sim = similarity.get(&c).copied().unwrap_or(0.0);
            if sim >= options.similar {
                themed.insert(c);
            }
            match best.offer(c, n, sim, &keys, linked) {
                Ok(()) => true,
                Err(e) => {
                    failed = Some(e);
                    false
                }
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        if best.full() && best.weakest_shared() >= k {
            settled = true;
            break;
        }
    }
    // Pairs similar enough without the themes, when the list has room for pairs sharing
    // none: in key order, so the same pairs are asked of `linked` whatever the map's order.
    if !settled {
        let mut alike: Vec<(i64, f64)> =
            similarity.into_iter().filter(|(c, sim)| *sim >= options.similar && !themed.contains(c)).collect();
        alike.sort_unstable_by_key(|(c, _)| *c);
        for (c, sim) in alike {
            best.offer(c, 0, sim, &keys, linked)?;
        }
    }
    let mut out: Vec<Ranked> = best.kept.into_iter().map(|r| r.0).collect();
    out.sort_by(|x, y| y.cmp(x));
    Ok(out.into_iter().map(|r| (keys[r.pair.0 as usize].to_string(), keys[r.pair.1 as usize].to_string())).collect())
}

/// Two numbered keys as one number, the smaller first (a pair either way is one pair).
fn code(a: u32, b: u32) -> i64 {
    (i64::from(a.min(b)) << 32) | i64::from(a.max(b))
}

/// The best `cap` suggestions so far, kept in a bounded heap (the weakest on top) rather
/// than every pair sharing themes, which at 100,000 memories is millions.
struct Best {
    cap: usize,
    kept: BinaryHeap<Reverse<Ranked>>,
    /// Pairs linked by a connection or a contradiction.
    taken: PackedSet,
    /// What `linked` said of each pair it was asked about.
    judged: PackedMap<bool>,
}

impl Best {
    fn full(&self) -> bool {
        self.kept.len() >= self.cap
    }

    fn weakest_shared(&self) -> usize {
        self.kept.peek().map_or(0, |w| w.0.shared)
    }

    fn offer<E>(
        &mut self,
        c: i64,
        shared: usize,
        similarity: f64,
        keys: &[&str],
        linked: &mut impl FnMut(&str, &str) -> Result<bool, E>,
    ) -> Result<(), E> {
        let pair = ((c >> 32) as u32, (c & 0xffff_ffff) as u32);
        let r = Ranked { shared, similarity, pair };
        if self.cap == 0 || pair.0 == pair.1 || self.full() && self.kept.peek().is_some_and(|w| w.0 >= r) {
            return Ok(());
        }
        if self.taken.contains(&c) {
            return Ok(());
        }
        // A key in two facets can make the same pair twice: the better one stays.
        if let Some(old) = self.kept.iter().find(|x| x.0.pair == pair) {
            if old.0 >= r {
                return Ok(());
            }
            let mut rest = std::mem::take(&mut self.kept).into_vec();
            rest.retain(|x| x.0.pair != pair);
            self.kept = rest.into();
        } else {
            let is_linked = match self.judged.get(&c) {
                Some(known) => *known,
                None => {
                    let answer = linked(keys[pair.0 as usize], keys[pair.1 as usize])?;
                    self.judged.insert(c, answer);
                    answer
                }
            };
            if is_linked {
                return Ok(());
            }
        }
        if self.full() {
            self.kept.pop();
        }
        self.kept.push(Reverse(r));
        Ok(())
    }
}

/// A suggested connection's rank: more shared themes, then higher similarity, then the
/// keys (earlier first; numbered in key order).
#[derive(Debug, PartialEq)]
struct Ranked {
    shared: usize,
    similarity: f64,
    pair: (u32, u32),
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.shared
            .cmp(&other.shared)
            .then(self.similarity.total_cmp(&other.similarity))
            .then(other.pair.cmp(&self.pair))
    }
}

fn pair<'a>(a: &'a str, b: &'a str) -> (&'a str, &'a str) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

/// Keys in the given order, each once (a key can live in two facets).
fn dedup(keys: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    keys.into_iter().filter(|k| seen.insert(k.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bounded list of suggestions is the head of the full ranking: with many memories
    /// sharing themes, a cap of 20 lists exactly the first 20 of what no cap lists.
    #[test]
    fn suggested_connections_are_the_head_of_the_full_ranking() {
        let themes = ["a", "b", "c", "d", "e", "f"];
        let mut z = 7u64;
        let mut next = move || {
            z ^= z << 13;
            z ^= z >> 7;
            z ^= z << 17;
            z
        };
        let memories: Vec<PersonaMemory> = (0..300)
            .map(|i| {
                let mut m = PersonaMemory::new("self", "facts", format!("k{i:03}"), "v", NOW);
                m.themes = (0..1 + next() % 3).map(|_| themes[(next() % 6) as usize].to_string()).collect();
                m
            })
            .collect();
        let view: Vec<(&PersonaMemory, f64, MemoryState)> =
            memories.iter().map(|m| (m, 1.0, MemoryState::Active)).collect();
        let similar: Vec<(String, String, f64)> = (0..150)
            .map(|_| {
                (format!("k{:03}", next() % 300), format!("k{:03}", next() % 300), 0.7 + (next() % 300) as f64 / 1000.0)
            })
            .collect();
        let capped = IntrospectOptions::default();
        let all = IntrospectOptions { max_suggested_connections: usize::MAX, ..Default::default() };
        let head = introspect(&view, &similar, &capped, NOW).suggested_connections;
        let full = introspect(&view, &similar, &all, NOW).suggested_connections;
        assert_eq!(head.len(), capped.max_suggested_connections);
        assert!(full.len() > 1_000, "{}", full.len());
        assert_eq!(head, full[..head.len()]);
    }

    /// Pairs linked elsewhere (`linked`) are left out before the list is cut: with the ten
    /// best linked, the list is the next twenty of the full ranking, not its ten others.
    #[test]
    fn linked_pairs_leave_room_for_the_next_best() {
        let memories: Vec<PersonaMemory> = (0..60)
            .map(|i| {
                let mut m = PersonaMemory::new("self", "facts", format!("k{i:02}"), "v", NOW);
                m.themes = if i % 3 == 0 { strings(&["a", "b", "c"]) } else { strings(&["a", "b"]) };
                m
            })
            .collect();
        let view: Vec<(&PersonaMemory, f64, MemoryState)> =
            memories.iter().map(|m| (m, 1.0, MemoryState::Active)).collect();
        let all = IntrospectOptions { max_suggested_connections: usize::MAX, ..Default::default() };
        let full = introspect(&view, &[], &all, NOW).suggested_connections;
        let taken: BTreeSet<(String, String)> = full[..10].iter().cloned().collect();
        let mut asked = 0;
        let linked = |a: &str, b: &str| {
            asked += 1;
            Ok::<_, std::convert::Infallible>(taken.contains(&(a.to_string(), b.to_string())))
        };
        let capped = IntrospectOptions::default();
        let r = introspect_linked(&view, &[], &capped, NOW, linked).unwrap();
        assert_eq!(r.suggested_connections, full[10..30]);
        // Asked only of pairs that would make the list, not of the 1,770 pairs.
        assert!(asked < 400, "{asked}");
    }

    const NOW: f64 = 1_800_000_000.0;
    const DAY: f64 = 86_400.0;

    struct Spec {
        domain: &'static str,
        facet: &'static str,
        key: &'static str,
        age_days: f64,
        relevance: f64,
        state: MemoryState,
    }

    fn spec(domain: &'static str, facet: &'static str, key: &'static str, age_days: f64, relevance: f64) -> Spec {
        Spec { domain, facet, key, age_days, relevance, state: MemoryState::from_relevance(relevance) }
    }

    fn build(specs: &[Spec], edit: impl Fn(&mut PersonaMemory)) -> Vec<PersonaMemory> {
        specs
            .iter()
            .map(|s| {
                let mut m =
                    PersonaMemory::new(s.domain, s.facet, s.key, format!("about {}", s.key), NOW - s.age_days * DAY);
                edit(&mut m);
                m
            })
            .collect()
    }

    fn strings(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    /// Eleven memories with three contradictions (one already resolved by supersession,
    /// one recorded on a fact, one on a belief nobody replaced), two orphans and one
    /// dangling reference.
    fn fixture() -> (Vec<PersonaMemory>, Vec<Spec>) {
        let specs = vec![
            spec("people", "facts", "alice-coffee", 40.0, 0.9),
            spec("people", "facts", "alice-tea", 30.0, 0.8),
            spec("people", "facts", "alice-no-coffee", 10.0, 0.9),
            spec("self", "beliefs", "rust-is-best", 50.0, 0.7),
            spec("self", "beliefs", "go-is-fine", 5.0, 0.9),
            spec("skills", "procedures", "tooling", 20.0, 0.6),
            spec("self", "beliefs", "old-hunch", 90.0, 0.2),
            spec("projects", "decisions", "use-postgres", 60.0, 0.15),
            spec("projects", "decisions", "use-sqlite", 3.0, 1.0),
            spec("world", "facts", "lost-fact", 200.0, 0.05),
            spec("world", "facts", "dead-thing", 400.0, 0.001),
        ];
        let ms = build(&specs, |m| {
            let set = |xs: &[&str]| strings(xs);
            match m.key.as_str() {
                "alice-coffee" => {
                    m.themes = set(&["drinks", "Alice"]);
                    m.connections = set(&["alice-tea"]);
                }
                "alice-tea" => m.themes = set(&["alice", "drinks"]),
                "alice-no-coffee" => {
                    m.themes = set(&["drinks ", "alice"]);
                    m.contradicts = set(&["alice-coffee"]);
                }
                "rust-is-best" => m.connections = set(&["tooling"]),
                "go-is-fine" => {
                    m.contradicts = set(&["rust-is-best"]);
                    m.connections = set(&["tooling"]);
                }
                "old-hunch" => m.confidence = 0.3,
                "use-postgres" => {
                    m.superseded_by = Some("use-sqlite".into());
                    m.connections = set(&["use-sqlite"]);
                }
                "lost-fact" => m.contradicts = set(&["gone-key"]),
                _ => {}
            }
        });
        (ms, specs)
    }

    #[test]
    fn report_on_a_known_persona() {
        let (ms, specs) = fixture();
        let input: Vec<_> = ms.iter().zip(&specs).map(|(m, s)| (m, s.relevance, s.state)).collect();
        let similar = vec![
            ("tooling".to_string(), "use-sqlite".to_string(), 0.85),
            ("alice-tea".to_string(), "rust-is-best".to_string(), 0.5),
        ];
        let options = IntrospectOptions { overloaded_facet: 2, compress_domain: 2, ..IntrospectOptions::default() };
        let full = introspect(&input, &similar, &options, NOW);
        let mut report = full.clone();
        // The type and tier counts are memstr's own; checked in `types_and_open_goals`.
        assert_eq!(std::mem::take(&mut report.by_type).values().sum::<u64>(), 11);
        assert_eq!(std::mem::take(&mut report.by_tier).values().sum::<u64>(), 11);
        let pairs = |xs: &[(&str, &str)]| xs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
        assert_eq!(
            report,
            IntrospectionReport {
                total_memories: 11,
                active: 7,
                fading: 2,
                forgotten: 1,
                dissolved: 1,
                contradictions: pairs(&[
                    ("alice-coffee", "alice-no-coffee"),
                    ("rust-is-best", "go-is-fine"),
                    ("use-postgres", "use-sqlite"),
                ]),
                stale_beliefs: strings(&["old-hunch"]),
                orphaned: strings(&["alice-no-coffee", "old-hunch"]),
                overloaded_facets: strings(&["people/facts"]),
                suggested_connections: pairs(&[("alice-no-coffee", "alice-tea"), ("tooling", "use-sqlite")]),
                suggested_revisions: strings(&["old-hunch", "rust-is-best"]),
                suggested_compressions: strings(&["people"]),
                pruned_count: 0,
                timestamp: NOW,
                ..Default::default()
            }
        );
        // Order of input does not matter.
        let reversed: Vec<_> = input.iter().rev().cloned().collect();
        assert_eq!(introspect(&reversed, &similar, &options, NOW), full);
    }

    #[test]
    fn types_and_open_goals() {
        let mut ms = [
            PersonaMemory::new("self", "facts", "name", "Ada", NOW),
            PersonaMemory::new("self", "goals", "ship", "Ship 1.0", NOW),
            PersonaMemory::new("self", "goals", "learn-go", "Learn Go", NOW),
            PersonaMemory::new("skills", "procedures", "deploy", "Run make deploy", NOW),
        ];
        ms[2].sync.life.goal_status = Some(crate::model::GoalStatus::Done);
        ms[3].access_count = 3;
        let input: Vec<_> = ms.iter().map(|m| (m, 1.0, MemoryState::Active)).collect();
        let r = introspect(&input, &[], &IntrospectOptions::default(), NOW);
        let counts = |xs: &[(&str, u64)]| xs.iter().map(|(k, v)| (k.to_string(), *v)).collect::<BTreeMap<_, _>>();
        assert_eq!(r.by_type, counts(&[("fact", 1), ("goal", 2), ("procedure", 1)]));
        assert_eq!(r.by_tier, counts(&[("episodic", 1), ("working", 3)]));
        assert_eq!(r.open_goals, vec!["ship".to_string()], "a done goal is not open");
    }

    #[test]
    fn defaults_and_double_records() {
        let specs = [spec("self", "beliefs", "a", 2.0, 1.0), spec("self", "beliefs", "b", 1.0, 1.0)];
        let ms = build(&specs, |m| {
            if m.key == "a" {
                m.contradicts = strings(&["b"]);
                m.superseded_by = Some("b".into());
            } else {
                m.contradicts = strings(&["a"]);
            }
        });
        let input: Vec<_> = ms.iter().map(|m| (m, 1.0, MemoryState::Active)).collect();
        let report = introspect(&input, &[], &IntrospectOptions::default(), NOW);
        // Recorded three times, reported once, older first; superseded, so no revision.
        assert_eq!(report.contradictions, [("a".to_string(), "b".to_string())]);
        assert!(report.suggested_revisions.is_empty());
        assert!(report.overloaded_facets.is_empty() && report.suggested_compressions.is_empty());
        assert_eq!(report.orphaned, strings(&["a", "b"]));
        assert_eq!(IntrospectOptions::default().overloaded_facet, 15);
        assert_eq!(IntrospectOptions::default().compress_domain, 30);
    }
}
