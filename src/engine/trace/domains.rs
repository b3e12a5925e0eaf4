//! The value domains (per location, per group-function instance), and the
//! results of group functions with their fixpoint.

use super::path::{
    BarrierValues, PathEvent, Prov, ReadValue, RegValue, ThreadPaths, ValueExpr, expr_values,
    prov_max, prov_min, term_value,
};
use super::state::{State, location, reg_prov};
use crate::engine::limits::{ExecError, LimitKind};
use crate::ir::{Instruction, OpKind, Program, Stmt, Thread};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The work-items of the scope instance a group function of thread `t`
/// exchanges values with.
pub(super) fn group_size(program: &Program, t: &Thread, ins: &Instruction) -> usize {
    let OpKind::ControlBarrier {
        execution_scope, ..
    } = ins.kind
    else {
        return 1;
    };
    let me = program
        .threads
        .iter()
        .position(|x| std::ptr::eq(x, t))
        .unwrap_or(0);
    (0..program.threads.len())
        .filter(|&u| crate::engine::instances::thread_in_instance(program, u, execution_scope, me))
        .count()
}

/// The location a read accesses, whose value domain it ranges over
/// (`None` for a group function: see [`GroupSlot`]).
pub(super) fn domain_slot(program: &Program, t: &Thread, stmt: usize) -> Option<usize> {
    match &t.code[stmt] {
        Stmt::Op(i) if i.group.is_none() => program.location_of(i),
        _ => None,
    }
}

/// A thread's dynamic group-function instance: the static instance
/// number, the tangle key of a non-uniform instruction (or, for the
/// others, how many times the path reached the instance) and the thread.
/// Each has its own domain of results: an inclusive scan gives each
/// invocation its own prefix, and each loop iteration its own values, so
/// a domain per static instance would let every arrival range over all
/// of them (paths multiplying per group function).
pub(super) type GroupSlot = (u32, i64, usize);

/// Per location: each value a write to it can have, with the provenance of
/// that value (the fixpoint of `explore`).
/// After them, per dynamic group-function instance a thread reaches, each
/// result it can get there ([`group_domains`]).
#[derive(Default)]
pub(super) struct Domains {
    pub(super) locations: Vec<BTreeMap<i64, Prov>>,
    pub(super) groups: HashMap<GroupSlot, BTreeMap<i64, Prov>>,
}

impl std::ops::Index<usize> for Domains {
    type Output = BTreeMap<i64, Prov>;
    fn index(&self, l: usize) -> &Self::Output {
        &self.locations[l]
    }
}

impl std::ops::IndexMut<usize> for Domains {
    fn index_mut(&mut self, l: usize) -> &mut Self::Output {
        &mut self.locations[l]
    }
}

/// The static instance and key ([`GroupSlot`]) of the group function at
/// `events[index]` of a path of `t`, `None` for any other event.
pub(super) fn group_key(t: &Thread, events: &[PathEvent], index: usize) -> Option<(u32, i64)> {
    let e = events.get(index)?;
    let Stmt::Op(i) = &t.code[e.stmt] else {
        return None;
    };
    let (Some(g), OpKind::ControlBarrier { instance, .. }) = (&i.group, &i.kind) else {
        return None;
    };
    if g.nonuniform {
        return Some((*instance, e.barrier.id.unwrap_or(0)));
    }
    let reached = events[..=index]
        .iter()
        .filter(|x| {
            matches!(&t.code[x.stmt], Stmt::Op(j)
                if matches!(j.kind, OpKind::ControlBarrier { instance: k, .. } if k == *instance))
        })
        .count();
    Some((*instance, reached as i64))
}

/// Executes a group function: an event whose result, like a read's value,
/// stays symbolic until something needs it (then it ranges over the
/// thread's domain for the instance); the skeleton computes it exactly
/// from the values the work-items contribute and drops the combinations
/// of paths whose concrete results disagree
/// (`crate::engine::barrier::group_results`).
pub(super) fn step_group(s: &mut State, ins: &Instruction, values: BarrierValues) {
    let index = s.events.len();
    let prov = ins
        .operand
        .as_ref()
        .map(|op| reg_prov(s, op))
        .unwrap_or_default();
    if let Some(dest) = &ins.dest {
        s.regs.insert(dest, RegValue::Read(index));
        s.prov.insert(dest, Prov::new());
        s.from_memory.insert(dest, ());
    }
    s.events.push(PathEvent {
        stmt: s.pc,
        read: Some(ReadValue::Symbolic),
        write: None,
        write_prov: Some(prov),
        writes: false,
        barrier: values,
        derived: None,
    });
}

