//! Shader manifests: a CSV with one question per row about a shader as its
//! authors wrote it (`../shared/corpus/real-shaders/manifest.csv`'s shape:
//! `file`, `entry`, `local_size` with an optional ` sg=N`, `workgroups`,
//! `defines`, `set`, `inputs` in words, `property`, `expected`), and an
//! inputs file (TOML) giving each row's inputs in vkmm's own spelling.
//!
//! The inputs file holds `[[shader]]` tables; each applies to the rows of
//! its `file` (and `entry`, and `rows`, when given: data rows counted from
//! 1 below the header) and holds a dispatch table
//! ([`crate::frontend::inputs::apply_table`]: `inputs`, and anything else a
//! dispatch file may set), and optionally `condition` (or `assert`, as a
//! dispatch file spells it: one key), an assertion row's condition in
//! vkmm's syntax when the manifest's words need translating.
//! docs/checking-your-shader.md, "Manifests".

use super::termination::Progress;
use crate::frontend::ShaderOptions;
use crate::frontend::inputs::Spot;
use std::path::{Path, PathBuf};

/// What a manifest row asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Question {
    /// Is every execution free of data races?
    Races,
    /// Does every execution end under this progress model?
    Termination(Progress),
    /// Does this condition (vkmm's syntax, on the final memory) hold in
    /// every execution?
    Assertion(String),
}

/// One row of a manifest, ready to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestRow {
    /// The shader, relative to the manifest's folder as written, and its path.
    pub file: String,
    pub path: PathBuf,
    pub entry: String,
    /// The data row (1 below the header) and its line in the CSV.
    pub row: usize,
    pub line: usize,
    pub shader: ShaderOptions,
    pub question: Question,
    /// The manifest's `property` and `expected` cells as written.
    pub property: String,
    pub expected: String,
    /// Whether `expected` says the property holds (race-free, terminates,
    /// holds).
    pub holds: bool,
    /// Where an assertion's condition is written when the inputs file
    /// gives it (`inputs.toml:12:13: condition of [[shader]] 3`); `None`
    /// where the manifest's `property` does.
    pub condition_origin: Option<String>,
}

impl ManifestRow {
    /// The name reports give the row.
    pub fn label(&self) -> String {
        format!("{} [{}] row {}", self.file, self.entry, self.row)
    }

    /// The word for a verdict on this row's property.
    pub fn word(&self, holds: bool) -> &'static str {
        match (&self.question, holds) {
            (Question::Races, true) => "race-free",
            (Question::Races, false) => "racy",
            (Question::Termination(_), true) => "terminates",
            (Question::Termination(_), false) => "may-not-terminate",
            (Question::Assertion(_), true) => "holds",
            (Question::Assertion(_), false) => "fails",
        }
    }
}

/// A row that could not be read, or a row number of the inputs file that
/// names no row: where it is written and why.
#[derive(Clone, Debug)]
pub struct BadRow {
    /// The manifest and the row's CSV line (`manifest.csv:5`), or the
    /// inputs file, line and column of the row number (`inputs.toml:3:12`).
    pub place: String,
    pub message: String,
}

/// Reads a manifest and its inputs file. Errors in a row are that row's
/// (the others still run); an unreadable file is an error of the whole.
/// The files are read under the default memory bound ([`read_within`]
/// takes a request's).
pub fn read(
    manifest: &Path,
    inputs: Option<&Path>,
) -> Result<(Vec<ManifestRow>, Vec<BadRow>), String> {
    read_within(manifest, inputs, Some(crate::memory::DEFAULT_MAX_MEMORY))
}

