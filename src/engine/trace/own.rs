//! The own-location analysis: locations only their own thread writes, and
//! the latest own write a read there takes.

use super::path::{PathPlan, Prov, RegValue};
use super::state::{State, location};
use crate::engine::limits::Limits;
use crate::ir::{OpKind, Program, Thread};
use std::collections::{HashMap, HashSet};

/// The locations whose reads in thread `t` can return only the thread's
/// latest earlier write there (the initial value when there is none), under
/// a model declaring `latest-own-write` ([`crate::model::SearchProfile::latest_own_write`],
/// with [`Reduction::OwnWriteFilter`](crate::engine::Reduction::OwnWriteFilter)): no other thread has a write (a store
/// or read-modify-write) to the location that some execution of it can
/// run (`reach`: with its initial registers and the uniforms' values
/// known), no thread deallocates it, its
/// initial value is defined, and every access of `t` to it goes through one
/// reference.
///
/// Why, in the Vulkan appendix's words. Let `R` be such a read, `W*` the
/// latest write to the location program-ordered before it. "Operation A
/// happens-before operation B if and only if any of the following is true:
/// A is program-ordered before B, ..." and "X is location-ordered before Y
/// for a location L in M if and only if any of the following is true: AX ==
/// AY and RX == RY and X→Y": `t`'s accesses of the location are
/// location-ordered in program order. "From-reads is a relation between
/// operations, where the first operation is a read, the second operation is
/// a write, and the first operation reads a value written earlier than the
/// second operation in the second operation's scoped modification order or
/// location order (or the first operation reads from the initial value, and
/// the second operation is any write to the same locations)", and "the
/// implementation must guarantee that no cycles exist in the union of the
/// following relations: location-ordered, scoped modification order (over
/// all atomic writes), reads-from, from-reads". Every write `R` could read
/// is `t`'s own (no other thread writes the location), or the initial value:
///
/// - a write program-ordered after `R`: it is location-ordered after `R`
///   and `R` reads from it, a cycle;
/// - a write program-ordered before `W*`: it is location-ordered before
///   `W*`, so `R` from-reads `W*`, which is location-ordered before `R`, a
///   cycle;
/// - the initial value while `W*` exists: `R` from-reads `W*`, the same
///   cycle.
///
/// So `R` reads `W*` (its value), or the initial value when there is no
/// `W*`. Dat3M's from-reads (`vulkan-dat3m`) keeps the second case, the
/// write read being location-ordered before `R`. The AsciiDoc rendering's
/// from-reads, without "or location order" (`vulkan-fr-asmo`), has none of
/// the second and third cycles for plain writes (reading one's own
/// overwritten plain store is allowed there): that model withdraws the
/// declaration. A location whose initial value is undefined is left out
/// (its initial value is a domain of its own, `engine::undefined`).
///
/// Two refinements: `classes` (a mask of storage classes, from the
/// model's declaration) leaves out a location with an access in another
/// class, and a location two accesses of one C expression reach in either
/// order (unsequenced operands, `may_be_unsequenced`) is left out: the
/// later one in program order need not come after the other (the OpenCL
/// models declare the filter for global and local objects, where their
/// sequenced-before is happens-before; opencl-rules.cat argues the same
/// three cycles there).
///
/// Every execution the filter drops closes one of those cycles, so the
/// consistent executions, and every answer drawn from them, are those of
/// the reference enumeration (`tests/differential/own_writes.rs`); what
/// changes is that paths reading a stale value of their own location (and
/// looping on it until the unrolling bound cuts them) are never walked.
pub fn own_locations(program: &Program, t: &Thread, classes: u64) -> HashSet<usize> {
    let shared = Shared::of(program, super::reach::Kept::Branching, &|| false);
    own_locations_among(program, t, classes, &shared)
}

/// What every thread's [`own_locations`] reads of the other threads: per
/// location, whether some thread deallocates it and which threads write
/// it (the first writer, and whether there is another). Computed once
/// for all threads: asked per thread, it would cost the square of the
/// threads.
struct Shared {
    deallocated: HashSet<usize>,
    writers: HashMap<usize, (usize, bool)>,
}

impl Shared {
    /// The summary of `program`'s threads, the runs of [`super::reach`]
    /// tracking the registers `kept` says; `stop` says when the request's
    /// time or memory is spent, and those runs give up from then on (each
    /// instruction then counts, as when a run passes its own budget).
    fn of(program: &Program, kept: super::reach::Kept, stop: &dyn Fn() -> bool) -> Shared {
        let mut deallocated = HashSet::new();
        let mut writers: HashMap<usize, (usize, bool)> = HashMap::new();
        let written = super::spin::written_locations(program);
        for (k, t) in program.threads.iter().enumerate() {
            // Only the instructions some execution of the thread can run
            // write (`reach`): an invocation whose constant ids keep it
            // away from a store, or send a runtime index to other cells,
            // is no writer of those cells. When the run gives up, every
            // instruction counts.
            let reached = super::reach::reachable(program, t, &written, kept, stop);
            let run = |pc: usize| reached.as_ref().is_none_or(|r| r[pc]);
            let instructions = t.code.iter().enumerate().filter_map(|(pc, s)| match s {
                crate::ir::Stmt::Op(i) if run(pc) => Some(i),
                _ => None,
            });
            for i in instructions {
                let Some(l) = program.location_of(i) else {
                    continue;
                };
                if matches!(i.kind, OpKind::Deallocate) {
                    deallocated.insert(l);
                }
                if i.is_write() {
                    let w = writers.entry(l).or_insert((k, false));
                    if w.0 != k {
                        w.1 = true;
                    }
                }
            }
        }
        Shared {
            deallocated,
            writers,
        }
    }

