//! Symmetry reduction: interchangeable threads.
//!
//! Two threads are interchangeable when exchanging them maps the program
//! onto itself: the same code (up to source positions), the same initial
//! registers, the same paths, and the same place in the scope tree
//! relative to every other thread (for every other thread `k`, `a` shares
//! a subgroup, workgroup, queue family and device with `k` exactly when
//! `b` does). Exchanging two such threads then maps every candidate
//! execution to a candidate execution of the same program (the events of
//! one thread become the other's, with the same instructions, values,
//! locations and scope instances), consistent exactly when the first is:
//! the model's base sets and relations are functions of the instructions,
//! of program order and of scope-instance membership, which the exchange
//! preserves, and no relation names a thread by its number. The permuted
//! execution has the same final memory, the same flags, and races between
//! the permuted instructions.
//!
//! So a walk asked only about what every permutation of a class keeps
//! (final memory and the registers of threads outside the classes, the
//! condition's verdict, whether some execution races) needs one execution
//! per orbit, counted as many times as its orbit has executions:
//!
//! - **Combinations of paths**: among interchangeable threads (identical
//!   path lists), only the combinations whose path numbers do not
//!   decrease along each class are built (each orbit of combinations has
//!   exactly one such member: sort the numbers). A combination stands for
//!   the distinct combinations its class permutations give: per class,
//!   `|C|! / (m1! m2! ...)` for the multiplicities of its path numbers.
//! - **Orders**: threads of one class on the same path (a group) are still
//!   interchangeable inside the combination. When they all write one
//!   location with writes every listed order relates (mutually-ordered
//!   atomics, or a total `co`), only the orders putting their first writes
//!   there in thread order are listed: each orbit under the group's
//!   permutations has exactly one such candidate (the permutation sorting
//!   the first writes is unique). The candidate then stands for `|G|!`.
//!
//! A visitor opts in ([`crate::engine::driver::Needs::symmetry`]) naming the
//! threads it must see as they are (the outcome listing: the threads whose
//! registers its states show), reads [`crate::engine::Skeleton::multiplicity`] for
//! its counts and maps what it records of a thread (racing pairs) to the
//! images ([`Symmetry::images`]). Programs with group functions,
//! out-of-bounds sites, host operations, shader stages or
//! system-synchronizes-with get none: their reports name threads in ways
//! the reduction would have to rename (group results, per-invocation
//! sites) or relate threads asymmetrically.
//!
//! Control barriers keep the reduction when no combination of paths can
//! make one diverge or stall (`uniform_barriers`): every thread passes
//! the same unnamed barriers, without a quorum, in the same order, on
//! every path, and no path ends early. A barrier's dynamic instances are
//! then the same in every combination (each static barrier's k-th pass,
//! with every member of its execution-scope instance arriving), and the
//! relation they give (`scbarinst`: every arrival with every other one in
//! the instance) relates two threads exactly when their images are
//! related, since interchangeable threads share their scope instances
//! with every other thread alike. No divergence or stall can arise, so no
//! report names a thread at a barrier.
//!
//! Written for vkmm: the exploration tools with symmetry reduction (model
//! checkers over transition systems) work on states, not on a cat model's
//! candidate executions, and no crate offers it for the latter.

use super::hook::{CombinationPlan, Hook};
use crate::engine::limits::{Limits, Reduction};
use crate::engine::trace::path::{Ending, Path, RegValue, ThreadPaths};
use crate::ir::{OpKind, Program, SourceSpan, Stmt, Thread};

/// The hook of [`Reduction::Symmetry`]: the walk over combinations may be
/// reduced by the threads' symmetry, or else by a rotation
/// ([`super::rotation`]), where the visitor allows it
/// ([`crate::engine::driver::Needs::symmetry`],
/// [`crate::engine::driver::Needs::renaming`]).
pub(super) struct SymmetryHook;

impl Hook for SymmetryHook {
    fn reduction(&self) -> Reduction {
        Reduction::Symmetry
    }

    fn on_combinations(&self, _program: &Program, _limits: &Limits, plan: &mut CombinationPlan) {
        plan.symmetry = true;
    }
}

