//! The encoding's base relations against the explicit engine's.
//!
//! For every candidate execution the explicit engine (`engine::base` and
//! `engine::choices`, the reference enumeration) lists on generated
//! skeletons, the question's variables are set to that execution: the
//! skeleton's instructions and locations, its reads-from and initial
//! reads, and a strict total order over the slots extending its
//! modification order. Then every fact of the encoding holds (the
//! execution is one the solver may find: the encoding leaves none out),
//! and every base name the two models read (`po`, `rf`, `co`, `asmo`,
//! `sloc`, the scope sets and instances, the storage-class and semantics
//! sets and their dense forms, the access kinds, `av`/`vis`, ...) has,
//! slot by slot, the engine's value for the event in that slot, and
//! nothing on the slots no event holds. A mismatch is named: the base
//! name, the pair of events, the skeleton.

use super::super::{DiffBounds, Pair, Shape, Vocabulary, skeletons};
use super::*;
use crate::cat::Value;
use crate::engine::driver::CheckError;
use crate::engine::{Candidate, Visitor, explore};
use crate::model::LoadedModel;
use std::collections::HashMap;
use std::ops::ControlFlow;

/// The slot each event of `sk` holds: thread `t`'s `i`-th event is slot
/// `t * events + i`.
fn slots(sk: &Skeleton, events: usize) -> Vec<usize> {
    let mut seen = HashMap::new();
    sk.events
        .iter()
        .map(|e| {
            let i = seen.entry(e.thread).or_insert(0usize);
            let s = e.thread * events + *i;
            *i += 1;
            s
        })
        .collect()
}

struct Compare<'q> {
    query: &'q Query,
    shape: &'q Shape,
    candidates: u64,
    mismatches: Vec<String>,
}

impl Compare<'_> {
    /// The inputs' values at the candidate.
    fn assignment(&self, sk: &Skeleton, cand: &Candidate) -> HashMap<Lit, bool> {
        let q = self.query;
        let n = q.threads * q.events;
        let slot = slots(sk, q.events);
        let mut event = vec![None; n];
        for (e, &s) in slot.iter().enumerate() {
            event[s] = Some(e);
        }
        let mut val = HashMap::new();
        for s in 0..n {
            let (t, i) = (s / q.events, s % q.events);
            let (o, l) = self.shape.threads[t].get(i).copied().unwrap_or((0, 0));
            val.insert(q.slots.present[s], i < self.shape.threads[t].len());
            for (k, &x) in q.slots.sel[s].iter().enumerate() {
                val.insert(x, k == o);
            }
            for (k, &x) in q.slots.loc[s].iter().enumerate() {
                val.insert(x, k == l);
            }
        }
        let env = |name: &str| cand.env.get(name).or_else(|| sk.static_env.get(name));
        // Reads-from and the initial reads.
        if let (Some(SymValue::Rel(rf)), Some(Value::Rel(x))) =
            (q.encoding.base.get(names::RF), env(names::RF))
        {
            for w in 0..n {
                for r in 0..n {
                    let on = matches!((event[w], event[r]), (Some(a), Some(b)) if x.contains(a, b));
                    if rf.get(w, r).constant().is_none() {
                        val.insert(rf.get(w, r), on);
                    }
                }
            }
        }
        if let (Some(SymValue::Set(init)), Some(Value::Set(x))) =
            (q.encoding.base.get(names::RFINIT), env(names::RFINIT))
        {
            for (r, ev) in event.iter().enumerate() {
                let on = ev.is_some_and(|e| x.contains(e));
                if init.get(r).constant().is_none() {
                    val.insert(init.get(r), on);
                }
            }
        }
        // A strict total order over the slots extending `co` (Kahn's
        // algorithm, least slot first), the empty slots last.
        let co = match env(names::CO) {
            Some(Value::Rel(r)) => Some(r.clone()),
            _ => None,
        };
        let mut order = Vec::new();
        let mut placed = vec![false; n];
        while order.len() < slot.len() {
            let next = (0..slot.len()).find(|&e| {
                !placed[slot[e]]
                    && (0..slot.len()).all(|f| {
                        placed[slot[f]] || f == e || !co.as_ref().is_some_and(|r| r.contains(f, e))
                    })
            });
            let Some(e) = next else {
                break;
            };
            placed[slot[e]] = true;
            order.push(slot[e]);
        }
        order.extend((0..n).filter(|&s| !placed[s]));
        let mut pos = vec![0; n];
        for (k, &s) in order.iter().enumerate() {
            pos[s] = k;
        }
        for a in 0..n {
            for b in a + 1..n {
                val.insert(q.encoding.lt.get(a, b), pos[a] < pos[b]);
            }
        }
        val
    }
}

