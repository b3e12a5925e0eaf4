//! Front ends: one parser per input format, each producing a [`Program`].
//!
//! Every front end reports bad input as a [`FrontendError`] naming the file,
//! line and column and saying what was expected. `load` picks the front end
//! from the file extension (and, for `.litmus` files, the architecture word
//! that opens the file).

pub mod alloy_test;
pub mod assertion;
mod attributes;
pub mod clock;
pub mod inputs;
#[cfg(test)]
mod lint_tests;
pub mod litmus;
#[cfg(test)]
mod nesting_tests;
pub mod opencl_litmus;
pub mod spirv;
pub(crate) mod suggest;
pub mod vulkan_litmus;

use crate::ir::{CondExpr, Program};
use std::path::Path;

/// How deeply any construct may nest in any front end (statements, blocks,
/// parentheses, negations): past it, a located "nesting deeper than" error,
/// never a stack overflow. Every parser of vkmm is a recursive descent, and
/// every consumer of what it builds recurses too.
pub const MAX_NESTING: usize = 128;

/// A parse or validation error in an input file. `line` and `column` are
/// 1-based; 0 means the error has no position (a file that cannot be read),
/// and the message then reads `file: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontendError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for FrontendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            )
        }
    }
}

impl std::error::Error for FrontendError {}

/// Warnings belong to the program they are about ([`crate::ir`]); the
/// front ends build them under this name.
pub use crate::ir::FrontendWarning;

/// Input formats vkmm reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The Khronos Vulkan-MemoryModel Alloy `.test` format.
    AlloyTest,
    /// herd-style `.litmus` tests in the Vulkan dialect of Dat3M.
    VulkanLitmus,
    /// herd's C-style OpenCL `.litmus` tests (architecture word `OPENCL`).
    /// `of_path` cannot tell them from Vulkan ones (same extension);
    /// [`Format::of_litmus_text`] looks at the architecture word.
    OpenClLitmus,
    /// SPIR-V assembly text with Dat3M's headers (`.spvasm`, or
    /// `NAME.asm.STAGE` such as `.asm.comp`).
    Spirv,
    /// A binary SPIR-V module (`.spv`), its headers in `FILE.spv.headers`.
    SpirvBinary,
    /// A GLSL compute shader (`.comp`, or `.glsl` read as a compute
    /// shader), compiled by `glslangValidator`.
    Glsl,
    /// A WGSL shader (`.wgsl`), compiled in process by naga.
    Wgsl,
    /// An HLSL shader (`.hlsl`), compiled by glslang's HLSL front end.
    Hlsl,
}

impl Format {
    /// The format of a file, by its extension.
    pub fn of_path(path: &Path) -> Option<Format> {
        // SPIR-V assembly named by the stage it holds, as SPIRV-Cross's
        // and glslang's test suites name it: `NAME.asm.comp`,
        // `NAME.asm.frag`.
        const STAGES: [&str; 14] = [
            "comp", "vert", "frag", "tesc", "tese", "geom", "mesh", "task", "rgen", "rint",
            "rahit", "rchit", "rmiss", "rcall",
        ];
        let stem_ext = Path::new(path.file_stem()?).extension();
        let ext = path.extension()?.to_str()?;
        if stem_ext.is_some_and(|e| e == "asm") && STAGES.contains(&ext) {
            return Some(Format::Spirv);
        }
        match path.extension()?.to_str()? {
            "test" => Some(Format::AlloyTest),
            "litmus" => Some(Format::VulkanLitmus),
            "spvasm" => Some(Format::Spirv),
            "spv" => Some(Format::SpirvBinary),
            "comp" | "glsl" => Some(Format::Glsl),
            "wgsl" => Some(Format::Wgsl),
            "hlsl" => Some(Format::Hlsl),
            _ => None,
        }
    }

    /// The format of a test given as text: by the extension of `name` when
    /// it has one vkmm knows, else a litmus test when the text opens with a
    /// litmus architecture word (`VULKAN`, `OPENCL`), else a `.test` file.
    pub fn guess(name: &str, text: &str) -> Format {
        if let Some(f) = Format::of_path(Path::new(name)) {
            return f;
        }
        match litmus_architecture(text) {
            Some((w, _, _))
                if w.eq_ignore_ascii_case("vulkan") || w.eq_ignore_ascii_case("opencl") =>
            {
                Format::VulkanLitmus
            }
            _ => Format::AlloyTest,
        }
    }

