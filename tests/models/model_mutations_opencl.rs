//! Mutation tests for the OpenCL models: each mutation below breaks one rule
//! of `models/opencl-rules.cat`, `models/opencl.cat` or
//! `models/opencl-totalsc.cat`; vkmm's own OpenCL rule tests
//! (tests/fixtures/litmus-opencl) together with the Dat3M OpenCL suite must notice
//! every one of them. A mutation that survives means a rule no test
//! exercises.
//!
//! Not mutated, because removing them changes no execution's verdict (the
//! other rules imply them): the acyclicity of global- and
//! local-happens-before (a cycle needs a synchronisation edge, and an
//! rf-based one closes a coherence cycle, while barrier instances follow
//! sequenced-before), and the flags' region in `bar_sw` (happens-before
//! enters a barrier only by sequenced-before within the region).

use crate::common;

use rayon::prelude::*;
use std::path::Path;
use vkmm::Limits;
use vkmm::analysis::{Property, check_litmus, expected};
use vkmm::frontend::{LocalMemory, Options};
use vkmm::ir::Program;
use vkmm::model::LoadedModel;

/// Which file a mutation edits.
#[derive(Clone, Copy, PartialEq)]
enum File {
    Rules,
    Scoped,
    TotalSc,
}

impl File {
    fn name(self) -> &'static str {
        match self {
            File::Rules => "opencl-rules.cat",
            File::Scoped => "opencl.cat",
            File::TotalSc => "opencl-totalsc.cat",
        }
    }
}

