//! The OpenCL -> Vulkan mapping (docs/opencl-vulkan-mapping.md): an OpenCL
//! litmus program (the C dialect's IR) rewritten as the Vulkan program a
//! device runs, or the reason it cannot be. Each row of the page is one
//! step below, with the sentences that justify it.
//!
//! The mapping is an IR -> IR transformation, so it is checked without a
//! device: [`soundness`] runs the original under the OpenCL model and the
//! mapped program under a Vulkan model and lists every final state the
//! Vulkan model allows that the OpenCL model does not (tests/models/opencl_vulkan.rs
//! runs it over the OpenCL corpus). [`Variant`] holds deliberately wrong
//! rows the tests use to show that the check can fail.

use crate::ir::{Dialect, Instruction, OpKind, Order, Program, Scope, Semantics, Stmt};
use crate::{Checked, Error, Session};
use std::collections::BTreeSet;
use std::fmt;

/// An OpenCL construct outside the mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum Unmapped {
    /// `memory_order_seq_cst` (also the default of the non-`_explicit`
    /// functions): the Vulkan appendix, "SequentiallyConsistent memory
    /// semantics is not supported and must not be used".
    SeqCst,
    /// `memory_scope_work_item` on an atomic or a fence that orders memory.
    WorkItemScope,
    /// Work-items on several devices (`dev 1`): one dispatch runs on one
    /// Vulkan device.
    Devices,
    /// An operation the OpenCL front end never produces (interlock,
    /// device-domain availability/visibility).
    NotOpenCl,
    /// A work-group or sub-group function (`work_group_reduce_add`, ...):
    /// its values pass between work-items outside memory, and the device
    /// shader has no group operations yet.
    GroupFunction,
}

impl Unmapped {
    pub fn name(self) -> &'static str {
        match self {
            Unmapped::SeqCst => "memory_order_seq_cst (no Vulkan equivalent)",
            Unmapped::WorkItemScope => "memory_scope_work_item",
            Unmapped::Devices => "work-items on several devices",
            Unmapped::NotOpenCl => "not an OpenCL operation",
            Unmapped::GroupFunction => "a work-group or sub-group function",
        }
    }
}

/// Why an OpenCL program has no Vulkan counterpart under the mapping.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Refusal {
    pub construct: Unmapped,
    pub detail: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "outside the OpenCL -> Vulkan mapping ({}): {}",
            self.construct.name(),
            self.detail
        )
    }
}

impl std::error::Error for Refusal {}

/// Which mapping to apply: the documented one, or one deliberately wrong
/// row (tests/models/opencl_vulkan.rs shows that [`soundness`] catches each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Variant {
    /// docs/opencl-vulkan-mapping.md.
    #[default]
    Documented,
    /// WRONG: `memory_order_acquire` (and the acquire half of `acq_rel`)
    /// mapped to Relaxed.
    AcquireAsRelaxed,
    /// WRONG: release and acquire mapped without MakeAvailable/MakeVisible,
    /// so non-atomic data is never made available or visible.
    NoAvailability,
    /// WRONG: non-atomic accesses mapped as private (no NonPrivatePointer).
    PlainAsPrivate,
}

/// Maps an OpenCL program with the documented mapping ([`map_with`]).
pub fn map(program: &Program) -> Result<Program, Refusal> {
    map_with(program, Variant::Documented)
}