    /// The format of a `.litmus` file from its architecture word: `OPENCL`
    /// (any case) is [`Format::OpenClLitmus`], anything else is handed to the
    /// Vulkan front end (which rejects unknown architectures).
    pub fn of_litmus_text(text: &str) -> Format {
        match litmus_architecture(text) {
            Some((word, _, _)) if word.eq_ignore_ascii_case("opencl") => Format::OpenClLitmus,
            _ => Format::VulkanLitmus,
        }
    }
}

/// Choices a front end makes where references read a construct
/// differently, and how a shader is compiled and dispatched.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Options {
    pub local_memory: LocalMemory,
    pub out_of_bounds: OutOfBoundsReading,
    pub shader: ShaderOptions,
    pub legacy_memory_model: LegacyMemoryModel,
    /// SPIR-V: an access at a runtime offset in a block no path of the
    /// invocation reaches is lowered in full, a branch over every cell
    /// it may name, as in a reached block. Off: such an access leaves
    /// its branches out (it never runs). The same programs' answers
    /// either way; the tests compare the two.
    #[doc(hidden)]
    #[serde(skip)]
    pub unreached_chains: bool,
}

/// How a shader (GLSL, WGSL, HLSL, a SPIR-V module) is compiled and
/// dispatched when the command line or a dispatch file says so: each field
/// overrides what the shader itself declares, and `None` / empty keeps the
/// shader's own choice.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ShaderOptions {
    /// `--local-size X,Y,Z`: the workgroup size, in place of the module's
    /// `LocalSize` / `LocalSizeId`, its `WorkgroupSize` builtin constant and
    /// the spec constants those name (WGSL `@workgroup_size`).
    pub local_size: Option<[u32; 3]>,
    /// `--workgroups X,Y,Z`: how many workgroups the dispatch runs.
    pub workgroups: Option<[u32; 3]>,
    /// `--subgroup-size N`: invocations per subgroup.
    pub subgroup_size: Option<u32>,
    /// `-D NAME[=VALUE]`: preprocessor definitions, in order.
    pub defines: Vec<(String, Option<String>)>,
    /// `-I DIR`: include directories, after the shader's own folder.
    pub include_dirs: Vec<std::path::PathBuf>,
    /// `--set NAME=VALUE`: a module-scope constant the shader fixes in its
    /// own text, checked as if it had this value (a GLSL/HLSL `#define`, a
    /// WGSL `const` or `override`, a SPIR-V spec constant by name or SpecId).
    pub set: Vec<(String, String)>,
    /// Where a dispatch or inputs file gives a `set` key: (name, value,
    /// `FILE:LINE:COLUMN, key `set.NAME``), so that an error about it names
    /// the place (a value the command line replaced is not named).
    pub set_origins: Vec<(String, String, String)>,
    /// `--entry NAME`: the entry point, where a module has several.
    pub entry: Option<String>,
    /// `--input`, `--length` and a dispatch file's `[inputs]`: what the
    /// buffers, uniforms and push constants hold at the start.
    pub inputs: Vec<inputs::Input>,
    /// The dispatch file these options hold (`--dispatch`, or the one
    /// found beside the shader, [`inputs::beside`]); `None`: none yet, and
    /// loading a shader looks for one beside it.
    pub dispatch_file: Option<std::path::PathBuf>,
    /// Conditions the shader is checked against besides its own headers
    /// (a manifest row's assertion): the cells they name get locations,
    /// also cells of a large variable that no access reaches (which keep
    /// their initial value).
    pub named: Vec<String>,
    /// `--assert CONDITION`, a manifest row's assertion: the final
    /// condition the shader is checked against, in place of its own
    /// headers' ([`assertion`]).
    pub assertion: Option<assertion::Asserted>,
}

impl ShaderOptions {
    /// Reads `X[,Y[,Z]]` (missing dimensions are 1), each at least 1.
    pub fn parse_dims(text: &str) -> Result<[u32; 3], String> {
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if parts.is_empty() || parts.len() > 3 {
            return Err(format!(
                "expected X[,Y[,Z]] (1 to 3 numbers), found `{text}`"
            ));
        }
        let mut dims = [1u32; 3];
        for (d, p) in parts.iter().enumerate() {
            dims[d] = match p.parse::<u32>() {
                Ok(n) if n >= 1 => n,
                _ => {
                    return Err(format!(
                        "expected X[,Y[,Z]] of whole numbers of at least 1, found `{text}`"
                    ));
                }
            };
        }
        Ok(dims)
    }

