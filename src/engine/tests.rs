use super::{Limits, Skeleton};
use crate::cat::Value;
use crate::frontend::alloy_test::parse;
use std::ops::ControlFlow;

fn skeleton(text: &str) -> Skeleton {
    Skeleton::straight_line(&parse("t.test", text).unwrap(), Limits::default()).unwrap()
}

/// The number of combinations of paths the walk makes skeletons of.
fn combinations(explorer: &super::Explorer) -> usize {
    let mut seen = 0;
    explorer
        .for_each(|_| -> Result<ControlFlow<()>, super::ExecError> {
            seen += 1;
            Ok(ControlFlow::Continue(()))
        })
        .unwrap();
    seen
}

fn rel(env: &crate::cat::Env, name: &str) -> Vec<(usize, usize)> {
    match env.get(name) {
        Some(Value::Rel(r)) => r.pairs().collect(),
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn reads_from_follows_pinned_values() {
    let s = skeleton(
        "NEWTHREAD\nst.sc0 x = 1\nst.sc0 x = 2\nNEWTHREAD\nld.sc0 x = 2\nld.sc0 x\nld.sc0 x = 0\nld.sc0 x = 7\n",
    );
    assert_eq!(s.reads, vec![2, 3, 4, 5]);
    assert_eq!(s.rf_choices[0], vec![Some(1)]);
    assert_eq!(s.rf_choices[1], vec![None, Some(0), Some(1)]);
    assert_eq!(s.rf_choices[2], vec![None]);
    assert!(s.rf_choices[3].is_empty(), "no write of 7: no execution");
    assert_eq!(s.candidate_count(), 0);
    let mut n = 0;
    s.for_each(|_| {
        n += 1;
        ControlFlow::Continue(())
    });
    assert_eq!(n, 0);
}

#[test]
fn reads_from_crosses_references_of_one_location() {
    let s = skeleton("NEWTHREAD\nst.sc0 x = 1\nNEWTHREAD\nld.sc0 y = 1\nSLOC x y\n");
    assert_eq!(s.rf_choices[0], vec![Some(0)]);
}

#[test]
fn an_rmw_never_reads_itself() {
    let s = skeleton("NEWTHREAD\nrmw.scopedev.sc0 x = 1 1\n");
    assert!(s.rf_choices[0].is_empty());
}

#[test]
fn scoped_modification_orders_are_total_on_mutually_ordered_writes() {
    let s = skeleton(
        "NEWWG\nNEWTHREAD\nst.atom.scopedev.sc0 x = 1\nNEWWG\nNEWTHREAD\nst.atom.scopedev.sc0 x = 2\nNEWWG\nNEWTHREAD\nst.atom.scopedev.sc0 x = 3\n",
    );
    assert_eq!(s.mo_choices.len(), 1);
    assert_eq!(s.mo_choices[0].len(), 6, "3! total orders");
    for (_, o) in &s.mo_choices[0] {
        assert_eq!(o.count(), 3);
        assert!(o.is_transitive() && o.is_acyclic());
    }
}

#[test]
fn writes_out_of_each_others_scope_are_unordered() {
    // Two workgroup-scope writes in different workgroups are not mutually
    // ordered; a device-scope write is mutually ordered with both, but an order
    // relating only those pairs must stay transitive.
    let s = skeleton(
        "NEWWG\nNEWTHREAD\nst.atom.scopewg.sc0 x = 1\nNEWWG\nNEWTHREAD\nst.atom.scopewg.sc0 x = 2\n",
    );
    assert_eq!(s.mo_choices[0].len(), 1);
    assert!(s.mo_choices[0][0].1.is_empty());
    let s = skeleton(
        "NEWWG\nNEWTHREAD\nst.atom.scopewg.sc0 x = 1\nst.atom.scopedev.sc0 x = 3\nNEWWG\nNEWTHREAD\nst.atom.scopewg.sc0 x = 2\n",
    );
    // mutually ordered pairs: (0,1) same workgroup; (1,2)? 2 is wg-scope in
    // another workgroup: not in its instance. So only {0,1} are ordered.
    assert_eq!(s.mo_choices[0].len(), 2);
    for (_, o) in &s.mo_choices[0] {
        assert_eq!(o.count(), 1);
    }
}

#[test]
fn total_coherence_orders_every_write_and_restricts_asmo() {
    // Two workgroup-scope atomic writes in different workgroups and a plain
    // write: `co` totally orders all three (3! choices); `asmo` keeps none of
    // their pairs (out of scope, or not atomic).
    let p = parse(
        "t.test",
        "NEWWG\nNEWTHREAD\nst.atom.scopewg.sc0 x = 1\nst.sc0 x = 3\nNEWWG\nNEWTHREAD\nst.atom.scopewg.sc0 x = 2\n",
    )
    .unwrap();
    let limits = Limits {
        profile: crate::model::SearchProfile {
            total_co: true,
            sc_order: false,
            interlock_order: false,
            rmw_atomicity: false,
            read_write_coherence: false,
            write_write_coherence: false,
            co_write_write_coherence: 0,
            await_extension: false,
            location_local_reads: false,
            latest_own_write: 0,
            po_coherence: 0,
            po_coherence_atomic: false,
        },
        ..Limits::default()
    };
    let s = Skeleton::straight_line(&p, limits).unwrap();
    assert_eq!(s.mo_choices[0].len(), 6);
    for (co, asmo) in &s.mo_choices[0] {
        assert_eq!(co.count(), 3);
        assert!(co.is_transitive());
        assert!(asmo.is_empty());
    }
}

#[test]
fn different_references_are_never_mutually_ordered() {
    let s = skeleton(
        "NEWTHREAD\nst.atom.scopedev.sc0 x = 1\nNEWTHREAD\nst.atom.scopedev.sc0 y = 2\nSLOC x y\n",
    );
    assert_eq!(s.mo_choices[0].len(), 1);
    assert!(s.mo_choices[0][0].1.is_empty());
}

#[test]
fn candidates_bind_dynamic_names() {
    let s = skeleton(
        "NEWTHREAD\nst.atom.scopedev.sc0 x = 1\nNEWTHREAD\nst.atom.scopedev.sc0 x = 2\nNEWTHREAD\nld.atom.scopedev.sc0 x\n",
    );
    assert_eq!(s.candidate_count(), 3 * 2);
    let mut seen = Vec::new();
    s.for_each(|c| {
        let rf = rel(&c.env, "rf");
        let mo = rel(&c.env, "asmo");
        assert_eq!(mo, rel(&c.env, "co"));
        let init = match c.env.get("RFINIT") {
            Some(Value::Set(s)) => s.iter().collect::<Vec<_>>(),
            _ => panic!(),
        };
        assert_eq!(rf.len() + init.len(), 1, "the read reads exactly once");
        seen.push((rf, mo));
        ControlFlow::Continue(())
    });
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 6);
}

#[test]
fn static_relations() {
    let s = skeleton(
        "NEWQF\nNEWWG\nNEWSG\nNEWTHREAD 0\nst.sc0 x = 1\ncbar.scopewg 4\nNEWTHREAD 1\ncbar.scopewg 4\nNEWWG\nNEWTHREAD 2\nld.sc1 x\nSSW 0 2\n",
    );
    let env = &s.static_env;
    assert_eq!(rel(env, "po"), vec![(0, 1)]);
    assert!(rel(env, "ssg").contains(&(1, 2)));
    assert!(!rel(env, "swg").contains(&(2, 3)));
    assert!(rel(env, "sqf").contains(&(0, 3)));
    assert_eq!(rel(env, "ssw"), vec![(0, 3), (1, 3)]);
    assert_eq!(rel(env, "scbarinst"), vec![(1, 1), (1, 2), (2, 1), (2, 2)]);
    assert_eq!(rel(env, "sloc"), vec![(0, 0), (0, 3), (3, 0), (3, 3)]);
    match env.get("SC1") {
        Some(Value::Set(s)) => assert_eq!(s.iter().collect::<Vec<_>>(), vec![3]),
        _ => panic!(),
    }
    for k in 0..4 {
        assert!(env.get(&format!("SEMSC{k}")).is_some());
    }
}

#[test]
fn too_many_writes_is_an_error_not_a_hang() {
    let mut t = String::from("NEWTHREAD\n");
    for i in 0..9 {
        t.push_str(&format!("st.atom.scopedev.sc0 x = {i}\n"));
    }
    let p = parse("t.test", &t).unwrap();
    let e = Skeleton::straight_line(&p, Limits::default())
        .err()
        .unwrap();
    assert!(e.message.contains("9 atomic writes"), "{}", e.message);
}

#[test]
fn sc_orders_are_total_orders_of_the_seq_cst_events() {
    let mut p = parse(
        "t.test",
        "NEWWG\nNEWTHREAD\nst.atom.scopedev.sc0 x = 1\nld.atom.scopedev.sc0 y\nNEWWG\nNEWTHREAD\nst.atom.scopedev.sc0 y = 1\nld.atom.scopedev.sc0 x\n",
    )
    .unwrap();
    // no seq_cst operation: one (empty) SC order
    let s = Skeleton::straight_line(&p, Limits::default()).unwrap();
    assert_eq!(s.sco_choices.len(), 1);
    assert!(s.sco_choices[0].is_empty());
    // mark three of the four accesses seq_cst: 3! orders, each total on them
    for (t, k) in [(0, 0), (0, 1), (1, 0)] {
        if let crate::ir::Stmt::Op(i) = &mut p.threads[t].code[k] {
            i.semantics.seq_cst = true;
        }
    }
    let s = Skeleton::straight_line(&p, Limits::default()).unwrap();
    assert_eq!(s.sco_choices.len(), 6);
    for o in &s.sco_choices {
        assert_eq!(o.count(), 3);
        assert!(o.is_transitive() && o.is_acyclic());
        assert!(
            o.pairs().all(|(a, b)| a != 3 && b != 3),
            "event 3 is not seq_cst"
        );
    }
    assert_eq!(s.candidate_count() % 6, 0);
    let mut seen = 0;
    s.for_each(|c| {
        assert!(c.env.get("sco").is_some());
        seen += 1;
        ControlFlow::Continue(())
    });
    assert_eq!(seen as u128, s.candidate_count());
}

/// The engine binds exactly the registered base names, each of its
/// registered kind, static ones once per skeleton and dynamic ones per
/// candidate.
#[test]
fn environments_bind_the_registered_names() {
    use super::names::{BASE_NAMES, Kind, Stage, lookup};
    let s = skeleton("NEWTHREAD\nst.atom.scopedev.sc0 x = 1\nNEWTHREAD\nld.atom.scopedev.sc0 x\n");
    let check = |env: &crate::cat::Env, stage: Stage| {
        let bound: Vec<&str> = env.names().collect();
        for name in &bound {
            let b = lookup(name).unwrap_or_else(|| panic!("`{name}` is not registered"));
            assert_eq!(b.stage, stage, "{name}");
            let kind = match env.get(name) {
                Some(Value::Set(_)) => Kind::Set,
                Some(Value::Rel(_)) => Kind::Relation,
                other => panic!("{name}: {other:?}"),
            };
            assert_eq!(b.kind, kind, "{name}");
        }
        for b in BASE_NAMES.iter().filter(|b| b.stage == stage) {
            assert!(
                bound.iter().any(|n| b.matches(n)),
                "`{}` is not bound",
                b.name
            );
        }
    };
    check(&s.static_env, Stage::Static);
    let mut candidates = 0;
    s.for_each(|c| {
        candidates += 1;
        check(&c.env, Stage::Dynamic);
        ControlFlow::Continue(())
    });
    assert!(candidates > 0);
}

#[test]
fn the_walk_over_combinations_of_paths_reads_the_time_limit() {
    // Two threads of two paths each: four combinations. With the budget
    // spent (a zero time limit set after the paths were enumerated), the
    // walk stops before the first one and says which limit stopped it.
    let program = crate::frontend::vulkan_litmus::parse(
        "t.litmus",
        "VULKAN t\n{\nx=0;\n}\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n \
         ld.atom.dv.sc0 r0, x | st.atom.dv.sc0 x, 1 ;\n bne r0, 0, L | ld.atom.dv.sc0 r1, x ;\n \
         st.atom.dv.sc0 x, 2 | bne r1, 0, M ;\n L: | st.atom.dv.sc0 x, 3 ;\n  | M: ;\n\
         exists (x == 1)\n",
    )
    .unwrap();
    let mut explorer = super::Explorer::new(&program, Limits::default()).unwrap();
    let seen = combinations(&explorer);
    assert!(seen > 0);
    assert_eq!(explorer.skipped(), None);
    let spent = Limits {
        bounds: crate::engine::Bounds {
            timeout: Some(std::time::Duration::ZERO),
            ..Default::default()
        },
        ..Limits::default()
    };
    explorer.budget = super::trace::Budget::new(&spent);
    // The budget is read once every BUDGET_EVERY steps: walk enough.
    let mut seen_after = 0;
    for _ in 0..super::trace::BUDGET_EVERY {
        explorer
            .for_each(|_| -> Result<ControlFlow<()>, super::ExecError> {
                seen_after += 1;
                Ok(ControlFlow::Continue(()))
            })
            .unwrap();
        if explorer.skipped().is_some() {
            break;
        }
    }
    assert_eq!(explorer.skipped(), Some(super::LimitKind::Timeout));
    assert!(seen_after < seen * super::trace::BUDGET_EVERY as usize);
}

/// The walk over combinations of paths counts RMW reads on RMW-chain
/// locations (`Explorer::block_pruned`): in a 3-thread ticket lock each
/// thread's fetch-add of `next` reads 0, 1 or 2 (one path each), and each
/// write of a value (or the initial 0) can be read by one mutually-ordered
/// RMW only, so only the 3! combinations giving distinct tickets are
/// skeletons. Without the RMW filter (or with every search lever off) the
/// combinations whose reads are merely available are built too (they have
/// no order of `next`, hence no candidate).
#[test]
fn combinations_whose_rmws_cannot_chain_are_not_built() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-scaling/ticketlock-3.litmus");
    let program = crate::frontend::load(&path).unwrap();
    let model = crate::model::load("vulkan").unwrap();
    let count = |limits: Limits| {
        combinations(&super::Explorer::new(&program, limits.for_model(&model)).unwrap())
    };
    assert_eq!(count(Limits::default()), 6);
    let unfiltered = count(Limits::default().with(crate::engine::Reduction::RmwFilter, false));
    assert!(unfiltered > 6, "{unfiltered}");
}

