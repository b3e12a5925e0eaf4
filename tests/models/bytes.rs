//! Memory locations as byte sets (issue 16, item 6; docs/format-vulkan-litmus.md,
//! "Memory locations as bytes"; src/ir/bytes.rs). vkmm's own tests in
//! tests/fixtures/litmus-bytes (verdicts derived by hand from the sentence each file
//! quotes); the shape of the lowering; located errors for bad ranges;
//! mutation tests; and differential tests: a test whose variables are given
//! sizes but accessed whole gives the same program (8 bytes) or the same
//! final states, counts and verdicts (4 bytes, values cut to 32 bits).

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::Limits;
use vkmm::frontend::{Format, Options};
use vkmm::ir::{OpKind, Program};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-bytes")
}

fn parse(text: &str) -> Result<Program, String> {
    vkmm::frontend::parse_text("t.litmus", text, Format::VulkanLitmus, Options::default())
        .map_err(|e| e.to_string())
}

#[test]
fn byte_tests_give_their_hand_derived_verdicts() {
    common::assert_csv_verdicts(&dir(), 10);
}

/// The accesses (kind, location name) of thread `t` after lowering.
fn accesses(p: &Program, t: usize) -> Vec<(String, String)> {
    p.threads[t]
        .instructions()
        .filter(|i| i.reference.is_some())
        .map(|i| {
            let kind = match i.kind {
                OpKind::Load => "ld",
                OpKind::Store => "st",
                OpKind::Rmw => "rmw",
                _ => "other",
            };
            let loc = p.location_of(i).unwrap();
            (kind.to_string(), p.locations[loc].clone())
        })
        .collect()
}

#[test]
fn an_access_of_several_chunks_is_one_access_per_chunk() {
    let text = std::fs::read_to_string(dir().join("mixed-size-mp.litmus")).unwrap();
    let p = parse(&text).unwrap();
    assert!(p.sizes.is_empty(), "lowered");
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(
        accesses(&p, 0),
        pairs(&[("st", "x[0..4]"), ("st", "x[4..8]"), ("st", "flag")])
    );
    assert_eq!(
        accesses(&p, 1),
        pairs(&[("ld", "flag"), ("ld", "x[0..4]"), ("ld", "x[4..8]")])
    );
    // A sized variable accessed whole keeps one location and its name.
    let p = parse(
        "VULKAN t\n{ x:4=7; }\n P0@sg 0, wg 0, qf 0 ;\n ld.sc0 r0, x ;\nforall (P0:r0 == 7)\n",
    )
    .unwrap();
    assert_eq!(p.locations, vec!["x".to_string()]);
    assert_eq!(accesses(&p, 0), pairs(&[("ld", "x")]));
}

/// Runs `text` under the `vulkan` model: (condition holds, race-free).
fn verdicts(text: &str) -> (Option<bool>, Option<bool>) {
    let p = parse(text).unwrap();
    let model = vkmm::model::load("vulkan").unwrap();
    let o = vkmm::analysis::check_litmus("t", &p, &model, Limits::default(), None).unwrap();
    (o.condition_holds, o.race_free)
}