    /// Reads `NAME` or `NAME=VALUE` (a preprocessor definition).
    pub fn parse_define(text: &str) -> Result<(String, Option<String>), String> {
        let (name, value) = match text.split_once('=') {
            Some((n, v)) => (n.trim(), Some(v.trim().to_string())),
            None => (text.trim(), None),
        };
        if !is_identifier(name) {
            return Err(format!(
                "expected NAME[=VALUE] with NAME an identifier, found `{text}`"
            ));
        }
        Ok((name.to_string(), value))
    }

    /// Reads `NAME=VALUE` (a constant set).
    pub fn parse_set(text: &str) -> Result<(String, String), String> {
        match text.split_once('=') {
            Some((n, v)) if is_identifier(n.trim()) || n.trim().parse::<u32>().is_ok() => {
                if v.trim().is_empty() {
                    return Err(format!("expected NAME=VALUE with a value, found `{text}`"));
                }
                Ok((n.trim().to_string(), v.trim().to_string()))
            }
            _ => Err(format!(
                "expected NAME=VALUE (NAME an identifier or a SpecId number), found `{text}`"
            )),
        }
    }
}

/// Whether `s` is a C-style identifier.
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// What a SPIR-V access whose runtime index names no cell of its variable
/// does (docs/format-spirv.md, "Out-of-bounds accesses").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum OutOfBoundsReading {
    /// Undefined behaviour, as the specification says (SPIR-V, OpAccessChain,
    /// of each index: "if indexing into a vector, array, or matrix, with the
    /// result type being a logical pointer type, causes undefined behavior
    /// if not in bounds"): the path accesses nothing and is marked, and
    /// every report of an execution taking it says so
    /// ([`crate::ir::OutOfBounds`]).
    #[default]
    Undefined,
    /// Dat3M's reading: memory is flat, so an element past the end of a
    /// shared variable (StorageBuffer, Workgroup, ...) is one more location
    /// of that variable instance, which other invocations' accesses to the
    /// same element meet. Only offsets the lowering knows (constants and
    /// builtins, folded per invocation) get such a location; the others
    /// stay undefined behaviour.
    Flat,
}

impl std::str::FromStr for OutOfBoundsReading {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "undefined" => Ok(OutOfBoundsReading::Undefined),
            "flat" => Ok(OutOfBoundsReading::Flat),
            _ => Err(format!(
                "unknown out-of-bounds reading `{s}`: expected `undefined` or `flat`"
            )),
        }
    }
}

/// How a SPIR-V module declaring `OpMemoryModel ... GLSL450` (or `Simple`)
/// is read (docs/format-spirv.md, "The GLSL450 memory model").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum LegacyMemoryModel {
    /// The reading GLSL compilers and drivers give it: plain accesses to
    /// `Coherent`-decorated variables and members carry availability and
    /// visibility at Device scope, those to Workgroup variables (GLSL:
    /// "Shared variables are implicitly coherent") at Workgroup scope,
    /// both non-private. The Vulkan memory-model appendix: "GLSL to SPIR-V
    /// compilers should map all (non-atomic) operations on a coherent
    /// variable to Make{Pointer,Texel}{Available}{Visible} flags in this
    /// model."
    #[default]
    Coherent,
    /// The literal reading: only the Vulkan memory model's own operands
    /// (MakePointerAvailable/Visible, NonPrivatePointer) count, so every
    /// plain access of a GLSL450 module is private and the `Coherent`
    /// decoration does nothing.
    Strict,
    /// The WGSL specification's mapping, for the module naga compiles from
    /// a WGSL shader (the default reading of WGSL: a `coherent` reading
    /// asked of a WGSL shader reads it this way). WGSL 14.5.5: "All
    /// non-atomic read accesses in the storage or workgroup address spaces
    /// are considered non-private and correspond to read operations with
    /// NonPrivatePointer | MakePointerVisible memory operands with the
    /// Workgroup scope", and writes likewise with MakePointerAvailable:
    /// plain accesses to storage buffers and workgroup variables carry
    /// availability and visibility at Workgroup scope, whatever naga's
    /// module declares (GLSL450, no `Coherent`).
    Wgsl,
}

impl std::str::FromStr for LegacyMemoryModel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "coherent" => Ok(LegacyMemoryModel::Coherent),
            "strict" => Ok(LegacyMemoryModel::Strict),
            "wgsl" => Ok(LegacyMemoryModel::Wgsl),
            _ => Err(format!(
                "unknown legacy memory-model reading `{s}`: expected `coherent`, `strict` or `wgsl`"
            )),
        }
    }
}

/// What an OpenCL `local` variable named by threads of several workgroups is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum LocalMemory {
    /// One instance per workgroup, as the specification says ("Local Memory:
    /// A memory region associated with a work-group and accessible only by
    /// work-items in that work-group").
    #[default]
    PerWorkgroup,
    /// One location for all workgroups, `local` being only an address-space
    /// tag: how herd7 and Dat3M read such tests.
    Shared,
}

