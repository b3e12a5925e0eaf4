//! [`Reduction::WitnessPruning`]: the termination search is offered only
//! combinations of paths that can hold a witness of non-termination. Two
//! parts, each dropping only what the search's own `wants` refuses:
//!
//! - the question's part ([`QuestionPlan::witness_pruning`]): a stuck path
//!   whose loop has no split of its iterations that matches
//!   (`analysis::termination`: the infix's iterations run the same
//!   statements with the same writes as the suffix's, and the suffix
//!   leaves the registers as it found them) is put in no block, so no
//!   skeleton holding it is built;
//! - the walk's part, here: for a visitor that wants only the combinations
//!   of paths whose control barriers are possible for a witness
//!   (`analysis::barriers::agree`: no barrier passed while a member of its
//!   execution-scope instance does not arrive, and no invocation waiting
//!   at a barrier that opens for it), the pruned walk drops a partial
//!   combination as soon as its chosen paths already break that, instead
//!   of building the skeleton of every completion and having the visitor
//!   refuse each one.
//!
//! The rule it anticipates rests on the glossary of the SPIR-V memory
//! model for OpenCL: "A control barrier blocks some set of invocations
//! from progressing until all of them reach the same point in the
//! execution". What the chosen paths (threads `t..`) fix is final for
//! every completion:
//!
//! - an arrival (passing or waiting) of a chosen thread at a dynamic
//!   barrier instance, and its absence: the other threads' paths do not
//!   change a chosen path, and the dynamic instance a thread reaches is
//!   keyed by its own path alone (`engine::barrier::groups`);
//! - a barrier that already opens for a waiting invocation opens in every
//!   completion: choosing more paths only adds arrivals.
//!
//! A barrier with a quorum passes with fewer arrivals than its instance
//! has members, so its absences are judged only once every member is
//! chosen, and in a program with any quorum operand (a group may meet
//! an arrival with a quorum later) only then.

use super::hook::{CombinationPlan, Hook, QuestionPlan};
use crate::engine::barrier;
use crate::engine::instances::thread_in_instance;
use crate::engine::limits::{Limits, Reduction};
use crate::engine::trace::{Ending, ThreadPaths};
use crate::ir::{GroupOp, OpKind, Program, Scope, Stmt};

pub(super) struct WitnessPruningHook;

impl Hook for WitnessPruningHook {
    fn reduction(&self) -> Reduction {
        Reduction::WitnessPruning
    }

    fn on_combinations(&self, _program: &Program, _limits: &Limits, plan: &mut CombinationPlan) {
        plan.barrier_pruning = true;
    }

    fn on_question(&self, _limits: &Limits, plan: &mut QuestionPlan) {
        plan.witness_pruning = true;
    }
}

/// One arrival of a thread at a dynamic barrier instance, as
/// `barrier::groups` places it: the instance it belongs to is
/// (`key`, `id`, `function`, `scope`, `tangled`, the first member of its
/// execution-scope instance).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Arrival {
    key: barrier::BarrierKey,
    id: Option<i64>,
    function: Option<GroupOp>,
    scope: Scope,
    tangled: bool,
    /// Index into [`BarrierPruning::instances`].
    instance: usize,
    quorum: Option<i64>,
    /// Whether the thread's path ends waiting there (else it passes).
    waiting: bool,
    /// The dynamic instance: arrivals of the same group
    /// ([`Arrival::same_group`]) have the same number.
    group: usize,
}

impl Arrival {
    fn same_group(&self, o: &Arrival) -> bool {
        self.key == o.key
            && self.id == o.id
            && self.function == o.function
            && self.scope == o.scope
            && self.tangled == o.tangled
            && self.instance == o.instance
    }
}

/// The partial check of a walk over combinations of paths
/// (`Explorer::set_barrier_agreement`), with each path's arrivals read
/// once.
pub(in crate::engine) struct BarrierPruning {
    /// Whether some control barrier of the program has a quorum operand.
    any_quorum: bool,
    /// The execution-scope instances met: their members, in order.
    instances: Vec<Vec<usize>>,
    /// Per thread, per path: its arrivals, in order.
    arrivals: Vec<Vec<Vec<Arrival>>>,
    /// How many groups the arrivals fall in ([`Arrival::group`]).
    groups: usize,
    /// What [`BarrierPruning::may_agree_in`] fills at each call.
    scratch: std::cell::RefCell<Scratch>,
}

