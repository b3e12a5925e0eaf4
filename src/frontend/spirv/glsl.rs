//! GLSL compute shaders (`.comp`): compiled to SPIR-V by Khronos'
//! `glslangValidator` (Debian package `glslang-tools`), then read as a
//! binary module ([`super::parse_binary`]'s path). The Dat3M headers are
//! `//` comments of the shader (`// @Output: forall (%buf[0] == 1)`);
//! error positions in the compiled module go back to the shader's lines
//! through the `OpLine`s the compiler's `-g` writes. docs/format-glsl.md
//! and docs/glsl-spirv-mapping.md.
//!
//! The compiler is an external process: a missing tool is an error with
//! an install hint, a crash (killed by a signal) an error naming the tool
//! and the signal, a compile error the compiler's first message at its
//! line. `VKMM_GLSLANG` names another compiler binary.

use super::FrontendError;
use crate::ir::Program;
use std::io::Write;
use std::process::{Command, Stdio};

/// The compiler's name, or `VKMM_GLSLANG`.
pub fn compiler() -> String {
    std::env::var("VKMM_GLSLANG").unwrap_or_else(|_| "glslangValidator".into())
}

/// Whether the compiler can be started (`glslangValidator --version`).
pub fn available() -> bool {
    Command::new(compiler())
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The header comments of a shader as `.spvasm` header lines, one line per
/// line of the shader (others blank), columns unchanged: `//` becomes `; `.
pub(super) fn headers(source: &str) -> String {
    let mut out = String::new();
    for raw in source.lines() {
        let t = raw.trim_start();
        if let Some(rest) = t.strip_prefix("//") {
            let key = rest.trim_start();
            if ["@Input", "@Output", "@Filter", "@Config"]
                .iter()
                .any(|k| key.starts_with(k))
            {
                out.push_str(&raw[..raw.len() - t.len()]);
                out.push_str("; ");
                out.push_str(rest);
            }
        }
        out.push('\n');
    }
    out
}

/// Parses a GLSL compute shader: compiles it and lowers the module.
pub fn parse(file: &str, source: &str) -> Result<Program, FrontendError> {
    parse_with(file, source, crate::frontend::Options::default())
}

/// [`parse`] with front-end options (the out-of-bounds reading).
pub fn parse_with(
    file: &str,
    source: &str,
    options: crate::frontend::Options,
) -> Result<Program, FrontendError> {
    let (source, specs, headers) =
        set_defines_or_specs(file, source, &options.shader.set, &options.shader)?;
    let source = with_local_size(&source, options.shader.local_size);
    let compiled = with_include_directive(&source);
    let bytes = compile(file, &compiled, &options.shader, headers.as_ref())?;
    let asm = super::disassemble_compiled(file, &bytes, &compiler())?;
    let mut options = options;
    options.shader.set = specs;
    super::parse_compiled(file, &source, &asm, options)
}

/// The shader's text as `glslc` and the other shaderc-based builds
/// compile it: a shader with an `#include` line and no
/// `GL_GOOGLE_include_directive` gets the extension after its
/// `#version` line. glslangValidator refuses `#include` without it
/// ("required extension not requested"), while shaderc enables it for
/// every shader, so projects built with glslc (Vulkan-Samples) write
/// `#include` alone. A `#line` directive after the inserted line numbers
/// the next line as it is numbered in the shader's own text ("the
/// implementation will behave as if it is compiling at line number
/// line", GLSL 4.60, 3.4), so the compiler's errors and the module's
/// `OpLine`s keep the shader's lines.
pub(super) fn with_include_directive(source: &str) -> String {
    let directive = |line: &str, word: &str| {
        line.trim_start()
            .strip_prefix('#')
            .is_some_and(|r| r.trim_start().starts_with(word))
    };
    let lines: Vec<&str> = source.split('\n').collect();
    let includes = lines.iter().any(|l| directive(l, "include"));
    let enabled = lines
        .iter()
        .any(|l| directive(l, "extension") && l.contains("GL_GOOGLE_include_directive"));
    let version = lines.iter().position(|l| directive(l, "version"));
    let (true, false, Some(k)) = (includes, enabled, version) else {
        return source.to_string();
    };
    let mut out = lines[..=k].join("\n");
    // Line k (0-based) is the version line: the next is line k + 2.
    out.push_str(&format!(
        "\n#extension GL_GOOGLE_include_directive : enable\n#line {}\n",
        k + 2
    ));
    out.push_str(&lines[k + 1..].join("\n"));
    out
}

/// The shader's text with the workgroup size `size` (`--local-size`) in
/// its `layout(local_size_x = X, local_size_y = Y, local_size_z = Z) in;`
/// declarations, a dimension the layout leaves out added when it is not
/// 1 (GLSL: "If the local size of the shader in any dimension is greater
/// than ... the layout qualifiers not declared default to 1"), every line
/// kept. glslang folds `gl_WorkGroupSize`, "a compile-time constant" of
/// the declared size, into the code that uses it (`j < gl_WorkGroupSize.x`
/// becomes `j < 256`), so the size must be the compiler's, not only the
/// module's `LocalSize`. Sizes from spec constants (`local_size_x_id`)
/// are the module's to override and are left as they are.
pub(super) fn with_local_size(source: &str, size: Option<[u32; 3]>) -> String {
    let Some(size) = size else {
        return source.to_string();
    };
    const NAMES: [&str; 3] = ["local_size_x", "local_size_y", "local_size_z"];
    let mut out = String::with_capacity(source.len() + 32);
    let mut rest = source;
    while let Some(k) = rest.find("layout") {
        let after = &rest[k + "layout".len()..];
        let t = after.trim_start();
        let open = k + "layout".len() + (after.len() - t.len());
        let (true, Some(len)) = (t.starts_with('('), t.find(')')) else {
            out.push_str(&rest[..k + "layout".len()]);
            rest = after;
            continue;
        };
        let close = open + len;
        let inner = &rest[open + 1..close];
        let tail = rest[close + 1..].trim_start();
        let is_in = tail
            .strip_prefix("in")
            .is_some_and(|r| !r.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'));
        if !is_in || !inner.contains("local_size_") {
            out.push_str(&rest[..close + 1]);
            rest = &rest[close + 1..];
            continue;
        }
        let mut seen = [false; 3];
        let mut items: Vec<String> = inner
            .split(',')
            .map(|item| {
                let Some((name, _)) = item.split_once('=') else {
                    return item.to_string();
                };
                let name = name.trim();
                // A size from a spec constant stays the module's.
                if let Some(d) = NAMES
                    .iter()
                    .position(|n| name.strip_suffix("_id") == Some(n))
                {
                    seen[d] = true;
                    return item.to_string();
                }
                let Some(d) = NAMES.iter().position(|n| *n == name) else {
                    return item.to_string();
                };
                seen[d] = true;
                let lead = &item[..item.len() - item.trim_start().len()];
                let trail = &item[item.trim_end().len()..];
                format!("{lead}{} = {}{trail}", NAMES[d], size[d])
            })
            .collect();
        for d in 0..3 {
            if !seen[d] && size[d] != 1 {
                items.push(format!(" {} = {}", NAMES[d], size[d]));
            }
        }
        out.push_str(&rest[..open + 1]);
        out.push_str(&items.join(","));
        out.push(')');
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// `--set NAME=VALUE` on a GLSL or HLSL shader: a name the shader's text
/// defines with a `#define` line takes the value there ([`set_defines`]),
/// and so does a name a header it includes defines (real shaders keep
/// their sizes in a common header: [`SetHeaders`]); any other names a
/// specialization constant when the shader declares some (GLSL's
/// `layout(constant_id = N) const int NAME = ...;`, HLSL's
/// `[[vk::constant_id(N)]]`): those are returned, to be set in the
/// compiled module by name or SpecId, as for a SPIR-V module. A name that
/// is neither is an error.
pub(super) fn set_defines_or_specs(
    file: &str,
    source: &str,
    set: &[(String, String)],
    shader: &crate::frontend::ShaderOptions,
) -> Result<SetText, FrontendError> {
    let defines = |text: &str, name: &str| text.split('\n').any(|l| defined_name(l) == Some(name));
    let headers = if set.iter().any(|(name, _)| !defines(source, name)) {
        included_headers(file, source, shader)
    } else {
        Vec::new()
    };
    let in_header = |name: &str| headers.iter().any(|h| defines(&h.text, name));
    let has_specs = source.contains("constant_id");
    let (defined, specs): (Vec<_>, Vec<_>) = set
        .iter()
        .cloned()
        .partition(|(name, _)| !has_specs || defines(source, name) || in_header(name));
    // The names the shader's own text defines, and those only its headers do.
    let (own, theirs): (Vec<_>, Vec<_>) = defined
        .into_iter()
        .partition(|(name, _)| defines(source, name) || !in_header(name));
    let text = set_defines(file, source, &own)?;
    let copies = if theirs.is_empty() {
        None
    } else {
        Some(SetHeaders::write(file, &headers, &theirs)?)
    };
    Ok((text, specs, copies))
}

/// A shader's text with its `--set` names replaced, the names left for
/// specialization constants, and the rewritten copies of its headers.
pub(super) type SetText = (String, Vec<(String, String)>, Option<SetHeaders>);

/// A header a shader includes (`#include "NAME"`, directly or through
/// another header), as the compiler finds it.
struct Header {
    /// Where the copy goes, relative to the copies' folder: the name as
    /// written, under the folder of the copy of the header that includes it
    /// when the compiler finds it beside that header.
    copy: std::path::PathBuf,
    text: String,
}

/// The headers `source` includes, directly or through each other, that
/// the compiler finds (beside the including header first, then on the
/// include path: the shader's folder, then `shader.include_dirs`): at most
/// 64, named by relative paths that stay below their folder (`..` and
/// absolute names are left out, and so are `<...>` system headers).
fn included_headers(
    file: &str,
    source: &str,
    shader: &crate::frontend::ShaderOptions,
) -> Vec<Header> {
    use std::path::{Component, Path, PathBuf};
    let folder = Path::new(file)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let path: Vec<PathBuf> = std::iter::once(folder)
        .chain(shader.include_dirs.iter().cloned())
        .collect();
    let mut out: Vec<Header> = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    // (text, its own folder, its copy's folder): the shader first.
    let mut todo: Vec<(String, Option<PathBuf>, PathBuf)> =
        vec![(source.to_string(), None, PathBuf::new())];
    while let Some((text, own, copy_dir)) = todo.pop() {
        for line in text.split('\n') {
            let Some(rest) = line.trim_start().strip_prefix('#') else {
                continue;
            };
            let Some(rest) = rest.trim_start().strip_prefix("include") else {
                continue;
            };
            let Some(name) = rest
                .trim()
                .strip_prefix('"')
                .and_then(|r| r.split_once('"'))
                .map(|(n, _)| n)
            else {
                continue;
            };
            let name = Path::new(name);
            if !name.components().all(|c| matches!(c, Component::Normal(_))) {
                continue;
            }
            // Beside the including header, then on the include path.
            let beside = own.as_ref().map(|d| (d.join(name), copy_dir.join(name)));
            let found = beside
                .into_iter()
                .chain(path.iter().map(|d| (d.join(name), name.to_path_buf())))
                .find(|(p, _)| p.is_file());
            let Some((at, copy)) = found else { continue };
            if seen.contains(&at) || out.len() >= 64 {
                continue;
            }
            seen.push(at.clone());
            let Ok(header) = std::fs::read_to_string(&at) else {
                continue;
            };
            let own = at.parent().map(Path::to_path_buf);
            let copy_dir = copy.parent().map(Path::to_path_buf).unwrap_or_default();
            todo.push((header.clone(), own, copy_dir));
            out.push(Header { copy, text: header });
        }
    }
    out
}

/// Copies of the headers a shader includes, each `#define` of a `--set`
/// name in them replaced as [`set_defines`] replaces the shader's own
/// (every line kept, so the compiler's lines and the headers' agree), in a
/// temporary folder put first on the include path ([`SetHeaders::flag`]):
/// the compiler reads the copies, and a header a copy includes is a copy
/// too. The folder is removed when this is dropped.
pub(super) struct SetHeaders {
    dir: std::path::PathBuf,
}

impl SetHeaders {
    fn write(
        file: &str,
        headers: &[Header],
        set: &[(String, String)],
    ) -> Result<Self, FrontendError> {
        static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("vkmm-set-{}-{n}", std::process::id()));
        let copies = SetHeaders { dir };
        let failed = |e: std::io::Error| {
            error(
                file,
                0,
                format!("--set: cannot write the copies of the included headers: {e}"),
            )
        };
        for h in headers {
            let own: Vec<(String, String)> = set
                .iter()
                .filter(|(name, _)| {
                    h.text
                        .split('\n')
                        .any(|l| defined_name(l) == Some(name.as_str()))
                })
                .cloned()
                .collect();
            let text = set_defines(file, &h.text, &own)?;
            let to = copies.dir.join(&h.copy);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(failed)?;
            }
            std::fs::write(&to, text).map_err(failed)?;
        }
        Ok(copies)
    }

    /// The compiler's argument that puts the copies first on the include
    /// path (glslang searches its `-I` folders in the order given).
    pub(super) fn flag(&self) -> String {
        format!("-I{}", self.dir.display())
    }
}

impl Drop for SetHeaders {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub(super) fn error(file: &str, line: usize, message: String) -> FrontendError {
    FrontendError {
        file: file.to_string(),
        line,
        column: usize::from(line > 0),
        message,
    }
}

/// `--set NAME=VALUE` on a GLSL or HLSL shader: every `#define NAME ...`
/// line of the shader's own text defines `NAME` as `VALUE` instead (the
/// shader is checked as if it said so; a `-D` could not override a
/// definition the file makes itself), its continuation lines emptied so
/// every line keeps its number. A name the shader never defines is an error.
pub(super) fn set_defines(
    file: &str,
    source: &str,
    set: &[(String, String)],
) -> Result<String, FrontendError> {
    if set.is_empty() {
        return Ok(source.to_string());
    }
    let mut lines: Vec<String> = source.split('\n').map(String::from).collect();
    for (name, value) in set {
        if value.contains(['\n', '\\']) {
            return Err(error(
                file,
                0,
                format!("--set {name}: the value is one line, without `\\`"),
            ));
        }
        let mut found = false;
        let mut k = 0;
        while k < lines.len() {
            if defined_name(&lines[k]) != Some(name.as_str()) {
                k += 1;
                continue;
            }
            found = true;
            let mut continued = lines[k].trim_end().ends_with('\\');
            lines[k] = format!("#define {name} {value}");
            k += 1;
            while continued && k < lines.len() {
                continued = lines[k].trim_end().ends_with('\\');
                lines[k].clear();
                k += 1;
            }
        }
        if !found {
            return Err(error(
                file,
                0,
                format!(
                    "--set {name}={value}: the shader has no `#define {name}` line to replace (nor has a header it includes) and declares no specialization constant (to define a new name, use -D {name}={value})"
                ),
            ));
        }
    }
    Ok(lines.join("\n"))
}

/// The name an object-like `#define` line defines (`# define N 1`); none
/// for a function-like macro (`#define F(x) x`), which no value replaces.
fn defined_name(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("define")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    Some(&rest[..end]).filter(|n| !n.is_empty() && !rest[end..].starts_with('('))
}

/// Runs the compiler on `source` (on its standard input; the module goes
/// to a temporary file, removed afterwards), with the shader's folder and
/// then `shader.include_dirs` on the include path and `shader.defines`
/// defined, so `#include "x.h"` resolves against the shader's own folder.
fn compile(
    file: &str,
    source: &str,
    shader: &crate::frontend::ShaderOptions,
    headers: Option<&SetHeaders>,
) -> Result<Vec<u8>, FrontendError> {
    // `--stdin` before `-S` (glslang 12 refuses the other order).
    let mut args: Vec<String> = headers.map(SetHeaders::flag).into_iter().collect();
    args.extend(["--target-env", "vulkan1.3", "-g", "--stdin", "-S", "comp"].map(String::from));
    run_glslang(file, source, &args, "GLSL", shader)
}

/// Runs glslangValidator with `args` (then the include path and
/// definitions of `shader`, `-o` and a temporary file) on `source`, given
/// on its standard input, and returns the module it wrote. `language`
/// names the input in the install hint (GLSL, HLSL).
pub(super) fn run_glslang(
    file: &str,
    source: &str,
    args: &[String],
    language: &str,
    shader: &crate::frontend::ShaderOptions,
) -> Result<Vec<u8>, FrontendError> {
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!("vkmm-glsl-{}-{n}.spv", std::process::id()));
    let ran = run_tool(file, source, args, language, shader, Some(&out));
    let bytes = ran.as_ref().ok().map(|_| std::fs::read(&out));
    let _ = std::fs::remove_file(&out);
    ran?;
    let tool = compiler();
    bytes
        .unwrap_or_else(|| Err(std::io::ErrorKind::NotFound.into()))
        .map_err(|e| {
            error(
                file,
                0,
                format!("`{tool}` succeeded but wrote no module: {e}"),
            )
        })
}

/// Runs glslangValidator's preprocessor alone (`-E`, with `args` before
/// it and the include path and definitions of `shader` after) on `source`
/// and returns the preprocessed text it prints: the shader as the
/// compiler sees it, its includes expanded and its macros replaced.
pub(super) fn preprocess(
    file: &str,
    source: &str,
    args: &[String],
    language: &str,
    shader: &crate::frontend::ShaderOptions,
) -> Result<String, FrontendError> {
    let mut all = vec!["-E".to_string()];
    all.extend_from_slice(args);
    let output = run_tool(file, source, &all, language, shader, None)?;
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Runs glslangValidator with `args`, then `-o out` when a module is to
/// be written, then the include path and definitions of `shader`, on
/// `source` given on its standard input, within the request's deadline;
/// a failure is an error at the line the compiler names.
fn run_tool(
    file: &str,
    source: &str,
    args: &[String],
    language: &str,
    shader: &crate::frontend::ShaderOptions,
    out: Option<&std::path::Path>,
) -> Result<std::process::Output, FrontendError> {
    let tool = compiler();
    let mut command = Command::new(&tool);
    // glslang looks for a quoted `#include` beside its includer first,
    // and the includer of `--stdin` is the current folder: the compiler
    // runs in the folder of the copies `--set` wrote (the first `-I` of
    // `args`), else in the shader's own folder, so that neither the
    // user's folder nor an unrewritten header shadows what the include
    // path names.
    let home = args
        .iter()
        .find_map(|a| a.strip_prefix("-I"))
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| shader_folder(file));
    if home.is_dir() {
        command.current_dir(home);
    }
    command.args(args);
    if let Some(out) = out {
        command.arg("-o").arg(out);
    }
    let child = command
        .args(compile_flags(file, shader))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(error(
                file,
                0,
                format!(
                    "cannot compile {language}: `{tool}` is not installed (install Debian's `glslang-tools`: `apt-get install glslang-tools`, or set VKMM_GLSLANG to the compiler)"
                ),
            ));
        }
        Err(e) => return Err(error(file, 0, format!("cannot run `{tool}`: {e}"))),
    };
    let output = match wait_within_deadline(&mut child, source) {
        Ok(o) => o,
        Err(Waited::Stopped(why)) => {
            return Err(error(
                file,
                0,
                format!("{why} while `{tool}` compiled the shader (it was stopped)"),
            ));
        }
        Err(Waited::Failed(e)) => {
            return Err(error(file, 0, format!("cannot run `{tool}`: {e}")));
        }
    };
    if let Some(signal) = signal_of(&output.status) {
        return Err(error(
            file,
            0,
            format!(
                "`{tool}` crashed (killed by signal {signal}{}) compiling this shader: an error of the compiler, not of the shader (Debian's glslang 12 segfaults when an atomic's semantics come from a function parameter; pass them as constants)",
                signal_name(signal)
            ),
        ));
    }
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if !output.status.success() {
        // `ERROR: stdin:12: 'x' : undeclared identifier`, or an included
        // file's name in place of `stdin`.
        let first = text.lines().find_map(|l| {
            let rest = l.trim().strip_prefix("ERROR: ")?;
            let (at, rest) = rest.split_once(':')?;
            let (line, message) = rest.split_once(':')?;
            let line = line.trim().parse::<usize>().ok()?;
            let at = match at {
                "stdin" | "0" => file.to_string(),
                header => included(file, header, shader),
            };
            Some((at, line, message.trim().to_string()))
        });
        return Err(match first {
            Some((at, line, message)) => error(&at, line, format!("{tool}: {message}")),
            None => error(
                file,
                0,
                format!(
                    "`{tool}` failed ({}): {}",
                    output.status,
                    text.lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty() && *l != "stdin")
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            ),
        });
    }
    Ok(output)
}

