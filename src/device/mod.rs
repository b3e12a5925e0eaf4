//! Running litmus tests on real Vulkan devices.
//!
//! A test becomes a [`Plan`] ([`plan`]): the litmus program the model
//! judges (every register a thread writes and every location shown, no
//! condition, no filter, so the model's state list is the complete allowed
//! set), where each litmus thread runs (its workgroup's *role*, its
//! subgroup and lane within the role) and why a test cannot run when it
//! cannot ([`Unsupported`], counted by [`Reason`] in docs/device.md).
//! [`spirv::shader`] turns the plan into a compute shader with `rspirv`;
//! [`harness`] lays out test instances GPUHarbor-style (many instances per
//! dispatch, partners in other workgroups, permuted placement, memory
//! stride and shuffling, stress workgroups); [`classify`] compares what a
//! device showed with the model. The Vulkan side (ash, loaded at run time)
//! is [`vk`], behind the `device` cargo feature; everything else is plain
//! Rust and runs (and is tested) without a GPU.

pub mod classify;
pub mod harness;
pub mod opencl;
pub mod spirv;
#[cfg(all(feature = "device", not(target_arch = "wasm32")))]
pub mod vk;

use crate::ir::{
    CondExpr, Condition, Dialect, Instruction, OpKind, Operand, Program, Quantifier, RmwOp, Scope,
    Stmt, TestKind,
};
use std::collections::BTreeMap;
use std::fmt;

/// Why a test cannot run on a device (the categories docs/device.md counts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum Reason {
    /// Threads in several queue families (one dispatch runs on one queue).
    QueueFamilies,
    /// Threads on several devices (OpenCL `dev`).
    Devices,
    /// System-synchronizes-with: host or API synchronisation between agents.
    SystemSynchronizesWith,
    /// `avdevice` / `visdevice`: API-level availability/visibility operations.
    ApiAvailability,
    /// A scope SPIR-V for Vulkan compute cannot name (CrossDevice, Invocation,
    /// FragmentInterlock, ShaderCall) or an access without the scope it needs.
    Scope,
    /// A control barrier vkmm cannot place in uniform control flow: inside a
    /// branch or loop, a named barrier, an execution scope wider than
    /// Workgroup, or threads of one workgroup whose barriers differ.
    Barrier,
    /// Semantics SPIR-V for Vulkan does not allow on this instruction
    /// (sequentially consistent; Acquire on a store; MakeAvailable without
    /// Release ...).
    Semantics,
    /// Values outside 32 bits.
    Values,
    /// OpenCL `memory_order_seq_cst` (the default of the non-`_explicit`
    /// atomic functions): no Vulkan equivalent (docs/opencl-vulkan-mapping.md).
    SeqCst,
    /// Another OpenCL construct outside the OpenCL -> Vulkan mapping.
    OpenCl,
    /// An OpenCL work-group or sub-group function (no group operations in
    /// the device shader yet).
    GroupFunction,
    /// The device cannot host the placement (subgroup too small ...).
    Placement,
}

impl Reason {
    pub fn name(self) -> &'static str {
        match self {
            Reason::QueueFamilies => "several queue families",
            Reason::Devices => "several devices",
            Reason::SystemSynchronizesWith => "system-synchronizes-with",
            Reason::ApiAvailability => "API-level availability/visibility (avdevice/visdevice)",
            Reason::Scope => "scope not expressible in a Vulkan compute shader",
            Reason::Barrier => "control barrier a compute dispatch cannot express",
            Reason::Semantics => "semantics not valid SPIR-V for Vulkan",
            Reason::Values => "values wider than 32 bits",
            Reason::SeqCst => "OpenCL memory_order_seq_cst (no Vulkan equivalent)",
            Reason::OpenCl => "outside the OpenCL -> Vulkan mapping",
            Reason::GroupFunction => "OpenCL work-group or sub-group function",
            Reason::Placement => "placement not possible on this device",
        }
    }
}

