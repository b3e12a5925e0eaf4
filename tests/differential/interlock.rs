//! Differential test of the interlock-order pruning (`engine::candidates`,
//! `ilo_search`): with a pruning callback the interlock orders are walked as
//! a trie and a partial order already inconsistent abandons every order
//! below it; without one (the reference: a visitor that may not prune)
//! every order is evaluated whole. Both must find exactly the same
//! consistent executions (the same reads-from choices under the same
//! interlock order, on the same combination of paths), on every test of
//! tests/fixtures/litmus-interlock and on generated interlock programs (pixel,
//! sample and shading-rate interlock, ordered and unordered, up to five
//! invocations over three pixels with 1x1 and 2x1 fragment areas, loads and
//! stores with and without FragmentInterlock-scope availability and
//! visibility).

use crate::common;

use proptest::prelude::*;
use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::path::Path;
use vkmm::ir::Program;
use vkmm::testing::cat::{Evaluation, Value};
use vkmm::testing::engine::{Candidate, CheckError, Limits, Skeleton, Visitor, explore};

/// A consistent execution, by its events (thread, statement, values), its
/// reads-from choices and its interlock order (as statement pairs).
type Key = String;

struct Collect {
    prune: bool,
    found: BTreeSet<Key>,
    evaluations: u64,
}

impl Visitor for Collect {
    fn may_prune(&self) -> bool {
        self.prune
    }

    fn visit(
        &mut self,
        sk: &Skeleton,
        c: &Candidate,
        eval: &Evaluation,
    ) -> Result<ControlFlow<()>, CheckError> {
        self.evaluations += 1;
        if eval.consistent() {
            let ev = |e: usize| {
                let i = &sk.events[e];
                format!(
                    "{}.{}({:?},{:?})",
                    i.thread, i.stmt, i.read_value, i.write_value
                )
            };
            let events: Vec<String> = (0..sk.universe()).map(ev).collect();
            let ilo: Vec<String> = match c.env.get("ilo") {
                Some(Value::Rel(r)) => r
                    .pairs()
                    .map(|(a, b)| format!("{}>{}", ev(a), ev(b)))
                    .collect(),
                _ => Vec::new(),
            };
            self.found.insert(format!(
                "{} | rf {:?} | ilo {}",
                events.join(" "),
                c.rf_source,
                ilo.join(" ")
            ));
        }
        Ok(ControlFlow::Continue(()))
    }
}

fn run(program: &Program, prune: bool) -> (BTreeSet<Key>, u64) {
    let model = vkmm::model::load("vulkan").unwrap();
    let mut v = Collect {
        prune,
        found: BTreeSet::new(),
        evaluations: 0,
    };
    let coverage = explore(program, &model, Limits::default(), &mut v).unwrap();
    assert!(coverage.complete(), "the searches are not truncated");
    (v.found, v.evaluations)
}

fn agree(name: &str, program: &Program) -> (u64, u64) {
    let (pruned, e1) = run(program, true);
    let (reference, e2) = run(program, false);
    assert_eq!(
        pruned, reference,
        "{name}: the pruned search finds other consistent executions than the reference"
    );
    (e1, e2)
}

#[test]
fn own_interlock_tests_agree() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-interlock");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus" || x == "test"))
        .collect();
    files.sort();
    assert!(files.len() >= 20);
    // The six-invocation file, by far the largest search here, is compared
    // in the full tier (`--features slow-tests`) only; the quick tier keeps
    // the other files, the unordered ones of three invocations among them.
    let full = cfg!(feature = "slow-tests");
    let mut fewer = 0;
    for f in files
        .iter()
        .filter(|f| full || !f.ends_with("two-pixels-six.litmus"))
    {
        let program = vkmm::frontend::load(f).unwrap();
        let (pruned, reference) = agree(&f.display().to_string(), &program);
        assert!(pruned <= reference);
        fewer += usize::from(pruned < reference);
    }
    // The pruning does something: the unordered tests with three or more
    // invocations evaluate fewer complete candidates.
    assert!(fewer >= 2, "only {fewer} tests were pruned");
}