    /// Whether a thread other than `me` writes `l`, or some thread
    /// deallocates it.
    fn foreign(&self, l: usize, me: Option<usize>) -> bool {
        self.deallocated.contains(&l)
            || self
                .writers
                .get(&l)
                .is_some_and(|&(first, more)| more || Some(first) != me)
    }
}

/// [`own_locations`] with the other threads' accesses summed up once.
fn own_locations_among(
    program: &Program,
    t: &Thread,
    classes: u64,
    shared: &Shared,
) -> HashSet<usize> {
    let me = program.threads.iter().position(|x| std::ptr::eq(x, t));
    let mut refs: HashMap<usize, Option<usize>> = HashMap::new();
    let mut mixed: HashSet<usize> = HashSet::new();
    let accesses: Vec<&crate::ir::Instruction> = t.instructions().collect();
    for (k, i) in accesses.iter().enumerate() {
        let Some(l) = program.location_of(i) else {
            continue;
        };
        // A storage class the model's declaration leaves out.
        let class = i.storage_class.map_or(0, |c| c.0);
        if class >= 64 || classes & (1 << class) == 0 {
            mixed.insert(l);
        }
        // Two accesses of one C expression whose order is unsequenced
        // (C11 6.5p2-3: OpenCL's `sb = po \ unseq`): the later one in
        // program order need not come after the other.
        // (Only an operand of an expression may be unsequenced.)
        if !i.operand_of.is_empty()
            && accesses[k + 1..].iter().any(|j| {
                program.location_of(j) == Some(l)
                    && (i.is_write() || j.is_write())
                    && may_be_unsequenced(i, j)
            })
        {
            mixed.insert(l);
        }
        match refs.get(&l) {
            None => {
                refs.insert(l, i.reference);
            }
            Some(r) if *r != i.reference => {
                mixed.insert(l);
            }
            Some(_) => {}
        }
    }
    refs.into_keys()
        .filter(|&l| !mixed.contains(&l) && !shared.foreign(l, me) && !program.is_undefined(l))
        .collect()
}

/// Per thread, the locations whose reads the latest-own-write filter
/// gives their thread's latest earlier write ([`own_locations`]): empty
/// sets when `plan` leaves the filter off ([`PathPlan::own_write_filter`]:
/// the reduction is off, or the model does not declare it). Finding the statements each thread can run tracks only the
/// registers that decide a branch where the plan says so
/// ([`PathPlan::branch_registers`]; every register otherwise), and stops
/// once the request's time or memory is spent (the path walk after it
/// then stops at that limit).
pub fn own_sets(program: &Program, limits: &Limits, plan: PathPlan) -> Vec<HashSet<usize>> {
    let on = plan.own_write_filter;
    let budget = super::budget::Budget::new(limits);
    let spent = || budget.check(&String::new).is_err();
    let kept = if plan.branch_registers {
        super::reach::Kept::Branching
    } else {
        super::reach::Kept::Every
    };
    let shared = on.then(|| Shared::of(program, kept, &spent));
    program
        .threads
        .iter()
        .map(|t| match &shared {
            Some(shared) => {
                own_locations_among(program, t, limits.profile.latest_own_write, shared)
            }
            None => HashSet::new(),
        })
        .collect()
}

/// Whether two instructions of one thread can be operands of one C binary
/// expression, evaluated in either order (their operand positions first
/// differ inside the same expression): engine::base's `unseq`, for any of
/// their runs.
pub(crate) fn may_be_unsequenced(a: &crate::ir::Instruction, b: &crate::ir::Instruction) -> bool {
    a.operand_of
        .iter()
        .zip(&b.operand_of)
        .find(|(p, q)| p != q)
        .is_some_and(|(p, q)| p.0 == q.0)
}

/// The value a read of the own location `loc` ([`own_locations`]) returns
/// on the path `s`, with its provenance: the path's latest write to `loc`,
/// or the initial value; `None` when that write's value is unknown (an
/// Alloy `.test` store naming no value).
pub(super) fn latest_own_write(
    s: &State,
    program: &Program,
    t: &Thread,
    loc: usize,
) -> Option<(i64, Prov)> {
    match s
        .events
        .iter()
        .rev()
        .find(|e| e.writes && location(program, t, e.stmt) == Some(loc))
    {
        Some(e) => Some((e.write?, e.write_prov.clone().unwrap_or_default())),
        None => Some((program.initial_value(loc), Prov::new())),
    }
}

/// The index of the thread's latest write to `loc` on the path `s` when
/// that write is derived ([`latest_own_derived`]).
pub(super) fn latest_own_derived_event(
    s: &State,
    program: &Program,
    t: &Thread,
    loc: usize,
) -> Option<usize> {
    let (k, e) = s
        .events
        .iter()
        .enumerate()
        .rev()
        .find(|(_, e)| e.writes && location(program, t, e.stmt) == Some(loc))?;
    e.derived.map(|_| k)
}

/// The term of the thread's latest write to `loc` on the path `s` when that
/// write is derived ([`Reduction::SymbolicStores`](crate::engine::Reduction::SymbolicStores)): its value is a function
/// of the path's symbolic reads, not yet known. `None` when the latest
/// write has a value, or there is none (the initial value).
pub(super) fn latest_own_derived(
    s: &State,
    program: &Program,
    t: &Thread,
    loc: usize,
) -> Option<RegValue> {
    s.events
        .iter()
        .rev()
        .find(|e| e.writes && location(program, t, e.stmt) == Some(loc))?
        .derived
}
