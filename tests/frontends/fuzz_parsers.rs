//! Fuzzing on the stable toolchain, as part of `cargo test --release`: every
//! corpus file and every test file of the project, mutated at the byte
//! level (insert, delete, replace, duplicate spans; splice in tokens the
//! parsers know) with a seeded xorshift generator, goes through every front
//! end and through `Session::check_text` with a tiny execution limit. Each
//! must return `Ok` or an error with a position, never panic. The number of
//! mutants is fixed (so a run is reproducible from its seed): the full
//! number with `--features slow-tests` (CI), an eighth of it in the
//! README's `cargo test --release`.
//!
//! A failure prints the seed, the mutant's origin and the mutant itself;
//! `VKMM_FUZZ_SEED=N` reruns a seed, `VKMM_FUZZ_MUTANTS=N` runs more.

use crate::common;

use common::mutate::{Rng, mutate};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::Duration;
use vkmm::frontend::{self, Format, FrontendError, Options};

/// Mutants per run in the full tier (`--features slow-tests`; an eighth of
/// them in `cargo test --release`'s sample, [`common::cases`]), each
/// through the three parsers; every [`CHECK_EVERY`]-th one is also checked
/// end to end.
const MUTANTS: usize = 30_000;
const CHECK_EVERY: usize = 8;

/// xorshift64* (Vigna): tiny, seeded, good enough to pick mutations.
/// Words and punctuation worth splicing in: keywords of every format,
/// numbers at the edges, nesting, the C constructs the OpenCL dialect
/// refuses.
/// (`@@`-separated.)
const DICTIONARY: &str = "NEWQF\n@@NEWWG\n@@NEWSG\n@@NEWTHREAD\n@@NEWTHREAD -1\n@@SSW -1 0\n@@\
    SLOC x y\n@@SATISFIABLE @@NOSOLUTION NOCHAINS @@consistent[X]@@#dr>0@@#nope=1@@ && @@\
    st.atom.rel.scopedev.sc0.semsc0 @@ld.atom.acq.sc4.semsc9 @@cbar.acq.rel.scopewg @@\
    cbar.acq_rel.wg.semsc0 1, r1, 2@@, 0@@, -3@@, r9@@\
    VULKAN @@OPENCL @@P0@sg 0, wg 0, qf 0@@P1@wg 1, dev 2@@ | @@ ;\n@@{@@}@@(@@)@@[@@]@@\
    (*@@*)@@/*@@*/@@//@@\"@@ld.atom.acq.dv.sc0.semsc0 r0, x@@\
    rmw.atom.acq_rel.wg.sc1.semsc1.add r1, y, 1@@beq r0, 0, L@@L:@@goto L@@aliases@@\
    exists (@@~exists@@forall@@filter@@locations [x;]@@/\\@@\\/@@==@@!=@@P0:r0@@1:r0@@\
    x@wg0@@-@@0@@-1@@4294967296@@99999999999999999999@@-9223372036854775808@@\
    atomic_load_explicit(x, memory_order_acquire)@@atomic_compare_exchange_strong(x, y, 1)@@\
    atomic_fetch_add(x, 1);@@\
    atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device);@@\
    barrier(CLK_GLOBAL_MEM_FENCE);@@global atomic_int* @@local int* @@const @@volatile @@\
    int r9 = @@*x = @@if (@@while (@@else @@a[1]@@sizeof@@(int)@@&x@@struct@@r0++;@@1 / 2@@\
    \u{e9}@@\u{1F600}@@\r\n@@\t@@\0";

/// Every file the parsers should read: the external corpora (when present)
/// and the project's own tests (every `tests/fixtures/litmus*` and `tests/fixtures/alloy*`
/// directory: host operations, interlock, shader calls, cooperative
/// matrices, SPIR-V stages and images...), examples and documentation
/// examples.
fn seeds() -> Vec<(PathBuf, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![
        root.join("../shared/corpus/khronos-alloy"),
        root.join("../shared/corpus/dat3m-vulkan"),
        root.join("../shared/corpus/dat3m-opencl"),
        root.join("../shared/corpus/dat3m-spirv/basic"),
        root.join("../shared/corpus/dat3m-spirv/alignment"),
        root.join("examples"),
        root.join("docs/examples"),
    ];
    let own = std::fs::read_dir(root.join("tests/fixtures")).expect("tests/fixtures/");
    dirs.extend(own.flatten().map(|e| e.path()).filter(|p| {
        p.is_dir()
            && p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("litmus") || n.starts_with("alloy"))
    }));
    let mut out = Vec::new();
    for d in dirs {
        collect(&d, &mut out);
    }
    out.sort();
    out
}