/// One dynamic group-function instance as a thread's path reaches it, in
/// the terms `crate::engine::barrier::groups` puts arrivals together by:
/// the static instance and key ([`group_key`]), the operation and the
/// execution scope.
type Arrival = (u32, i64, crate::ir::GroupOp, crate::ir::Scope);

/// The group-function arrivals of one path, in order: each with its
/// contribution (and provenance), its local id operand and its width.
fn arrivals<'a>(
    t: &'a Thread,
    events: &'a [PathEvent],
) -> impl Iterator<Item = (Arrival, i64, Prov, Option<i64>, Option<u8>)> + 'a {
    events.iter().enumerate().filter_map(move |(k, e)| {
        let (instance, key) = group_key(t, events, k)?;
        let Stmt::Op(i) = &t.code[e.stmt] else {
            return None;
        };
        let (
            Some(g),
            OpKind::ControlBarrier {
                execution_scope, ..
            },
            Some(v),
        ) = (&i.group, &i.kind, e.barrier.contribution)
        else {
            return None;
        };
        let prov = e.write_prov.clone().unwrap_or_default();
        Some((
            (instance, key, g.op, *execution_scope),
            v,
            prov,
            e.barrier.local_id,
            g.width,
        ))
    })
}

/// How one arrival uses its group function: the local id operand and the
/// width.
type Use = (Option<i64>, Option<u8>);

/// What one work-item may bring to a dynamic group-function instance, over
/// all its paths: the values it contributes there, and whether some path
/// of it does not take part.
#[derive(Default)]
struct Options {
    values: ValueSet,
    absent: bool,
}

/// Adds to the group-function domains (after the location domains)
/// every result a group function can give each thread, given what each
/// thread's paths (and the prefixes stopped at a result not known yet,
/// [`ThreadPaths::pending`]) contribute to it. For a thread arriving at a
/// dynamic instance, each other work-item of its scope instance takes
/// part with any value it contributes there on some path, or not at all
/// when some path of it does not arrive there (a path cut by the bound or
/// one that ends elsewhere); the results are the operation over every
/// such choice (`GroupOp::result_at`, one fold per choice, shared as a
/// set of partial results). A work-item none of whose paths is known yet
/// to take part or not makes the result wait (the thread's path stays
/// pending) rather than be guessed: a guess would stay in the domain and
/// multiply the paths after it. With `pending_absent` (when waiting alone
/// would never end), a pending prefix that has not arrived counts as not
/// taking part. An undefined result (a broadcast from an invocation that
/// does not take part) is any value: the contributed ones and 0 stand
/// for it. Returns whether a domain grew.
pub(super) fn group_domains(
    program: &Program,
    all: &[ThreadPaths],
    domain: &mut Domains,
    pending_absent: bool,
    budget: &super::budget::Budget,
) -> Result<bool, ExecError> {
    let computing = || "computing the results of the group functions".to_string();
    // Per dynamic instance and thread: what it brings.
    let mut opts: HashMap<Arrival, BTreeMap<usize, Options>> = HashMap::new();
    // Per thread, its arrivals (with local id and width), to compute.
    let mut mine: HashMap<(Arrival, usize), BTreeSet<Use>> = HashMap::new();
    // Per thread, the arrivals of each of its paths that decide absence.
    let mut reached: Vec<Vec<HashSet<Arrival>>> = vec![Vec::new(); all.len()];
    for (ti, (t, tp)) in program.threads.iter().zip(all).enumerate() {
        let settled = tp
            .paths
            .iter()
            .chain(&tp.cut_prefixes)
            .map(|p| (&p.events, true));
        let pending = tp.pending.iter().map(|p| (p, pending_absent));
        for (events, decides) in settled.chain(pending) {
            budget.step(&computing)?;
            let mut here = HashSet::new();
            for (a, v, prov, local_id, width) in arrivals(t, events) {
                merge_value(
                    &mut opts.entry(a).or_default().entry(ti).or_default().values,
                    v,
                    &prov,
                );
                mine.entry((a, ti)).or_default().insert((local_id, width));
                here.insert(a);
            }
            if decides {
                reached[ti].push(here);
            }
        }
    }
    // A thread some of whose deciding paths miss an instance may be absent.
    for (a, per_thread) in opts.iter_mut() {
        for (ti, paths) in reached.iter().enumerate() {
            if paths.iter().any(|here| !here.contains(a)) {
                per_thread.entry(ti).or_default().absent = true;
            }
        }
    }
    let mut changed = false;
    let none = Options::default();
    for ((a, me), uses) in &mine {
        budget.step(&computing)?;
        let (instance, key, op, scope) = *a;
        let members: Vec<usize> = (0..program.threads.len())
            .filter(|&u| crate::engine::instances::thread_in_instance(program, u, scope, *me))
            .collect();
        let per_thread = &opts[a];
        let at: Vec<&Options> = members
            .iter()
            .map(|u| per_thread.get(u).unwrap_or(&none))
            .collect();
        let pos = members.iter().position(|u| u == me).unwrap_or(0);
        let mut results = ValueSet::new();
        for &(local_id, width) in uses {
            results_for(op, &at, pos, local_id, width, &mut results)?;
        }
        let slot = domain.groups.entry((instance, key, *me)).or_default();
        for (v, p) in &results {
            changed |= merge_value(slot, *v, p);
        }
    }
    Ok(changed)
}