/// A bump allocator: `mem[atomicAdd(mem[0], 1) + 4] = 7` by three
/// invocations. The store through the runtime index is a chain of
/// branches over every cell, `mem[0]` included, a branch no path takes
/// (the index is at least 4). The RMW chains are those of the walk's
/// paths, so the counter's stays one: the three increments read 0, 1
/// and 2 once each, in one of 3! = 6 combinations, and a combination
/// where two of them read one value (no execution under RMW atomicity)
/// is not built. Counted over the program's instructions, the plain
/// store to `mem[0]` broke the chain and every combination of the
/// increments' values was built.
#[test]
fn rmw_chains_are_those_of_the_paths_walked() {
    let text = "#version 450
layout(local_size_x = 3) in;
layout(set = 0, binding = 0) buffer B { uint mem[8]; };
void main() {
    uint a = atomicAdd(mem[0], 1u) + 4u;
    mem[a] = 7u;
}
";
    let program = crate::frontend::parse_text(
        "bump.comp",
        text,
        crate::frontend::Format::Glsl,
        Default::default(),
    )
    .unwrap();
    // The branch chain holds a plain store to the counter's location.
    let counter = (0..program.locations.len())
        .find(|&l| {
            program.threads[0]
                .instructions()
                .any(|i| i.atomic && program.location_of(i) == Some(l))
        })
        .unwrap();
    assert!(
        program.threads[0]
            .instructions()
            .any(|i| { !i.atomic && i.is_write() && program.location_of(i) == Some(counter) })
    );
    let model = crate::model::load("vulkan").unwrap();
    let count = |limits: Limits| {
        combinations(&super::Explorer::new(&program, limits.for_model(&model)).unwrap())
    };
    assert_eq!(count(Limits::default()), 6);
    // Without the RMW filter (no chains), the combinations of values are
    // all built: each increment reads any of 0, 1, 2 written by another.
    let unfiltered = count(Limits::default().with(crate::engine::Reduction::RmwFilter, false));
    assert!(unfiltered > 6, "{unfiltered}");
}

