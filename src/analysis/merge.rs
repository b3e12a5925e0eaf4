//! `vkmm merge`: the JSON of several `vkmm suite --format json` runs put
//! back together into one [`Summary`]. A shard's JSON names its run and its
//! place in it ([`ShardInfo`]: `K/N` and a run id), so a merge of shards is
//! checked whole: every shard of the run once, no shard twice, no shard of
//! another run. A check recorded twice (the same file, property and query)
//! is an error too, so a file given twice never counts its checks twice.

use super::suite::{Record, ShardInfo, Summary};
use crate::frontend::FrontendWarning;

/// One suite JSON document to merge, under the name errors give it.
pub struct Part {
    pub name: String,
    pub doc: serde_json::Value,
}

/// The merged summary of `parts`, or an error naming the file at fault: a
/// document that is not suite JSON, a shard given twice, a shard missing,
/// shards of different runs, a check recorded twice.
pub fn merge(parts: &[Part]) -> Result<Summary, String> {
    let mut records: Vec<Record> = Vec::new();
    let mut warnings: Vec<FrontendWarning> = Vec::new();
    let mut time = 0.0f64;
    // (file name, shard) of every sharded part.
    let mut shards: Vec<(&str, ShardInfo)> = Vec::new();
    let mut unsharded: Vec<&str> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    for p in parts {
        let doc = &p.doc;
        if doc["schema"] != super::schema::SCHEMA || doc["command"] != "suite" {
            return Err(format!(
                "{}: not the JSON of `vkmm suite` under schema {}",
                p.name,
                super::schema::SCHEMA
            ));
        }
        let part: Vec<Record> = serde_json::from_value(doc["records"].clone())
            .map_err(|e| format!("{}: bad records: {e}", p.name))?;
        match doc.get("shard") {
            None | Some(serde_json::Value::Null) => unsharded.push(&p.name),
            Some(v) => {
                let s: ShardInfo = serde_json::from_value(v.clone())
                    .map_err(|e| format!("{}: bad shard: {e}", p.name))?;
                if s.k == 0 || s.k > s.n {
                    return Err(format!("{}: bad shard {}/{}", p.name, s.k, s.n));
                }
                if let Some((other, _)) = shards.iter().find(|(_, t)| t == &s) {
                    return Err(format!(
                        "{}: shard {}/{} of run {} given twice (also {other})",
                        p.name, s.k, s.n, s.run
                    ));
                }
                if let Some((other, t)) = shards.first()
                    && (t.run != s.run || t.n != s.n)
                {
                    return Err(format!(
                        "{}: shard {}/{} of run {} does not belong with {other} (shard {}/{} of run {})",
                        p.name, s.k, s.n, s.run, t.k, t.n, t.run
                    ));
                }
                shards.push((&p.name, s));
            }
        }
        // Checked against earlier files only: one CSV may ask the same
        // check twice (rows at two unrolling bounds).
        let mut keys = Vec::new();
        for r in &part {
            if let Some(k) = check_key(r) {
                if seen.contains(&k) {
                    return Err(format!(
                        "{}: the check of {}{} is already in an earlier file (merge each shard once)",
                        p.name,
                        r.file,
                        r.query
                            .as_deref()
                            .map_or(String::new(), |q| format!(" ({q})"))
                    ));
                }
                keys.push(k);
            }
        }
        seen.extend(keys);
        records.extend(part);
        let warned: Vec<FrontendWarning> =
            serde_json::from_value(doc["warnings"].clone()).unwrap_or_default();
        warnings.extend(warned);
        time = time.max(doc["time"].as_f64().unwrap_or(0.0));
    }
    if let Some((first, s)) = shards.first() {
        if let Some(u) = unsharded.first() {
            return Err(format!(
                "{u}: a whole suite's JSON merged with shards of run {} ({first})",
                s.run
            ));
        }
        let missing: Vec<String> = (1..=s.n)
            .filter(|k| !shards.iter().any(|(_, t)| t.k == *k))
            .map(|k| format!("{k}/{}", s.n))
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "shard{} {} of run {} missing: give every shard's JSON (an incomplete merge would hide their checks)",
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", "),
                s.run
            ));
        }
    }
    let mut summary =
        Summary::from_records(records, std::time::Duration::from_secs_f64(time / 1000.0));
    summary.add_warnings(&warnings);
    Ok(summary)
}

/// A check's identity: its file, property, query and expectation (a CSV
/// row, a `.test` query, a litmus file); `None` for an error record (a file
/// may fail in two shards' CSV rows).
fn check_key(r: &Record) -> Option<String> {
    (r.status != super::suite::Status::Error).then(|| {
        format!(
            "{}\u{0}{:?}\u{0}{:?}\u{0}{:?}",
            r.file, r.property, r.query, r.expected
        )
    })
}