/// [`read`] with the files read under `bound`, the memory bound of the
/// request reading them (`None`: none).
pub fn read_within(
    manifest: &Path,
    inputs: Option<&Path>,
    bound: Option<usize>,
) -> Result<(Vec<ManifestRow>, Vec<BadRow>), String> {
    let text = crate::memory::read_input_text(manifest, bound)
        .map_err(|e| format!("{}: {e}", manifest.display()))?;
    let base = manifest.parent().unwrap_or(Path::new(".")).to_path_buf();
    let shaders = match inputs {
        Some(p) => read_inputs(p, bound)?,
        None => Vec::new(),
    };
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| format!("{}: {e}", manifest.display()))?
        .clone();
    let column = |name: &str| headers.iter().position(|h| h.trim() == name);
    let needed = [
        "file",
        "entry",
        "local_size",
        "workgroups",
        "property",
        "expected",
    ];
    for n in needed {
        if column(n).is_none() {
            return Err(format!(
                "{}:1: no `{n}` column (a manifest has file, entry, local_size, workgroups, defines, set, inputs, property and expected)",
                manifest.display()
            ));
        }
    }
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    for (k, record) in reader.records().enumerate() {
        let row = k + 1;
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map_or(row + 1, |p| p.line() as usize);
                bad.push(BadRow {
                    place: format!("{}:{line}", manifest.display()),
                    message: e.to_string(),
                });
                continue;
            }
        };
        let line = record.position().map_or(row + 1, |p| p.line() as usize);
        let cell = |name: &str| {
            column(name)
                .and_then(|c| record.get(c))
                .unwrap_or("")
                .trim()
                .to_string()
        };
        match read_row(&cell, row, line, &base, &shaders) {
            Ok(r) => rows.push(r),
            Err(message) => bad.push(BadRow {
                place: format!("{}:{line}", manifest.display()),
                message,
            }),
        }
    }
    // A row number past the manifest's rows would apply to nothing.
    let count = rows.len() + bad.len();
    for (k, s) in shaders.iter().enumerate() {
        for (n, place) in s.rows.iter().flatten().zip(&s.row_places) {
            if *n == 0 || *n > count {
                bad.push(BadRow {
                    place: place.clone(),
                    message: format!(
                        "shader {} ({}): `rows`: no row {n}: {} has {count} data row{} (counted from 1 below the header)",
                        k + 1,
                        s.file,
                        manifest.display(),
                        if count == 1 { "" } else { "s" },
                    ),
                });
            }
        }
    }
    Ok((rows, bad))
}

/// One `[[shader]]` table of an inputs file.
struct ShaderInputs {
    file: String,
    entry: Option<String>,
    rows: Option<Vec<usize>>,
    /// Where each of `rows` is written (`inputs.toml:3:9`).
    row_places: Vec<String>,
    table: toml::Table,
    base: PathBuf,
    /// Where each input the table gives is written (file, line, column
    /// and key), in the order the table gives them.
    origins: Vec<Option<String>>,
    /// Where its condition is written, when it gives one.
    condition_origin: Option<String>,
    /// Where each of its `set` keys is written (`ShaderOptions::set_origins`).
    set_origins: Vec<(String, String, String)>,
}

/// Reads a suite's inputs file: its `[[shader]]` tables, each checked
/// whole now (a typo is the inputs file's error, once). Every error names
/// the file, the line and column of the value at fault (or of the table
/// that lacks a key) and the key.
fn read_inputs(path: &Path, bound: Option<usize>) -> Result<Vec<ShaderInputs>, String> {
    let text = crate::memory::read_input_text(path, bound)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        crate::frontend::inputs::located_toml(path, &text, &e).to_string()
    })?;
    // `inputs.toml:LINE:COLUMN: MESSAGE`, at the keys within `item`.
    let at = |item: Option<(&str, usize)>, keys: &[&str], message: String| {
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        let spot = if message.starts_with("unknown key") {
            Spot::Key
        } else {
            Spot::Value
        };
        let (line, column) = crate::frontend::inputs::place_of(&text, item, &keys, spot);
        crate::frontend::FrontendError {
            file: path.display().to_string(),
            line,
            column,
            message,
        }
        .to_string()
    };
    let base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut out = Vec::new();
    for (key, value) in table {
        if key != "shader" {
            return Err(at(
                None,
                &[&key],
                format!("unknown key `{key}`: expected [[shader]] tables"),
            ));
        }
        let list = value.as_array().ok_or_else(|| {
            at(
                None,
                &["shader"],
                "`shader`: expected [[shader]] tables".into(),
            )
        })?;
        for (k, item) in list.iter().enumerate() {
            let here = Some(("shader", k));
            let mut t = item
                .as_table()
                .ok_or_else(|| at(here, &[], format!("shader {}: expected a table", k + 1)))?
                .clone();
            let file = match t.remove("file") {
                Some(toml::Value::String(s)) => s,
                Some(_) => {
                    return Err(at(
                        here,
                        &["file"],
                        format!("shader {}: `file`: expected a string", k + 1),
                    ));
                }
                None => {
                    return Err(at(
                        here,
                        &[],
                        format!("shader {}: expected `file = \"...\"`", k + 1),
                    ));
                }
            };
            let entry = match t.remove("entry") {
                Some(toml::Value::String(s)) => Some(s),
                None => None,
                _ => {
                    return Err(at(
                        here,
                        &["entry"],
                        format!("shader {} ({file}): `entry`: expected a string", k + 1),
                    ));
                }
            };
            let rows = match t.remove("rows") {
                Some(toml::Value::Array(a)) => Some(
                    a.iter()
                        .map(|v| v.as_integer().and_then(|n| usize::try_from(n).ok()))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(|| {
                            at(
                                here,
                                &["rows"],
                                format!("shader {} ({file}): `rows`: expected row numbers", k + 1),
                            )
                        })?,
                ),
                None => None,
                _ => {
                    return Err(at(
                        here,
                        &["rows"],
                        format!("shader {} ({file}): `rows`: expected a list", k + 1),
                    ));
                }
            };
            let row_places = (0..rows.as_ref().map_or(0, Vec::len))
                .map(|i| {
                    let keys = ["rows".to_string()];
                    let (line, column) =
                        crate::frontend::inputs::place_of(&text, here, &keys, Spot::Element(i));
                    format!("{}:{line}:{column}", path.display())
                })
                .collect();
            // Check the rest now, and learn where each input is written.
            let mut scratch = ShaderOptions::default();
            crate::frontend::inputs::apply_located(&text, path, here, &t, &base, &mut scratch)
                .map_err(|mut e| {
                    e.message = format!("shader {} ({file}): {}", k + 1, e.message);
                    e.to_string()
                })?;
            out.push(ShaderInputs {
                file,
                entry,
                rows,
                row_places,
                table: t,
                base: base.clone(),
                set_origins: scratch.set_origins,
                origins: scratch.inputs.into_iter().map(|i| i.origin).collect(),
                condition_origin: scratch.assertion.map(|a| a.origin),
            });
        }
    }
    Ok(out)
}

