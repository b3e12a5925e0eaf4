//! What a shader's buffers, uniforms and push constants hold when the
//! dispatch starts (`--input`, `--length`, and the `[inputs]` table of a
//! dispatch file), and the dispatch file itself (TOML).
//!
//! A target names a variable by its name in the shader (GLSL's instance
//! name, WGSL's variable), by its block's type name (GLSL's anonymous
//! blocks: `StateBuf`), or by `SET.BINDING` (`0.2`), then optionally steps
//! into it: `.field` (a struct member by name) and `[i]` (an array
//! element). docs/checking-your-shader.md, "Inputs".

use super::ShaderOptions;
use std::path::{Path, PathBuf};

/// One input: a target and what it holds.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Input {
    /// The variable (name, block type name or `SET.BINDING`) and the steps
    /// into it, as written.
    pub target: String,
    /// What the target's cells hold.
    pub contents: Contents,
    /// The element count of the runtime array the target ends with (a
    /// storage buffer's last member), when given.
    pub length: Option<usize>,
    /// The extent of each coordinate of the images the target holds (an
    /// image, or an array of image descriptors: each element), when given.
    pub extent: Option<Vec<usize>>,
    /// Where the input is written, as errors about it name it: the
    /// option and its value (`--extent img=2x3`), or a dispatch file's
    /// place and key (`run.toml:3:7, key `inputs.img.extent``); `None`
    /// where the caller gives none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

/// What a target's cells hold.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Contents {
    /// As the front end's rule says (only a `length` given).
    Default,
    /// Every cell 0.
    Zero,
    /// Any value: each cell's initial value is undefined, and the search
    /// covers every value that can make a difference.
    Arbitrary,
    /// These values, one per scalar cell in layout order; a single value
    /// fills every cell.
    Values(Vec<Number>),
}

/// One value an input gives a cell: an integer (for a float cell, its
/// bits), or a float literal, rounded to the float cell it fills
/// (`1.5`, `-0.0`, `1e-3`, `inf`; an integer cell refuses it).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Number {
    Int(i64),
    Float(String),
}

impl From<i64> for Number {
    fn from(v: i64) -> Number {
        Number::Int(v)
    }
}

impl Number {
    /// An integer (decimal or `0x` hexadecimal, with an optional `u`/`i`
    /// suffix) or a decimal float literal.
    pub fn parse(text: &str) -> Option<Number> {
        let t = text.trim();
        if let Some(v) = parse_int(t) {
            return Some(Number::Int(v));
        }
        let body = t.strip_prefix(['-', '+']).unwrap_or(t);
        let float = matches!(body, "inf" | "infinity" | "NaN" | "nan")
            || (body.starts_with(|c: char| c.is_ascii_digit() || c == '.')
                && body.parse::<f64>().is_ok());
        float.then(|| Number::Float(t.to_string()))
    }
}

impl Input {
    /// Reads `TARGET=VALUE` (`--input`): VALUE is `zero`, `arbitrary`, or
    /// integers separated by commas.
    pub fn parse(text: &str) -> Result<Input, String> {
        let (target, value) = text.split_once('=').ok_or_else(|| {
            format!(
                "expected TARGET=VALUE (VALUE: zero, arbitrary or integers a,b,c), found `{text}`"
            )
        })?;
        let target = check_target(target.trim())?;
        let contents = match value.trim() {
            "zero" => Contents::Zero,
            "arbitrary" | "any" => Contents::Arbitrary,
            v => Contents::Values(
                v.split(',')
                    .map(|x| Number::parse(x.trim()))
                    .collect::<Option<Vec<Number>>>()
                    .ok_or_else(|| {
                        format!(
                            "expected `zero`, `arbitrary` or numbers a,b,c (integers, or floats such as 1.5 for float cells) after `=`, found `{v}`"
                        )
                    })?,
            ),
        };
        Ok(Input {
            target,
            contents,
            length: None,
            extent: None,
            origin: Some(format!("`--input {}`", text.trim())),
        })
    }

    /// Reads `TARGET=N` (`--length`): the runtime array's element count.
    pub fn parse_length(text: &str) -> Result<Input, String> {
        let (target, n) = text
            .split_once('=')
            .ok_or_else(|| format!("expected TARGET=N, found `{text}`"))?;
        let n = n
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&n| (1..=1 << 20).contains(&n))
            .ok_or_else(|| {
                format!(
                    "expected a length from 1 to 1048576 after `=`, found `{}`",
                    n.trim()
                )
            })?;
        Ok(Input {
            target: check_target(target.trim())?,
            contents: Contents::Default,
            length: Some(n),
            extent: None,
            origin: Some(format!("`--length {}`", text.trim())),
        })
    }
}