/// The classes of interchangeable threads of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symmetry {
    /// Classes of at least two threads, each in ascending thread order.
    pub classes: Vec<Vec<usize>>,
    /// Per thread: the next thread of its class, if any.
    next: Vec<Option<usize>>,
    /// Per thread: its class and its place there, if any.
    place: Vec<Option<(usize, usize)>>,
}

impl Symmetry {
    /// The classes of interchangeable threads among those not `fixed`;
    /// `None` when there is none, or the program is of a kind the
    /// reduction does not cover (module doc).
    pub fn of(program: &Program, threads: &[ThreadPaths], fixed: &[bool]) -> Option<Symmetry> {
        if !program_allows(program) || !uniform_barriers(program, threads) {
            return None;
        }
        let n = program.threads.len();
        let mut assigned = vec![false; n];
        let mut classes = Vec::new();
        for a in 0..n {
            if assigned[a] || fixed.get(a).copied().unwrap_or(true) {
                continue;
            }
            let mut class = vec![a];
            for b in a + 1..n {
                if !assigned[b]
                    && !fixed.get(b).copied().unwrap_or(true)
                    && same_thread(&program.threads[a], &program.threads[b])
                    && same_paths_read(&program.threads[a], &threads[a], &threads[b])
                    && exchangeable(program, a, b)
                {
                    class.push(b);
                }
            }
            if class.len() > 1 {
                for &t in &class {
                    assigned[t] = true;
                }
                classes.push(class);
            }
        }
        if classes.is_empty() {
            return None;
        }
        Some(Symmetry::new(classes, n))
    }

    /// The symmetry of `classes` (each of at least two threads, in
    /// ascending order) among `n` threads.
    fn new(classes: Vec<Vec<usize>>, n: usize) -> Symmetry {
        let mut next = vec![None; n];
        let mut place = vec![None; n];
        for (k, c) in classes.iter().enumerate() {
            for w in c.windows(2) {
                next[w[0]] = Some(w[1]);
            }
            for (i, &t) in c.iter().enumerate() {
                place[t] = Some((k, i));
            }
        }
        Symmetry {
            classes,
            next,
            place,
        }
    }

    /// The threads of `t`'s class before it (none when it has no class).
    pub fn before(&self, t: usize) -> &[usize] {
        match self.place.get(t).copied().flatten() {
            Some((k, i)) => &self.classes[k][..i],
            None => &[],
        }
    }

    /// The thread after `t` in its class.
    pub fn next(&self, t: usize) -> Option<usize> {
        self.next.get(t).copied().flatten()
    }

    /// Whether the path numbers `ids` (one per thread) do not decrease
    /// along any class: the combination walked for its orbit.
    pub fn sorted(&self, ids: &[usize]) -> bool {
        self.classes
            .iter()
            .all(|c| c.windows(2).all(|w| ids[w[0]] <= ids[w[1]]))
    }

    /// What a sorted combination `ids` stands for: the number of distinct
    /// combinations its class permutations give, and the groups of threads
    /// of one class on the same path (at least two), in thread order.
    pub fn combination(&self, ids: &[usize]) -> (u64, Vec<Vec<usize>>) {
        let mut count = 1u64;
        let mut groups = Vec::new();
        for c in &self.classes {
            count = count.saturating_mul(factorial(c.len()));
            let mut i = 0;
            while i < c.len() {
                let j = (i..c.len())
                    .find(|&j| ids[c[j]] != ids[c[i]])
                    .unwrap_or(c.len());
                count /= factorial(j - i).max(1);
                if j - i > 1 {
                    groups.push(c[i..j].to_vec());
                }
                i = j;
            }
        }
        (count, groups)
    }