/// The spinning combinations skipped on partial combinations
/// (`engine::reduce::spin_extension`) against the test per complete combination it
/// replaces in the pruned walk (`SpinExtension::extends_to_complete`, kept
/// as the oracle): on every combination of every prefix block, with no thread
/// left to choose the two agree, and a partial combination (threads `t..`
/// chosen) said to extend only has completions the oracle skips. Not
/// vacuous: some partial combination of barrier-flags-3 is skipped whole
/// (its last thread released the flag: every spinner's need, `flag` = 1
/// and its neighbour's `x` = 1, holds whatever the others do), and the
/// files where a spinner's awaited value is missing or another value is
/// written have none.
#[test]
fn partial_spin_extension_agrees_with_the_complete_test() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = crate::model::load("vulkan").unwrap();
    let mut partial_skips = Vec::new();
    for file in [
        "tests/fixtures/litmus-scaling/barrier-flags-2.litmus",
        "tests/fixtures/litmus-scaling/barrier-flags-3.litmus",
        "tests/fixtures/litmus-scaling/ticketlock-3.litmus",
        "tests/fixtures/litmus-bound/spin-extends-race-free.litmus",
        "tests/fixtures/litmus-bound/spin-forever-race-free.litmus",
        "tests/fixtures/litmus-bound/spin-on-other-value-race.litmus",
        "tests/fixtures/litmus-bound/spin-unwritten-in-combination-race.litmus",
        "tests/fixtures/litmus-bound/race-before-endless-spin.litmus",
    ] {
        let program = crate::frontend::load(&dir.join(file)).unwrap();
        let limits = Limits::default().for_model(&model);
        let mut explorer = super::Explorer::new(&program, limits).unwrap();
        let complete: Vec<usize> = explorer.threads.iter().map(|t| t.paths.len()).collect();
        let blocks = explorer.prefix_blocks();
        explorer.set_spin_extension(true, &complete);
        let mut skips = 0;
        for block in &blocks {
            let Some(spin) = explorer.spin_extension() else {
                continue;
            };
            let sb = spin.block(&program, &explorer.threads, block);
            let n = block.len();
            let mut idx = vec![0usize; n];
            'all: loop {
                let chosen: Vec<usize> = (0..n).map(|t| block[t][idx[t]]).collect();
                let paths: Vec<&super::trace::Path> = chosen
                    .iter()
                    .enumerate()
                    .map(|(t, &k)| &explorer.threads[t].paths[k])
                    .collect();
                // (A combination whose values are not available never
                // reaches the end of the walk.)
                let available = explorer.values_available(&paths, None);
                let oracle = explorer.extends_to_complete(&chosen);
                if available {
                    assert_eq!(
                        spin.subtree_extends(&explorer.threads, &sb, block, &idx, 0),
                        oracle,
                        "{file} {chosen:?}"
                    );
                }
                for t in 1..n {
                    if spin.subtree_extends(&explorer.threads, &sb, block, &idx, t) {
                        skips += 1;
                        assert!(oracle || !available, "{file}: {chosen:?} from thread {t}");
                    }
                }
                for (d, i) in idx.iter_mut().enumerate() {
                    *i += 1;
                    if *i < block[d].len() {
                        continue 'all;
                    }
                    *i = 0;
                }
                break;
            }
        }
        partial_skips.push((file, skips));
    }
    let skips = |f: &str| {
        partial_skips
            .iter()
            .find(|(g, _)| g.ends_with(f))
            .unwrap()
            .1
    };
    assert!(skips("barrier-flags-3.litmus") > 0, "{partial_skips:?}");
    assert_eq!(skips("spin-on-other-value-race.litmus"), 0);
    assert_eq!(skips("spin-unwritten-in-combination-race.litmus"), 0);
}