/// A test that cannot run, and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Unsupported {
    pub reason: Reason,
    pub detail: String,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot run on a device ({}): {}",
            self.reason.name(),
            self.detail
        )
    }
}

impl std::error::Error for Unsupported {}

fn unsupported(reason: Reason, detail: impl Into<String>) -> Unsupported {
    Unsupported {
        reason,
        detail: detail.into(),
    }
}

/// A control barrier every invocation of a role's workgroups executes
/// together (one dynamic instance: the shader emits it in control flow that
/// is uniform over the workgroup).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BarrierSpec {
    /// The test's instance number: threads meet at barriers with the same one.
    pub instance: u32,
    pub execution_scope: Scope,
    pub memory_scope: Scope,
    pub semantics: crate::ir::Semantics,
}

/// One litmus workgroup: each real workgroup of a dispatch hosts one role
/// (or stresses memory).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Role {
    /// The litmus workgroup number.
    pub workgroup: usize,
    /// Distinct litmus subgroups in it.
    pub subgroups: usize,
    /// The most litmus threads in one of its subgroups.
    pub lanes: usize,
    /// Its control barriers, in order (the same for each of its threads).
    pub barriers: Vec<BarrierSpec>,
}

/// Where a litmus thread runs.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ThreadPlace {
    pub role: usize,
    /// Index of its litmus subgroup within the role.
    pub subgroup: usize,
    /// Its rank among the threads of that subgroup.
    pub lane: usize,
}

/// The values an Alloy `.test`'s reads pin, in a device run's registers.
#[derive(Clone, Debug)]
pub struct Pins {
    /// `(P1:y, 1)`: the register's pinned value.
    pub values: Vec<(String, i64)>,
    /// The same as a condition (a `filter` on the judged program).
    pub filter: CondExpr,
}

impl Pins {
    /// Whether a final state has every pinned value.
    pub fn hold(&self, state: &crate::analysis::litmus::FinalState) -> bool {
        self.values.iter().all(|(k, v)| state.get(k) == Some(*v))
    }
}

/// A test ready to run: the program the device runs, the one the model
/// judges, and the placement.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The program the device runs, in the Vulkan dialect (an OpenCL test
    /// after the OpenCL -> Vulkan mapping, [`opencl::map`]): litmus kind, no
    /// condition (so every register a thread writes is in a final state),
    /// every location shown.
    pub program: Program,
    /// The program the model judges the observations on, likewise complete:
    /// for an OpenCL test the original (the source semantics, under the
    /// OpenCL model), else the same as `program`.
    pub judged: Program,
    /// The test's own condition, for reports.
    pub condition: Option<String>,
    /// For an Alloy `.test`: the values its reads pin (`ld ... y = 1`), as a
    /// condition on the registers. The test's queries speak of the
    /// executions where every read returns its pinned value, so its race
    /// verdict is judged on those; a device run also shows the others.
    pub pins: Option<Pins>,
    pub roles: Vec<Role>,
    pub threads: Vec<ThreadPlace>,
    /// Result slots: `(thread index, register)` in output order.
    pub registers: Vec<(usize, String)>,
    /// Whether some role has more than one thread (then invocations are
    /// placed by subgroup id and lane, and the subgroup size matters).
    pub needs_subgroups: bool,
    /// What the translation changed that only strengthens the test
    /// (reported with the results).
    pub notes: Vec<String>,
    /// Per location: the Vulkan storage class it lives in.
    pub location_class: Vec<VkClass>,
    /// Per storage class of the test (`sc0` ...): its memory semantics bit.
    pub class_bits: BTreeMap<u8, u32>,
}

impl Plan {
    /// The key of a register result slot in final states (`P1:r0`).
    pub fn register_key(&self, slot: usize) -> String {
        let (t, r) = &self.registers[slot];
        format!("P{}:{r}", self.program.threads[*t].id)
    }