/// The results the member at `pos` of a dynamic instance can get, given
/// each member's options (`GroupOp::result_at` over every choice), added
/// to `out`. Nothing is added while a member that matters has no option
/// (neither a value nor absence known yet).
fn results_for(
    op: crate::ir::GroupOp,
    at: &[&Options],
    pos: usize,
    local_id: Option<i64>,
    width: Option<u8>,
    out: &mut ValueSet,
) -> Result<(), ExecError> {
    use crate::ir::GroupOp;
    // A fold over the members of `range` in ascending id order: the set
    // of (state, provenance) after each, where taking part applies `step`.
    fn fold<S: Ord + Clone>(
        at: &[&Options],
        range: std::ops::Range<usize>,
        start: S,
        step: &dyn Fn(&S, usize, i64) -> S,
    ) -> Result<BTreeMap<S, Prov>, ExecError> {
        let mut states: BTreeMap<S, Prov> = BTreeMap::from([(start, Prov::new())]);
        let (start, end) = (range.start.min(at.len()), range.end.min(at.len()));
        for (u, o) in at.iter().enumerate().take(end).skip(start) {
            let mut next: BTreeMap<S, Prov> = BTreeMap::new();
            for (s, ps) in &states {
                if o.absent {
                    merge_state(&mut next, s.clone(), ps);
                }
                for (v, pv) in &o.values {
                    merge_state(&mut next, step(s, u, *v), &prov_max(ps, pv));
                }
            }
            if next.len() > MAX_GROUP_VALUES {
                return Err(ExecError::limit(
                    LimitKind::ValueDomains,
                    format!(
                        "a group function has more than {MAX_GROUP_VALUES} possible results: lower --unroll or use a smaller subgroup"
                    ),
                ));
            }
            states = next;
        }
        Ok(states)
    }
    let n = at.len();
    let mut add = |v: i64, p: &Prov| {
        merge_value(out, v, p);
    };
    // The value of one named member: undefined (any value: the values
    // contributed there and 0 stand for it) when it may not take part.
    let named =
        |target: Option<usize>, add: &mut dyn FnMut(i64, &Prov)| match target.filter(|&k| k < n) {
            Some(k) => {
                for (v, p) in &at[k].values {
                    add(*v, p);
                }
                if at[k].absent {
                    add(0, &Prov::new());
                }
            }
            None => {
                add(0, &Prov::new());
                for o in at {
                    for (v, p) in &o.values {
                        add(*v, p);
                    }
                }
            }
        };
    match op {
        GroupOp::Reduce(a)
        | GroupOp::ScanInclusive(a)
        | GroupOp::ScanExclusive(a)
        | GroupOp::Clustered(a, _) => {
            let range = match op {
                GroupOp::ScanInclusive(_) => 0..pos + 1,
                GroupOp::ScanExclusive(_) => 0..pos,
                GroupOp::Clustered(_, c) => {
                    let c = (c as usize).max(1);
                    let start = pos - pos % c;
                    start..start + c
                }
                _ => 0..n,
            };
            // "((x0 op x1) op x2) ...", the identity only where no one
            // takes part.
            let states = fold(at, range, None::<i64>, &|s, _, v| {
                Some(s.map_or(v, |x| a.apply_at(x, v, width)))
            })?;
            for (s, p) in &states {
                add(s.unwrap_or_else(|| a.identity_at(width)), p);
            }
        }
        GroupOp::Any | GroupOp::All => {
            let any = matches!(op, GroupOp::Any);
            let states = fold(at, 0..n, !any, &|s, _, v| {
                if any { *s || v != 0 } else { *s && v != 0 }
            })?;
            for (s, p) in &states {
                add(i64::from(*s), p);
            }
        }
        GroupOp::AllEqual => {
            // None: no value yet; Some(Some(v)): all equal v; Some(None):
            // two differ.
            let states = fold(at, 0..n, None::<Option<i64>>, &|s, _, v| match s {
                None => Some(Some(v)),
                Some(Some(x)) if *x == v => Some(Some(v)),
                _ => Some(None),
            })?;
            for (s, p) in &states {
                add(i64::from(!matches!(s, Some(None))), p);
            }
        }
        GroupOp::Elect | GroupOp::BroadcastFirst => {
            // The lowest member taking part, and its value (this member
            // takes part, so the lowest is at or below it).
            let states = fold(at, 0..pos + 1, None::<(usize, i64)>, &|s, u, v| {
                Some(s.unwrap_or((u, v)))
            })?;
            for (s, p) in &states {
                match (op, s) {
                    (GroupOp::Elect, Some((u, _))) => add(i64::from(*u == pos), p),
                    (_, Some((_, v))) => add(*v, p),
                    _ => {}
                }
            }
        }
        GroupOp::Ballot(c) => {
            let base = 32 * usize::from(c);
            let states = fold(at, 0..n, 0i32, &|s, u, v| match u.checked_sub(base) {
                Some(k) if k < 32 && v != 0 => *s | 1i32 << k,
                _ => *s,
            })?;
            for (s, p) in &states {
                add(i64::from(*s), p);
            }
        }
        GroupOp::Broadcast => {
            let target = local_id.and_then(|k| usize::try_from(k).ok());
            named(target, &mut add);
        }
        GroupOp::Lane(l) => {
            let target = local_id.and_then(|k| l.target(pos, k));
            named(target, &mut add);
        }
    }
    Ok(())
}

