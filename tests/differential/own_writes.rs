//! Differential test of the latest-own-write filter (`Reduction::OwnWriteFilter`,
//! a model's `latest-own-write` declaration, `engine::trace::own_locations`)
//! against the reference enumeration, where a read of a location only its
//! own thread writes ranges over the location's whole value domain.
//!
//! The filter drops only executions that close a cycle of location-ordered,
//! reads-from and from-reads ("no cycles exist in the union of the
//! following relations: location-ordered, scoped modification order (over
//! all atomic writes), reads-from, from-reads"), so on every file where both
//! searches finish within the bound the answers must be identical: the
//! final states (not their execution counts: the filter skips inconsistent
//! candidates), the condition and race verdicts, the racing pairs, and the
//! `.test` answers. Compared on the repository's own tests and examples,
//! the dat3m-vulkan, khronos-alloy and dat3m-opencl corpora and the
//! dat3m-spirv rows of `basic/`. And the filter is not idle (a loop
//! reading its own writes is decided with it and cut without it), and it is
//! off under `vulkan-fr-asmo`, which allows reading one's own overwritten
//! plain store.
//!
//! The corpus-wide comparison runs as the `own-write-filter` row of [`crate::table`].

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;
use vkmm::Session;
use vkmm::analysis::Checked;

const MAX_EXECUTIONS: u64 = 20_000;

pub(crate) fn session(filter: bool) -> Session {
    Session::new()
        .max_executions(MAX_EXECUTIONS)
        .timeout(Some(Duration::from_secs(10)))
        .reduction(vkmm::Reduction::OwnWriteFilter, filter)
}

/// The answers of a search, or `None` when it did not finish within the
/// bound and limits (cut paths, truncated, stopped).
fn answers(c: &Checked) -> Option<String> {
    match c {
        Checked::Litmus(o) => {
            if o.cut_paths > 0 || o.truncated || o.stopped_by.is_some() {
                return None;
            }
            let states: Vec<_> = o.states.iter().map(|(s, _)| s).collect();
            let races: Vec<_> = o
                .races
                .iter()
                .map(|r| (&r.first, &r.second, &r.location))
                .collect();
            Some(format!(
                "states {states:?}\ncondition {:?} race-free {:?}\nraces {races:?}",
                o.condition_holds, o.race_free,
            ))
        }
        Checked::Queries(o) => Some(
            o.queries
                .iter()
                .map(|q| match format!("{:?}", q.actual) {
                    a if a == "Undecided" => format!("line {}: -\n", q.line),
                    a => format!("line {}: {a}\n", q.line),
                })
                .collect(),
        ),
        Checked::Termination(o) => Some(format!("{:?}", o.verdict)),
    }
}

pub(crate) fn compare(path: &Path) -> Vec<String> {
    let name = path.display().to_string();
    match (
        session(false).check_file(path),
        session(true).check_file(path),
    ) {
        (Ok(a), Ok(b)) => match (answers(&a), answers(&b)) {
            (Some(x), Some(y)) if x != y => {
                vec![format!("{name}:\nreference:\n{x}\nfiltered:\n{y}")]
            }
            _ => Vec::new(),
        },
        (Err(a), Err(b)) if a.to_string() == b.to_string() => Vec::new(),
        // A limit the reference hits that the filtered search does not
        // (or the other way) is not a difference of answers.
        (Err(e), Ok(_)) | (Ok(_), Err(e)) if e.to_string().contains("limit") => Vec::new(),
        (a, b) => vec![format!(
            "{name}: {:?} / {:?}",
            a.err().map(|e| e.to_string()),
            b.err().map(|e| e.to_string())
        )],
    }
}

pub(crate) fn skipped(path: &Path) -> bool {
    path.display().to_string().contains("xf-barrier")
}