    /// The memory semantics word of a semantics operand: the order, the
    /// bits of the storage classes it names, MakeAvailable, MakeVisible.
    pub fn semantics_bits(&self, s: &crate::ir::Semantics) -> u32 {
        use crate::ir::Order;
        let mut bits = match s.order {
            Order::Relaxed => 0,
            Order::Acquire => 0x2,
            Order::Release => 0x4,
            Order::AcquireRelease => 0x8,
        };
        if s.order != Order::Relaxed {
            for c in &s.storage_classes {
                bits |= self.class_bits.get(&c.0).copied().unwrap_or(UNIFORM_MEMORY);
            }
        }
        if s.make_available {
            bits |= 0x2000;
        }
        if s.make_visible {
            bits |= 0x4000;
        }
        bits
    }

    /// The locations of a role that live in Workgroup memory, in order.
    pub fn workgroup_locations(&self, role: usize) -> Vec<usize> {
        (0..self.program.locations.len())
            .filter(|&l| {
                self.location_class[l] == VkClass::Workgroup
                    && self.threads.iter().enumerate().any(|(t, p)| {
                        p.role == role
                            && self.program.threads[t]
                                .instructions()
                                .any(|i| self.program.location_of(i) == Some(l))
                    })
            })
            .collect()
    }

    /// Words of Workgroup memory per workgroup of `workgroup_size` invocations.
    pub fn workgroup_words(&self, workgroup_size: u32) -> u32 {
        let most = (0..self.roles.len())
            .map(|r| self.workgroup_locations(r).len())
            .max()
            .unwrap_or(0);
        workgroup_size * most as u32
    }
}

