//! JSON reports under a versioned schema (documented in `docs/json.md`).
//!
//! Every document vkmm prints is one object with `"schema"` (the schema's
//! name and major version, `vkmm/1`) and `"command"` (what produced it), then
//! the command's fields. A change that removes or renames a field, or
//! changes its meaning, bumps the major version; new fields may appear
//! within a version.

use serde::Serialize;
use serde_json::{Map, Value};

/// The schema name and major version in every JSON document.
pub use crate::analysis::SCHEMA;

/// A JSON document: `{"schema": SCHEMA, "command": command, ...fields}`.
/// `fields` must serialise to an object; anything else lands under `"result"`.
pub fn document<T: Serialize>(command: &str, fields: &T) -> String {
    let mut doc = Map::new();
    doc.insert("schema".into(), Value::from(SCHEMA));
    doc.insert("command".into(), Value::from(command));
    match serde_json::to_value(fields) {
        Ok(Value::Object(m)) => doc.extend(m),
        Ok(other) => {
            doc.insert("result".into(), other);
        }
        Err(e) => {
            doc.insert("error".into(), Value::from(e.to_string()));
        }
    }
    serde_json::to_string_pretty(&Value::Object(doc)).unwrap_or_else(|e| {
        format!("{{\"schema\": \"{SCHEMA}\", \"error\": \"cannot serialise: {e}\"}}")
    })
}

/// [`document`] written to `w` as it is serialised, never held whole (a
/// listing of a million final states would otherwise be built twice in
/// memory, as a tree and as text): `{"schema", "command", ...fields}`,
/// `fields` being a struct or map. A serialisation error ends the document
/// with an `io::Error` (the output is then cut short, and the caller exits 2).
pub fn write_document<W: std::io::Write + ?Sized, T: Serialize>(
    w: &mut W,
    command: &str,
    fields: &T,
) -> std::io::Result<()> {
    #[derive(Serialize)]
    struct Doc<'a, T: Serialize> {
        schema: &'static str,
        command: &'a str,
        #[serde(flatten)]
        fields: &'a T,
    }
    let doc = Doc {
        schema: SCHEMA,
        command,
        fields,
    };
    serde_json::to_writer_pretty(&mut *w, &doc).map_err(std::io::Error::other)?;
    w.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_carry_schema_and_command() {
        let v: Value =
            serde_json::from_str(&document("check", &serde_json::json!({"a": 1}))).unwrap();
        assert_eq!(v["schema"], SCHEMA);
        assert_eq!(v["command"], "check");
        assert_eq!(v["a"], 1);
        let v: Value = serde_json::from_str(&document("compare", &vec![1, 2])).unwrap();
        assert_eq!(v["result"][1], 2);
    }
}
