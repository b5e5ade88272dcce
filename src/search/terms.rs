//! Each searched word's postings, kept between searches: which records hold it, its share
//! of their BM25, and whether their own words hold it (not only their episode's context).
//!
//! FTS5 scores an any-word query by summing one share per word, so the sum of cached
//! shares is the score FTS5 would give (`engine::fts`'s tests check it), and a search
//! reads from SQLite only the words it has not seen since the last write. Term coverage
//! and document frequencies come from the same postings. The cache is dropped whole when
//! the full-text index changes, by this process or any other ([`fts::index_stamp`]), and
//! when it would hold more than [`MAX_POSTINGS`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rusqlite::Connection;

use crate::engine::doc_sizes::{in_read_transaction, DocSizes};
use crate::engine::fts;
use crate::error::Result;
use crate::lifecycle::runtime::relock;

/// Postings held at most (about 24 bytes each: 24 MB): past it the cache starts again, so
/// memory stays bounded on any store and any stream of queries.
pub const MAX_POSTINGS: usize = 1_000_000;

/// One word's postings, by rowid.
#[derive(Debug, Default)]
pub(crate) struct Postings {
    /// `(rowid, BM25 share, own words hold it)`, ascending by rowid.
    rows: Vec<(i64, f64, bool)>,
    /// Records whose own words hold it.
    own_df: u64,
}

impl Postings {
    /// Records whose own words hold the word (its document frequency for coverage).
    pub(crate) fn own_df(&self) -> u64 {
        self.own_df
    }

    /// Whether `rid`'s own words hold the word.
    pub(crate) fn own_holds(&self, rid: i64) -> bool {
        self.rows.binary_search_by_key(&rid, |r| r.0).is_ok_and(|i| self.rows[i].2)
    }

    /// How many records hold it.
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    /// Every record holding it, with its BM25 share.
    pub(crate) fn scores(&self) -> impl Iterator<Item = (i64, f64)> + '_ {
        self.rows.iter().map(|(rid, score, _)| (*rid, *score))
    }
}

/// The cache a store's searches share.
#[derive(Default)]
pub(crate) struct TermCache {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// The full-text index the postings were read from.
    stamp: Vec<u8>,
    /// By word and the context weight (its bits) the shares were computed with.
    words: HashMap<(String, u64), Arc<Postings>>,
    held: usize,
}

impl TermCache {
    /// The postings of each of `terms` (in order), read from `conn` where not cached, their
    /// scores with the row sizes of `sizes`.
    pub(crate) fn postings(
        &self,
        conn: &Connection,
        sizes: &DocSizes,
        terms: &[String],
        context: f64,
    ) -> Result<Vec<Arc<Postings>>> {
        // One read transaction: the stamp, the row sizes and the postings of one state.
        in_read_transaction(conn, || self.read(conn, sizes, terms, context))
    }

    fn read(&self, conn: &Connection, sizes: &DocSizes, terms: &[String], context: f64) -> Result<Vec<Arc<Postings>>> {
        let stamp = fts::index_stamp(conn)?;
        let mut out = Vec::with_capacity(terms.len());
        let mut missing = Vec::new();
        {
            let mut inner = relock(&self.inner);
            if inner.stamp != stamp {
                *inner = Inner { stamp: stamp.clone(), ..Default::default() };
            }
            for (i, t) in terms.iter().enumerate() {
                match inner.words.get(&(t.clone(), context.to_bits())) {
                    Some(p) => out.push(p.clone()),
                    None => {
                        out.push(Arc::default());
                        missing.push(i);
                    }
                }
            }
        }
        if missing.is_empty() {
            return Ok(out);
        }
        // Read outside the lock: other searches go on meanwhile. The row sizes are the
        // ones this read transaction sees.
        let map = sizes.refresh(conn)?;
        for &i in &missing {
            let rows = fts::term_postings(conn, &terms[i], context, map.as_ref())?;
            let own_df = rows.iter().filter(|r| r.2).count() as u64;
            out[i] = Arc::new(Postings { rows, own_df });
        }
        let mut inner = relock(&self.inner);
        // Kept only if nothing was written meanwhile (the read saw one state of the index).
        if inner.stamp == stamp {
            for &i in &missing {
                let size = out[i].rows.len();
                if inner.held + size > MAX_POSTINGS {
                    inner.words.clear();
                    inner.held = 0;
                }
                if size <= MAX_POSTINGS
                    && inner.words.insert((terms[i].clone(), context.to_bits()), out[i].clone()).is_none()
                {
                    inner.held += size;
                }
            }
        }
        Ok(out)
    }
}
