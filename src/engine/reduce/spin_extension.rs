//! Combinations of paths in which threads spin forever and that extend to
//! complete ones: the walk over executions in which some thread stops
//! (after a complete walk that finished) skips them ([`SpinExtension`]).
//!
//! A combination is skipped when its stopped threads all spin forever at
//! an await (no thread stops at the bound) and each of them extends, by
//! loads only, to one of its complete paths whose loads of a concrete
//! value can read a maximal write of that value: every write of the
//! combination to the location writes it, and there is one
//! ([`SpinExtension::extends_to_complete`]). The hook allows it where the
//! model declares `await-extension` and the program has no control
//! barriers, group functions, host threads or out-of-bounds sites (which
//! the argument below does not cover), and the walk is not the
//! termination search.
//!
//! Why that loses no race. The appendix: "Let X and Y be operations
//! that access overlapping sets of memory locations M, where X != Y,
//! and at least one of X and Y is a write, and X and Y are not
//! mutually-ordered atomic operations. If there does not exist a
//! location-ordered relation between X and Y for each location in M,
//! then there is a data race." Take a consistent execution E of the
//! skipped combination and append, after each spinning thread's last
//! event, the loads of its extension, each reading a write W of its
//! location that no write follows in scoped modification order or
//! location order (one exists: the two restricted to the location's
//! writes are acyclic in E, and there is a write; every such write
//! has the value the path needs). The result E' is an execution of
//! the complete paths, which the complete walk combined and searched.
//! E' is consistent: the model's axiom (vulkan-rules.cat) is that "no
//! cycles exist in the union of the following relations:
//! location-ordered, scoped modification order (over all atomic
//! writes), reads-from, from-reads", and no edge of that union leaves
//! an appended load L towards an event of E: reads-from and scoped
//! modification order leave only writes; from-reads leaves L only
//! towards a write after W in asmo or location order (none) or, had L
//! read the initial value, towards any write (L reads W); location
//! order out of L needs L to happen-before the other access, and
//! happens-before leaves a load that is neither a release nor a fence
//! nor a control barrier only through program order, which after L
//! holds only appended loads. So a cycle of E' would be one of E or
//! one among appended loads of one thread in program order: none. RMW
//! atomicity speaks of RMWs, which E' adds none of. The race pairs of
//! E stay those of E': location order between two events of E needs a
//! happens-before path between them, which cannot pass through an
//! appended load (nothing leaves it towards E), and mutual ordering is
//! a property of the two operations. So every race of E is a race of
//! E', which the complete walk reported first (the listing keys races
//! by the two instructions).
//!
//! # On partial combinations
//!
//! The walk over combinations of paths in which some thread stops
//! (`Explorer::prefix_blocks`) chooses the threads' paths the last thread
//! first (`Explorer::block_pruned`). At a partial combination (threads
//! `t..` chosen) [`SpinExtension::subtree_extends`] tells whether *every*
//! completion by the block's paths of threads `..t` is a combination
//! [`SpinExtension::extends_to_complete`] skips; the walk then skips the
//! partial combination with its whole subtree, without building it. The test is
//! that of a complete combination with the threads still to choose taken
//! at their worst:
//!
//! - every path of the block of every thread still to choose is complete
//!   or a spinning prefix that extends (a cut path that does not extend
//!   would make its completions walked);
//! - some thread spins: a chosen one, or one all of whose block paths
//!   spin;
//! - a load of an extension needing value `v` of location `l` can read a
//!   maximal write of `v` in every completion: every write to `l` of the
//!   chosen paths and of every block path of the threads still to choose
//!   writes `v` (a superset of any completion's writes), and some write to
//!   `l` is certain: a chosen path makes one, or every block path of some
//!   thread still to choose does, or a chosen path reads `v` there, `v`
//!   not the initial value (a waiter past its await): a completion none of
//!   whose other events writes `v` there fails the walk's check of the
//!   values available (`Explorer::values_available`) and never reaches
//!   the walk's end, so only the completions whose values are available
//!   need the write;
//! - each spinning thread, chosen or not (each of the block paths of the
//!   threads still to choose that spins), has a way to extend whose needs
//!   all hold so.
//!
//! Each condition, for a completion whose values are available, implies
//! the one [`SpinExtension::extends_to_complete`] checks on it (the written
//! values of the completion are among those looked at, and the write
//! counted on exists in it), so every combination of the subtree that the
//! walk would hand on is one it skips: the same combinations are skipped
//! as per complete combination, only the walk to them is shorter. With no
//! thread left to choose the test is exactly
//! [`SpinExtension::extends_to_complete`]'s on a combination whose values
//! are available (`tests.rs` compares the two on every partial combination of
//! small programs). In an N-thread flag barrier's walk over executions in
//! which a thread spins forever, a block whose spinning thread is still
//! to choose is skipped at the first chosen waiter past its await (it
//! read the flag's 1, so the flag is written in every completion that
//! matters), instead of at the flag's writer.

