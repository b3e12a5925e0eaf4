//! The memory models shipped inside the binary (`models/*.cat`), and loading
//! of a model by built-in name or from a user's `.cat` file.

use crate::cat::{CatError, CatErrorKind, Model};
use std::path::Path;

/// Every `.cat` file embedded in the binary: (file name, source).
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
    ("opencl.cat", include_str!("../../models/opencl.cat")),
    (
        "opencl-totalsc.cat",
        include_str!("../../models/opencl-totalsc.cat"),
    ),
    (
        "opencl-rules.cat",
        include_str!("../../models/opencl-rules.cat"),
    ),
];

/// The explanation labels of the built-in Vulkan models (`models/vulkan.explain`).
pub const VULKAN_EXPLAIN: &str = include_str!("../../models/vulkan.explain");

/// The explanation labels of the built-in OpenCL models (`models/opencl.explain`).
pub const OPENCL_EXPLAIN: &str = include_str!("../../models/opencl.explain");

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
        "opencl",
        "opencl.cat",
        "SPIR-V/OpenCL memory model, scoped SC axiom (Batty et al.)",
    ),
    (
        "opencl-totalsc",
        "opencl-totalsc.cat",
        "SPIR-V/OpenCL memory model, the document's unscoped total SC order S",
    ),
];

/// The source of an embedded file.
pub fn embedded(file: &str) -> Option<&'static str> {
    EMBEDDED.iter().find(|(f, _)| *f == file).map(|(_, s)| *s)
}

/// Loads a model: a built-in name (`vulkan`, `vulkan-nochains`, `opencl`, `opencl-totalsc`) or a path to a `.cat` file.
///
/// Includes resolve against the including file's folder first, then the embedded models.
pub fn load(spec: &str) -> Result<Model, CatError> {
    if let Some((_, file, _)) = BUILTIN.iter().find(|(n, _, _)| *n == spec) {
        let src = embedded(file).expect("built-in models are embedded");
        return Model::parse(&format!("<builtin>/{file}"), src, &resolve_embedded);
    }
    let path = Path::new(spec);
    let source = std::fs::read_to_string(path).map_err(|e| CatError {
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
    let resolve = move |name: &str| -> Option<(String, String)> {
        let candidate = dir.join(name);
        if let Ok(src) = std::fs::read_to_string(&candidate) {
            return Some((candidate.display().to_string(), src));
        }
        resolve_embedded(name)
    };
    Model::parse(spec, &source, &resolve)
}

fn resolve_embedded(name: &str) -> Option<(String, String)> {
    embedded(name).map(|s| (format!("<builtin>/{name}"), s.to_string()))
}