impl std::str::FromStr for LocalMemory {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "per-workgroup" => Ok(LocalMemory::PerWorkgroup),
            "shared" => Ok(LocalMemory::Shared),
            _ => Err(format!(
                "unknown local-memory reading `{s}`: expected `per-workgroup` or `shared`"
            )),
        }
    }
}

/// Parses an outcome — a condition expression such as `P1:r0 == 1 /\ x == 0`
/// (OpenCL: `1:r0=1 /\ x=0`) — against a loaded program: its names resolve
/// through [`Program::symbols`], in the syntax of [`Program::dialect`] (see
/// the condition grammar in the litmus skeleton's docs). Errors name the
/// file `--outcome`, line 1 and the column of the offending token.
pub fn parse_outcome(program: &Program, outcome: &str) -> Result<CondExpr, FrontendError> {
    if program.kind == crate::ir::TestKind::Queries {
        return Err(FrontendError {
            file: "--outcome".into(),
            line: 1,
            column: 1,
            message: "--outcome applies to .litmus files (a .test file's values are pinned by its instructions)".into(),
        });
    }
    if spirv::is_spirv(program) {
        return spirv::parse_outcome(program, outcome);
    }
    litmus::parse_outcome(program, outcome)
}

/// Reads and parses a litmus file in whatever format its extension names.
pub fn load(path: &Path) -> Result<Program, FrontendError> {
    load_with(path, Options::default())
}

/// [`load`] with front-end options.
pub fn load_with(path: &Path, options: Options) -> Result<Program, FrontendError> {
    let display = path.display().to_string();
    let format = Format::of_path(path).ok_or_else(|| FrontendError {
        file: display.clone(),
        line: 0,
        column: 0,
        message:
            "unknown file type: expected a `.test`, `.litmus`, `.spvasm`, `.spv`, `.comp`, `.glsl`, `.wgsl` or `.hlsl` file"
                .into(),
    })?;
    // A dispatch file beside a shader, when none is named.
    let mut options = options;
    let found = match format {
        Format::AlloyTest | Format::VulkanLitmus | Format::OpenClLitmus => None,
        _ => inputs::beside(path, &mut options.shader)?,
    };
    let mut program = if format == Format::SpirvBinary {
        load_binary(path, &display, options)?
    } else {
        let text = read_text(path)?;
        parse_text(&display, &text, format, options)?
    };
    if let Some(file) = found {
        program.warnings.insert(
            0,
            FrontendWarning {
                file: display,
                line: 0,
                column: 0,
                message: format!(
                    "the dispatch file {} beside the shader applies (the command line wins over it; --dispatch names another)",
                    file.display()
                ),
            },
        );
    }
    Ok(program)
}

/// A file's text: an error naming the file when it cannot be read or is
/// not UTF-8.
pub(crate) fn read_text(path: &Path) -> Result<String, FrontendError> {
    let display = path.display().to_string();
    let bytes =
        crate::memory::read_input(path, crate::frontend::clock::input_bound()).map_err(|e| {
            FrontendError {
                file: display.clone(),
                line: 0,
                column: 0,
                message: e.to_string(),
            }
        })?;
    String::from_utf8(bytes).map_err(|e| not_utf8(&display, e.as_bytes(), &e))
}

/// A binary module and the header comments of `FILE.spv.headers` beside it.
fn load_binary(path: &Path, display: &str, options: Options) -> Result<Program, FrontendError> {
    let bytes =
        crate::memory::read_input(path, crate::frontend::clock::input_bound()).map_err(|e| {
            FrontendError {
                file: display.to_string(),
                line: 0,
                column: 0,
                message: e.to_string(),
            }
        })?;
    let mut sidecar = path.as_os_str().to_owned();
    sidecar.push(".headers");
    let sidecar = std::path::PathBuf::from(sidecar);
    let sidecar_name = sidecar.display().to_string();
    let headers = match crate::memory::read_input(&sidecar, crate::frontend::clock::input_bound()) {
        Ok(b) => Some(String::from_utf8(b).map_err(|e| not_utf8(&sidecar_name, e.as_bytes(), &e))?),
        Err(crate::memory::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(FrontendError {
                file: sidecar_name,
                line: 0,
                column: 0,
                message: format!("cannot read the headers file: {e}"),
            });
        }
    };
    spirv::parse_binary_with(
        display,
        &bytes,
        headers.as_deref().map(|h| (sidecar_name.as_str(), h)),
        options,
    )
}

