//! The static base sets and relations the engine hands to a model: event
//! kinds, attributes, scopes, storage classes, program order, the scope
//! hierarchy, locations and references, system-synchronizes-with and control
//! barrier instances. MODELS.md documents each name.

use super::instances::{same_instance, thread_in_instance};
use super::limits::{Bounds, ExecError, LimitKind};
use super::trace::{EventInfo, Path, ReadValue, RegValue};
use crate::cat::Env;
use crate::ir::{Instruction, OpKind, Program, Scope, StorageClass};
use crate::model::names;
use crate::relation::{EventSet, Relation};

/// Per-event facts the candidate enumerator needs.
pub(crate) struct Facts {
    pub location: Vec<Option<usize>>,
    pub reference: Vec<Option<usize>>,
    pub is_read: Vec<bool>,
    pub is_write: Vec<bool>,
    pub atomic: Vec<bool>,
    pub seq_cst: Vec<bool>,
    pub read_value: Vec<Option<i64>>,
    pub write_value: Vec<Option<i64>>,
    /// Stores whose value the candidate execution gives
    /// ([`EventInfo::derived`]): any read of their location may read them.
    pub derived: Vec<bool>,
    pub initial_value: Vec<i64>,
    /// Events mutually in each other's scope instance.
    pub inscope: Relation,
    /// The pairs of writes every `co` orders by the model's
    /// `co-write-write-coherence` ([`super::choices::sequenced_write_pairs`];
    /// empty unless the skeleton's builder sets them).
    pub sequenced_writes: Vec<(usize, usize)>,
    /// Per event: `(class, width)` when it is an atomic RMW of a commuting
    /// kind ([`crate::ir::RmwOp::commuting_class`]) whose read the path
    /// left symbolic and whose write is derived from it
    /// ([`super::Reduction::CommutingRmws`]: its result nothing reads).
    pub commuting: Vec<Option<(u8, u8)>>,
    /// Whether something in the skeleton can synchronise: an event with
    /// acquire, release or sequentially consistent semantics, a control
    /// barrier, threads that system-synchronize, host operations, shader
    /// I/O between stages or fragment interlock.
    pub synchronising: bool,
}

/// The base-set name of a scope (`SCOPEWG` for Workgroup, ...).
pub fn scope_set_name(s: Scope) -> &'static str {
    match s {
        Scope::Invocation => names::SCOPEINV,
        Scope::Subgroup => names::SCOPESG,
        Scope::Workgroup => names::SCOPEWG,
        Scope::FragmentInterlock => names::SCOPEFI,
        Scope::ShaderCall => names::SCOPESC,
        Scope::QueueFamily => names::SCOPEQF,
        Scope::Device => names::SCOPEDEV,
        Scope::CrossDevice => names::SCOPECD,
    }
}

const ALL_SCOPES: [Scope; 8] = [
    Scope::Invocation,
    Scope::Subgroup,
    Scope::Workgroup,
    Scope::FragmentInterlock,
    Scope::ShaderCall,
    Scope::QueueFamily,
    Scope::Device,
    Scope::CrossDevice,
];

/// Number of storage classes for which `SCn`/`SEMSCn` (and `DSCn`/`DSEMSCn`)
/// sets are always provided (the four storage class semantics of the
/// Vulkan appendix).
pub const MIN_STORAGE_CLASSES: usize = 4;

/// The events of one path per thread, thread by thread in program order.
pub(crate) fn events_of(paths: &[&Path]) -> Vec<EventInfo> {
    let mut events = Vec::new();
    let mut exprs = 0;
    for (t, p) in paths.iter().enumerate() {
        let offset = events.len();
        for e in &p.events {
            events.push(EventInfo {
                thread: t,
                stmt: e.stmt,
                read_value: match e.read {
                    Some(ReadValue::Concrete(v)) => Some(v),
                    _ => None,
                },
                write_value: e.write,
                writes: e.writes,
                barrier: e.barrier,
                derived: e.derived.map(|v| shift(v, offset, exprs)),
            });
        }
        exprs += p.exprs.len();
    }
    events
}

/// A path's term with its reads numbered among the skeleton's events (the
/// path's events start at `offset`) and its expressions among the
/// skeleton's (the path's start at `exprs`).
pub(crate) fn shift(v: RegValue, offset: usize, exprs: usize) -> RegValue {
    match v {
        RegValue::Const(c) => RegValue::Const(c),
        RegValue::Read(i) => RegValue::Read(offset + i),
        RegValue::Expr(k) => RegValue::Expr(exprs + k),
    }
}

/// The events of one path per thread, the static environment the model
/// reads and the facts the candidate enumerator needs. The part that
/// depends only on the skeleton's shape ([`Shape`]) is taken from (and
/// added to) `cache` when given.
#[cfg(test)]
pub(crate) fn static_env_cached(
    program: &Program,
    paths: &[&Path],
    cache: Option<&ShapeCache>,
) -> Result<(Vec<EventInfo>, Env, Facts, u64), ExecError> {
    static_env_bounded(program, paths, cache, &Bounds::default())
}

