//! What a test does when something it needs is not on this machine: a
//! corpus under `../shared/corpus`, a tool (glslangValidator, spirv-as,
//! spirv-val, Graphviz `dot`) or a Vulkan device.
//!
//! Under CI (`CI` set, as CI services and `.ci/run` set it) a missing
//! piece is a failure: CI provides all of them, so a run that passes there
//! has run every test. Elsewhere the test returns early and says so on the
//! process's standard error, which cargo passes through even for a passing
//! test (what a test prints with `eprintln!` is captured and shown only
//! when it fails), so the skip stands beside the test summary:
//!
//! ```text
//! SKIPPED conformance_dat3m::vulkan_condition: ../shared/corpus/dat3m-vulkan is missing
//! ```

use std::io::Write;
use std::path::PathBuf;

/// Whether this is a CI run: `CI` set to anything but empty, `0` or
/// `false`.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// Reports that the running test cannot do its work here because `why`
/// (a sentence naming what is missing and how to get it); the caller then
/// returns. Panics under CI ([`in_ci`]).
pub fn skip(why: &str) {
    let test = running_test();
    assert!(
        !in_ci(),
        "{test} cannot run: {why}; CI must provide it (unset CI to skip locally)"
    );
    // Straight to the file descriptor, past libtest's capture.
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

/// Reports a part of the running test left out everywhere, CI included,
/// because `why` (a tool version that cannot do it): a `PARTLY SKIPPED`
/// line on the process's standard error, as [`skip`] writes.
pub fn skip_part(why: &str) {
    let _ = writeln!(
        std::io::stderr(),
        "PARTLY SKIPPED {}: {why}",
        running_test()
    );
}

/// `binary::test` for the test running on this thread (libtest runs each
/// test on a thread named after it).
fn running_test() -> String {
    let thread = std::thread::current();
    let test = thread.name().filter(|n| *n != "main").unwrap_or("a test");
    let binary = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|s| {
            s.rsplit_once('-')
                .map_or(s.clone(), |(name, _)| name.to_string())
        })
        .unwrap_or_default();
    format!("{binary}::{test}")
}

/// `../shared/corpus/<sub>` relative to the crate, or `None` after
/// [`skip`] (a failure under CI).
pub fn corpus_or_skip(sub: &str) -> Option<PathBuf> {
    let found = super::corpus(sub);
    if found.is_none() {
        skip(&format!("../shared/corpus/{sub} is missing"));
    }
    found
}

/// Whether `program` runs (`program arg` exits 0); when it does not,
/// [`skip`] naming the Debian `package` that installs it (a failure under
/// CI).
pub fn tool_or_skip(program: &str, arg: &str, package: &str) -> bool {
    let ok = std::process::Command::new(program)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip(&format!("{program} is not installed (Debian `{package}`)"));
    }
    ok
}
