//! Fuzzing of the shader readers on the stable toolchain, as part of
//! `cargo test --release` (the sibling of tests/frontends/fuzz_parsers.rs): WGSL
//! shaders with dispatch options that vary the entry point, `--set`, the
//! grid and the inputs (nonsense included); dispatch files (TOML) through
//! `apply_table`; manifests (CSV) and their inputs files through
//! `manifest::read`; the option strings of the command line; GLSL `--set`
//! on mutated `#define` lines. Each must return `Ok` or an error, never
//! panic. Mutants come from a seeded xorshift generator in fixed numbers,
//! so a run is reproducible: the full numbers with `--features slow-tests`
//! (CI), an eighth of them in the README's `cargo test --release`.
//!
//! A failure prints the seed, the mutant and its options;
//! `VKMM_FUZZ_SEED=N` reruns a seed, `VKMM_FUZZ_SCALE=N` runs N times the
//! mutants, `VKMM_FUZZ_SLOW_MS=N` prints the mutants slower than N ms,
//! `VKMM_FUZZ_ONLY=K` runs and prints mutant K alone.

use crate::common;

use common::mutate::{Rng, mutate};

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use vkmm::analysis::manifest;
use vkmm::frontend::inputs::{self, Contents, Input};
use vkmm::frontend::{self, Format, Options, ShaderOptions};

/// Mutants per test in the full tier (see [`scaled`]).
const WGSL_MUTANTS: usize = 4_000;
/// Every `WGSL_CHECK_EVERY`-th WGSL mutant is also checked end to end.
const WGSL_CHECK_EVERY: usize = 10;
const TOML_MUTANTS: usize = 4_000;
const MANIFEST_MUTANTS: usize = 1_000;
const STRINGS: usize = 20_000;
const GLSL_MUTANTS: usize = 100;

/// xorshift64* (Vigna): tiny, seeded, good enough to pick mutations.
/// How often a duplicated span repeats when it is repeated many times (a
/// shader is compiled, so runs stay shorter than the parsers' fuzzer's).
const LONG_RUN: usize = 50;