impl Input {
    /// Reads `TARGET=WxH[xD...]` (`--extent`): an image's size, one
    /// extent per coordinate in the order the image's coordinates go (x,
    /// y, z as its dimensionality has them, then the layer of an arrayed
    /// image, then the sample of a multisampled one), separated by `x`
    /// (or `,`).
    pub fn parse_extent(text: &str) -> Result<Input, String> {
        let (target, sizes) = text.split_once('=').ok_or_else(|| {
            format!(
                "expected TARGET=WxH[xD] (an image, `=`, then one size per image coordinate), found `{text}` without `=`"
            )
        })?;
        Ok(Input {
            target: check_target(target.trim())?,
            contents: Contents::Default,
            length: None,
            extent: Some(extent_of(sizes.trim())?),
            origin: Some(format!("`--extent {}`", text.trim())),
        })
    }
}

/// The largest size of one image coordinate an extent gives.
const MAX_EXTENT: usize = 1 << 16;

/// The sizes of an extent written `WxH[xD...]` or `W,H,...`: 1 to 4
/// sizes from 1 to 65536. An error says which size is wrong and why.
pub(crate) fn extent_of(text: &str) -> Result<Vec<usize>, String> {
    let expected =
        "expected an extent WxH[xD...]: 1 to 4 sizes from 1 to 65536, one per image coordinate";
    if text.is_empty() {
        return Err(format!("{expected}, found nothing after `=`"));
    }
    let pieces: Vec<&str> = text.split(['x', 'X', ',']).map(str::trim).collect();
    // What is wrong, and in which extent where it has more than one size.
    let found = |what: String| {
        if pieces.len() > 1 {
            format!("{expected}, found {what} in `{text}`")
        } else {
            format!("{expected}, found {what}")
        }
    };
    let mut sizes = Vec::new();
    for &n in &pieces {
        let size = n.parse::<usize>().map_err(|_| {
            found(if n.is_empty() {
                "an empty size".to_string()
            } else {
                format!("`{n}` (not a whole number)")
            })
        })?;
        size_in_range(size).map_err(found)?;
        sizes.push(size);
    }
    count_in_range(sizes.len()).map_err(found)?;
    Ok(sizes)
}

/// Whether one coordinate's size is from 1 to [`MAX_EXTENT`]; else what
/// it is instead.
fn size_in_range(size: usize) -> Result<(), String> {
    match size {
        0 => Err("a size of 0 (an image has at least one texel per coordinate)".into()),
        n if n > MAX_EXTENT => Err(format!("a size of {n} (more than {MAX_EXTENT})")),
        _ => Ok(()),
    }
}

/// Whether an extent's count of sizes is from 1 to 4 (an image has at
/// most 4 coordinates: x, y, z, then the layer or the sample); else
/// what it is instead.
fn count_in_range(count: usize) -> Result<(), String> {
    if (1..=4).contains(&count) {
        Ok(())
    } else {
        Err(format!(
            "{count} sizes (an image has at most 4 coordinates: x, y, z as its Dim has them, then the layer, then the sample)"
        ))
    }
}

/// A target's steps: the variable, then member names and element indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// A variable by name or block type name.
    Name(String),
    /// A variable by descriptor set and binding.
    Binding(u32, u32),
    /// A struct member by name.
    Field(String),
    /// An array or vector element.
    Index(usize),
}

/// Splits a target into its steps.
pub(crate) fn steps(target: &str) -> Result<Vec<Step>, String> {
    let bad = || {
        format!(
            "`{target}` is not a target: expected a name, a block name or SET.BINDING, then .field and [i] steps"
        )
    };
    let mut out = Vec::new();
    let mut rest = target;
    // `SET.BINDING` first.
    let digits = |s: &str| s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let d = digits(rest);
    if d > 0 {
        let set: u32 = rest[..d].parse().map_err(|_| bad())?;
        let after = rest[d..].strip_prefix('.').ok_or_else(bad)?;
        let e = digits(after);
        if e == 0 {
            return Err(bad());
        }
        let binding: u32 = after[..e].parse().map_err(|_| bad())?;
        out.push(Step::Binding(set, binding));
        rest = &after[e..];
    } else {
        let e = ident_len(rest);
        if e == 0 {
            return Err(bad());
        }
        out.push(Step::Name(rest[..e].to_string()));
        rest = &rest[e..];
    }
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let e = ident_len(r);
            if e == 0 {
                return Err(bad());
            }
            out.push(Step::Field(r[..e].to_string()));
            rest = &r[e..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']').ok_or_else(bad)?;
            let i: usize = r[..close].trim().parse().map_err(|_| bad())?;
            out.push(Step::Index(i));
            rest = &r[close + 1..];
        } else {
            return Err(bad());
        }
    }
    Ok(out)
}

/// The length of the identifier `s` starts with: a letter or `_`, then
/// letters, digits and `_`; or `$` first, as glslang names the block of an
/// HLSL shader's global-scope uniforms (`$Global.num_elements`).
fn ident_len(s: &str) -> usize {
    let mut n = 0;
    for (i, c) in s.char_indices() {
        let ok = c == '_'
            || c.is_ascii_alphabetic()
            || (i > 0 && c.is_ascii_digit())
            || (i == 0 && c == '$');
        if !ok {
            break;
        }
        n = i + c.len_utf8();
    }
    // `$` alone names nothing.
    if n == 1 && s.starts_with('$') { 0 } else { n }
}