    /// The permutations of the classes mapping thread `a` to each thread of
    /// its class and `b` to each of its class (distinct images for distinct
    /// threads), one per pair of images: as `(image of a, image of b, the
    /// permutation as the image of every thread)`. The identity first.
    pub fn images(&self, a: usize, b: usize, threads: usize) -> Vec<(usize, usize, Vec<usize>)> {
        let class = |t: usize| -> Vec<usize> {
            self.classes
                .iter()
                .find(|c| c.contains(&t))
                .cloned()
                .unwrap_or_else(|| vec![t])
        };
        let mut out = vec![(a, b, (0..threads).collect::<Vec<usize>>())];
        for &x in &class(a) {
            for &y in &class(b) {
                if (x == y) != (a == b) || (x, y) == (a, b) {
                    continue;
                }
                let mut perm: Vec<usize> = (0..threads).collect();
                perm.swap(a, x);
                if a != b {
                    // The thread now mapped to y takes b's old image.
                    let z = perm.iter().position(|&p| p == y).unwrap_or(b);
                    perm.swap(b, z);
                }
                debug_assert!(perm[a] == x && perm[b] == y);
                out.push((x, y, perm));
            }
        }
        out
    }
}

/// `n!`, saturating.
fn factorial(n: usize) -> u64 {
    (1..=n as u64).fold(1u64, |a, b| a.saturating_mul(b))
}

/// Whether the program is of a kind the reduction covers (module doc).
pub(super) fn program_allows(program: &Program) -> bool {
    program.ssw.is_empty()
        && program.stages.is_empty()
        && program.generates.is_empty()
        && program.host.is_empty()
        && program.out_of_bounds.is_empty()
        && program.threads.iter().all(|t| {
            t.fragment.is_none()
                && t.instructions()
                    .all(|i| !i.is_group_function() && i.coop.is_none())
        })
}

/// Whether no combination of the threads' paths can make a control
/// barrier diverge or stall (module doc): either the program passes no
/// barrier, or every thread passes the same unnamed barriers without a
/// quorum, as the same sequence of static barriers on every path, and
/// every path runs to the end of its thread (no path cut by the bound and
/// kept as a prefix, none waiting or stopped).
pub(super) fn uniform_barriers(program: &Program, threads: &[ThreadPaths]) -> bool {
    let has_barrier = program.threads.iter().any(|t| {
        t.instructions()
            .any(|i| matches!(i.kind, OpKind::ControlBarrier { .. }))
    });
    if !has_barrier {
        return true;
    }
    let mut common: Option<Vec<u32>> = None;
    for (t, paths) in threads.iter().enumerate() {
        if !paths.cut_prefixes.is_empty() {
            return false;
        }
        for path in &paths.paths {
            if path.ending != Ending::Finished {
                return false;
            }
            let mut seq = Vec::new();
            for ev in &path.events {
                let Some(op) = ev.op(program, t) else {
                    continue;
                };
                if let OpKind::ControlBarrier { instance, .. } = op.kind {
                    if ev.barrier.id.is_some() || ev.barrier.quorum.is_some() {
                        return false;
                    }
                    seq.push(instance);
                }
            }
            match &common {
                None => common = Some(seq),
                Some(c) if *c == seq => {}
                Some(_) => return false,
            }
        }
    }
    true
}

/// The same code up to source positions, and the same initial values of
/// the registers the code reads. A register the code never reads (a
/// shader's builtin the front end folded into constants, such as an
/// invocation id) tells the threads apart in nothing an answer shows: the
/// registers of the threads the reduction permutes are not shown.
fn same_thread(a: &Thread, b: &Thread) -> bool {
    let read = a.read_registers();
    let live = |t: &Thread| -> Vec<(String, i64)> {
        t.registers
            .iter()
            .filter(|(r, _)| read.contains(r.as_str()))
            .cloned()
            .collect()
    };
    a.code.len() == b.code.len()
        && a.code.iter().zip(&b.code).all(|(x, y)| bare(x) == bare(y))
        && live(a) == live(b)
}