/// [`merge_value`] over any state.
fn merge_state<S: Ord>(d: &mut BTreeMap<S, Prov>, s: S, prov: &Prov) {
    match d.get_mut(&s) {
        None => {
            d.insert(s, prov.clone());
        }
        Some(old) => *old = prov_min(old, prov),
    }
}

/// Values with their provenance (one location's or group function's domain).
pub(super) type ValueSet = BTreeMap<i64, Prov>;

/// The most results one group function's domain may hold.
pub(super) const MAX_GROUP_VALUES: usize = 4096;

/// Adds `v` with provenance `prov` to a domain (the componentwise minimum
/// with the provenance it has); returns whether the domain changed.
pub(super) fn merge_value(d: &mut BTreeMap<i64, Prov>, v: i64, prov: &Prov) -> bool {
    match d.get_mut(&v) {
        None => {
            d.insert(v, prov.clone());
            true
        }
        Some(old) => {
            let merged = prov_min(old, prov);
            if merged != *old {
                *old = merged;
                true
            } else {
                false
            }
        }
    }
}

/// The most combinations of values one derived write's reads may take
/// while the value domains are computed ([`Reads::derived_values`]): as
/// many paths as the walk with every read concrete would list at that
/// store.
pub(super) const MAX_DERIVED_COMBINATIONS: usize = 1 << 16;