/// The walks the driver makes over combinations of paths for `program`
/// (complete paths, then the prefix blocks with spinning combinations
/// that extend skipped), with or without the balances of RMW chains: the
/// partial combinations the balances alone dropped, the combinations
/// that reached the end of the walk, and the walk's nodes (complete walk
/// and prefix walk together, and the complete walk's alone).
fn driver_walks(
    program: &crate::ir::Program,
    model: &crate::model::LoadedModel,
    flow: bool,
) -> (Vec<Vec<usize>>, Vec<Vec<usize>>, u64, u64) {
    let limits = Limits::default()
        .for_model(model)
        .with(super::Reduction::ChainFlow, flow);
    let mut explorer = super::Explorer::new(program, limits).unwrap();
    combinations(&explorer);
    let complete_nodes = explorer.take_walk_nodes();
    let complete: Vec<usize> = explorer.threads.iter().map(|t| t.paths.len()).collect();
    let blocks = explorer.prefix_blocks();
    explorer.set_write_pruning(true);
    explorer.set_spin_extension(true, &complete);
    explorer
        .for_each_in(&blocks, |_| -> Result<ControlFlow<()>, super::ExecError> {
            Ok(ControlFlow::Continue(()))
        })
        .unwrap();
    let nodes = complete_nodes + explorer.take_walk_nodes();
    let (dropped, leaves) = explorer.flow_log.take();
    (dropped, leaves, nodes, complete_nodes)
}

/// The walk's nodes per file of `VKMM_WALK_FILES` (space-separated
/// paths), with and without the balances of RMW chains, to measure the
/// walk: `VKMM_WALK_FILES="..." cargo test --release --lib
/// walk_nodes_of_files -- --ignored --nocapture` (with
/// `VKMM_WALK_BALANCES_ONLY=1`, only the walk with the balances).
#[test]
#[ignore]
fn walk_nodes_of_files() {
    let model = crate::model::load("vulkan").unwrap();
    let files = std::env::var("VKMM_WALK_FILES").unwrap_or_default();
    for file in files.split_whitespace() {
        let program = crate::frontend::load(std::path::Path::new(file)).unwrap();
        let only = std::env::var("VKMM_WALK_BALANCES_ONLY").is_ok();
        for flow in [false, true].into_iter().filter(|&f| f || !only) {
            let (_, leaves, nodes, complete) = driver_walks(&program, &model, flow);
            println!(
                "{file} balances {flow}: {nodes} walk nodes ({complete} complete walk), {} combinations",
                leaves.len()
            );
        }
    }
}