/// The events of one path per thread, the static environment the model
/// reads and the facts the candidate enumerator needs, within `bounds`:
/// the request's deadline and the memory bound stop the building of the
/// relations (undecided). The part that depends only on the skeleton's
/// shape ([`Shape`]) is taken from (and added to) `cache` when given.
pub(crate) fn static_env_bounded(
    program: &Program,
    paths: &[&Path],
    cache: Option<&ShapeCache>,
    bounds: &Bounds,
) -> Result<(Vec<EventInfo>, Env, Facts, u64), ExecError> {
    let events = events_of(paths);
    let shape = match cache {
        Some(c) => c.get_or_build(program, &events, bounds)?,
        None => shape_statics(program, &ProgramScan::of(program), &events, bounds)?,
    };
    let n = events.len();
    let initial_value: Vec<i64> = (0..n)
        .map(|e| {
            shape.location[e]
                .map(|l| program.initial_value(l))
                .unwrap_or(0)
        })
        .collect();
    let facts = Facts {
        location: shape.location,
        reference: shape.reference,
        is_read: shape.is_read,
        is_write: shape.is_write,
        atomic: shape.atomic,
        seq_cst: shape.seq_cst,
        read_value: (0..n).map(|e| events[e].read_value).collect(),
        write_value: (0..n).map(|e| events[e].write_value).collect(),
        derived: (0..n).map(|e| events[e].derived.is_some()).collect(),
        initial_value,
        inscope: shape.inscope,
        sequenced_writes: Vec::new(),
        commuting: events
            .iter()
            .map(|e| {
                let i = e.instruction(program);
                (i.atomic
                    && i.is_read()
                    && e.writes
                    && e.read_value.is_none()
                    && e.derived.is_some())
                .then(|| {
                    i.rmw_op
                        .commuting_class()
                        .map(|c| (c, i.width.unwrap_or(64)))
                })
                .flatten()
            })
            .collect(),
        synchronising: !program.ssw.is_empty()
            || !program.host.is_empty()
            || !program.generates.is_empty()
            || program.threads.iter().any(|t| t.fragment.is_some())
            || events.iter().any(|e| {
                let i = e.instruction(program);
                i.semantics.order != crate::ir::Order::Relaxed
                    || i.semantics.seq_cst
                    || matches!(i.kind, crate::ir::OpKind::ControlBarrier { .. })
            }),
    };
    Ok((events, shape.env, facts, shape.id))
}

/// The part of a skeleton's static environment and facts that is a
/// function of its *shape* alone: per event, its thread, statement and
/// whether it writes (a failed compare-exchange only reads). The values
/// read and written are not part of it: two combinations of paths that
/// differ only in the values their reads return (a waiter of a flag
/// barrier that read 0 or 1 from the counter) share it, and the walk
/// builds it once for both ([`ShapeCache`]).
#[derive(Clone)]
pub(crate) struct Shape {
    /// A number no other shape built by this process has (skeletons of
    /// one shape share it: [`super::Skeleton::shape`]).
    id: u64,
    env: Env,
    location: Vec<Option<usize>>,
    reference: Vec<Option<usize>>,
    is_read: Vec<bool>,
    is_write: Vec<bool>,
    atomic: Vec<bool>,
    seq_cst: Vec<bool>,
    inscope: Relation,
}

/// The key of a [`Shape`]: per event, (thread, statement, writes).
type ShapeKey = Vec<(u32, u32, bool)>;

/// The shapes one walk built, for reuse by the skeletons of the same shape
/// (a walk over combinations of paths meets each shape many times when
/// paths differ only in read values: barrier-flags-N has N! combinations
/// and N shapes). Bounded: when the shapes kept would hold more than
/// [`ShapeCache::BYTES`] of relations, the cache starts over.
///
/// A shape missing from it is built from a kept shape whose events run
/// the same instructions up to the reference they access (its
/// *template*, keyed by (thread, instruction class, writes) per event:
/// [`Kept::class`]) when there is one: only the relations of locations
/// and references are built again ([`Shape::relocated`]), and such a
/// shape is not kept (only its number: building it again from the
/// template costs what copying a kept one would). The stores of a
/// runtime index are one statement per cell of a chain of branches, and
/// the paths of a bump allocator's threads take a different cell in every
/// combination: their combinations have a shape each, and one template.
#[derive(Default)]
pub(crate) struct ShapeCache {
    map: std::sync::Mutex<Kept>,
    /// What every shape reads of the whole program, read once.
    scan: std::sync::OnceLock<ProgramScan>,
    /// How many shapes were built from a template (for tests).
    relocated: std::sync::atomic::AtomicUsize,
}