/// Why a compiler run gave no output.
enum Waited {
    /// The request's deadline passed (`--timeout` bounds the whole
    /// command, the compiler included) or the process passed its memory
    /// bound: the compiler was killed. The message says which.
    Stopped(&'static str),
    /// Waiting for it failed.
    Failed(std::io::Error),
}

/// Gives `source` to `child` on its standard input and collects its
/// standard output and error, on threads of their own so that neither
/// pipe blocks the other, while this thread checks the request's deadline
/// and memory bound ([`crate::frontend::clock::bound_reached`]) every few
/// milliseconds: when one is reached, the compiler is killed and reaped.
fn wait_within_deadline(
    child: &mut std::process::Child,
    source: &str,
) -> Result<std::process::Output, Waited> {
    use std::io::Read;
    let feed = child.stdin.take().map(|mut stdin| {
        let source = source.to_string();
        // A compiler that exits early closes the pipe: its status says why.
        std::thread::spawn(move || {
            let _ = stdin.write_all(source.as_bytes());
        })
    });
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        pipe.map(|mut p| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = p.read_to_end(&mut bytes);
                bytes
            })
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Waited::Failed(e));
            }
        }
        if let Some(why) = crate::frontend::clock::bound_reached() {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Waited::Stopped(why));
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    // The compiler has exited: its pipes close, and the threads end.
    if let Some(f) = feed {
        let _ = f.join();
    }
    let join = |h: Option<std::thread::JoinHandle<Vec<u8>>>| {
        h.and_then(|h| h.join().ok()).unwrap_or_default()
    };
    Ok(std::process::Output {
        status,
        stdout: join(out),
        stderr: join(err),
    })
}