use super::hook::{CombinationPlan, Hook};
use crate::engine::limits::{Limits, Reduction};
use crate::engine::trace::path::{Ending, Path, PathEvent, ReadValue, ThreadPaths};
use crate::ir::Program;
use std::collections::HashMap;

/// The ways a prefix spinning forever extends to complete paths of its
/// thread: per way, the (location, value) pairs its appended loads need.
pub(in crate::engine) type Extensions = Vec<Vec<(usize, i64)>>;

/// A path's writes, as (location, value), the value `None` when a derived
/// store's.
type PathWrites = Vec<(usize, Option<i64>)>;

/// The hook of [`Reduction::SpinExtension`]: where the model declares
/// `await-extension` and the program has no control barriers, group
/// functions, host threads or out-of-bounds sites (which the module's
/// argument does not cover), and the walk is not the termination search.
pub(super) struct SpinExtensionHook;

impl Hook for SpinExtensionHook {
    fn reduction(&self) -> Reduction {
        Reduction::SpinExtension
    }

    fn on_combinations(&self, program: &Program, limits: &Limits, plan: &mut CombinationPlan) {
        plan.spin_extension = limits.profile.await_extension
            && !limits.endings
            && program.threads.iter().all(|t| {
                t.instructions().all(|i| {
                    !i.is_group_function()
                        && !matches!(i.kind, crate::ir::OpKind::ControlBarrier { .. })
                })
            })
            && program.out_of_bounds.is_empty()
            && (0..program.threads.len()).all(|t| !program.host.agent(t).is_host());
    }
}

/// What the threads still to choose can write, per location
/// ([`SpinBlock`]).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Written {
    /// No write.
    Nothing,
    /// Every write writes this value.
    One(i64),
    /// Two values, or a value not known (a derived store).
    Mixed,
}

impl Written {
    fn with(self, v: Option<i64>) -> Written {
        match (self, v) {
            (Written::Nothing, Some(v)) => Written::One(v),
            (Written::One(a), Some(b)) if a == b => self,
            _ => Written::Mixed,
        }
    }
}

/// Per level `t` of a block's pruned walk (threads `..t` still to choose):
/// what [`SpinExtension::subtree_extends`] needs to know about those threads.
pub(in crate::engine) struct SpinBlock<'a> {
    /// Every block path of the threads still to choose is complete or
    /// extends.
    ok: Vec<bool>,
    /// Some thread still to choose spins on every block path.
    spins: Vec<bool>,
    /// Per location: what the block paths of the threads still to choose
    /// write there.
    written: Vec<Vec<Written>>,
    /// Per location: some thread still to choose writes it on every block
    /// path.
    certain: Vec<Vec<bool>>,
    /// The ways to extend of the block paths that spin, of the threads
    /// still to choose (each must have one that holds).
    ways: Vec<Vec<&'a Extensions>>,
}

/// What the skipping needs of every path of every thread, computed once
/// per walk ([`SpinExtension::of`]).
pub(in crate::engine) struct SpinExtension {
    /// Per thread, per path: for a prefix spinning forever at an await,
    /// the ways it extends to a complete path of its thread by loads only,
    /// each as the values its appended loads need (location, value);
    /// `None` for the other paths.
    extension: Vec<Vec<Option<Extensions>>>,
    /// Per thread, per path: its writes, as (location, value), the value
    /// `None` when a derived store's (any value).
    writes: Vec<Vec<PathWrites>>,
    /// Per thread, per path: the (location, value) pairs its reads need
    /// from another event (a concrete value other than the location's
    /// initial value, the location's initial value defined): every
    /// combination whose values are available writes them.
    needs: Vec<Vec<Vec<(usize, i64)>>>,
}