/// What a [`ShapeCache`] keeps.
#[derive(Default)]
struct Kept {
    /// The shapes, by their key.
    exact: std::collections::HashMap<ShapeKey, std::sync::Arc<Shape>>,
    /// The shapes built afresh, by their key with each statement's
    /// instruction class in place of the statement.
    templates: std::collections::HashMap<ShapeKey, std::sync::Arc<Shape>>,
    /// The numbers of the shapes built from a template, by their key
    /// (the shapes themselves are not kept: a template gives them again
    /// for what keeping them would cost).
    relocated: std::collections::HashMap<ShapeKey, u64>,
    /// The instruction class of each statement met, by thread and
    /// statement (`u32::MAX`: not met yet).
    classes: Vec<Vec<u32>>,
    /// How many statements have a class.
    met: u32,
    /// The classes' instructions (reference and source cleared), by their
    /// `Debug` text: instructions of one text and equal are one class.
    instructions: std::collections::HashMap<String, Vec<(Instruction, u32)>>,
    /// The bytes of relations `exact` holds and of the keys of
    /// `relocated` (an estimate).
    bytes: usize,
}

impl Kept {
    /// The class of the instruction of statement `stmt` of thread
    /// `thread`: statements whose instructions are equal but for the
    /// reference they access (and where their source is) are of one
    /// class. A shape reads nothing else of an instruction than what is
    /// equal within a class and its location and reference.
    fn class(&mut self, program: &Program, event: &EventInfo) -> u32 {
        let (t, s) = (event.thread, event.stmt);
        if self.classes.len() <= t {
            self.classes.resize(t + 1, Vec::new());
        }
        if self.classes[t].len() <= s {
            self.classes[t].resize(program.threads[t].code.len().max(s + 1), u32::MAX);
        }
        if self.classes[t][s] != u32::MAX {
            return self.classes[t][s];
        }
        let mut i = event.instruction(program).clone();
        i.reference = None;
        i.source = Default::default();
        let next = self.met;
        self.met += 1;
        let alike = self.instructions.entry(format!("{i:?}")).or_default();
        let c = match alike.iter().find(|(j, _)| *j == i) {
            Some(&(_, c)) => c,
            None => {
                // A number no other class has: every class has a first
                // statement, numbered when it was met.
                alike.push((i, next));
                next
            }
        };
        self.classes[t][s] = c;
        c
    }

    /// The key of the template of `events`' shape.
    fn template_key(&mut self, program: &Program, events: &[EventInfo]) -> ShapeKey {
        events
            .iter()
            .map(|e| (e.thread as u32, self.class(program, e), e.writes))
            .collect()
    }
}

/// What building a shape reads of the whole program rather than of its
/// events: the same for every shape of one program, and a walk over every
/// instruction of every thread to find (a shader's threads run to tens of
/// thousands of statements).
pub(crate) struct ProgramScan {
    /// The number of storage classes `SCn`/`SEMSCn` are bound for.
    classes: usize,
    /// [`semantics_classes`].
    named: Vec<StorageClass>,
    /// [`Program::shader_calls`].
    calls: Vec<(usize, usize, usize)>,
    /// [`Program::shader_call_instances`].
    instances: Vec<Option<usize>>,
    /// Atomic objects: per location, whether some atomic operation of
    /// the program accesses it (on any path of any thread).
    atomic_locations: Vec<bool>,
}

impl ProgramScan {
    pub(crate) fn of(program: &Program) -> ProgramScan {
        ProgramScan {
            classes: program
                .storage_classes()
                .iter()
                .map(|c| c.0 as usize + 1)
                .max()
                .unwrap_or(0)
                .max(MIN_STORAGE_CLASSES),
            named: semantics_classes(program),
            calls: program.shader_calls(),
            instances: program.shader_call_instances(),
            atomic_locations: {
                let mut atomic = vec![false; program.locations.len()];
                for l in program
                    .threads
                    .iter()
                    .flat_map(|t| t.instructions())
                    .filter(|i| i.atomic)
                    .filter_map(|i| program.location_of(i))
                {
                    if let Some(a) = atomic.get_mut(l) {
                        *a = true;
                    }
                }
                atomic
            },
        }
    }
}

impl ShapeCache {
    /// The bound on the bytes of relations kept (an estimate: every
    /// binding counted as a relation over the universe).
    pub const BYTES: usize = 16 << 20;