impl Visitor for Compare<'_> {
    fn may_prune(&self) -> bool {
        false
    }

    fn visit(
        &mut self,
        sk: &Skeleton,
        cand: &Candidate,
        _eval: &crate::cat::Evaluation,
    ) -> Result<ControlFlow<()>, CheckError> {
        self.candidates += 1;
        let q = self.query;
        let n = q.threads * q.events;
        let val = self.assignment(sk, cand);
        let v =
            q.c.simulate_first(q.encoding.nodes, |l| val.get(&l).copied().unwrap_or(false));
        let slot = slots(sk, q.events);
        let mut event = vec![None; n];
        for (e, &s) in slot.iter().enumerate() {
            event[s] = Some(e);
        }
        let at = format!("{:?} rf {:?}", self.shape, cand.rf_source);
        for (k, f) in q.encoding.facts.iter().enumerate() {
            if !v.of(*f) {
                self.mismatches
                    .push(format!("fact {k} false at the candidate; {at}"));
            }
        }
        let mut names: Vec<&String> = q.encoding.base.keys().collect();
        names.sort();
        for name in names {
            let sym = &q.encoding.base[name];
            let concrete = cand
                .env
                .get(name.as_str())
                .or_else(|| sk.static_env.get(name.as_str()));
            match (sym, concrete) {
                (SymValue::Set(s), Some(Value::Set(x))) => {
                    for (a, ev) in event.iter().enumerate() {
                        let want = ev.is_some_and(|e| x.contains(e));
                        if v.of(s.get(a)) != want {
                            self.mismatches.push(format!(
                                "{name}: slot {a} (event {ev:?}) formula {} engine {want}; {at}",
                                !want
                            ));
                        }
                    }
                }
                (SymValue::Rel(r), Some(Value::Rel(x))) => {
                    for a in 0..n {
                        for b in 0..n {
                            let want = matches!((event[a], event[b]), (Some(e), Some(f)) if x.contains(e, f));
                            if v.of(r.get(a, b)) != want {
                                self.mismatches.push(format!(
                                    "{name}: slots ({a}, {b}) (events {:?}, {:?}) formula {} engine {want}; {at}",
                                    event[a],
                                    event[b],
                                    !want
                                ));
                            }
                        }
                    }
                }
                (_, None) => self
                    .mismatches
                    .push(format!("{name}: the engine has no value; {at}")),
                _ => self.mismatches.push(format!(
                    "{name}: a set on one side, a relation on the other"
                )),
            }
        }
        Ok(ControlFlow::Continue(()))
    }
}

/// The skeleton with its locations named in order of first access, as the
/// encoding names them (a barrier's nominal location is not one): the
/// same test.
fn normalized(shape: &Shape, ops: &[super::super::Op]) -> Shape {
    let mut names: Vec<usize> = Vec::new();
    let threads = shape
        .threads
        .iter()
        .map(|th| {
            th.iter()
                .map(|&(o, l)| {
                    if !ops[o].has_location() {
                        return (o, 0);
                    }
                    if !names.contains(&l) {
                        names.push(l);
                    }
                    (o, names.iter().position(|&x| x == l).unwrap_or(0))
                })
                .collect()
        })
        .collect();
    Shape {
        place: shape.place.clone(),
        threads,
    }
}

