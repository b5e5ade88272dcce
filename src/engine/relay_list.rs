//! This device's copy of the agent's relay list (NIP-37, docs/sync.md "Add a device"):
//! the `relay_list` table holds every relay ever listed with its last add and removal, the
//! newest kind-10013 event is kept in `events` like any other (so every relay gets it), and
//! a new one is signed whenever the merged list differs from the newest signed one.

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::Engine;
use crate::codec::{Codec, RelayEntry, KIND_PRIVATE_RELAYS, MAX_LIST_ENTRIES};
use crate::engine::Outcome;
use crate::error::Result;
use nostr::{Event, JsonUtil};

/// Rows the table keeps at most: a list cannot grow it past this.
const MAX_ROWS: i64 = 1_024;

/// Every relay ever listed, oldest first.
pub(crate) fn entries(conn: &Connection) -> rusqlite::Result<Vec<RelayEntry>> {
    let mut stmt = conn.prepare_cached("SELECT url, added_at, removed_at FROM relay_list ORDER BY added_at, url")?;
    let rows = stmt.query_map([], |r| Ok(RelayEntry::new(r.get::<_, String>(0)?, r.get(1)?, r.get(2)?)))?;
    rows.collect()
}

/// Merges `incoming` into the table (bounded by [`MAX_ROWS`]). Returns whether it changed.
fn merge(tx: &Transaction, incoming: &[RelayEntry]) -> rusqlite::Result<bool> {
    let mut changed = false;
    for e in incoming.iter().take(MAX_LIST_ENTRIES) {
        let known: Option<(i64, i64)> = tx
            .query_row("SELECT added_at, removed_at FROM relay_list WHERE url = ?1", [&e.url], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        match known {
            Some((a, r)) if a >= e.added_at && r >= e.removed_at => {}
            Some(_) => {
                tx.execute(
                    "UPDATE relay_list SET added_at = max(added_at, ?2), removed_at = max(removed_at, ?3) WHERE url = ?1",
                    params![e.url, e.added_at, e.removed_at],
                )?;
                changed = true;
            }
            None => {
                let rows: i64 = tx.query_row("SELECT count(*) FROM relay_list", [], |r| r.get(0))?;
                if rows < MAX_ROWS {
                    tx.execute(
                        "INSERT INTO relay_list (url, added_at, removed_at) VALUES (?1, ?2, ?3)",
                        params![e.url, e.added_at, e.removed_at],
                    )?;
                    changed = true;
                }
            }
        }
    }
    Ok(changed)
}

/// A list of ours from elsewhere (a relay, an import): merged, kept when it is the newest,
/// and answered with a merged list when it lacks something this device knows.
pub(crate) fn apply(tx: &Transaction, codec: &Codec, event: &Event, incoming: &[RelayEntry]) -> Result<Outcome> {
    let changed = merge(tx, incoming)?;
    let newest: Option<i64> =
        tx.query_row("SELECT max(created_at) FROM events WHERE kind = ?1", [KIND_PRIVATE_RELAYS], |r| r.get(0))?;
    let created_at = event.created_at.as_secs() as i64;
    let outcome = if newest.is_none_or(|n| created_at > n) {
        // Kept as the newest list; the relays it came from hold it already (no outbox).
        tx.execute("DELETE FROM events WHERE kind = ?1", [KIND_PRIVATE_RELAYS])?;
        tx.execute(
            "INSERT INTO events (id, kind, created_at, json) VALUES (?1, ?2, ?3, ?4)",
            params![event.id.to_hex(), KIND_PRIVATE_RELAYS, created_at, event.as_json()],
        )?;
        Outcome::Applied
    } else if changed {
        Outcome::Applied
    } else {
        Outcome::Stale
    };
    republish_if_changed(tx, codec)?;
    Ok(outcome)
}

/// A relay added (`true`) or removed on this device: its entry moves to now, and the list
/// is signed again.
#[cfg_attr(not(feature = "sync"), allow(dead_code))]
pub(crate) fn local_change(tx: &Transaction, engine: &Engine, url: &str, added: bool) -> Result<()> {
    let now = crate::clock::system_secs();
    let known: Option<(i64, i64)> = tx
        .query_row("SELECT added_at, removed_at FROM relay_list WHERE url = ?1", [url], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    // Later than anything this entry has seen, whatever the clock says.
    let at = now.max(known.map_or(0, |(a, r)| a.max(r) + 1));
    let entry = if added {
        RelayEntry::new(url, at, known.map_or(0, |k| k.1))
    } else {
        RelayEntry::new(url, known.map_or(0, |k| k.0), at)
    };
    if known.is_none() && !added {
        return Ok(());
    }
    tx.execute(
        "INSERT INTO relay_list (url, added_at, removed_at) VALUES (?1, ?2, ?3)
         ON CONFLICT(url) DO UPDATE SET added_at = ?2, removed_at = ?3",
        params![entry.url, entry.added_at, entry.removed_at],
    )?;
    republish_if_changed(tx, engine.codec())
}

/// Signs a new list when the table differs from the newest signed one (or `force`), and
/// queues it for every relay; with the public list on (`meta.public_relay_list`), a NIP-65
/// list too. The table holds every list it has seen merged, so it is what is signed.
pub(crate) fn republish_if_changed(tx: &Transaction, codec: &Codec) -> Result<()> {
    republish(tx, codec, false)
}

pub(crate) fn republish(tx: &Transaction, codec: &Codec, force: bool) -> Result<()> {
    let by_url = |mut v: Vec<RelayEntry>| {
        v.sort_by(|a, b| a.url.cmp(&b.url));
        v
    };
    let ours = by_url(entries(tx)?);
    let stored: Option<(String, i64)> = tx
        .query_row("SELECT json, created_at FROM events WHERE kind = ?1", [KIND_PRIVATE_RELAYS], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    let signed = stored
        .as_ref()
        .and_then(|(json, _)| Event::from_json(json).ok())
        .and_then(|e| codec.decode_relay_list(&e).ok())
        .map(by_url);
    let unchanged = match &signed {
        Some(signed) => *signed == ours,
        None => ours.is_empty(),
    };
    if unchanged && !force {
        return Ok(());
    }
    let at = (crate::clock::system_secs()).max(stored.map_or(0, |(_, t)| t + 1)) as u64;
    replace_event(tx, &codec.relay_list_event(&ours, at)?)?;
    let public: bool = tx
        .query_row("SELECT value = '1' FROM meta WHERE name = 'public_relay_list'", [], |r| r.get(0))
        .optional()?
        .unwrap_or(false);
    if public {
        replace_event(tx, &codec.public_relay_list_event(&ours, at)?)?;
    }
    Ok(())
}

/// Keeps `event` as the one event of its (replaceable) kind, queued for every relay.
fn replace_event(tx: &Transaction, event: &Event) -> Result<()> {
    let kind = event.kind.as_u16();
    tx.execute("DELETE FROM events WHERE kind = ?1", [kind])?;
    tx.execute(
        "INSERT INTO events (id, kind, created_at, json) VALUES (?1, ?2, ?3, ?4)",
        params![event.id.to_hex(), kind, event.created_at.as_secs() as i64, event.as_json()],
    )?;
    super::write::enqueue(tx, event)?;
    Ok(())
}