/// The balances of RMW chains (`engine::reduce::chain_flow`) against the walk without
/// them (the oracle): on the complete walk and the walk over executions
/// stopping at the bound (prefix blocks, spinning combinations that
/// extend skipped, as the driver walks them) of small programs, the same
/// combinations reach the end of the walk in the same order, and no
/// partial combination the balances alone dropped has a completion among
/// them. Not vacuous: the balances drop partial combinations of the
/// barrier, the ticket lock and the mixed adds, and the walk is shorter.
#[test]
fn chain_balances_drop_only_combinations_without_completion() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = crate::model::load("vulkan").unwrap();
    let walk = |program: &crate::ir::Program, flow: bool| {
        let (dropped, leaves, nodes, _) = driver_walks(program, &model, flow);
        (dropped, leaves, nodes)
    };
    let mut dropped_in = Vec::new();
    for file in [
        "tests/fixtures/litmus-scaling/barrier-flags-2.litmus",
        "tests/fixtures/litmus-scaling/barrier-flags-3.litmus",
        "tests/fixtures/litmus-scaling/ticketlock-2.litmus",
        "tests/fixtures/litmus-scaling/ticketlock-3.litmus",
        "tests/fixtures/litmus-scaling/taslock-3.litmus",
        "tests/fixtures/litmus-vulkan/rmw-chain-mixed-adds.litmus",
        "tests/fixtures/litmus-vulkan/rmw-add-counter.litmus",
        "tests/fixtures/litmus-vulkan/rmw-exchange.litmus",
        "tests/fixtures/litmus-vulkan/spinlock-device.litmus",
        "tests/fixtures/litmus-vulkan/ttaslock-device.litmus",
        "tests/fixtures/litmus-vulkan/exchange-reads-own-write.litmus",
        "tests/fixtures/litmus-bound/rmw-chain-over-order-limit.litmus",
        "tests/fixtures/litmus-host/host-device-atomic-counter.litmus",
        "tests/fixtures/litmus-opencl/release-sequence-rmw.litmus",
    ] {
        let program = crate::frontend::load(&dir.join(file)).unwrap();
        let (none, oracle, all_nodes) = walk(&program, false);
        assert!(none.is_empty());
        let (dropped, leaves, nodes) = walk(&program, true);
        assert_eq!(leaves, oracle, "{file}: the same combinations, in order");
        for d in &dropped {
            let under =
                |leaf: &Vec<usize>| leaf.iter().zip(d).all(|(&a, &b)| b == usize::MAX || a == b);
            assert!(
                !oracle.iter().any(under),
                "{file}: {d:?} dropped, has a completion"
            );
        }
        assert!(nodes <= all_nodes, "{file}: {nodes} > {all_nodes}");
        dropped_in.push((file, dropped.len(), nodes, all_nodes));
    }
    let dropped = |f: &str| dropped_in.iter().find(|d| d.0.ends_with(f)).unwrap();
    // Increments of one constant (a ticket counter, a barrier's arrival
    // counter) never read the last value (`trace::counters`): their paths
    // leave chain flow nothing to drop; increments of several constants
    // are chain flow's.
    for f in ["barrier-flags-3.litmus", "ticketlock-3.litmus"] {
        let (_, n, nodes, all) = *dropped(f);
        assert!(n == 0 && nodes == all, "{dropped_in:?}");
    }
    let (_, n, nodes, all) = *dropped("rmw-chain-mixed-adds.litmus");
    assert!(n > 0 && nodes < all, "{dropped_in:?}");
}

/// Every combination of one path per thread of `program` (at most
/// `bound`, in the order of an odometer over the threads' paths).
fn path_combinations(program: &crate::ir::Program, bound: usize) -> Vec<Vec<super::trace::Path>> {
    let limits = Limits::default();
    let threads = super::trace::explore(program, &limits, super::PathPlan::of(&limits)).unwrap();
    let mut out = Vec::new();
    let mut ids = vec![0; threads.len()];
    if threads.iter().any(|t| t.paths.is_empty()) {
        return out;
    }
    while out.len() < bound {
        out.push(
            ids.iter()
                .enumerate()
                .map(|(t, &k)| threads[t].paths[k].clone())
                .collect(),
        );
        let mut t = 0;
        loop {
            if t == ids.len() {
                return out;
            }
            ids[t] += 1;
            if ids[t] < threads[t].paths.len() {
                break;
            }
            ids[t] = 0;
            t += 1;
        }
    }
    out
}

