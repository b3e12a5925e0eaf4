//! The execution-independent part of the executions of one combination
//! of paths ([`Skeleton`]), and the search over its choices (reads-from,
//! coherence, SC and interlock orders).

use super::barrier::{self, BarrierGroup};
use super::limits::{ExecError, Limits};
use super::reduce::{self, rotation, symmetry};
use super::trace::{self, Ending, EventInfo, RegValue, Stuck};
use super::{base, choices, interlock};
use crate::cat::Env;
use crate::ir::Program;
use crate::model::names;
use crate::relation::Relation;
use trace::Path;

mod key;
pub use key::{Listed, MAX_SEARCH_KEY_BYTES, SearchKey, SearchKeys};

/// A path's registers with their reads numbered among the skeleton's
/// events (the path's events start at `offset`) and their expressions
/// among the skeleton's (the path's start at `exprs`).
fn shifted(regs: &[(String, RegValue)], offset: usize, exprs: usize) -> Vec<(String, RegValue)> {
    regs.iter()
        .map(|(r, v)| (r.clone(), base::shift(*v, offset, exprs)))
        .collect()
}

/// The execution-independent part of the executions of one combination of paths.
#[derive(Clone)]
pub struct Skeleton {
    /// The events, thread by thread in program order.
    pub events: Vec<EventInfo>,
    /// The static base sets and relations (see MODELS.md).
    pub static_env: Env,
    /// The shape `static_env` was built for (`base::Shape`): skeletons
    /// of one walk whose paths differ only in read values share it. The
    /// driver looks up the model prepared for an earlier skeleton by it
    /// (and checks the environments equal on a hit).
    pub shape: u64,
    /// Read events, in event order.
    pub reads: Vec<usize>,
    /// For each read (same order as `reads`): the writes it may read from,
    /// `None` standing for the initial value.
    pub rf_choices: Vec<Vec<Option<usize>>>,
    /// For each location with atomic writes: the possible scoped modification orders.
    pub mo_choices: Vec<Vec<(Relation, Relation)>>,
    /// The possible SC orders over sequentially consistent operations
    /// (one empty order when there are none).
    pub sco_choices: Vec<Relation>,
    /// The possible interlock orders of the fragment invocations (one empty
    /// order when none executes interlocked code; `engine::interlock`).
    pub ilo_choices: Vec<Relation>,
    /// Final registers of each thread: the value, or the event whose read gives it.
    pub registers: Vec<Vec<(String, RegValue)>>,
    /// How each thread's path ends; a stuck loop's iterations are ranges of
    /// this skeleton's event indices.
    pub endings: Vec<Ending>,
    /// The dynamic control barrier instances and who arrives at each
    /// ([`barrier`]).
    pub barriers: Vec<BarrierGroup>,
    /// Restrict RMW reads to their immediate `asmo` predecessor under each
    /// order ([`crate::model::SearchProfile::rmw_atomicity`] and [`Reduction::RmwFilter`](super::Reduction::RmwFilter)).
    pub rmw_filter: bool,
    /// Ask the pruning callback under each combination of coherence orders
    /// with only the forced reads assigned ([`Reduction::OrderPruning`](super::Reduction::OrderPruning)).
    pub order_pruning: bool,
    /// The initial value of each location in this skeleton's executions:
    /// the program's, with one value of [`undefined::Domain`](super::undefined::Domain) for each
    /// location whose initial value is undefined (`Program::undefined`).
    pub initial: Vec<i64>,
    /// Whether every group function's result the paths fixed is the one
    /// the work-items' contributions give (else the combination of paths
    /// has no execution: [`Skeleton::barrier_choices`] drops it).
    groups_agree: bool,
    /// What listing the orders needs, until [`Skeleton::list_orders`] has
    /// listed them (`mo_choices` and `sco_choices` are empty until then).
    unlisted: Option<std::sync::Arc<(base::Facts, Limits)>>,
    /// The expressions of the paths' registers and derived stores
    /// ([`trace::RegValue::Expr`], [`EventInfo::derived`]).
    pub exprs: Vec<trace::ValueExpr>,
    /// When some store is derived or some register an expression: what
    /// [`values::resolve`](super::values::resolve) needs to give each candidate its values.
    pub derivation: Option<std::sync::Arc<Derivation>>,
    /// With symmetry reduction ([`Explorer::set_symmetry`](super::Explorer::set_symmetry)): what the
    /// skeleton's candidates stand for ([`Skeleton::multiplicity`]).
    pub symmetry: Option<Box<SkeletonSymmetry>>,
    /// With reduction by renaming locations ([`Explorer::set_rotation`](super::Explorer::set_rotation)):
    /// the group, and how many of its powers give the distinct images the
    /// skeleton's executions stand for (`0..images`, the first the
    /// identity). The visitor records each execution's images itself;
    /// [`Skeleton::multiplicity`] does not count them.
    pub rotation: Option<SkeletonRotation>,
    /// Per read (same order as `reads`): its location when it is an
    /// observation read whose reads-from choices the search may factor
    /// (`choices::observation_reads`); empty when none may be.
    pub observation: Vec<Option<usize>>,
    /// Whether [`Skeleton::list_orders`] may list one order for the
    /// locations of commuting RMWs (the visitor counts
    /// [`Skeleton::multiplicity`]: [`super::Needs::commuting_rmws`]).
    pub commuting_allowed: bool,
    /// The orders each candidate stands for on those locations (the
    /// product of their interleavings' counts; 1 when none was reduced).
    pub commuting_within: u64,
}