/// The error for a file that is not UTF-8, at the line and column of its
/// first bad byte (the column counts the characters before it, plus one).
fn not_utf8(file: &str, bytes: &[u8], e: &std::string::FromUtf8Error) -> FrontendError {
    let bad = e.utf8_error().valid_up_to();
    // Everything before `bad` is valid UTF-8.
    let before = std::str::from_utf8(&bytes[..bad]).unwrap_or_default();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    FrontendError {
        file: file.to_string(),
        line: before.matches('\n').count() + 1,
        column: before[line_start..].chars().count() + 1,
        message: format!("file is not UTF-8: invalid byte 0x{:02x}", bytes[bad]),
    }
}

/// Parses a test given as text, in `format` (for `.litmus` text the
/// architecture word picks the dialect).
pub fn parse_text(
    name: &str,
    text: &str,
    format: Format,
    options: Options,
) -> Result<Program, FrontendError> {
    if let Some(a) = &options.shader.assertion
        && matches!(
            format,
            Format::AlloyTest | Format::VulkanLitmus | Format::OpenClLitmus
        )
    {
        return Err(FrontendError {
            file: name.to_string(),
            line: 0,
            column: 0,
            message: format!(
                "{} gives a shader (GLSL, HLSL, WGSL, SPIR-V) its condition; a litmus test states its own (or take --outcome)",
                a.origin
            ),
        });
    }
    let set = options.shader.set.clone();
    let set_origins = options.shader.set_origins.clone();
    let program = match format {
        Format::AlloyTest => alloy_test::parse(name, text),
        Format::Spirv => spirv::parse_with(name, text, options),
        Format::Glsl if spirv::hlsl::is_hlsl_text(text) => {
            spirv::hlsl::parse_with(name, text, options)
        }
        Format::Glsl => spirv::glsl::parse_with(name, text, options),
        Format::Wgsl => spirv::wgsl::parse_with(name, text, options),
        Format::Hlsl => spirv::hlsl::parse_with(name, text, options),
        Format::SpirvBinary => Err(FrontendError {
            file: name.to_string(),
            line: 0,
            column: 0,
            message: "a binary SPIR-V module is read from its file (`vkmm check FILE.spv`), not from text".into(),
        }),
        Format::VulkanLitmus | Format::OpenClLitmus => match Format::of_litmus_text(text) {
            Format::OpenClLitmus => opencl_litmus::parse_with(name, text, options),
            _ => {
                check_litmus_architecture(name, text)?;
                vulkan_litmus::parse(name, text)
            }
        },
    }
    .map_err(|e| at_set_origin(e, &set, &set_origins))?;
    Ok(program)
}

/// A front end's error about `--set NAME` (its message opens with it)
/// where a file gave NAME the value in force: the message names the
/// file, line, column and key instead.
fn at_set_origin(
    mut e: FrontendError,
    set: &[(String, String)],
    origins: &[(String, String, String)],
) -> FrontendError {
    let Some(rest) = e.message.strip_prefix("--set ") else {
        return e;
    };
    let name_end = rest.find(['=', ':']).unwrap_or(rest.len());
    let name = &rest[..name_end];
    let in_force = set.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v);
    if let Some((_, _, origin)) = origins
        .iter()
        .rev()
        .find(|(n, v, _)| n == name && Some(v) == in_force)
    {
        e.message = format!("{origin}: set {rest}");
    }
    e
}

/// The first word of a litmus file (its architecture) with its line and column.
pub fn litmus_architecture(text: &str) -> Option<(&str, usize, usize)> {
    for (i, line) in text.lines().enumerate() {
        if let Some(start) = line.find(|c: char| !c.is_whitespace()) {
            let rest = &line[start..];
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            return Some((&rest[..end], i + 1, line[..start].chars().count() + 1));
        }
    }
    None
}

/// Accepts a litmus file whose architecture word is `VULKAN` (any case);
/// rejects any other architecture, and an empty file.
pub(crate) fn check_litmus_architecture(file: &str, text: &str) -> Result<(), FrontendError> {
    match litmus_architecture(text) {
        Some((word, _, _)) if word.eq_ignore_ascii_case("vulkan") => Ok(()),
        Some((word, line, column)) => Err(FrontendError {
            file: file.to_string(),
            line,
            column,
            message: format!(
                "unsupported litmus architecture `{word}`: vkmm reads VULKAN and OPENCL litmus tests"
            ),
        }),
        None => Err(FrontendError {
            file: file.to_string(),
            line: 1,
            column: 1,
            message: "empty file: expected a litmus header such as `VULKAN name`".into(),
        }),
    }
}