fn read_row(
    cell: &dyn Fn(&str) -> String,
    row: usize,
    line: usize,
    base: &Path,
    shaders: &[ShaderInputs],
) -> Result<ManifestRow, String> {
    let file = cell("file");
    let entry = cell("entry");
    let mut shader = ShaderOptions::default();
    // `2,1,1 sg=2`
    let local = cell("local_size");
    let (dims, sg) = match local.split_once("sg=") {
        Some((d, s)) => (
            d.trim().to_string(),
            Some(
                s.trim()
                    .parse::<u32>()
                    .map_err(|_| format!("local_size `{local}`: expected `sg=N`"))?,
            ),
        ),
        None => (local.clone(), None),
    };
    shader.local_size =
        Some(ShaderOptions::parse_dims(&dims).map_err(|e| format!("local_size: {e}"))?);
    shader.subgroup_size = sg;
    shader.workgroups = Some(
        ShaderOptions::parse_dims(&cell("workgroups")).map_err(|e| format!("workgroups: {e}"))?,
    );
    for d in cell("defines")
        .split(';')
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        shader
            .defines
            .push(ShaderOptions::parse_define(d).map_err(|e| format!("defines: {e}"))?);
    }
    for s in cell("set")
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        shader
            .set
            .push(ShaderOptions::parse_set(s).map_err(|e| format!("set: {e}"))?);
    }
    if !entry.is_empty() {
        shader.entry = Some(entry.clone());
    }
    let mut condition = None;
    for s in shaders.iter().filter(|s| {
        s.file == file
            && s.entry.as_ref().is_none_or(|e| *e == entry)
            && s.rows.as_ref().is_none_or(|r| r.contains(&row))
    }) {
        let first = shader.inputs.len();
        crate::frontend::inputs::apply_table(&s.table, &s.base, &mut shader)?;
        for (input, origin) in shader.inputs[first..].iter_mut().zip(&s.origins) {
            input.origin.clone_from(origin);
        }
        shader.set_origins.extend(s.set_origins.iter().cloned());
        // `condition` or `assert` (one key): an assertion row's condition.
        if let Some(a) = shader.assertion.take() {
            condition = Some((a.text, s.condition_origin.clone()));
        }
    }
    let property = cell("property");
    let expected = cell("expected");
    let mut condition_origin = None;
    let question = if property == "races" {
        Question::Races
    } else if let Some(p) = property.strip_prefix("termination:") {
        Question::Termination(
            p.trim()
                .parse::<Progress>()
                .map_err(|e| format!("property `{property}`: {e}"))?,
        )
    } else if let Some(a) = property.strip_prefix("assertion:") {
        match condition {
            Some((text, origin)) => {
                condition_origin = origin;
                Question::Assertion(text)
            }
            None => Question::Assertion(assertion_condition(a)),
        }
    } else {
        return Err(format!(
            "property `{property}`: expected races, termination:MODEL or assertion: CONDITION"
        ));
    };
    let holds = match (&question, expected.as_str()) {
        (Question::Races, "race-free") => true,
        (Question::Races, "racy") => false,
        (Question::Termination(_), "terminates") => true,
        (Question::Termination(_), "may-not-terminate") => false,
        (Question::Assertion(_), "holds") => true,
        (Question::Assertion(_), "fails") => false,
        _ => {
            return Err(format!(
                "expected `{expected}` does not answer `{property}` (races: race-free or racy; termination: terminates or may-not-terminate; assertion: holds or fails)"
            ));
        }
    };
    Ok(ManifestRow {
        path: base.join(&file),
        file,
        entry,
        row,
        line,
        shader,
        question,
        property,
        expected,
        holds,
        condition_origin,
    })
}