/// Two models loaded by name.
fn models(a: &str, b: &str) -> (LoadedModel, LoadedModel) {
    (
        crate::model::load(a).unwrap(),
        crate::model::load(b).unwrap(),
    )
}

/// The pair of `models` under the default options and limits.
fn pair_of((a, b): &(LoadedModel, LoadedModel)) -> Pair<'_> {
    Pair {
        a,
        b,
        options: Default::default(),
        limits: Limits::default(),
    }
}

/// What a mapping check borrows: the mapping read from a file's text and
/// the two models, under the default options.
struct MappingCase {
    options: crate::frontend::Options,
    mapping: crate::analysis::mapping::Mapping,
    imp: LoadedModel,
    spec: LoadedModel,
}

impl MappingCase {
    fn new(rows: &str, imp: &str, spec: &str) -> MappingCase {
        let options = crate::frontend::Options::default();
        let mapping = crate::analysis::mapping::read_mapping("rows.toml", rows, &options).unwrap();
        let (imp, spec) = models(imp, spec);
        MappingCase {
            options,
            mapping,
            imp,
            spec,
        }
    }

    /// The check under the default limits.
    fn checked(&self) -> mapping::Checked<'_> {
        mapping::Checked {
            mapping: &self.mapping,
            imp: &self.imp,
            spec: &self.spec,
            options: &self.options,
            limits: Limits::default(),
        }
    }
}

/// Every candidate of every `stride`-th skeleton of `bounds` (each size)
/// compared: the number of candidates compared.
fn compare(a: &str, b: &str, bounds: &DiffBounds, stride: usize) -> u64 {
    let models = models(a, b);
    let pair = pair_of(&models);
    let ops = bounds.vocabulary.ops();
    let mut queries: HashMap<(usize, Vec<(usize, usize)>), Query> = HashMap::new();
    let mut total = 0;
    for k in 1..=bounds.threads * bounds.events {
        for shape in skeletons(bounds, &ops, k).into_iter().step_by(stride) {
            let shape = normalized(&shape, &ops);
            let t = shape.threads.len();
            let q = queries.entry((t, shape.place.clone())).or_insert_with(|| {
                match Query::new(
                    &pair,
                    &ops,
                    t,
                    bounds.events,
                    bounds.locations,
                    &shape.place,
                    None,
                ) {
                    Ok(q) => q,
                    Err(NotAsked::Unsupported(why)) => panic!("{a}/{b}: {why}"),
                    Err(NotAsked::Stopped(_)) => panic!("{a}/{b}: stopped with no limit"),
                }
            });
            let text = shape.render("candidate", &ops, "", None);
            let program = pair.parse("candidate", &text).unwrap();
            let mut v = Compare {
                query: q,
                shape: &shape,
                candidates: 0,
                mismatches: Vec::new(),
            };
            let limits = pair.limits.reference().for_model(pair.a);
            explore(&program, pair.a, limits, &mut v).unwrap();
            assert!(
                v.mismatches.is_empty(),
                "{a}/{b} on\n{text}\n{}",
                v.mismatches[..v.mismatches.len().min(8)].join("\n")
            );
            total += v.candidates;
        }
    }
    total
}

fn bounds(threads: usize, events: usize, vocab: &str, scopes: &str, classes: usize) -> DiffBounds {
    DiffBounds {
        threads,
        events,
        locations: 2,
        vocabulary: Vocabulary::parse(vocab, scopes, classes).unwrap(),
        ..DiffBounds::default()
    }
}