/// The working space of [`BarrierPruning::may_agree_in`]: per group, its
/// place in `met` (`usize::MAX`: not met in this call; reset at the end
/// of each call), and the instances met.
#[derive(Default)]
struct Scratch {
    place: Vec<usize>,
    met: Vec<Met>,
}

/// One dynamic instance met by [`BarrierPruning::may_agree_in`]: one
/// arrival standing for it, how many arrivals pass and wait there, the
/// fewest arrivals that open it for an invocation waiting there
/// (`usize::MAX`: none waits), whether some arrival has a quorum, and
/// how many threads arrive there (`last`: the last thread counted; a
/// thread's arrivals are met together).
#[derive(Clone, Copy)]
struct Met {
    first: Arrival,
    passed: usize,
    waiting: usize,
    opens_at: usize,
    quorum: bool,
    threads: usize,
    last: usize,
}

impl BarrierPruning {
    pub(in crate::engine) fn of(program: &Program, threads: &[ThreadPaths]) -> BarrierPruning {
        let any_quorum = program.threads.iter().any(|t| {
            t.instructions().any(|i| {
                matches!(
                    i.kind,
                    OpKind::ControlBarrier {
                        quorum: Some(_),
                        ..
                    }
                )
            })
        });
        let mut instances: Vec<Vec<usize>> = Vec::new();
        // The instance of `scope` holding thread `u` (`barrier::groups`:
        // its members, found by `thread_in_instance`).
        let mut instance_of = |u: usize, scope: Scope| -> usize {
            let members: Vec<usize> = (0..program.threads.len())
                .filter(|&x| thread_in_instance(program, x, scope, u))
                .collect();
            match instances.iter().position(|m| *m == members) {
                Some(k) => k,
                None => {
                    instances.push(members);
                    instances.len() - 1
                }
            }
        };
        let mut memo: Vec<(usize, Scope, usize)> = Vec::new();
        let mut arrivals = Vec::with_capacity(threads.len());
        for (u, tp) in threads.iter().enumerate() {
            let mut per_path = Vec::with_capacity(tp.paths.len());
            for p in &tp.paths {
                let mut mine = Vec::new();
                let mut passes: Vec<(u32, usize)> = Vec::new();
                let mut instance =
                    |scope: Scope| match memo.iter().find(|&&(x, s, _)| x == u && s == scope) {
                        Some(&(_, _, k)) => k,
                        None => {
                            let k = instance_of(u, scope);
                            memo.push((u, scope, k));
                            k
                        }
                    };
                for e in &p.events {
                    let Stmt::Op(i) = &program.threads[u].code[e.stmt] else {
                        continue;
                    };
                    let OpKind::ControlBarrier {
                        instance: number,
                        execution_scope,
                        ..
                    } = i.kind
                    else {
                        continue;
                    };
                    let tangled = i.group.as_ref().is_some_and(|g| g.nonuniform);
                    // `barrier::groups`: a tangle's instance is its key
                    // alone; any other counts the thread's arrivals at the
                    // static instance number.
                    let pass = if tangled {
                        0
                    } else {
                        match passes.iter_mut().find(|(n, _)| *n == number) {
                            Some((_, k)) => {
                                *k += 1;
                                *k
                            }
                            None => {
                                passes.push((number, 1));
                                1
                            }
                        }
                    };
                    mine.push(Arrival {
                        key: (number, pass),
                        id: e.barrier.id,
                        function: i.group.as_ref().map(|g| g.op),
                        scope: execution_scope,
                        tangled,
                        instance: instance(execution_scope),
                        quorum: e.barrier.quorum,
                        waiting: false,
                        group: 0,
                    });
                }
                if let Ending::Blocked {
                    stmt,
                    key,
                    scope,
                    values,
                } = &p.ending
                {
                    let function = match &program.threads[u].code[*stmt] {
                        Stmt::Op(i) => i.group.as_ref().map(|f| f.op),
                        _ => None,
                    };
                    mine.push(Arrival {
                        key: *key,
                        id: values.id,
                        function,
                        scope: *scope,
                        tangled: false,
                        instance: instance(*scope),
                        quorum: values.quorum,
                        waiting: true,
                        group: 0,
                    });
                }
                per_path.push(mine);
            }
            arrivals.push(per_path);
        }
        // Number the groups once, so the walk compares numbers.
        let mut firsts: Vec<Arrival> = Vec::new();
        for a in arrivals.iter_mut().flatten().flatten() {
            a.group = match firsts.iter().position(|f| f.same_group(a)) {
                Some(k) => k,
                None => {
                    firsts.push(*a);
                    firsts.len() - 1
                }
            };
        }
        BarrierPruning {
            any_quorum,
            instances,
            arrivals,
            groups: firsts.len(),
            scratch: std::cell::RefCell::default(),
        }
    }