/// What a walk computing the value domains with symbolic reads reads of
/// the domains: the domain each read of a path of thread `t` (the
/// program's thread `me`) ranges over, and the values a derived write can
/// have.
pub(super) struct Reads<'a> {
    pub(super) program: &'a Program,
    pub(super) t: &'a Thread,
    pub(super) me: usize,
    pub(super) domain: &'a Domains,
    /// What an increment of a counter can read (`counters`): the values a
    /// derived RMW's own read ranges over in [`Reads::derived_values`],
    /// as the split of a concrete one ranges over them.
    pub(super) counters: Option<&'a super::counters::Counters>,
}

impl<'a> Reads<'a> {
    pub(super) fn new(program: &'a Program, t: &'a Thread, domain: &'a Domains) -> Reads<'a> {
        let me = program
            .threads
            .iter()
            .position(|x| std::ptr::eq(x, t))
            .unwrap_or(0);
        Reads {
            program,
            t,
            me,
            domain,
            counters: None,
        }
    }

    /// The values the read (or group function) at `events[index]` ranges
    /// over: its location's domain, or the thread's results at the group
    /// function's dynamic instance; `None` for a group function no round
    /// has computed a result for yet (empty), and for an event that
    /// reads no location.
    pub(super) fn domain_of(
        &self,
        events: &[PathEvent],
        index: usize,
    ) -> Option<&'a BTreeMap<i64, Prov>> {
        match group_key(self.t, events, index) {
            Some((instance, key)) => self
                .domain
                .groups
                .get(&(instance, key, self.me))
                .filter(|d| !d.is_empty()),
            None => domain_slot(self.program, self.t, events.get(index)?.stmt)
                .map(|loc| &self.domain[loc]),
        }
    }

    /// The provenance of the value `v` the read at `events[index]` took
    /// from its domain (none when the domain does not hold it).
    pub(super) fn prov_of(&self, events: &[PathEvent], index: usize, v: i64) -> Prov {
        self.domain_of(events, index)
            .and_then(|d| d.get(&v))
            .cloned()
            .unwrap_or_default()
    }

    /// The values the derived write at `events[index]` can have, each with
    /// the provenance it has on the path with every read concrete: its
    /// term over each combination of the values of the symbolic reads it
    /// names, each from its domain. The event's own provenance is that of
    /// the operand's constant part and the write itself (`step_op`); the
    /// term's provenance ([`term_provs`]) joins it before the write is
    /// counted, as the concrete path's arithmetic and store count them.
    /// `Ok(None)`: a read it names has no domain yet (a group function
    /// whose result no round has computed).
    pub(super) fn derived_values(
        &self,
        events: &[PathEvent],
        (exprs, expr_provs): (&[ValueExpr], &[(Prov, Option<usize>)]),
        index: usize,
    ) -> Result<Option<BTreeMap<i64, Prov>>, ExecError> {
        let e = &events[index];
        let (Some(term), Some(l)) = (e.derived, location(self.program, self.t, e.stmt)) else {
            return Ok(Some(BTreeMap::new()));
        };
        // The constant part's provenance: the event's, less the write.
        let mut base = e.write_prov.clone().unwrap_or_default();
        base.uncount(l);
        let mut open: Vec<(usize, Vec<(i64, &Prov)>)> = Vec::new();
        for r in term_reads(exprs, term) {
            if !matches!(events[r].read, Some(ReadValue::Concrete(_))) {
                match self.domain_of(events, r) {
                    // An RMW's own read (`PathPlan::commuting_rmws`): the
                    // values an increment of a counter can read, as the
                    // concrete RMW's split takes them.
                    Some(d) if r == index => open.push((
                        r,
                        d.iter()
                            .filter(|(v, _)| self.counters.is_none_or(|c| c.may_read(l, **v)))
                            .map(|(v, p)| (*v, p))
                            .collect(),
                    )),
                    Some(d) => open.push((r, d.iter().map(|(v, p)| (*v, p)).collect())),
                    None => return Ok(None),
                }
            }
        }
        let combinations = open
            .iter()
            .try_fold(1usize, |n, (_, vs)| n.checked_mul(vs.len()))
            .filter(|&n| n <= MAX_DERIVED_COMBINATIONS);
        let Some(combinations) = combinations else {
            return Err(ExecError::limit(
                LimitKind::ValueDomains,
                format!(
                    "a store of thread P{} depends on reads with more than {MAX_DERIVED_COMBINATIONS} combinations of values",
                    self.t.id
                ),
            ));
        };
        let mut out: BTreeMap<i64, Prov> = BTreeMap::new();
        let mut choice = vec![0usize; open.len()];
        let chosen = |choice: &[usize], r: usize| {
            open.iter()
                .zip(choice)
                .find(|((x, _), _)| *x == r)
                .map(|((_, vs), &k)| vs[k])
        };
        for _ in 0..combinations {
            let read = |r: usize| match events[r].read {
                Some(ReadValue::Concrete(c)) => Some(c),
                _ => chosen(&choice, r).map(|(v, _)| v),
            };
            let leaf = |r: usize| match events[r].read {
                Some(ReadValue::Concrete(c)) => self.prov_of(events, r, c),
                _ => chosen(&choice, r)
                    .map(|(_, p)| p.clone())
                    .unwrap_or_default(),
            };
            let value = term_value(&expr_values(exprs, &read), term, &read);
            let provs = term_provs((exprs, expr_provs), &leaf);
            let mut prov = prov_max(&base, &operand_prov(&provs, term, &leaf));
            prov.count(l);
            if let Some(v) = value {
                merge_state(&mut out, v, &prov);
            }
            // The next combination (the last read varies fastest).
            for (k, (_, vs)) in choice.iter_mut().zip(&open).rev() {
                *k += 1;
                if *k < vs.len() {
                    break;
                }
                *k = 0;
            }
        }
        Ok(Some(out))
    }
}

