//! Control barriers of one combination of paths: which invocations meet at
//! which dynamic barrier instance, whether it opens, and which arrivals
//! synchronize through it (the base relation `scbarinst`).
//!
//! The rules, with the sentences they encode:
//!
//! - **Who meets.** Vulkan appendix, synchronizes-with: "A and B are in the
//!   instance of C's execution scope"; SPIR-V memory model for OpenCL, 3.6.3:
//!   "The control barrier function provides a mechanism for a kernel to
//!   synchronize the work-items within a single scope instance defined by
//!   the WorkGroup or SubGroup execution scope parameter", and "each
//!   execution of the same static barrier call results in a new dynamic
//!   instance of the barrier that will independently synchronize the scope
//!   instance's Invocations". A dynamic instance is therefore keyed by the
//!   static instance number, how many times the invocation's path reached
//!   that number (a barrier in a loop meets per iteration), the instance of
//!   the barrier's execution scope that holds the invocation, and, for a
//!   named barrier, its id value (Dat3M's `NamedBarrier`: "Only barriers
//!   with the same instanceId and the same resourceId can synchronize with
//!   each other").
//! - **When it opens.** An unnamed barrier, or a named one without a quorum:
//!   when every invocation of the execution-scope instance arrives
//!   (glossary: "A control barrier blocks some set of invocations from
//!   progressing until all of them reach the same point in the
//!   execution"). A barrier with a quorum `Q`: when `Q` invocations have
//!   arrived. The specifications have no quorum; the meaning is Dat3M's
//!   (`NamedBarrier`: "Minimal number of threads required to reach a
//!   control barrier before any thread can proceed", and its
//!   `ProgramEncoder.encodeNamedBarrierCfQuorum`): every arrival passes once
//!   at least `Q` arrive, none passes otherwise.
//! - **Who synchronizes.** Without a quorum, every arrival with every other
//!   one. With a quorum, the barrier is completed by some set `S` of at
//!   least `Q` arrivals — those that were there when it opened — and a
//!   passing invocation synchronizes with the members of `S` (their release
//!   side reaches every arrival; an arrival outside `S` came late and
//!   releases to no one). Dat3M leaves `S` open (its `sync` variables, with
//!   `sync_count >= quorum`); vkmm enumerates every `S`, one skeleton each
//!   ([`Skeleton::barrier_choices`](super::Skeleton::barrier_choices)).
//!
//! A path that *passes* a barrier with a quorum that does not open is not
//! an execution (the invocation would wait forever): the driver skips such a
//! combination and tells the visitor ([`super::Visitor::stalled`]). A path
//! that passes an unnamed barrier some member of its instance never reaches
//! is *barrier divergence*: undefined, kept and diagnosed by the analyses
//! (`analysis::barriers`).

use super::instances::thread_in_instance;
use super::limits::{ExecError, LimitKind};
use super::trace::EventInfo;
use super::trace::{BarrierValues, Ending};
use crate::ir::{GroupOp, OpKind, Program, Scope, Stmt};
use crate::relation::Relation;

/// A dynamic barrier instance as one thread sees it: the static instance
/// number and how many times the thread's path reached a barrier with that
/// number (1 for the first).
pub type BarrierKey = (u32, usize);

/// One dynamic barrier instance of a skeleton and the invocations that
/// arrive at it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BarrierGroup {
    pub key: BarrierKey,
    /// The id value of a named barrier.
    pub id: Option<i64>,
    /// The group function the arrivals call (`None`: a control barrier).
    /// Arrivals at one position with different functions are different
    /// groups, each missing the others: 2.4, "all Invocations in the
    /// work-group must encounter precisely the same work-group function".
    pub function: Option<GroupOp>,
    /// The execution scope.
    pub scope: Scope,
    /// A non-uniform group instruction's dynamic instance
    /// ([`crate::ir::GroupFunction::nonuniform`]): its arrivals are the
    /// tangle (the threads whose paths reach it with the same key, `id`);
    /// the other members do not take part, and no one waits.
    pub tangled: bool,
    /// The threads of the execution-scope instance, in order.
    pub members: Vec<usize>,
    /// The barrier events that pass it (skeleton event indices, in order),
    /// with each one's quorum value.
    pub passed: Vec<(usize, Option<i64>)>,
    /// The threads whose path ends waiting at it, with their quorum value.
    pub waiting: Vec<(usize, Option<i64>)>,
}

impl BarrierGroup {
    /// How many invocations arrive (pass or wait).
    pub fn arrivals(&self) -> usize {
        self.passed.len() + self.waiting.len()
    }