/// An assertion in the manifest's words (`output[0] == 2 in every
/// execution`) as a vkmm condition: the expression, its variables named
/// as SPIR-V conditions name them (`%output[0] == 2`), with its
/// quantifier when not every execution (`exists (%x == 1)` for `x == 1
/// in some execution`). The words are those `vkmm check --assert` reads
/// ([`crate::frontend::assertion`]).
fn assertion_condition(words: &str) -> String {
    let a = crate::frontend::assertion::read(words);
    match a.quantifier {
        crate::ir::Quantifier::Forall => a.expr,
        _ => a.text(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assertions_name_variables_as_conditions_do() {
        assert_eq!(
            assertion_condition(" output[0] == 2 in every execution"),
            "%output[0] == 2"
        );
        assert_eq!(
            assertion_condition("a == 1 and b_2 != 0x10"),
            "%a == 1 and %b_2 != 0x10"
        );
    }

    #[test]
    fn rows_read_dispatch_and_question() {
        let dir = std::env::temp_dir().join(format!("vkmm-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let csv = dir.join("m.csv");
        std::fs::write(
            &csv,
            "file,entry,local_size,workgroups,defines,set,inputs,property,expected,reasoning\n\
             a.comp,main,\"4,1,1 sg=2\",\"2,1,1\",ATOMIC;VKMM,LG=1;N=1,words,races,racy,\"because, of\"\n\
             b.wgsl,f,\"2,1,1\",\"1,1,1\",,,words,termination:HSA,may-not-terminate,x\n\
             b.wgsl,g,\"2,1,1\",\"1,1,1\",,,words,assertion: out[0] == 2 in every execution,holds,x\n\
             c.comp,main,\"2,1,1\",\"1,1,1\",,,words,races,perhaps,x\n",
        )
        .unwrap();
        let toml = dir.join("in.toml");
        std::fs::write(
            &toml,
            "[[shader]]\nfile = \"a.comp\"\n[shader.inputs]\nStateBuf = \"zero\"\n\
             [[shader]]\nfile = \"b.wgsl\"\nentry = \"g\"\ncondition = \"%out[0] == 2\"\n",
        )
        .unwrap();
        let (rows, bad) = read(&csv, Some(&toml)).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].place, format!("{}:5", csv.display()));
        let a = &rows[0];
        assert_eq!(a.shader.local_size, Some([4, 1, 1]));
        assert_eq!(a.shader.subgroup_size, Some(2));
        assert_eq!(a.shader.workgroups, Some([2, 1, 1]));
        assert_eq!(a.shader.defines.len(), 2);
        assert_eq!(
            a.shader.set,
            vec![("LG".into(), "1".into()), ("N".into(), "1".into())]
        );
        assert_eq!(a.shader.inputs.len(), 1);
        assert_eq!(a.question, Question::Races);
        assert!(!a.holds);
        assert_eq!(
            rows[1].question,
            Question::Termination("HSA".parse().unwrap())
        );
        assert!(!rows[1].holds);
        assert!(rows[1].shader.inputs.is_empty());
        assert_eq!(rows[2].question, Question::Assertion("%out[0] == 2".into()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