    fn get_or_build(
        &self,
        program: &Program,
        events: &[EventInfo],
        bounds: &Bounds,
    ) -> Result<Shape, ExecError> {
        let key: ShapeKey = events
            .iter()
            .map(|e| (e.thread as u32, e.stmt as u32, e.writes))
            .collect();
        // A template serves only where the static relations read no
        // location but through `location` and `reference`: host threads'
        // relations read the mapping of each location.
        let relocatable = program.host.is_empty();
        let template = match self.map.lock() {
            Ok(mut m) => {
                if let Some(s) = m.exact.get(&key) {
                    return Ok(Shape::clone(s));
                }
                let template = if relocatable {
                    let k = m.template_key(program, events);
                    m.templates.get(&k).cloned()
                } else {
                    None
                };
                template.map(|t| {
                    // The shape's number: the one it had if built before.
                    let id = match m.relocated.get(&key) {
                        Some(&id) => id,
                        None => {
                            let bytes = key.len() * std::mem::size_of::<(u32, u32, bool)>();
                            if m.bytes + bytes > Self::BYTES {
                                *m = Kept::default();
                            }
                            let id = next_shape_id();
                            m.bytes += bytes;
                            m.relocated.insert(key.clone(), id);
                            id
                        }
                    };
                    (t, id)
                })
            }
            Err(_) => None,
        };
        let scan = self.scan.get_or_init(|| ProgramScan::of(program));
        if let Some((t, id)) = template {
            self.relocated
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return t.relocated(program, scan, events, bounds, id);
        }
        let shape = shape_statics(program, scan, events, bounds)?;
        let n = events.len();
        let bytes = (shape.env.names().count() + 1) * n * n.div_ceil(8);
        if let Ok(mut m) = self.map.lock() {
            if m.bytes + bytes > Self::BYTES {
                *m = Kept::default();
            }
            if bytes <= Self::BYTES {
                m.bytes += bytes;
                let kept = std::sync::Arc::new(shape.clone());
                m.exact.insert(key, kept.clone());
                if relocatable {
                    // Keyed again: the classes start over with the cache.
                    let k = m.template_key(program, events);
                    m.templates.insert(k, kept);
                }
            }
        }
        Ok(shape)
    }