/// The provenance of each expression of a path (in one pass: an
/// expression names only earlier ones), given each read's (`leaf`): the
/// join of its constant part's and its operands'; an expression standing
/// for a read of an own location (its location in `expr_provs`) then
/// counts the write the read takes its value from, as the provenance of
/// an own read is that of the write on a path with every read concrete.
/// Expressions `expr_provs` does not cover have no constant part.
pub(super) fn term_provs(
    (exprs, expr_provs): (&[ValueExpr], &[(Prov, Option<usize>)]),
    leaf: &dyn Fn(usize) -> Prov,
) -> Vec<Prov> {
    let mut out: Vec<Prov> = Vec::with_capacity(exprs.len());
    for (k, x) in exprs.iter().enumerate() {
        let (a, b) = (operand_prov(&out, x.a, leaf), operand_prov(&out, x.b, leaf));
        let mut p = prov_max(&a, &b);
        if let Some((constant, own)) = expr_provs.get(k) {
            p = prov_max(&p, constant);
            if let Some(l) = *own {
                p.count(l);
            }
        }
        out.push(p);
    }
    out
}

/// The provenance of a term given the expressions' ([`term_provs`]) and
/// the reads' (a constant's is its register's, which the expression or
/// event holding it carries).
pub(super) fn operand_prov(provs: &[Prov], term: RegValue, leaf: &dyn Fn(usize) -> Prov) -> Prov {
    match term {
        RegValue::Const(_) => Prov::new(),
        RegValue::Read(r) => leaf(r),
        RegValue::Expr(k) => provs.get(k).cloned().unwrap_or_default(),
    }
}

/// The reads (and group functions: event indices) a term of a path names
/// through its expressions, each once, in ascending order.
pub(super) fn term_reads(exprs: &[ValueExpr], term: RegValue) -> Vec<usize> {
    let mut out = BTreeSet::new();
    let mut todo = vec![term];
    let mut seen = HashSet::new();
    while let Some(t) = todo.pop() {
        match t {
            RegValue::Read(e) => {
                out.insert(e);
            }
            RegValue::Expr(k) if seen.insert(k) => {
                if let Some(x) = exprs.get(k) {
                    todo.push(x.a);
                    todo.push(x.b);
                }
            }
            _ => {}
        }
    }
    out.into_iter().collect()
}
