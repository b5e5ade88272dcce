//! Record kinds in SQL: [`RecordKind`] is stored under its name in `records.kind` and bound
//! as a parameter, or written in by [`sql_list`] where a bound kind would make SQLite plan
//! the statement again on every call (docs/ARCHITECTURE.md, "Statements"): no query spells
//! a kind out.

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use crate::codec::RecordKind;

impl ToSql for RecordKind {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for RecordKind {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let name = value.as_str()?;
        RecordKind::from_name(name).ok_or_else(|| FromSqlError::Other(format!("unknown record kind {name:?}").into()))
    }
}

/// A SQL list of kinds (`'kv','persona'`) for an `IN (...)` clause: the one place a
/// kind's name is written into a statement, from the enum itself.
pub(crate) fn sql_list(kinds: &[RecordKind]) -> String {
    kinds.iter().map(|k| format!("'{}'", k.as_str())).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_through_sql() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for kind in RecordKind::ALL {
            let back: RecordKind = conn.query_row("SELECT ?1", [kind], |r| r.get(0)).unwrap();
            assert_eq!(back, kind);
        }
        let bad: rusqlite::Result<RecordKind> = conn.query_row("SELECT 'nope'", [], |r| r.get(0));
        assert!(bad.is_err());
    }
}