    /// How many shapes are kept (for tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.map.lock().map(|m| m.exact.len()).unwrap_or(0)
    }

    /// How many shapes were built from a template (for tests).
    #[cfg(test)]
    pub(crate) fn relocated(&self) -> usize {
        self.relocated.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// The relations over the universe the memory bound must leave room for
/// before the static ones are built: the static relations (about 20) and
/// a model evaluation's bindings and intermediate results (one thread's
/// 2,000 to 4,000 stores under vulkan.cat peak at about 225 relations'
/// worth of bytes).
const RELATIONS_HELD: usize = 256;

/// Whether the relations over `n` events fit the memory bound
/// ([`RELATIONS_HELD`] of n x n bits).
fn relations_fit(n: usize, bounds: &Bounds) -> Result<(), ExecError> {
    let need = Relation::bytes_for(n).saturating_mul(RELATIONS_HELD);
    if !Relation::fits(need, bounds.max_memory) {
        return Err(ExecError::limit(
            LimitKind::MaxMemory,
            format!(
                "stopped at the memory bound (--max-memory): the relations over the {n} events of a combination of paths need about {} MiB ({RELATIONS_HELD} of {n} x {n} bits), more than the bound leaves",
                need >> 20
            ),
        ));
    }
    Ok(())
}

/// The deadline or the memory bound reached while the relations are
/// built (read once per row of a relation built pair by pair).
fn limit_reached(bounds: &Bounds) -> Result<(), ExecError> {
    if bounds
        .deadline
        .is_some_and(|d| web_time::Instant::now() >= d)
    {
        return Err(ExecError::limit(
            LimitKind::Timeout,
            "stopped at the time limit (--timeout) while building the relations of the program's events",
        ));
    }
    if crate::memory::over(bounds.max_memory) {
        return Err(ExecError::limit(
            LimitKind::MaxMemory,
            "stopped at the memory bound (--max-memory) while building the relations of the program's events",
        ));
    }
    Ok(())
}

/// An empty relation over `n` events, allocated through the checked path.
fn empty_relation(n: usize, bounds: &Bounds) -> Result<Relation, ExecError> {
    Relation::try_empty(n, bounds.max_memory).ok_or_else(|| {
        ExecError::limit(
            LimitKind::MaxMemory,
            format!("stopped at the memory bound (--max-memory): a relation over the {n} events does not fit"),
        )
    })
}

/// Binds what the static environment says of the events' locations and
/// references: `ATOMICLOC` (events of atomic objects, the locations some
/// atomic operation of the program accesses), `SLOC` and `SREF`.
fn set_location_relations(
    env: &mut Env,
    location: &[Option<usize>],
    reference: &[Option<usize>],
    scan: &ProgramScan,
    bounds: &Bounds,
) -> Result<(), ExecError> {
    let n = location.len();
    env.set(
        names::ATOMICLOC,
        EventSet::from_iter(
            n,
            (0..n).filter(|&e| {
                location[e].is_some_and(|l| scan.atomic_locations.get(l) == Some(&true))
            }),
        ),
    );
    // Events of one location (reference): each event's row is its
    // class, a word at a time.
    let same_key = |key: &[Option<usize>]| -> Result<Relation, ExecError> {
        let mut classes: std::collections::HashMap<usize, EventSet> =
            std::collections::HashMap::new();
        for (e, k) in key.iter().enumerate() {
            if let Some(k) = k {
                classes
                    .entry(*k)
                    .or_insert_with(|| EventSet::empty(n))
                    .insert(e);
            }
        }
        let mut r = empty_relation(n, bounds)?;
        for (a, k) in key.iter().enumerate() {
            if a % 1024 == 0 {
                limit_reached(bounds)?;
            }
            if let Some(k) = k {
                r.insert_row(a, &classes[k]);
            }
        }
        Ok(r)
    };
    env.rel(names::SLOC, same_key(location)?);
    env.rel(names::SREF, same_key(reference)?);
    Ok(())
}

impl Shape {
    /// The shape of `events`, whose instructions are this shape's up to
    /// the references they access (one class each, [`Kept::class`]), in
    /// a program without host threads: this shape with the relations of
    /// locations and references built for `events`, numbered `id`. Equal
    /// to [`shape_statics`] of `events` but for its number.
    fn relocated(
        &self,
        program: &Program,
        scan: &ProgramScan,
        events: &[EventInfo],
        bounds: &Bounds,
        id: u64,
    ) -> Result<Shape, ExecError> {
        relations_fit(events.len(), bounds)?;
        let reference: Vec<Option<usize>> = events
            .iter()
            .map(|e| e.instruction(program).reference)
            .collect();
        let location: Vec<Option<usize>> = events
            .iter()
            .map(|e| program.location_of(e.instruction(program)))
            .collect();
        let mut env = self.env.clone();
        set_location_relations(&mut env, &location, &reference, scan, bounds)?;
        Ok(Shape {
            id,
            env,
            location,
            reference,
            is_read: self.is_read.clone(),
            is_write: self.is_write.clone(),
            atomic: self.atomic.clone(),
            seq_cst: self.seq_cst.clone(),
            inscope: self.inscope.clone(),
        })
    }
}

/// A number no shape built before has.
fn next_shape_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Builds the [`Shape`] of `events`: first checks that the relations over
/// them fit the memory bound ([`RELATIONS_HELD`] of n x n bits), then
/// builds them reading the deadline and the bound row by row.
fn shape_statics(
    program: &Program,
    scan: &ProgramScan,
    events: &[EventInfo],
    bounds: &Bounds,
) -> Result<Shape, ExecError> {
    let n = events.len();
    relations_fit(n, bounds)?;
    // Read once per row of a relation built pair by pair.
    let spent = || limit_reached(bounds);
    // Every relation over the events is allocated through the checked path.
    let empty = || empty_relation(n, bounds);
    let ins = |e: usize| events[e].instruction(program);
    // The semantics an event has: a compare-exchange that failed has its
    // failure semantics.
    let sem = |e: usize| {
        let i = ins(e);
        match &i.failure_semantics {
            Some(f) if i.is_write() && !events[e].writes => f,
            _ => &i.semantics,
        }
    };
    let thread = |e: usize| &program.threads[events[e].thread];

    // "shader call instance - accessible by shader agents that are
    // shader-call-related, corresponding to the ShaderCallKHR scope": an
    // invocation of no ray tracing stage has no shader call instance
    // (front ends that know stages say so at the token; this catches the
    // others, e.g. a SPIR-V compute shader).
    for ev in events {
        let i = ev.instruction(program);
        if i.scope == Some(Scope::ShaderCall) && !program.is_ray_tracing(ev.thread) {
            return Err(ExecError::new(format!(
                "{}: {} scope in an invocation of no ray tracing stage: the shader call instance domain is \"accessible by shader agents that are shader-call-related\" (ray tracing invocations)",
                i.source.place(),
                Scope::ShaderCall
            )));
        }
    }

    let set_of = |pred: &dyn Fn(usize) -> bool| EventSet::from_iter(n, (0..n).filter(|&e| pred(e)));
    // The pairs `pred` accepts whose first event `rows` accepts (a relation
    // of few rows is built in time linear in the others).
    let rel_where = |rows: &dyn Fn(usize) -> bool,
                     pred: &dyn Fn(usize, usize) -> bool|
     -> Result<Relation, ExecError> {
        let mut r = empty()?;
        for a in (0..n).filter(|&a| rows(a)) {
            spent()?;
            for b in 0..n {
                if pred(a, b) {
                    r.insert(a, b);
                }
            }
        }
        Ok(r)
    };
    let rel_of = |pred: &dyn Fn(usize, usize) -> bool| rel_where(&|_| true, pred);

    // A relation that depends only on the threads of its events: the
    // predicate is asked once per pair of threads, not per pair of events.
    let mut thread_events: Vec<EventSet> = Vec::new();
    for (e, info) in events.iter().enumerate() {
        if thread_events.len() <= info.thread {
            thread_events.resize(info.thread + 1, EventSet::empty(n));
        }
        thread_events[info.thread].insert(e);
    }
    let by_threads = |pred: &dyn Fn(usize, usize) -> bool| -> Result<Relation, ExecError> {
        let mut r = empty()?;
        for (ta, xs) in thread_events.iter().enumerate() {
            if xs.is_empty() {
                continue;
            }
            spent()?;
            for (tb, ys) in thread_events.iter().enumerate() {
                if !ys.is_empty() && pred(ta, tb) {
                    for a in xs.iter() {
                        r.insert_row(a, ys);
                    }
                }
            }
        }
        Ok(r)
    };

    let mut env = Env::new(n);
    let r = set_of(&|e| ins(e).is_read());
    let w = set_of(&|e| events[e].writes);
    env.set(names::R, r.clone());
    env.set(names::W, w.clone());
    env.set(names::M, r.union(&w));
    env.set(names::RMW, r.inter(&w));
    env.set(names::A, set_of(&|e| ins(e).atomic));
    let membar = set_of(&|e| ins(e).kind == OpKind::MemoryBarrier);
    // A group function is a control barrier for who meets (the engine's
    // barrier instances), not for the models: OpControlBarrier's rules do
    // not apply to OpGroup* instructions. They are GF.
    let group = set_of(&|e| ins(e).is_group_function());
    let cbar = set_of(&|e| matches!(ins(e).kind, OpKind::ControlBarrier { .. })).diff(&group);
    env.set(names::GF, group);
    let ordered = set_of(&|e| sem(e).order != Default::default());
    env.set(names::MEMBAR, membar.clone());
    env.set(names::CBAR, cbar.clone());
    env.set(names::F, membar.union(&cbar.inter(&ordered)));
    env.set(names::ACQ, set_of(&|e| sem(e).order.is_acquire()));
    env.set(names::REL, set_of(&|e| sem(e).order.is_release()));
    env.set(names::SEMAV, set_of(&|e| sem(e).make_available));
    env.set(names::SEQCST, set_of(&|e| sem(e).seq_cst));
    env.set(names::SEMVIS, set_of(&|e| sem(e).make_visible));
    env.set(names::AV, set_of(&|e| ins(e).make_pointer_available));
    env.set(names::VIS, set_of(&|e| ins(e).make_pointer_visible));
    let nonpriv = set_of(&|e| ins(e).is_memory_access() && ins(e).non_private);
    let m = r.union(&w);
    env.set(names::NONPRIV, nonpriv.clone());
    env.set(names::PRIV, m.diff(&nonpriv));
    env.set(
        names::AVDEVICE,
        set_of(&|e| ins(e).kind == OpKind::AvailabilityDevice),
    );
    env.set(
        names::VISDEVICE,
        set_of(&|e| ins(e).kind == OpKind::VisibilityDevice),
    );
    for k in 0..scan.classes {
        env.set(
            &format!("{}{k}", names::SC),
            set_of(&|e| ins(e).storage_class.map(|c| c.0 as usize) == Some(k)),
        );
        env.set(
            &format!("{}{k}", names::SEMSC),
            set_of(&|e| sem(e).storage_classes.iter().any(|c| c.0 as usize == k)),
        );
    }
    // The storage classes some semantics of the program names, densely
    // numbered in increasing class number: a model written for N classes
    // handles any class numbers, N of them at a time.
    let named = &scan.named;
    for k in 0..named.len().max(MIN_STORAGE_CLASSES) {
        let class = named.get(k).copied();
        env.set(
            &format!("{}{k}", names::DSC),
            set_of(&|e| class.is_some() && ins(e).storage_class == class),
        );
        env.set(
            &format!("{}{k}", names::DSEMSC),
            set_of(&|e| class.is_some_and(|c| sem(e).storage_classes.contains(&c))),
        );
    }
    for s in ALL_SCOPES {
        env.set(scope_set_name(s), set_of(&|e| ins(e).scope == Some(s)));
    }

    let same_thread = |a: usize, b: usize| events[a].thread == events[b].thread;
    // A thread's events are consecutive, in program order: each event's
    // successors in its thread are a range.
    let mut po = empty()?;
    let mut end = n;
    for a in (0..n).rev() {
        if a + 1 < n && !same_thread(a, a + 1) {
            end = a + 1;
        }
        if a % 1024 == 0 {
            spent()?;
        }
        po.insert_range(a, a + 1, end);
    }
    debug_assert!(po == rel_of(&|a, b| same_thread(a, b) && a < b)?);
    env.rel(names::PO, po);
    env.rel(names::STHD, by_threads(&|ta, tb| ta == tb)?);
    // Operands of one C binary expression: unsequenced (both directions).
    let unsequenced = |a: usize, b: usize| {
        let (x, y) = if a < b { (a, b) } else { (b, a) };
        if !same_thread(x, y) {
            return false;
        }
        let (px, py) = (&ins(x).operand_of, &ins(y).operand_of);
        // the first expression where they differ: the same expression,
        // left operand first (a later evaluation of it starts over at the left)
        px.iter()
            .zip(py.iter())
            .find(|(p, q)| p != q)
            .is_some_and(|(p, q)| p.0 == q.0 && p.1 == 0 && q.1 == 1)
    };
    // (Only operands of an expression may be unsequenced.)
    env.rel(
        names::UNSEQ,
        rel_where(&|a| !ins(a).operand_of.is_empty(), &unsequenced)?,
    );
    // Scope instances never span devices (a queue family, workgroup or
    // subgroup is one device's), whatever numbers a front end gives them.
    for (name, s) in [
        (names::SSG, Scope::Subgroup),
        (names::SWG, Scope::Workgroup),
        (names::SQF, Scope::QueueFamily),
    ] {
        env.rel(
            name,
            by_threads(&|ta, tb| same_instance(program, ta, s, tb))?,
        );
    }
    // Host threads are on no device; a submission's commands run on the
    // device of its queue (device 0).
    env.rel(
        names::SDEV,
        by_threads(&|ta, tb| {
            !program.host.agent(ta).is_host()
                && !program.host.agent(tb).is_host()
                && program.threads[ta].device == program.threads[tb].device
        })?,
    );
    let location: Vec<Option<usize>> = (0..n).map(|e| program.location_of(ins(e))).collect();
    let reference: Vec<Option<usize>> = (0..n).map(|e| ins(e).reference).collect();
    set_location_relations(&mut env, &location, &reference, scan, bounds)?;
    // System-synchronizes-with: declared (`ssw` blocks, `SSW`) and derived
    // from the API operations of host threads and submissions (docs/host.md).
    let derived = super::host::host_env(program, events, &mut env);
    env.rel(
        names::SSW,
        by_threads(&|ta, tb| program.ssw.contains(&(ta, tb)))?.union(&derived),
    );
    // Shader calls ("Shader Call Related", "Shader Call Order"): a shader
    // call instruction creates its callee, which is also an invocation the
    // caller contributes to generating (Shader I/O of the ray tracing
    // storage classes: sgen).
    let (calls, instances) = (&scan.calls, &scan.instances);
    env.rel(
        names::SGEN,
        rel_where(
            &|_| !program.generates.is_empty() || !calls.is_empty(),
            &|a, b| {
                let (ta, tb) = (events[a].thread, events[b].thread);
                program.generates.contains(&(ta, tb))
                    || calls.iter().any(|&(c, _, callee)| (c, callee) == (ta, tb))
            },
        )?,
    );
    env.set(
        names::SHCALL,
        set_of(&|e| matches!(ins(e).kind, OpKind::ShaderCall { .. })),
    );
    env.rel(
        names::SCALL,
        rel_where(
            &|a| matches!(ins(a).kind, OpKind::ShaderCall { .. }),
            &|a, b| match &ins(a).kind {
                OpKind::ShaderCall { callees, .. } => callees.contains(&events[b].thread),
                _ => false,
            },
        )?,
    );
    env.rel(
        names::SCR,
        rel_where(&|a| instances[events[a].thread].is_some(), &|a, b| {
            let (ia, ib) = (instances[events[a].thread], instances[events[b].thread]);
            ia.is_some() && ia == ib
        })?,
    );
    // Cooperative matrix element accesses ("Cooperative Matrix Memory
    // Access"): one dynamic instance is one instance number met in one
    // instance of the matrix's scope.
    let coop = |e: usize| ins(e).coop;
    env.set(
        names::CMLD,
        set_of(&|e| coop(e).is_some() && ins(e).is_read()),
    );
    env.set(
        names::CMST,
        set_of(&|e| coop(e).is_some() && ins(e).is_write()),
    );
    env.rel(
        names::SCM,
        rel_where(&|a| coop(a).is_some(), &|a, b| match (coop(a), coop(b)) {
            (Some(x), Some(y)) => {
                x == y && same_instance(program, events[a].thread, x.scope, events[b].thread)
            }
            _ => false,
        })?,
    );
    env.set(
        names::RT,
        set_of(&|e| program.is_ray_tracing(events[e].thread)),
    );
    env.set(
        names::RTDATA,
        set_of(&|e| {
            ins(e).is_memory_access()
                && ins(e)
                    .interface
                    .is_some_and(crate::ir::Interface::is_ray_tracing)
        }),
    );
    // `scbarinst` is set by `Skeleton::build` (it needs the paths'
    // endings: see `super::barrier`).

    // Fragment shader interlock (docs/interlock.md).
    env.set(
        names::ILBEGIN,
        set_of(&|e| ins(e).kind == OpKind::BeginInterlock),
    );
    env.set(
        names::ILEND,
        set_of(&|e| ins(e).kind == OpKind::EndInterlock),
    );
    env.set(names::FRAG, set_of(&|e| thread(e).fragment.is_some()));
    env.set(
        names::TESC,
        set_of(&|e| {
            program.stage(events[e].thread) == Some(crate::ir::ShaderStage::TessellationControl)
        }),
    );
    env.set(names::LEGACY, set_of(&|_| program.legacy));
    env.set(
        names::DEALLOC,
        set_of(&|e| ins(e).kind == OpKind::Deallocate),
    );
    env.set(
        names::VERT,
        set_of(&|e| program.stage(events[e].thread) == Some(crate::ir::ShaderStage::Vertex)),
    );
    env.set(
        names::INPUT,
        set_of(&|e| {
            ins(e).is_memory_access() && ins(e).interface == Some(crate::ir::Interface::Input)
        }),
    );
    env.set(
        names::OUTPUT,
        set_of(&|e| {
            ins(e).is_memory_access() && ins(e).interface == Some(crate::ir::Interface::Output)
        }),
    );
    env.set(
        names::EXECWG,
        set_of(&|e| {
            matches!(
                ins(e).kind,
                OpKind::ControlBarrier {
                    execution_scope: Scope::Workgroup,
                    ..
                }
            )
        }),
    );
    env.rel(
        names::SFI,
        by_threads(&|ta, tb| same_instance(program, ta, Scope::FragmentInterlock, tb))?,
    );
    env.rel(
        names::RASTO,
        by_threads(&|ta, tb| super::instances::rasterized_before(program, ta, tb))?,
    );

    // The engine's scoped modification orders follow the specification's
    // reading of mutually-ordered: "A and B are both device operations" or
    // "A and B are both host operations" (docs/host.md, "Host and device
    // atomics"), so a host and a device atomic are never in one.
    let host_agent = |e: usize| program.host.agent(events[e].thread).is_host();
    // (Only events with a scope: the rows of the others are empty.)
    let inscope = rel_where(&|a| ins(a).scope.is_some(), &|a, b| {
        let (Some(sa), Some(sb)) = (ins(a).scope, ins(b).scope) else {
            return false;
        };
        host_agent(a) == host_agent(b)
            && in_instance(program, events, b, sa, a)
            && in_instance(program, events, a, sb, b)
    })?;
    Ok(Shape {
        id: next_shape_id(),
        env,
        location,
        reference,
        is_read: (0..n).map(|e| ins(e).is_read()).collect(),
        is_write: (0..n).map(|e| events[e].writes).collect(),
        atomic: (0..n).map(|e| ins(e).atomic).collect(),
        seq_cst: (0..n).map(|e| sem(e).seq_cst).collect(),
        inscope,
    })
}

/// Whether instruction `a` of thread `t` and instruction `b` of thread `u`
/// are mutually ordered wherever they run (`Facts::inscope` of their events,
/// both atomic, one reference): the program-level form of the pairs a
/// scoped modification order relates.
pub(crate) fn instructions_mutually_ordered(
    program: &Program,
    (t, a): (usize, &Instruction),
    (u, b): (usize, &Instruction),
) -> bool {
    let (Some(sa), Some(sb)) = (a.scope, b.scope) else {
        return false;
    };
    a.atomic
        && b.atomic
        && a.reference == b.reference
        && program.host.agent(t).is_host() == program.host.agent(u).is_host()
        && thread_in_instance(program, u, sa, t)
        && thread_in_instance(program, t, sb, u)
}

/// Whether event `x` is in the instance of scope `s` that contains event `owner`.
fn in_instance(program: &Program, events: &[EventInfo], x: usize, s: Scope, owner: usize) -> bool {
    thread_in_instance(program, events[x].thread, s, events[owner].thread)
}

/// The storage classes some semantics of `program` names (failure
/// semantics of compare-exchanges included), in increasing order.
pub fn semantics_classes(program: &Program) -> Vec<StorageClass> {
    let mut out: Vec<StorageClass> = program
        .threads
        .iter()
        .flat_map(|t| t.instructions())
        .flat_map(|i| {
            i.semantics
                .storage_classes
                .iter()
                .chain(
                    i.failure_semantics
                        .iter()
                        .flat_map(|f| f.storage_classes.iter()),
                )
                .copied()
                .collect::<Vec<_>>()
        })
        .collect();
    out.sort_unstable_by_key(|c| c.0);
    out.dedup();
    out
}
