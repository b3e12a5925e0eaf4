//! The walk over combinations of thread paths: [`Explorer`] holds the
//! paths of every thread of a program and builds a [`Skeleton`] for each
//! combination of one path per thread the active reductions keep.

use super::limits::{ExecError, LimitKind, Limits};
use super::reduce::{rotation, symmetry};
use super::skeleton::{Skeleton, SkeletonRotation, SkeletonSymmetry};
use super::trace::{Ending, ReadValue};
use super::{barrier, base, reduce, trace, undefined, values};
use crate::ir::Program;
use std::collections::HashMap;
use std::ops::ControlFlow;
use trace::{Path, ThreadPaths};

/// Combinations of paths, a path number per thread.
#[cfg(test)]
pub(super) type Combinations = Vec<Vec<usize>>;

/// The paths of every thread of a program.
pub struct Explorer<'p> {
    pub program: &'p Program,
    pub threads: Vec<ThreadPaths>,
    pub limits: Limits,
    /// Whether some instruction is a group function (combinations of
    /// paths are then checked by [`Explorer::group_results_agree`]).
    has_group_functions: bool,
    /// The limit at which some combination of paths was skipped (see
    /// [`Explorer::skipped`]).
    skipped: std::cell::Cell<Option<LimitKind>>,
    /// The values standing for "any value" when some location's initial
    /// value is undefined.
    undefined: Option<undefined::Domain>,
    /// The time limit and memory bound, read while combinations of paths
    /// are walked (most may be rejected without reaching the driver, which
    /// reads them only per skeleton).
    pub(super) budget: trace::Budget,
    /// The value domain of each location ([`trace::explore_with_domains`]).
    domains: std::sync::Arc<Vec<Vec<i64>>>,
    /// What the active reductions do to the walk over combinations
    /// ([`reduce::CombinationPlan`], asked once).
    plan: reduce::CombinationPlan,
    /// Whether the pruned walk over combinations of paths drops a partial
    /// combination as soon as its paths write one location more often
    /// than the order limit allows ([`Explorer::set_write_pruning`]).
    write_pruning: bool,
    /// Per location: whether it is an RMW-chain location
    /// ([`rmw_chain_locations`]; a property of the program and the
    /// limits, computed once).
    rmw_chains: Vec<bool>,
    /// The classes of interchangeable threads the walk reduces
    /// ([`Explorer::set_symmetry`]).
    symmetry: Option<std::sync::Arc<symmetry::Symmetry>>,
    /// The automorphisms with renaming of locations the walk reduces by
    /// ([`Explorer::set_rotation`]).
    rotation: Option<std::sync::Arc<rotation::Rotation>>,
    /// What the walk after a finished complete walk skips because it
    /// extends to complete combinations ([`Explorer::set_spin_extension`]);
    /// `None`: nothing is skipped that way.
    spin: Option<reduce::SpinExtension>,
    /// The combinations, complete or partial (with every completion),
    /// skipped because they extend to complete ones.
    extended: std::cell::Cell<u64>,
    /// The partial combinations the pruned walk chose a path for
    /// ([`Explorer::take_walk_nodes`]).
    walk_nodes: std::cell::Cell<u64>,
    /// What the unit tests of the RMW chains look at: the partial combinations the
    /// balances alone dropped, and the combinations that reached the end
    /// of the walk (path numbers per thread, `usize::MAX` for a thread not
    /// chosen yet).
    #[cfg(test)]
    pub(super) flow_log: std::cell::RefCell<(Combinations, Combinations)>,
    /// Per thread, the locations whose reads have their reads-from pinned
    /// to the thread's latest earlier write ([`Reduction::OwnForwarding`](super::Reduction::OwnForwarding);
    /// [`trace::own_sets`], computed once).
    own: std::sync::Arc<Vec<std::collections::HashSet<usize>>>,
    /// The static environments of the skeletons built, per shape
    /// ([`base::ShapeCache`]).
    shapes: base::ShapeCache,
    /// The pruned walk's check of control barriers
    /// ([`Explorer::set_barrier_agreement`]); `None`: off.
    barriers: Option<reduce::BarrierPruning>,
    /// Per thread, the end of the range of threads the barriers and
    /// subgroups tie it to ([`reduce::BarrierPruning::ranges`]): what the
    /// pruned walk's barrier check reads ([`Explorer::barriers_agree_from`]).
    /// Empty without the check.
    range_end: Vec<usize>,
    /// The thread paths the pruned walk's barrier check read
    /// ([`Explorer::take_barrier_reads`]).
    barrier_reads: std::cell::Cell<u64>,
    /// Per range of threads the barriers tie together and its paths in a
    /// block: whether some combination of them may agree
    /// ([`Explorer::ranges_agree`]).
    agreeing: std::cell::RefCell<HashMap<RangePaths, bool>>,
    /// Whether the listing stopped some path at a barrier in some round
    /// ([`trace::Explored::stopped`]; [`Explorer::complete_under`]).
    stopped: bool,
}

impl<'p> Explorer<'p> {
    pub fn new(program: &'p Program, limits: Limits) -> Result<Explorer<'p>, ExecError> {
        let budget = trace::Budget::new(&limits);
        let explored = trace::explore_in_full(program, &limits, reduce::PathPlan::of(&limits))?;
        Ok(Explorer::of_explored(program, explored, (limits, budget)))
    }

    /// The explorer over the paths listed from what `prepared` read of the
    /// program (prepared with [`reduce::PathPlan::of`] these limits), under
    /// `limits` (its budget starts before the listing): every path, or,
    /// with `stop_at_barrier` `Some(k)`, the executions in which every
    /// thread stops before its `k`-th control barrier
    /// ([`trace::PathPlan::stop_at_barrier`]; the paths that reach it wait
    /// there, as cut prefixes). With `work`, the listing's steps are
    /// spent from that share (`trace::Work`) and it stops where the
    /// share ends.
    pub fn listed(
        prepared: &trace::Listing<'p>,
        limits: Limits,
        stop_at_barrier: Option<usize>,
        work: Option<std::sync::Arc<trace::Work>>,
    ) -> Result<Explorer<'p>, ExecError> {
        let budget = trace::Budget::new(&limits);
        let explored = prepared.explore(&limits, stop_at_barrier, work)?;
        Ok(Explorer::of_explored(
            prepared.program(),
            explored,
            (limits, budget),
        ))
    }