/// The static environment and facts of a skeleton built through the
/// shape cache (`base::ShapeCache`, shared by the skeletons of one walk)
/// against those built afresh, on every combination of paths of programs
/// whose paths differ in read values only (the flag barrier of
/// tests/fixtures/litmus-scaling at 3 threads: 3! value assignments of the
/// counter, one shape per last arriver), in whether a compare-exchange
/// writes (the same statements; a key without `writes` would give the
/// failed one the successful one's `W`), in host and barrier events, and
/// in which cell a store through a runtime index writes (a bump
/// allocator: one statement per cell of the index's chain of branches, so
/// most combinations are shapes built from a template with the same
/// instructions at other cells). Twice over, so that the second pass
/// reads every shape from the cache.
#[test]
fn skeletons_built_through_the_shape_cache_equal_fresh_ones() {
    use super::base::{ShapeCache, static_env_cached};
    use crate::frontend::{Format, Options, parse_text};
    // Each invocation compares the lock word with 0 and exchanges 1 once,
    // then stores what it read: one statement sequence whether the
    // exchange succeeds (writes) or fails (only reads).
    let cas = "; @Input: %lock = {{0}}\n; @Input: %out = {{0}}\n\
        ; @Output: exists (%out[0] == 0)\n; @Config: 1, 1, 2\n\
        OpCapability Shader\nOpCapability VulkanMemoryModel\n\
        OpMemoryModel Logical Vulkan\n\
        OpEntryPoint GLCompute %main \"main\" %lock %out\n\
        OpExecutionMode %main LocalSize 1 1 1\n\
        OpDecorate %buf Block\nOpMemberDecorate %buf 0 Offset 0\n\
        OpDecorate %lock DescriptorSet 0\nOpDecorate %lock Binding 0\n\
        OpDecorate %out DescriptorSet 0\nOpDecorate %out Binding 1\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
        %uint = OpTypeInt 32 0\n\
        %uint_0 = OpConstant %uint 0\n%uint_1 = OpConstant %uint 1\n\
        %buf = OpTypeStruct %uint\n%pbuf = OpTypePointer StorageBuffer %buf\n\
        %puint = OpTypePointer StorageBuffer %uint\n\
        %lock = OpVariable %pbuf StorageBuffer\n%out = OpVariable %pbuf StorageBuffer\n\
        %device = OpConstant %uint 1\n%acq = OpConstant %uint 66\n%rlx = OpConstant %uint 0\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\n\
        %pl = OpAccessChain %puint %lock %uint_0\n\
        %po = OpAccessChain %puint %out %uint_0\n\
        %old = OpAtomicCompareExchange %uint %pl %device %acq %rlx %uint_1 %uint_0\n\
        OpStore %po %old\nOpReturn\nOpFunctionEnd\n";
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut programs = vec![
        (
            "barrier".to_string(),
            crate::frontend::load(&dir.join("litmus-scaling/barrier-flags-3.litmus")).unwrap(),
        ),
        (
            "cas".to_string(),
            parse_text("cas.spvasm", cas, Format::Spirv, Options::default()).unwrap(),
        ),
    ];
    // Each invocation takes a cell from an atomic counter and stores its
    // id there, then in the next cell: the cells written, and so the
    // locations of the two stores, follow the value the increment read.
    let bump = "@group(0) @binding(0) var<storage, read_write> next: atomic<u32>;\n\
        @group(0) @binding(1) var<storage, read_write> cells: array<u32, 8>;\n\
        @compute @workgroup_size(3)\n\
        fn main(@builtin(local_invocation_index) i: u32) {\n\
            let a = atomicAdd(&next, 2u);\n\
            cells[a] = i;\n\
            cells[a + 1u] = i + 1u;\n\
        }\n";
    programs.push((
        "bump".to_string(),
        parse_text("bump.wgsl", bump, Format::Wgsl, Options::default()).unwrap(),
    ));
    for f in [
        "litmus-host/copy-host-read.litmus",
        "litmus-host/event-reset-host-reuse.litmus",
    ] {
        programs.push((f.to_string(), crate::frontend::load(&dir.join(f)).unwrap()));
    }
    let mut failed_cas_shared = false;
    for (name, program) in &programs {
        let combos = path_combinations(program, 400);
        assert!(!combos.is_empty(), "{name}");
        let cache = ShapeCache::default();
        let mut keys = std::collections::HashMap::new();
        let mut ids = std::collections::HashMap::new();
        for pass in 0..2 {
            for combo in &combos {
                let paths: Vec<&super::trace::Path> = combo.iter().collect();
                let (ev1, env1, f1, id1) =
                    static_env_cached(program, &paths, Some(&cache)).unwrap();
                let (ev2, env2, f2, id2) = static_env_cached(program, &paths, None).unwrap();
                assert_ne!(id1, id2, "a fresh shape has a number of its own");
                let at = format!("{name}, pass {pass}, {:?}", ev1);
                assert_eq!(ev1, ev2, "{at}");
                assert!(env1.same_bindings(&env2), "{at}");
                assert_eq!(f1.location, f2.location, "{at}");
                assert_eq!(f1.reference, f2.reference, "{at}");
                assert_eq!(f1.is_read, f2.is_read, "{at}");
                assert_eq!(f1.is_write, f2.is_write, "{at}");
                assert_eq!(f1.atomic, f2.atomic, "{at}");
                assert_eq!(f1.seq_cst, f2.seq_cst, "{at}");
                assert_eq!(f1.read_value, f2.read_value, "{at}");
                assert_eq!(f1.write_value, f2.write_value, "{at}");
                assert_eq!(f1.derived, f2.derived, "{at}");
                assert_eq!(f1.initial_value, f2.initial_value, "{at}");
                assert_eq!(f1.inscope, f2.inscope, "{at}");
                // Statements alike, writes different: what the key's
                // `writes` tells apart.
                let stmts: Vec<(usize, usize)> = ev1.iter().map(|e| (e.thread, e.stmt)).collect();
                let writes: Vec<bool> = ev1.iter().map(|e| e.writes).collect();
                let seen = keys.entry(stmts.clone()).or_insert_with(|| writes.clone());
                failed_cas_shared |= *seen != writes;
                // One number per shape through the cache.
                let id = *ids.entry((stmts, writes)).or_insert(id1);
                assert_eq!(id, id1, "{at}");
            }
        }
        if name == "bump" {
            assert!(
                cache.relocated() > combos.len() / 2,
                "{name}: {} of {} combinations' shapes from a template",
                cache.relocated(),
                combos.len()
            );
        }
        if name == "barrier" {
            assert!(
                cache.len() < combos.len() / 2,
                "{name}: {} shapes for {} combinations",
                cache.len(),
                combos.len()
            );
        }
    }
    assert!(
        failed_cas_shared,
        "some combinations differ only in whether a compare-exchange writes"
    );
}