#[test]
fn the_encodings_base_relations_are_the_engines_at_every_candidate() {
    let plain = bounds(2, 2, "plain,atomic,acqrel,avvis", "wg,dv", 1);
    let sem = bounds(2, 2, "semavvis,membar,device", "dv", 2);
    let three = bounds(3, 1, "atomic,acqrel,rmw", "sg,wg", 1);
    // Control barriers: up to three per thread (instances 0 to 2, threads
    // reaching different numbers of them), at two execution scopes, on
    // threads in one subgroup, one workgroup or two.
    let cbar = bounds(2, 3, "plain,cbar", "sg,wg", 1);
    let cbar3 = bounds(3, 2, "atomic,cbar", "wg,dv", 1);
    let cases: [(&str, &str, &DiffBounds, usize); 8] = [
        ("vulkan", "vulkan-nochains", &plain, 97),
        ("vulkan", "vulkan-dat3m", &sem, 37),
        ("vulkan-alloy-pre40", "vulkan-fr-asmo", &three, 7),
        ("opencl", "opencl-totalsc", &plain, 101),
        ("ptx", "vulkan", &three, 5),
        ("pops", "pops-noncoherent", &sem, 41),
        ("vulkan", "ptx", &cbar, 5),
        ("vulkan-dat3m", "opencl", &cbar3, 11),
    ];
    for (a, b, bound, stride) in cases {
        let n = compare(a, b, bound, stride);
        assert!(n > 100, "{a}/{b}: {n} candidates compared");
    }
}

/// The skeletons of a mapping check's bound (`check_mapping`'s).
fn mapping_bounds(threads: usize, events: usize, locations: usize) -> DiffBounds {
    DiffBounds {
        threads,
        events,
        locations,
        vocabulary: Vocabulary {
            scopes: vec!["wg".into()],
            classes: 1,
            families: vec!["plain".into()],
        },
        ..DiffBounds::default()
    }
}

/// The mapping check's question for `threads` threads at `place`.
fn mapping_query(
    k: &mapping::Checked,
    threads: usize,
    (events, locations): (usize, usize),
    place: &[(usize, usize)],
) -> Query {
    match Query::mapping(k, threads, events, locations, place, None, None) {
        Ok(q) => q,
        Err(NotAsked::Unsupported(why)) => panic!("{why}"),
        Err(NotAsked::Stopped(_)) => panic!("stopped with no limit"),
    }
}

/// Whether the source test of `shape` races under `spec` (the listing's
/// answer, `check --property races`).
fn source_races(m: &crate::analysis::mapping::Mapping, spec: &LoadedModel, shape: &Shape) -> bool {
    let (src, _) = crate::analysis::mapping::tests_of(m, shape, "filter");
    let p =
        crate::frontend::parse_text("filter.litmus", &src, m.source.format(), Default::default())
            .unwrap();
    let o = crate::analysis::litmus::check_litmus(
        "filter",
        &p,
        spec,
        Limits::default().for_model(spec),
        Some(crate::analysis::litmus::Property::Races),
    )
    .unwrap();
    o.holds(crate::analysis::litmus::Property::Races) == Some(false)
}

/// Message passing's Vulkan -> PTX rows (plain loads and stores, a
/// device-scope acquire load and release store), the acquire load compiled
/// to `acquire_load` (`ld.acquire.gpu` as NVIDIA documents, or a weaker
/// instruction to give the check violations to find).
fn message_passing_ptx(acquire_load: &str) -> MappingCase {
    let text = format!(
        r#"
source = "vulkan"
target = "ptx"
[[instruction]]
source = "ld.nonpriv.sc0 {{reg}}, {{loc}}"
target = ["ld.weak {{reg}}, [{{loc}}]"]
[[instruction]]
source = "st.nonpriv.sc0 {{loc}}, {{val}}"
target = ["st.weak [{{loc}}], {{val}}"]
[[instruction]]
source = "ld.atom.acq.dv.sc0.semsc0.semvis {{reg}}, {{loc}}"
target = ["{acquire_load} {{reg}}, [{{loc}}]"]
[[instruction]]
source = "st.atom.rel.dv.sc0.semsc0.semav {{loc}}, {{val}}"
target = ["st.release.gpu [{{loc}}], {{val}}"]
"#
    );
    MappingCase::new(&text, "ptx", "vulkan")
}