/// A target split from the workgroup copy it ends with: `seen[1]@wg1` is
/// `seen[1]` in workgroup 1's copy (workgroup memory exists once per
/// workgroup; reports name the copies so), `seen[1]` every copy.
pub(crate) fn copy_of(target: &str) -> Result<(&str, Option<usize>), String> {
    let Some((base, copy)) = target.rsplit_once('@') else {
        return Ok((target, None));
    };
    let k = copy
        .strip_prefix("wg")
        .filter(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|k| k.parse::<usize>().ok())
        .ok_or_else(|| {
            format!(
                "`{target}` is not a target: expected `@wgK` after `@` (the copy of workgroup K, from 0), found `@{copy}`"
            )
        })?;
    Ok((base, Some(k)))
}

fn check_target(target: &str) -> Result<String, String> {
    steps(copy_of(target)?.0)?;
    Ok(target.to_string())
}

/// An integer: decimal or `0x` hexadecimal, with an optional sign and a
/// WGSL/GLSL `u` or `i` suffix.
pub(crate) fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim().trim_end_matches(['u', 'U', 'i']);
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => i64::from_str_radix(h, 16).ok()?,
        None => t.parse::<i64>().ok()?,
    };
    Some(if neg { -v } else { v })
}

/// A dispatch file's error: the file and what is wrong (with TOML's own
/// line and column where it gives them).
fn file_error(file: &Path, message: impl std::fmt::Display) -> super::FrontendError {
    super::FrontendError {
        file: file.display().to_string(),
        line: 0,
        column: 0,
        message: message.to_string(),
    }
}

/// Reads a dispatch file (TOML) into `shader`, which keeps what the file
/// does not set. docs/checking-your-shader.md, "Dispatch files".
///
/// ```toml
/// local_size = [2, 1, 1]
/// workgroups = 2
/// subgroup_size = 2
/// defines = ["ATOMIC", "VKMM"]
/// include = ["../common"]
/// set = { LG_WG_SIZE = 1, N_ROWS = 1 }
/// entry = "main"
/// assert = "OutBuf.total == 4 in every execution"
///
/// [inputs]
/// InBuf = { length = 4, values = [0, 1, 2, 3] }
/// StateBuf = "zero"
/// info = { size = 256, vec_size = 64 }
/// ```
pub fn read_dispatch_file(
    path: &Path,
    shader: &mut ShaderOptions,
) -> Result<(), super::FrontendError> {
    let text = super::read_text(path)?;
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| located_toml(path, &text, &e))?;
    let base = path.parent().unwrap_or(Path::new("."));
    apply_located(&text, path, None, &table, base, shader)?;
    shader.dispatch_file = Some(path.to_path_buf());
    Ok(())
}

/// [`apply_table`] for a table read from the file `path` (whose text is
/// `text`): an error names the file, the line and column of the value at
/// fault and its key, and each input it adds (and its condition) names
/// where it is written, as `--extent img=2x3` names an option.
/// `item` is the array of tables and the element the table is
/// (`("shader", 2)`: a suite's inputs file's third `[[shader]]`), `None`
/// for the whole file (a dispatch file).
pub(crate) fn apply_located(
    text: &str,
    path: &Path,
    item: Option<(&str, usize)>,
    table: &toml::Table,
    base: &Path,
    shader: &mut ShaderOptions,
) -> Result<(), super::FrontendError> {
    // `key `inputs.img`` in a dispatch file, `key `inputs.img` of
    // [[shader]] 3` in an inputs file.
    let key_of = |keys: &[String]| match item {
        Some((array, k)) => format!("key `{}` of [[{array}]] {}", dotted(keys), k + 1),
        None => format!("key `{}`", dotted(keys)),
    };
    let first = shader.inputs.len();
    let mut keys = Vec::new();
    apply_keyed(table, base, shader, &mut keys).map_err(|e| {
        let (line, column) = place_of(
            text,
            item,
            &e.keys,
            if e.at_key { Spot::Key } else { Spot::Value },
        );
        super::FrontendError {
            line,
            column,
            ..file_error(path, e.message)
        }
    })?;
    // Each input names the file, line, column and key it is written at.
    for (input, keys) in shader.inputs[first..].iter_mut().zip(&keys) {
        let (line, column) = place_of(text, item, keys, Spot::Value);
        input.origin = Some(format!(
            "{}:{line}:{column}, {}",
            path.display(),
            key_of(keys)
        ));
    }
    // Each `set` key names where it is written.
    if let Some(set) = table.get("set").and_then(toml::Value::as_table) {
        for name in set.keys() {
            let keys = ["set".to_string(), name.clone()];
            let (line, column) = place_of(text, item, &keys, Spot::Value);
            let value = shader
                .set
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
            shader.set_origins.push((
                name.clone(),
                value,
                format!("{}:{line}:{column}, {}", path.display(), key_of(&keys)),
            ));
        }
    }
    // The condition names the place and key it is written at.
    if let Some(a) = &mut shader.assertion
        && (a.origin == FILE_ASSERT || a.origin == FILE_CONDITION)
    {
        let key = if a.origin == FILE_ASSERT {
            "assert"
        } else {
            "condition"
        };
        let (line, column) = place_of(text, item, &[key.to_string()], Spot::Value);
        // `run.toml:4:10: assert`, then the condition and its column.
        a.origin = match item {
            Some((array, k)) => format!(
                "{}:{line}:{column}: {key} of [[{array}]] {}",
                path.display(),
                k + 1
            ),
            None => format!("{}:{line}:{column}: {key}", path.display()),
        };
    }
    Ok(())
}