fn seed() -> u64 {
    std::env::var("VKMM_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_5ade_0bad_0001)
}

/// `n` mutants in the full tier (`--features slow-tests`), an eighth of
/// them in `cargo test --release`'s sample ([`common::cases`]), times
/// `VKMM_FUZZ_SCALE`.
fn scaled(n: usize) -> usize {
    let scale: usize = std::env::var("VKMM_FUZZ_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    common::cases(n as u32) as usize * scale
}

/// WGSL words and punctuation worth splicing in (`@@`-separated).
const WGSL_WORDS: &str = "@compute @@@workgroup_size(@@@workgroup_size(0)@@\
    @workgroup_size(4294967295, 2, 2)@@@workgroup_size(N)@@@group(0) @binding(0) @@\
    @builtin(local_invocation_id) lid: vec3<u32>@@@builtin(subgroup_invocation_id) s: u32@@\
    var<storage, read_write> @@var<workgroup> @@var<uniform> @@var<private> @@\
    array<u32>@@array<atomic<u32>, 4>@@array<u32, 0>@@atomic<i32>@@vec4<f32>@@\
    struct S { a: u32, b: array<u32> }@@const N = 4u;@@override M: u32 = 2;@@\
    fn @@fn main()@@fn f(p: ptr<function, u32>) -> u32 @@let @@var @@loop { @@\
    break;@@continue;@@continuing { break if true; }@@return;@@if (@@else @@\
    switch x { case 0: {} default: {} }@@for (var i = 0u; i < 4u; i++) @@while (@@\
    atomicAdd(&@@atomicLoad(&@@atomicStore(&@@atomicCompareExchangeWeak(&@@\
    workgroupBarrier();@@storageBarrier();@@subgroupBarrier();@@arrayLength(&@@\
    workgroupUniformLoad(&@@select(@@bitcast<u32>(@@f32(@@out[@@[0]@@[4294967295u]@@\
    .x@@.a@@lid.x@@&@@*@@(@@)@@{@@}@@[@@]@@<@@>@@;@@,@@//@@/*@@*/@@=@@+= @@\
    0@@1u@@-1i@@4294967296u@@0x7fffffff@@1e40@@true@@\u{e9}@@\u{1F600}@@\r\n@@\t@@\0";

/// TOML and CSV words worth splicing in (`@@`-separated).
const TABLE_WORDS: &str = "local_size = @@workgroups = @@subgroup_size = @@defines = @@\
    include = @@set = @@entry = @@[inputs]@@[[shader]]@@[shader.inputs]@@file = @@rows = @@\
    length = @@values = @@fill = @@= @@{ @@ }@@[@@]@@, @@\"@@'@@.@@0@@-1@@4294967296@@\
    9223372036854775807@@-9223372036854775808@@1048577@@1.5@@true@@\"zero\"@@\"arbitrary\"@@\
    \"0.0.mode\"@@a.b.c@@0.0[3]@@x[99999999999999999999]@@1970-01-01@@inf@@nan@@\n@@\
    \r\n@@#@@\"\"\"@@GLSL@@WGSL@@HLSL@@SPIR-V@@races@@termination@@assertion: @@\
    holds@@fails@@racy@@race-free@@main@@\"2,1,1\"@@\"0,0,0\"@@;@@LG_N=@@mode @@zero@@\
    arbitrary@@\u{e9}@@\0";

/// The files of `dirs` (recursively) whose names end in one of `exts`.
fn files(dirs: &[PathBuf], exts: &[&str]) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(dir: &Path, exts: &[&str], out: &mut Vec<(PathBuf, Vec<u8>)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, exts, out);
            } else if p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| exts.iter().any(|x| n.ends_with(x)))
                && let Ok(bytes) = std::fs::read(&p)
            {
                out.push((p, bytes));
            }
        }
    }
    let mut out = Vec::new();
    for d in dirs {
        if d.is_file() {
            if let Ok(bytes) = std::fs::read(d) {
                out.push((d.clone(), bytes));
            }
        } else {
            walk(d, exts, &mut out);
        }
    }
    out.sort();
    out
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The real-shader corpus, read where it lies (absent on some machines).
/// ../shared/corpus/real-shaders, whose shaders and manifest add seeds;
/// without it the seeds are the repository's own, after [`common::skip`]
/// (a failure under CI).
fn corpus() -> PathBuf {
    common::corpus_or_skip("real-shaders")
        .unwrap_or_else(|| root().join("../shared/corpus/real-shaders"))
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Runs `body` for `count` mutants on a 2 MiB stack (a spawned thread's
/// default: deep nesting must be refused, not overflow) with panics caught
/// and quiet; returns the first few failures, each described by `body`'s
/// `describe` output.
fn fuzz(
    count: usize,
    stream: u64,
    body: impl Fn(&mut Rng, usize) -> (String, Box<dyn FnOnce() -> Result<(), String>>) + Send + 'static,
) -> Vec<String> {
    quiet_panics();
    let seed = seed() ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    // `VKMM_FUZZ_SLOW_MS=N` prints each mutant that takes longer.
    let slow: Option<u128> = std::env::var("VKMM_FUZZ_SLOW_MS")
        .ok()
        .and_then(|s| s.parse().ok());
    // `VKMM_FUZZ_ONLY=K` runs (and prints) mutant K alone.
    let only: Option<usize> = std::env::var("VKMM_FUZZ_ONLY")
        .ok()
        .and_then(|s| s.parse().ok());
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let mut rng = Rng(seed | 1);
            let mut failures = Vec::new();
            for k in 0..count {
                let (what, run) = body(&mut rng, k);
                if only.is_some_and(|o| o != k) {
                    continue;
                }
                if only.is_some() {
                    eprintln!("mutant {k}:\n{what}\n---");
                }
                let start = std::time::Instant::now();
                let outcome = catch_unwind(AssertUnwindSafe(run))
                    .unwrap_or_else(|p| Err(format!("panic: {}", panic_message(p))));
                if slow.is_some_and(|ms| start.elapsed().as_millis() > ms) {
                    eprintln!(
                        "slow mutant {k} (seed {seed}, {:?}):\n{what}\n---",
                        start.elapsed()
                    );
                }
                if let Err(why) = outcome {
                    failures.push(format!("mutant {k} (seed {seed}): {why}\n---\n{what}\n---"));
                    if failures.len() >= 5 {
                        break;
                    }
                }
            }
            failures
        })
        .expect("spawn the fuzzing thread")
        .join()
        .expect("the fuzzing thread itself does not panic")
}