/// The race filter of a mapping check leaves out only racy source tests,
/// and more than it learned: message passing's Vulkan -> PTX rows (plain
/// accesses, a Device-scope release store and acquire load) on one
/// location, two threads in one workgroup, up to three events each. Every
/// racy test of at most three events is learned; then every skeleton of
/// four to six events that the filter alone (the skeleton's facts, the
/// pattern copy's, the patterns') leaves out is racy by the listing, and
/// some of them extend a learned test without being one.
#[test]
fn the_race_filter_leaves_out_only_racy_tests() {
    let case = message_passing_ptx("ld.acquire.gpu");
    let (k, m, spec) = (case.checked(), &case.mapping, &case.spec);
    let place = vec![(0, 0), (0, 1)];
    let mut q = mapping_query(&k, 2, (3, 1), &place);
    let ops = crate::analysis::mapping::ops_of(m);
    let bounds = mapping_bounds(2, 3, 1);
    let mine = |s: &Shape| s.place == place && s.threads.len() == 2;
    let mut learned = Vec::new();
    for n in 2..=3 {
        for shape in skeletons(&bounds, &ops, n).into_iter().filter(mine) {
            if source_races(m, spec, &shape)
                && q.learn_race(&k, &shape.place, &shape.threads)
                    .is_ok_and(|x| x)
            {
                learned.push(shape.threads.clone());
            }
        }
    }
    assert!(learned.len() > 3, "{} racy tests learned", learned.len());
    let (mut left_out, mut beyond) = (0, 0);
    for n in 4..=6 {
        for shape in skeletons(&bounds, &ops, n).into_iter().filter(mine) {
            let lits = q.shape_lits(&shape.place, &shape.threads).unwrap();
            let x = q.learner.as_mut().and_then(|l| l.0.copy.as_mut()).unwrap();
            match x.filter.solve(&q.c, &lits) {
                Answer::Unsat => {}
                Answer::Sat(_) => continue,
                Answer::Stopped => panic!("stopped with no limit"),
            }
            left_out += 1;
            assert!(
                source_races(m, spec, &shape),
                "left out, not racy: {:?}",
                shape.threads
            );
            let extends = learned.iter().any(|t: &Vec<Vec<(usize, usize)>>| {
                t.iter().zip(&shape.threads).all(|(a, b)| b.starts_with(a))
            });
            beyond += usize::from(extends);
        }
    }
    assert!(
        beyond > 0 && left_out >= beyond,
        "{left_out} left out, {beyond} extending a learned test"
    );
}

/// The mapping check's question against the explicit engine: for every
/// candidate execution of every `stride`-th source test of `threads x
/// events` over `rows` (a mapping file's text), the question's facts hold
/// at the candidate and its source side's base names are the engine's
/// (as `compare` checks `vkmm diff`'s). The candidates compared.
fn compare_mapping(
    rows: &str,
    (imp, spec): (&str, &str),
    (threads, events): (usize, usize),
    stride: usize,
) -> u64 {
    let case = MappingCase::new(rows, imp, spec);
    let (k, m, ms, options) = (case.checked(), &case.mapping, &case.spec, &case.options);
    let ops = crate::analysis::mapping::ops_of(m);
    let bounds = mapping_bounds(threads, events, 2);
    let mut queries: HashMap<(usize, Vec<(usize, usize)>), Query> = HashMap::new();
    let mut total = 0;
    for n in 1..=threads * events {
        for shape in skeletons(&bounds, &ops, n).into_iter().step_by(stride) {
            let shape = normalized(&shape, &ops);
            let t = shape.threads.len();
            let q = queries
                .entry((t, shape.place.clone()))
                .or_insert_with(|| mapping_query(&k, t, (events, 2), &shape.place));
            let (src, _) = crate::analysis::mapping::tests_of(m, &shape, "candidate");
            let program = crate::frontend::parse_text(
                "candidate.litmus",
                &src,
                m.source.format(),
                options.clone(),
            )
            .unwrap();
            let mut v = Compare {
                query: q,
                shape: &shape,
                candidates: 0,
                mismatches: Vec::new(),
            };
            explore(
                &program,
                ms,
                Limits::default().reference().for_model(ms),
                &mut v,
            )
            .unwrap();
            assert!(
                v.mismatches.is_empty(),
                "{spec} on\n{src}\n{}",
                v.mismatches[..v.mismatches.len().min(8)].join("\n")
            );
            total += v.candidates;
        }
    }
    total
}

