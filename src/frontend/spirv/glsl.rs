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
    let bytes = compile(file, source)?;
    let asm = super::binary::disassemble(&bytes).map_err(|(_, _, m)| FrontendError {
        file: file.to_string(),
        line: 0,
        column: 0,
        message: format!("the SPIR-V {} made of it: {m}", compiler()),
    })?;
    let h = headers(source);
    super::parse_disassembly(
        file,
        &asm,
        Some((file, &h)),
        super::Positions::SourceLines,
        options,
    )
}

pub(super) fn error(file: &str, line: usize, message: String) -> FrontendError {
    FrontendError {
        file: file.to_string(),
        line,
        column: usize::from(line > 0),
        message,
    }
}

/// Runs the compiler on `source` (on its standard input; the module goes
/// to a temporary file, removed afterwards).
fn compile(file: &str, source: &str) -> Result<Vec<u8>, FrontendError> {
    // `--stdin` before `-S` (glslang 12 refuses the other order).
    let args = ["--target-env", "vulkan1.3", "-g", "--stdin", "-S", "comp"];
    run_glslang(file, source, &args.map(String::from), "GLSL")
}

/// Runs glslangValidator with `args` (then `-o` and a temporary file) on
/// `source`, given on its standard input, and returns the module it wrote.
/// `language` names the input in the install hint (GLSL, HLSL).
pub(super) fn run_glslang(
    file: &str,
    source: &str,
    args: &[String],
    language: &str,
) -> Result<Vec<u8>, FrontendError> {
    let tool = compiler();
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!("vkmm-glsl-{}-{n}.spv", std::process::id()));
    let child = Command::new(&tool)
        .args(args)
        .arg("-o")
        .arg(&out)
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
    if let Some(mut stdin) = child.stdin.take() {
        // A compiler that exits early closes the pipe: its status says why.
        let _ = stdin.write_all(source.as_bytes());
    }
    let output = child
        .wait_with_output()
        .map_err(|e| error(file, 0, format!("cannot run `{tool}`: {e}")))?;
    let bytes = std::fs::read(&out);
    let _ = std::fs::remove_file(&out);
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
        // `ERROR: stdin:12: 'x' : undeclared identifier`
        let first = text.lines().find_map(|l| {
            let rest = l.trim().strip_prefix("ERROR: ")?;
            let rest = rest
                .strip_prefix("stdin:")
                .or_else(|| rest.strip_prefix("0:"))?;
            let (line, message) = rest.split_once(':')?;
            Some((
                line.trim().parse::<usize>().ok()?,
                message.trim().to_string(),
            ))
        });
        return Err(match first {
            Some((line, message)) => error(file, line, format!("{tool}: {message}")),
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