/// (file, what the mutation breaks, text to replace, replacement)
const MUTATIONS: &[(File, &str, &str, &str)] = &[
    (
        File::Rules,
        "operands of one expression are unsequenced",
        "let sb = po \\ unseq",
        "let sb = po",
    ),
    (
        File::Rules,
        "from-reads of initial-value reads",
        "| ([RFINIT] ; sloc ; [W])) \\ id",
        ") \\ id",
    ),
    (
        File::Rules,
        "release sequences continue with the same work-item's writes",
        "let rs_member = sthd | (_ * RMW)",
        "let rs_member = (_ * RMW)",
    ),
    (
        File::Rules,
        "release sequences continue with read-modify-writes",
        "let rs_member = sthd | (_ * RMW)",
        "let rs_member = sthd",
    ),
    (
        File::Rules,
        "fences synchronize",
        "let sync_path(r) = [REL & (A | F) & r] ; fence_sb? ;",
        "let sync_path(r) = [REL & A & r] ;",
    ),
    (
        File::Rules,
        "a fence synchronises through the hypothetical release sequence beyond its head",
        "fence_sb? ; [A & W & r] ; hrs ; rf",
        "(([A & W & r] ; hrs) | (fence_sb ; [A & W & r])) ; rf",
    ),
    (
        File::Rules,
        "atomic synchronisation needs inclusive scopes",
        "let sw(r) = (sync_path(r) & incl) \\ sthd",
        "let sw(r) = sync_path(r) \\ sthd",
    ),
    (
        File::Rules,
        "work-item scope is never inclusive",
        "| (SCOPECD * SCOPECD)",
        "| (SCOPECD * SCOPECD) | (SCOPEINV * SCOPEINV)",
    ),
    (
        File::Rules,
        "barriers synchronize within their instance",
        "let gsw = sw(GLOBAL) | bar_sw(GLOBAL) |",
        "let gsw = sw(GLOBAL) |",
    ),
    (
        File::Rules,
        "no synchronisation into and out of one barrier",
        "(s ; [~CBAR]) | (s ; [CBAR] ; sb ; [r])",
        "s",
    ),
    (
        File::Rules,
        "sequentially consistent operations synchronize in both regions",
        "let cross_region = (SEQCST * SEQCST) | (BOTH_FENCE * BOTH_FENCE)",
        "let cross_region = BOTH_FENCE * BOTH_FENCE",
    ),
    (
        File::Rules,
        "fences with both flags synchronize in both regions",
        "let cross_region = (SEQCST * SEQCST) | (BOTH_FENCE * BOTH_FENCE)",
        "let cross_region = SEQCST * SEQCST",
    ),
    (
        File::Rules,
        "sequentially consistent operations are global and local actions",
        "let GLOBAL_ACTION = GLOBAL | SEQCST",
        "let GLOBAL_ACTION = GLOBAL",
    ),
    (
        File::Rules,
        "local and global happens-before do not mix",
        "let ghb_step = hb_step(GLOBAL_ACTION, gsw)",
        "let ghb_step = hb_step(GLOBAL_ACTION | LOCAL_ACTION, gsw | lsw)",
    ),
    (
        File::Rules,
        "global coherence",
        "irreflexive coh(ghb) as coherence-global",
        "",
    ),
    (
        File::Rules,
        "local coherence",
        "irreflexive coh(lhb) as coherence-local",
        "",
    ),
    (
        File::Rules,
        "no global read from the future",
        "irreflexive rf ; ghb as read-not-from-the-future-global",
        "",
    ),
    (
        File::Rules,
        "no local read from the future",
        "irreflexive rf ; lhb as read-not-from-the-future-local",
        "",
    ),
    (
        File::Rules,
        "read-modify-write atomicity",
        "irreflexive (rf ; [RMW] ; co) | ([RMW] ; fr ; co) as rmw-atomicity",
        "",
    ),
    (
        File::Rules,
        "non-atomic global reads take the visible side effect",
        "empty invisible_global as visible-side-effect-global",
        "",
    ),
    (
        File::Rules,
        "non-atomic local reads take the visible side effect",
        "empty invisible_local as visible-side-effect-local",
        "",
    ),
    (
        File::Rules,
        "atomics with inclusive scopes never race",
        "let dr = conflict \\ ((A * A) & incl) \\ (hb | hb^-1)",
        "let dr = conflict \\ (A * A) \\ (hb | hb^-1)",
    ),
    (
        File::Rules,
        "accesses ordered by happens-before never race",
        "let dr = conflict \\ ((A * A) & incl) \\ (hb | hb^-1)",
        "let dr = conflict \\ ((A * A) & incl)",
    ),
    (
        File::Scoped,
        "scoped SC only relates inclusive scopes",
        "let sc_scoped = sc_before & (SEQCST * SEQCST) & incl",
        "let sc_scoped = sc_before & (SEQCST * SEQCST)",
    ),
    (
        File::Scoped,
        "SC fences stand for the operations around them",
        "let sc_before = ([F] ; sb)? ; (sc_fr | mo | ghb | lhb) ; (sb ; [F])?",
        "let sc_before = sc_fr | mo | ghb | lhb",
    ),
    (
        File::Scoped,
        "SC order follows from-reads",
        "let sc_before = ([F] ; sb)? ; (sc_fr | mo | ghb | lhb) ; (sb ; [F])?",
        "let sc_before = ([F] ; sb)? ; (mo | ghb | lhb) ; (sb ; [F])?",
    ),
    (
        File::TotalSc,
        "S is consistent with modification order and happens-before",
        "irreflexive (mo | ghb | lhb) ; S as sc-order-consistent",
        "",
    ),
    (
        File::TotalSc,
        "an SC read of an SC write reads the last one before it in S",
        "empty sc_read_not_last as sc-read-last-sc-write",
        "",
    ),
    (
        File::TotalSc,
        "an SC read of a non-SC write: not one happening before A",
        "empty sc_read_hidden as sc-read-non-sc-write",
        "",
    ),
    (
        File::TotalSc,
        "an SC read of the initial value: only when no A exists",
        "empty sc_read_init_hidden as sc-read-initial-value",
        "",
    ),
    (
        File::TotalSc,
        "C11 7.17.3p9: an SC fence before a read",
        "irreflexive sc_fence_before_read as sc-fence-before-read",
        "",
    ),
    (
        File::TotalSc,
        "C11 7.17.3p10: an SC fence after a write",
        "irreflexive sc_fence_after_write as sc-fence-after-write",
        "",
    ),
    (
        File::TotalSc,
        "C11 7.17.3p11: two SC fences between a write and a read",
        "irreflexive sc_fences_read as sc-fences-read",
        "",
    ),
    (
        File::TotalSc,
        "two SC fences between two writes order them in mo",
        "irreflexive sc_fences_write as sc-fences-write",
        "",
    ),
];

