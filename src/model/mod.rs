//! The memory models shipped inside the binary (`models/*.cat`), and loading
//! of a model by built-in name or from a user's `.cat` file, with the
//! [`Profile`] its `(*@ ... *)` declarations give it and the
//! [`SearchProfile`] the search reads of it (both computed once, when the
//! model loads).
//!
//! This is the registry of built-in models: the only place that knows them
//! by name. Everything else asks a model's profile.

pub mod names;
pub mod profile;

pub use profile::{Profile, SearchProfile};

use crate::cat::{CatError, CatErrorKind, Model};
use crate::ir::Dialect;
use profile::Resolved;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Every model file embedded in the binary (`.cat` and `.explain`): (file name, source).
pub const EMBEDDED: &[(&str, &str)] = &[
    ("vulkan.cat", include_str!("../../models/vulkan.cat")),
    (
        "vulkan-nochains.cat",
        include_str!("../../models/vulkan-nochains.cat"),
    ),
    (
        "vulkan-rules.cat",
        include_str!("../../models/vulkan-rules.cat"),
    ),
    (
        "vulkan-spec-readings.cat",
        include_str!("../../models/vulkan-spec-readings.cat"),
    ),
    (
        "vulkan-dat3m.cat",
        include_str!("../../models/vulkan-dat3m.cat"),
    ),
    (
        "vulkan-dat3m-nochains.cat",
        include_str!("../../models/vulkan-dat3m-nochains.cat"),
    ),
    (
        "vulkan-fr-asmo.cat",
        include_str!("../../models/vulkan-fr-asmo.cat"),
    ),
    (
        "vulkan-alloy-pre40.cat",
        include_str!("../../models/vulkan-alloy-pre40.cat"),
    ),
    (
        "vulkan-dat3m-rules.cat",
        include_str!("../../models/vulkan-dat3m-rules.cat"),
    ),
    (
        "vulkan-host.cat",
        include_str!("../../models/vulkan-host.cat"),
    ),
    (
        "vulkan-host-device-atomics.cat",
        include_str!("../../models/vulkan-host-device-atomics.cat"),
    ),
    ("pops.cat", include_str!("../../models/pops.cat")),
    (
        "pops-order.cat",
        include_str!("../../models/pops-order.cat"),
    ),
    (
        "pops-done-early.cat",
        include_str!("../../models/pops-done-early.cat"),
    ),
    (
        "pops-noncoherent.cat",
        include_str!("../../models/pops-noncoherent.cat"),
    ),
    (
        "pops-gfx9-offbyone.cat",
        include_str!("../../models/pops-gfx9-offbyone.cat"),
    ),
    (
        "pops-intrawave.cat",
        include_str!("../../models/pops-intrawave.cat"),
    ),
    (
        "vulkan-tess-vmm.cat",
        include_str!("../../models/vulkan-tess-vmm.cat"),
    ),
    (
        "vulkan-coopmat-single.cat",
        include_str!("../../models/vulkan-coopmat-single.cat"),
    ),
    (
        "vulkan-shcall-wide.cat",
        include_str!("../../models/vulkan-shcall-wide.cat"),
    ),
    (
        "vulkan-shcall-mid.cat",
        include_str!("../../models/vulkan-shcall-mid.cat"),
    ),
    (
        "vulkan-shcall-narrow.cat",
        include_str!("../../models/vulkan-shcall-narrow.cat"),
    ),
    ("opencl.cat", include_str!("../../models/opencl.cat")),
    (
        "opencl-totalsc.cat",
        include_str!("../../models/opencl-totalsc.cat"),
    ),
    (
        "opencl-rules.cat",
        include_str!("../../models/opencl-rules.cat"),
    ),
    (
        "opencl-nothinair.cat",
        include_str!("../../models/opencl-nothinair.cat"),
    ),
    (
        "opencl-host.cat",
        include_str!("../../models/opencl-host.cat"),
    ),
    (
        "opencl-groupsync.cat",
        include_str!("../../models/opencl-groupsync.cat"),
    ),
    ("ptx.cat", include_str!("../../models/ptx.cat")),
    (
        "vulkan.explain",
        include_str!("../../models/vulkan.explain"),
    ),
    (
        "opencl.explain",
        include_str!("../../models/opencl.explain"),
    ),
];

/// The prefix of embedded files' display names (`<builtin>/vulkan.cat`).
const BUILTIN_PREFIX: &str = "<builtin>/";