/// What of the place `keys` lead to [`place_of`] gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Spot {
    /// The value.
    Value,
    /// The last key itself (an unknown key).
    Key,
    /// The element (from 0) of the array value: one number of
    /// `rows = [4, 40]`; the array's own place where it is not that long.
    Element(usize),
}

/// The line and column (from 1) of the value `keys` lead to in the
/// TOML document `text` (or what `spot` says of it), or of the deepest
/// key found where the path does not reach a value (an error about a key
/// the file lacks: the table that lacks it); within `item` (an element
/// of an array of tables) where given. (0, 0) where nothing is found.
pub(crate) fn place_of(
    text: &str,
    item: Option<(&str, usize)>,
    keys: &[String],
    spot: Spot,
) -> (usize, usize) {
    let Ok(doc) = toml::de::DeTable::parse(text) else {
        return (0, 0);
    };
    let mut table = doc.get_ref();
    let mut at = None;
    if let Some((array, k)) = item {
        let element = table
            .iter()
            .find(|(key, _)| key.get_ref().as_ref() == array)
            .and_then(|(_, v)| match v.get_ref() {
                toml::de::DeValue::Array(a) => a.get(k),
                _ => None,
            });
        let Some(element) = element else {
            return (0, 0);
        };
        at = Some(element.span());
        match element.get_ref() {
            toml::de::DeValue::Table(t) => table = t,
            _ => return line_column(text, element.span().start),
        }
    }
    for (i, key) in keys.iter().enumerate() {
        let Some((k, v)) = table.iter().find(|(k, _)| k.get_ref().as_ref() == key) else {
            break;
        };
        at = Some(if i + 1 == keys.len() && spot != Spot::Key {
            v.span()
        } else {
            k.span()
        });
        match v.get_ref() {
            toml::de::DeValue::Table(t) => table = t,
            toml::de::DeValue::Array(a) if i + 1 == keys.len() => {
                if let Spot::Element(e) = spot
                    && let Some(e) = a.get(e)
                {
                    at = Some(e.span());
                }
            }
            _ => {
                if i + 1 < keys.len() {
                    break;
                }
            }
        }
    }
    at.map_or((0, 0), |span| line_column(text, span.start))
}

/// The dispatch file kept beside a shader: `FILE.dispatch.toml` for the
/// shader `FILE` (`prefix.comp.dispatch.toml` beside `prefix.comp`; the
/// whole file name, so `scan.comp` and `scan.wgsl` in one folder each have
/// their own, as `FILE.spv.headers` does for binary modules). When
/// `shader` names no dispatch file and this one exists, it applies under
/// `shader`'s options (the command line's: they win, as over a file named
/// with `--dispatch`) and its path is returned.
/// docs/checking-your-shader.md, "Dispatch files".
pub fn beside(
    path: &Path,
    shader: &mut ShaderOptions,
) -> Result<Option<std::path::PathBuf>, super::FrontendError> {
    if shader.dispatch_file.is_some() {
        return Ok(None);
    }
    let mut name = path.as_os_str().to_owned();
    name.push(".dispatch.toml");
    let file = std::path::PathBuf::from(name);
    if !file.is_file() {
        return Ok(None);
    }
    let mut o = ShaderOptions::default();
    read_dispatch_file(&file, &mut o)?;
    o.overlay(shader);
    *shader = o;
    Ok(Some(file))
}

impl ShaderOptions {
    /// Puts `top`'s options over these: a size, count or entry `top`
    /// gives replaces this one's, a `set` of the same name replaces this
    /// one's, definitions, include folders and inputs come after these.
    pub fn overlay(&mut self, top: &ShaderOptions) {
        self.local_size = top.local_size.or(self.local_size);
        self.workgroups = top.workgroups.or(self.workgroups);
        self.subgroup_size = top.subgroup_size.or(self.subgroup_size);
        self.defines.extend(top.defines.iter().cloned());
        self.include_dirs.extend(top.include_dirs.iter().cloned());
        for (name, value) in &top.set {
            self.set.retain(|(n, _)| n != name);
            self.set.push((name.clone(), value.clone()));
        }
        self.entry = top.entry.clone().or(self.entry.take());
        self.inputs.extend(top.inputs.iter().cloned());
        // The command line's condition (`--assert`, a manifest row's)
        // replaces the file's; the cells conditions name add up.
        if top.assertion.is_some() {
            self.assertion = top.assertion.clone();
        }
        self.named.extend(top.named.iter().cloned());
        if top.dispatch_file.is_some() {
            self.dispatch_file = top.dispatch_file.clone();
        }
    }
}