/// One access of a generated invocation.
#[derive(Clone, Debug)]
struct Access {
    store: bool,
    location: usize,
    avvis: bool,
}

fn access() -> impl Strategy<Value = Access> {
    (any::<bool>(), 0..2usize, any::<bool>()).prop_map(|(store, location, avvis)| Access {
        store,
        location,
        avvis,
    })
}

/// (pixel, in a 2x1 fragment area, samples mask, accesses in the critical
/// section)
type Invocation = (usize, bool, u8, Vec<Access>);

fn invocation() -> impl Strategy<Value = Invocation> {
    (
        0..3usize,
        any::<bool>(),
        1..4u8,
        prop::collection::vec(access(), 1..3),
    )
}

fn program_text(granularity: usize, ordered: bool, invs: &[Invocation]) -> String {
    let mut s = format!(
        "VULKAN generated\n{{\ninterlock {} {};\nx=0; y=0;\n}}\n",
        ["pixel", "sample", "shadingrate"][granularity],
        if ordered { "ordered" } else { "unordered" }
    );
    let headers: Vec<String> = invs
        .iter()
        .enumerate()
        .map(|(i, (pixel, coarse, mask, _))| {
            let samples: Vec<String> = (0..2)
                .filter(|b| mask & (1 << b) != 0)
                .map(|b| b.to_string())
                .collect();
            let area = if *coarse {
                format!(", area {} {}", pixel / 2 * 2, pixel / 2 * 2 + 1)
            } else {
                String::new()
            };
            format!(
                "P{i}@sg 0, wg {i}, qf 0, prim {i}, pixel {pixel}{area}, samples {}",
                samples.join(" ")
            )
        })
        .collect();
    let mut columns: Vec<Vec<String>> = Vec::new();
    for (i, (_, _, _, accesses)) in invs.iter().enumerate() {
        let mut col = vec!["beginil".to_string()];
        for (k, a) in accesses.iter().enumerate() {
            let loc = ["x", "y"][a.location];
            col.push(match (a.store, a.avvis) {
                (true, true) => format!("st.av.fi.sc0 {loc}, {}", i * 10 + k + 1),
                (true, false) => format!("st.sc0 {loc}, {}", i * 10 + k + 1),
                (false, true) => format!("ld.vis.fi.sc0 r{k}, {loc}"),
                (false, false) => format!("ld.sc0 r{k}, {loc}"),
            });
        }
        col.push("endil".to_string());
        columns.push(col);
    }
    let rows = columns.iter().map(Vec::len).max().unwrap();
    s.push_str(&headers.join(" | "));
    s.push_str(" ;\n");
    for r in 0..rows {
        let cells: Vec<String> = columns
            .iter()
            .map(|c| c.get(r).cloned().unwrap_or_default())
            .collect();
        s.push_str(&cells.join(" | "));
        s.push_str(" ;\n");
    }
    s.push_str("exists (x == 0)\n");
    s
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: crate::common::seed(), cases: crate::common::cases(48), failure_persistence: crate::common::regressions("differential-interlock"), ..ProptestConfig::default() })]

    #[test]
    fn generated_interlock_programs_agree(
        granularity in 0..3usize,
        ordered in any::<bool>(),
        invs in prop::collection::vec(invocation(), 2..6),
    ) {
        let text = program_text(granularity, ordered, &invs);
        let program = vkmm::frontend::parse_text(
            "generated.litmus",
            &text,
            vkmm::frontend::Format::VulkanLitmus,
            vkmm::frontend::Options::default(),
        )
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        agree(&text, &program);
        // The verdict-only walk against the full one.
        let session = vkmm::Session::new().max_executions(20_000);
        let diffs = common::directed_agrees_on_quantifiers(&text, &session);
        prop_assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    }
}