/// Built-in models selectable by name: (name, file, description).
pub const BUILTIN: &[(&str, &str, &str)] = &[
    (
        "vulkan",
        "vulkan.cat",
        "Vulkan memory model, availability/visibility chains supported",
    ),
    (
        "vulkan-nochains",
        "vulkan-nochains.cat",
        "Vulkan memory model, no availability/visibility chains",
    ),
    (
        "vulkan-fr-asmo",
        "vulkan-fr-asmo.cat",
        "Vulkan memory model, from-reads through asmo only (the AsciiDoc text, Alloy before PR #37)",
    ),
    (
        "vulkan-alloy-pre40",
        "vulkan-alloy-pre40.cat",
        "Vulkan memory model, availability/visibility semantics and device operations in both program-order directions (the Khronos Alloy model before PR #40)",
    ),
    (
        "vulkan-tess-vmm",
        "vulkan-tess-vmm.cat",
        "Vulkan memory model, tessellation outputs ordered by OutputMemory semantics only (control barriers: legacy SPIR-V)",
    ),
    (
        "vulkan-coopmat-single",
        "vulkan-coopmat-single.cat",
        "Vulkan memory model, cooperative matrix loads by a single invocation per element (the AsciiDoc rendering)",
    ),
    (
        "vulkan-shcall-wide",
        "vulkan-shcall-wide.cat",
        "Vulkan memory model, the shader call instance domain broader than the workgroup and subgroup instance domains (listed before the workgroup instance domain)",
    ),
    (
        "vulkan-shcall-mid",
        "vulkan-shcall-mid.cat",
        "Vulkan memory model, the shader call instance domain between the workgroup and subgroup instance domains",
    ),
    (
        "vulkan-shcall-narrow",
        "vulkan-shcall-narrow.cat",
        "Vulkan memory model, the shader call instance domain narrower than the subgroup instance domain",
    ),
    (
        "vulkan-host-device-atomics",
        "vulkan-host-device-atomics.cat",
        "Vulkan memory model, host and device atomics mutually ordered (the AsciiDoc rendering's bullet)",
    ),
    (
        "vulkan-dat3m",
        "vulkan-dat3m.cat",
        "Vulkan memory model as Dat3M reads it (from-reads, Invocation scope, barrier instances)",
    ),
    (
        "vulkan-dat3m-nochains",
        "vulkan-dat3m-nochains.cat",
        "Dat3M's reading, no availability/visibility chains",
    ),
    (
        "pops",
        "pops.cat",
        "AMD POPS lowering of fragment shader interlock (correct)",
    ),
    (
        "pops-done-early",
        "pops-done-early.cat",
        "POPS hazard: ORDERED_PS_DONE before the memory counters drain",
    ),
    (
        "pops-noncoherent",
        "pops-noncoherent.cat",
        "POPS hazard: the section's accesses not coherent (no GLC/DLC)",
    ),
    (
        "pops-gfx9-offbyone",
        "pops-gfx9-offbyone.cat",
        "POPS hazard: GFX9 off-by-one newest overlapped wave ID not corrected",
    ),
    (
        "pops-intrawave",
        "pops-intrawave.cat",
        "POPS hazard: intrawave collisions not resolved",
    ),
    (
        "opencl",
        "opencl.cat",
        "SPIR-V/OpenCL memory model, scoped SC axiom (Batty et al.)",
    ),
    (
        "opencl-totalsc",
        "opencl-totalsc.cat",
        "SPIR-V/OpenCL memory model, the document's unscoped total SC order S",
    ),
    (
        "opencl-nothinair",
        "opencl-nothinair.cat",
        "SPIR-V/OpenCL memory model, no out-of-thin-air values (sb | rf acyclic, RC11)",
    ),
    (
        "opencl-groupsync",
        "opencl-groupsync.cat",
        "SPIR-V/OpenCL memory model, group functions synchronise like barriers (2.4's reading)",
    ),
    (
        "ptx",
        "ptx.cat",
        "NVIDIA PTX memory consistency model (PTX ISA chapter 8; the target of vkmm refines --mapping)",
    ),
];

/// The source of an embedded file.
pub fn embedded(file: &str) -> Option<&'static str> {
    EMBEDDED.iter().find(|(f, _)| *f == file).map(|(_, s)| *s)
}

/// A loaded model: its name (as given to [`load`]), its cat text and its profile.
#[derive(Clone, Debug)]
pub struct LoadedModel {
    pub name: String,
    pub cat: Model,
    /// Shared: a model and its copies (a model is often its own companion).
    pub profile: Arc<Profile>,
    /// What the search reads of the model (the orders it names, the facts
    /// reductions rest on), computed here once rather than per search.
    pub search: SearchProfile,
}

/// Loads a model: a built-in name (`vulkan`, `vulkan-nochains`,
/// `vulkan-fr-asmo`, `vulkan-dat3m`, `vulkan-dat3m-nochains`, `opencl`, `opencl-totalsc`, `opencl-nothinair`), an embedded file (`<builtin>/vulkan.cat`) or a path to
/// a `.cat` file, with its profile.
///
/// Includes resolve against the including file's folder first, then the
/// embedded models; so do the files profile declarations name. Files are
/// read under the default memory bound
/// ([`crate::memory::DEFAULT_MAX_MEMORY`]; [`load_within`] takes a
/// request's).
pub fn load(spec: &str) -> Result<LoadedModel, CatError> {
    load_within(spec, Some(crate::memory::DEFAULT_MAX_MEMORY))
}