/// Everything of a skeleton its candidate search reads, in full: the
/// oracle [`SearchKeys`]' compact keys are tested against.
/// A derivation's locations and domains, in full.
#[cfg(test)]
type FullDerivation = (Vec<Option<usize>>, Vec<Vec<i64>>);

#[cfg(test)]
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FullSearchKey {
    events: Vec<EventInfo>,
    listed_read_values: Vec<Option<i64>>,
    sequenced_writes: Vec<(usize, usize)>,
    reads: Vec<usize>,
    rf_choices: Vec<Vec<Option<usize>>>,
    ilo_choices: Vec<Relation>,
    registers: Vec<Vec<(String, RegValue)>>,
    endings: Vec<Ending>,
    barriers: Vec<BarrierGroup>,
    initial: Vec<i64>,
    exprs: Vec<trace::ValueExpr>,
    derivation: Option<FullDerivation>,
    observation: Vec<Option<usize>>,
    flags: [bool; 3],
}

/// What [`values::resolve`](super::values::resolve) needs beyond the skeleton's events: each event's
/// location, and each location's value domain (the values a read on a
/// cycle of derived stores may take).
#[derive(Debug)]
pub struct Derivation {
    pub locations: Vec<Option<usize>>,
    pub domains: std::sync::Arc<Vec<Vec<i64>>>,
}

/// What a skeleton of a walk reduced by renaming locations stands for
/// ([`rotation`], [`Skeleton::rotation`]).
#[derive(Clone, Debug)]
pub struct SkeletonRotation {
    pub group: std::sync::Arc<rotation::Rotation>,
    /// The size of the combination's orbit: its executions stand for
    /// their images under the powers `0..images`.
    pub images: usize,
}

/// What a skeleton of a walk reduced by symmetry stands for
/// ([`symmetry`]).
#[derive(Clone, Debug)]
pub struct SkeletonSymmetry {
    /// The walk's classes of interchangeable threads.
    pub classes: std::sync::Arc<symmetry::Symmetry>,
    /// The distinct combinations of paths the class permutations make of
    /// this one.
    pub combinations: u64,
    /// The threads of one class on the same path (at least two each).
    pub(super) groups: Vec<Vec<usize>>,
    /// The permutations of those groups each candidate stands for (the
    /// product of `|G|!` over the groups whose orders are reduced:
    /// [`Skeleton::list_orders`]).
    pub(super) within: u64,
}

impl Skeleton {
    /// The skeleton of a straight-line program (every thread has exactly one path).
    pub fn straight_line(program: &Program, limits: Limits) -> Result<Skeleton, ExecError> {
        let threads = trace::explore(program, &limits, reduce::PathPlan::of(&limits))?;
        if threads.iter().any(|t| t.paths.len() != 1) {
            return Err(ExecError::new("the program is not straight-line"));
        }
        let paths: Vec<&Path> = threads.iter().map(|t| &t.paths[0]).collect();
        Skeleton::build(program, &paths, limits)
    }