    /// The sets of threads the control barriers tie together, as ranges
    /// `lo..hi` of thread numbers: the smallest ranges such that every
    /// execution-scope instance met, and every subgroup (`subgroup[u]`,
    /// the threads' subgroup numbers: a group function's instance lies
    /// within one), falls in one of them. Whether a range's barriers and
    /// group results agree depends on its threads' paths alone.
    pub(in crate::engine) fn ranges(&self, subgroup: &[usize]) -> Vec<(usize, usize)> {
        let n = subgroup.len();
        // reach[u]: the highest thread tied to `u` or a thread before it.
        let mut reach: Vec<usize> = (0..n).collect();
        for members in &self.instances {
            if let (Some(&lo), Some(&hi)) = (members.iter().min(), members.iter().max()) {
                reach[lo] = reach[lo].max(hi);
            }
        }
        for u in 1..n {
            if subgroup[u] == subgroup[u - 1] {
                reach[u - 1] = reach[u - 1].max(u);
            }
        }
        let mut ranges = Vec::new();
        let (mut lo, mut hi) = (0, 0);
        for (u, &r) in reach.iter().enumerate() {
            hi = hi.max(r);
            if u == hi {
                ranges.push((lo, u + 1));
                lo = u + 1;
            }
        }
        ranges
    }

    /// Whether some completion of the chosen paths (`chosen[u]`, a path
    /// number of thread `u`, for the threads `u >= t`; the others are not
    /// read) can have barriers that agree, with each instance's arrivals
    /// listed. The walk reads one range ([`BarrierPruning::may_agree_in`]);
    /// the unit tests compare it with this.
    #[cfg(test)]
    pub(in crate::engine) fn may_agree(&self, chosen: &[usize], t: usize) -> bool {
        self.may_agree_in_listed(chosen, t, chosen.len())
    }