/// The mapping question's source side at every candidate: the shipped
/// OpenCL -> Vulkan and Vulkan -> PTX rows (plain accesses, relaxed,
/// release and acquire atomics at two scopes, an exchange, a fence, the
/// control barrier), two threads of two events.
#[test]
fn the_mapping_encoding_is_the_engines_at_every_candidate() {
    for (file, models, stride) in [
        ("opencl-vulkan.toml", ("vulkan", "opencl"), 13),
        ("vulkan-ptx.toml", ("ptx", "vulkan"), 11),
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/mappings")
            .join(file);
        let rows = std::fs::read_to_string(path).unwrap();
        let n = compare_mapping(&rows, models, (2, 2), stride);
        assert!(n > 1000, "{file}: {n} candidates compared");
    }
}

/// Every skeleton the question proposes at each size, each blocked once
/// proposed (so the whole set of skeletons with a disagreeing execution),
/// after sweeping first when `swept`: the equalities proven.
fn proposals(pair: &Pair, bounds: &DiffBounds, swept: bool) -> (Swept, Vec<Vec<Shape>>) {
    let ops = bounds.vocabulary.ops();
    let place = vec![(0, 0), (1, 0)];
    let mut q = match Query::new(pair, &ops, 2, bounds.events, bounds.locations, &place, None) {
        Ok(q) => q,
        Err(_) => panic!("the question is asked"),
    };
    let proved = if swept {
        q.sweep().unwrap_or_else(|_| panic!("no limit"))
    } else {
        Swept::default()
    };
    let mut sizes = Vec::new();
    for k in 1..=2 * bounds.events {
        let mut found = Vec::new();
        while let Some((shape, chosen)) = q.next(k).unwrap_or_else(|_| panic!("no limit")) {
            q.block(&chosen);
            found.push(shape);
        }
        found.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        sizes.push(found);
    }
    (proved, sizes)
}

/// The sweep adds only equalities the facts imply: a question swept before
/// its first size proposes, size by size, exactly the skeletons the same
/// question proposes unswept, on a pair that agrees on the bound
/// (`vulkan` / `vulkan-nochains` at two threads) and on one that differs
/// (`vulkan` / `vulkan-dat3m`: CoWW-RR's four events and what holds it);
/// and it proves equalities on both (the models share most of their
/// rules, written alike but built as different formulas).
#[test]
fn the_sweep_keeps_every_answer() {
    let cases = [
        (
            "vulkan",
            "vulkan-nochains",
            bounds(2, 2, "plain,atomic,acqrel,avvis", "wg,dv", 1),
            false,
        ),
        (
            "vulkan",
            "vulkan-dat3m",
            bounds(2, 2, "plain,atomic", "dv", 1),
            true,
        ),
    ];
    // `differ`: whether the pair differs on the bound (CoWW-RR).
    for (a, b, bound, differ) in cases {
        let models = models(a, b);
        let pair = pair_of(&models);
        let (_, plain) = proposals(&pair, &bound, false);
        let (proved, swept) = proposals(&pair, &bound, true);
        assert!(
            proved.structural + proved.proved > 0,
            "{a}/{b}: the sweep proved nothing: {proved:?}"
        );
        assert_eq!(plain, swept, "{a}/{b}");
        if differ {
            assert!(
                swept.iter().any(|s| !s.is_empty()),
                "{a}/{b}: no difference proposed"
            );
        }
    }
}