/// A panic is reported as a failure with its message; the hook's own
/// printing would bury the report. Set once for the whole binary.
fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}

// ---------------------------------------------------------------- WGSL

fn wgsl_seeds() -> Vec<(PathBuf, Vec<u8>)> {
    files(
        &[
            root().join("tests/fixtures/wgsl"),
            root().join("tests/fixtures/legacy-memory-model"),
            root().join("tests/fixtures/sampling"),
            root().join("examples/shaders/counter.wgsl"),
            corpus(),
        ],
        &[".wgsl"],
    )
}

/// The identifiers of `text` that follow `word` (skipping `<...>` after
/// `var`): the variables, functions and constants a shader names.
fn names_after(text: &str, word: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(word) {
        rest = &rest[i + word.len()..];
        let mut r = rest.trim_start();
        if let Some(close) = r.strip_prefix('<').and_then(|s| s.find('>')) {
            r = r[close + 2..].trim_start();
        }
        let n: String = r
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !n.is_empty() && out.len() < 16 {
            out.push(n);
        }
    }
    out
}

fn nonsense_dims(rng: &mut Rng) -> Option<[u32; 3]> {
    let d = |rng: &mut Rng| *rng.pick(&[0, 1, 1, 2, 3, 4, 7, 64, 65_536, u32::MAX]);
    match rng.below(4) {
        0 => None,
        1 => Some([1 + rng.below(2) as u32, 1, 1]),
        _ => Some([d(rng), d(rng), d(rng)]),
    }
}

