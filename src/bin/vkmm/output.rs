//! What only a terminal program does with results: print them (quietly
//! ending on a closed pipe), show progress, render pictures with Graphviz.

use crate::args::OutputFormat;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::Path;
use vkmm::analysis::FileError;
use vkmm::report::json;

/// Exit code of a run some of whose answers a limit left undecided (or
/// rest on undefined behaviour).
pub const EXIT_UNDECIDED: i32 = 3;

/// A file's error as the reports list it.
pub fn file_error(path: &Path, e: vkmm::Error) -> FileError {
    FileError {
        file: path.display().to_string(),
        error: e.to_string(),
    }
}

/// Writes to standard output. A closed pipe (`vkmm check ... | head -1`)
/// ends the program quietly with status 0; any other write error is reported.
pub fn out(text: &str) {
    out_with(|w| w.write_all(text.as_bytes()));
}

/// Prints what `write` writes (buffered) on standard output, as [`out`]
/// does: a closed pipe ends the program quietly, any other failure with
/// exit code 2.
pub fn out_with(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) {
    // The standard library drops writes to a closed descriptor 1 without
    // an error: the report would be lost with exit code 0.
    if STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("error: cannot write to standard output: it is closed");
        std::process::exit(2);
    }
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let timed_cut = std::cell::Cell::new(false);
    let mut timed = Timed {
        inner: &mut stdout,
        deadline: DEADLINE
            .get()
            .copied()
            .filter(|_| !WHOLE.load(std::sync::atomic::Ordering::Relaxed)),
        writes: 0,
        written: 0,
        cut: &timed_cut,
    };
    let written = write(&mut timed).and_then(|()| timed.flush());
    if let Err(e) = written {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        // The serialiser wraps the writer's error: the writer says it cut.
        if timed_cut.get() {
            // What was written stays; a last line says the rest is missing.
            let _ = stdout.write_all(b"\nREPORT CUT SHORT at the time limit (--timeout)\n");
            let _ = stdout.flush();
            eprintln!("undecided: {}", ReportCut);
            std::process::exit(EXIT_UNDECIDED);
        }
        eprintln!("error: cannot write to standard output: {e}");
        std::process::exit(2);
    }
}

/// The command's deadline (`--timeout` counted from its start), which
/// bounds writing its report too; unset for `suite` and `merge`, whose
/// `--timeout` is per row.
static DEADLINE: std::sync::OnceLock<web_time::Instant> = std::sync::OnceLock::new();

/// Whether the report is written whole, past the deadline ([`write_whole`]).
static WHOLE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Lifts the deadline from the report's writing, for a command whose
/// search stops at the deadline and whose report holds only what that
/// search found (`refines --mapping`: its violations): writing it is
/// bounded by the search, and a report cut at the limit would lose
/// violations the search found.
pub fn write_whole() {
    WHOLE.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Sets the deadline the report's writing stops at ([`out_with`]).
pub fn set_deadline(at: web_time::Instant) {
    let _ = DEADLINE.set(at);
}

/// The error that stops a report's writing at the deadline.
#[derive(Debug)]
struct ReportCut;

impl std::fmt::Display for ReportCut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "the report was cut short at the time limit (--timeout) while it was written; the part written is on standard output",
        )
    }
}

impl std::error::Error for ReportCut {}

/// A writer that fails with [`ReportCut`] once the deadline has passed
/// and the report has passed [`UNTIMED`] bytes (the deadline is read
/// every 64 writes, of at most 64 KiB each: serialisers write in small
/// pieces, a text report in one).
struct Timed<'a> {
    inner: &'a mut dyn Write,
    deadline: Option<web_time::Instant>,
    writes: u32,
    written: usize,
    /// Set when the deadline cut the report.
    cut: &'a std::cell::Cell<bool>,
}

/// The bytes of a report always written whole, whatever the time: a
/// report this small takes milliseconds, and an undecided search's report
/// (written after its deadline) says what it covered.
const UNTIMED: usize = 1 << 20;