#[test]
fn values_are_little_endian_twos_complement_of_the_access_width() {
    // One thread: a 2-byte store of -1 sets bytes 2..4 to 0xff; the
    // 4-byte load reads 0xffff0000 as a signed 32-bit value.
    let t = |st: &str, ld: &str, v: i64| {
        format!(
            "VULKAN t\n{{ x:8=0; }}\n P0@sg 0, wg 0, qf 0 ;\n {st} ;\n {ld} ;\nforall (P0:r0 == {v})\n"
        )
    };
    assert_eq!(
        verdicts(&t("st.sc0 x[2..4], -1", "ld.sc0 r0, x[0..4]", -65536)).0,
        Some(true)
    );
    // The initial value's bytes: x:8 = 2^32 + 5, bytes 4..8 hold 1.
    let init = "VULKAN t\n{ x:8=4294967301; }\n P0@sg 0, wg 0, qf 0 ;\n ld.sc0 r0, x[4..8] ;\n ld.sc0 r1, x[0..4] ;\nforall (P0:r0 == 1 /\\ P0:r1 == 5)\n";
    assert_eq!(verdicts(init).0, Some(true));
    // A register stored across two chunks is cut into them.
    let reg = "VULKAN t\n{ x:8=0; P0:r9=4294967298; }\n P0@sg 0, wg 0, qf 0 ;\n ld.sc0 r8, x[0..4] ;\n st.sc0 x, r9 ;\n ld.sc0 r0, x[4..8] ;\n ld.sc0 r1, x[0..4] ;\n ld.sc0 r2, x ;\nforall (P0:r0 == 1 /\\ P0:r1 == 2 /\\ P0:r2 == 4294967298)\n";
    assert_eq!(verdicts(reg).0, Some(true));
    // A 4-byte atomic add wraps at 32 bits, read signed.
    let rmw = "VULKAN t\n{ x:4=2147483647; }\n P0@sg 0, wg 0, qf 0 ;\n rmw.atom.dv.sc0.add r0, x, 1 ;\n ld.atom.dv.sc0 r1, x ;\nforall (P0:r1 == -2147483648)\n";
    assert_eq!(verdicts(rmw).0, Some(true));
}

#[test]
fn bad_ranges_and_mixed_size_atomics_are_located_errors() {
    let t = |init: &str, code: &str| {
        format!("VULKAN t\n{{ {init} }}\n P0@sg 0, wg 0, qf 0 ;\n {code} ;\nexists (P0:r0 == 0)\n")
    };
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "x:8=0;",
            "ld.sc0 r0, x[4..12]",
            "t.litmus:4:2:",
            "out of bounds: `x` has 8 bytes",
        ),
        (
            "x=0;",
            "ld.sc0 r0, x[0..4]",
            "t.litmus:4:2:",
            "which has no size: declare it as `x:N`",
        ),
        ("x:8=0;", "ld.sc0 r0, x[4..4]", "t.litmus:4:18:", "is empty"),
        (
            "x:0=0;",
            "ld.sc0 r0, x",
            "t.litmus:2:5:",
            "a variable has 1 to 64 bytes",
        ),
        (
            "x:16=0;",
            "ld.sc0 r0, x",
            "t.litmus:4:2:",
            "covers 16 bytes: an access covers at most 8",
        ),
        (
            "x:8=0; x:4;",
            "ld.sc0 r0, x",
            "t.litmus:2:10:",
            "already has a size",
        ),
        (
            "x:8=0;",
            "ld.sc0 r0, x[0..4",
            "t.litmus:4:",
            "expected `]` to close the byte range",
        ),
    ];
    for (init, code, at, what) in cases {
        let e = parse(&t(init, code)).unwrap_err();
        assert!(
            e.starts_with(at) && e.contains(what),
            "{init} {code}: got {e}"
        );
    }
    // An 8-byte atomic overlapping a 4-byte access: refused, at the atomic.
    let text = "VULKAN t\n{ x:8=0; }\n P0@sg 0, wg 0, qf 0 ;\n ld.sc0 r1, x[0..4] ;\n st.atom.dv.sc0 x, 1 ;\nexists (P0:r1 == 0)\n";
    let e = parse(text).unwrap_err();
    assert!(
        e.starts_with("t.litmus:5:2:")
            && e.contains("mixed-size atomics are not supported")
            && e.contains("They access the same set of memory locations"),
        "{e}"
    );
}

/// The outcome of `program` reduced to what must not change: final states
/// with their counts, condition and race verdicts.
type Verdicts = (Vec<(Vec<(String, i64)>, u64)>, Option<bool>, Option<bool>);

fn outcome(program: &Program) -> Verdicts {
    let model = vkmm::model::load("vulkan").unwrap();
    let o = vkmm::analysis::check_litmus("t", program, &model, Limits::default(), None).unwrap();
    let mut states: Vec<(Vec<(String, i64)>, u64)> =
        o.states.iter().map(|(s, n)| (s.to_pairs(), *n)).collect();
    states.sort();
    (states, o.condition_holds, o.race_free)
}