/// Dispatch options for a WGSL shader: its own names and names that do
/// not exist, sizes from 0 to `u32::MAX`, inputs with deep steps; half the
/// time options a shader can run with (a small grid, its own variables),
/// so that mutants reach the lowering and the check.
fn wgsl_options(rng: &mut Rng, source: &str) -> ShaderOptions {
    if rng.below(2) == 0 {
        return sane_wgsl_options(rng, source);
    }
    let vars = names_after(source, "var");
    let fns = names_after(source, "fn ");
    let mut consts = names_after(source, "const ");
    consts.extend(names_after(source, "override "));
    let invented = ["nope", "_", "main", "a1", "0", "4294967296"];
    let name = |rng: &mut Rng, own: &[String]| -> String {
        if !own.is_empty() && rng.below(3) != 0 {
            rng.pick(own).clone()
        } else {
            rng.pick(&invented).to_string()
        }
    };
    let mut o = ShaderOptions {
        local_size: nonsense_dims(rng),
        workgroups: nonsense_dims(rng),
        subgroup_size: [
            None,
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(u32::MAX),
        ][rng.below(7)],
        entry: match rng.below(3) {
            0 => None,
            _ => Some(name(rng, &fns)),
        },
        ..ShaderOptions::default()
    };
    if rng.below(10) == 0 {
        o.defines.push(("X".to_string(), None));
    }
    for _ in 0..rng.below(3) {
        let value = rng.pick(&[
            "0",
            "1",
            "-1",
            "2u",
            "4294967296",
            "99999999999999999999",
            "-9223372036854775808",
            "true",
            "1.5",
            "abc",
            "(",
            "",
            "1; }",
        ]);
        o.set.push((name(rng, &consts), value.to_string()));
    }
    for _ in 0..rng.below(4) {
        let mut target = match rng.below(5) {
            0 => format!("{}.{}", rng.below(3), rng.below(4)),
            _ => name(rng, &vars),
        };
        for _ in 0..rng.below(4) {
            match rng.below(3) {
                0 => target.push_str(&format!(".{}", rng.pick(&["a", "x", "flag", "data"]))),
                1 => target.push_str(&format!("[{}]", rng.pick(&[0, 1, 3, 1 << 20]))),
                _ => target.push_str(&format!("[{}]", usize::MAX)),
            }
        }
        let contents = match rng.below(4) {
            0 => Contents::Default,
            1 => Contents::Zero,
            2 => Contents::Arbitrary,
            _ => Contents::Values(
                (0..1 + rng.below(5))
                    .map(|_| {
                        if rng.below(4) == 0 {
                            inputs::Number::Float(
                                rng.pick(&["1.5", "-0.0", "inf", "1e40"]).to_string(),
                            )
                        } else {
                            inputs::Number::Int(*rng.pick(&[0, 1, -1, i64::MAX, i64::MIN, 1 << 40]))
                        }
                    })
                    .collect(),
            ),
        };
        let length = match rng.below(4) {
            0 => None,
            1 => Some(*rng.pick(&[1, 2, 3, 255, 65_536, 1 << 20])),
            _ => Some(1 + rng.below(4)),
        };
        o.inputs.push(Input {
            target,
            contents,
            length,
            extent: None,
            origin: None,
        });
    }
    o
}

/// How many WGSL mutants lowered to a program, and how many checks ran to
/// a verdict: the mutants must reach past the parser, or the options past
/// naga are not exercised.
static WGSL_LOWERED: AtomicUsize = AtomicUsize::new(0);
static WGSL_CHECKED: AtomicUsize = AtomicUsize::new(0);

fn sane_wgsl_options(rng: &mut Rng, source: &str) -> ShaderOptions {
    let vars = names_after(source, "var");
    let fns = names_after(source, "fn ");
    let mut o = ShaderOptions {
        local_size: Some([1 + rng.below(2) as u32, 1, 1]),
        entry: (rng.below(3) == 0 && !fns.is_empty()).then(|| rng.pick(&fns).clone()),
        ..ShaderOptions::default()
    };
    for _ in 0..rng.below(3) {
        if vars.is_empty() {
            break;
        }
        o.inputs.push(Input {
            target: rng.pick(&vars).clone(),
            contents: [Contents::Default, Contents::Zero, Contents::Arbitrary][rng.below(3)]
                .clone(),
            length: Some(1 + rng.below(3)),
            extent: None,
            origin: None,
        });
    }
    o
}

fn wgsl_one(text: &str, shader: ShaderOptions, check: bool) -> Result<(), String> {
    let options = Options {
        shader: shader.clone(),
        ..Options::default()
    };
    // Ok or an error: the result itself is not judged.
    if frontend::parse_text("fuzz.wgsl", text, Format::Wgsl, options).is_ok() {
        WGSL_LOWERED.fetch_add(1, Ordering::Relaxed);
    }
    if check {
        let session = vkmm::Session::new()
            .shader(shader)
            .max_executions(20)
            .unroll(1)
            .timeout(Some(Duration::from_secs(2)));
        if session.check_text("fuzz.wgsl", text).is_ok() {
            WGSL_CHECKED.fetch_add(1, Ordering::Relaxed);
        }
    }
    Ok(())
}