impl SpinExtension {
    /// The skipping over `threads`, whose first `complete[t]` paths are
    /// thread `t`'s complete paths and the rest its cut prefixes
    /// (`Explorer::prefix_blocks`); `None` when no spinning prefix
    /// extends (nothing is skipped).
    pub(in crate::engine) fn of(
        program: &Program,
        threads: &[ThreadPaths],
        complete: &[usize],
    ) -> Option<SpinExtension> {
        // The concrete values a path's events from `from` on need, as
        // (location, value), when they are all plain loads.
        let loads_only = |t: usize, path: &Path, from: usize| -> Option<Vec<(usize, i64)>> {
            let mut needs = Vec::new();
            for e in &path.events[from..] {
                let i = e.op(program, t)?;
                let l = program.location_of(i)?;
                let load = matches!(i.kind, crate::ir::OpKind::Load)
                    && !e.writes
                    && i.coop.is_none()
                    && i.interface.is_none()
                    && i.group.is_none();
                if !load {
                    return None;
                }
                match e.read {
                    Some(ReadValue::Concrete(v)) => needs.push((l, v)),
                    Some(ReadValue::Symbolic) => {}
                    None => return None,
                }
            }
            Some(needs)
        };
        let same = |a: &PathEvent, b: &PathEvent| {
            a.stmt == b.stmt && a.read == b.read && a.write == b.write && a.derived == b.derived
        };
        let mut any = false;
        let extension: Vec<Vec<Option<Extensions>>> = threads
            .iter()
            .enumerate()
            .map(|(t, paths)| {
                let n = complete[t];
                paths
                    .paths
                    .iter()
                    .enumerate()
                    .map(|(k, p)| {
                        if k < n || !matches!(p.ending, Ending::Cut { spinning: true, .. }) {
                            return None;
                        }
                        let len = p.events.len();
                        let mut ways: Extensions = paths.paths[..n]
                            .iter()
                            .filter(|q| {
                                q.events.len() > len
                                    && q.events.iter().zip(&p.events).all(|(a, b)| same(a, b))
                            })
                            .filter_map(|q| loads_only(t, q, len))
                            .collect();
                        ways.sort();
                        ways.dedup();
                        any |= !ways.is_empty();
                        Some(ways).filter(|w| !w.is_empty())
                    })
                    .collect()
            })
            .collect();
        if !any {
            return None;
        }
        let needs = per_event(threads, |t, e| {
            let l = e.location(program, t)?;
            match e.read {
                Some(ReadValue::Concrete(v))
                    if !program.is_undefined(l) && program.initial_value(l) != v =>
                {
                    Some((l, v))
                }
                _ => None,
            }
        });
        let writes = per_event(threads, |t, e| {
            let l = e.location(program, t).filter(|_| e.writes)?;
            Some((l, e.write.filter(|_| e.derived.is_none())))
        });
        Some(SpinExtension {
            extension,
            writes,
            needs,
        })
    }

    /// Whether the combination `chosen` (a path index per thread) is one
    /// the walk skips: every thread runs a complete path or a prefix
    /// spinning forever that extends, at least one spins, and each
    /// spinning one has a way to extend whose loads can read a maximal
    /// write of the value they need.
    pub(in crate::engine) fn extends_to_complete(
        &self,
        program: &Program,
        threads: &[ThreadPaths],
        chosen: &[usize],
    ) -> bool {
        let mut spinning = Vec::new();
        for (t, &k) in chosen.iter().enumerate() {
            let p = &threads[t].paths[k];
            match (&self.extension[t][k], &p.ending) {
                (Some(ways), _) => spinning.push(ways),
                (None, Ending::Cut { .. }) => return false,
                (None, _) => {}
            }
        }
        if spinning.is_empty() {
            return false;
        }
        // Per location the combination writes: the value all its writes
        // write (None once two differ, or one is unknown).
        let mut written: HashMap<usize, Option<i64>> = HashMap::new();
        for (t, &k) in chosen.iter().enumerate() {
            for e in &threads[t].paths[k].events {
                let Some(l) = e.location(program, t).filter(|_| e.writes) else {
                    continue;
                };
                let v = e.write.filter(|_| e.derived.is_none());
                written
                    .entry(l)
                    .and_modify(|w| {
                        if *w != v {
                            *w = None
                        }
                    })
                    .or_insert(v);
            }
        }
        let holds = |&(l, v): &(usize, i64)| written.get(&l) == Some(&Some(v));
        spinning
            .iter()
            .all(|ways| ways.iter().any(|needs| needs.iter().all(holds)))
    }