/// The compiler's flags for the include path and the definitions.
fn compile_flags(file: &str, shader: &crate::frontend::ShaderOptions) -> Vec<String> {
    let mut flags = Vec::new();
    // Absolute: the compiler runs in another folder (`run_tool`).
    let absolute =
        |d: &std::path::Path| std::fs::canonicalize(d).unwrap_or_else(|_| d.to_path_buf());
    flags.push(format!("-I{}", absolute(&shader_folder(file)).display()));
    for dir in &shader.include_dirs {
        flags.push(format!("-I{}", absolute(dir).display()));
    }
    for (name, value) in &shader.defines {
        match value {
            Some(v) => flags.push(format!("-D{name}={v}")),
            None => flags.push(format!("-D{name}")),
        }
    }
    flags
}

/// The folder of the shader `file` (`.` for a bare name).
fn shader_folder(file: &str) -> std::path::PathBuf {
    std::path::Path::new(file)
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."))
        .to_path_buf()
}

/// The path of an included file the compiler names `header`: the first
/// folder of the include path holding it, else `header` as written.
pub(super) fn included(
    file: &str,
    header: &str,
    shader: &crate::frontend::ShaderOptions,
) -> String {
    // A copy `--set` rewrote (`TMP/vkmm-set-PID-N/NAME`) stands for the
    // header NAME names on the include path.
    let copies = std::env::temp_dir().join(format!("vkmm-set-{}-", std::process::id()));
    let header = header
        .strip_prefix(copies.to_string_lossy().as_ref())
        .and_then(|rest| rest.split_once(['/', '\\']))
        .map_or(header, |(_, name)| name);
    let header = header.strip_prefix("./").unwrap_or(header);
    let folder = std::path::Path::new(file)
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    std::iter::once(folder)
        .chain(shader.include_dirs.iter().cloned())
        .map(|d| d.join(header))
        .find(|p| p.is_file())
        .map_or_else(|| header.to_string(), |p| p.display().to_string())
}