    /// The explorer of a listing stopped at a barrier
    /// ([`Explorer::listed`]) that stopped no path there in any round, so
    /// listed the program's complete paths: those, walked under `limits`.
    /// `None` when some round stopped a path.
    pub fn complete_under(self, limits: Limits) -> Option<Explorer<'p>> {
        (!self.stopped).then(|| {
            Explorer::from_parts(
                self.program,
                self.threads,
                self.domains,
                (limits, trace::Budget::new(&limits)),
                self.plan,
                self.own,
            )
        })
    }

    /// The explorer over what a listing found (`explored`), walked under
    /// `limits` and `budget`.
    fn of_explored(
        program: &'p Program,
        explored: trace::Explored,
        (limits, budget): (Limits, trace::Budget),
    ) -> Explorer<'p> {
        let plan = reduce::CombinationPlan::of(program, &limits);
        // The filter's own locations, as the paths were walked with them
        // (`own_pinned` on the same plan), when the combination pins reads.
        let own = if plan.pin_own_reads {
            explored.own
        } else {
            vec![std::collections::HashSet::new(); program.threads.len()]
        };
        let (threads, domains) = (explored.paths, explored.domains);
        let mut explorer = Explorer::from_parts(
            program,
            threads,
            std::sync::Arc::new(domains),
            (limits, budget),
            plan,
            std::sync::Arc::new(own),
        );
        explorer.stopped = explored.stopped;
        explorer
    }

    /// The explorer over `threads` with what was computed of the program
    /// (value domains, the combination plan, own locations), walked under
    /// `limits` and `budget` (started when the walk's time began to
    /// count): with no symmetry, renaming, spin extension or barrier
    /// pruning until set.
    fn from_parts(
        program: &'p Program,
        threads: Vec<ThreadPaths>,
        domains: std::sync::Arc<Vec<Vec<i64>>>,
        (limits, budget): (Limits, trace::Budget),
        plan: reduce::CombinationPlan,
        own: std::sync::Arc<Vec<std::collections::HashSet<usize>>>,
    ) -> Explorer<'p> {
        Explorer {
            program,
            threads,
            domains,
            limits,
            has_group_functions: program
                .threads
                .iter()
                .any(|t| t.instructions().any(|i| i.is_group_function())),
            skipped: std::cell::Cell::new(None),
            undefined: undefined::Domain::for_search(program, &limits),
            budget,
            plan,
            write_pruning: false,
            rmw_chains: rmw_chain_locations(program, &plan),
            symmetry: None,
            rotation: None,
            spin: None,
            extended: std::cell::Cell::new(0),
            walk_nodes: std::cell::Cell::new(0),
            #[cfg(test)]
            flow_log: Default::default(),
            own,
            shapes: base::ShapeCache::default(),
            barriers: None,
            range_end: Vec::new(),
            barrier_reads: std::cell::Cell::new(0),
            agreeing: Default::default(),
            stopped: false,
        }
    }

    /// The explorer whose threads' paths are `threads` (the paths of this
    /// one changed: [`reduce::barrier_prefixes::not_started`]),
    /// sharing what this one computed of the program (value domains, own
    /// locations, RMW chains), walked under `limits`; with no symmetry,
    /// renaming, spin extension or barrier pruning until set.
    pub fn with_threads(&self, threads: Vec<ThreadPaths>, limits: Limits) -> Explorer<'p> {
        Explorer::from_parts(
            self.program,
            threads,
            self.domains.clone(),
            (limits, trace::Budget::new(&limits)),
            self.plan,
            self.own.clone(),
        )
    }

    /// Reduces the walk by the symmetry of the interchangeable threads
    /// among those not `fixed` ([`symmetry`]; `None`: no reduction, the
    /// default): only the combinations of paths whose path numbers do not
    /// decrease along each class are built, and each skeleton says what it
    /// stands for ([`Skeleton::multiplicity`]). Only with
    /// [`Reduction::Symmetry`](super::Reduction::Symmetry).
    pub fn set_symmetry(&mut self, fixed: Option<&[bool]>) {
        self.symmetry = fixed
            .filter(|_| self.plan.symmetry)
            .and_then(|f| symmetry::Symmetry::of(self.program, &self.threads, f))
            .map(std::sync::Arc::new);
    }

    /// Drops, in the pruned walk, a partial combination whose control
    /// barriers cannot agree in any completion, for a visitor that wants
    /// only combinations whose barriers agree (`wanted`,
    /// [`super::Needs::barriers_agree`]). Only with
    /// [`Reduction::WitnessPruning`](super::Reduction::WitnessPruning).
    pub fn set_barrier_agreement(&mut self, wanted: bool) {
        self.barriers = (wanted && self.plan.barrier_pruning)
            .then(|| reduce::BarrierPruning::of(self.program, &self.threads));
        self.range_end = match &self.barriers {
            Some(check) => {
                let subgroups: Vec<usize> =
                    self.program.threads.iter().map(|t| t.subgroup).collect();
                let mut end = vec![0; subgroups.len()];
                for (lo, hi) in check.ranges(&subgroups) {
                    end[lo..hi].fill(hi);
                }
                end
            }
            None => Vec::new(),
        };
    }

    /// The classes of interchangeable threads the walk reduces, if any.
    pub fn symmetry(&self) -> Option<&symmetry::Symmetry> {
        self.symmetry.as_deref()
    }

    /// Reduces the walk by the cyclic group of an automorphism that
    /// renames locations ([`rotation`]; `None`: no reduction, the default)
    /// mapping `shown` onto itself: only the combinations of paths least in
    /// their orbit are built, and each skeleton says how many images it
    /// stands for ([`Skeleton::rotation`]). Only with [`Reduction::Symmetry`](super::Reduction::Symmetry),
    /// and only when the walk has no classes of interchangeable threads
    /// ([`Explorer::set_symmetry`], called first).
    pub fn set_rotation(&mut self, shown: Option<&rotation::Shown>) {
        self.rotation = shown
            .filter(|_| self.plan.symmetry && self.symmetry.is_none())
            .and_then(|s| rotation::Rotation::of(self.program, &self.threads, s))
            .map(std::sync::Arc::new);
    }

    /// The group the walk reduces by renaming locations, if any.
    pub fn rotation(&self) -> Option<&rotation::Rotation> {
        self.rotation.as_deref()
    }

    /// With `on`, the walk over combinations of paths (with path pruning)
    /// drops a partial combination whose chosen paths already hold more
    /// ordered writes (atomic writes, or every write under a total `co`)
    /// to one location than `--max-writes`: every combination completing
    /// it would be skipped at the order limit by [`Skeleton::list_orders`]
    /// anyway, and the walk says so the same way ([`Explorer::skipped`]).
    /// What changes is only that the walk does not build those skeletons
    /// one by one, and that a visitor is not asked about them: a
    /// combination the visitor would not have wanted, or one stalled at a
    /// barrier ([`super::driver::Visitor::stalled`]), now counts as
    /// skipped too. That is why it is off by default: the walk over
    /// executions stopping at the bound turns it on, where neither
    /// matters (its visitor wants every combination but those blocked at
    /// a barrier, and reports no stall).
    /// Only with [`Reduction::WritePruning`](super::Reduction::WritePruning).
    pub fn set_write_pruning(&mut self, on: bool) {
        self.write_pruning = on && self.plan.write_pruning;
    }

    /// With `on` (and [`Reduction::SpinExtension`](super::Reduction::SpinExtension), a model declaring
    /// `await-extension`, and a program without control barriers, group
    /// functions, host threads or out-of-bounds sites), the walk over
    /// combinations of paths skips one whose stopped threads all spin
    /// forever at an await (no thread stops at the bound) when each of them
    /// extends, by loads only, to one of its complete paths whose loads of
    /// a concrete value can read a maximal write of that value
    /// (`reduce::SpinExtension`; its module has why that loses no race).
    /// Call after [`Explorer::prefix_blocks`], with `complete` the number
    /// of complete paths per thread; `false` turns it off. Only for the
    /// walk after a complete walk that finished (nothing skipped, no
    /// limit): the skipped combinations' races are that walk's.
    pub fn set_spin_extension(&mut self, on: bool, complete: &[usize]) {
        self.spin = (on && self.plan.spin_extension)
            .then(|| reduce::SpinExtension::of(self.program, &self.threads, complete))
            .flatten();
    }

    /// The skipping [`Explorer::set_spin_extension`] turned on, if any.
    #[cfg(test)]
    pub(super) fn spin_extension(&self) -> Option<&reduce::SpinExtension> {
        self.spin.as_ref()
    }

    /// The combinations skipped since the last call because they extend
    /// to complete ones ([`Explorer::set_spin_extension`]).
    pub fn take_extended(&self) -> u64 {
        self.extended.take()
    }

    /// The nodes of the walk over combinations of paths with path pruning
    /// since the last call: each choice of a path for a thread given the
    /// threads chosen before it (`Explorer::block_pruned`), kept or
    /// dropped: the count the walk's cost follows.
    pub fn take_walk_nodes(&self) -> u64 {
        self.walk_nodes.take()
    }

    /// The thread paths the pruned walk's barrier check read since the
    /// last call (one per chosen thread of the range it judged, per node
    /// it judged: `Explorer::barriers_agree_from`).
    pub fn take_barrier_reads(&self) -> u64 {
        self.barrier_reads.take()
    }

    /// Whether the combination `chosen` (a path index per thread) is one
    /// [`Explorer::set_spin_extension`] skips.
    pub(super) fn extends_to_complete(&self, chosen: &[usize]) -> bool {
        self.spin
            .as_ref()
            .is_some_and(|s| s.extends_to_complete(self.program, &self.threads, chosen))
    }

    /// The limit at which a walk skipped some combination of paths (its
    /// skeleton exceeds a state-space limit, e.g. more writes to one
    /// location than vkmm orders): the walk did not cover it.
    pub fn skipped(&self) -> Option<LimitKind> {
        self.skipped.get()
    }

    /// Takes the limit at which a walk skipped some combination of paths,
    /// leaving none (the next walk starts clean).
    pub fn take_skipped(&self) -> Option<LimitKind> {
        self.skipped.take()
    }

    /// Undoes [`Explorer::prefix_blocks`]: each thread's paths past its
    /// first `complete[t]` go back to its cut prefixes.
    pub fn restore_prefixes(&mut self, complete: &[usize]) {
        for (t, &n) in self.threads.iter_mut().zip(complete) {
            let mut prefixes = t.paths.split_off(n);
            prefixes.append(&mut t.cut_prefixes);
            t.cut_prefixes = prefixes;
        }
    }

    /// Paths cut by the unrolling bound, over all threads.
    pub fn cut(&self) -> usize {
        self.threads.iter().map(|t| t.cut).sum()
    }

    /// Moves the threads' cut prefixes ([`ThreadPaths::cut_prefixes`])
    /// after their complete paths and returns the blocks
    /// ([`Explorer::for_each_in`]) of the combinations with at least one
    /// prefix, each once: block `k` takes a prefix for thread `k`, a
    /// complete path for the threads before it, either for those after it
    /// (`k` is the first thread that stops at the bound). Empty when no
    /// path was cut, or none kept.
    pub fn prefix_blocks(&mut self) -> Vec<Vec<Vec<usize>>> {
        let complete: Vec<usize> = self.threads.iter().map(|t| t.paths.len()).collect();
        for t in &mut self.threads {
            let prefixes = std::mem::take(&mut t.cut_prefixes);
            t.paths.extend(prefixes);
        }
        let all: Vec<usize> = self.threads.iter().map(|t| t.paths.len()).collect();
        (0..self.threads.len())
            .filter(|&k| all[k] > complete[k])
            .map(|k| {
                (0..self.threads.len())
                    .map(|t| match t.cmp(&k) {
                        std::cmp::Ordering::Less => (0..complete[t]).collect(),
                        std::cmp::Ordering::Equal => (complete[t]..all[t]).collect(),
                        std::cmp::Ordering::Greater => (0..all[t]).collect(),
                    })
                    .collect()
            })
            .collect()
    }

    /// Number of path combinations (one path per thread).
    pub fn combinations(&self) -> u128 {
        self.threads
            .iter()
            .map(|t| t.paths.len() as u128)
            .fold(1u128, |a, b| a.saturating_mul(b))
    }

    /// The initial value of location `l`: `initial`'s when the walk gives
    /// the undefined locations values, else the program's.
    fn initial_value(&self, initial: Option<&[i64]>, l: usize) -> i64 {
        match initial {
            Some(i) => i[l],
            None => self.program.initial_value(l),
        }
    }

    /// Thread `t`'s statement `stmt`, when it is an instruction.
    fn op_at(&self, t: usize, stmt: usize) -> Option<&'p crate::ir::Instruction> {
        match &self.program.threads[t].code[stmt] {
            crate::ir::Stmt::Op(i) => Some(i),
            _ => None,
        }
    }

    /// The location thread `t`'s statement `stmt` accesses, if any.
    pub(super) fn location_at(&self, t: usize, stmt: usize) -> Option<usize> {
        self.op_at(t, stmt)
            .and_then(|i| self.program.location_of(i))
    }

    /// Whether every value the paths fixed for a read is the initial value of
    /// its location or written there by some path (else the combination has
    /// no execution, and is skipped before any relation is built).
    pub(super) fn values_available(&self, paths: &[&Path], initial: Option<&[i64]>) -> bool {
        let initial_value = |l: usize| self.initial_value(initial, l);
        let loc = |t: usize, stmt: usize| self.location_at(t, stmt);
        for (t, p) in paths.iter().enumerate() {
            for (i, e) in p.events.iter().enumerate() {
                let Some(ReadValue::Concrete(v)) = e.read else {
                    continue;
                };
                let Some(l) = loc(t, e.stmt) else {
                    continue;
                };
                if initial_value(l) == v {
                    continue;
                }
                // (A derived store may write any value.)
                let written = paths.iter().enumerate().any(|(t2, p2)| {
                    p2.events.iter().enumerate().any(|(j, w)| {
                        (t2, j) != (t, i)
                            && (w.write == Some(v) || w.derived.is_some())
                            && loc(t2, w.stmt) == Some(l)
                    })
                });
                if !written {
                    return false;
                }
            }
        }
        true
    }

    /// Whether every group function result the paths fixed is the one the
    /// contributions give ([`barrier::group_results`]), checked on the
    /// events alone before any relation is built: most combinations of
    /// paths that branch on group results disagree.
    fn group_results_agree(&self, paths: &[&Path]) -> bool {
        if !self.has_group_functions {
            return true;
        }
        let events = base::events_of(paths);
        let endings: Vec<Ending> = paths.iter().map(|p| p.ending.clone()).collect();
        let groups = barrier::groups(self.program, &events, &endings);
        barrier::group_results(self.program, &events, &groups)
            .into_iter()
            .all(|(e, r)| match (events[e].read_value, r) {
                (Some(fixed), Some(r)) => fixed == r,
                _ => true,
            })
    }

    /// [`Explorer::group_results_agree`] on a partial combination: the
    /// paths chosen for threads `t..` (`block[u][idx[u]]`), checked on the
    /// group instances all of whose members are among them, when `t`
    /// starts a subgroup (the members of an instance are consecutive
    /// threads). The walk over a block chooses the last thread first, so a
    /// subgroup's results are checked as soon as its paths are chosen, not
    /// once per combination of the other threads' paths.
    fn groups_agree_from(&self, block: &[Vec<usize>], idx: &[usize], t: usize) -> bool {
        self.groups_agree_in(block, idx, t, self.threads.len())
    }

    /// [`Explorer::groups_agree_from`] with the paths of the threads
    /// `t..hi` chosen: the group instances all of whose members are among
    /// them.
    fn groups_agree_in(&self, block: &[Vec<usize>], idx: &[usize], t: usize, hi: usize) -> bool {
        let threads = &self.program.threads;
        if !self.has_group_functions || (t > 0 && threads[t - 1].subgroup == threads[t].subgroup) {
            return true;
        }
        let none = Path {
            events: Vec::new(),
            registers: Vec::new(),
            awaits: Vec::new(),
            ending: Ending::Finished,
            exprs: Vec::new(),
        };
        let paths: Vec<&Path> = (0..threads.len())
            .map(|u| {
                if (t..hi).contains(&u) {
                    &self.threads[u].paths[block[u][idx[u]]]
                } else {
                    &none
                }
            })
            .collect();
        let events = base::events_of(&paths);
        let endings: Vec<Ending> = paths.iter().map(|p| p.ending.clone()).collect();
        let groups: Vec<barrier::BarrierGroup> = barrier::groups(self.program, &events, &endings)
            .into_iter()
            .filter(|g| g.members.iter().all(|&u| (t..hi).contains(&u)))
            .collect();
        barrier::group_results(self.program, &events, &groups)
            .into_iter()
            .all(|(e, r)| match (events[e].read_value, r) {
                (Some(fixed), Some(r)) => fixed == r,
                _ => true,
            })
    }

    /// Whether the paths chosen for threads `t..` can have control barriers
    /// that agree in some completion (always, without
    /// [`Explorer::set_barrier_agreement`]), given that those chosen for
    /// `t + 1..` passed this check. Only the threads of `t`'s range
    /// (`t..range_end[t]`) are read: a barrier instance lies within one
    /// range, so the instances of the ranges above are judged on their
    /// own members alone, all chosen when the walk judged the first
    /// thread of their range, and that judgement passed; the instances
    /// `t` meets have no member outside its range, chosen or open, so
    /// the range's threads from `t` give them the verdict all the chosen
    /// threads do.
    fn barriers_agree_from(&self, block: &[Vec<usize>], idx: &[usize], t: usize) -> bool {
        let Some(check) = &self.barriers else {
            return true;
        };
        let n = self.threads.len();
        let hi = self.range_end.get(t).copied().unwrap_or(n);
        let chosen: Vec<usize> = (0..hi)
            .map(|u| if u < t { 0 } else { block[u][idx[u]] })
            .collect();
        self.barrier_reads
            .set(self.barrier_reads.get() + (hi - t) as u64);
        let agree = check.may_agree_in(&chosen, t, hi);
        // The check over every chosen thread, which the walk made before
        // it read the range alone: the same verdict wherever the threads
        // above passed it.
        #[cfg(test)]
        {
            let all: Vec<usize> = (0..n)
                .map(|u| if u < t { 0 } else { block[u][idx[u]] })
                .collect();
            assert_eq!(agree, check.may_agree(&all, t), "{all:?} from {t}");
        }
        agree
    }

    /// Whether each range of threads the barriers tie together
    /// ([`reduce::BarrierPruning::ranges`]) has some combination of its
    /// paths in `block` whose barriers and group results may agree, judged
    /// on its own paths: where one has none, no combination of the block
    /// does, and the block is not walked. The pruned walk chooses the
    /// threads from the last, so a range below the last is otherwise
    /// walked again under every partial combination of the threads above
    /// it that survives. Known per range and its paths
    /// ([`Explorer::agreeing`]), since blocks of endings share them.
    /// Always true without [`Explorer::set_barrier_agreement`], and where a
    /// limit stops the walk over a range (the block's walk then stops at
    /// it too).
    fn ranges_agree(&self, block: &[Vec<usize>]) -> bool {
        let Some(check) = &self.barriers else {
            return true;
        };
        let n = self.threads.len();
        let subgroups: Vec<usize> = self.program.threads.iter().map(|t| t.subgroup).collect();
        for (lo, hi) in check.ranges(&subgroups) {
            if hi - lo == n {
                continue;
            }
            let key: RangePaths = (lo..hi).map(|u| (u, block[u].clone())).collect();
            let known = self.agreeing.borrow().get(&key).copied();
            let agree = match known {
                Some(a) => a,
                None => {
                    let mut idx = vec![0; n];
                    match self.range_level(check, block, &mut idx, (lo, hi), hi) {
                        Some(a) => {
                            self.agreeing.borrow_mut().insert(key, a);
                            a
                        }
                        None => true,
                    }
                }
            };
            if !agree {
                return false;
            }
        }
        true
    }

    /// For [`Explorer::ranges_agree`]: whether the threads `lo..level` of
    /// the range `lo..hi` (those from `level` chosen in `idx`) have paths
    /// with which the range's barriers and group results may agree, with
    /// the checks of the pruned walk; `None` when a limit stopped it.
    fn range_level(
        &self,
        check: &reduce::BarrierPruning,
        block: &[Vec<usize>],
        idx: &mut [usize],
        (lo, hi): (usize, usize),
        level: usize,
    ) -> Option<bool> {
        if level == lo {
            return Some(true);
        }
        if self.out_of_budget() {
            return None;
        }
        let t = level - 1;
        for i in 0..block[t].len() {
            idx[t] = i;
            let chosen: Vec<usize> = (0..idx.len())
                .map(|u| {
                    if (t..hi).contains(&u) {
                        block[u][idx[u]]
                    } else {
                        0
                    }
                })
                .collect();
            let agree = check.may_agree_in(&chosen, t, hi);
            #[cfg(test)]
            assert_eq!(
                agree,
                check.may_agree_in_listed(&chosen, t, hi),
                "{chosen:?} from {t}"
            );
            if agree
                && self.groups_agree_in(block, idx, t, hi)
                && self.range_level(check, block, idx, (lo, hi), t)?
            {
                return Some(true);
            }
        }
        Some(false)
    }

    /// Notes that a walk skipped a combination of paths at `kind` (e.g. its
    /// orders were too many to list: [`Skeleton::list_orders`]).
    pub fn skip(&self, kind: LimitKind) {
        if self.skipped.get().is_none() {
            self.skipped.set(Some(kind));
        }
    }

    /// Calls `f` on the skeleton of every combination of paths until it
    /// breaks. The skeletons' orders are not listed yet: `f` calls
    /// [`Skeleton::list_orders`] when it needs them.
    pub fn for_each<E>(
        &self,
        f: impl FnMut(Skeleton) -> Result<ControlFlow<()>, E>,
    ) -> Result<(), E>
    where
        E: From<ExecError>,
    {
        let all: Vec<Vec<usize>> = self
            .threads
            .iter()
            .map(|t| (0..t.paths.len()).collect())
            .collect();
        self.for_each_in(&[all], f)
    }

    /// [`Explorer::for_each`] over the combinations of some blocks only:
    /// a block names, per thread, the indices of the paths to combine.
    pub fn for_each_in<E>(
        &self,
        blocks: &[Vec<Vec<usize>>],
        mut f: impl FnMut(Skeleton) -> Result<ControlFlow<()>, E>,
    ) -> Result<(), E>
    where
        E: From<ExecError>,
    {
        for block in blocks {
            if self.block(block, &mut f)?.is_break() {
                break;
            }
        }
        Ok(())
    }

    fn block<E>(
        &self,
        block: &[Vec<usize>],
        f: &mut impl FnMut(Skeleton) -> Result<ControlFlow<()>, E>,
    ) -> Result<ControlFlow<()>, E>
    where
        E: From<ExecError>,
    {
        let Some(domain) = &self.undefined else {
            return self.block_with(block, None, f);
        };
        // Undefined initial values: the block once per assignment of the
        // undefined locations its paths read or the condition names
        // ([`undefined::Domain::assignments`]), each thread keeping only
        // the paths that agree with the assignment on the locations no
        // path writes (a read there reads the initial value).
        let program = self.program;
        let mut relevant = undefined::condition_locations(program);
        let mut written = std::collections::BTreeSet::new();
        let op = |t: usize, stmt: usize| match &program.threads[t].code[stmt] {
            crate::ir::Stmt::Op(i) => Some(i),
            _ => None,
        };
        for (t, paths) in block.iter().enumerate() {
            for &p in paths {
                for e in &self.threads[t].paths[p].events {
                    let Some(i) = op(t, e.stmt) else { continue };
                    let Some(l) = program.location_of(i) else {
                        continue;
                    };
                    if e.write.is_some() || i.is_write() {
                        written.insert(l);
                    }
                    if i.is_read() && program.is_undefined(l) {
                        relevant.insert(l);
                    }
                }
            }
        }
        let relevant: Vec<usize> = relevant.into_iter().collect();
        for initial in domain.assignments(program, &relevant) {
            let agrees = |t: usize, p: usize| {
                self.threads[t].paths[p].events.iter().all(|e| {
                    let Some(ReadValue::Concrete(v)) = e.read else {
                        return true;
                    };
                    match op(t, e.stmt).and_then(|i| program.location_of(i)) {
                        Some(l) if program.is_undefined(l) && !written.contains(&l) => {
                            initial[l] == v
                        }
                        _ => true,
                    }
                })
            };
            let filtered: Vec<Vec<usize>> = block
                .iter()
                .enumerate()
                .map(|(t, ps)| ps.iter().copied().filter(|&p| agrees(t, p)).collect())
                .collect();
            if self.block_with(&filtered, Some(&initial), f)?.is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    fn block_with<E>(
        &self,
        block: &[Vec<usize>],
        initial: Option<&[i64]>,
        f: &mut impl FnMut(Skeleton) -> Result<ControlFlow<()>, E>,
    ) -> Result<ControlFlow<()>, E>
    where
        E: From<ExecError>,
    {
        if block.len() != self.threads.len() || block.iter().any(|t| t.is_empty()) {
            return Ok(ControlFlow::Continue(()));
        }
        if self.plan.path_pruning {
            if !self.ranges_agree(block) {
                return Ok(ControlFlow::Continue(()));
            }
            return self.block_pruned(block, initial, f);
        }
        let mut idx = vec![0usize; self.threads.len()];
        loop {
            if self.out_of_budget() {
                return Ok(ControlFlow::Break(()));
            }
            let chosen: Vec<usize> = idx.iter().enumerate().map(|(t, &i)| block[t][i]).collect();
            if self.symmetry.as_ref().is_none_or(|s| s.sorted(&chosen))
                && self.visit_chosen(&chosen, initial, true, f)?.is_break()
            {
                return Ok(ControlFlow::Break(()));
            }
            let mut d = 0;
            loop {
                if d == idx.len() {
                    return Ok(ControlFlow::Continue(()));
                }
                idx[d] += 1;
                if idx[d] < block[d].len() {
                    break;
                }
                idx[d] = 0;
                d += 1;
            }
        }
    }

    /// One step of a walk over combinations of paths: out of time or
    /// memory, the rest of the walk is skipped, and the walk says which
    /// limit stopped it.
    fn out_of_budget(&self) -> bool {
        match self
            .budget
            .step(&|| "combining the threads' paths".to_string())
        {
            Err(ExecError {
                limit: Some(kind), ..
            }) => {
                self.skipped.set(Some(kind));
                true
            }
            _ => false,
        }
    }

    /// The combination `chosen` (a path index per thread), unless it
    /// extends to complete ones ([`Explorer::set_spin_extension`]) or
    /// (`check_values`) a value it reads is not available.
    fn visit_chosen<E>(
        &self,
        chosen: &[usize],
        initial: Option<&[i64]>,
        check_values: bool,
        f: &mut impl FnMut(Skeleton) -> Result<ControlFlow<()>, E>,
    ) -> Result<ControlFlow<()>, E>
    where
        E: From<ExecError>,
    {
        if self
            .rotation
            .as_ref()
            .is_some_and(|r| r.orbit(chosen).is_none())
        {
            return Ok(ControlFlow::Continue(()));
        }
        if self.extends_to_complete(chosen) {
            self.extended.set(self.extended.get() + 1);
            return Ok(ControlFlow::Continue(()));
        }
        let paths: Vec<&Path> = chosen
            .iter()
            .enumerate()
            .map(|(t, &k)| &self.threads[t].paths[k])
            .collect();
        if check_values && !self.values_available(&paths, initial) {
            return Ok(ControlFlow::Continue(()));
        }
        self.visit_combination(chosen, &paths, initial, f)
    }

    /// One combination of paths (one index into `block` per thread): the
    /// skeletons of its barrier choices, handed to `f`. A combination too
    /// big to enumerate is skipped, and the walk says so.
    fn visit_combination<E>(
        &self,
        ids: &[usize],
        paths: &[&Path],
        initial: Option<&[i64]>,
        f: &mut impl FnMut(Skeleton) -> Result<ControlFlow<()>, E>,
    ) -> Result<ControlFlow<()>, E>
    where
        E: From<ExecError>,
    {
        if !self.group_results_agree(paths) {
            return Ok(ControlFlow::Continue(()));
        }
        // One skeleton per choice of the arrivals that complete each
        // barrier with a quorum.
        let skeletons = Skeleton::build_unlisted(
            self.program,
            paths,
            self.limits,
            initial,
            &self.own,
            Some(&self.shapes),
        )
        .map(|mut sk| {
            if values::needed(&sk) {
                let program = self.program;
                sk.derivation = Some(std::sync::Arc::new(super::skeleton::Derivation {
                    locations: sk
                        .events
                        .iter()
                        .map(|e| program.location_of(e.instruction(program)))
                        .collect(),
                    domains: self.domains.clone(),
                }));
            }
            if let Some(r) = &self.rotation {
                sk.rotation = r.orbit(ids).map(|images| SkeletonRotation {
                    group: r.clone(),
                    images,
                });
            }
            if let Some(sym) = &self.symmetry {
                let (combinations, groups) = sym.combination(ids);
                sk.symmetry = Some(Box::new(SkeletonSymmetry {
                    classes: sym.clone(),
                    combinations,
                    groups,
                    within: 1,
                }));
            }
            sk
        })
        .and_then(|sk| sk.barrier_choices());
        match skeletons {
            Ok(skeletons) => {
                for sk in skeletons {
                    if f(sk)?.is_break() {
                        return Ok(ControlFlow::Break(()));
                    }
                }
            }
            Err(ExecError {
                limit: Some(kind), ..
            }) => {
                if self.skipped.get().is_none() {
                    self.skipped.set(Some(kind));
                }
            }
            Err(e) => return Err(e.into()),
        }
        Ok(ControlFlow::Continue(()))
    }

    /// [`Explorer::block_with`] with [`Reduction::PathPruning`](super::Reduction::PathPruning): the
    /// combinations of the block's paths chosen thread by thread, the last
    /// thread first (so the combinations come in the flat walk's order, the
    /// first thread's path changing fastest), and a partial combination
    /// dropped with every completion as soon as one of its chosen reads
    /// needs a value that is not the initial value of its location, not
    /// written there by another event of a chosen path, and not written
    /// there by any path of a thread still to choose. At the last thread
    /// this is exactly [`Explorer::values_available`], so the combinations
    /// that reach `f` are the flat walk's, in its order; only the walk to
    /// them is shorter (a lock or barrier counter read by N threads: N^N
    /// combinations of read values, N! of them available).
    fn block_pruned<E>(
        &self,
        block: &[Vec<usize>],
        initial: Option<&[i64]>,
        f: &mut impl FnMut(Skeleton) -> Result<ControlFlow<()>, E>,
    ) -> Result<ControlFlow<()>, E>
    where
        E: From<ExecError>,
    {
        let initial_value = |l: usize| self.initial_value(initial, l);
        let loc = |t: usize, stmt: usize| self.location_at(t, stmt);
        // Each (location, value) a path of the block writes, numbered; a
        // needed value no path writes can never be had.
        // And each location a derived store of the block writes (any
        // value), numbered after them and `unwritten`.
        let mut ids: HashMap<(usize, i64), usize> = HashMap::new();
        let mut derived_locations: Vec<usize> = Vec::new();
        for (t, ps) in block.iter().enumerate() {
            for &p in ps {
                for e in &self.threads[t].paths[p].events {
                    let Some(l) = loc(t, e.stmt) else { continue };
                    if let Some(v) = e.write {
                        let next = ids.len();
                        ids.entry((l, v)).or_insert(next);
                    }
                    if e.derived.is_some() && !derived_locations.contains(&l) {
                        derived_locations.push(l);
                    }
                }
            }
        }
        let unwritten = ids.len();
        let any: HashMap<usize, usize> = derived_locations
            .iter()
            .enumerate()
            .map(|(k, &l)| (l, unwritten + 1 + k))
            .collect();
        let slots = unwritten + 1 + any.len();
        // Per thread, per path of the block: the values its reads need that
        // the initial value does not give (the pair's number, `unwritten`
        // when no path writes it, whether the same event writes that value
        // there too, and the number of the location's derived stores), and
        // the pairs (and derived locations) it writes.
        let summary: Vec<Vec<PathValues>> = block
            .iter()
            .enumerate()
            .map(|(t, ps)| {
                ps.iter()
                    .map(|&p| {
                        let mut values = PathValues::default();
                        for e in &self.threads[t].paths[p].events {
                            let Some(l) = loc(t, e.stmt) else { continue };
                            if let Some(v) = e.write {
                                values.writes.push(ids[&(l, v)]);
                            }
                            if e.derived.is_some() {
                                values.writes.push(any[&l]);
                            }
                            if let Some(ReadValue::Concrete(v)) = e.read
                                && initial_value(l) != v
                            {
                                let id = ids.get(&(l, v)).copied().unwrap_or(unwritten);
                                let derived = any.get(&l).copied().unwrap_or(unwritten);
                                values.needs.push((id, e.write == Some(v), derived));
                            }
                        }
                        values
                    })
                    .collect()
            })
            .collect();
        // below[t]: the pairs some path of a thread before t writes.
        let threads = block.len();
        let mut below: Vec<Vec<bool>> = vec![vec![false; slots]; threads];
        for t in 1..threads {
            let mut set = below[t - 1].clone();
            for values in &summary[t - 1] {
                for &w in &values.writes {
                    set[w] = true;
                }
            }
            below[t] = set;
        }
        // Per thread, per path of the block: its ordered writes per
        // location (numbered densely), when the walk prunes at the order
        // limit ([`Explorer::set_write_pruning`]). Not on RMW-chain
        // locations: their orders are built prefix by prefix under the
        // chain's constraint, and the order limit lets a location past
        // `--max-writes` be listed when that takes few enough steps
        // (`choices::mo_choices`), which a count of writes cannot tell.
        let mut write_locations: HashMap<usize, usize> = HashMap::new();
        let ordered_writes: Vec<Vec<Vec<usize>>> = if self.write_pruning {
            let total = self.limits.profile.total_co;
            block
                .iter()
                .enumerate()
                .map(|(t, ps)| {
                    ps.iter()
                        .map(|&p| {
                            let mut out = Vec::new();
                            for e in &self.threads[t].paths[p].events {
                                let ordered = e.writes
                                    && (total || self.op_at(t, e.stmt).is_some_and(|i| i.atomic));
                                if let Some(l) =
                                    loc(t, e.stmt).filter(|&l| ordered && !self.rmw_chains[l])
                                {
                                    let next = write_locations.len();
                                    out.push(*write_locations.entry(l).or_insert(next));
                                }
                            }
                            out
                        })
                        .collect()
                })
                .collect()
        } else {
            Vec::new()
        };
        // RMW chains: on a location whose writes are all mutually-ordered
        // atomics (with the model's RMW atomicity and the RMW filter),
        // each write, and the initial value, is read by at most one RMW
        // (an RMW comes immediately after the write it reads in the scoped
        // modification order; only the first reads the initial value). So
        // the RMWs reading value v can be no more than the writes of v
        // (plus one when v is the initial value): a partial combination
        // whose RMWs already read v more often than the chosen paths and
        // the best paths of the threads left can write it has no
        // execution (`rmw_chains` below). A location some derived store
        // writes (any value) is left out.
        // The chain locations are those of the block's paths: a write no
        // path of the block makes (a branch of a runtime index's chain no
        // execution takes) is in none of its combinations' executions.
        let chains = &if self.plan.rmw_chains {
            rmw_chain_locations_among(
                self.program,
                block.iter().enumerate().flat_map(|(t, ps)| {
                    ps.iter().flat_map(move |&p| {
                        self.threads[t].paths[p]
                            .events
                            .iter()
                            .map(move |e| (t, e.stmt))
                    })
                }),
            )
        } else {
            vec![false; self.program.locations.len()]
        };
        let mut rmw_ids: HashMap<(usize, i64), usize> = HashMap::new();
        let rmw_event = |t: usize, e: &trace::PathEvent| -> Option<(usize, i64)> {
            let l = loc(t, e.stmt)?;
            match e.read {
                Some(ReadValue::Concrete(v))
                    if e.writes && chains[l] && !derived_locations.contains(&l) =>
                {
                    Some((l, v))
                }
                _ => None,
            }
        };
        for (t, ps) in block.iter().enumerate() {
            for &p in ps {
                for e in &self.threads[t].paths[p].events {
                    if let Some(pair) = rmw_event(t, e) {
                        let next = rmw_ids.len();
                        rmw_ids.entry(pair).or_insert(next);
                    }
                }
            }
        }
        let mut rmw_init = vec![0usize; rmw_ids.len()];
        for (&(l, v), &id) in &rmw_ids {
            rmw_init[id] = usize::from(initial_value(l) == v);
        }
        // Per thread, per path: the RMW reads and the writes of those pairs.
        let rmw_paths: Vec<Vec<(Vec<usize>, Vec<usize>)>> = block
            .iter()
            .enumerate()
            .map(|(t, ps)| {
                ps.iter()
                    .map(|&p| {
                        let (mut reads, mut writes) = (Vec::new(), Vec::new());
                        for e in &self.threads[t].paths[p].events {
                            if let Some(pair) = rmw_event(t, e) {
                                reads.push(rmw_ids[&pair]);
                            }
                            if let (Some(l), Some(v)) = (loc(t, e.stmt), e.write)
                                && let Some(&id) = rmw_ids.get(&(l, v))
                            {
                                writes.push(id);
                            }
                        }
                        (reads, writes)
                    })
                    .collect()
            })
            .collect();
        // rmw_below[t][id]: the most writes of the pair the threads before
        // t can make together (each its best path).
        let rmw_below = reduce::best_below(threads, rmw_ids.len(), |t| {
            rmw_paths[t]
                .iter()
                .map(|(_, writes)| {
                    let mut n = vec![0usize; rmw_ids.len()];
                    for &w in writes {
                        n[w] += 1;
                    }
                    n
                })
                .collect()
        });
        // Dead subtrees at the boundaries of the ranges the barriers tie
        // together ([`RangeMemo`]): only where the walk's checks are the
        // ones the key covers (no symmetry, rotation or spin extension).
        let memo = match &self.barriers {
            Some(check)
                if self.symmetry.is_none() && self.rotation.is_none() && self.spin.is_none() =>
            {
                let subgroups: Vec<usize> =
                    self.program.threads.iter().map(|t| t.subgroup).collect();
                RangeMemo::of(&check.ranges(&subgroups), &summary)
            }
            _ => None,
        };
        let mut walk = PrunedWalk {
            memo,
            leaves: 0,
            flow: self
                .plan
                .chain_flow
                .then(|| {
                    reduce::ChainFlow::of(self.program, &self.threads, block, &rmw_ids, &rmw_event)
                })
                .flatten(),
            spin: self
                .spin
                .as_ref()
                .map(|s| (s, s.block(self.program, &self.threads, block))),
            rmw_paths: &rmw_paths,
            rmw_below: &rmw_below,
            rmw_init: &rmw_init,
            rmw_read: vec![0; rmw_ids.len()],
            rmw_written: vec![0; rmw_ids.len()],
            summary: &summary,
            below: &below,
            chosen: vec![0; slots],
            idx: vec![0; threads],
            ordered_writes: &ordered_writes,
            written: vec![0; write_locations.len()],
            max_writes: self.limits.bounds.max_writes_per_location,
            // Per thread: the least path number the threads of its class
            // before it can take (a property of the block: computed once,
            // not at every partial combination).
            least: match &self.symmetry {
                Some(s) => (0..threads)
                    .map(|t| {
                        s.before(t)
                            .iter()
                            .filter_map(|&p| block[p].iter().min())
                            .max()
                            .copied()
                    })
                    .collect(),
                None => Vec::new(),
            },
        };
        self.pruned_level(block, initial, threads, &mut walk, f)
    }

    /// Chooses the path of thread `level - 1` (threads `level..` are
    /// chosen), for [`Explorer::block_pruned`]. At the first thread of a
    /// range below another ([`RangeMemo`]), a subtree already found dead
    /// under the same state is not walked again, and one that turns out
    /// dead is remembered.
    fn pruned_level<E>(
        &self,
        block: &[Vec<usize>],
        initial: Option<&[i64]>,
        level: usize,
        walk: &mut PrunedWalk,
        f: &mut impl FnMut(Skeleton) -> Result<ControlFlow<()>, E>,
    ) -> Result<ControlFlow<()>, E>
    where
        E: From<ExecError>,
    {
        let key = walk.memo.as_ref().and_then(|m| m.key(level, walk));
        let Some(key) = key else {
            return self.pruned_choose(block, initial, level, walk, f);
        };
        if walk.memo.as_ref().is_some_and(|m| m.dead.contains(&key)) {
            return Ok(ControlFlow::Continue(()));
        }
        let leaves = walk.leaves;
        let flow = self.pruned_choose(block, initial, level, walk, f)?;
        // A walk a limit stopped is not known dead.
        if flow.is_continue()
            && walk.leaves == leaves
            && self.skipped.get().is_none()
            && let Some(m) = walk.memo.as_mut()
        {
            m.dead.insert(key);
        }
        Ok(flow)
    }

    /// [`Explorer::pruned_level`] without the memo.
    fn pruned_choose<E>(
        &self,
        block: &[Vec<usize>],
        initial: Option<&[i64]>,
        level: usize,
        walk: &mut PrunedWalk,
        f: &mut impl FnMut(Skeleton) -> Result<ControlFlow<()>, E>,
    ) -> Result<ControlFlow<()>, E>
    where
        E: From<ExecError>,
    {
        if self.out_of_budget() {
            return Ok(ControlFlow::Break(()));
        }
        if level == 0 {
            walk.leaves += 1;
            let chosen: Vec<usize> = walk
                .idx
                .iter()
                .enumerate()
                .map(|(t, &i)| block[t][i])
                .collect();
            #[cfg(test)]
            self.flow_log.borrow_mut().1.push(chosen.clone());
            return self.visit_chosen(&chosen, initial, false, f);
        }
        let t = level - 1;
        // Interchangeable threads: the path number of `t` is at most that
        // of the next thread of its class (chosen already), and at least
        // the least the threads of its class before it can take (their
        // numbers do not decrease up to `t`): a block of the walk over
        // executions stopping at the bound gives its first stopped thread
        // prefixes only, so the threads after it in its class take
        // prefixes too, and are not walked over complete paths first.
        let least = walk.least.get(t).copied().flatten();
        let most = self
            .symmetry
            .as_ref()
            .and_then(|s| s.next(t))
            .map(|n| block[n][walk.idx[n]]);
        for i in 0..block[t].len() {
            let id = block[t][i];
            if most.is_some_and(|m| id > m) || least.is_some_and(|l| id < l) {
                continue;
            }
            walk.idx[t] = i;
            walk.add(t, i, 1);
            let too_many = walk.too_many_writes();
            if too_many {
                self.skip(LimitKind::MaxWrites);
            }
            self.walk_nodes.set(self.walk_nodes.get() + 1);
            let counted = !too_many && walk.available(t) && walk.rmw_chains(t);
            // The barrier check reads what was computed once per path;
            // the group results are computed per partial combination.
            let ok = counted
                && walk.balanced(t)
                && self.barriers_agree_from(block, &walk.idx, t)
                && self.groups_agree_from(block, &walk.idx, t);
            #[cfg(test)]
            if counted && !ok {
                let partial = (0..block.len())
                    .map(|u| {
                        if u < t {
                            usize::MAX
                        } else {
                            block[u][walk.idx[u]]
                        }
                    })
                    .collect();
                self.flow_log.borrow_mut().0.push(partial);
            }
            // Every completion extends to a complete combination: the
            // subtree is skipped whole ([`reduce::SpinExtension`]).
            let extends = ok
                && t > 0
                && walk.spin.as_ref().is_some_and(|(s, sb)| {
                    s.subtree_extends(&self.threads, sb, block, &walk.idx, t)
                });
            if extends {
                self.extended.set(self.extended.get() + 1);
            }
            let flow = if ok && !extends {
                self.pruned_level(block, initial, t, walk, f)
            } else {
                Ok(ControlFlow::Continue(()))
            };
            walk.add(t, i, -1);
            if flow?.is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
        Ok(ControlFlow::Continue(()))
    }
}

/// Per location: whether it is an RMW-chain location of the whole
/// program, which the walk's write pruning leaves to the order listing
/// ([`Explorer::block_pruned`]; its counting of RMW reads takes the chain
/// locations of the block's paths, [`rmw_chain_locations_among`]): the model
/// declares RMW atomicity, the RMW filter is on, and every instruction
/// of the program that writes it is an atomic mutually ordered with
/// every other (itself included: the same instruction in two loop
/// iterations, or in two threads). None when some write's location is
/// not known statically.
pub(super) fn rmw_chain_locations(program: &Program, plan: &reduce::CombinationPlan) -> Vec<bool> {
    if !plan.rmw_chains {
        return vec![false; program.locations.len()];
    }
    let every = program
        .threads
        .iter()
        .enumerate()
        .flat_map(|(t, thread)| (0..thread.code.len()).map(move |s| (t, s)));
    rmw_chain_locations_among(program, every)
}

/// [`rmw_chain_locations`] over the writes of some statements only
/// (`(thread, statement)`, repeats allowed): the statements of the paths
/// a walk combines, so that a write the program holds but no path makes
/// leaves the chains alone. The caller checks the plan.
fn rmw_chain_locations_among(
    program: &Program,
    stmts: impl Iterator<Item = (usize, usize)>,
) -> Vec<bool> {
    let n = program.locations.len();
    // Per thread, per statement: met already (a bit per statement, not a
    // hashed pair: the whole program's statements pass here).
    let mut seen: Vec<Vec<bool>> = program
        .threads
        .iter()
        .map(|t| vec![false; t.code.len()])
        .collect();
    let mut writers: Vec<Vec<(usize, &crate::ir::Instruction)>> = vec![Vec::new(); n];
    for (t, stmt) in stmts {
        if std::mem::replace(&mut seen[t][stmt], true) {
            continue;
        }
        let crate::ir::Stmt::Op(i) = &program.threads[t].code[stmt] else {
            continue;
        };
        if !i.is_write() {
            continue;
        }
        match program.location_of(i) {
            Some(l) => writers[l].push((t, i)),
            None => return vec![false; n],
        }
    }
    chains_of_writers(program, &writers)
}

/// Per location, whether its writers (thread, instruction) are atomics
/// each mutually ordered with every other (itself included).
fn chains_of_writers(
    program: &Program,
    writers: &[Vec<(usize, &crate::ir::Instruction)>],
) -> Vec<bool> {
    writers
        .iter()
        .map(|w| {
            w.iter().all(|&a| {
                w.iter()
                    .all(|&b| base::instructions_mutually_ordered(program, a, b))
            })
        })
        .collect()
}

/// What one path needs and gives, for [`Explorer::block_pruned`]: the
/// numbered (location, value) pairs its reads need (with whether the same
/// event writes that pair, and the number of the location's derived
/// stores, which may write any value) and those it writes.
#[derive(Default)]
struct PathValues {
    needs: Vec<(usize, bool, usize)>,
    writes: Vec<usize>,
}

/// A range of threads by its threads' numbers and their paths in a block
/// ([`Explorer::ranges_agree`]).
type RangePaths = Vec<(usize, Vec<usize>)>;

/// The dead subtrees of a pruned walk over a block
/// ([`Explorer::pruned_level`]), at the boundaries of the ranges of
/// threads the barriers tie together ([`reduce::BarrierPruning::ranges`]).
///
/// The walk chooses the last thread first, so a range below others is
/// walked again under every partial combination of the threads above it
/// that survives. Below a boundary `b` (the first thread of a range,
/// threads `b..` chosen) the checks of the walk read of the threads above
/// only: the pairs their paths write (`PrunedWalk::chosen`, for the
/// values the threads below read and for their own reads still to be
/// met), their reads whose value no chosen write gives yet, and the
/// counts of RMW reads and writes and of ordered writes. Their control
/// barriers and group functions are judged within their own ranges,
/// which no thread below `b` belongs to, and passed at `b` already. So
/// whether the subtree reaches a complete combination is a function of
/// the key [`RangeMemo::key`] computes, and a subtree that reached none
/// reaches none under any other partial combination with the same key.
pub(super) struct RangeMemo {
    /// Per thread: at a boundary, the pairs (and derived-store slots) the
    /// reads of some path of a thread below it need; `None` elsewhere.
    below_needs: Vec<Option<Vec<usize>>>,
    /// The keys of the subtrees found dead.
    dead: std::collections::HashSet<Vec<usize>>,
}

impl RangeMemo {
    /// The memo of a block with `ranges` (none with one range).
    fn of(ranges: &[(usize, usize)], summary: &[Vec<PathValues>]) -> Option<RangeMemo> {
        if ranges.len() < 2 {
            return None;
        }
        let mut below_needs: Vec<Option<Vec<usize>>> = vec![None; summary.len() + 1];
        for &(lo, _) in ranges.iter().filter(|&&(lo, _)| lo > 0) {
            let mut ids: Vec<usize> = summary[..lo]
                .iter()
                .flatten()
                .flat_map(|v| v.needs.iter().flat_map(|&(w, _, d)| [w, d]))
                .collect();
            ids.sort_unstable();
            ids.dedup();
            below_needs[lo] = Some(ids);
        }
        Some(RangeMemo {
            below_needs,
            dead: Default::default(),
        })
    }

    /// The key of the subtree below `level` when `level` is a boundary.
    fn key(&self, level: usize, walk: &PrunedWalk) -> Option<Vec<usize>> {
        let ids = self.below_needs.get(level)?.as_ref()?;
        let mut key = vec![level];
        // The reads above whose value no chosen write gives yet.
        let mut open: Vec<(usize, bool, usize)> = (level..walk.idx.len())
            .flat_map(|u| walk.summary[u][walk.idx[u]].needs.iter().copied())
            .filter(|&(w, own, d)| walk.chosen[w] <= usize::from(own) && walk.chosen[d] == 0)
            .collect();
        open.sort_unstable();
        open.dedup();
        key.push(open.len());
        for (w, own, d) in open {
            key.extend([w, usize::from(own), d, walk.chosen[w], walk.chosen[d]]);
        }
        key.extend(ids.iter().map(|&i| walk.chosen[i]));
        for v in [&walk.rmw_read, &walk.rmw_written, &walk.written] {
            key.push(v.len());
            key.extend(v.iter().copied());
        }
        Some(key)
    }
}

/// The state of [`Explorer::block_pruned`]'s walk.
pub(super) struct PrunedWalk<'a> {
    /// The dead subtrees at range boundaries; `None`: not kept.
    memo: Option<RangeMemo>,
    /// The complete combinations the walk reached.
    leaves: u64,
    /// The balances of RMW chains the threads still to choose must make
    /// up; `None` when no location is checked that way.
    flow: Option<reduce::ChainFlow>,
    /// With [`Explorer::set_spin_extension`] on: the skipping, and what the
    /// threads still to choose can do, per level.
    spin: Option<(&'a reduce::SpinExtension, reduce::SpinBlock<'a>)>,
    /// With symmetry reduction, per thread: the least path number it may
    /// take ([`Explorer::pruned_level`]); empty without.
    least: Vec<Option<usize>>,
    /// Per thread, per path of the block.
    summary: &'a [Vec<PathValues>],
    /// Per thread `t`, per pair: whether some path of a thread before `t`
    /// writes it.
    below: &'a [Vec<bool>],
    /// How many events of the chosen paths write each pair.
    chosen: Vec<usize>,
    /// The chosen path of each thread (an index into the block's paths).
    idx: Vec<usize>,
    /// Per thread, per path of the block: the (numbered) location of each
    /// of its ordered writes; empty without write pruning.
    ordered_writes: &'a [Vec<Vec<usize>>],
    /// How many ordered writes the chosen paths make to each location.
    written: Vec<usize>,
    /// The order limit (`--max-writes`).
    max_writes: usize,
    /// Per thread, per path of the block: the numbered (location, value)
    /// pairs its RMWs read on RMW-chain locations, and its writes of those
    /// pairs ([`Explorer::block_pruned`]).
    rmw_paths: &'a [Vec<(Vec<usize>, Vec<usize>)>],
    /// Per thread `t`, per pair: the most writes of it the threads before
    /// `t` can make.
    rmw_below: &'a [Vec<usize>],
    /// Per pair: 1 when its value is the location's initial value.
    rmw_init: &'a [usize],
    /// Per pair: the chosen paths' RMWs reading it, and writes of it.
    rmw_read: Vec<usize>,
    rmw_written: Vec<usize>,
}

impl PrunedWalk<'_> {
    /// Adds (`by` = 1) or removes (-1) the writes of thread `t`'s path `i`.
    fn add(&mut self, t: usize, i: usize, by: isize) {
        for &w in &self.summary[t][i].writes {
            self.chosen[w] = self.chosen[w].wrapping_add_signed(by);
        }
        if let Some(locations) = self.ordered_writes.get(t) {
            for &l in &locations[i] {
                self.written[l] = self.written[l].wrapping_add_signed(by);
            }
        }
        let (reads, writes) = &self.rmw_paths[t][i];
        for &r in reads {
            self.rmw_read[r] = self.rmw_read[r].wrapping_add_signed(by);
        }
        for &w in writes {
            self.rmw_written[w] = self.rmw_written[w].wrapping_add_signed(by);
        }
    }

    /// Whether the RMWs of the chosen paths (threads `t..`) can still each
    /// read a write of their own (or the initial value): no pair read by
    /// more RMWs than the chosen paths and the threads before `t` can
    /// write it, plus the initial value.
    fn rmw_chains(&self, t: usize) -> bool {
        (0..self.rmw_read.len()).all(|id| {
            self.rmw_read[id] <= self.rmw_written[id] + self.rmw_below[t][id] + self.rmw_init[id]
        })
    }

    /// Whether the threads before `t` can still make up the balances of
    /// the RMW chains the walk checks.
    fn balanced(&self, t: usize) -> bool {
        self.flow
            .as_ref()
            .is_none_or(|f| f.holds(t, &self.rmw_read, &self.rmw_written, self.rmw_init))
    }

    /// Whether the chosen paths write some location more often than the
    /// order limit allows (never without write pruning).
    fn too_many_writes(&self) -> bool {
        self.written.iter().any(|&n| n > self.max_writes)
    }

    /// Whether every read of the chosen paths (threads `t..`) can still
    /// get its value: written by another event of a chosen path, or by
    /// some path of a thread before `t`.
    fn available(&self, t: usize) -> bool {
        (t..self.idx.len()).all(|u| {
            self.summary[u][self.idx[u]]
                .needs
                .iter()
                .all(|&(w, own, d)| {
                    self.chosen[w] > usize::from(own)
                        || self.below[t][w]
                        || self.chosen[d] > 0
                        || self.below[t][d]
                })
        })
    }
}