    /// [`Skeleton::straight_line`] without its coherence and SC orders
    /// listed: the static environment and the reads-from choices only
    /// (what `vkmm diff`'s symbolic search reads of its probe test, whose
    /// many writes to one location have too many orders to list).
    pub fn straight_line_unlisted(
        program: &Program,
        limits: Limits,
    ) -> Result<Skeleton, ExecError> {
        let threads = trace::explore(program, &limits, reduce::PathPlan::of(&limits))?;
        if threads.iter().any(|t| t.paths.len() != 1) {
            return Err(ExecError::new("the program is not straight-line"));
        }
        let paths: Vec<&Path> = threads.iter().map(|t| &t.paths[0]).collect();
        let own = own_pinned(
            program,
            &limits,
            &reduce::CombinationPlan::of(program, &limits),
        );
        Skeleton::build_unlisted(program, &paths, limits, None, &own, None)
    }

    /// Builds the skeleton of one path per thread.
    pub fn build(
        program: &Program,
        paths: &[&Path],
        limits: Limits,
    ) -> Result<Skeleton, ExecError> {
        let own = own_pinned(
            program,
            &limits,
            &reduce::CombinationPlan::of(program, &limits),
        );
        let mut sk = Skeleton::build_unlisted(program, paths, limits, None, &own, None)?;
        sk.list_orders(None)?;
        Ok(sk)
    }

    /// Lists the coherence and SC orders, if not done yet. The walk builds
    /// skeletons without them and lists them only for the skeletons its
    /// visitor wants: their number grows as the factorial of the writes to
    /// a location, and a visitor may refuse most skeletons (termination
    /// wants only those with a stuck loop, a schedule its progress model
    /// allows and a repetition).
    ///
    /// `may_precede(a, b)`: whether write `a` may come before write `b` of
    /// the same location in a coherence order the caller wants (`None`:
    /// any); orders putting `a` first are not listed.
    pub fn list_orders(
        &mut self,
        may_precede: Option<&dyn Fn(usize, usize) -> bool>,
    ) -> Result<(), ExecError> {
        if let Some(pending) = self.unlisted.take() {
            let (facts, limits) = &*pending;
            let plan = reduce::OrderPlan::of(limits);
            let mut required = if plan.coherence_pairs {
                choices::coherence_pairs(&self.events, facts, &self.reads, &self.rf_choices)
            } else {
                Vec::new()
            };
            if plan.write_pairs {
                required.extend(choices::write_pairs(&self.events, facts));
            }
            required.extend(facts.sequenced_writes.iter().copied());
            if let Some(sym) = &mut self.symmetry {
                // Groups of interchangeable threads on one path: their
                // first writes to a location every order relates, in
                // thread order ([`symmetry`]).
                let (pairs, within) =
                    choices::symmetry_pairs(&self.events, facts, limits, &sym.groups);
                required.extend(pairs);
                sym.within = within;
            }
            if plan.commuting_rmws && self.commuting_allowed && may_precede.is_none() {
                // Locations whose every access is an RMW of one commuting
                // kind, result unused: one order, thread by thread
                // ([`Reduction::CommutingRmws`](super::Reduction::CommutingRmws)).
                let (pairs, within) = choices::commuting_orders(&self.events, facts, &required);
                required.extend(pairs);
                self.commuting_within = within;
            }
            self.mo_choices =
                choices::mo_choices(&self.events, facts, *limits, may_precede, &required)?;
            self.sco_choices = choices::sco_choices(&self.events, facts, *limits)?;
        }
        Ok(())
    }