/// The own Vulkan litmus tests without host threads, each parsed.
fn own_tests() -> Vec<(PathBuf, Program)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in [
        "tests/fixtures/litmus-vulkan",
        "tests/fixtures/litmus-appendix",
        "tests/fixtures/litmus",
    ] {
        files.extend(common::files_with_ext(&root.join(d), "litmus"));
    }
    files
        .into_iter()
        .filter_map(|f| {
            let p = vkmm::frontend::load(&f).ok()?;
            (p.dialect == vkmm::ir::Dialect::Vulkan && p.host.is_empty()).then_some((f, p))
        })
        .collect()
}

fn sized(p: &Program, size: u32) -> Program {
    let mut q = p.clone();
    q.sizes = (0..q.locations.len()).map(|l| (l, size)).collect();
    vkmm::ir::bytes::lower(&mut q).unwrap();
    q
}

#[test]
fn eight_byte_variables_accessed_whole_lower_to_the_same_program() {
    let tests = own_tests();
    assert!(tests.len() >= 20, "found the own Vulkan litmus tests");
    for (f, p) in &tests {
        let q = sized(p, 8);
        let json = |p: &Program| serde_json::to_string(p).unwrap();
        assert_eq!(json(&q), json(p), "{}", f.display());
    }
}

#[test]
fn four_byte_variables_give_the_same_states_counts_and_verdicts() {
    let tests = own_tests();
    let mismatches = common::on_two_threads(
        &tests.iter().map(|(f, _)| f.clone()).collect::<Vec<_>>(),
        &|f: &Path| {
            let p = &tests.iter().find(|(g, _)| g == f).unwrap().1;
            let q = sized(p, 4);
            let (a, b) = (outcome(p), outcome(&q));
            if a == b {
                Vec::new()
            } else {
                vec![format!("{}: {a:?} vs {b:?}", f.display())]
            }
        },
    );
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// (what the mutation breaks, text to replace, replacement, a test of
/// tests/fixtures/litmus-bytes whose verdict it changes)
const MUTATIONS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "data races only between overlapping accesses",
        "vulkan-rules.cat",
        "let conflict = sloc & ((W * W) | (W * R) | (R * W))",
        "let conflict = (M * M) & ((W * W) | (W * R) | (R * W))",
        "neighbours-no-race.litmus",
    ),
    (
        "a write overwriting a subset of the locations hides the older write there",
        "vulkan-spec-readings.cat",
        "let fr_locord(locord) = rf^-1 ; [W] ; locord ; [W]",
        "let fr_locord(locord) = rf^-1 ; [W] ; (locord & asmo) ; [W]",
        "partial-overwrite-stale.litmus",
    ),
    (
        "an availability operation includes only the locations it covers",
        "vulkan-rules.cat",
        "let to_av = [W & NONPRIV] ; (po? & avvisinc)",
        "let to_av = [W & NONPRIV] ; po?",
        "per-byte-visibility.litmus",
    ),
];

#[test]
fn every_byte_mutation_changes_a_verdict() {
    const RULES: &str = include_str!("../../models/vulkan-rules.cat");
    const READINGS: &str = include_str!("../../models/vulkan-spec-readings.cat");
    let rows = common::csv_rows(&dir());
    for (what, file, old, new, test) in MUTATIONS {
        let (rules, readings) = match *file {
            "vulkan-rules.cat" => (RULES.replacen(old, new, 1), READINGS.to_string()),
            _ => (RULES.to_string(), READINGS.replacen(old, new, 1)),
        };
        assert!(
            rules != RULES || readings != READINGS,
            "{what}: `{old}` is not in {file}"
        );
        let model = common::vulkan_mutant(&rules, Some(&readings));
        let wrong = common::csv_mismatches(&dir(), &model);
        assert!(
            wrong.iter().any(|w| w.starts_with(test)),
            "{what}: mutant passes {test} (wrong: {wrong:?}; rows {})",
            rows.len()
        );
    }
}