/// Maps an OpenCL program to the Vulkan program a device runs
/// (docs/opencl-vulkan-mapping.md). Registers, locations and their names
/// are kept, so a final state of one is a final state of the other. A
/// program already in the Vulkan dialect is returned unchanged.
pub fn map_with(program: &Program, variant: Variant) -> Result<Program, Refusal> {
    if program.dialect == Dialect::Vulkan {
        return Ok(program.clone());
    }
    // Placement. 3.5: scope instances are sub-groups, work-groups and
    // devices; Vulkan's are subgroups, workgroups and the device of one
    // dispatch. One device only: the CrossDevice row below relies on it.
    if let Some(t) = program.threads.iter().find(|t| t.device != 0) {
        return Err(Refusal {
            construct: Unmapped::Devices,
            detail: format!(
                "P{} runs on device {}: a Vulkan dispatch runs on one device",
                t.id, t.device
            ),
        });
    }
    let mut out = program.clone();
    out.dialect = Dialect::Vulkan;
    for t in &mut out.threads {
        let id = t.id;
        for s in &mut t.code {
            if let Stmt::Op(i) = s {
                map_instruction(i, variant).map_err(|(construct, what)| Refusal {
                    construct,
                    detail: format!("P{id} line {}: `{}`: {what}", i.source.line, i.source.text),
                })?;
            }
        }
    }
    for t in &mut out.threads {
        same_thread_release_sequences(t, &out.references);
    }
    Ok(out)
}

/// Release sequences. OpenCL (3.4): "A release sequence begins with a
/// release operation A on an atomic object M and is the maximal contiguous
/// sub-sequence of side effects in the modification order of M, where the
/// first operation is A and every subsequent operation either is performed
/// by the same work-item or host thread that performed the release or is an
/// atomic read-modify-write operation." Vulkan's has no same-agent clause:
/// "A release sequence is a maximal contiguous sequence of atomic operations
/// in A's scoped modification order, where the first operation is A and
/// every subsequent operation is an atomic read-modify-write". So an acquire
/// reading a later relaxed store of the releasing work-item synchronises in
/// OpenCL and not in Vulkan (the soundness check found it on
/// `tests/fixtures/litmus-opencl/release-sequence-same-thread.litmus`, Dat3M's
/// `rseq_weak2` and `imm-R2`). The mapping makes every atomic write to M of
/// a work-item that performs a release atomic write to M a release itself
/// (with MakeAvailable, M's storage class and the wider of the two scopes):
/// an acquire reading it then synchronises with it, and the head is
/// program-ordered before it. This only strengthens the program.
fn same_thread_release_sequences(t: &mut crate::ir::Thread, refs: &[crate::ir::Reference]) {
    let loc = |i: &Instruction| i.reference.map(|r| refs[r].location);
    let mut heads: std::collections::BTreeMap<usize, Scope> = Default::default();
    for i in t.instructions() {
        if i.atomic
            && i.is_write()
            && i.semantics.order.is_release()
            && let (Some(l), Some(s)) = (loc(i), i.scope)
        {
            let e = heads.entry(l).or_insert(s);
            *e = (*e).max(s);
        }
    }
    for st in &mut t.code {
        let Stmt::Op(i) = st else { continue };
        if !(i.atomic && i.is_write()) || i.semantics.order.is_release() {
            continue;
        }
        let Some(&head) = loc(i).and_then(|l| heads.get(&l)) else {
            continue;
        };
        i.semantics.order = i.semantics.order.join(Order::Release);
        i.semantics.storage_classes = i.storage_class.into_iter().collect();
        i.semantics.make_available = true;
        i.scope = i.scope.map(|s| s.max(head));
    }
}

type Why = (Unmapped, String);