/// The signal that ended a process, if one did.
#[cfg(unix)]
fn signal_of(status: &std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn signal_of(_: &std::process::ExitStatus) -> Option<i32> {
    None
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        4 => ", SIGILL",
        6 => ", SIGABRT",
        7 => ", SIGBUS",
        8 => ", SIGFPE",
        9 => ", SIGKILL",
        11 => ", SIGSEGV",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_local_size_layout_takes_the_dispatch_size() {
        let size = Some([4, 2, 1]);
        let f = |s: &str| super::with_local_size(s, size);
        assert_eq!(
            f("layout(local_size_x = WG_SIZE) in;\nlayout(binding = 0) buffer B { uint x; };"),
            "layout(local_size_x = 4, local_size_y = 2) in;\nlayout(binding = 0) buffer B { uint x; };"
        );
        // Every dimension given; lines kept across a layout on two lines.
        assert_eq!(
            f("layout (local_size_x=256,\n local_size_y = 1, local_size_z = 1) in ;"),
            "layout (local_size_x = 4,\n local_size_y = 2, local_size_z = 1) in ;"
        );
        // A spec-constant size stays the module's; the other dimensions
        // take the dispatch's.
        assert_eq!(
            f("layout(local_size_x_id = 0) in;"),
            "layout(local_size_x_id = 0, local_size_y = 2) in;"
        );
        // Other layouts and a `layout` word elsewhere stay as written; no
        // size asked for keeps the text.
        for same in [
            "layout(local_size_x_id = 0, local_size_y_id = 1) in;",
            "layout(std430) buffer B { uint layouts; } b; // layout",
            "layout(local_size_x = 8) inout_thing;",
        ] {
            assert_eq!(f(same), same);
        }
        assert_eq!(
            super::with_local_size("layout(local_size_x = 8) in;", None),
            "layout(local_size_x = 8) in;"
        );
    }

    #[test]
    fn header_comments_keep_their_lines_and_columns() {
        let h = super::headers("#version 450\n  // @Output: forall (%b[0] == 1)\n// other\n");
        assert_eq!(h, "\n  ;  @Output: forall (%b[0] == 1)\n\n");
    }
}