/// The listings up to each barrier spend their work from a share counted
/// in steps (and bytes allocated, where the counting allocator is
/// installed), not in time: on `middle.wgsl` the listings up to its
/// first to fourth barriers spend the same work under a time limit of an
/// hour and under none, run after run, and a share holding the first
/// three and half the fourth is spent exactly so, then to nothing (a
/// listing reads its share every `BUDGET_EVERY` steps, and these are
/// shorter). With 64 invocations the listing up to the fourth barrier
/// takes more steps than that, and under a share of one step it stops at
/// the share (`MaxExecutions`, the share being sized from
/// `--max-executions`) whatever the time limit.
#[test]
fn the_barrier_listings_share_of_work_stops_them_whatever_the_time() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/barrier-prefixes/middle.wgsl");
    let model = crate::model::load("vulkan").unwrap();
    let hour = Some(std::time::Duration::from_secs(3600));
    let limits_under = |timeout| {
        let mut limits = Limits::default().for_model(&model);
        limits.bounds.timeout = timeout;
        limits
    };
    // The work each listing up to barrier `k` spends from `share`, or its
    // error.
    let listings = |program: &crate::ir::Program,
                    timeout,
                    share: &std::sync::Arc<super::trace::Work>,
                    ks: std::ops::RangeInclusive<usize>| {
        let limits = limits_under(timeout);
        let listing = super::trace::Listing::of(program, &limits, super::PathPlan::of(&limits));
        ks.map(|k| {
            let before = share.left();
            super::Explorer::listed(&listing, limits, Some(k), Some(share.clone()))
                .map(|e| {
                    assert!(e.threads.iter().all(|t| t.waiting > 0));
                    before - share.left()
                })
                .map_err(|e| e.limit)
        })
        .collect::<Vec<_>>()
    };
    let program = crate::frontend::load(&file).unwrap();
    let spent_under = |timeout| {
        listings(&program, timeout, &super::trace::Work::new(u64::MAX), 1..=4)
            .into_iter()
            .map(Result::unwrap)
            .collect::<Vec<u64>>()
    };
    let spent = spent_under(None);
    assert!(spent.iter().all(|&w| w > 0), "{spent:?}");
    assert_eq!(spent, spent_under(hour));
    assert_eq!(spent, spent_under(None));
    let half = spent[3] / 2;
    for timeout in [None, hour] {
        let share = super::trace::Work::new(spent[..3].iter().sum::<u64>() + half);
        let first = listings(&program, timeout, &share, 1..=3);
        assert_eq!(first, spent[..3].iter().map(|&w| Ok(w)).collect::<Vec<_>>());
        assert_eq!(share.left(), half);
        assert_eq!(listings(&program, timeout, &share, 4..=4), [Ok(half)]);
        assert_eq!(share.left(), 0);
    }
    let wide = std::fs::read_to_string(&file)
        .unwrap()
        .replace("@workgroup_size(4)", "@workgroup_size(64)");
    let dir = std::env::temp_dir().join(format!("vkmm-listing-work-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wide_file = dir.join("wide.wgsl");
    std::fs::write(&wide_file, wide).unwrap();
    let program = crate::frontend::load(&wide_file).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let whole = listings(&program, None, &super::trace::Work::new(u64::MAX), 4..=4);
    assert!(
        whole[0].is_ok_and(|w| w > super::trace::BUDGET_EVERY),
        "{whole:?}"
    );
    for timeout in [None, hour] {
        let share = super::trace::Work::new(1);
        let stopped = listings(&program, timeout, &share, 4..=4);
        assert_eq!(stopped, [Err(Some(super::LimitKind::MaxExecutions))]);
        assert_eq!(share.left(), 0);
    }
}

/// The listing stopped at a barrier against the complete listing it
/// replaces: stopped at the first control barrier of the barrier-prefixes
/// fixture `separated.wgsl`, every invocation's paths wait there (it is
/// not the complete listing); stopped at a 64th, which no path of the
/// lowered shader reaches, no round stops a path, and its paths and cut prefixes are
/// the complete listing's, path for path, which the walk over complete
/// paths then takes (`Explorer::complete_under`).
#[test]
fn a_listing_no_barrier_stops_is_the_complete_listing() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/barrier-prefixes/separated.wgsl");
    let program = crate::frontend::load(&file).unwrap();
    let model = crate::model::load("vulkan").unwrap();
    let limits = Limits::default().for_model(&model);
    let listing = super::trace::Listing::of(&program, &limits, super::PathPlan::of(&limits));
    let complete = super::Explorer::new(&program, limits).unwrap();
    let first = super::Explorer::listed(&listing, limits, Some(1), None).unwrap();
    assert!(
        first
            .threads
            .iter()
            .all(|t| t.waiting > 0 && t.paths.is_empty())
    );
    assert!(first.complete_under(limits).is_none());
    let past = super::Explorer::listed(&listing, limits, Some(64), None).unwrap();
    assert!(past.threads.iter().all(|t| t.waiting == 0));
    let past = past.complete_under(limits).expect("no path stopped");
    assert_eq!(past.threads.len(), complete.threads.len());
    for (a, b) in past.threads.iter().zip(&complete.threads) {
        assert!(!a.paths.is_empty());
        assert_eq!(a.paths, b.paths);
        assert_eq!(a.cut_prefixes, b.cut_prefixes);
        assert_eq!(a.cut, b.cut);
    }
}

/// Records each skeleton's compact search key (`SearchKeys`) and its full
/// key (the oracle), and refuses the skeleton (no orders listed).
struct KeyRecorder {
    keys: super::SearchKeys,
    seen: Vec<(super::skeleton::FullSearchKey, super::SearchKey)>,
}

impl super::Visitor for KeyRecorder {
    fn wants(&mut self, sk: &Skeleton) -> bool {
        let listed = super::SearchKeys::listed(sk);
        assert_eq!(listed.is_some(), sk.full_search_key().is_some());
        if let (Some(full), Some(listed)) = (sk.full_search_key(), listed) {
            // A key found before its parts are entered is the key they
            // are entered under, and found after.
            let found = self.keys.find(sk, &listed);
            let key = self.keys.enter(sk, &listed).unwrap();
            assert!(found.is_none_or(|k| k == key));
            assert_eq!(self.keys.find(sk, &listed), Some(key.clone()));
            self.seen.push((full, key));
        }
        false
    }