#[test]
fn wgsl_mutants_with_nonsense_options_never_panic() {
    let seeds = wgsl_seeds();
    assert!(seeds.len() >= 8, "the WGSL seeds are missing");
    let failures = fuzz(scaled(WGSL_MUTANTS), 1, move |rng, k| {
        let (path, bytes) = &seeds[rng.below(seeds.len())];
        let other = &seeds[rng.below(seeds.len())].1;
        // A fifth of the shaders unmutated: the options alone vary.
        let m = if rng.below(5) == 0 {
            bytes.clone()
        } else {
            mutate(rng, bytes, other, WGSL_WORDS, LONG_RUN)
        };
        let text = String::from_utf8_lossy(&m).into_owned();
        let shader = wgsl_options(rng, &text);
        let check = k % WGSL_CHECK_EVERY == 0;
        let what = format!("{} with {shader:?}\n{text}", path.display());
        (what, Box::new(move || wgsl_one(&text, shader, check)))
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let (lowered, checked) = (
        WGSL_LOWERED.load(Ordering::Relaxed),
        WGSL_CHECKED.load(Ordering::Relaxed),
    );
    println!(
        "WGSL: {lowered} of {} mutants lowered, {checked} checked",
        scaled(WGSL_MUTANTS)
    );
    assert!(
        lowered >= scaled(WGSL_MUTANTS) / 20 && checked >= 1,
        "too few WGSL mutants get past the parser ({lowered} lowered, {checked} checked)"
    );
}

// ------------------------------------------------- dispatch and manifests

/// How many TOML mutants are still TOML (and reach `apply_table`).
static TOML_PARSED: AtomicUsize = AtomicUsize::new(0);

#[test]
fn dispatch_table_mutants_never_panic() {
    let seeds = files(
        &[
            root().join("tests/fixtures/shader-dispatch"),
            root().join("tests/fixtures/real-shaders/inputs.toml"),
        ],
        &[".toml"],
    );
    assert!(seeds.len() >= 3, "the TOML seeds are missing");
    let failures = fuzz(scaled(TOML_MUTANTS), 2, move |rng, _| {
        let bytes = &seeds[rng.below(seeds.len())].1;
        let other = &seeds[rng.below(seeds.len())].1;
        let text =
            String::from_utf8_lossy(&mutate(rng, bytes, other, TABLE_WORDS, LONG_RUN)).into_owned();
        let what = text.clone();
        (
            what,
            Box::new(move || {
                let Ok(table) = text.parse::<toml::Table>() else {
                    return Ok(());
                };
                TOML_PARSED.fetch_add(1, Ordering::Relaxed);
                let mut shader = ShaderOptions::default();
                let _ = inputs::apply_table(&table, Path::new("."), &mut shader);
                // An inputs file's `[[shader]]` tables take the same keys
                // under `inputs`.
                for t in table
                    .get("shader")
                    .and_then(|v| v.as_array())
                    .into_iter()
                    .flatten()
                    .filter_map(|v| v.as_table())
                {
                    let _ = inputs::apply_table(t, Path::new("."), &mut shader);
                }
                Ok(())
            }),
        )
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let parsed = TOML_PARSED.load(Ordering::Relaxed);
    println!("TOML: {parsed} of {} mutants parsed", scaled(TOML_MUTANTS));
    assert!(
        parsed >= scaled(TOML_MUTANTS) / 10,
        "too few TOML mutants parse ({parsed})"
    );
}

/// How many manifest mutants read to at least one good row.
static MANIFEST_ROWS: AtomicUsize = AtomicUsize::new(0);

#[test]
fn manifest_mutants_never_panic() {
    let csvs = files(
        &[
            root().join("tests/fixtures/shader-dispatch/manifest.csv"),
            corpus().join("manifest.csv"),
        ],
        &[".csv"],
    );
    let tomls = files(
        &[
            root().join("tests/fixtures/shader-dispatch/inputs.toml"),
            root().join("tests/fixtures/real-shaders/inputs.toml"),
        ],
        &[".toml"],
    );
    assert!(
        !csvs.is_empty() && tomls.len() == 2,
        "the manifest seeds are missing"
    );
    let dir = std::env::temp_dir().join(format!("vkmm-fuzz-manifest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let csv_path = dir.join("manifest.csv");
    let toml_path = dir.join("inputs.toml");
    let (c, t) = (csv_path.clone(), toml_path.clone());
    let failures = fuzz(scaled(MANIFEST_MUTANTS), 3, move |rng, _| {
        let csv = &csvs[rng.below(csvs.len())].1;
        let toml = &tomls[rng.below(tomls.len())].1;
        // The manifest mutated, its inputs file mutated, or both.
        let which = rng.below(3);
        let csv = if which != 1 {
            mutate(rng, csv, toml, TABLE_WORDS, LONG_RUN)
        } else {
            csv.clone()
        };
        let toml = if which != 0 {
            mutate(rng, toml, csv.as_slice(), TABLE_WORDS, LONG_RUN)
        } else {
            toml.clone()
        };
        let with_inputs = rng.below(4) != 0;
        std::fs::write(&c, &csv).expect("write the manifest mutant");
        std::fs::write(&t, &toml).expect("write the inputs mutant");
        let what = format!(
            "{}\n--- inputs ({with_inputs}):\n{}",
            String::from_utf8_lossy(&csv),
            String::from_utf8_lossy(&toml)
        );
        let (c, t) = (c.clone(), t.clone());
        (
            what,
            Box::new(move || {
                if manifest::read(&c, with_inputs.then_some(t.as_path()))
                    .is_ok_and(|(rows, _)| !rows.is_empty())
                {
                    MANIFEST_ROWS.fetch_add(1, Ordering::Relaxed);
                }
                Ok(())
            }),
        )
    });
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let read = MANIFEST_ROWS.load(Ordering::Relaxed);
    println!(
        "manifests: {read} of {} mutants read rows",
        scaled(MANIFEST_MUTANTS)
    );
    assert!(
        read >= scaled(MANIFEST_MUTANTS) / 10,
        "too few manifest mutants read ({read})"
    );
}

// ---------------------------------------------------------- option strings

/// A random string of the characters option parsers split on, digits,
/// letters and a few multi-byte characters.
fn random_option(rng: &mut Rng) -> String {
    let pieces = [
        "=",
        ",",
        ".",
        "[",
        "]",
        " ",
        "0",
        "1",
        "9",
        "-",
        "x",
        "0x",
        "u",
        "i",
        "_",
        "a",
        "Z",
        "zero",
        "arbitrary",
        "4294967296",
        "18446744073709551616",
        "1048576",
        "1048577",
        "\u{e9}",
        "\u{1F600}",
        "\u{0660}",
        "\t",
        "\n",
        "\\",
        "\0",
    ];
    (0..rng.below(12)).map(|_| *rng.pick(&pieces)).collect()
}

#[test]
fn option_strings_never_panic() {
    let failures = fuzz(scaled(STRINGS), 4, move |rng, _| {
        let s = random_option(rng);
        let what = format!("{s:?}");
        (
            what,
            Box::new(move || {
                let _ = ShaderOptions::parse_dims(&s);
                let _ = ShaderOptions::parse_define(&s);
                let _ = ShaderOptions::parse_set(&s);
                // Input::parse and parse_length read the target's steps.
                let _ = Input::parse(&s);
                let _ = Input::parse_length(&s);
                let _ = Input::parse(&format!("{s}=1"));
                let _ = Input::parse_length(&format!("{s}=2"));
                let _ = Input::parse(&format!("a={s}"));
                Ok(())
            }),
        )
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ------------------------------------------------------------- GLSL --set

/// How many GLSL mutants were checked to a verdict.
static GLSL_CHECKED: AtomicUsize = AtomicUsize::new(0);

#[test]
fn glsl_set_mutants_never_panic() {
    if !frontend::spirv::glsl::available() {
        common::skip("glslangValidator is not installed (Debian `glslang-tools`)");
        return;
    }
    let seed_text = std::fs::read(root().join("tests/fixtures/shader-dispatch/sized.comp"))
        .expect("sized.comp");
    let failures = fuzz(scaled(GLSL_MUTANTS), 5, move |rng, _| {
        let text = if rng.below(4) == 0 {
            seed_text.clone()
        } else {
            mutate(
                rng,
                &seed_text,
                b"#define LG_N 8\n#define N (1 << LG_N)\\\n\n#define \n#",
                "#define @@#define LG_N@@ \\\n@@\\@@#undef LG_N\n@@#if LG_N\n@@#endif\n@@\n",
                LONG_RUN,
            )
        };
        let text = String::from_utf8_lossy(&text).into_owned();
        let mut set = vec![("LG_N".to_string(), rng.below(2).to_string())];
        if rng.below(3) == 0 {
            let name = rng.pick(&["LG_N", "N", "nope", "LG_N ", "0"]);
            let value = rng.pick(&["0", "1", "31", "99", "-1", "(", "1\\", "a\nb", "", "x y"]);
            set.push((name.to_string(), value.to_string()));
        }
        let shader = ShaderOptions {
            set,
            local_size: Some([1 + rng.below(2) as u32, 1, 1]),
            inputs: vec![Input {
                target: "Out".to_string(),
                contents: Contents::Zero,
                length: Some(1 + rng.below(4)),
                extent: None,
                origin: None,
            }],
            ..ShaderOptions::default()
        };
        let what = format!("{shader:?}\n{text}");
        (
            what,
            Box::new(move || {
                let session = vkmm::Session::new()
                    .shader(shader)
                    .max_executions(20)
                    .unroll(1)
                    .timeout(Some(Duration::from_secs(2)));
                if session.check_text("fuzz.comp", &text).is_ok() {
                    GLSL_CHECKED.fetch_add(1, Ordering::Relaxed);
                }
                Ok(())
            }),
        )
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let checked = GLSL_CHECKED.load(Ordering::Relaxed);
    println!(
        "GLSL --set: {checked} of {} mutants checked",
        scaled(GLSL_MUTANTS)
    );
    assert!(checked >= 1, "no GLSL mutant is checked to a verdict");
}

// ------------------------------------------------------------ regressions

/// Found by the WGSL fuzzer's input lengths: `--length b=1048576` on a
/// runtime array of 4096 x 4096 words asked for 2^44 initial cells, built
/// in full before any size check, and the process aborted out of memory.
/// The same shape as a fixed array (2^24 cells, under naga's 2 GiB limit)
/// took seconds. Both are refused at vkmm's 2^20 cells of layout per
/// variable (of which at most 65536 get locations).
#[test]
fn an_input_on_a_runtime_array_of_4096_by_4096_words_is_refused() {
    let header = "@group(0) @binding(0) var<storage, read_write> b: ";
    let body = "@compute @workgroup_size(1) fn main() { b[0][0][0] = 1u; }\n";
    for (ty, length) in [
        ("array<array<array<u32, 4096>, 4096>>", Some(1 << 20)),
        ("array<array<array<u32, 4096>, 4096>, 1>", None),
    ] {
        let shader = ShaderOptions {
            local_size: Some([1, 1, 1]),
            inputs: vec![Input {
                target: "b".to_string(),
                contents: Contents::Zero,
                length,
                extent: None,
                origin: None,
            }],
            ..ShaderOptions::default()
        };
        let options = Options {
            shader,
            ..Options::default()
        };
        let text = format!("{header}{ty};\n{body}");
        let err = frontend::parse_text("big.wgsl", &text, Format::Wgsl, options)
            .expect_err("16M cells are more than a variable may have");
        assert!(
            err.message.contains("more than 1048576 scalar cells"),
            "{ty}: {err}"
        );
    }
}