    /// Everything of the skeleton its candidate search reads, in full
    /// (what [`SearchKeys::key`] keeps compactly), before its orders are
    /// listed; `None` after, or with a symmetry or rotation reduction.
    #[cfg(test)]
    pub(crate) fn full_search_key(&self) -> Option<FullSearchKey> {
        if self.symmetry.is_some() || self.rotation.is_some() {
            return None;
        }
        let (facts, _) = &**self.unlisted.as_ref()?;
        Some(FullSearchKey {
            events: self.events.clone(),
            listed_read_values: facts.read_value.clone(),
            sequenced_writes: facts.sequenced_writes.clone(),
            reads: self.reads.clone(),
            rf_choices: self.rf_choices.clone(),
            ilo_choices: self.ilo_choices.clone(),
            registers: self.registers.clone(),
            endings: self.endings.clone(),
            barriers: self.barriers.clone(),
            initial: self.initial.clone(),
            exprs: self.exprs.clone(),
            derivation: self
                .derivation
                .as_ref()
                .map(|d| (d.locations.clone(), (*d.domains).clone())),
            observation: self.observation.clone(),
            flags: [self.rmw_filter, self.order_pruning, self.groups_agree],
        })
    }

    /// [`Skeleton::build`] without the orders ([`Skeleton::list_orders`]).
    pub(super) fn build_unlisted(
        program: &Program,
        paths: &[&Path],
        limits: Limits,
        initial: Option<&[i64]>,
        own: &[std::collections::HashSet<usize>],
        shapes: Option<&base::ShapeCache>,
    ) -> Result<Skeleton, ExecError> {
        let (mut events, mut static_env, mut facts, shape) =
            base::static_env_bounded(program, paths, shapes, &limits.bounds)?;
        let initial: Vec<i64> = match initial {
            Some(i) => i.to_vec(),
            None => (0..program.locations.len())
                .map(|l| program.initial_value(l))
                .collect(),
        };
        if !program.undefined.is_empty() {
            // Reads of the initial value see this skeleton's assignment.
            for (e, v) in facts.initial_value.iter_mut().enumerate() {
                if let Some(l) = facts.location[e] {
                    *v = initial[l];
                }
            }
        }
        let (reads, rf_choices) = choices::rf_choices(&events, &facts, own);
        let plan = reduce::OrderPlan::of(&limits);
        if plan.sequenced_writes {
            let classes = limits.profile.co_write_write_coherence;
            facts.sequenced_writes =
                choices::sequenced_write_pairs(program, &events, &facts, classes);
        }
        let ilo_choices = interlock::ilo_choices(
            program,
            &events,
            limits.profile.interlock_order,
            limits.bounds.max_writes_per_location,
        )?;
        let mut registers = Vec::new();
        let mut endings = Vec::new();
        let mut exprs: Vec<trace::ValueExpr> = Vec::new();
        let mut offset = 0;
        for p in paths {
            endings.push(match &p.ending {
                Ending::Stuck(st) => Ending::Stuck(Stuck {
                    iterations: st
                        .iterations
                        .iter()
                        .map(|r| r.start + offset..r.end + offset)
                        .collect(),
                    registers: st
                        .registers
                        .iter()
                        .map(|regs| shifted(regs, offset, exprs.len()))
                        .collect(),
                    ..st.clone()
                }),
                e => e.clone(),
            });
            registers.push(shifted(&p.registers, offset, exprs.len()));
            let (first_event, first_expr) = (offset, exprs.len());
            exprs.extend(p.exprs.iter().map(|x| trace::ValueExpr {
                op: x.op,
                a: base::shift(x.a, first_event, first_expr),
                b: base::shift(x.b, first_event, first_expr),
            }));
            offset += p.events.len();
        }
        let barriers = barrier::groups(program, &events, &endings);
        // Group functions' results, exactly, from what the work-items
        // contribute; a path that fixed another value is not part of an
        // execution with these paths.
        let mut groups_agree = true;
        let mut results = std::collections::HashMap::new();
        for (e, r) in barrier::group_results(program, &events, &barriers) {
            let v = match (events[e].read_value, r) {
                (Some(fixed), Some(r)) => {
                    groups_agree &= fixed == r;
                    r
                }
                // Undefined (a broadcast from a work-item that does not
                // take part): the value the path assumed, else 0.
                (fixed, r) => r.or(fixed).unwrap_or(0),
            };
            events[e].read_value = Some(v);
            results.insert(e, v);
        }
        if !results.is_empty() {
            let resolve = |regs: &mut Vec<(String, RegValue)>| {
                for (_, v) in regs.iter_mut() {
                    if let RegValue::Read(e) = *v
                        && let Some(r) = results.get(&e)
                    {
                        *v = RegValue::Const(*r);
                    }
                }
            };
            registers.iter_mut().for_each(resolve);
            for ending in &mut endings {
                if let Ending::Stuck(st) = ending {
                    st.registers.iter_mut().for_each(resolve);
                }
            }
        }
        static_env.rel(
            names::SCBARINST,
            barrier::scbarinst(events.len(), &barriers, &[]),
        );
        let observation = choices::observation_reads(program, &events, &reads, &exprs, &limits);
        Ok(Skeleton {
            events,
            static_env,
            shape,
            reads,
            rf_choices,
            mo_choices: Vec::new(),
            sco_choices: Vec::new(),
            ilo_choices,
            registers,
            endings,
            barriers,
            rmw_filter: plan.rmw_filter,
            order_pruning: plan.order_pruning,
            initial,
            groups_agree,
            unlisted: Some(std::sync::Arc::new((facts, limits))),
            exprs,
            derivation: None,
            symmetry: None,
            rotation: None,
            observation,
            commuting_allowed: false,
            commuting_within: 1,
        })
    }