/// The same paths, complete and cut, in the same order, up to the final values of registers thread `t` (whose
/// paths are `a`) neither reads nor writes: initial values only, which
/// no answer about a permuted thread shows.
fn same_paths_read(t: &Thread, a: &ThreadPaths, b: &ThreadPaths) -> bool {
    let mut used = t.read_registers();
    for s in &t.code {
        match s {
            Stmt::Assign { dest, .. } => {
                used.insert(dest.as_str());
            }
            Stmt::Op(i) => {
                if let Some(d) = &i.dest {
                    used.insert(d.as_str());
                }
            }
            _ => {}
        }
    }
    let same = |x: &Path, y: &Path| {
        let regs = |p: &Path| -> Vec<(String, RegValue)> {
            p.registers
                .iter()
                .filter(|(r, _)| used.contains(r.as_str()))
                .cloned()
                .collect()
        };
        x.events == y.events
            && x.awaits == y.awaits
            && x.ending == y.ending
            && x.exprs == y.exprs
            && regs(x) == regs(y)
    };
    a.paths.len() == b.paths.len()
        && a.paths.iter().zip(&b.paths).all(|(x, y)| same(x, y))
        && a.cut_prefixes.len() == b.cut_prefixes.len()
        && a.cut_prefixes
            .iter()
            .zip(&b.cut_prefixes)
            .all(|(x, y)| same(x, y))
        && a.cut == b.cut
}

/// A statement without its source position.
pub(super) fn bare(s: &Stmt) -> Stmt {
    let mut s = s.clone();
    let blank = SourceSpan::default();
    match &mut s {
        Stmt::Op(i) => i.source = blank,
        Stmt::Label { source, .. }
        | Stmt::Goto { source, .. }
        | Stmt::Branch { source, .. }
        | Stmt::Assign { source, .. } => *source = blank,
    }
    s
}

/// Whether exchanging threads `a` and `b` keeps every other thread's
/// scope-instance membership with them.
fn exchangeable(program: &Program, a: usize, b: usize) -> bool {
    (0..program.threads.len())
        .filter(|&k| k != a && k != b)
        .all(|k| shares(program, a, k) == shares(program, b, k))
}

/// Whether threads `x` and `k` share a subgroup, a workgroup, a queue
/// family, a device.
pub(super) fn shares(program: &Program, x: usize, k: usize) -> (bool, bool, bool, bool) {
    let th = &program.threads;
    (
        th[x].subgroup == th[k].subgroup,
        th[x].workgroup == th[k].workgroup,
        th[x].queue_family == th[k].queue_family,
        th[x].device == th[k].device,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(classes: Vec<Vec<usize>>, n: usize) -> Symmetry {
        Symmetry::new(classes, n)
    }

    #[test]
    fn a_combination_stands_for_its_distinct_permutations() {
        let s = sym(vec![vec![0, 1, 2, 3]], 4);
        // All different: 4! combinations.
        assert_eq!(s.combination(&[0, 1, 2, 3]), (24, vec![]));
        // Two on path 5, two on path 7: 4! / (2! 2!) = 6.
        assert_eq!(
            s.combination(&[5, 5, 7, 7]),
            (6, vec![vec![0, 1], vec![2, 3]])
        );
        // All alike: one combination, one group.
        assert_eq!(s.combination(&[2, 2, 2, 2]), (1, vec![vec![0, 1, 2, 3]]));
        assert!(s.sorted(&[0, 0, 1, 3]));
        assert!(!s.sorted(&[0, 1, 0, 3]));
    }

    #[test]
    fn images_map_a_pair_to_every_pair_of_its_classes() {
        let s = sym(vec![vec![0, 1, 2], vec![3, 4]], 6);
        let im = s.images(0, 3, 6);
        // 3 images of thread 0 times 2 of thread 3.
        assert_eq!(im.len(), 6);
        assert_eq!(im[0], (0, 3, vec![0, 1, 2, 3, 4, 5]));
        for (x, y, p) in &im {
            assert_eq!((p[0], p[3]), (*x, *y));
            let mut sorted = p.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, vec![0, 1, 2, 3, 4, 5]);
            assert_eq!(p[5], 5);
        }
        // Two threads of one class: every ordered pair of distinct members.
        let im = s.images(1, 2, 6);
        assert_eq!(im.len(), 6);
        for (x, y, p) in &im {
            assert_ne!(x, y);
            assert_eq!((p[1], p[2]), (*x, *y));
        }
    }
}