impl Write for Timed<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writes = self.writes.wrapping_add(1);
        if self.written > UNTIMED
            && self.writes % 64 == 1
            && self.deadline.is_some_and(|d| web_time::Instant::now() >= d)
        {
            self.cut.set(true);
            return Err(std::io::Error::other(ReportCut));
        }
        // In pieces, so that a large text is timed as it goes out.
        let n = self.inner.write(&buf[..buf.len().min(1 << 16)])?;
        self.written += n;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
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
        // Streamed: a large report is never held whole.
        OutputFormat::Json => out_with(|w| json::write_document(w, command, value)),
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
    let mut laid_out: Option<String> = None;
    for (out, fmt) in [(svg, "svg"), (png, "png")] {
        let Some(out) = out else { continue };
        // Two passes (report::dot::split_relations): the layout without the
        // relation edges, then the edges routed over it.
        let picture = match &laid_out {
            Some(p) => p.clone(),
            None => {
                let (layout, edges) = vkmm::report::dot::split_relations(text);
                let placed = graphviz("dot", &["-Tdot"], &layout, out)?;
                let p = vkmm::report::dot::with_relations(&placed, &edges);
                laid_out = Some(p.clone());
                p
            }
        };
        let o = out.display().to_string();
        graphviz(
            "neato",
            &["-n2", &format!("-T{fmt}"), "-o", &o],
            &picture,
            out,
        )?;
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}

/// Runs a Graphviz program on `input`, returning what it prints.
fn graphviz(program: &str, args: &[&str], input: &str, target: &Path) -> Result<String, String> {
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!(
                "cannot render {}: the Graphviz `{program}` program is not installed (apt-get install graphviz); --dot FILE writes the DOT text",
                target.display()
            ),
            _ => format!("cannot run `{program}`: {e}"),
        })?;
    // Feed the input from another thread: Graphviz may write before it has
    // read everything.
    let mut stdin = child.stdin.take();
    let input = input.to_string();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        stdin.as_mut().map(|s| s.write_all(input.as_bytes()))
    });
    let output = child
        .wait_with_output()
        .map_err(|e| format!("cannot run `{program}`: {e}"))?;
    if let Ok(Some(Err(e))) = feeder.join() {
        return Err(format!("cannot feed `{program}`: {e}"));
    }
    if !output.status.success() {
        return Err(format!(
            "`{program} {}` failed ({})",
            args.join(" "),
            output.status
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
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

/// A spinner for one long check on a terminal: it appears once a check has
/// run for a second, showing the executions explored and states found.
pub struct Spinner {
    bar: Option<ProgressBar>,
    started: std::sync::Arc<std::sync::Mutex<Option<web_time::Instant>>>,
}

impl Spinner {
    /// A spinner that shows only on a terminal, and only when `wanted`.
    pub fn new(wanted: bool) -> Spinner {
        let bar = (wanted && std::io::stderr().is_terminal()).then(|| {
            let pb = ProgressBar::hidden();
            pb.set_style(
                ProgressStyle::with_template("{spinner} {elapsed} {wide_msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            pb
        });
        Spinner {
            bar,
            started: Default::default(),
        }
    }

    /// The session, reporting its progress to this spinner.
    pub fn attach(&self, session: vkmm::Session) -> vkmm::Session {
        let Some(bar) = self.bar.clone() else {
            return session;
        };
        let started = self.started.clone();
        session.on_progress(std::sync::Arc::new(move |p: vkmm::Progress| {
            let since = started.lock().ok().and_then(|s| *s);
            if since.is_some_and(|t| t.elapsed().as_secs_f64() >= 1.0) {
                if bar.is_hidden() {
                    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                }
                bar.set_message(format!(
                    "{} executions explored, {} partial{}",
                    p.executions,
                    p.evaluations - p.executions,
                    p.found
                        .map(|n| format!(", {n} states found"))
                        .unwrap_or_default()
                ));
                bar.tick();
            }
        }))
    }

    /// A check of `file` begins.
    pub fn start(&self, _file: &Path) {
        if let Ok(mut s) = self.started.lock() {
            *s = Some(web_time::Instant::now());
        }
    }

    /// The check ended: the spinner disappears.
    pub fn stop(&self) {
        if let Some(bar) = &self.bar {
            bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        }
        if let Ok(mut s) = self.started.lock() {
            *s = None;
        }
    }
}

/// Whether descriptor 1 was closed when the program started. The
/// standard library's start-up opens `/dev/null` on a closed descriptor 1
/// before `main`, so it is looked at earlier, by a function the C library
/// runs from `.init_array` (on Linux; elsewhere a closed standard output
/// stays unnoticed).
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static NOTE_STDOUT: extern "C" fn() = {
    extern "C" fn note() {
        unsafe extern "C" {
            fn fcntl(fd: i32, cmd: i32, ...) -> i32;
        }
        const F_GETFD: i32 = 1;
        // SAFETY: F_GETFD reads a descriptor's flags and touches no memory;
        // it fails (-1) exactly when the descriptor is not open.
        let closed = unsafe { fcntl(1, F_GETFD) } == -1;
        STDOUT_CLOSED.store(closed, std::sync::atomic::Ordering::Relaxed);
    }
    note
};