/// The sweep substitutes what it finds equal: `vulkan` and
/// `vulkan-nochains` agree on every execution of two threads in one
/// workgroup (a chain of more than one element needs a third invocation;
/// docs/synthesis.md's table finds no difference at two threads up to 4
/// events each), and at 2 x 2 every name's entries, rebuilt over operands
/// found equal, end in the same checks, so the rebuilt difference is the
/// constant false; some pairs are equal by structure once their operands
/// are substituted, with no proof. (Without the substitution the
/// difference stays the formula it was built as.)
#[test]
fn the_sweep_rebuilds_an_agreeing_difference_to_false() {
    let models = models("vulkan", "vulkan-nochains");
    let pair = pair_of(&models);
    let bound = bounds(2, 2, "plain,atomic,acqrel,avvis", "wg,dv", 1);
    let ops = bound.vocabulary.ops();
    let place = vec![(0, 0), (0, 1)];
    let mut q = match Query::new(&pair, &ops, 2, bound.events, bound.locations, &place, None) {
        Ok(q) => q,
        Err(_) => panic!("the question is asked"),
    };
    assert_eq!(
        q.differ.constant(),
        None,
        "the difference is built as a formula"
    );
    let swept = q.sweep().unwrap_or_else(|_| panic!("no limit"));
    assert!(swept.structural > 0, "{swept:?}");
    assert_eq!(q.differ, Lit::FALSE, "{swept:?}");
    assert_eq!(q.next(4).unwrap_or_else(|_| panic!("no limit")), None);
}

/// Every skeleton a mapping question at `place` proposes at each size, each
/// blocked once proposed, with every schedule's copy of the specification
/// asserted from the start when `eager`; and how many of the lazy copies
/// the question asserted on the way.
fn mapping_proposals(
    k: &mapping::Checked,
    place: &[(usize, usize)],
    (events, locations): (usize, usize),
    eager: bool,
) -> (Vec<Vec<Shape>>, usize) {
    let mut q = mapping_query(k, place.len(), (events, locations), place);
    let lazy = q.lazy.len();
    if eager {
        for l in std::mem::take(&mut q.lazy) {
            q.solver.assert(&q.c, l);
        }
    }
    let mut sizes = Vec::new();
    for n in 1..=place.len() * events {
        let mut found = Vec::new();
        while let Some((shape, chosen)) = q.next(n).unwrap_or_else(|_| panic!("no limit")) {
            q.block(&chosen);
            found.push(shape);
        }
        found.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        sizes.push(found);
    }
    (sizes, lazy - q.lazy.len())
}

/// The schedules' copies asserted only once an answer breaks them keep
/// every answer: a mapping question proposes, size by size, exactly the
/// skeletons the same question proposes with every copy asserted from the
/// start. On the Vulkan -> PTX rows with the acquire load compiled to a
/// relaxed one (message passing then breaks, `mapping_ptx.rs`), two
/// threads of two events in two workgroups: the question proposes
/// violating tests, and racy tests that only a schedule shows racy (the
/// lazy question asserts copies on the way).
#[test]
fn the_lazy_schedules_keep_every_answer() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/mappings/vulkan-ptx-nobarrier.toml");
    let rows = std::fs::read_to_string(path)
        .unwrap()
        .replace("ld.acquire.gpu {reg}", "ld.relaxed.gpu {reg}");
    let case = MappingCase::new(&rows, "ptx", "vulkan");
    let k = case.checked();
    let place = [(0, 0), (1, 0)];
    let (eager, _) = mapping_proposals(&k, &place, (2, 2), true);
    let (lazy, asserted) = mapping_proposals(&k, &place, (2, 2), false);
    let total = mapping_query(&k, 2, (2, 2), &place).lazy.len();
    assert!(asserted > 0, "{asserted} of {total} copies asserted");
    assert!(eager.iter().any(|s| !s.is_empty()), "nothing proposed");
    assert_eq!(eager, lazy);
}

/// The thread order of a placement's skeletons: the exchanges that keep
/// it, by hand. Three threads in three workgroups: both; two sharing a
/// workgroup (in subgroups of their own) and one alone: the two sharing
/// it; one workgroup with the first two in one subgroup: the first pair
/// only (thread 2 shares the first two's workgroup but not their subgroup,
/// so exchanging 1 and 2 changes which threads share a subgroup).
#[test]
fn the_thread_exchanges_that_keep_a_placement() {
    assert_eq!(mapping::swaps(&[(0, 0), (1, 0), (2, 0)]), vec![0, 1]);
    assert_eq!(mapping::swaps(&[(0, 0), (0, 1), (1, 0)]), vec![0]);
    assert_eq!(
        mapping::swaps(&[(0, 0), (1, 0), (0, 1)]),
        Vec::<usize>::new()
    );
    assert_eq!(mapping::swaps(&[(0, 0), (0, 0), (0, 1)]), vec![0]);
    assert_eq!(mapping::swaps(&[(0, 0), (0, 0), (0, 0)]), vec![0, 1]);
}