    /// Whether the barriers may agree (as the whole-walk check, which the
    /// unit tests keep, says) with the paths of the threads
    /// `t..hi` chosen and every other thread's left open (it may still
    /// arrive anywhere): a necessary condition for the barriers of any
    /// combination holding those paths to agree.
    ///
    /// Each dynamic instance met is summed up in counts
    /// ([`Met`]) kept in a scratch the calls share, so the walk's check
    /// at every node allocates nothing; the unit tests compare it with
    /// the check that lists each instance's arrivals
    /// (`may_agree_in_listed`, compiled for the tests).
    pub(in crate::engine) fn may_agree_in(&self, chosen: &[usize], t: usize, hi: usize) -> bool {
        let mut scratch = self.scratch.borrow_mut();
        let Scratch { place, met } = &mut *scratch;
        if place.len() != self.groups {
            *place = vec![usize::MAX; self.groups];
        }
        met.clear();
        for (u, &p) in chosen.iter().enumerate().take(hi).skip(t) {
            for a in &self.arrivals[u][p] {
                let k = match place[a.group] {
                    k if k != usize::MAX => k,
                    _ => {
                        place[a.group] = met.len();
                        met.push(Met {
                            first: *a,
                            passed: 0,
                            waiting: 0,
                            opens_at: usize::MAX,
                            quorum: false,
                            threads: 0,
                            last: usize::MAX,
                        });
                        met.len() - 1
                    }
                };
                let m = &mut met[k];
                m.quorum |= a.quorum.is_some();
                if a.waiting {
                    m.waiting += 1;
                    // The fewest arrivals that open the barrier for this
                    // waiting invocation (`BarrierGroup::opens_for`).
                    let at = match a.quorum {
                        Some(q) => usize::try_from(q).unwrap_or(usize::MAX),
                        None => self.instances[m.first.instance].len(),
                    };
                    m.opens_at = m.opens_at.min(at);
                } else {
                    m.passed += 1;
                }
                if m.last != u {
                    m.last = u;
                    m.threads += 1;
                }
            }
        }
        let agree = met.iter().all(|m| {
            // Every arrival at the instance is a member's (its instance is
            // the arriving thread's), in order.
            let members = &self.instances[m.first.instance];
            let arrivals = m.passed + m.waiting;
            // `BarrierGroup::opens_for`: a barrier that opens for a waiting
            // invocation now opens in every completion.
            if m.waiting > 0 && (m.first.tangled || arrivals >= m.opens_at) {
                return false;
            }
            let complete = members.first().is_none_or(|&lo| lo >= t)
                && members.last().is_none_or(|&last| last < hi);
            if m.passed == 0 || m.quorum || m.first.tangled || (self.any_quorum && !complete) {
                return true;
            }
            // `BarrierGroup::absent`: a chosen member that neither passes
            // nor waits there never will. The threads arriving are
            // chosen members, so every chosen member arrives exactly when
            // as many threads arrive as there are chosen members.
            let chosen_members = members.iter().filter(|&&u| (t..hi).contains(&u)).count();
            m.threads == chosen_members
        });
        for m in met.iter() {
            place[m.first.group] = usize::MAX;
        }
        agree
    }

    /// [`BarrierPruning::may_agree_in`] listing each instance's arrivals:
    /// the oracle the unit tests compare it with.
    #[cfg(test)]
    pub(in crate::engine) fn may_agree_in_listed(
        &self,
        chosen: &[usize],
        t: usize,
        hi: usize,
    ) -> bool {
        // Per dynamic instance met: one arrival standing for it, the
        // threads passing, those waiting (with their quorum), and whether
        // some arrival has a quorum.
        struct Met {
            first: Arrival,
            passed: Vec<usize>,
            waiting: Vec<Option<i64>>,
            quorum: bool,
        }
        let mut met: Vec<Met> = Vec::new();
        // Per group, its place in `met` (`usize::MAX`: not met yet).
        let mut place = vec![usize::MAX; self.groups];
        for (u, &p) in chosen.iter().enumerate().take(hi).skip(t) {
            for a in &self.arrivals[u][p] {
                let k = match place[a.group] {
                    k if k != usize::MAX => k,
                    _ => {
                        place[a.group] = met.len();
                        met.push(Met {
                            first: *a,
                            passed: Vec::new(),
                            waiting: Vec::new(),
                            quorum: false,
                        });
                        met.len() - 1
                    }
                };
                let m = &mut met[k];
                m.quorum |= a.quorum.is_some();
                if a.waiting {
                    m.waiting.push(a.quorum);
                } else {
                    m.passed.push(u);
                }
            }
        }
        met.iter().all(|m| {
            let members = &self.instances[m.first.instance];
            let arrivals = m.passed.len() + m.waiting.len();
            // `BarrierGroup::opens_for`: a barrier that opens for a waiting
            // invocation now opens in every completion.
            let opens = |q: Option<i64>| {
                m.first.tangled
                    || arrivals
                        >= match q {
                            Some(q) => usize::try_from(q).unwrap_or(usize::MAX),
                            None => members.len(),
                        }
            };
            if m.waiting.iter().any(|&q| opens(q)) {
                return false;
            }
            let complete = members.iter().all(|&u| (t..hi).contains(&u));
            if m.passed.is_empty() || m.quorum || m.first.tangled || (self.any_quorum && !complete)
            {
                return true;
            }
            // `BarrierGroup::absent`: a chosen member that neither passes
            // nor waits there never will.
            members.iter().all(|&u| {
                !(t..hi).contains(&u)
                    || m.passed.contains(&u)
                    || self.arrivals[u][chosen[u]]
                        .iter()
                        .any(|a| a.waiting && a.group == m.first.group)
            })
        })
    }
}