fn map_instruction(i: &mut Instruction, variant: Variant) -> Result<(), Why> {
    if i.group.is_some() {
        return Err((
            Unmapped::GroupFunction,
            "work-group and sub-group functions exchange values outside memory; the device \
             shader has no group operations (OpGroup*) yet"
                .into(),
        ));
    }
    match i.kind {
        OpKind::Load | OpKind::Store | OpKind::Rmw => {}
        OpKind::MemoryBarrier | OpKind::ControlBarrier { .. } => {}
        OpKind::BeginInterlock
        | OpKind::EndInterlock
        | OpKind::AvailabilityDevice
        | OpKind::VisibilityDevice
        | OpKind::Deallocate
        | OpKind::ShaderCall { .. }
        | OpKind::Api(_) => {
            return Err((
                Unmapped::NotOpenCl,
                "the OpenCL C dialect has no such operation".into(),
            ));
        }
    }
    // memory_order_seq_cst: refused. The appendix: "SequentiallyConsistent
    // memory semantics is not supported and must not be used"; mapping it
    // to AcquireRelease would be unsound (store buffering with seq_cst
    // accesses: OpenCL's single total order S forbids r0 == r1 == 0,
    // Vulkan's acquire/release allows it).
    if i.semantics.seq_cst || i.failure_semantics.as_ref().is_some_and(|f| f.seq_cst) {
        return Err((
            Unmapped::SeqCst,
            "sequentially consistent (memory_order_seq_cst, the default of the non-_explicit \
             atomic functions): \"SequentiallyConsistent memory semantics is not supported and \
             must not be used\" (Vulkan appendix)"
                .into(),
        ));
    }
    let orders = i.semantics.order != Order::Relaxed
        || i.failure_semantics
            .as_ref()
            .is_some_and(|f| f.order != Order::Relaxed);
    // Scopes. memory_scope_sub_group/work_group/device are Subgroup/
    // Workgroup/Device (the front end's Scope values). all_svm_devices:
    // 3.5, "When applied to coarse-grained memory (either coarse SVM or
    // non-SVM allocations) or to fine-grained SVM, operations parameterized
    // with CrossDevice scope will behave as if they were parameterized with
    // Device scope"; with every work-item on one device (checked above) the
    // two scope instances hold the same work-items.
    i.scope = match i.scope {
        Some(Scope::CrossDevice) => Some(Scope::Device),
        // memory_scope_work_item: "memory constraints only apply to a
        // single SPIR-V Invocation"; Vulkan's Invocation scope performs
        // "no availability/visibility operations" and a device run cannot
        // express it. A relaxed fence orders nothing at any scope.
        Some(Scope::Invocation) if i.atomic || orders => {
            return Err((
                Unmapped::WorkItemScope,
                "memory_scope_work_item on an atomic or an ordering fence: Vulkan's Invocation \
                 scope \"perform[s] no availability/visibility operations\" and a compute \
                 dispatch cannot run it"
                    .into(),
            ));
        }
        s => s,
    };
    map_semantics(&mut i.semantics, variant);
    if let Some(f) = &mut i.failure_semantics {
        map_semantics(f, variant);
    }
    if i.is_memory_access() {
        if i.atomic {
            // "Atomic operations are always considered non-private", and
            // an atomic write (read) carries the per-instruction
            // availability (visibility) of its own location.
            i.non_private = true;
            i.make_pointer_available = i.is_write();
            i.make_pointer_visible = i.is_read();
        } else {
            // Non-atomic accesses: OpLoad/OpStore with NonPrivatePointer and
            // no per-instruction availability/visibility: "Memory
            // operations with the NonPrivatePointer ... bit set are treated
            // as non-private, and are intended to be used for communication
            // with other agents". OpenCL makes a write visible through
            // happens-before ("any write done by A will be visible to B");
            // in Vulkan the release's MakeAvailable and the acquire's
            // MakeVisible (below) are the availability and visibility
            // operations that carry it.
            i.non_private = variant != Variant::PlainAsPrivate;
            i.make_pointer_available = false;
            i.make_pointer_visible = false;
        }
    }
    Ok(())
}