/// The shapes a mapping check asks at a placement, by hand: the events
/// per thread (one to three each, five in all) that do not increase
/// across an exchange keeping the placement. Three workgroups (both
/// exchanges): 2, 2, 1 and 3, 1, 1. Two threads sharing a workgroup and
/// one apart (the first exchange): the first two counts not increasing,
/// the third free: 1, 1, 3; 2, 1, 2; 2, 2, 1; 3, 1, 1. No exchange: all
/// six arrangements of 3, 1, 1 and 2, 2, 1. No shape of seven events at
/// two threads of three.
#[test]
fn the_event_counts_asked_at_a_placement() {
    assert_eq!(
        mapping::count_vectors(&[(0, 0), (1, 0), (2, 0)], 3, 5),
        vec![vec![2, 2, 1], vec![3, 1, 1]]
    );
    assert_eq!(
        mapping::count_vectors(&[(0, 0), (0, 1), (1, 0)], 3, 5),
        vec![vec![1, 1, 3], vec![2, 1, 2], vec![2, 2, 1], vec![3, 1, 1]]
    );
    assert_eq!(
        mapping::count_vectors(&[(0, 0), (1, 0), (0, 1)], 3, 5).len(),
        6
    );
    assert!(mapping::count_vectors(&[(0, 0), (1, 0)], 3, 7).is_empty());
}

/// The symmetry classes (least keys) of every skeleton `q` proposes at
/// size `n`, each blocked once proposed.
fn classes(q: &mut Query, n: usize) -> std::collections::BTreeSet<super::super::Key> {
    let mut out = std::collections::BTreeSet::new();
    while let Some((shape, chosen)) = q.next(n).unwrap_or_else(|_| panic!("no limit")) {
        q.block(&chosen);
        out.insert(super::super::least_key(&shape));
    }
    out
}

/// The questions of one shape (the events per thread fixed, every slot's
/// presence a constant, the schedules that coincide asked once, threads of
/// one count ordered) against the question of the whole placement they
/// replace (presence variables, every schedule, every exchange ordered):
/// size by size, the symmetry classes of the skeletons they propose are
/// the same. Message passing's Vulkan -> PTX rows with the acquire load
/// compiled to a relaxed one (violations to find, `mapping_ptx.rs`), three
/// threads of up to two events on two locations, at the placement with two
/// exchanges (three workgroups) and, in the full tier, the one with one.
#[test]
fn the_questions_of_each_shape_propose_what_the_whole_question_does() {
    let case = message_passing_ptx("ld.relaxed.gpu");
    let k = case.checked();
    let (events, locations) = (2, 2);
    let mut proposed = 0;
    let mut places = vec![vec![(0, 0), (1, 0), (2, 0)]];
    if cfg!(feature = "slow-tests") {
        places.push(vec![(0, 0), (0, 1), (1, 0)]);
    }
    for place in places {
        let mut whole = mapping_query(&k, 3, (events, locations), &place);
        for n in 3..=3 * events {
            let mut split = std::collections::BTreeSet::new();
            for counts in mapping::count_vectors(&place, events, n) {
                let mut q =
                    match Query::mapping(&k, 3, events, locations, &place, Some(&counts), None) {
                        Ok(q) => q,
                        Err(_) => panic!("the question is asked"),
                    };
                split.extend(classes(&mut q, n));
            }
            let all = classes(&mut whole, n);
            proposed += all.len();
            assert_eq!(all, split, "{place:?}, {n} events");
        }
    }
    assert!(proposed > 0, "nothing proposed");
}