    fn visit(
        &mut self,
        _: &Skeleton,
        _: &super::Candidate,
        _: &crate::cat::Evaluation,
    ) -> Result<ControlFlow<()>, super::CheckError> {
        unreachable!("every skeleton is refused")
    }
}

/// Two skeletons have equal compact search keys (`SearchKeys`: each
/// thread's events, registers and ending numbered in a table, the
/// initial values and domains too) exactly when their full keys (every
/// field the candidate search reads, cloned: the oracle) are equal. Over
/// the skeletons of termination walks (endings listed) at unroll 0, 1
/// and 2 of one table of parts, as the deepening makes them, on a
/// look-back loop: loops stuck or left, registers holding reads. Not vacuous:
/// the deeper bounds meet skeletons of the shallower ones again (equal
/// keys of distinct skeletons), and skeletons that share some thread's
/// part differ in another's.
#[test]
fn compact_search_keys_are_equal_exactly_when_full_ones_are() {
    let model = crate::model::load("vulkan").unwrap();
    // A look-back loop (registers holding a read and counting rounds)
    // against a writer.
    let look_back = "VULKAN look-back\n{ f=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n LC00: | st.atom.rel.dv.sc0.semsc0 f, 1 ;\n ld.atom.acq.dv.sc0.semsc0 r0, f | st.atom.rel.dv.sc0.semsc0 f, 2 ;\n add r9, r9, 1 | ;\n beq r0, 2, LC01 | ;\n beq r0, 0, LC00 | ;\n add r5, r0, 0 | ;\n goto LC00 | ;\n LC01: | ;\nexists (P0:r5 == 1)\n";
    let programs = [crate::frontend::parse_text(
        "look-back.litmus",
        look_back,
        crate::frontend::Format::VulkanLitmus,
        crate::frontend::Options::default(),
    )
    .unwrap()];
    for program in &programs {
        let mut rec = KeyRecorder {
            keys: super::SearchKeys::default(),
            seen: Vec::new(),
        };
        for unroll in 0..=2 {
            let mut limits = Limits::default().for_model(&model);
            limits.endings = true;
            limits.bounds.unroll = unroll;
            super::explore(program, &model, limits, &mut rec).unwrap();
        }
        let seen = &rec.seen;
        assert!(!seen.is_empty(), "{}", program.name);
        let (mut equal, mut shared_part) = (0, 0);
        for (i, (fa, ka)) in seen.iter().enumerate() {
            for (fb, kb) in &seen[..i] {
                assert_eq!(fa == fb, ka == kb, "{}: {ka:?} / {kb:?}", program.name);
                equal += usize::from(ka == kb);
                shared_part += usize::from(ka != kb && ka.shares_a_thread_with(kb));
            }
        }
        assert!(equal > 0, "{}: no skeleton met twice", program.name);
        assert!(shared_part > 0, "{}", program.name);
    }
}

/// The pruned walk's barrier check, which sums each dynamic instance up
/// in counts (`BarrierPruning::may_agree_in`), against the check that
/// lists each instance's arrivals (`may_agree_in_listed`, kept as the
/// oracle): on every combination of the threads' paths (endings listed,
/// as the termination search lists them, so paths end waiting at
/// barriers), from every thread `t` and every end `hi` of the threads
/// read, the two give the same verdict. Not vacuous: both verdicts are
/// met.
#[test]
fn the_barrier_check_by_counts_agrees_with_the_listed_one() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = crate::model::load("vulkan").unwrap();
    let (mut agree, mut refuse) = (0usize, 0usize);
    for file in [
        "tests/fixtures/litmus-scaling/barrier-flags-2.litmus",
        "tests/fixtures/litmus-scaling/barrier-flags-3.litmus",
        "tests/fixtures/barrier-prefixes/middle.wgsl",
        "tests/fixtures/barrier-prefixes/read-back.wgsl",
        "tests/fixtures/barrier-prefixes/clamped.wgsl",
        "tests/fixtures/barrier-prefixes/before-forks.wgsl",
    ] {
        let program = crate::frontend::load(&dir.join(file)).unwrap();
        for unroll in 0..=1 {
            let mut limits = Limits::default().for_model(&model);
            limits.endings = true;
            limits.bounds.unroll = unroll;
            let explorer = super::Explorer::new(&program, limits).unwrap();
            let check = super::reduce::BarrierPruning::of(&program, &explorer.threads);
            let n = explorer.threads.len();
            let sizes: Vec<usize> = explorer.threads.iter().map(|t| t.paths.len()).collect();
            if sizes.contains(&0) {
                continue;
            }
            // Every combination, up to a few thousand (past that, an
            // evenly spaced sample of their mixed-radix numbers).
            let total: usize = sizes.iter().fold(1usize, |a, &s| a.saturating_mul(s));
            let step = if total <= 4096 {
                1
            } else {
                total / 4096 * 2 + 1
            };
            let mut number = 0usize;
            while number < total {
                let mut rest = number;
                let chosen: Vec<usize> = sizes
                    .iter()
                    .map(|&s| {
                        let p = rest % s;
                        rest /= s;
                        p
                    })
                    .collect();
                for t in 0..=n {
                    for hi in t..=n {
                        let by_counts = check.may_agree_in(&chosen, t, hi);
                        let listed = check.may_agree_in_listed(&chosen, t, hi);
                        assert_eq!(
                            by_counts, listed,
                            "{file} unroll {unroll}: {chosen:?} {t}..{hi}"
                        );
                        if by_counts {
                            agree += 1;
                        } else {
                            refuse += 1;
                        }
                    }
                }
                number += step;
            }
        }
    }
    assert!(agree > 0 && refuse > 0, "{agree} / {refuse}");
}