/// memory_order and fence flags as a Vulkan semantics operand.
///
/// - relaxed/acquire/release/acq_rel are Relaxed/Acquire/Release/
///   AcquireRelease; release adds MakeAvailable ("Performs an availability
///   operation before the release operation or barrier") and acquire adds
///   MakeVisible ("Performs a visibility operation after the acquire
///   operation or barrier").
/// - The storage classes (the object's address space for an atomic, the
///   `CLK_*_MEM_FENCE` flags for a fence or barrier) are the storage class
///   semantics: global is UniformMemory, local WorkgroupMemory.
/// - An ordering with no storage class (flags `0`) orders nothing on either
///   side: OpenCL's barrier synchronises "If the flags have a storage class
///   in the Global memory region set" (or Local), and Vulkan's
///   inter-thread-happens-before is defined for "a non-empty set of storage
///   class semantics". It becomes Relaxed, which Vulkan requires of
///   semantics without a storage class.
fn map_semantics(s: &mut Semantics, variant: Variant) {
    if s.storage_classes.is_empty() {
        s.order = Order::Relaxed;
    }
    if variant == Variant::AcquireAsRelaxed {
        s.order = match s.order {
            Order::Acquire => Order::Relaxed,
            Order::AcquireRelease => Order::Release,
            o => o,
        };
    }
    if s.order == Order::Relaxed {
        s.storage_classes = BTreeSet::new();
    }
    let av = variant != Variant::NoAvailability;
    s.make_available = av && s.order.is_release();
    s.make_visible = av && s.order.is_acquire();
}

/// The program a final-state comparison runs: no condition and no filter
/// (every register a memory operation writes is in a state), every
/// location shown.
pub fn complete_states(program: &Program) -> Program {
    let mut p = program.clone();
    p.condition = None;
    p.shown_locations = (0..p.locations.len()).collect();
    p
}

/// The soundness check of the mapping on one test.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Soundness {
    pub file: String,
    /// The OpenCL model judging the original, the Vulkan model the mapped program.
    pub opencl_model: String,
    pub vulkan_model: String,
    pub opencl_states: usize,
    pub vulkan_states: usize,
    /// Final states the Vulkan model allows on the mapped program and the
    /// OpenCL model does not allow on the original (as conditions).
    pub extra: Vec<String>,
    /// The original has a data race under the OpenCL model ("Any such data
    /// race results in undefined behavior"): then no mapped behaviour is
    /// wrong, and `extra` proves nothing.
    pub source_racy: bool,
    /// Both state lists are complete (no limit stopped a search, no path cut).
    pub complete: bool,
}

impl Soundness {
    /// Sound on this test: every Vulkan state is an OpenCL state, or the
    /// original's behaviour is undefined.
    pub fn sound(&self) -> bool {
        self.extra.is_empty() || self.source_racy
    }
}

/// Maps `original` with `variant` and compares final states: the Vulkan
/// model `vulkan_model` on the mapped program against the session's OpenCL
/// model (`opencl_model`) on the original. `Ok(Err(_))`: the test is
/// outside the mapping.
pub fn soundness(
    session: &Session,
    file: &str,
    original: &Program,
    variant: Variant,
    opencl_model: &str,
    vulkan_model: &str,
) -> Result<Result<Soundness, Refusal>, Error> {
    let mapped = match map_with(original, variant) {
        Ok(m) => complete_states(&m),
        Err(r) => return Ok(Err(r)),
    };
    let source = complete_states(original);
    let run = |model: &str, p: &Program| -> Result<_, Error> {
        match session
            .with_decide(None)
            .model(model)
            .check_program(file, p)?
        {
            Checked::Litmus(o) => Ok(o),
            _ => Err(Error::Usage(format!("{file}: not a litmus test"))),
        }
    };
    let o = run(opencl_model, &source)?;
    let v = run(vulkan_model, &mapped)?;
    let allowed: BTreeSet<_> = o.states.iter().map(|(s, _)| s).collect();
    let extra = v
        .states
        .iter()
        .filter(|(s, _)| !allowed.contains(s))
        .map(|(s, _)| super::classify::outcome_text(s))
        .collect();
    Ok(Ok(Soundness {
        file: file.to_string(),
        opencl_model: o.model.clone(),
        vulkan_model: v.model.clone(),
        opencl_states: o.states.len(),
        vulkan_states: v.states.len(),
        extra,
        source_racy: o.race_free == Some(false),
        complete: !o.truncated && o.cut_paths == 0 && !v.truncated && v.cut_paths == 0,
    }))
}
