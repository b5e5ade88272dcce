//! A persona's self-review (seed 003's `persona_introspect`): what it holds, what
//! contradicts, what is stale or unconnected, and what to link, revise or compress.
//!
//! Every list in the report is sorted, so the same persona always gives the same report.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet};

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

    report.suggested_connections = suggest_connections(memories, similar, &edges, &contradicting, options);

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
    report
}

/// Pairs of live memories sharing enough themes or similar enough, not yet linked either
/// way (by a connection or a contradiction).
fn suggest_connections<'a>(
    memories: &'a [(&'a PersonaMemory, f64, MemoryState)],
    similar: &'a [(String, String, f64)],
    edges: &BTreeSet<(&str, &str)>,
    contradicting: &BTreeSet<(String, String)>,
    options: &IntrospectOptions,
) -> Vec<(String, String)> {
    let live: Vec<&PersonaMemory> = memories
        .iter()
        .filter(|(_, _, s)| matches!(s, MemoryState::Active | MemoryState::Fading))
        .map(|(m, _, _)| *m)
        .collect();
    let live_keys: BTreeSet<&str> = live.iter().map(|m| m.key.as_str()).collect();

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
    let similarity: HashMap<(&str, &str), f64> = similar.iter().fold(HashMap::new(), |mut m, (a, b, sim)| {
        let e = m.entry(pair(a, b)).or_insert(*sim);
        *e = e.max(*sim);
        m
    });
    let wanted = |p: (&str, &str)| {
        p.0 != p.1
            && !edges.contains(&p)
            && !contradicting.contains(&(p.0.to_string(), p.1.to_string()))
            && !contradicting.contains(&(p.1.to_string(), p.0.to_string()))
    };
    // Only the best `max_suggested_connections` are listed: kept in a bounded heap (the
    // weakest on top) rather than every pair sharing themes, which at 100,000 memories
    // is millions.
    let cap = options.max_suggested_connections;
    let mut best: BinaryHeap<Reverse<Ranked<'a>>> = BinaryHeap::new();
    let mut offer = |p: (&'a str, &'a str), n: usize, sim: f64| {
        if cap == 0 || !wanted(p) {
            return;
        }
        let r = Ranked { shared: n, similarity: sim, pair: p };
        if best.len() >= cap && best.peek().is_some_and(|w| w.0 >= r) {
            return;
        }
        // A key in two facets can make the same pair twice: the better one stays.
        if let Some(old) = best.iter().find(|x| x.0.pair == r.pair) {
            if old.0 >= r {
                return;
            }
            let mut rest = std::mem::take(&mut best).into_vec();
            rest.retain(|x| x.0.pair != r.pair);
            best = rest.into();
        }
        if best.len() >= cap {
            best.pop();
        }
        best.push(Reverse(r));
    };
    let mut themed: HashSet<(&str, &str)> = HashSet::new();
    super::pairs::set_pairs(&sets, &order, super::pairs::SetRule::Overlap(min_shared), |i, j| {
        let n = super::pairs::shared(&sets[i], &sets[j]);
        if n < min_shared {
            return;
        }
        let p = pair(&live[i].key, &live[j].key);
        let sim = similarity.get(&p).copied().unwrap_or(0.0);
        if sim >= options.similar {
            themed.insert(p);
        }
        offer(p, n, sim);
    });
    for (p, sim) in &similarity {
        if *sim >= options.similar && !themed.contains(p) && live_keys.contains(p.0) && live_keys.contains(p.1) {
            offer(*p, 0, *sim);
        }
    }
    let mut out: Vec<Ranked> = best.into_iter().map(|r| r.0).collect();
    out.sort_by(|x, y| y.cmp(x));
    out.into_iter().map(|r| (r.pair.0.to_string(), r.pair.1.to_string())).collect()
}

/// A suggested connection's rank: more shared themes, then higher similarity, then the
/// keys (earlier first).
#[derive(Debug, PartialEq)]
struct Ranked<'a> {
    shared: usize,
    similarity: f64,
    pair: (&'a str, &'a str),
}

impl Eq for Ranked<'_> {}

impl PartialOrd for Ranked<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked<'_> {
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
