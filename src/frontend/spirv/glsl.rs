//! GLSL compute shaders (`.comp`): compiled to SPIR-V by Khronos'
//! `glslangValidator` (Debian package `glslang-tools`), then read as a
//! binary module ([`super::parse_binary`]'s path). The Dat3M headers are
//! `//` comments of the shader (`// @Output: forall (%buf[0] == 1)`);
//! error positions in the compiled module go back to the shader's lines
//! through the `OpLine`s the compiler's `-g` writes. docs/format-spirv.md,
//! "GLSL compute shaders", and docs/glsl-spirv-mapping.md.
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
    let source = set_defines(file, source, &options.shader.set)?;
    let bytes = compile(file, &source, &options.shader)?;
    let asm = super::disassemble_compiled(file, &bytes, &compiler())?;
    super::parse_compiled(file, &source, &asm, options)
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
                    "--set {name}={value}: the shader has no `#define {name}` line to replace (to define a new name, use -D {name}={value})"
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
) -> Result<Vec<u8>, FrontendError> {
    // `--stdin` before `-S` (glslang 12 refuses the other order).
    let args = ["--target-env", "vulkan1.3", "-g", "--stdin", "-S", "comp"];
    run_glslang(file, source, &args.map(String::from), "GLSL", shader)
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
    let tool = compiler();
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!("vkmm-glsl-{}-{n}.spv", std::process::id()));
    let child = Command::new(&tool)
        .args(args)
        .arg("-o")
        .arg(&out)
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
    let output = wait_within_deadline(&mut child, source);
    let bytes = output.as_ref().ok().map(|_| std::fs::read(&out));
    let _ = std::fs::remove_file(&out);
    let output = match output {
        Ok(o) => o,
        Err(Waited::TimeIsUp) => {
            return Err(error(
                file,
                0,
                format!(
                    "{} while `{tool}` compiled the shader (it was stopped)",
                    crate::frontend::clock::TIME_IS_UP
                ),
            ));
        }
        Err(Waited::Failed(e)) => {
            return Err(error(file, 0, format!("cannot run `{tool}`: {e}")));
        }
    };
    let bytes = bytes.unwrap_or_else(|| Err(std::io::ErrorKind::NotFound.into()));
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
    bytes.map_err(|e| {
        error(
            file,
            0,
            format!("`{tool}` succeeded but wrote no module: {e}"),
        )
    })
}

/// Why a compiler run gave no output.
enum Waited {
    /// The request's deadline passed (`--timeout` bounds the whole
    /// command, the compiler included): the compiler was killed.
    TimeIsUp,
    /// Waiting for it failed.
    Failed(std::io::Error),
}

/// Gives `source` to `child` on its standard input and collects its
/// standard output and error, on threads of their own so that neither
/// pipe blocks the other, while this thread checks the request's deadline
/// ([`crate::frontend::clock::time_is_up`]) every few milliseconds: when it
/// passes, the compiler is killed and reaped.
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
        if crate::frontend::clock::time_is_up() {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Waited::TimeIsUp);
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
    let folder = std::path::Path::new(file)
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    flags.push(format!("-I{}", folder.display()));
    for dir in &shader.include_dirs {
        flags.push(format!("-I{}", dir.display()));
    }
    for (name, value) in &shader.defines {
        match value {
            Some(v) => flags.push(format!("-D{name}={v}")),
            None => flags.push(format!("-D{name}")),
        }
    }
    flags
}

/// The path of an included file the compiler names `header`: the first
/// folder of the include path holding it, else `header` as written.
fn included(file: &str, header: &str, shader: &crate::frontend::ShaderOptions) -> String {
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
    fn header_comments_keep_their_lines_and_columns() {
        let h = super::headers("#version 450\n  // @Output: forall (%b[0] == 1)\n// other\n");
        assert_eq!(h, "\n  ;  @Output: forall (%b[0] == 1)\n\n");
    }
}