    /// How many arrivals an arrival with this quorum needs before it
    /// passes: the quorum, or every member of the instance.
    pub fn required(&self, quorum: Option<i64>) -> usize {
        match quorum {
            Some(q) => usize::try_from(q).unwrap_or(usize::MAX),
            None => self.members.len(),
        }
    }

    /// Whether an arrival with this quorum can pass: enough arrive.
    pub fn opens_for(&self, quorum: Option<i64>) -> bool {
        self.tangled || self.arrivals() >= self.required(quorum)
    }

    /// Whether the barrier has a quorum (for some arrival).
    pub fn has_quorum(&self) -> bool {
        self.passed
            .iter()
            .chain(&self.waiting)
            .any(|(_, q)| q.is_some())
    }

    /// The passing events whose quorum is not reached: the path passes a
    /// barrier that cannot open for it.
    pub fn stalled(&self) -> impl Iterator<Item = usize> + '_ {
        self.passed
            .iter()
            .filter(|(_, q)| q.is_some() && !self.opens_for(*q))
            .map(|(e, _)| *e)
    }

    /// The threads of the execution-scope instance that neither pass nor
    /// wait at this barrier (none for a tangle: who does not reach it with
    /// the same key is not expected).
    pub fn absent<'a>(&'a self, events: &'a [EventInfo]) -> impl Iterator<Item = usize> + 'a {
        self.members.iter().copied().filter(move |&u| {
            !self.tangled
                && !self.passed.iter().any(|(e, _)| events[*e].thread == u)
                && !self.waiting.iter().any(|(w, _)| *w == u)
        })
    }

    /// The fewest passing arrivals a synchronizing set must hold: the
    /// largest quorum among the passing ones (with no quorum: all of them).
    fn least_sync(&self) -> usize {
        let most = self.passed.iter().filter_map(|(_, q)| *q).max();
        match most {
            Some(q) if self.passed.iter().all(|(_, q)| q.is_some()) => usize::try_from(q)
                .unwrap_or(usize::MAX)
                .min(self.passed.len()),
            _ => self.passed.len(),
        }
    }
}

/// The barriers of a skeleton: the events (in order, thread by thread) and
/// how each thread's path ends.
pub fn groups(program: &Program, events: &[EventInfo], endings: &[Ending]) -> Vec<BarrierGroup> {
    let mut out: Vec<BarrierGroup> = Vec::new();
    let mut counts: std::collections::HashMap<(usize, u32), usize> = Default::default();
    let place = |thread: usize,
                 key: BarrierKey,
                 scope: Scope,
                 values: BarrierValues,
                 function: Option<GroupOp>,
                 tangled: bool,
                 out: &mut Vec<BarrierGroup>|
     -> usize {
        let first = (0..program.threads.len())
            .find(|&u| thread_in_instance(program, u, scope, thread))
            .unwrap_or(thread);
        if let Some(k) = out.iter().position(|g| {
            g.key == key
                && g.id == values.id
                && g.function == function
                && g.scope == scope
                && g.tangled == tangled
                && g.members.first() == Some(&first)
        }) {
            return k;
        }
        out.push(BarrierGroup {
            key,
            id: values.id,
            function,
            scope,
            tangled,
            members: (0..program.threads.len())
                .filter(|&u| thread_in_instance(program, u, scope, thread))
                .collect(),
            passed: Vec::new(),
            waiting: Vec::new(),
        });
        out.len() - 1
    };
    for (e, ev) in events.iter().enumerate() {
        if let OpKind::ControlBarrier {
            instance,
            execution_scope,
            ..
        } = ev.instruction(program).kind
        {
            let group = ev.instruction(program).group.as_ref();
            let function = group.map(|f| f.op);
            let tangled = group.is_some_and(|f| f.nonuniform);
            // A non-uniform instruction's dynamic instance is its static
            // instance and the tangle key alone: the key already tells
            // loop iterations apart (docs/format-spirv.md, "Subgroup
            // operations"), and the invocations of one tangle need not
            // have reached it equally often.
            let pass = if tangled {
                0
            } else {
                let k = counts.entry((ev.thread, instance)).or_insert(0);
                *k += 1;
                *k
            };
            let g = place(
                ev.thread,
                (instance, pass),
                execution_scope,
                ev.barrier,
                function,
                tangled,
                &mut out,
            );
            out[g].passed.push((e, ev.barrier.quorum));
        }
    }
    for (t, ending) in endings.iter().enumerate() {
        if let Ending::Blocked {
            stmt,
            key,
            scope,
            values,
        } = ending
        {
            let function = match &program.threads[t].code[*stmt] {
                Stmt::Op(i) => i.group.as_ref().map(|f| f.op),
                _ => None,
            };
            let g = place(t, *key, *scope, *values, function, false, &mut out);
            out[g].waiting.push((t, values.quorum));
        }
    }
    out
}

