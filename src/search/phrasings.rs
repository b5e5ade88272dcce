//! The calling agent's own phrasings: a search may carry other wordings of the question and
//! a hypothetical answer (a sentence the memory might read like), written by the agent's
//! language model at no cost to the store. Each is ranked as its own pass, with the same
//! filters and cutoff, and the passes are fused by reciprocal rank: a memory any wording
//! finds can come back, and one several find comes first.

use super::SearchHit;

/// The most phrasings a search takes (the library cuts the rest; the MCP tool refuses more).
pub const MAX_PHRASINGS: usize = 4;

/// The extra texts of `phrasings` and `hypothetical`, trimmed, non-empty, distinct from the
/// query and each other, at most [`MAX_PHRASINGS`] phrasings plus the hypothetical.
pub(crate) fn texts(query: &str, phrasings: &[String], hypothetical: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let seen = |out: &Vec<String>, t: &str| t.eq_ignore_ascii_case(query.trim()) || out.iter().any(|o| o == t);
    for p in phrasings.iter().map(|p| p.trim()).filter(|p| !p.is_empty()).take(MAX_PHRASINGS) {
        let p = crate::text::bounded_query(p).to_string();
        if !seen(&out, &p) {
            out.push(p);
        }
    }
    if let Some(h) = hypothetical.map(str::trim).filter(|h| !h.is_empty()) {
        let h = crate::text::bounded_query(h).to_string();
        if !seen(&out, &h) {
            out.push(h);
        }
    }
    out
}

/// Fuses the question's ranking (`first`) with one ranking per extra text, each with equal
/// weight ([`super::bridge::fuse_passes`], signal `phrasings`).
pub(crate) fn fuse(first: Vec<SearchHit>, others: Vec<Vec<SearchHit>>) -> Vec<SearchHit> {
    let passes = std::iter::once(first).chain(others).map(|list| (list, 1.0)).collect();
    super::bridge::fuse_passes(passes, "phrasings")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::JournalEntry;
    use crate::search::Found;

    fn hit(path: &str, strength: f64) -> SearchHit {
        SearchHit {
            path: path.into(),
            found: Found::Journal(JournalEntry::new(path, 0.0)),
            score: 0.0,
            strength,
            coverage: 0.0,
            signals: Vec::new(),
            revived: false,
            status: crate::model::Status::Active,
            superseded_by: None,
            typed: None,
            context: None,
        }
    }

    #[test]
    fn texts_are_trimmed_distinct_and_bounded() {
        let many: Vec<String> = (0..9).map(|i| format!("phrasing {i}")).collect();
        let t = texts("q", &many, Some(" a memory "));
        assert_eq!(t.len(), MAX_PHRASINGS + 1);
        assert_eq!(t.last().unwrap(), "a memory");
        let t = texts("Same", &["same".into(), " ".into(), "other".into(), "other".into()], Some(""));
        assert_eq!(t, ["other"]);
    }

    #[test]
    fn a_hit_only_a_phrasing_finds_comes_back_and_one_all_find_comes_first() {
        let fused =
            fuse(vec![hit("a", 0.5), hit("b", 0.4)], vec![vec![hit("c", 0.6), hit("b", 0.7)], vec![hit("b", 0.3)]]);
        let order: Vec<&str> = fused.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(order, ["b", "a", "c"]);
        assert_eq!(fused[0].strength, 0.7, "the strongest pass's strength");
        assert_eq!(fused[0].signals.last().unwrap().rank, Some(1));
        assert_eq!(fused[1].signals.last().unwrap().rank, None, "only the question found a");
    }
}