    /// How many executions each candidate of this skeleton stands for: 1
    /// without symmetry reduction; else its image under every permutation
    /// of the interchangeable threads that gives another execution
    /// ([`symmetry`]). Final after [`Skeleton::list_orders`].
    pub fn multiplicity(&self) -> u64 {
        self.symmetry
            .as_ref()
            .map_or(1, |s| s.combinations.saturating_mul(s.within))
            .saturating_mul(self.commuting_within)
    }

    /// The events that pass a barrier with a quorum too few invocations
    /// reach: the combination of paths is not an execution (they would
    /// wait forever).
    pub fn stalled_barriers(&self) -> Vec<usize> {
        self.barriers.iter().flat_map(|g| g.stalled()).collect()
    }

    /// This skeleton once per choice of the arrivals that complete each
    /// barrier with a quorum (`scbarinst` differs; see [`barrier`]): itself
    /// alone when there is nothing to choose, or when a barrier is stalled.
    pub fn barrier_choices(self) -> Result<Vec<Skeleton>, ExecError> {
        if !self.groups_agree {
            return Ok(Vec::new());
        }
        if !self.stalled_barriers().is_empty() {
            return Ok(vec![self]);
        }
        let choices = barrier::sync_choices(&self.barriers)?;
        if choices.len() <= 1 {
            return Ok(vec![self]);
        }
        Ok(choices
            .iter()
            .map(|c| {
                let mut sk = self.clone();
                let r = barrier::scbarinst(sk.events.len(), &sk.barriers, c);
                sk.static_env.rel(names::SCBARINST, r);
                sk
            })
            .collect())
    }

    /// Number of events.
    pub fn universe(&self) -> usize {
        self.events.len()
    }

    /// The number of candidate executions (product of the choices).
    pub fn candidate_count(&self) -> u128 {
        let rf: u128 = self
            .rf_choices
            .iter()
            .map(|c| c.len() as u128)
            .fold(1u128, |a, b| a.saturating_mul(b));
        let mo: u128 = self
            .mo_choices
            .iter()
            .map(|c| c.len() as u128)
            .fold(1u128, |a, b| a.saturating_mul(b));
        rf.saturating_mul(mo)
            .saturating_mul(self.sco_choices.len() as u128)
            .saturating_mul(self.ilo_choices.len() as u128)
    }
}

/// Per thread, the locations whose reads read only the thread's latest
/// earlier write there ([`Reduction::OwnForwarding`](super::Reduction::OwnForwarding) with the latest-own-write
/// filter: [`trace::own_sets`]); empty sets with the lever off.
pub(super) fn own_pinned(
    program: &Program,
    limits: &Limits,
    plan: &reduce::CombinationPlan,
) -> Vec<std::collections::HashSet<usize>> {
    if plan.pin_own_reads {
        trace::own_sets(program, limits, reduce::PathPlan::of(limits))
    } else {
        vec![std::collections::HashSet::new(); program.threads.len()]
    }
}