/// One expected verdict: a parsed program, the property and its value.
struct Case {
    name: String,
    program: Program,
    property: Property,
    holds: bool,
}

/// The rows of an expected-verdicts CSV, parsed. `flipped` lists rows whose
/// verdict the model is documented to reverse (tests/conformance/conformance_opencl.rs).
fn cases(dir: &Path, csv: &str, property: Property, opts: Options, flipped: &[&str]) -> Vec<Case> {
    let text = std::fs::read_to_string(dir.join(csv)).unwrap();
    expected::parse(csv, &text, dir)
        .unwrap()
        .into_iter()
        .map(|row| {
            let name = row.path.display().to_string();
            let flip = flipped.iter().any(|f| name.ends_with(f));
            Case {
                program: vkmm::frontend::load_with(&row.path, opts.clone())
                    .unwrap_or_else(|e| panic!("{e}")),
                name,
                property,
                holds: row.holds != flip,
            }
        })
        .collect()
}

/// Every expectation a model of `top` must meet.
fn all_cases(top: File) -> Vec<Case> {
    let model = match top {
        File::TotalSc => "opencl-totalsc",
        _ => "opencl",
    };
    let mut out: Vec<Case> = common::opencl_own_expectations(model)
        .into_iter()
        .map(|(path, property, holds)| Case {
            name: path.display().to_string(),
            program: vkmm::frontend::load(&path).unwrap_or_else(|e| panic!("{e}")),
            property,
            holds,
        })
        .collect();
    if let Some(dir) = common::corpus_or_skip("dat3m-opencl") {
        let shared = Options {
            local_memory: LocalMemory::Shared,
            ..Options::default()
        };
        let flipped: &[&str] = match top {
            File::TotalSc => &["overhauling/example10.litmus"],
            _ => &[],
        };
        out.extend(cases(
            &dir,
            "OPENCL-expected.csv",
            Property::Condition,
            shared.clone(),
            flipped,
        ));
        out.extend(cases(
            &dir,
            "OPENCL-DR-expected.csv",
            Property::Races,
            shared,
            &[],
        ));
    }
    out
}

/// The model whose top file is `top`, with `file` replaced by `source`.
fn model(top: File, file: File, source: &str) -> LoadedModel {
    common::mutant(top.name(), &[(file.name(), source)])
}

/// The cases `model` gets wrong.
fn failures(model: &LoadedModel, cases: &[Case]) -> Vec<String> {
    cases
        .iter()
        .filter(|c| {
            check_litmus(
                &c.name,
                &c.program,
                model,
                Limits::default(),
                Some(c.property),
            )
            .map(|o| o.holds(c.property) != Some(c.holds))
            .unwrap_or(true)
        })
        .map(|c| format!("{}: {:?}", c.name, c.property))
        .collect()
}

fn source(file: File) -> &'static str {
    vkmm::model::embedded(file.name()).unwrap()
}

#[test]
fn the_unmutated_models_pass_everything() {
    for top in [File::Scoped, File::TotalSc] {
        let m = model(top, top, source(top));
        let bad = failures(&m, &all_cases(top));
        assert!(bad.is_empty(), "{}: {}", top.name(), bad.join("\n"));
    }
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "full tier: --features slow-tests"
)]
fn every_mutation_is_caught() {
    let scoped = all_cases(File::Scoped);
    let total = all_cases(File::TotalSc);
    // A rule of opencl-rules.cat is checked under opencl.cat, which includes
    // it (opencl-totalsc.cat includes the same file).
    let survivors: Vec<&str> = MUTATIONS
        .par_iter()
        .filter_map(|&(file, what, from, to)| {
            let original = source(file);
            assert!(
                original.contains(from),
                "mutation `{what}` no longer applies to {}: `{from}`",
                file.name()
            );
            let mutant = original.replacen(from, to, 1);
            let (top, cases) = match file {
                File::TotalSc => (File::TotalSc, &total),
                _ => (File::Scoped, &scoped),
            };
            failures(&model(top, file, &mutant), cases)
                .is_empty()
                .then_some(what)
        })
        .collect();
    assert!(
        survivors.is_empty(),
        "no test notices these broken rules:\n{}",
        survivors.join("\n")
    );
}