/// The result of every group function event of a skeleton: `(event,
/// result)`, `None` when the result is undefined (a broadcast from a local
/// id that takes no part). The work-items of a dynamic instance are its
/// execution-scope instance's members, whose local ids are their places in
/// [`BarrierGroup::members`] (litmus order); each contributes the value its
/// path gave, or nothing when it does not pass the instance (divergence,
/// reported by `analysis::barriers`), which includes passing it with
/// another group function or a barrier (another group). 2.4:
/// "These functions carry out collective operations across all the
/// Invocations in a work-group" (and "in a sub-group").
pub fn group_results(
    program: &Program,
    events: &[EventInfo],
    groups: &[BarrierGroup],
) -> Vec<(usize, Option<i64>)> {
    let mut out = Vec::new();
    for g in groups {
        let values: Vec<Option<i64>> = g
            .members
            .iter()
            .map(|&u| {
                g.passed
                    .iter()
                    .find(|(e, _)| events[*e].thread == u)
                    .and_then(|(e, _)| events[*e].barrier.contribution)
            })
            .collect();
        for &(e, _) in &g.passed {
            let Some(f) = &events[e].instruction(program).group else {
                continue;
            };
            let me = g
                .members
                .iter()
                .position(|&u| u == events[e].thread)
                .unwrap_or(0);
            out.push((
                e,
                f.op.result_at(&values, me, events[e].barrier.local_id, f.width),
            ));
        }
    }
    out
}

/// `scbarinst` for one choice of synchronizing sets: `(a, b)` when `b`
/// passes the dynamic instance `a` passes and `a` is in its synchronizing
/// set (`sync[g]`, indices into the group's `passed`; `None`: all of them).
pub fn scbarinst(n: usize, groups: &[BarrierGroup], sync: &[Option<Vec<usize>>]) -> Relation {
    let mut pairs = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        let chosen: Vec<usize> = match sync.get(g).and_then(|s| s.as_ref()) {
            Some(s) => s.iter().map(|&i| group.passed[i].0).collect(),
            None => group.passed.iter().map(|(e, _)| *e).collect(),
        };
        for &a in &chosen {
            for (b, _) in &group.passed {
                pairs.push((a, *b));
            }
        }
    }
    Relation::from_pairs(n, pairs)
}

/// Every choice of synchronizing sets: per group with a quorum, each set of
/// at least the quorum among its passing arrivals (`None` for the other
/// groups: all synchronize). One choice (all `None`) when no group has a
/// quorum with more arrivals than it needs.
pub fn sync_choices(groups: &[BarrierGroup]) -> Result<Vec<Vec<Option<Vec<usize>>>>, ExecError> {
    let mut per_group = Vec::new();
    for g in groups {
        let n = g.passed.len();
        let least = g.least_sync();
        per_group.push(if !g.has_quorum() || least >= n {
            vec![None]
        } else if n > MAX_QUORUM_ARRIVALS {
            return Err(ExecError::limit(
                LimitKind::QuorumArrivals,
                format!(
                    "{n} invocations pass barrier instance {} with a quorum: vkmm enumerates which of them complete it for at most {MAX_QUORUM_ARRIVALS}",
                    g.key.0
                ),
            ));
        } else {
            (0u64..1 << n)
                .filter(|m| m.count_ones() as usize >= least)
                .map(|m| Some((0..n).filter(|i| m >> i & 1 == 1).collect()))
                .collect()
        });
    }
    Ok(combinations(&per_group))
}

/// The most arrivals at one barrier with a quorum whose synchronizing sets
/// are enumerated (there are up to 2^n).
const MAX_QUORUM_ARRIVALS: usize = 12;

/// Every combination of one option from each list, in order (the
/// cartesian product; one empty combination for no lists).
pub fn combinations<T: Clone>(options: &[Vec<T>]) -> Vec<Vec<T>> {
    let mut out: Vec<Vec<T>> = vec![Vec::new()];
    for opts in options {
        out = out
            .into_iter()
            .flat_map(|c| {
                opts.iter().map(move |s| {
                    let mut c = c.clone();
                    c.push(s.clone());
                    c
                })
            })
            .collect();
    }
    out
}