/// Plans a test for a device run, or says why it cannot run.
///
/// An Alloy `.test` file becomes a litmus program: each read gets a
/// register (`v0`, `v1`, ... per thread) and each write the value it pins,
/// so a device run observes the values the queries pin and the model's
/// allowed set is over the same registers.
///
/// An OpenCL test runs through the OpenCL -> Vulkan mapping
/// ([`opencl::map`], docs/opencl-vulkan-mapping.md); a construct outside it
/// is refused with its reason. Its observations are judged on the original.
pub fn plan(program: &Program) -> Result<Plan, Unsupported> {
    if !program.host.is_empty() {
        return Err(unsupported(
            Reason::SystemSynchronizesWith,
            "host threads and queue submissions (docs/host.md) are API-level: a device run dispatches invocations only",
        ));
    }
    if let Some(n) = program.symbols.names.iter().find(|n| !n.bytes.is_empty()) {
        return Err(unsupported(
            Reason::Values,
            format!(
                "`{}` is a sized variable (memory locations as bytes): a device run gives each location a 32-bit word of its own, not the bytes of one variable, so its chunks would not overlap on the device",
                n.name
            ),
        ));
    }
    let judged = (program.dialect == Dialect::OpenCl).then(|| opencl::complete_states(program));
    let mut program = opencl::map(program).map_err(|r| {
        let reason = match r.construct {
            opencl::Unmapped::SeqCst => Reason::SeqCst,
            opencl::Unmapped::WorkItemScope => Reason::Scope,
            opencl::Unmapped::Devices => Reason::Devices,
            opencl::Unmapped::NotOpenCl => Reason::OpenCl,
            opencl::Unmapped::GroupFunction => Reason::GroupFunction,
        };
        unsupported(reason, r.to_string())
    })?;
    let pins = if program.kind == TestKind::Queries {
        litmus_from_queries(&mut program)
    } else {
        None
    };
    let condition = program.condition.as_ref().map(|c| c.text.clone());
    // The complete allowed set: no condition, no filter, every location.
    program.condition = None;
    program.shown_locations = (0..program.locations.len()).collect();
    check_expressible(&program)?;

    // Roles: the litmus workgroups, in order of first appearance.
    let mut roles: Vec<Role> = Vec::new();
    let mut sub_ids: Vec<Vec<usize>> = Vec::new(); // per role: litmus subgroup numbers
    let mut lane_counts: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let mut threads = Vec::new();
    for t in &program.threads {
        let role = match roles.iter().position(|r| r.workgroup == t.workgroup) {
            Some(r) => r,
            None => {
                roles.push(Role {
                    workgroup: t.workgroup,
                    subgroups: 0,
                    lanes: 0,
                    barriers: Vec::new(),
                });
                sub_ids.push(Vec::new());
                roles.len() - 1
            }
        };
        let subgroup = match sub_ids[role].iter().position(|&s| s == t.subgroup) {
            Some(s) => s,
            None => {
                sub_ids[role].push(t.subgroup);
                sub_ids[role].len() - 1
            }
        };
        let lane = lane_counts.entry((role, subgroup)).or_insert(0);
        threads.push(ThreadPlace {
            role,
            subgroup,
            lane: *lane,
        });
        *lane += 1;
    }
    for (r, role) in roles.iter_mut().enumerate() {
        role.subgroups = sub_ids[r].len();
        role.lanes = lane_counts
            .iter()
            .filter(|((rr, _), _)| *rr == r)
            .map(|(_, n)| *n)
            .max()
            .unwrap_or(1);
    }
    // Barriers: the same sequence for every thread of a role.
    for (r, role) in roles.iter_mut().enumerate() {
        let mut first: Option<(usize, Vec<BarrierSpec>)> = None;
        for (ti, t) in program.threads.iter().enumerate() {
            if threads[ti].role != r {
                continue;
            }
            let seq = barriers_of(t)?;
            match &first {
                None => first = Some((ti, seq)),
                Some((f, s)) if *s != seq => {
                    return Err(unsupported(
                        Reason::Barrier,
                        format!(
                            "P{} and P{} are in one workgroup but their control barriers differ \
                             (count, instances, scopes or semantics): a Vulkan barrier instance \
                             is one instruction every invocation of the workgroup executes",
                            program.threads[*f].id, t.id
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        role.barriers = first.map(|(_, s)| s).unwrap_or_default();
    }
    // The registers the model's final states show (every register a
    // memory operation writes, as `check` lists them without a condition).
    let registers = crate::analysis::litmus::shown_terms(&program).0;
    let needs_subgroups = roles.iter().any(|r| r.subgroups > 1 || r.lanes > 1);
    let (location_class, class_bits, notes) = storage(&program, &threads);
    Ok(Plan {
        judged: judged.unwrap_or_else(|| program.clone()),
        program,
        condition,
        pins,
        roles,
        threads,
        registers,
        needs_subgroups,
        notes,
        location_class,
        class_bits,
    })
}

/// The Vulkan storage class a location lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum VkClass {
    StorageBuffer,
    /// Per-workgroup shared memory (one copy per instance).
    Workgroup,
}

/// The memory semantics bit of a Vulkan storage class: "The UniformMemory
/// storage class semantic applies to accesses to memory in the ...
/// Uniform and StorageBuffer storage classes. The WorkgroupMemory storage
/// class semantic applies to accesses to memory in the Workgroup storage
/// class." (appendix, Memory Semantics).
pub const UNIFORM_MEMORY: u32 = 0x40;
pub const WORKGROUP_MEMORY: u32 = 0x100;

/// Maps the test's storage classes to Vulkan's. `sc0` is StorageBuffer. A
/// class whose every location is accessed through it alone and by the
/// threads of one litmus workgroup is Workgroup (each instance gets its own
/// words of the workgroup's shared memory); any other accessed class is
/// StorageBuffer. A class no access uses keeps its semantics apart as
/// WorkgroupMemory (unless Workgroup memory is in use), so that naming it
/// orders nothing the test accesses, as in the test. When two of the
/// test's classes share a Vulkan class, a semantics naming one orders the
/// other too: the note says the device program is stronger.
fn storage(
    program: &Program,
    threads: &[ThreadPlace],
) -> (Vec<VkClass>, BTreeMap<u8, u32>, Vec<String>) {
    use crate::ir::StorageClass;
    let nl = program.locations.len();
    // Per location: the classes and roles accessing it.
    let mut classes_of: Vec<std::collections::BTreeSet<StorageClass>> =
        vec![Default::default(); nl];
    let mut roles_of: Vec<std::collections::BTreeSet<usize>> = vec![Default::default(); nl];
    for (ti, t) in program.threads.iter().enumerate() {
        for i in t.instructions() {
            if let (Some(l), Some(c)) = (program.location_of(i), i.storage_class) {
                classes_of[l].insert(c);
                roles_of[l].insert(threads[ti].role);
            }
        }
    }
    let accessed: std::collections::BTreeSet<StorageClass> =
        classes_of.iter().flatten().copied().collect();
    let workgroup_ok = |c: StorageClass| {
        c.0 != 0
            && (0..nl)
                .filter(|&l| classes_of[l].contains(&c))
                .all(|l| classes_of[l].len() == 1 && roles_of[l].len() == 1)
    };
    let mut vk_of: BTreeMap<u8, VkClass> = BTreeMap::new();
    for c in &accessed {
        let v = if workgroup_ok(*c) {
            VkClass::Workgroup
        } else {
            VkClass::StorageBuffer
        };
        vk_of.insert(c.0, v);
    }
    let location_class = (0..nl)
        .map(|l| {
            classes_of[l]
                .iter()
                .next()
                .and_then(|c| vk_of.get(&c.0).copied())
                .unwrap_or(VkClass::StorageBuffer)
        })
        .collect();
    let workgroup_used = vk_of.values().any(|v| *v == VkClass::Workgroup);
    let mut class_bits = BTreeMap::new();
    for c in program.storage_classes() {
        let bit = match vk_of.get(&c.0) {
            Some(VkClass::StorageBuffer) => UNIFORM_MEMORY,
            Some(VkClass::Workgroup) => WORKGROUP_MEMORY,
            None if !workgroup_used => WORKGROUP_MEMORY,
            None => UNIFORM_MEMORY,
        };
        class_bits.insert(c.0, bit);
    }
    let mut notes = Vec::new();
    for bit in [UNIFORM_MEMORY, WORKGROUP_MEMORY] {
        let sharing: Vec<String> = class_bits
            .iter()
            .filter(|(_, b)| **b == bit)
            .map(|(c, _)| format!("sc{c}"))
            .collect();
        if sharing.len() > 1 {
            let name = if bit == UNIFORM_MEMORY {
                "StorageBuffer (UniformMemory)"
            } else {
                "Workgroup (WorkgroupMemory)"
            };
            notes.push(format!(
                "storage classes {} share {name}: semantics naming one order the others too, \
                 so the device program synchronizes at least as much as the test; a forbidden \
                 observation is still a finding, but some weak outcomes the test allows may be \
                 impossible on the device",
                sharing.join(", ")
            ));
        }
    }
    (location_class, class_bits, notes)
}

/// The control barriers of a thread, in order; refused inside branches and
/// loops (they would not be in uniform control flow).
fn barriers_of(t: &crate::ir::Thread) -> Result<Vec<BarrierSpec>, Unsupported> {
    let mut out = Vec::new();
    for i in t.instructions() {
        if let OpKind::ControlBarrier {
            instance,
            execution_scope,
            id,
            quorum,
        } = &i.kind
        {
            if !t.is_straight_line() {
                return Err(unsupported(
                    Reason::Barrier,
                    format!(
                        "P{} line {}: control barrier in a thread with branches or loops",
                        t.id, i.source.line
                    ),
                ));
            }
            if id.is_some() || quorum.is_some() {
                return Err(unsupported(
                    Reason::Barrier,
                    format!(
                        "P{} line {}: named barrier (id/quorum): SPIR-V has no such barrier",
                        t.id, i.source.line
                    ),
                ));
            }
            if !matches!(execution_scope, Scope::Workgroup | Scope::Subgroup) {
                return Err(unsupported(
                    Reason::Barrier,
                    format!(
                        "P{} line {}: execution scope {execution_scope}: a compute shader's \
                         control barriers have Workgroup or Subgroup execution scope",
                        t.id, i.source.line
                    ),
                ));
            }
            out.push(BarrierSpec {
                instance: *instance,
                execution_scope: *execution_scope,
                memory_scope: i.scope.unwrap_or(*execution_scope),
                semantics: i.semantics.clone(),
            });
        }
    }
    Ok(out)
}

/// An Alloy `.test` program as a litmus program: a register per read, the
/// pinned value of each write as its operand, and the pinned read values as
/// an `exists` condition (for reports).
fn litmus_from_queries(program: &mut Program) -> Option<Pins> {
    let mut conj: Option<CondExpr> = None;
    let mut text = Vec::new();
    let mut values = Vec::new();
    program.symbols.threads.clear();
    let locations = program.locations.clone();
    let references: Vec<usize> = program.references.iter().map(|r| r.location).collect();
    for (ti, t) in program.threads.iter_mut().enumerate() {
        let mut regs: Vec<String> = Vec::new();
        for s in &mut t.code {
            if let Stmt::Op(i) = s {
                if i.is_read() && i.dest.is_none() {
                    let r = read_register(
                        &i.reference.map(|r| locations[references[r]].as_str()),
                        &regs,
                    );
                    i.dest = Some(r.clone());
                    regs.push(r.clone());
                    if let Some(v) = i.read_value {
                        let eq = CondExpr::Eq(
                            crate::ir::Term::Reg {
                                thread: ti,
                                reg: r.clone(),
                            },
                            crate::ir::Term::Const(v),
                        );
                        text.push(format!("P{}:{r} == {v}", t.id));
                        values.push((format!("P{}:{r}", t.id), v));
                        conj = Some(match conj.take() {
                            None => eq,
                            Some(c) => CondExpr::And(Box::new(c), Box::new(eq)),
                        });
                    }
                }
                if i.is_write() && i.operand.is_none() {
                    i.operand = Some(Operand::Const(i.write_value.unwrap_or(0)));
                }
                i.read_value = None;
            }
        }
        program
            .symbols
            .add_thread(format!("P{}", t.id), regs.iter());
    }
    program.queries.clear();
    program.kind = TestKind::Litmus;
    program.condition = Some(Condition {
        quantifier: Some(Quantifier::Exists),
        expr: conj.clone().unwrap_or(CondExpr::True),
        filter: None,
        text: format!("exists ({})", text.join(" /\\ ")),
    });
    conj.map(|filter| Pins { values, filter })
}

/// The register a `.test` read gets in a device run: the name of the
/// location it reads (`P1:y` is the value P1's read of `y` returns), with
/// `_2`, `_3` ... for a thread's later reads of the same location, so the
/// histogram speaks of the file's own names.
fn read_register(location: &Option<&str>, taken: &[String]) -> String {
    let base: String = match location {
        Some(l) if l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => (*l).to_string(),
        _ => "v".to_string(),
    };
    let mut name = base.clone();
    let mut k = 1;
    while taken.contains(&name) {
        k += 1;
        name = format!("{base}_{k}");
    }
    name
}

fn fits(v: i64) -> bool {
    i32::try_from(v).is_ok() || u32::try_from(v).is_ok()
}

/// Refuses what one Vulkan compute dispatch cannot express.
fn check_expressible(program: &Program) -> Result<(), Unsupported> {
    let t0 = program.threads.first();
    if program
        .threads
        .iter()
        .any(|t| Some(t.queue_family) != t0.map(|t| t.queue_family))
    {
        return Err(unsupported(
            Reason::QueueFamilies,
            "threads in several queue families: vkmm runs one dispatch on one queue",
        ));
    }
    if program.threads.iter().any(|t| t.device != 0) {
        return Err(unsupported(Reason::Devices, "threads on several devices"));
    }
    if !program.ssw.is_empty() {
        return Err(unsupported(
            Reason::SystemSynchronizesWith,
            "system-synchronizes-with orders agents by host or API synchronisation \
             (separate submissions); one dispatch has none",
        ));
    }
    if let Some(v) = program.initial_values.iter().find(|v| !fits(**v)) {
        return Err(unsupported(Reason::Values, format!("initial value {v}")));
    }
    for t in &program.threads {
        for s in &t.code {
            let at = |line: usize, text: &str| format!("P{} line {line}: {text}", t.id);
            match s {
                Stmt::Op(i) => check_instruction(i, &at(i.source.line, &i.source.text))?,
                Stmt::Assign {
                    op: crate::ir::ArithOp::Num(op),
                    source,
                    ..
                } => {
                    return Err(unsupported(
                        Reason::Values,
                        format!(
                            "{}: the device shader has no `{}` (floating point and bit operations stay on the model's side)",
                            at(source.line, &source.text),
                            op.name()
                        ),
                    ));
                }
                Stmt::Branch { a, b, source, .. } | Stmt::Assign { a, b, source, .. } => {
                    for o in [a, b] {
                        if let Operand::Const(v) = o
                            && !fits(*v)
                        {
                            return Err(unsupported(
                                Reason::Values,
                                format!("{}: value {v}", at(source.line, &source.text)),
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        if let Some((r, v)) = t.registers.iter().find(|(_, v)| !fits(*v)) {
            return Err(unsupported(
                Reason::Values,
                format!("P{}: register {r} starts at {v}", t.id),
            ));
        }
    }
    Ok(())
}

fn check_instruction(i: &Instruction, at: &str) -> Result<(), Unsupported> {
    if matches!(i.rmw_op, RmwOp::FAdd | RmwOp::FMin | RmwOp::FMax) && i.is_write() {
        return Err(unsupported(
            Reason::Values,
            format!(
                "{at}: float atomics stay on the model's side (the device shader computes on 32-bit integers)"
            ),
        ));
    }
    let sem = &i.semantics;
    let scope_ok = |s: Scope| {
        matches!(
            s,
            Scope::Subgroup | Scope::Workgroup | Scope::QueueFamily | Scope::Device
        )
    };
    if let Some(s) = i.scope
        && !scope_ok(s)
    {
        return Err(unsupported(Reason::Scope, format!("{at}: scope {s}")));
    }
    if sem.seq_cst {
        return Err(unsupported(
            Reason::Semantics,
            format!("{at}: sequentially consistent semantics (not in the Vulkan memory model)"),
        ));
    }
    for o in [&i.operand, &i.expected].into_iter().flatten() {
        if let Operand::Const(v) = o
            && !fits(*v)
        {
            return Err(unsupported(Reason::Values, format!("{at}: value {v}")));
        }
    }
    let needs_scope = i.atomic
        || i.make_pointer_available
        || i.make_pointer_visible
        || matches!(
            i.kind,
            OpKind::MemoryBarrier | OpKind::ControlBarrier { .. }
        );
    if needs_scope && i.scope.is_none() {
        return Err(unsupported(Reason::Scope, format!("{at}: no scope")));
    }
    match i.kind {
        OpKind::Deallocate => {
            return Err(unsupported(
                Reason::ApiAvailability,
                format!(
                    "{at}: a deallocation (`free`) is an API operation (vkFreeMemory), not a shader instruction"
                ),
            ));
        }
        OpKind::ShaderCall { call, .. } => {
            return Err(unsupported(
                Reason::ApiAvailability,
                format!(
                    "{at}: a shader call ({}) needs a ray tracing pipeline; vkmm runs compute shaders",
                    call.spirv()
                ),
            ));
        }
        OpKind::AvailabilityDevice | OpKind::VisibilityDevice => {
            return Err(unsupported(
                Reason::ApiAvailability,
                format!(
                    "{at}: a device-domain availability/visibility operation is an API operation (a pipeline barrier), not a shader instruction"
                ),
            ));
        }
        // SPIR-V: "Release and AcquireRelease are not allowed" for OpAtomicLoad,
        // "Acquire and AcquireRelease are not allowed" for OpAtomicStore.
        OpKind::Load if i.atomic && sem.order.is_release() => {
            return Err(unsupported(
                Reason::Semantics,
                format!("{at}: OpAtomicLoad with Release semantics"),
            ));
        }
        OpKind::Store if i.atomic && sem.order.is_acquire() => {
            return Err(unsupported(
                Reason::Semantics,
                format!("{at}: OpAtomicStore with Acquire semantics"),
            ));
        }
        _ => {}
    }
    if sem.make_available && !sem.order.is_release() {
        return Err(unsupported(
            Reason::Semantics,
            format!("{at}: MakeAvailable without Release semantics"),
        ));
    }
    if sem.make_visible && !sem.order.is_acquire() {
        return Err(unsupported(
            Reason::Semantics,
            format!("{at}: MakeVisible without Acquire semantics"),
        ));
    }
    if i.is_memory_access() && !i.atomic && (i.make_pointer_available && i.is_read()) {
        return Err(unsupported(
            Reason::Semantics,
            format!("{at}: MakePointerAvailable on a read"),
        ));
    }
    Ok(())
}

/// The memory model features of a device.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Features {
    pub vulkan_memory_model: bool,
    pub device_scope: bool,
    pub availability_visibility_chains: bool,
    /// Vulkan 1.3 subgroup size control with full compute subgroups: vkmm
    /// pins the subgroup size of tests whose placement depends on it.
    pub subgroup_size_control: bool,
}

impl Features {
    /// The model a device's observations are judged under: "If
    /// VkPhysicalDeviceVulkanMemoryModelFeatures::vulkanMemoryModelAvailabilityVisibilityChains
    /// is VK_FALSE, then AVC and VISC must each only have a single element
    /// in the chain" (appendix, Location-Ordered), which is `vulkan-nochains`.
    pub fn model(&self) -> &'static str {
        if self.availability_visibility_chains {
            "vulkan"
        } else {
            "vulkan-nochains"
        }
    }
}

/// A Vulkan device as `vkmm devices` lists it (JSON: `device`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DeviceInfo {
    /// Its index in the loader's order (`--device N`).
    pub index: usize,
    pub name: String,
    pub device_type: String,
    pub vendor_id: u32,
    pub device_id: u32,
    pub api_version: String,
    /// The driver's own version number (its encoding is vendor-specific).
    pub driver_version: u32,
    pub driver_name: String,
    pub driver_info: String,
    pub subgroup_size: u32,
    pub max_workgroup_invocations: u32,
    pub features: Features,
}

/// The text of `vkmm devices`.
pub fn devices_text(list: &[DeviceInfo]) -> String {
    if list.is_empty() {
        return "no Vulkan device\n".into();
    }
    let mut s = String::new();
    for d in list {
        let f = &d.features;
        let yes = |b: bool| if b { "yes" } else { "no" };
        s += &format!(
            "{}: {} ({}, Vulkan {}, {} {}, subgroup size {})\n   vulkanMemoryModel {}, device scope {}, availability/visibility chains {} -> model {}\n",
            d.index,
            d.name,
            d.device_type,
            d.api_version,
            d.driver_name,
            d.driver_info,
            d.subgroup_size,
            yes(f.vulkan_memory_model),
            yes(f.device_scope),
            yes(f.availability_visibility_chains),
            f.model()
        );
    }
    s
}