/// The line and column (from 1) of a byte offset in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.chars().rev().take_while(|&c| c != '\n').count() + 1;
    (line, column)
}

/// A TOML error at its line and column.
pub(crate) fn located_toml(path: &Path, text: &str, e: &toml::de::Error) -> super::FrontendError {
    let (line, column) = e.span().map_or((0, 0), |s| line_column(text, s.start));
    super::FrontendError {
        file: path.display().to_string(),
        line,
        column,
        message: e.message().to_string(),
    }
}

/// Where a dispatch table's `assert` comes from, until the file that
/// holds it is known ([`read_dispatch_file`] names it).
const FILE_ASSERT: &str = "the dispatch file's `assert`";
/// The same, written `condition`.
const FILE_CONDITION: &str = "the dispatch file's `condition`";

/// Applies a dispatch table (a dispatch file, or one shader's entry of a
/// suite's inputs file); `base` is the folder relative include paths start
/// from. Its `assert` (or `condition`: one key, two names) is a condition
/// on the final memory, read as `--assert` reads it ([`super::assertion`]).
pub fn apply_table(
    table: &toml::Table,
    base: &Path,
    shader: &mut ShaderOptions,
) -> Result<(), String> {
    apply_keyed(table, base, shader, &mut Vec::new()).map_err(|e| e.message)
}

/// An error in a dispatch table: the keys that lead to the value at fault
/// (`["inputs", "img", "extent"]`; as deep as the fault is known) and
/// what is wrong.
struct KeyError {
    keys: Vec<String>,
    message: String,
    /// Whether the fault is the last key itself (an unknown key), not
    /// its value: the error points at the key.
    at_key: bool,
}