fn assert_same(files: &[PathBuf]) {
    let diffs = common::on_two_threads(files, &compare);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
#[cfg_attr(not(feature = "slow-tests"), ignore = "slow: --features slow-tests")]
fn spirv_basic_rows() {
    let Some(dir) = common::corpus_or_skip("dat3m-spirv") else {
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("basic"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "spvasm"))
        .collect();
    files.sort();
    assert!(files.len() >= 40, "{} files", files.len());
    assert_same(&files);
}

/// Dat3M's `basic/loop-struct-cond`, one invocation: the loop adds 1 to
/// `%var` until it holds 2. The second iteration's load follows the
/// invocation's own store of 1 to a location nothing else writes: it reads
/// 1 ("AX == AY and RX == RY and X→Y" location-orders the store before
/// it; reading 0 from-reads that store, a cycle). Without the filter the
/// load also tries the domain's other values and those paths loop until
/// the bound cuts them.
const OWN_LOOP: &str = "; @Input:  %var = 0
; @Output: forall (%var==2)
; @Config: 1, 1, 1
OpCapability Shader
OpCapability VulkanMemoryModel
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main \"main\"
%void = OpTypeVoid
%bool = OpTypeBool
%func = OpTypeFunction %void
%uint = OpTypeInt 64 0
%ptr_uint = OpTypePointer Uniform %uint
%c1 = OpConstant %uint 1
%c2 = OpConstant %uint 2
%var = OpVariable %ptr_uint Uniform
%main = OpFunction %void None %func
%label_1 = OpLabel
%val = OpLoad %uint %var
%val_new = OpIAdd %uint %val %c1
OpStore %var %val_new
%cond = OpIEqual %bool %val_new %c2
OpLoopMerge %label_2 %label_1 None
OpBranchConditional %cond %label_2 %label_1
%label_2 = OpLabel
OpReturn
OpFunctionEnd
";

fn litmus(c: Checked) -> vkmm::analysis::LitmusOutcome {
    match c {
        Checked::Litmus(o) => *o,
        _ => panic!("a litmus result"),
    }
}

#[test]
fn the_filter_decides_a_loop_reading_its_own_writes() {
    let run = |filter: bool| {
        litmus(
            session(filter)
                .unroll(1)
                .check_text("l.spvasm", OWN_LOOP)
                .unwrap(),
        )
    };
    let (reference, filtered) = (run(false), run(true));
    assert!(reference.cut_paths > 0, "{reference:?}");
    assert_eq!(filtered.cut_paths, 0, "{filtered:?}");
    assert_eq!(filtered.condition_holds, Some(true));
    assert_eq!(filtered.states.len(), 1);
    // Bound 1 (the loop body once): the execution needs two iterations,
    // cut with the filter too (Dat3M: UNKNOWN at bound 1).
    let cut = litmus(
        session(true)
            .unroll(0)
            .check_text("l.spvasm", OWN_LOOP)
            .unwrap(),
    );
    assert!(cut.cut_paths > 0, "{cut:?}");
}

/// One invocation stores 1 then 2 to `x` (plain, one reference) and loads
/// it. Reading 1 from-reads the store of 2 through location order under
/// the default reading (a cycle: forbidden), but the AsciiDoc rendering's
/// from-reads (`vulkan-fr-asmo`) relates it to nothing, so nothing forbids
/// it there: that model withdraws `latest-own-write`, and the filter must
/// not hide the outcome.
const SHADOWED_OWN: &str = "VULKAN own-shadowed
{
x=0;
}
 P0@sg 0, wg 0, qf 0 ;
 st.sc0 x, 1         ;
 st.sc0 x, 2         ;
 ld.sc0 r0, x        ;
exists (P0:r0 == 1)
";

#[test]
fn the_filter_is_off_where_from_reads_lacks_location_order() {
    let run = |model: &str, filter: bool| {
        litmus(
            session(filter)
                .model(model)
                .check_text("own-shadowed.litmus", SHADOWED_OWN)
                .unwrap(),
        )
        .condition_holds
    };
    for filter in [false, true] {
        assert_eq!(run("vulkan", filter), Some(false), "filter {filter}");
        assert_eq!(run("vulkan-dat3m", filter), Some(false), "filter {filter}");
        assert_eq!(run("vulkan-fr-asmo", filter), Some(true), "filter {filter}");
    }
    let declares = |name: &str| {
        let m = vkmm::model::load(name).unwrap();
        vkmm::model::profile::declares_latest_own_write(&m.cat)
    };
    assert_eq!(declares("vulkan"), u64::MAX);
    assert_eq!(declares("vulkan-dat3m"), u64::MAX);
    assert_eq!(declares("pops"), u64::MAX);
    assert_eq!(declares("vulkan-fr-asmo"), 0);
    // The OpenCL models: global and local objects only (opencl-rules.cat).
    for m in common::OPENCL_MODELS {
        assert_eq!(declares(m), 0b11, "{m}");
    }
}

/// The OpenCL models declare the filter for global and local objects only
/// (`latest-own-write sc0 sc1`, opencl-rules.cat): sequenced-before orders
/// two global (local) actions in global- (local-) happens-before, which
/// coherence and "for every side effect, it is not the case that B
/// global-happens-before it" need. An access in another storage class
/// (a Vulkan-dialect file under `--model opencl`) is in neither relation,
/// so reading the initial value after one's own store is allowed there.
const OWN_SC2: &str = "VULKAN own-sc2
{ x=0; }
 P0@sg 0, wg 0, qf 0 ;
 st.sc2 x, 1         ;
 ld.sc2 r0, x        ;
exists (P0:r0 == 0)
";

/// C11 6.5p2-3 and OpenCL 3.6 ("sequenced-before ... is partial because of
/// the undefined argument evaluation order"): the operands of `+` are
/// unsequenced, so the load may run before the exchange and read 0
/// (r0 = 0 + 0) or after it (r0 = 0 + 1). The location is the work-item's
/// own, but the filter must not give the load the exchange's value.
const OWN_UNSEQUENCED: &str = "OPENCL own-unsequenced
{}
P0@wg 0, dev 0 (global atomic_int* x) {
  int r0 = atomic_exchange_explicit(x, 1, memory_order_relaxed) + atomic_load_explicit(x, memory_order_relaxed);
}
exists (0:r0=0)
";

#[test]
fn the_opencl_filter_keeps_other_classes_and_unsequenced_operands() {
    let states = |name: &str, text: &str, filter: bool| -> Vec<i64> {
        let o = litmus(
            session(filter)
                .model("opencl")
                .check_text(name, text)
                .unwrap(),
        );
        o.states.iter().map(|(s, _)| s.values()[0]).collect()
    };
    for filter in [false, true] {
        assert_eq!(
            states("own-sc2.litmus", OWN_SC2, filter),
            [0, 1],
            "filter {filter}"
        );
        assert_eq!(
            states("own-unsequenced.litmus", OWN_UNSEQUENCED, filter),
            [0, 1],
            "filter {filter}"
        );
    }
    // A global object, sequenced accesses: the filter applies (and agrees).
    let sc0 = OWN_SC2.replace("sc2", "sc0");
    for filter in [false, true] {
        assert_eq!(
            states("own-sc0.litmus", &sc0, filter),
            [1],
            "filter {filter}"
        );
    }
}

/// The filter is off for a `.test` file one of whose queries counts over
/// every candidate, consistent or not (`analysis::queries::check_program`):
/// the filter leaves out candidates the model rejects, and such a count
/// must see them. One thread stores 1 to `x` and then reads `x` without a
/// value ("a read without a value is unconstrained"): it may read from the
/// store or from the initial value, two candidates. The second is
/// inconsistent (the read from-reads the store, which is location-ordered
/// before it: "no cycles exist in the union of ... location-ordered, ...,
/// reads-from, from-reads"), and the filter, which gives the read the
/// latest own write only, would leave it out. `NOSOLUTION #dr>0` ranges
/// over both candidates (no race in either: one thread, its accesses
/// location-ordered by "AX == AY and RX == RY and X→Y"): 2 executions.
/// With only a consistency query the filter is on: 1 execution, the same
/// answer.
const STALE_READ_COUNT: &str = "NEWTHREAD
st.sc0 x = 1
ld.sc0 x
NOSOLUTION #dr>0
";

#[test]
fn the_filter_is_off_where_a_query_counts_inconsistent_candidates() {
    let run = |text: &str| match session(true).check_text("stale.test", text).unwrap() {
        Checked::Queries(o) => o,
        _ => panic!("a .test result"),
    };
    let o = run(STALE_READ_COUNT);
    assert_eq!(format!("{:?}", o.queries[0].actual), "NoSolution", "{o:?}");
    assert!(o.queries[0].passed);
    assert_eq!(o.queries[0].executions, 2, "{o:?}");
    let c = run(&STALE_READ_COUNT.replace("#dr>0", "consistent[X] && #dr>0"));
    assert_eq!(format!("{:?}", c.queries[0].actual), "NoSolution", "{c:?}");
    assert_eq!(c.queries[0].executions, 1, "{c:?}");
}

/// Three invocations; each walks `j = i, i + 3` and, where `j < 2`,
/// increments `buf[j]` and reads it back: invocation 0 touches `buf[0]`,
/// invocation 1 `buf[1]`, invocation 2 nothing. Every invocation's code
/// holds the store to `buf[j]` (a runtime index carried round a loop: a
/// store per cell), but with its id known only invocation `j` can run
/// the one to `buf[j]` (`engine::trace::reach`), so `buf[0]` is P0's own
/// and `buf[1]` P1's. By hand: the cells are disjoint, so race-free; each
/// read-back reads 1 (its own store, location-ordered after the first
/// read of 0), so `buf[3]` stays 0: one final state, `buf = [1, 1, 0, 0]`.
const GUARDED_CELLS: &str = "
@group(0) @binding(0) var<storage, read_write> buf: array<u32, 4>;

@compute @workgroup_size(3)
fn main(@builtin(local_invocation_index) i: u32) {
    var j = i;
    for (var k = 0u; k < 2u; k += 1u) {
        if (j < 2u) {
            let v = buf[j];
            buf[j] = v + 1u;
            let w = buf[j];
            if (w != v + 1u) {
                buf[3] = 1u;
            }
        }
        j += 3u;
    }
}
";

#[test]
fn a_cell_only_its_invocation_can_write_is_its_own() {
    let run = |filter: bool| {
        litmus(
            session(filter)
                .check_text("guarded.wgsl", GUARDED_CELLS)
                .unwrap(),
        )
    };
    let (reference, filtered) = (run(false), run(true));
    assert_eq!(
        answers(&Checked::Litmus(Box::new(reference.clone()))),
        answers(&Checked::Litmus(Box::new(filtered.clone())))
    );
    assert_eq!(filtered.race_free, Some(true), "{filtered:?}");
    assert_eq!(filtered.states.len(), 1, "{filtered:?}");
    // The filter acts: the read-backs read only their own store. With
    // every invocation counted as a writer of every cell it would be
    // idle, and both searches would evaluate the same candidates.
    assert!(
        filtered.executions < reference.executions,
        "filtered {} reference {}",
        filtered.executions,
        reference.executions
    );
}