/// [`load`] with the model's files (and its includes) read under `bound`,
/// the memory bound of the request loading it (`None`: none).
pub fn load_within(spec: &str, bound: Option<usize>) -> Result<LoadedModel, CatError> {
    let builtin = BUILTIN
        .iter()
        .find(|(n, _, _)| *n == spec)
        .map(|(_, file, _)| *file)
        .or_else(|| spec.strip_prefix(BUILTIN_PREFIX));
    let (file, source, dir) = match builtin.and_then(|f| Some((f, embedded(f)?))) {
        Some((f, src)) => (format!("{BUILTIN_PREFIX}{f}"), src.to_string(), None),
        None => {
            let path = Path::new(spec);
            let source = crate::memory::read_input_text(path, bound).map_err(|e| CatError {
                kind: CatErrorKind::Include,
                file: spec.to_string(),
                line: 0,
                col: 0,
                message: format!(
                    "cannot read model: {e} (built-in models: {})",
                    BUILTIN
                        .iter()
                        .map(|(n, _, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })?;
            let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            (spec.to_string(), source, Some(dir))
        }
    };
    let resolve = move |name: &str| -> Option<(String, String)> {
        if let Some(dir) = &dir
            && let Some(found) = read_near(dir, name, bound)
        {
            return Some((found.file, found.text));
        }
        embedded(name).map(|s| (format!("{BUILTIN_PREFIX}{name}"), s.to_string()))
    };
    LoadedModel::new(spec, Model::parse(&file, &source, &resolve)?)
}

/// A model given as cat text (pasted into the browser playground, say),
/// named `name` in errors and reports. Its includes and the files its
/// profile declares resolve against the embedded models only.
///
/// ```
/// let m = vkmm::model::load_text("mine.cat", "\"mine\"\ninclude \"vulkan.cat\"\n").unwrap();
/// assert_eq!(m.name, "mine.cat");
/// assert!(vkmm::model::load_text("bad.cat", "let = 1").is_err());
/// ```
pub fn load_text(name: &str, source: &str) -> Result<LoadedModel, CatError> {
    let resolve =
        |file: &str| embedded(file).map(|s| (format!("{BUILTIN_PREFIX}{file}"), s.to_string()));
    LoadedModel::new(name, Model::parse(name, source, &resolve)?)
}

impl LoadedModel {
    /// A model the caller parsed (with its own include resolver), named
    /// `name`, with the profile it declares.
    pub fn new(name: &str, cat: Model) -> Result<LoadedModel, CatError> {
        // The whole model is checked here, once: every identifier resolved
        // and every statement's types, whatever test runs under it.
        cat.check_whole(&|n| names::lookup(n).map(|b| b.kind == names::Kind::Set))?;
        let profile = Arc::new(Profile::of(&cat, &resolve_declared)?);
        let search = SearchProfile::of(&cat);
        Ok(LoadedModel {
            name: name.to_string(),
            cat,
            profile,
            search,
        })
    }
}

/// The file `name` in `dir`, if it can be read (within `bound`).
fn read_near(dir: &Path, name: &str, bound: Option<usize>) -> Option<Resolved> {
    let path = dir.join(name);
    let text = crate::memory::read_input_text(&path, bound).ok()?;
    let file = path.display().to_string();
    Some(Resolved {
        spec: file.clone(),
        file,
        text,
    })
}

/// A file a declaration in the file `declaring` names: next to it (read
/// under the default memory bound), then embedded (as a built-in model's
/// name when it is one).
fn resolve_declared(declaring: &str, name: &str) -> Option<Resolved> {
    if !declaring.starts_with(BUILTIN_PREFIX) {
        let dir = Path::new(declaring)
            .parent()
            .map(PathBuf::from)
            .unwrap_or_default();
        if let Some(found) = read_near(&dir, name, Some(crate::memory::DEFAULT_MAX_MEMORY)) {
            return Some(found);
        }
    }
    let text = embedded(name)?;
    let spec = BUILTIN
        .iter()
        .find(|(_, f, _)| *f == name)
        .map(|(n, _, _)| n.to_string())
        .unwrap_or_else(|| format!("{BUILTIN_PREFIX}{name}"));
    Some(Resolved {
        spec,
        file: format!("{BUILTIN_PREFIX}{name}"),
        text: text.to_string(),
    })
}

/// The built-in model tests of `dialect` run under by default: the first
/// built-in model whose profile declares `default-for` it.
///
/// Read from the annotations of each built-in model's top file only (the
/// built-in models declare `default-for` there; a unit test checks this
/// against the full profiles): every process asks this, and parsing every
/// built-in model in full would be paid by each, whatever it runs.
pub fn default_for(dialect: Dialect) -> &'static str {
    static DEFAULTS: OnceLock<Vec<(&'static str, Vec<Dialect>)>> = OnceLock::new();
    let defaults = DEFAULTS.get_or_init(|| {
        BUILTIN
            .iter()
            .filter_map(|(n, file, _)| {
                let text = embedded(file)?;
                let annotations = crate::cat::annotations_of(file, text).ok()?;
                Some((*n, profile::default_dialects(&annotations)))
            })
            .collect()
    });
    defaults
        .iter()
        .find(|(_, d)| d.contains(&dialect))
        .map_or(BUILTIN[0].0, |(n, _)| n)
}

#[cfg(test)]
mod tests;