/// The keys of a path written as the messages name them (`extent.img`;
/// a key that is not a bare TOML key in quotes: `inputs."imgs[0]"`).
fn dotted(keys: &[String]) -> String {
    keys.iter()
        .map(|k| {
            if !k.is_empty()
                && k.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                k.clone()
            } else {
                format!("{k:?}")
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// [`apply_table`], its errors with the keys they are at and, in `keys`,
/// the keys each input it adds to `shader.inputs` is written at (one
/// entry per input, in order).
fn apply_keyed(
    table: &toml::Table,
    base: &Path,
    shader: &mut ShaderOptions,
    keys: &mut Vec<Vec<String>>,
) -> Result<(), KeyError> {
    for (key, value) in table {
        apply_key(key, value, table, base, shader, keys)?;
    }
    Ok(())
}

/// One top-level key of a dispatch table ([`apply_keyed`]).
fn apply_key(
    key: &str,
    value: &toml::Value,
    table: &toml::Table,
    base: &Path,
    shader: &mut ShaderOptions,
    keys: &mut Vec<Vec<String>>,
) -> Result<(), KeyError> {
    match key {
        // `--extent`'s spelling beside the other dispatch settings:
        // `extent = { img = "4x4" }` (or `[4, 4]`).
        "extent" => {
            let t = value.as_table().ok_or_else(|| KeyError {
                keys: vec![key.to_string()],
                message: format!("`{key}`: expected a table IMAGE = \"WxH\" (or [W, H])"),
                at_key: false,
            })?;
            for (target, v) in t {
                let path = vec![key.to_string(), target.clone()];
                let fail = |m: String| KeyError {
                    message: format!("`{}`: {m}", dotted(&path)),
                    keys: path.clone(),
                    at_key: false,
                };
                check_target(target).map_err(fail)?;
                let sizes = extent_value(v).map_err(fail)?;
                shader.inputs.push(Input {
                    target: target.clone(),
                    contents: Contents::Default,
                    length: None,
                    extent: Some(sizes),
                    origin: Some(format!("key `{}`", dotted(&path))),
                });
                keys.push(path);
            }
        }
        "inputs" => {
            let t = value.as_table().ok_or_else(|| KeyError {
                keys: vec![key.to_string()],
                message: format!("`{key}`: expected a table TARGET = VALUE"),
                at_key: false,
            })?;
            for (target, v) in t {
                let path = vec![key.to_string(), target.clone()];
                inputs_of(target, v, &path, &mut shader.inputs, keys)?;
            }
        }
        _ => {
            return apply_setting(key, value, table, base, shader).map_err(|message| KeyError {
                keys: vec![key.to_string()],
                at_key: message.starts_with("unknown key"),
                message,
            });
        }
    }
    Ok(())
}

/// A top-level key of a dispatch table other than `extent` and `inputs`:
/// a dispatch setting.
fn apply_setting(
    key: &str,
    value: &toml::Value,
    table: &toml::Table,
    base: &Path,
    shader: &mut ShaderOptions,
) -> Result<(), String> {
    match key {
        "local_size" => shader.local_size = Some(dims(key, value)?),
        "workgroups" => shader.workgroups = Some(dims(key, value)?),
        "subgroup_size" => {
            shader.subgroup_size = Some(
                value
                    .as_integer()
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| format!("`{key}`: expected a whole number of at least 1"))?,
            );
        }
        "defines" => {
            for d in strings(key, value)? {
                shader.defines.push(ShaderOptions::parse_define(&d)?);
            }
        }
        "include" => {
            for d in strings(key, value)? {
                shader.include_dirs.push(base.join(PathBuf::from(d)));
            }
        }
        "set" => {
            let t = value
                .as_table()
                .ok_or_else(|| format!("`{key}`: expected a table NAME = VALUE"))?;
            for (name, v) in t {
                let v = match v {
                    toml::Value::Integer(n) => n.to_string(),
                    toml::Value::String(s) => s.clone(),
                    toml::Value::Boolean(b) => b.to_string(),
                    _ => {
                        return Err(format!(
                            "`set.{name}`: expected an integer, a string or a boolean"
                        ));
                    }
                };
                shader.set.retain(|(n, _)| n != name);
                shader.set.push((name.clone(), v));
            }
        }
        "entry" => {
            shader.entry = Some(
                value
                    .as_str()
                    .ok_or_else(|| format!("`{key}`: expected a string"))?
                    .to_string(),
            );
        }
        // `condition` is the same key under the name a suite's inputs
        // file first gave it: both files read both.
        "assert" | "condition" => {
            if table.contains_key("assert") && table.contains_key("condition") {
                return Err("`assert` and `condition` are the same key: give one of them".into());
            }
            let text = value
                .as_str()
                .ok_or_else(|| format!("`{key}`: expected a condition in a string (`\"out[0] == 2 in every execution\"`)"))?;
            shader.assertion = Some(super::assertion::Asserted {
                text: text.to_string(),
                origin: if key == "assert" {
                    FILE_ASSERT
                } else {
                    FILE_CONDITION
                }
                .into(),
            });
        }
        // `--extent`'s spelling beside the other dispatch settings:
        // `extent = { img = "4x4" }` (or `[4, 4]`).
        other => {
            return Err(format!(
                "unknown key `{other}`: expected local_size, workgroups, subgroup_size, defines, include, set, entry, assert (or condition), extent or inputs"
            ));
        }
    }
    Ok(())
}

fn dims(key: &str, v: &toml::Value) -> Result<[u32; 3], String> {
    let text = match v {
        toml::Value::Integer(n) => n.to_string(),
        toml::Value::String(s) => s.clone(),
        toml::Value::Array(items) => items
            .iter()
            .map(|i| {
                i.as_integer()
                    .map(|n| n.to_string())
                    .unwrap_or_else(|| "?".into())
            })
            .collect::<Vec<_>>()
            .join(","),
        _ => {
            return Err(format!(
                "`{key}`: expected [X, Y, Z], a number or \"X,Y,Z\""
            ));
        }
    };
    ShaderOptions::parse_dims(&text).map_err(|e| format!("`{key}`: {e}"))
}

fn strings(key: &str, v: &toml::Value) -> Result<Vec<String>, String> {
    match v {
        toml::Value::String(s) => Ok(vec![s.clone()]),
        toml::Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| format!("`{key}`: expected a list of strings")),
        _ => Err(format!("`{key}`: expected a list of strings")),
    }
}

/// The inputs a TOML value gives `target`: `"zero"`, `"arbitrary"`, an
/// integer, a list of integers, `{ length = N, fill = "zero" | "arbitrary",
/// values = [...] }`, or a table of struct members by name (each an input
/// of `target.member`).
fn inputs_of(
    target: &str,
    v: &toml::Value,
    path: &[String],
    out: &mut Vec<Input>,
    keys: &mut Vec<Vec<String>>,
) -> Result<(), KeyError> {
    // An error at `path` and the keys `under` it, the message after the
    // full key path (`inputs.b.length`), as the other keys' errors name
    // theirs.
    let fail = |under: &[&str]| {
        let mut keys = path.to_vec();
        keys.extend(under.iter().map(|k| k.to_string()));
        move |message: String| KeyError {
            message: format!("`{}`: {message}", dotted(&keys)),
            keys,
            at_key: false,
        }
    };
    check_target(target).map_err(fail(&[]))?;
    // An input written at `at` (the keys under `path`).
    let mut push_at = |contents: Contents,
                       length: Option<usize>,
                       extent: Option<Vec<usize>>,
                       at: &[&str],
                       out: &mut Vec<Input>| {
        let mut written = path.to_vec();
        written.extend(at.iter().map(|k| k.to_string()));
        out.push(Input {
            target: target.to_string(),
            contents,
            length,
            extent,
            origin: Some(format!("key `{}`", dotted(&written))),
        });
        keys.push(written);
    };
    let mut push = |contents: Contents, length: Option<usize>, out: &mut Vec<Input>| {
        push_at(contents, length, None, &[], out)
    };
    match v {
        toml::Value::String(s) => match s.as_str() {
            "zero" => push(Contents::Zero, None, out),
            "arbitrary" | "any" => push(Contents::Arbitrary, None, out),
            _ => {
                return Err(fail(&[])(format!(
                    "expected \"zero\" or \"arbitrary\", found \"{s}\""
                )));
            }
        },
        toml::Value::Integer(n) => push(Contents::Values(vec![Number::Int(*n)]), None, out),
        toml::Value::Float(f) => push(Contents::Values(vec![float_number(*f)]), None, out),
        toml::Value::Array(_) => push(
            Contents::Values(flat_ints(v).map_err(fail(&[]))?),
            None,
            out,
        ),
        toml::Value::Table(t) => {
            let spec_keys = ["length", "fill", "values", "extent"];
            if t.keys().any(|k| spec_keys.contains(&k.as_str())) {
                if let Some(k) = t.keys().find(|k| !spec_keys.contains(&k.as_str())) {
                    return Err(KeyError {
                        at_key: true,
                        ..fail(&[k])(format!(
                            "a member beside length/fill/values/extent (write members as `{target}.{k}`)"
                        ))
                    });
                }
                let length = match t.get("length") {
                    Some(l) => Some(
                        l.as_integer()
                            .and_then(|n| usize::try_from(n).ok())
                            .filter(|&n| (1..=1 << 20).contains(&n))
                            .ok_or_else(|| fail(&["length"])("expected 1 to 1048576".into()))?,
                    ),
                    None => None,
                };
                let contents = match (t.get("fill"), t.get("values")) {
                    (Some(_), Some(_)) => {
                        return Err(fail(&[])("give `fill` or `values`, not both".into()));
                    }
                    (Some(f), None) => match f.as_str() {
                        Some("zero") => Contents::Zero,
                        Some("arbitrary" | "any") => Contents::Arbitrary,
                        _ => {
                            return Err(fail(&["fill"])(
                                "expected \"zero\" or \"arbitrary\"".into(),
                            ));
                        }
                    },
                    (None, Some(vals)) => {
                        Contents::Values(flat_ints(vals).map_err(fail(&["values"]))?)
                    }
                    (None, None) => Contents::Default,
                };
                // An image's extent: one positive size per coordinate.
                let extent = match t.get("extent") {
                    Some(e) => Some(extent_value(e).map_err(fail(&["extent"]))?),
                    None => None,
                };
                // The contents and length, then the extent, each an input
                // of its own so that what the shader refuses of one is
                // named at its key (`inputs.img.extent`); the extent's
                // input carries the length too, which shapes an array of
                // images it sizes.
                let given: Vec<&str> = ["length", "fill", "values"]
                    .into_iter()
                    .filter(|k| t.contains_key(*k))
                    .collect();
                if !given.is_empty() || extent.is_none() {
                    let at: &[&str] = match given.as_slice() {
                        [one] => std::slice::from_ref(one),
                        _ => &[],
                    };
                    push_at(contents, length, None, at, out);
                }
                if extent.is_some() {
                    push_at(Contents::Default, length, extent, &["extent"], out);
                }
            } else {
                for (member, mv) in t {
                    let mut under = path.to_vec();
                    under.push(member.clone());
                    inputs_of(&format!("{target}.{member}"), mv, &under, out, keys)?;
                }
            }
        }
        toml::Value::Boolean(b) => push(
            Contents::Values(vec![Number::Int(i64::from(*b))]),
            None,
            out,
        ),
        _ => {
            return Err(fail(&[])("expected a value, a list or a table".into()));
        }
    }
    Ok(())
}

/// An image's extent in a TOML file: a list of sizes (`[4, 4]`) or the
/// command line's spelling (`"4x4"`).
fn extent_value(v: &toml::Value) -> Result<Vec<usize>, String> {
    let expected = "expected a list of 1 to 4 sizes from 1 to 65536, one per image coordinate (`[4, 4]` or \"4x4\")";
    match v {
        toml::Value::String(s) => extent_of(s),
        toml::Value::Array(a) => {
            let mut sizes = Vec::new();
            for x in a {
                let size = x.as_integer().ok_or_else(|| {
                    format!(
                        "{expected}, found a {} where a whole number goes",
                        x.type_str()
                    )
                })?;
                let size = usize::try_from(size)
                    .map_err(|_| format!("{expected}, found a size of {size}"))?;
                size_in_range(size).map_err(|m| format!("{expected}, found {m}"))?;
                sizes.push(size);
            }
            count_in_range(sizes.len()).map_err(|m| format!("{expected}, found {m}"))?;
            Ok(sizes)
        }
        other => Err(format!("{expected}, found {}", other.type_str())),
    }
}

/// A TOML float as a float literal: its shortest decimal (`1.1` is 1.1,
/// rounded to the cell's width when it fills one).
fn float_number(f: f64) -> Number {
    Number::Float(format!("{f:?}"))
}

fn flat_ints(v: &toml::Value) -> Result<Vec<Number>, String> {
    let mut out = Vec::new();
    fn walk(v: &toml::Value, out: &mut Vec<Number>) -> bool {
        match v {
            toml::Value::Integer(n) => {
                out.push(Number::Int(*n));
                true
            }
            toml::Value::Float(f) => {
                out.push(float_number(*f));
                true
            }
            toml::Value::Boolean(b) => {
                out.push(Number::Int(i64::from(*b)));
                true
            }
            toml::Value::Array(items) => items.iter().all(|i| walk(i, out)),
            _ => false,
        }
    }
    if walk(v, &mut out) {
        Ok(out)
    } else {
        Err("expected numbers (lists may nest)".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_split_into_steps() {
        assert_eq!(
            steps("StateBuf.state[1].flag").unwrap(),
            vec![
                Step::Name("StateBuf".into()),
                Step::Field("state".into()),
                Step::Index(1),
                Step::Field("flag".into())
            ]
        );
        assert_eq!(steps("0.2").unwrap(), vec![Step::Binding(0, 2)]);
        assert_eq!(
            steps("0.2.counter[0]").unwrap(),
            vec![
                Step::Binding(0, 2),
                Step::Field("counter".into()),
                Step::Index(0)
            ]
        );
        // glslang's block of HLSL global uniforms.
        assert_eq!(
            steps("$Global.n").unwrap(),
            vec![Step::Name("$Global".into()), Step::Field("n".into())]
        );
        for bad in [
            "", ".x", "a..b", "a[", "a[x]", "0.", "a b", "a$", "$", "$.x",
        ] {
            assert!(steps(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_target_may_end_with_a_workgroup_copy() {
        assert_eq!(copy_of("seen").unwrap(), ("seen", None));
        assert_eq!(copy_of("seen[1]@wg1").unwrap(), ("seen[1]", Some(1)));
        assert_eq!(copy_of("s.a@wg12").unwrap(), ("s.a", Some(12)));
        for bad in [
            "seen@",
            "seen@wg",
            "seen@1",
            "seen@wg-1",
            "seen@wgx",
            "a@wg1@wg2",
        ] {
            assert!(check_target(bad).is_err(), "{bad}");
        }
        assert!(check_target("seen[1]@wg1").is_ok());
    }

    #[test]
    fn command_line_inputs() {
        let i = Input::parse("inbuf=0,1,2").unwrap();
        assert_eq!(
            i.contents,
            Contents::Values(vec![0.into(), 1.into(), 2.into()])
        );
        assert_eq!(Input::parse("0.1=zero").unwrap().contents, Contents::Zero);
        assert_eq!(
            Input::parse("b=arbitrary").unwrap().contents,
            Contents::Arbitrary
        );
        assert!(Input::parse("b=x").is_err());
        assert!(Input::parse("b").is_err());
        assert_eq!(Input::parse_length("b=4").unwrap().length, Some(4));
        assert!(Input::parse_length("b=0").is_err());
    }

    #[test]
    fn dispatch_tables() {
        let t: toml::Table = r#"
local_size = [2, 1, 1]
workgroups = 2
subgroup_size = 2
defines = ["ATOMIC", "N=3"]
set = { LG_WG_SIZE = 1, B = "8u" }
entry = "main"
[inputs]
InBuf = { length = 4, values = [0, 1, 2, 3] }
StateBuf = "zero"
info = { size = 256, offset = [0, 0] }
"#
        .parse()
        .unwrap();
        let mut s = ShaderOptions::default();
        apply_table(&t, Path::new("."), &mut s).unwrap();
        assert_eq!(s.local_size, Some([2, 1, 1]));
        assert_eq!(s.workgroups, Some([2, 1, 1]));
        assert_eq!(s.subgroup_size, Some(2));
        assert_eq!(
            s.defines,
            vec![("ATOMIC".into(), None), ("N".into(), Some("3".into()))]
        );
        assert!(s.set.contains(&("B".into(), "8u".into())));
        assert_eq!(s.entry.as_deref(), Some("main"));
        let find = |t: &str| s.inputs.iter().find(|i| i.target == t).unwrap().clone();
        assert_eq!(find("InBuf").length, Some(4));
        assert_eq!(
            find("InBuf").contents,
            Contents::Values(vec![0.into(), 1.into(), 2.into(), 3.into()])
        );
        assert_eq!(find("StateBuf").contents, Contents::Zero);
        assert_eq!(
            find("info.size").contents,
            Contents::Values(vec![256.into()])
        );
        assert_eq!(
            find("info.offset").contents,
            Contents::Values(vec![0.into(), 0.into()])
        );
        let bad: toml::Table = "colour = 1".parse().unwrap();
        assert!(apply_table(&bad, Path::new("."), &mut s).is_err());
        let bad: toml::Table = "[inputs]\nb = { length = 2, x = 1 }".parse().unwrap();
        assert!(apply_table(&bad, Path::new("."), &mut s).is_err());
    }
}
