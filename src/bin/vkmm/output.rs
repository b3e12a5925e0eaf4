//! What only a terminal program does with results: print them (quietly
//! ending on a closed pipe), show progress, render pictures with Graphviz.

use crate::args::OutputFormat;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::Path;
use vkmm::report::json;

/// Writes to standard output. A closed pipe (`vkmm check ... | head -1`)
/// ends the program quietly with status 0; any other write error is reported.
pub fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to standard output: {e}");
        std::process::exit(2);
    }
}

/// Prints a JSON document or text.
pub fn emit(
    format: OutputFormat,
    command: &str,
    value: &impl serde::Serialize,
    text: impl FnOnce() -> String,
) {
    match format {
        OutputFormat::Json => out(&(json::document(command, value) + "\n")),
        _ => out(&text()),
    }
}

/// Writes DOT text where asked and renders it with Graphviz.
pub fn render(
    text: &str,
    dot: Option<&Path>,
    svg: Option<&Path>,
    png: Option<&Path>,
) -> Result<(), String> {
    if dot.is_none() && svg.is_none() && png.is_none() {
        out(text);
        return Ok(());
    }
    if let Some(p) = dot {
        std::fs::write(p, text).map_err(|e| format!("{}: cannot write: {e}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    for (out, fmt) in [(svg, "svg"), (png, "png")] {
        let Some(out) = out else { continue };
        let mut child = std::process::Command::new("dot")
            .arg(format!("-T{fmt}"))
            .arg("-o")
            .arg(out)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => format!(
                    "cannot render {}: the Graphviz `dot` program is not installed (apt-get install graphviz); --dot FILE writes the DOT text",
                    out.display()
                ),
                _ => format!("cannot run `dot`: {e}"),
            })?;
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            stdin
                .write_all(text.as_bytes())
                .map_err(|e| format!("cannot feed `dot`: {e}"))?;
        }
        let status = child.wait().map_err(|e| format!("cannot run `dot`: {e}"))?;
        if !status.success() {
            return Err(format!("`dot -T{fmt}` failed ({status})"));
        }
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}

pub fn progress(len: usize, json: bool) -> ProgressBar {
    if json || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len as u64);
    pb.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
}
