//! Spinning combinations that extend to complete ones, decided on partial
//! combinations ([`Explorer::set_spin_extension`] has the argument).
//!
//! The walk over combinations of paths in which some thread stops
//! ([`Explorer::prefix_blocks`]) chooses the threads' paths the last thread
//! first ([`Explorer::block_pruned`]). At a partial combination (threads
//! `t..` chosen) [`Explorer::subtree_extends`] tells whether *every*
//! completion by the block's paths of threads `..t` is a combination
//! [`Explorer::extends_to_complete`] skips; the walk then skips the partial
//! combination with its whole subtree, without building it. The test is
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
//!   whose other events writes `v` there fails
//!   [`Explorer::values_available`] and never reaches the walk's end, so
//!   only the completions whose values are available need the write;
//! - each spinning thread, chosen or not (each of the block paths of the
//!   threads still to choose that spins), has a way to extend whose needs
//!   all hold so.
//!
//! Each condition, for a completion whose values are available, implies
//! the one [`Explorer::extends_to_complete`] checks on it (the written
//! values of the completion are among those looked at, and the write
//! counted on exists in it), so every combination of the subtree that the
//! walk would hand on is one it skips: the same combinations are skipped
//! as per complete combination, only the walk to them is shorter. With no
//! thread left to choose the test is exactly
//! [`Explorer::extends_to_complete`]'s on a combination whose values are
//! available (`tests.rs` compares the two on every partial combination of
//! small programs). In an N-thread flag barrier's walk over executions in
//! which a thread spins forever, a block whose spinning thread is still
//! to choose is skipped at the first chosen waiter past its await (it
//! read the flag's 1, so the flag is written in every completion that
//! matters), instead of at the flag's writer.

use super::hook::{CombinationPlan, Hook};
use super::set::Reduction;
use crate::engine::limits::Limits;
use crate::engine::{Ending, Explorer, Extensions};
use crate::ir::Program;

/// The hook of [`Reduction::SpinExtension`]: where the model declares
/// `await-extension` and the program has no control barriers, group
/// functions, host threads or out-of-bounds sites (which the argument of
/// [`Explorer::set_spin_extension`] does not cover), and the walk is not the
/// termination search.
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
/// what [`Explorer::subtree_extends`] needs to know about those threads.
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

impl<'p> Explorer<'p> {
    /// The per-level facts of `block` for [`Explorer::subtree_extends`];
    /// `None` when nothing is skipped that way (the skipping is off).
    pub(in crate::engine) fn spin_block(&self, block: &[Vec<usize>]) -> Option<SpinBlock<'_>> {
        if self.extension.is_empty() {
            return None;
        }
        let locations = self.program.locations.len();
        let threads = block.len();
        let mut sb = SpinBlock {
            ok: vec![true],
            spins: vec![false],
            written: vec![vec![Written::Nothing; locations]],
            certain: vec![vec![false; locations]],
            ways: vec![Vec::new()],
        };
        for (s, paths) in block.iter().enumerate().take(threads.saturating_sub(1)) {
            let mut ok = sb.ok[s];
            let mut spins = true;
            let mut written = sb.written[s].clone();
            let mut every = vec![true; locations];
            let mut ways = sb.ways[s].clone();
            for &k in paths {
                let mut mine = vec![false; locations];
                for &(l, v) in &self.spin_writes[s][k] {
                    written[l] = written[l].with(v);
                    mine[l] = true;
                }
                for (e, m) in every.iter_mut().zip(mine) {
                    *e &= m;
                }
                match (&self.extension[s][k], &self.threads[s].paths[k].ending) {
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
        Some(sb)
    }

    /// Whether every completion of the partial combination whose threads
    /// `t..` take the paths `block[u][idx[u]]` (threads `..t` any path of
    /// their block) is a combination [`Explorer::extends_to_complete`]
    /// skips (the module's test).
    pub(in crate::engine) fn subtree_extends(
        &self,
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
            match (&self.extension[u][k], &self.threads[u].paths[k].ending) {
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
                sb.certain[t][l] || chosen().any(|(u, k)| self.spin_needs[u][k].contains(&(l, v)));
            for (u, k) in chosen() {
                for &(m, w) in &self.spin_writes[u][k] {
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