    /// The per-level facts of `block` for [`SpinExtension::subtree_extends`].
    pub(in crate::engine) fn block(
        &self,
        program: &Program,
        threads: &[ThreadPaths],
        block: &[Vec<usize>],
    ) -> SpinBlock<'_> {
        let locations = program.locations.len();
        let levels = block.len();
        let mut sb = SpinBlock {
            ok: vec![true],
            spins: vec![false],
            written: vec![vec![Written::Nothing; locations]],
            certain: vec![vec![false; locations]],
            ways: vec![Vec::new()],
        };
        for (s, paths) in block.iter().enumerate().take(levels.saturating_sub(1)) {
            let mut ok = sb.ok[s];
            let mut spins = true;
            let mut written = sb.written[s].clone();
            let mut every = vec![true; locations];
            let mut ways = sb.ways[s].clone();
            for &k in paths {
                let mut mine = vec![false; locations];
                for &(l, v) in &self.writes[s][k] {
                    written[l] = written[l].with(v);
                    mine[l] = true;
                }
                for (e, m) in every.iter_mut().zip(mine) {
                    *e &= m;
                }
                match (&self.extension[s][k], &threads[s].paths[k].ending) {
                    (Some(w), _) => {
                        if !ways.iter().any(|&x| std::ptr::eq(x, w) || x == w) {
                            ways.push(w);
                        }
                    }
                    (None, Ending::Cut { .. }) => {
                        ok = false;
                        spins = false;
                    }
                    (None, _) => spins = false,
                }
            }
            let certain: Vec<bool> = sb.certain[s]
                .iter()
                .zip(every)
                .map(|(&a, b)| a || b)
                .collect();
            sb.spins.push(sb.spins[s] || (spins && !paths.is_empty()));
            sb.ok.push(ok);
            sb.written.push(written);
            sb.certain.push(certain);
            sb.ways.push(ways);
        }
        sb
    }

    /// Whether every completion of the partial combination whose threads
    /// `t..` take the paths `block[u][idx[u]]` (threads `..t` any path of
    /// their block) is a combination [`SpinExtension::extends_to_complete`]
    /// skips (the module's test).
    pub(in crate::engine) fn subtree_extends(
        &self,
        threads: &[ThreadPaths],
        sb: &SpinBlock,
        block: &[Vec<usize>],
        idx: &[usize],
        t: usize,
    ) -> bool {
        let chosen = || (t..idx.len()).map(|u| (u, block[u][idx[u]]));
        if !sb.ok[t] {
            return false;
        }
        let mut spinning = Vec::new();
        for (u, k) in chosen() {
            match (&self.extension[u][k], &threads[u].paths[k].ending) {
                (Some(ways), _) => spinning.push(ways),
                (None, Ending::Cut { .. }) => return false,
                (None, _) => {}
            }
        }
        if spinning.is_empty() && !sb.spins[t] {
            return false;
        }
        let holds = |&(l, v): &(usize, i64)| {
            match sb.written[t][l] {
                Written::Mixed => return false,
                Written::One(w) if w != v => return false,
                _ => {}
            }
            let mut some =
                sb.certain[t][l] || chosen().any(|(u, k)| self.needs[u][k].contains(&(l, v)));
            for (u, k) in chosen() {
                for &(m, w) in &self.writes[u][k] {
                    if m == l {
                        if w != Some(v) {
                            return false;
                        }
                        some = true;
                    }
                }
            }
            some
        };
        let extends = |ways: &Extensions| ways.iter().any(|needs| needs.iter().all(holds));
        spinning.into_iter().all(extends) && sb.ways[t].iter().all(|w| extends(w))
    }
}

/// Per thread, per path: what `f` gives for each of its events (in
/// order), leaving out `None`s.
fn per_event<T>(
    threads: &[ThreadPaths],
    f: impl Fn(usize, &PathEvent) -> Option<T>,
) -> Vec<Vec<Vec<T>>> {
    threads
        .iter()
        .enumerate()
        .map(|(t, paths)| {
            paths
                .paths
                .iter()
                .map(|p| p.events.iter().filter_map(|e| f(t, e)).collect())
                .collect()
        })
        .collect()
}
