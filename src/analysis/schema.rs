//! What every JSON document of an analysis shares: the schema's name and
//! version, and durations as fractional milliseconds.

/// The schema name and major version of the JSON documents vkmm's records
/// are printed in (docs/json.md): [`crate::report::json`] writes it into
/// every document, and [`super::merge`] reads suite documents back only under it.
pub const SCHEMA: &str = "vkmm/1";

/// Serialises a duration as fractional milliseconds.
pub fn ser_duration<S: serde::Serializer>(
    d: &std::time::Duration,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64() * 1000.0)
}