fn collect(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if matches!(
            p.extension().and_then(|x| x.to_str()),
            Some("test" | "litmus" | "spvasm")
        ) && let Ok(bytes) = std::fs::read(&p)
        {
            out.push((p, bytes));
        }
    }
}

/// An error must point into the text (1-based line and column, at most one
/// line past the end).
fn located(e: &FrontendError, text: &str) -> Result<(), String> {
    let lines = text.lines().count().max(1);
    if e.line == 0 || e.column == 0 || e.line > lines + 1 {
        return Err(format!("error without a valid position: {e:?}"));
    }
    Ok(())
}

/// Runs one mutant through the parsers (and, with `check`, the session).
fn run_one(text: &str, check: bool) -> Result<(), String> {
    for (name, format) in [
        ("fuzz.test", Format::AlloyTest),
        ("fuzz.litmus", Format::VulkanLitmus),
    ] {
        if let Err(e) = frontend::parse_text(name, text, format, Options::default()) {
            located(&e, text)?;
        }
    }
    // Both front ends of litmus files, whatever the architecture word says.
    let direct = [
        frontend::vulkan_litmus::parse("fuzz.litmus", text),
        frontend::opencl_litmus::parse("fuzz.litmus", text),
        frontend::spirv::parse("fuzz.spvasm", text),
    ];
    for r in direct {
        if let Err(e) = r {
            located(&e, text)?;
        }
    }
    if check {
        let session = vkmm::Session::new()
            .max_executions(20)
            .unroll(1)
            .timeout(Some(Duration::from_secs(2)));
        for name in ["fuzz.test", "fuzz.litmus"] {
            if let Err(vkmm::Error::Input(e)) = session.check_text(name, text) {
                located(&e, text)?;
            }
        }
    }
    Ok(())
}

#[test]
fn mutated_inputs_never_panic_and_errors_are_located() {
    let seeds = seeds();
    assert!(!seeds.is_empty(), "no seed files found");
    let seed: u64 = std::env::var("VKMM_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_1234_abcd_0001);
    let mutants: usize = std::env::var("VKMM_FUZZ_MUTANTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(common::cases(MUTANTS as u32) as usize);
    // The parsers and the engine run on a 2 MiB stack, the size of a
    // spawned thread's default: deep nesting must be refused, not overflow.
    let failures = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            // Quiet panics: a panic is reported as a failure below.
            std::panic::set_hook(Box::new(|_| {}));
            let mut rng = Rng(seed);
            let mut failures = Vec::new();
            for k in 0..mutants {
                let (path, bytes) = &seeds[rng.below(seeds.len())];
                let other = &seeds[rng.below(seeds.len())].1;
                let m = mutate(&mut rng, bytes, other, DICTIONARY, 200);
                let text = String::from_utf8_lossy(&m).into_owned();
                let check = k % CHECK_EVERY == 0;
                let outcome = catch_unwind(AssertUnwindSafe(|| run_one(&text, check)))
                    .unwrap_or_else(|p| {
                        let msg = p
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        Err(format!("panic: {msg}"))
                    });
                if let Err(why) = outcome {
                    failures.push(format!(
                        "mutant {k} of {} (seed {seed}): {why}\n---\n{text}\n---",
                        path.display()
                    ));
                    if failures.len() >= 5 {
                        break;
                    }
                }
            }
            let _ = std::panic::take_hook();
            failures
        })
        .expect("spawn the fuzzing thread")
        .join()
        .expect("the fuzzing thread itself does not panic");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_seed_file_is_handled() {
    // The unmutated files too: Ok or a located error, never a panic.
    for (path, bytes) in seeds() {
        let text = String::from_utf8_lossy(&bytes);
        if let Err(why) = run_one(&text, false) {
            panic!("{}: {why}", path.display());
        }
    }
}
