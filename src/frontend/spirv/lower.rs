//! Lowering one invocation's entry function to IR statements.
//!
//! Every SSA id gets a value at the point its instruction is lowered (in
//! text order, which SPIR-V requires to follow dominance): a constant when
//! it only depends on constants, builtins and push constants (folded here,
//! per invocation), a register otherwise, a tree of those for composites,
//! or a pointer (a variable, a constant byte offset and register terms
//! times strides). Memory accesses through a pointer whose offset is a
//! register become a chain of branches over the variable's cells, one
//! access per cell. Per-invocation variables (Private, Function, Input,
//! Output, PushConstant) live in registers. Function calls are inlined.

use super::module::{
    CVal, Cell, Class, Grid, MatrixLayout, Module, Ty, overlapping, unsupported, wrap_const,
};
use super::syntax::{Inst, Located, Operand as Opnd, Tok};
use crate::ir::{
    ArithOp, CallKind, Cmp, Instruction, Interface, OpKind, Operand, Order, RmwOp, Scope,
    Semantics, SourceSpan, Stmt, StorageClass,
};
use ::spirv::Op;
use std::collections::HashMap;

mod bytes;
mod coop;
mod group;
mod image;
mod known;
pub(super) mod numeric;
pub(super) use coop::CoopUse;

type R<T> = Result<T, Located>;

/// A value at lowering time.
#[derive(Clone, Debug)]
pub(super) enum Val {
    Int(i64),
    Reg(String),
    /// A boolean not yet materialised: `a cmp b`.
    Cond(Cmp, Operand, Operand),
    Comp(Vec<Val>),
    Ptr(Ptr),
    /// A variable of a storage class the IR cannot express.
    Opaque(String),
    Undef,
}

/// A pointer into a variable.
#[derive(Clone, Debug)]
pub(super) struct Ptr {
    pub home: Home,
    pub offset: i64,
    /// Register terms: `(operand, stride)`.
    pub dynamic: Vec<(Operand, i64)>,
    /// Some index of the chain that made the pointer was a runtime value
    /// (an id other than a constant instruction), even one this lowering
    /// knows (a builtin, folded per invocation): its accesses are the
    /// branch chain's, a cell the offset names or nothing (`at_each`).
    pub runtime: bool,
    /// The values the register terms sum to, when they are known to be
    /// bounded: `(span, step)`, the sum a multiple of `step` in `0..span`,
    /// or outside the variable (an image coordinate checked against its
    /// extent, `lower/image.rs`). A branch chain over the pointer's cells
    /// has a case for those offsets only.
    pub window: Option<(i64, i64)>,
    /// The pointee type.
    pub ty: String,
    /// The ray tracing storage class of the variable the pointer was
    /// derived from, which its accesses carry (Shader I/O).
    pub iface: Option<Interface>,
}

/// Where a variable's cells are.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Home {
    /// Shared memory: a variable's instance (its workgroup for Workgroup
    /// variables, 0 otherwise).
    Mem { var: String, instance: usize },
    /// Registers of this invocation (`call` tells inlined calls apart).
    Regs { var: String, call: usize },
}

/// Where a scalar access goes.
#[derive(Clone, Debug)]
enum Target {
    Loc(usize),
    Reg(String),
}

/// The shared memory of the program: each variable instance's cells and
/// their locations.
#[derive(Default)]
pub(super) struct Memory {
    pub cells: HashMap<(String, usize), Vec<(Cell, usize)>>,
    /// The storage class of each variable in memory.
    pub class: HashMap<String, StorageClass>,
    /// Per (per-invocation variable, invocation): the cells whose initial
    /// value is undefined, by byte offset, with the location the
    /// invocation reads it from at its start.
    pub undefined_cells: HashMap<(String, usize), Vec<(i64, usize)>>,
    /// The image variables (their first declared views) an instruction
    /// of the module may write; `None`: any (`sampled::written_images`).
    /// A sample of another image makes no reads: no write can race with
    /// them, and its value is not computed (`Gen::sample`).
    pub written_images: Option<std::collections::BTreeSet<String>>,
    /// The ids of the cooperative matrices vkmm does not compute
    /// (`sampled.rs`): a store of one writes a value never shown.
    pub uncomputed_matrices: std::collections::HashSet<String>,
    /// Variables whose memory is an earlier variable's (the same binding,
    /// or Aliased Workgroup blocks): variable -> that variable
    /// (`layout::aliases`).
    pub alias: HashMap<String, String>,
    /// What an access whose offset names no cell does
    /// (docs/format-spirv.md, "Out-of-bounds accesses").
    pub out_of_bounds: crate::frontend::OutOfBoundsReading,
    /// Under the flat reading, the end of each variable instance's own
    /// bytes (its type's size, at least its cells' end) once elements
    /// past it have locations (`super::past_end_cells`): an offset at or
    /// past it naming no cell is still out of bounds.
    pub real_end: HashMap<(String, usize), i64>,
    /// Under the coherent reading of a GLSL450 module, the locations whose
    /// plain accesses carry availability and visibility, with the scope
    /// (`legacy::Coherence`).
    pub coherent: HashMap<usize, Scope>,
    /// The shared variable instances too large to give every cell a
    /// location (`super::sparse`): the whole layout, by offset. Their
    /// `cells` hold the cells the program's accesses reach; no access
    /// reaches the others, which keep their initial value.
    pub sparse: HashMap<(String, usize), std::sync::Arc<Vec<Cell>>>,
    /// While the cells of sparse instances are sought: per (variable,
    /// instance, access size), the location where an access whose offset
    /// names no cell with a location writes that offset before its path
    /// stops. Empty in the program that is checked.
    pub probe: HashMap<(String, usize, u32), usize>,
    /// An access at a runtime offset in a block no path reaches is
    /// lowered as one in a reached block, a branch over every cell it
    /// may name (`frontend::Options::unreached_chains`); else it leaves
    /// its branches out ([`Gen::at_each`]).
    pub unreached_chains: bool,
    /// The locations no instruction may write, with the value every load
    /// of them reads: the cells of uniform buffers and `NonWritable`
    /// variables with a defined initial value (`layout::read_only`).
    pub read_only: HashMap<usize, i64>,
}

/// Values the headers and the grid give one invocation.
pub(super) struct Place {
    pub index: usize,
    pub grid: Grid,
    /// The invocations each of its shader call instructions creates, in
    /// the order it executes them (`@Call` lines, docs/format-spirv.md).
    pub calls: Vec<Vec<usize>>,
    /// Its incoming ray tracing variables: the variable instance of its
    /// creator each one is (Shader I/O's "corresponding" variable).
    pub bindings: HashMap<String, (String, usize)>,
    /// The instance of the module's Output variables it accesses
    /// (`stages::Outputs`).
    pub output: usize,
}

/// A shader call instruction an invocation executed: what it creates and
/// the variable instance its data operand names (none for
/// `OpReportIntersectionKHR`).
#[derive(Clone, Debug)]
pub(super) struct Created {
    pub call: CallKind,
    pub callees: Vec<usize>,
    pub data: Option<(String, usize)>,
    pub line: usize,
    pub col: usize,
}

impl Place {
    fn builtin(&self, name: &str) -> Option<Vec<i64>> {
        let g = self.grid;
        let k = self.index as i64;
        let wg = g.workgroup_size() as i64;
        let t = g.per_subgroup as i64;
        // Invocation k is local invocation k % wg of workgroup k / wg.
        let unfold =
            |i: i64, shape: [usize; 3]| g.unfold(i as usize, shape).map(|d| d as i64).to_vec();
        let local = unfold(k % wg, g.local);
        let group = unfold(k / wg, g.groups);
        let size = g.local.map(|d| d as i64);
        match name {
            "GlobalInvocationId" => Some((0..3).map(|d| group[d] * size[d] + local[d]).collect()),
            "LocalInvocationId" => Some(local),
            "WorkgroupId" => Some(group),
            "NumWorkgroups" => Some(g.groups.map(|d| d as i64).to_vec()),
            "WorkgroupSize" | "EnqueuedWorkgroupSize" => Some(size.to_vec()),
            "GlobalSize" => Some((0..3).map(|d| size[d] * g.groups[d] as i64).collect()),
            "GlobalOffset" => Some(vec![0, 0, 0]),
            "LocalInvocationIndex" => Some(vec![k % wg]),
            "SubgroupLocalInvocationId" => Some(vec![k % t]),
            "SubgroupId" => Some(vec![(k % wg) / t]),
            "SubgroupSize" | "SubgroupMaxSize" => Some(vec![t]),
            "NumSubgroups" => Some(vec![g.subgroups as i64]),
            // The subgroup masks (SPIR-V, BuiltIn SubgroupEqMask: "Mask of
            // shader invocations in a subgroup that satisfy the predicate:
            // the invocation's id equals the subgroup local invocation id";
            // Ge, Gt, Le, Lt alike): bit k of the 128-bit value, for the
            // ids k of the subgroup, in four 32-bit components.
            "SubgroupEqMask" | "SubgroupEqMaskKHR" => Some(subgroup_mask(t, |j| j == k % t)),
            "SubgroupGeMask" | "SubgroupGeMaskKHR" => Some(subgroup_mask(t, |j| j >= k % t)),
            "SubgroupGtMask" | "SubgroupGtMaskKHR" => Some(subgroup_mask(t, |j| j > k % t)),
            "SubgroupLeMask" | "SubgroupLeMaskKHR" => Some(subgroup_mask(t, |j| j <= k % t)),
            "SubgroupLtMask" | "SubgroupLtMaskKHR" => Some(subgroup_mask(t, |j| j < k % t)),
            // SPIR-V, BuiltIn InvocationId: "Input invocation identifier
            // in a tessellation control or geometry shader": the index in
            // the workgroup (vkmm's patch, docs/format-spirv.md).
            "InvocationId" => Some(vec![k % wg]),
            // BuiltIn PrimitiveId, "Primitive identifier ...": in a
            // tessellation control shader the patch, vkmm's workgroup.
            "PrimitiveId" => Some(vec![k / wg]),
            _ => None,
        }
    }
}

/// A subgroup mask of `size` invocations: bit `j` set when `pick(j)`, as
/// four 32-bit components (each the signed reading of its bits).
fn subgroup_mask(size: i64, pick: impl Fn(i64) -> bool) -> Vec<i64> {
    (0..4)
        .map(|c| {
            let bits = (0..32)
                .filter(|b| {
                    let j = 32 * c + b;
                    j < size && pick(j)
                })
                .fold(0u32, |m, b| m | 1 << b);
            i64::from(bits as i32)
        })
        .collect()
}

/// A phi of a block: its value, its (incoming id, predecessor) pairs and
/// the index of its instruction.
type Phi = (Val, Vec<(String, String)>, usize);

/// One inlined function's state.
struct Frame {
    call: usize,
    vals: HashMap<String, Val>,
    /// Phis of each block: (phi id, its value, (incoming id, predecessor)).
    phis: HashMap<String, Vec<Phi>>,
    ret: Option<Val>,
    exit: String,
    cur: String,
    /// The tangle key's reconvergence points in this function
    /// (`group::Tangles`): merge block -> the register holding the key its
    /// header saved.
    restore: HashMap<String, String>,
    /// Under maximal reconvergence, continue target -> the registers of
    /// its loop's saved key and iteration number.
    cont: HashMap<String, (String, String)>,
    /// Under group instructions, each loop header -> its label's
    /// instruction: the edges into it save the key and count iterations
    /// (`group::Tangles`).
    headers: HashMap<String, usize>,
    /// The blocks lowered so far (`known`).
    visited: std::collections::HashSet<String>,
}

/// Whether `map` may take one more entry within the request's memory
/// bound ([`crate::frontend::clock::room_for_one_more`]); the error is
/// located at `inst`, the instruction whose result would not fit.
fn room_for_one_more<K, V>(map: &HashMap<K, V>, inst: &Inst) -> R<()> {
    match crate::frontend::clock::room_for_one_more(map) {
        None => Ok(()),
        Some(why) => Err((
            inst.line,
            inst.col,
            format!("{why} while the SPIR-V program was lowered"),
        )),
    }
}

/// Units of lowering work between two readings of the request's time
/// and counted memory; the resident memory, whose reading costs a read
/// of `/proc`, is read every [`POLL_RESIDENT`] of them.
const POLL_EVERY: usize = 256;
const POLL_RESIDENT: usize = 4096;

/// The most nested inlined calls.
const MAX_CALL_DEPTH: usize = 16;

/// One invocation's code.
/// An array of image descriptors' layout: the stride between its elements
/// and each element's extents (`None`: not an array of images).
type ImageArray = Option<(i64, Vec<Vec<usize>>)>;

/// The cells of each shared variable instance: (byte offset, size, where).
type MemTargets = HashMap<(String, usize), std::rc::Rc<Vec<(i64, u32, Target)>>>;

pub(super) struct Gen<'a> {
    m: &'a Module,
    insts: &'a [Inst],
    mem: &'a Memory,
    place: Place,
    pub code: Vec<Stmt>,
    /// Initial register values.
    pub registers: Vec<(String, i64)>,
    globals: HashMap<String, Val>,
    reg_cells: HashMap<Home, Vec<(Cell, String)>>,
    fresh: usize,
    calls: usize,
    /// The shader call instructions lowered so far.
    pub created: Vec<Created>,
    /// The cooperative matrix instructions lowered so far, in order.
    pub coops: Vec<CoopUse>,
    /// The cells some access reaches only part of: location -> the cell's
    /// size in bytes (`Program::sizes`, lowered by `ir::bytes::lower`).
    pub sized: std::collections::BTreeMap<usize, u32>,
    /// The registers of cells no instruction writes, with their value: a
    /// builtin Input variable's (the invocation's, `Place::builtin`) and
    /// a push constant's (its `@Input` or clspv's reflection; not one left
    /// undefined). SPIR-V, Storage Class, of Input and of PushConstant:
    /// "Variables declared with this storage class are read-only, and must
    /// not have initializers." A load of them is that value.
    fixed: HashMap<String, i64>,
    /// The places this invocation may access out of bounds: the marker
    /// register, the variable, the instruction (`Program::out_of_bounds`).
    pub out_of_bounds: Vec<(String, String, SourceSpan)>,
    /// Under the flat reading, the elements past the end of a shared
    /// variable instance its accesses name: (variable, instance, byte
    /// offset, size). Given locations, the lowering runs again
    /// (`super::past_end_cells`).
    pub past_end: Vec<(String, usize, i64, u32)>,
    /// The cells of sparse variable instances its accesses at constant
    /// offsets name and that have no location yet: (variable, instance,
    /// byte offset, size). Given locations, the lowering runs again.
    pub wanted: Vec<(String, usize, i64, u32)>,
    /// Units of work done (instructions lowered, cases of an access at a
    /// runtime offset): the request's bounds are read every
    /// [`POLL_EVERY`] of them ([`Gen::poll`]).
    work: usize,
    /// Some access at an offset held in a register wrote its offset to a
    /// probe location (`Memory::probe`).
    pub probed: bool,
    /// The tangle key of a module with group instructions (`None`: none,
    /// and no key is kept).
    tangles: Option<group::Tangles>,
    /// The registers of Private and Function variables' cells whose value
    /// is a known constant where the lowering is (`known`).
    known: HashMap<String, i64>,
    /// Per (inlined call, block or exit label): what the edges lowered
    /// into it so far agree is known.
    edge_known: HashMap<(usize, String), HashMap<String, i64>>,
    /// Each function's control flow and the variables it may write.
    flows: HashMap<String, std::rc::Rc<known::Flow>>,
    /// Per (variable, instance, coordinates): the layout
    /// [`Gen::image_array`] finds, computed once (every image access asks,
    /// and each answer scans the variable's cells).
    image_arrays: std::cell::RefCell<HashMap<(String, usize, usize), ImageArray>>,
    /// Per shared variable instance: its cells as [`Gen::targets`] lists
    /// them, listed once (every access asks, and an image may have
    /// thousands of texels).
    mem_targets: std::cell::RefCell<MemTargets>,
    /// Whether blocks no path reaches are left out (`known`): not where
    /// the lowering numbers what it meets in text order for every
    /// invocation alike (group instructions' instances, the shader call
    /// instructions `@Call` lines name).
    skip_unreached: bool,
    /// The block being lowered is one no path reaches, kept where
    /// `skip_unreached` is false: its edges count for nothing, and an
    /// access it could not lower is none (`lower/image.rs`).
    dead: bool,
}

fn span(inst: &Inst) -> SourceSpan {
    SourceSpan {
        file: None,
        line: inst.line,
        text: inst.text.clone(),
    }
}

fn cval(v: &CVal) -> Val {
    match v {
        CVal::Int(i) => Val::Int(*i),
        CVal::Comp(items) => Val::Comp(items.iter().map(cval).collect()),
        CVal::Undef => Val::Undef,
    }
}

fn negate(c: Cmp) -> Cmp {
    match c {
        Cmp::Eq => Cmp::Ne,
        Cmp::Ne => Cmp::Eq,
        Cmp::Lt => Cmp::Ge,
        Cmp::Ge => Cmp::Lt,
        Cmp::Le => Cmp::Gt,
        Cmp::Gt => Cmp::Le,
    }
}

/// The leaves of a value, in type order.
fn leaves_of(v: &Val, out: &mut Vec<Val>) {
    match v {
        Val::Comp(items) => items.iter().for_each(|i| leaves_of(i, out)),
        other => out.push(other.clone()),
    }
}

/// The leaves of `v`, a value of type `ty`, in layout order, where an
/// undefined part (`OpUndef`, as a whole value or as a member of a
/// composite: glslang builds an HLSL `inout` array parameter's copy from
/// `OpUndef` vectors) stands for every leaf of its type.
fn typed_leaves(m: &Module, ty: &str, v: &Val, out: &mut Vec<Val>) {
    match v {
        Val::Undef => {
            let mut cells = Vec::new();
            let n = if m.leaves(ty, 0, &mut cells).is_ok() {
                cells.len()
            } else {
                1
            };
            out.extend(std::iter::repeat_n(Val::Undef, n));
        }
        Val::Comp(items) => {
            let parts: Vec<String> = match m.ty(ty) {
                Some(Ty::Vector { elem, n }) => vec![elem.clone(); *n],
                Some(Ty::Matrix { col, cols, .. }) => vec![col.clone(); *cols],
                Some(Ty::Array { elem, len }) => vec![elem.clone(); *len],
                Some(Ty::Struct { members }) => members.clone(),
                Some(Ty::CoopMatrix { elem, .. }) => vec![elem.clone()],
                _ => Vec::new(),
            };
            if parts.len() == items.len() {
                for (t, item) in parts.iter().zip(items) {
                    typed_leaves(m, t, item, out);
                }
            } else {
                items.iter().for_each(|i| leaves_of(i, out));
            }
        }
        other => out.push(other.clone()),
    }
}

/// `shape` with its leaves replaced, in order, by the constants of `values`.
fn with_leaves(shape: &Val, values: &mut impl Iterator<Item = i64>) -> Val {
    match shape {
        Val::Comp(items) => Val::Comp(items.iter().map(|i| with_leaves(i, values)).collect()),
        _ => values.next().map_or(Val::Undef, Val::Int),
    }
}

/// The SPIR-V storage class of a ray tracing interface.
pub(super) fn class_name(i: Interface) -> &'static str {
    match i {
        Interface::CallableData => "CallableDataKHR",
        Interface::IncomingCallableData => "IncomingCallableDataKHR",
        Interface::RayPayload => "RayPayloadKHR",
        Interface::IncomingRayPayload => "IncomingRayPayloadKHR",
        Interface::HitAttribute => "HitAttributeKHR",
        Interface::Input => "Input",
        Interface::Output => "Output",
    }
}

/// The IR scope of a SPIR-V scope value.
fn scope_of(v: i64) -> Option<Scope> {
    Some(match v {
        0 => Scope::CrossDevice,
        1 => Scope::Device,
        2 => Scope::Workgroup,
        3 => Scope::Subgroup,
        4 => Scope::Invocation,
        5 => Scope::QueueFamily,
        6 => Scope::ShaderCall,
        _ => return None,
    })
}

/// The IR semantics of a SPIR-V memory semantics value. Vulkan reads
/// SequentiallyConsistent as AcquireRelease.
fn semantics_of(bits: i64) -> Semantics {
    let mut s = Semantics::default();
    if bits & 0x2 != 0 {
        s.order = s.order.join(Order::Acquire);
    }
    if bits & 0x4 != 0 {
        s.order = s.order.join(Order::Release);
    }
    if bits & 0x18 != 0 {
        s.order = s.order.join(Order::AcquireRelease);
    }
    for (bit, class) in [(0x40, 0), (0x200, 0), (0x100, 1), (0x800, 2), (0x1000, 3)] {
        if bits & bit != 0 {
            s.storage_classes.insert(StorageClass(class));
        }
    }
    s.make_available = bits & 0x2000 != 0;
    s.make_visible = bits & 0x4000 != 0;
    s
}

/// Memory operands of a plain load or store.
#[derive(Default)]
struct Access {
    scope: Option<Scope>,
    available: bool,
    visible: bool,
    non_private: bool,
    /// How the instruction names its memory (texels: `lower/image.rs`).
    kind: crate::ir::AccessKind,
}

impl<'a> Gen<'a> {
    pub fn new(
        m: &'a Module,
        insts: &'a [Inst],
        mem: &'a Memory,
        place: Place,
        inputs: &HashMap<String, &super::headers::Init>,
    ) -> R<Gen<'a>> {
        let mut g = Gen {
            m,
            insts,
            mem,
            place,
            code: Vec::new(),
            registers: Vec::new(),
            globals: HashMap::new(),
            reg_cells: HashMap::new(),
            fresh: 0,
            calls: 1,
            created: Vec::new(),
            coops: Vec::new(),
            sized: std::collections::BTreeMap::new(),
            fixed: HashMap::new(),
            out_of_bounds: Vec::new(),
            past_end: Vec::new(),
            wanted: Vec::new(),
            work: 0,
            probed: false,
            tangles: group::Tangles::of(m, insts),
            known: HashMap::new(),
            edge_known: HashMap::new(),
            flows: HashMap::new(),
            image_arrays: Default::default(),
            mem_targets: Default::default(),
            skip_unreached: false,
            dead: false,
        };
        g.skip_unreached = g.tangles.is_none()
            && !insts.iter().any(|i| {
                matches!(
                    i.op,
                    Op::ExecuteCallableKHR | Op::TraceRayKHR | Op::ReportIntersectionKHR
                )
            });
        for (id, c) in &m.consts {
            g.globals.insert(id.clone(), cval(c));
        }
        for v in &m.globals {
            let err = |e: String| (v.line, v.col, format!("variable `%{}`: {e}", v.id));
            let val = match v.class {
                Class::Global | Class::Workgroup | Class::Output | Class::Image => {
                    let instance = match v.class {
                        Class::Workgroup => g.place.index / g.place.grid.workgroup_size(),
                        Class::Output => g.place.output,
                        _ => 0,
                    };
                    Val::Ptr(Ptr {
                        home: Home::Mem {
                            var: g.mem.alias.get(&v.id).unwrap_or(&v.id).clone(),
                            instance,
                        },
                        offset: 0,
                        dynamic: Vec::new(),
                        runtime: false,
                        window: None,
                        ty: v.pointee.clone(),
                        // The appendix's Shader I/O and Tessellation Output
                        // Ordering rules read accesses to Output variables.
                        iface: (v.class == Class::Output).then_some(crate::ir::Interface::Output),
                    })
                }
                // An Input variable of an invocation others generate: the
                // corresponding Output variable of its generators
                // (`stages::bind_inputs`), in memory.
                Class::Invocation
                    if v.class_name == "Input" && g.place.bindings.contains_key(&v.id) =>
                {
                    let (var, instance) = g.place.bindings[&v.id].clone();
                    Val::Ptr(Ptr {
                        home: Home::Mem { var, instance },
                        offset: 0,
                        dynamic: Vec::new(),
                        runtime: false,
                        window: None,
                        ty: v.pointee.clone(),
                        iface: Some(crate::ir::Interface::Input),
                    })
                }
                // One instance per invocation; an incoming variable of an
                // invocation a shader call created is the creator's
                // variable the call names.
                Class::Ray(iface) => {
                    let (var, instance) = g
                        .place
                        .bindings
                        .get(&v.id)
                        .cloned()
                        .unwrap_or((v.id.clone(), g.place.index));
                    Val::Ptr(Ptr {
                        home: Home::Mem { var, instance },
                        offset: 0,
                        dynamic: Vec::new(),
                        runtime: false,
                        window: None,
                        ty: v.pointee.clone(),
                        iface: Some(iface),
                    })
                }
                Class::Invocation => {
                    let mut cells = Vec::new();
                    m.cells(
                        &v.pointee,
                        0,
                        &mut Vec::new(),
                        inputs.get(&v.id).copied(),
                        &mut cells,
                    )
                    .and_then(|()| registers_fit(cells.len()))
                    .map_err(err)?;
                    let mut init: Vec<i64> = cells.iter().map(|c| c.init).collect();
                    // Cells never written: builtin Input variables and push
                    // constants (`Gen::fixed`).
                    let mut fixed = false;
                    if let Some(b) = m.builtin(&v.id).and_then(|b| g.place.builtin(b)) {
                        for (k, x) in b.into_iter().enumerate().take(init.len()) {
                            init[k] = x;
                        }
                        fixed = v.class_name == "Input";
                    } else if v.class_name == "PushConstant" {
                        fixed = true;
                    } else if let Some(i) = &v.init {
                        let mut leaves = Vec::new();
                        leaves_of(
                            &g.globals.get(i).cloned().unwrap_or(Val::Undef),
                            &mut leaves,
                        );
                        for (k, l) in leaves.iter().enumerate().take(init.len()) {
                            if let Val::Int(x) = l {
                                init[k] = *x;
                            }
                        }
                    }
                    if v.class_name == "PushConstant" {
                        // The cells clspv's reflection describes are filled by
                        // the runtime (global size, number of workgroups,
                        // offsets 0), whatever an @Input says of them, as
                        // Dat3M does; an @Input sets the other cells (the
                        // kernel's POD arguments).
                        for (off, values) in &m.push_constants {
                            for (k, x) in values.iter().enumerate() {
                                if let Some(ix) =
                                    cells.iter().position(|c| c.offset == off + 4 * k as i64)
                                {
                                    init[ix] = *x;
                                }
                            }
                        }
                    }
                    let home = Home::Regs {
                        var: v.id.clone(),
                        call: 0,
                    };
                    let undefined = g
                        .mem
                        .undefined_cells
                        .get(&(v.id.clone(), g.place.index))
                        .cloned()
                        .unwrap_or_default();
                    let mut named = Vec::new();
                    for (c, x) in cells.into_iter().zip(init) {
                        let name = cell_name(&v.id, &c.path, 0);
                        if let Some(&(_, loc)) = undefined.iter().find(|(o, _)| *o == c.offset) {
                            let mut ins = Instruction::new(
                                OpKind::Load,
                                SourceSpan {
                                    file: None,
                                    line: v.line,
                                    text: format!("(the undefined initial value of %{})", v.id)
                                        .into(),
                                },
                            );
                            ins.reference = Some(loc);
                            ins.storage_class = Some(StorageClass(0));
                            ins.dest = Some(name.clone());
                            g.code.push(Stmt::Op(ins));
                        }
                        if fixed && !undefined.iter().any(|(o, _)| *o == c.offset) {
                            g.fixed.insert(name.clone(), x);
                        }
                        // A Private variable starts at its initializer
                        // (0 without one, as its register does).
                        if v.class_name == "Private"
                            && !undefined.iter().any(|(o, _)| *o == c.offset)
                        {
                            g.known.insert(name.clone(), x);
                        }
                        g.registers.push((name.clone(), x));
                        named.push((c, name));
                    }
                    g.reg_cells.insert(home.clone(), named);
                    Val::Ptr(Ptr {
                        home,
                        offset: 0,
                        dynamic: Vec::new(),
                        runtime: false,
                        window: None,
                        ty: v.pointee.clone(),
                        iface: None,
                    })
                }
                Class::Other => Val::Opaque(v.class_name.clone()),
            };
            g.globals.insert(v.id.clone(), val);
        }
        Ok(g)
    }

    /// The incoming variables this invocation was given.
    pub fn place_bindings(&self) -> HashMap<String, (String, usize)> {
        self.place.bindings.clone()
    }

    /// Lowers the entry function.
    pub fn run(&mut self, entry: &str) -> R<()> {
        self.function(entry, Vec::new(), 0, None)?;
        Ok(())
    }

    fn fresh_label(&mut self) -> String {
        self.fresh += 1;
        format!("L{}", self.fresh)
    }

    fn fresh_reg(&mut self) -> String {
        self.fresh += 1;
        format!("t{}", self.fresh)
    }

    fn assign(&mut self, dest: &str, op: ArithOp, a: Operand, b: Operand, src: &SourceSpan) {
        // Any write to a register forgets its known value (`known`).
        if !self.known.is_empty() {
            self.known.remove(dest);
        }
        self.code.push(Stmt::Assign {
            dest: dest.to_string(),
            op,
            a,
            b,
            source: src.clone(),
        });
    }

    fn copy(&mut self, dest: &str, a: Operand, src: &SourceSpan) {
        self.assign(dest, ArithOp::Add, a, Operand::Const(0), src);
    }

    fn label(&mut self, name: &str, src: &SourceSpan) {
        self.code.push(Stmt::Label {
            name: name.to_string(),
            source: src.clone(),
        });
    }

    fn goto(&mut self, label: &str, src: &SourceSpan) {
        self.code.push(Stmt::Goto {
            label: label.to_string(),
            source: src.clone(),
        });
    }

    fn branch(&mut self, cmp: Cmp, a: Operand, b: Operand, label: &str, src: &SourceSpan) {
        self.code.push(Stmt::Branch {
            cmp,
            a,
            b,
            label: label.to_string(),
            source: src.clone(),
        });
    }

    /// A scalar value as an operand (a pending comparison is materialised).
    fn operand(&mut self, v: &Val, inst: &Inst, i: usize) -> R<Operand> {
        match v {
            Val::Int(x) => Ok(Operand::Const(*x)),
            Val::Reg(r) => Ok(Operand::Reg(r.clone())),
            Val::Undef => Ok(Operand::Const(0)),
            Val::Cond(cmp, a, b) => {
                let src = span(inst);
                let d = self.fresh_reg();
                let skip = self.fresh_label();
                self.copy(&d, Operand::Const(0), &src);
                self.branch(negate(*cmp), a.clone(), b.clone(), &skip, &src);
                self.copy(&d, Operand::Const(1), &src);
                self.label(&skip, &src);
                Ok(Operand::Reg(d))
            }
            Val::Comp(_) => Err(inst.err_at(
                i,
                format!("{}: expected a scalar, found a composite", inst.name),
            )),
            Val::Ptr(_) | Val::Opaque(_) => Err(inst.err_at(
                i,
                format!("{}: expected a scalar, found a pointer", inst.name),
            )),
        }
    }

    /// The value of an id operand.
    fn val(&self, fr: &Frame, inst: &Inst, i: usize) -> R<Val> {
        let id = inst.id(i)?;
        if let Some(v) = fr.vals.get(id).or_else(|| self.globals.get(id)) {
            return Ok(v.clone());
        }
        let defined_later = self
            .insts
            .iter()
            .any(|x| x.result.as_ref().is_some_and(|(r, _)| r == id));
        let why = if defined_later {
            "is used before its definition (or is not a value)"
        } else {
            "is not defined"
        };
        Err(inst.err_at(i, format!("`%{id}` {why}")))
    }

    fn int_const(&self, fr: &Frame, inst: &Inst, i: usize, what: &str) -> R<i64> {
        match self.val(fr, inst, i)? {
            Val::Int(v) => Ok(v),
            _ => Err(inst.err_at(
                i,
                format!(
                    "unsupported construct `{}`: the {what} is not a constant",
                    inst.name
                ),
            )),
        }
    }

    fn scope(&self, fr: &Frame, inst: &Inst, i: usize) -> R<Scope> {
        let v = self.int_const(fr, inst, i, "scope")?;
        scope_of(v).ok_or_else(|| inst.err_at(i, format!("unknown scope {v}")))
    }

    fn reg_name(&self, fr: &Frame, id: &str) -> String {
        if fr.call == 0 {
            format!("%{id}")
        } else {
            format!("%{id}.c{}", fr.call)
        }
    }

    /// A fresh value of type `ty` held in registers named after `name`.
    fn regs_like(&self, ty: &str, name: &str, inst: &Inst) -> R<Val> {
        Ok(match self.m.ty(ty) {
            Some(Ty::Vector { elem, n }) | Some(Ty::Array { elem, len: n }) if *n <= 4096 => {
                Val::Comp(
                    (0..*n)
                        .map(|k| self.regs_like(elem, &format!("{name}.{k}"), inst))
                        .collect::<R<_>>()?,
                )
            }
            Some(
                Ty::Matrix {
                    col: elem, cols: n, ..
                }
                | Ty::Strided { elem, n, .. },
            ) => Val::Comp(
                (0..*n)
                    .map(|k| self.regs_like(elem, &format!("{name}.{k}"), inst))
                    .collect::<R<_>>()?,
            ),
            Some(Ty::Struct { members }) => Val::Comp(
                members
                    .iter()
                    .enumerate()
                    .map(|(k, m)| self.regs_like(m, &format!("{name}.{k}"), inst))
                    .collect::<R<_>>()?,
            ),
            Some(Ty::Bool | Ty::Int { .. } | Ty::Float { .. }) => Val::Reg(name.to_string()),
            // A cooperative matrix: its one component (module.rs, `cells`).
            Some(Ty::CoopMatrix { elem, .. }) => {
                Val::Comp(vec![self.regs_like(elem, &format!("{name}.0"), inst)?])
            }
            Some(Ty::Pointer { .. }) => {
                return Err(unsupported(inst, "a pointer held in a register"));
            }
            _ => return Err(unsupported(inst, "a value of an opaque type")),
        })
    }

    /// Inlines function `fid`; returns its result.
    fn function(
        &mut self,
        fid: &str,
        args: Vec<Val>,
        depth: usize,
        call: Option<&Inst>,
    ) -> R<Option<Val>> {
        let Some(f) = self.m.functions.get(fid) else {
            let (line, col) = call.map_or((1, 1), |c| (c.line, c.col));
            return Err((
                line,
                col,
                format!("`%{fid}` is not a function of the module"),
            ));
        };
        if depth > MAX_CALL_DEPTH {
            let c = call.map_or((1, 1), |c| (c.line, c.col));
            return Err((
                c.0,
                c.1,
                format!("calls nest deeper than {MAX_CALL_DEPTH} (recursion?)"),
            ));
        }
        let call_no = if depth == 0 { 0 } else { self.calls };
        self.calls += 1;
        let mut fr = Frame {
            call: call_no,
            vals: HashMap::new(),
            phis: HashMap::new(),
            ret: None,
            exit: format!("R{call_no}"),
            cur: String::new(),
            restore: HashMap::new(),
            cont: HashMap::new(),
            headers: HashMap::new(),
            visited: std::collections::HashSet::new(),
        };
        let flow = self.flow(fid);
        let caller_dead = self.dead;
        for (p, a) in f.params.iter().zip(args) {
            fr.vals.insert(p.clone(), a);
        }
        let body = f.body.clone();
        let fn_inst = &self.insts[body.start];
        if let Ok(rt) = fn_inst.id(0)
            && !matches!(self.m.ty(rt), Some(Ty::Void))
        {
            let name = format!("%ret.c{call_no}");
            fr.ret = Some(self.regs_like(rt, &name, fn_inst)?);
        }
        // Phis first: a phi's value may be named (on a back edge) before its block.
        let mut block = String::new();
        for k in body.clone() {
            let inst = &self.insts[k];
            match inst.op {
                Op::Label => {
                    block = inst.result_id()?.to_string();
                    if self.tangles.is_some() && flow.headers.contains(&block) {
                        fr.headers.insert(block.clone(), k);
                    }
                }
                Op::Phi => {
                    let id = inst.result_id()?;
                    let v = self.regs_like(inst.id(0)?, &self.reg_name(&fr, id), inst)?;
                    let mut incoming = Vec::new();
                    let mut i = 1;
                    while i + 1 < inst.operands.len() {
                        incoming.push((inst.id(i)?.to_string(), inst.id(i + 1)?.to_string()));
                        i += 2;
                    }
                    room_for_one_more(&fr.vals, inst)?;
                    fr.vals.insert(id.to_string(), v.clone());
                    fr.phis
                        .entry(block.clone())
                        .or_default()
                        .push((v, incoming, k));
                }
                _ => {}
            }
        }
        // Whether the current block is one no path reaches (`known`).
        let mut unreached = false;
        for k in body {
            let inst = &self.insts[k];
            self.poll(inst)?;
            match inst.op {
                Op::Function | Op::FunctionParameter | Op::FunctionEnd | Op::Phi => {}
                Op::Label => {
                    let id = inst.result_id()?.to_string();
                    // The first block continues from the call; any other
                    // starts from what its incoming edges know.
                    if !fr.visited.is_empty() {
                        self.dead = !self.enter_known(&fr, &flow, &id);
                    }
                    unreached = self.dead && self.skip_unreached;
                    fr.visited.insert(id.clone());
                    if unreached {
                        continue;
                    }
                    let src = span(inst);
                    let name = self.block_label(&fr, &id);
                    self.label(&name, &src);
                    fr.cur = id.clone();
                    let phis = fr.phis.get(&id).cloned().unwrap_or_default();
                    for (v, _, _) in phis {
                        let mut regs = Vec::new();
                        leaves_of(&v, &mut regs);
                        for r in regs {
                            if let Val::Reg(r) = r {
                                self.copy(&r, Operand::Reg(format!("{r}.in")), &src);
                            }
                        }
                    }
                    self.enter_block(&fr, &id, k, &src);
                }
                _ if unreached => {}
                _ => self.inst(&mut fr, inst, depth)?,
            }
        }
        let exit = fr.exit.clone();
        let src = span(&self.insts[f.body.end - 1]);
        self.label(&exit, &src);
        self.known = self.edge_known.remove(&(fr.call, exit)).unwrap_or_default();
        self.dead = caller_dead;
        // A result every return agrees on is that constant.
        let ret = fr.ret.map(|v| self.known_leaves(&v));
        Ok(ret)
    }

    /// `v` with each register leaf whose value is known replaced by it.
    fn known_leaves(&self, v: &Val) -> Val {
        match v {
            Val::Reg(r) => self
                .known
                .get(r)
                .map_or_else(|| v.clone(), |c| Val::Int(*c)),
            Val::Comp(items) => Val::Comp(items.iter().map(|i| self.known_leaves(i)).collect()),
            other => other.clone(),
        }
    }

    fn block_label(&self, fr: &Frame, id: &str) -> String {
        format!("B{}_{}", fr.call, id)
    }

    /// The phi copies of the edge from the current block to `to`.
    fn edge(&mut self, fr: &Frame, to: &str, inst: &Inst) -> R<()> {
        let Some(phis) = fr.phis.get(to).cloned() else {
            return Ok(());
        };
        let src = span(inst);
        for (v, incoming, k) in phis {
            let phi = &self.insts[k];
            let Some(pos) = incoming.iter().position(|(_, pred)| *pred == fr.cur) else {
                return Err(phi.err(format!(
                    "OpPhi has no value for the predecessor `%{}`",
                    fr.cur
                )));
            };
            let value = self.val(fr, phi, 1 + 2 * pos)?;
            let mut dests = Vec::new();
            leaves_of(&v, &mut dests);
            let mut values = Vec::new();
            match value {
                Val::Undef => values.resize(dests.len(), Val::Undef),
                other => leaves_of(&other, &mut values),
            }
            if values.len() != dests.len() {
                return Err(phi.err("OpPhi: an incoming value does not have the phi's type".into()));
            }
            for (d, x) in dests.iter().zip(values) {
                let Val::Reg(d) = d else { continue };
                let o = self.operand(&x, phi, 1 + 2 * pos)?;
                self.copy(&format!("{d}.in"), o, &src);
            }
        }
        Ok(())
    }

    /// Jumps to block `to` (with its phi copies).
    fn jump(&mut self, fr: &Frame, to: &str, inst: &Inst) -> R<()> {
        self.edge(fr, to, inst)?;
        self.note_edge(fr.call, to);
        if let Some(&k) = fr.headers.get(to) {
            self.loop_edge(fr, to, k, &span(inst));
        }
        let l = self.block_label(fr, to);
        self.goto(&l, &span(inst));
        Ok(())
    }

    /// Branches to `to` when `cmp` holds, else falls through.
    fn branch_to(
        &mut self,
        fr: &Frame,
        cond: (Cmp, Operand, Operand),
        to: &str,
        inst: &Inst,
    ) -> R<()> {
        let src = span(inst);
        if fr.phis.contains_key(to) || fr.headers.contains_key(to) {
            let skip = self.fresh_label();
            self.branch(negate(cond.0), cond.1, cond.2, &skip, &src);
            self.jump(fr, to, inst)?;
            self.label(&skip, &src);
        } else {
            self.note_edge(fr.call, to);
            let l = self.block_label(fr, to);
            self.branch(cond.0, cond.1, cond.2, &l, &src);
        }
        Ok(())
    }

    /// A condition as a constant or a comparison.
    fn condition(
        &mut self,
        v: &Val,
        inst: &Inst,
        i: usize,
    ) -> R<Result<bool, (Cmp, Operand, Operand)>> {
        Ok(match v {
            Val::Int(x) => Ok(*x != 0),
            Val::Undef => Ok(false),
            Val::Cond(c, a, b) => Err((*c, a.clone(), b.clone())),
            other => {
                let o = self.operand(other, inst, i)?;
                Err((Cmp::Ne, o, Operand::Const(0)))
            }
        })
    }

    /// One unit of lowering work at `inst`: an instruction, or one case of
    /// an access at a runtime offset (one instruction may expand into one
    /// case per cell of a large variable, each lowered in full). Every
    /// [`POLL_EVERY`] units the request's bounds are read, and a bound
    /// reached stops the lowering, the phase named: a bound reached here,
    /// after the module was read, is the lowering's.
    fn poll(&mut self, inst: &Inst) -> R<()> {
        self.work += 1;
        if !self.work.is_multiple_of(POLL_EVERY) {
            return Ok(());
        }
        let why = if self.work.is_multiple_of(POLL_RESIDENT) {
            crate::frontend::clock::bound_reached()
        } else {
            crate::frontend::clock::counted_bound_reached()
        };
        match why {
            None => Ok(()),
            Some(why) => Err((
                inst.line,
                inst.col,
                format!("{why} while the SPIR-V program was lowered"),
            )),
        }
    }

    fn bind(&self, fr: &mut Frame, inst: &Inst, v: Val) -> R<()> {
        room_for_one_more(&fr.vals, inst)?;
        fr.vals.insert(inst.result_id()?.to_string(), v);
        Ok(())
    }

    /// Lowers one instruction of a function body.
    fn inst(&mut self, fr: &mut Frame, inst: &Inst, depth: usize) -> R<()> {
        let src = span(inst);
        match inst.op {
            Op::SelectionMerge | Op::LoopMerge => self.merge(fr, inst)?,
            Op::Line | Op::NoLine | Op::Nop | Op::Name | Op::Decorate => {}
            Op::Branch => {
                let to = inst.id(0)?.to_string();
                self.jump(fr, &to, inst)?;
            }
            Op::BranchConditional => {
                let c = self.val(fr, inst, 0)?;
                let (t, f) = (inst.id(1)?.to_string(), inst.id(2)?.to_string());
                match self.condition(&c, inst, 0)? {
                    Ok(b) => self.jump(fr, if b { &t } else { &f }, inst)?,
                    Err(_) if t == f => self.jump(fr, &t, inst)?,
                    Err(cond) => {
                        self.branch_to(fr, cond, &t, inst)?;
                        self.jump(fr, &f, inst)?;
                    }
                }
            }
            Op::Switch => {
                let sel = self.val(fr, inst, 0)?;
                let default = inst.id(1)?.to_string();
                let mut cases = Vec::new();
                let mut i = 2;
                while i + 1 < inst.operands.len() {
                    let lit = inst.int(i)?;
                    cases.push((lit as i64, inst.id(i + 1)?.to_string()));
                    i += 2;
                }
                match sel {
                    Val::Int(x) => {
                        let to = cases
                            .iter()
                            .find(|(l, _)| *l == x)
                            .map_or(default, |(_, t)| t.clone());
                        self.jump(fr, &to, inst)?;
                    }
                    other => {
                        let o = self.operand(&other, inst, 0)?;
                        for (lit, to) in cases {
                            self.branch_to(
                                fr,
                                (Cmp::Eq, o.clone(), Operand::Const(lit)),
                                &to,
                                inst,
                            )?;
                        }
                        self.jump(fr, &default, inst)?;
                    }
                }
            }
            Op::Return | Op::Kill | Op::TerminateInvocation | Op::Unreachable => {
                let exit = if depth == 0 {
                    "END".to_string()
                } else {
                    fr.exit.clone()
                };
                self.note_edge(fr.call, &exit);
                self.goto(&exit, &src);
            }
            Op::ReturnValue => {
                let v = self.val(fr, inst, 0)?;
                let ret = fr
                    .ret
                    .clone()
                    .ok_or_else(|| inst.err("OpReturnValue in a function returning void".into()))?;
                self.store_regs(&ret, &v, inst, 0)?;
                let exit = fr.exit.clone();
                self.note_edge(fr.call, &exit);
                self.goto(&exit, &src);
            }
            Op::FunctionCall => {
                let f = inst.id(1)?.to_string();
                let args = (2..inst.operands.len())
                    .map(|i| self.val(fr, inst, i))
                    .collect::<R<Vec<_>>>()?;
                let saved = self.before_call(&src);
                let r = self.function(&f, args, depth + 1, Some(inst))?;
                self.after_call(saved, &src);
                self.bind(fr, inst, r.unwrap_or(Val::Undef))?;
            }
            Op::Undef => self.bind(fr, inst, Val::Undef)?,
            Op::UConvert | Op::SConvert => {
                // Widening: zero- (UConvert) or sign-extension (SConvert, the
                // signed reading already is); narrowing: the low bits.
                let v = self.val(fr, inst, 1)?;
                let from = self.width_of_id(inst.id(1)?);
                let to = self.width_of_type(inst.id(0)?);
                let name = self.reg_name(fr, inst.result_id()?);
                let v = if to < from {
                    self.wrap(&v, to, &name, inst)?
                } else if inst.op == Op::UConvert && to > from {
                    self.unsigned(&v, from, &name, inst)?
                } else {
                    v
                };
                self.bind(fr, inst, v)?;
            }
            Op::CopyObject | Op::CopyLogical | Op::SatConvertSToU | Op::SatConvertUToS => {
                let v = self.val(fr, inst, 1)?;
                self.bind(fr, inst, v)?;
            }
            Op::Bitcast => {
                let v = self.val(fr, inst, 1)?;
                let v = match (v, self.m.ty(inst.id(0)?)) {
                    (Val::Ptr(mut p), Some(Ty::Pointer { pointee, .. })) => {
                        p.ty = pointee.clone();
                        Val::Ptr(p)
                    }
                    (Val::Ptr(_), _) | (_, Some(Ty::Pointer { .. })) => {
                        return Err(unsupported(inst, "casts between pointers and integers"));
                    }
                    (Val::Comp(_), Some(Ty::Int { .. }))
                    | (Val::Int(_) | Val::Reg(_), Some(Ty::Vector { .. })) => {
                        return Err(unsupported(inst, "bit casts between vectors and scalars"));
                    }
                    (v, _) => v,
                };
                self.bind(fr, inst, v)?;
            }
            Op::IAdd
            | Op::ISub
            | Op::IMul
            | Op::SDiv
            | Op::UDiv
            | Op::SRem
            | Op::SMod
            | Op::UMod
            | Op::BitwiseAnd
            | Op::BitwiseOr
            | Op::BitwiseXor
            | Op::ShiftLeftLogical
            | Op::ShiftRightLogical
            | Op::ShiftRightArithmetic => {
                let op = match inst.op {
                    Op::IAdd => ArithOp::Add,
                    Op::ISub => ArithOp::Sub,
                    Op::IMul => ArithOp::Mul,
                    Op::SDiv | Op::UDiv => ArithOp::Div,
                    Op::SRem | Op::UMod => ArithOp::Rem,
                    Op::SMod => ArithOp::Mod,
                    Op::BitwiseAnd => ArithOp::And,
                    Op::BitwiseOr => ArithOp::Or,
                    Op::BitwiseXor => ArithOp::Xor,
                    Op::ShiftLeftLogical => ArithOp::Shl,
                    _ => ArithOp::Shr,
                };
                let (mut a, mut b) = (self.val(fr, inst, 1)?, self.val(fr, inst, 2)?);
                let name = self.reg_name(fr, inst.result_id()?);
                let width = self.width_of_type(inst.id(0)?);
                // Values are kept as the signed reading of their bits
                // (docs/format-spirv.md, "Integer values"): an unsigned
                // operation reads its operands zero-extended first.
                if matches!(inst.op, Op::UDiv | Op::UMod) {
                    a = self.unsigned(&a, width, &format!("{name}.ua"), inst)?;
                    b = self.unsigned(&b, width, &format!("{name}.ub"), inst)?;
                } else if inst.op == Op::ShiftRightLogical {
                    a = self.unsigned(&a, width, &format!("{name}.ua"), inst)?;
                }
                let v = if wraps(inst.op) && width < 64 {
                    let raw = self.binop(&a, &b, &format!("{name}.raw"), op, inst)?;
                    self.wrap(&raw, width, &name, inst)?
                } else {
                    self.binop(&a, &b, &name, op, inst)?
                };
                self.bind(fr, inst, v)?;
            }
            Op::SNegate | Op::Not => {
                let a = self.val(fr, inst, 1)?;
                let name = self.reg_name(fr, inst.result_id()?);
                let width = self.width_of_type(inst.id(0)?);
                let v = if inst.op == Op::SNegate && width < 64 {
                    let raw =
                        self.binop(&Val::Int(0), &a, &format!("{name}.raw"), ArithOp::Sub, inst)?;
                    self.wrap(&raw, width, &name, inst)?
                } else if inst.op == Op::SNegate {
                    self.binop(&Val::Int(0), &a, &name, ArithOp::Sub, inst)?
                } else {
                    self.binop(&a, &Val::Int(-1), &name, ArithOp::Xor, inst)?
                };
                self.bind(fr, inst, v)?;
            }
            Op::IEqual
            | Op::INotEqual
            | Op::ULessThan
            | Op::SLessThan
            | Op::ULessThanEqual
            | Op::SLessThanEqual
            | Op::UGreaterThan
            | Op::SGreaterThan
            | Op::UGreaterThanEqual
            | Op::SGreaterThanEqual
            | Op::LogicalEqual
            | Op::LogicalNotEqual => {
                let cmp = match inst.op {
                    Op::IEqual | Op::LogicalEqual => Cmp::Eq,
                    Op::INotEqual | Op::LogicalNotEqual => Cmp::Ne,
                    Op::ULessThan | Op::SLessThan => Cmp::Lt,
                    Op::ULessThanEqual | Op::SLessThanEqual => Cmp::Le,
                    Op::UGreaterThan | Op::SGreaterThan => Cmp::Gt,
                    _ => Cmp::Ge,
                };
                let (mut a, mut b) = (self.val(fr, inst, 1)?, self.val(fr, inst, 2)?);
                if matches!(
                    inst.op,
                    Op::ULessThan | Op::ULessThanEqual | Op::UGreaterThan | Op::UGreaterThanEqual
                ) {
                    let width = self.width_of_id(inst.id(1)?);
                    let name = self.reg_name(fr, inst.result_id()?);
                    a = self.unsigned(&a, width, &format!("{name}.ua"), inst)?;
                    b = self.unsigned(&b, width, &format!("{name}.ub"), inst)?;
                }
                let v = self.compare(&a, &b, cmp, inst)?;
                self.bind(fr, inst, v)?;
            }
            Op::LogicalNot => {
                let a = self.val(fr, inst, 1)?;
                let v = self.not(&a, inst)?;
                self.bind(fr, inst, v)?;
            }
            Op::LogicalAnd | Op::LogicalOr => {
                let (a, b) = (self.val(fr, inst, 1)?, self.val(fr, inst, 2)?);
                let name = self.reg_name(fr, inst.result_id()?);
                let op = if inst.op == Op::LogicalAnd {
                    ArithOp::And
                } else {
                    ArithOp::Or
                };
                let (a, b) = (self.booleans(&a, inst)?, self.booleans(&b, inst)?);
                let v = self.binop(&a, &b, &name, op, inst)?;
                self.bind(fr, inst, v)?;
            }
            Op::Select => {
                let c = self.val(fr, inst, 1)?;
                let (a, b) = (self.val(fr, inst, 2)?, self.val(fr, inst, 3)?);
                let name = self.reg_name(fr, inst.result_id()?);
                let v = self.select(&c, &a, &b, &name, inst)?;
                self.bind(fr, inst, v)?;
            }
            Op::CompositeConstruct => {
                let items = (1..inst.operands.len())
                    .map(|i| self.val(fr, inst, i))
                    .collect::<R<Vec<_>>>()?;
                // A vector may be built from smaller vectors.
                let items = if matches!(self.m.ty(inst.id(0)?), Some(Ty::Vector { .. })) {
                    let mut flat = Vec::new();
                    items.iter().for_each(|v| leaves_of(v, &mut flat));
                    flat
                } else {
                    items
                };
                self.bind(fr, inst, Val::Comp(items))?;
            }
            Op::CompositeExtract => {
                let mut v = self.val(fr, inst, 1)?;
                let matrix = self.is_coop(inst.id(1)?);
                for i in 2..inst.operands.len() {
                    // A cooperative matrix's components are its one.
                    let k = if matrix && i == 2 { 0 } else { inst.int(i)? };
                    v = match v {
                        Val::Comp(items) => items
                            .get(k as usize)
                            .cloned()
                            .ok_or_else(|| inst.err_at(i, format!("index {k} out of range")))?,
                        Val::Undef => Val::Undef,
                        _ => return Err(inst.err_at(i, "OpCompositeExtract of a scalar".into())),
                    };
                }
                self.bind(fr, inst, v)?;
            }
            Op::CompositeInsert => {
                let obj = self.val(fr, inst, 1)?;
                let mut comp = self.val(fr, inst, 2)?;
                let matrix = self.is_coop(inst.id(2)?);
                let path = (3..inst.operands.len())
                    .map(|i| {
                        if matrix && i == 3 {
                            Ok(0)
                        } else {
                            inst.int(i).map(|k| k as usize)
                        }
                    })
                    .collect::<R<Vec<_>>>()?;
                if matches!(comp, Val::Undef) {
                    comp = self.undef_like(inst.id(0)?);
                }
                let mut slot = &mut comp;
                for (n, k) in path.iter().enumerate() {
                    slot = match slot {
                        Val::Comp(items) if *k < items.len() => &mut items[*k],
                        _ => return Err(inst.err_at(3 + n, format!("index {k} out of range"))),
                    };
                }
                *slot = obj;
                self.bind(fr, inst, comp)?;
            }
            Op::VectorShuffle => {
                let (a, b) = (self.val(fr, inst, 1)?, self.val(fr, inst, 2)?);
                let ty_len = |v: &Val, ty: Option<&Ty>| match (v, ty) {
                    (Val::Comp(items), _) => items.len(),
                    (_, Some(Ty::Vector { n, .. })) => *n,
                    _ => 0,
                };
                let la = ty_len(
                    &a,
                    self.m
                        .result_types
                        .get(inst.id(1)?)
                        .and_then(|t| self.m.ty(t)),
                );
                let mut out = Vec::new();
                for i in 3..inst.operands.len() {
                    let k = inst.int(i)?;
                    let pick = |v: &Val, j: usize| match v {
                        Val::Comp(items) => items.get(j).cloned().unwrap_or(Val::Undef),
                        _ => Val::Undef,
                    };
                    out.push(if k == 0xFFFF_FFFF {
                        Val::Undef
                    } else if (k as usize) < la {
                        pick(&a, k as usize)
                    } else {
                        pick(&b, k as usize - la)
                    });
                }
                self.bind(fr, inst, Val::Comp(out))?;
            }
            Op::VectorExtractDynamic => {
                let v = self.val(fr, inst, 1)?;
                let k = self.int_const(fr, inst, 2, "index")?;
                let r = match v {
                    Val::Comp(items) => items.get(k as usize).cloned().unwrap_or(Val::Undef),
                    _ => Val::Undef,
                };
                self.bind(fr, inst, r)?;
            }
            Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain => {
                let v = self.chain(fr, inst)?;
                self.bind(fr, inst, v)?;
            }
            Op::Variable => {
                let id = inst.result_id()?.to_string();
                let Some(Ty::Pointer { pointee, .. }) = self.m.ty(inst.id(0)?).cloned() else {
                    return Err(inst.err_at(0, "OpVariable: expected a pointer type".into()));
                };
                let mut cells = Vec::new();
                self.m
                    .cells(&pointee, 0, &mut Vec::new(), None, &mut cells)
                    .and_then(|()| registers_fit(cells.len()))
                    .map_err(|e| unsupported(inst, &e))?;
                let home = Home::Regs {
                    var: id.clone(),
                    call: fr.call,
                };
                let init = if inst.operands.len() > 2 {
                    Some(self.val(fr, inst, 2)?)
                } else {
                    None
                };
                let mut leaves = Vec::new();
                if let Some(i) = &init {
                    leaves_of(i, &mut leaves);
                }
                let mut named = Vec::new();
                for (k, c) in cells.into_iter().enumerate() {
                    let name = cell_name(&id, &c.path, fr.call);
                    let x = leaves.get(k).cloned().unwrap_or(Val::Int(0));
                    let o = self.operand(&x, inst, 2)?;
                    self.copy(&name, o, &src);
                    if let Val::Int(v) = x {
                        self.known.insert(name.clone(), v);
                    }
                    named.push((c, name));
                }
                self.reg_cells.insert(home.clone(), named);
                self.bind(
                    fr,
                    inst,
                    Val::Ptr(Ptr {
                        home,
                        offset: 0,
                        dynamic: Vec::new(),
                        runtime: false,
                        window: None,
                        ty: pointee,
                        iface: None,
                    }),
                )?;
            }
            Op::Load
                if matches!(self.val(fr, inst, 1)?, Val::Opaque(_))
                    && matches!(self.m.ty(inst.id(0)?), Some(Ty::Other(t)) if t == "OpTypeAccelerationStructureKHR") =>
            {
                // An acceleration structure handle, for OpTraceRayKHR.
                self.bind(fr, inst, Val::Opaque("acceleration structure".into()))?;
            }
            Op::Load if self.is_image(fr, inst) => {
                // Loading an image variable gives the image: vkmm keeps
                // it as the pointer to the variable (`lower/image.rs`).
                let p = self.ptr(fr, inst, 1)?;
                self.bind(fr, inst, Val::Ptr(p))?;
            }
            Op::Load
                if matches!(self.val(fr, inst, 1)?, Val::Opaque(_))
                    && matches!(self.m.ty(inst.id(0)?), Some(Ty::Other(t)) if t == "OpTypeSampler") =>
            {
                // A sampler: filtering state, no memory location.
                self.bind(fr, inst, Val::Opaque(image::SAMPLER.into()))?;
            }
            Op::ImageRead
            | Op::ImageWrite
            | Op::ImageTexelPointer
            | Op::ImageFetch
            | Op::ImageSparseRead
            | Op::ImageSparseFetch
            | Op::SampledImage
            | Op::Image => self.image(fr, inst)?,
            Op::ImageQuerySize
            | Op::ImageQuerySizeLod
            | Op::ImageQueryLevels
            | Op::ImageQuerySamples => self.image_query(fr, inst)?,
            op if image::is_sampling(op) => self.sample(fr, inst)?,
            Op::TensorReadARM | Op::TensorWriteARM | Op::TensorQuerySizeARM => {
                self.tensor(fr, inst)?
            }
            Op::Load => {
                let p = self.ptr(fr, inst, 1)?;
                let acc = self.access(fr, inst, 2)?;
                let name = self.reg_name(fr, inst.result_id()?);
                let known = match &p.home {
                    Home::Regs { .. } if p.dynamic.is_empty() => {
                        self.known_value(&p.home, p.offset, inst.id(0)?)
                    }
                    _ => None,
                };
                let fixed = match self.builtin_value(&p, inst.id(0)?, &name, inst)? {
                    Some(v) => Some(v),
                    None => self.read_only_value(&p, inst.id(0)?, &name, inst)?,
                };
                let v = match (known, fixed) {
                    (_, Some(v)) => v,
                    (Some(values), None) => {
                        let shape = self.regs_like(inst.id(0)?, &name, inst)?;
                        with_leaves(&shape, &mut values.into_iter())
                    }
                    (None, None) => self.load(&p, inst.id(0)?, &name, inst, &acc)?,
                };
                self.bind(fr, inst, v)?;
            }
            Op::ArrayLength => {
                let n = self.array_length(fr, inst)?;
                self.bind(fr, inst, Val::Int(n))?;
            }
            Op::Store => {
                let p = self.ptr(fr, inst, 0)?;
                let v = self.val(fr, inst, 1)?;
                let acc = self.access(fr, inst, 2)?;
                self.store(&p, &v, inst, &acc)?;
            }
            Op::CooperativeMatrixLoadKHR | Op::CooperativeMatrixStoreKHR => {
                self.coop(fr, inst)?;
            }
            Op::CooperativeMatrixMulAddKHR | Op::CooperativeMatrixLengthKHR => {
                self.coop_value(fr, inst)?;
            }
            Op::CopyMemory => {
                let (d, s) = (self.ptr(fr, inst, 0)?, self.ptr(fr, inst, 1)?);
                let tmp = self.fresh_reg();
                let v = self.load(&s, &s.ty.clone(), &tmp, inst, &Access::default())?;
                self.store(&d, &v, inst, &Access::default())?;
            }
            op if super::syntax::is_atomic(op) => {
                self.atomic(fr, inst)?;
            }
            Op::ControlBarrier => {
                // `OpControlBarrier Execution Memory Semantics`: both scopes
                // kept (Vulkan appendix: "A and B are in the instance of
                // each other's memory scopes" and "A and B are in the
                // instance of C's execution scope").
                let exec = self.scope(fr, inst, 0)?;
                let scope = self.scope(fr, inst, 1)?;
                let sem = self.int_const(fr, inst, 2, "memory semantics")?;
                let mut ins =
                    Instruction::new(OpKind::control_barrier(inst.line as u32, exec), src);
                ins.scope = Some(scope);
                ins.semantics = semantics_of(sem);
                self.code.push(Stmt::Op(ins));
            }
            Op::ExecuteCallableKHR | Op::TraceRayKHR | Op::ReportIntersectionKHR => {
                self.shader_call(fr, inst)?;
            }
            Op::MemoryBarrier => {
                let scope = self.scope(fr, inst, 0)?;
                let sem = self.int_const(fr, inst, 1, "memory semantics")?;
                let mut ins = Instruction::new(OpKind::MemoryBarrier, src);
                ins.scope = Some(scope);
                ins.semantics = semantics_of(sem);
                self.code.push(Stmt::Op(ins));
            }
            // SPV_KHR_non_semantic_info: "Non-Semantic Instruction: an
            // instruction that has no semantic impact, and can be safely
            // removed from the module." (DebugPrintf, the shader debug
            // information of `NonSemantic.Shader.DebugInfo.100`); their
            // operands may name strings and forward ids no value stands for.
            Op::ExtInst if self.non_semantic(inst) => {}
            Op::ExtInst => {
                let v = self.ext_inst(fr, inst)?;
                self.bind(fr, inst, v)?;
            }
            _ if group::is_group(inst) => self.group(fr, inst)?,
            _ => {
                if let Some(v) = self.numeric(fr, inst)? {
                    return self.bind(fr, inst, v);
                }
                let name = inst.name.as_str();
                let why = if name == "OpMemoryNamedBarrier" || name == "OpNamedBarrierInitialize" {
                    // The appendix names it ("OpControlBarrier, OpMemoryBarrier,
                    // and OpMemoryNamedBarrier are memory barrier
                    // instructions in SPIR-V") but its named barrier object
                    // needs the NamedBarrier capability of OpenCL kernels.
                    "a named barrier object (OpNamedBarrierInitialize) belongs to the NamedBarrier capability of kernels; the appendix counts it among the memory barriers (\"OpControlBarrier, OpMemoryBarrier, and OpMemoryNamedBarrier are memory barrier instructions in SPIR-V\"): write it in the Vulkan litmus dialect as a named control barrier `cbar.SEMANTICS.SCOPE N, ID[, QUORUM]`"
                } else if name.starts_with("OpCooperativeMatrix") {
                    // The KHR instructions are lowered (docs/format-spirv.md,
                    // "Cooperative matrices"); the NV forms are not.
                    "vkmm lowers the SPV_KHR_cooperative_matrix instructions (OpCooperativeMatrixLoadKHR, StoreKHR, MulAddKHR, LengthKHR), not the NV or vendors' forms (docs/format-spirv.md, \"Cooperative matrices\")"
                } else if matches!(name, "OpTraceNV" | "OpExecuteCallableNV") {
                    "the NV ray tracing instructions take their data by location number: write OpTraceRayKHR / OpExecuteCallableKHR (docs/format-spirv.md, \"Shader calls\")"
                } else if name.contains("Image") || name.contains("Sampl") {
                    "vkmm lowers OpImageRead, OpImageWrite, OpImageTexelPointer, OpImageFetch, their sparse forms OpImageSparseRead and OpImageSparseFetch, OpSampledImage, OpImage, the queries OpImageQuerySize, OpImageQuerySizeLod, OpImageQueryLevels, OpImageQuerySamples and OpImageQueryLod, and the sampling instructions OpImageSample*, OpImageSparseSample*, OpImage*Gather, OpImageSparse*Gather, OpImageSparseTexelsResident (docs/format-spirv.md, \"Images\", \"Sampling\"): vendors' image processing is not modelled"
                } else if name.contains("Tensor") {
                    "vkmm lowers OpTensorReadARM, OpTensorWriteARM and OpTensorQuerySizeARM only (docs/format-spirv.md, \"Tensors\")"
                } else if name.starts_with("OpF")
                    || name.contains("ToF")
                    || name.contains("FTo")
                    || name == "OpIsNan"
                    || name == "OpIsInf"
                    || name.contains("Dot")
                {
                    "vkmm does not lower this floating-point instruction (docs/format-spirv.md, \"Floating point\", lists those it does)"
                } else if name.starts_with("OpGroup") || name.contains("Subgroup") {
                    "vkmm lowers the OpGroupNonUniform* instructions of SPIR-V 1.3 and the integer OpGroup* instructions of kernels (docs/format-spirv.md, \"Subgroup operations\")"
                } else {
                    "vkmm does not lower this instruction"
                };
                return Err(unsupported(inst, why));
            }
        }
        Ok(())
    }

    /// `OpExecuteCallableKHR`, `OpTraceRayKHR`, `OpReportIntersectionKHR`:
    /// a shader call creating the invocations of this invocation's next
    /// `@Call` line (docs/format-spirv.md, "Shader calls").
    fn shader_call(&mut self, fr: &mut Frame, inst: &Inst) -> R<()> {
        let (call, data) = match inst.op {
            // SPIR-V, OpExecuteCallableKHR: "Callable Data is a pointer to
            // the callable data to pass into the called shader. Callable
            // Data must have a storage class of CallableDataKHR or
            // IncomingCallableDataKHR."
            Op::ExecuteCallableKHR => (
                CallKind::ExecuteCallable,
                Some((
                    1,
                    [Interface::CallableData, Interface::IncomingCallableData],
                )),
            ),
            // SPIR-V, OpTraceRayKHR: "Payload is a pointer to the ray
            // payload structure to use for this trace. Payload must have a
            // storage class of RayPayloadKHR or IncomingRayPayloadKHR."
            Op::TraceRayKHR => (
                CallKind::TraceRay,
                Some((10, [Interface::RayPayload, Interface::IncomingRayPayload])),
            ),
            _ => (CallKind::ReportIntersection, None),
        };
        let data = match data {
            Some((i, classes)) => {
                let p = self.ptr(fr, inst, i)?;
                let ok = p.iface.is_some_and(|c| classes.contains(&c));
                let (Home::Mem { var, instance }, true) = (&p.home, ok) else {
                    return Err(inst.err_at(
                        i,
                        format!(
                            "{}: expected a pointer to a variable of storage class {} or {}",
                            inst.name,
                            class_name(classes[0]),
                            class_name(classes[1])
                        ),
                    ));
                };
                if p.offset != 0 || !p.dynamic.is_empty() {
                    return Err(inst.err_at(
                        i,
                        format!(
                            "{}: expected the whole variable, not a part of it",
                            inst.name
                        ),
                    ));
                }
                Some((var.clone(), *instance))
            }
            None => None,
        };
        let Some(callees) = self.place.calls.get(self.created.len()).cloned() else {
            return Err(inst.err(format!(
                "{} is shader call number {} of P{}, but the @Call lines of P{} name {}: add `; @Call: P{} -> Pk` for the invocations it creates (docs/format-spirv.md, \"Shader calls\")",
                inst.name,
                self.created.len() + 1,
                self.place.index,
                self.place.index,
                self.place.calls.len(),
                self.place.index
            )));
        };
        self.created.push(Created {
            call,
            callees: callees.clone(),
            data,
            line: inst.line,
            col: inst.col,
        });
        self.code.push(Stmt::Op(Instruction::new(
            OpKind::ShaderCall { callees, call },
            span(inst),
        )));
        if call == CallKind::ReportIntersection {
            // "Returns True if the hit was accepted": the any-hit
            // invocation the @Call line names runs, so vkmm reads the hit
            // as accepted.
            self.bind(fr, inst, Val::Int(1))?;
        }
        Ok(())
    }

    pub(super) fn undef_like(&self, ty: &str) -> Val {
        match self.m.ty(ty) {
            Some(
                Ty::Vector { elem, n }
                | Ty::Array { elem, len: n }
                | Ty::Matrix {
                    col: elem, cols: n, ..
                }
                | Ty::Strided { elem, n, .. },
            ) if *n <= 64 => Val::Comp(vec![self.undef_like(elem); *n]),
            Some(Ty::Struct { members }) => {
                Val::Comp(members.iter().map(|m| self.undef_like(m)).collect())
            }
            Some(Ty::CoopMatrix { elem, .. }) => Val::Comp(vec![self.undef_like(elem)]),
            _ => Val::Undef,
        }
    }

    /// `a op b`, component-wise, folded when both are constants.
    fn binop(&mut self, a: &Val, b: &Val, dest: &str, op: ArithOp, inst: &Inst) -> R<Val> {
        match (a, b) {
            (Val::Comp(xs), Val::Comp(ys)) => {
                let mut out = Vec::new();
                for (k, (x, y)) in xs.iter().zip(ys).enumerate() {
                    out.push(self.binop(x, y, &format!("{dest}.{k}"), op, inst)?);
                }
                Ok(Val::Comp(out))
            }
            // A constant scalar with a vector: the lowering's own constants
            // (`OpNot` is `xor -1`, `OpSNegate` is `0 - a`) apply to each
            // component (SPIR-V's operands of a binary operation have one
            // shape, so only these mix).
            (Val::Comp(xs), Val::Int(_) | Val::Undef) => {
                let mut out = Vec::new();
                for (k, x) in xs.iter().enumerate() {
                    out.push(self.binop(x, b, &format!("{dest}.{k}"), op, inst)?);
                }
                Ok(Val::Comp(out))
            }
            (Val::Int(_) | Val::Undef, Val::Comp(ys)) => {
                let mut out = Vec::new();
                for (k, y) in ys.iter().enumerate() {
                    out.push(self.binop(a, y, &format!("{dest}.{k}"), op, inst)?);
                }
                Ok(Val::Comp(out))
            }
            (Val::Int(x), Val::Int(y)) => Ok(Val::Int(op.apply(*x, *y))),
            (Val::Undef, Val::Int(y)) => Ok(Val::Int(op.apply(0, *y))),
            (Val::Int(x), Val::Undef) => Ok(Val::Int(op.apply(*x, 0))),
            _ => {
                let oa = self.operand(a, inst, 1)?;
                let ob = self.operand(b, inst, 2)?;
                self.assign(dest, op, oa, ob, &span(inst));
                Ok(Val::Reg(dest.to_string()))
            }
        }
    }

    /// The bit width of an integer type (of its components for a vector);
    /// 64 for anything else (no wrapping).
    fn width_of_type(&self, ty: &str) -> u32 {
        match self.m.ty(ty) {
            Some(Ty::Int { width }) => *width,
            Some(Ty::Vector { elem, .. } | Ty::CoopMatrix { elem, .. }) => self.width_of_type(elem),
            _ => 64,
        }
    }

    /// Whether the value `id` is a cooperative matrix.
    pub(super) fn is_coop(&self, id: &str) -> bool {
        self.m
            .result_types
            .get(id)
            .is_some_and(|t| matches!(self.m.ty(t), Some(Ty::CoopMatrix { .. })))
    }

    /// The bit width of the integer type of a value id.
    fn width_of_id(&self, id: &str) -> u32 {
        self.m
            .result_types
            .get(id)
            .map_or(64, |t| self.width_of_type(t))
    }

    /// `v` cut to its low `width` bits, read as signed (the representation
    /// of every integer value below 64 bits): folded for constants, three
    /// assignments for a register (`and`, `xor` and `sub` of the sign bit).
    fn wrap(&mut self, v: &Val, width: u32, dest: &str, inst: &Inst) -> R<Val> {
        if width >= 64 || width == 0 {
            return Ok(v.clone());
        }
        match v {
            Val::Comp(xs) => {
                let mut out = Vec::new();
                for (k, x) in xs.iter().enumerate() {
                    out.push(self.wrap(x, width, &format!("{dest}.{k}"), inst)?);
                }
                Ok(Val::Comp(out))
            }
            Val::Int(x) => Ok(Val::Int(wrap_const(*x, width))),
            Val::Undef => Ok(Val::Undef),
            other => {
                let mask = Val::Int(((1u64 << width) - 1) as i64);
                let sign = Val::Int(1i64 << (width - 1));
                let low = self.binop(other, &mask, &format!("{dest}.lo"), ArithOp::And, inst)?;
                let flipped = self.binop(&low, &sign, &format!("{dest}.sx"), ArithOp::Xor, inst)?;
                self.binop(&flipped, &sign, dest, ArithOp::Sub, inst)
            }
        }
    }

    /// `v` read as unsigned: its low `width` bits, zero-extended.
    fn unsigned(&mut self, v: &Val, width: u32, dest: &str, inst: &Inst) -> R<Val> {
        if width >= 64 || width == 0 {
            return Ok(v.clone());
        }
        if let Val::Comp(xs) = v {
            let mut out = Vec::new();
            for (k, x) in xs.iter().enumerate() {
                out.push(self.unsigned(x, width, &format!("{dest}.{k}"), inst)?);
            }
            return Ok(Val::Comp(out));
        }
        let mask = Val::Int(((1u64 << width) - 1) as i64);
        self.binop(v, &mask, dest, ArithOp::And, inst)
    }

    fn compare(&mut self, a: &Val, b: &Val, cmp: Cmp, inst: &Inst) -> R<Val> {
        match (a, b) {
            (Val::Comp(xs), Val::Comp(ys)) => Ok(Val::Comp(
                xs.iter()
                    .zip(ys)
                    .map(|(x, y)| self.compare(x, y, cmp, inst))
                    .collect::<R<_>>()?,
            )),
            (Val::Int(x), Val::Int(y)) => Ok(Val::Int(i64::from(cmp.holds(x, y)))),
            _ => {
                let oa = self.operand(a, inst, 1)?;
                let ob = self.operand(b, inst, 2)?;
                Ok(Val::Cond(cmp, oa, ob))
            }
        }
    }

    fn not(&mut self, a: &Val, inst: &Inst) -> R<Val> {
        Ok(match a {
            Val::Comp(xs) => Val::Comp(xs.iter().map(|x| self.not(x, inst)).collect::<R<_>>()?),
            Val::Int(x) => Val::Int(i64::from(*x == 0)),
            Val::Undef => Val::Int(1),
            Val::Cond(c, x, y) => Val::Cond(negate(*c), x.clone(), y.clone()),
            other => {
                let o = self.operand(other, inst, 1)?;
                Val::Cond(Cmp::Eq, o, Operand::Const(0))
            }
        })
    }

    /// Booleans as 0/1 values (comparisons materialised).
    fn booleans(&mut self, a: &Val, inst: &Inst) -> R<Val> {
        Ok(match a {
            Val::Comp(xs) => Val::Comp(
                xs.iter()
                    .map(|x| self.booleans(x, inst))
                    .collect::<R<_>>()?,
            ),
            Val::Cond(..) => Val::Reg(match self.operand(a, inst, 1)? {
                Operand::Reg(r) => r,
                Operand::Const(c) => return Ok(Val::Int(c)),
            }),
            other => other.clone(),
        })
    }

    fn select(&mut self, c: &Val, a: &Val, b: &Val, dest: &str, inst: &Inst) -> R<Val> {
        if let (Val::Comp(cs), Val::Comp(xs), Val::Comp(ys)) = (c, a, b) {
            let mut out = Vec::new();
            for (k, ((c, x), y)) in cs.iter().zip(xs).zip(ys).enumerate() {
                out.push(self.select(c, x, y, &format!("{dest}.{k}"), inst)?);
            }
            return Ok(Val::Comp(out));
        }
        match self.condition(c, inst, 1)? {
            Ok(true) => Ok(a.clone()),
            Ok(false) => Ok(b.clone()),
            Err((cmp, x, y)) => {
                if matches!(a, Val::Ptr(_)) || matches!(b, Val::Ptr(_)) {
                    return Err(unsupported(
                        inst,
                        "a choice between pointers on a runtime value",
                    ));
                }
                let mut xs = Vec::new();
                leaves_of(a, &mut xs);
                let mut ys = Vec::new();
                leaves_of(b, &mut ys);
                if xs.len() != ys.len() {
                    return Err(inst.err("OpSelect: operands of different shapes".into()));
                }
                let src = span(inst);
                let mut dests = Vec::new();
                for k in 0..xs.len() {
                    dests.push(if xs.len() == 1 {
                        dest.to_string()
                    } else {
                        format!("{dest}.{k}")
                    });
                }
                for (d, y) in dests.iter().zip(&ys) {
                    let o = self.operand(y, inst, 3)?;
                    self.copy(d, o, &src);
                }
                let skip = self.fresh_label();
                self.branch(negate(cmp), x, y, &skip, &src);
                for (d, x) in dests.iter().zip(&xs) {
                    let o = self.operand(x, inst, 2)?;
                    self.copy(d, o, &src);
                }
                self.label(&skip, &src);
                let regs: Vec<Val> = dests.into_iter().map(Val::Reg).collect();
                Ok(if let Val::Comp(_) = a {
                    rebuild(a, &mut regs.into_iter())
                } else {
                    regs.into_iter().next().unwrap_or(Val::Undef)
                })
            }
        }
    }

    /// Writes `v` into the registers of `dest` (same shape).
    fn store_regs(&mut self, dest: &Val, v: &Val, inst: &Inst, i: usize) -> R<()> {
        let mut ds = Vec::new();
        leaves_of(dest, &mut ds);
        let mut xs = Vec::new();
        match v {
            Val::Undef => xs.resize(ds.len(), Val::Undef),
            other => leaves_of(other, &mut xs),
        }
        let src = span(inst);
        for (d, x) in ds.iter().zip(&xs) {
            if let Val::Reg(d) = d {
                let o = self.operand(x, inst, i)?;
                self.copy(d, o, &src);
                // A constant returned: known on this edge to the exit.
                if let Val::Int(c) = x {
                    self.known.insert(d.clone(), *c);
                }
            }
        }
        Ok(())
    }

    fn ptr(&self, fr: &Frame, inst: &Inst, i: usize) -> R<Ptr> {
        match self.val(fr, inst, i)? {
            Val::Ptr(p) => Ok(p),
            Val::Opaque(class) => Err(unsupported(
                inst,
                &format!("memory in the {class} storage class"),
            )),
            _ => Err(inst.err_at(i, format!("{}: expected a pointer", inst.name))),
        }
    }

    /// OpArrayLength: "Length of a run-time array. Structure must be a
    /// logical pointer to an OpTypeStruct whose last member is a run-time
    /// array. Array member is an unsigned 32-bit integer index of the last
    /// member of the structure that Structure points to." A runtime array
    /// has as many elements as its @Input lists (one without), so the
    /// length is a constant of the program: the elements whose cells the
    /// variable instance has from the member's offset on (a past-end cell
    /// of the flat out-of-bounds reading is no element).
    fn array_length(&self, fr: &Frame, inst: &Inst) -> R<i64> {
        let p = self.ptr(fr, inst, 1)?;
        let member = inst.int(2)?;
        let members = match self.m.ty(&p.ty) {
            Some(Ty::Struct { members }) => members.clone(),
            _ => {
                return Err(inst.err_at(
                    1,
                    "OpArrayLength: 'Structure' must be a pointer to a struct".into(),
                ));
            }
        };
        let last = members.len().checked_sub(1);
        let Some(elem) = usize::try_from(member)
            .ok()
            .filter(|&i| Some(i) == last)
            .and_then(|i| match self.m.ty(&members[i]) {
                Some(Ty::RuntimeArray { elem }) => Some(elem.clone()),
                _ => None,
            })
        else {
            return Err(inst.err_at(
                2,
                format!(
                    "OpArrayLength: 'Array member' {member} must be the last member of the struct, a run-time array"
                ),
            ));
        };
        if matches!(p.home, Home::Regs { .. }) || !p.dynamic.is_empty() {
            return Err(unsupported(
                inst,
                "the length of a run-time array outside a shared variable's own struct",
            ));
        }
        let index = members.len() - 1;
        let natural = match self.m.member_offsets(&p.ty, &members) {
            Some(offsets) => offsets[index],
            None => 0,
        };
        let start = p.offset + self.m.member_offset(&p.ty, index, natural);
        let stride = self
            .m
            .stride(&members[index], &elem)
            .filter(|&s| s > 0)
            .ok_or_else(|| inst.err("OpArrayLength: a run-time array of an opaque type".into()))?;
        let end = match &p.home {
            Home::Mem { var, instance } => self.mem.real_end.get(&(var.clone(), *instance)),
            Home::Regs { .. } => None,
        };
        // A sparse instance's elements are its layout's, located or not.
        let offsets: Vec<i64> = match &p.home {
            Home::Mem { var, instance }
                if self.mem.sparse.contains_key(&(var.clone(), *instance)) =>
            {
                self.mem.sparse[&(var.clone(), *instance)]
                    .iter()
                    .map(|c| c.offset)
                    .collect()
            }
            _ => self
                .targets(&p.home)
                .iter()
                .map(|(off, _, _)| *off)
                .collect(),
        };
        let count = offsets
            .iter()
            .filter(|off| **off >= start && end.is_none_or(|e| *off < e))
            .map(|off| (off - start) / stride + 1)
            .max()
            .unwrap_or(0);
        Ok(count)
    }

    /// OpAccessChain and its kin.
    fn chain(&mut self, fr: &Frame, inst: &Inst) -> R<Val> {
        let mut p = self.ptr(fr, inst, 1)?;
        let mut first = 2;
        if matches!(inst.op, Op::PtrAccessChain | Op::InBoundsPtrAccessChain) {
            let base_ty = self
                .m
                .result_types
                .get(inst.id(1)?)
                .cloned()
                .unwrap_or_default();
            let stride = self
                .m
                .decoration(&base_ty, "ArrayStride")
                .and_then(|t| match t.first() {
                    Some(Tok::Int(n)) => i64::try_from(*n).ok(),
                    _ => None,
                })
                .or_else(|| self.m.size_of(&p.ty))
                .ok_or_else(|| unsupported(inst, "pointer arithmetic over an opaque type"))?;
            let e = self.val(fr, inst, 2)?;
            self.add_index(&mut p, &e, stride, inst, 2)?;
            first = 3;
        }
        for i in first..inst.operands.len() {
            let idx = self.val(fr, inst, i)?;
            let ty = p.ty.clone();
            match self.m.ty(&ty).cloned() {
                Some(Ty::Struct { members }) => {
                    let Val::Int(k) = idx else {
                        return Err(
                            inst.err_at(i, "a struct member index must be a constant".into())
                        );
                    };
                    let k = usize::try_from(k)
                        .ok()
                        .filter(|k| *k < members.len())
                        .ok_or_else(|| inst.err_at(i, format!("member {k} out of range")))?;
                    let offsets = self.m.member_offsets(&ty, &members).unwrap_or_default();
                    p.offset += offsets[k];
                    p.ty = members[k].clone();
                }
                Some(Ty::Array { elem, .. }) | Some(Ty::RuntimeArray { elem }) => {
                    let stride = self
                        .m
                        .stride(&ty, &elem)
                        .or_else(|| match &p.home {
                            // An array of image descriptors.
                            Home::Mem { var, instance } => {
                                self.image_array(var, *instance, 0).map(|a| a.0)
                            }
                            Home::Regs { .. } => None,
                        })
                        .ok_or_else(|| unsupported(inst, "arrays of opaque types"))?;
                    self.add_index(&mut p, &idx, stride, inst, i)?;
                    p.ty = elem;
                }
                Some(Ty::Vector { elem, .. }) => {
                    let size = self.m.size_of(&elem).unwrap_or(4);
                    self.add_index(&mut p, &idx, size, inst, i)?;
                    p.ty = elem;
                }
                Some(Ty::Strided { elem, stride, .. }) => {
                    self.add_index(&mut p, &idx, stride, inst, i)?;
                    p.ty = elem;
                }
                // A component of a cooperative matrix in a Function or
                // Private variable: its one cell, whatever the index ("The
                // mapping of components to invocations and indexes is
                // implementation-dependent"; a store through it makes the
                // matrix one vkmm does not compute, `sampled.rs`).
                Some(Ty::CoopMatrix { elem, .. }) => {
                    p.ty = elem;
                }
                Some(Ty::Matrix { col, layout, .. }) => {
                    // An index selects a column: `MatrixStride` apart in
                    // a column-major matrix, one component apart (its
                    // components a row's stride apart) in a row-major one.
                    let size = |t: &str| self.m.size_of(t).unwrap_or(4);
                    let (step, ty) = match layout {
                        Some(MatrixLayout {
                            stride,
                            row_major: true,
                        }) => {
                            let elem = match self.m.ty(&col) {
                                Some(Ty::Vector { elem, .. }) => elem.clone(),
                                _ => col.clone(),
                            };
                            (size(&elem), format!("{col}#s{stride}"))
                        }
                        Some(MatrixLayout { stride, .. }) => (stride, col),
                        None => (size(&col), col),
                    };
                    self.add_index(&mut p, &idx, step, inst, i)?;
                    p.ty = ty;
                }
                _ => {
                    return Err(
                        inst.err_at(i, format!("{}: too many indices for the type", inst.name))
                    );
                }
            }
        }
        Ok(Val::Ptr(p))
    }

    fn add_index(&mut self, p: &mut Ptr, idx: &Val, stride: i64, inst: &Inst, i: usize) -> R<()> {
        match idx {
            Val::Int(k) => {
                p.offset += k * stride;
                // A value the lowering knows (a builtin, arithmetic on it)
                // given where SPIR-V has a runtime index: not a constant
                // instruction (OpConstant, OpSpecConstant...).
                if inst.id(i).is_ok_and(|id| !self.m.consts.contains_key(id)) {
                    p.runtime = true;
                }
            }
            Val::Undef => {}
            other => {
                let o = self.operand(other, inst, i)?;
                p.dynamic.push((o, stride));
                p.window = None;
            }
        }
        Ok(())
    }

    /// The memory operands of a plain load or store from operand `i` on.
    fn access(&self, fr: &Frame, inst: &Inst, i: usize) -> R<Access> {
        let mut a = Access::default();
        let Some(bits) = mask_operand(inst, i, "memory", MEMORY_OPERANDS)? else {
            return Ok(a);
        };
        let mut next = i + 1;
        if bits & 2 != 0 {
            next += 1;
        }
        if bits & 8 != 0 {
            a.available = true;
            a.scope = Some(self.scope(fr, inst, next)?);
            next += 1;
        }
        if bits & 0x10 != 0 {
            a.visible = true;
            a.scope = Some(self.scope(fr, inst, next)?);
        }
        a.non_private = bits & 0x20 != 0 || a.available || a.visible;
        let _ = Opnd::show;
        Ok(a)
    }

    /// The scalar targets of a home: (offset, size, target).
    fn targets(&self, home: &Home) -> std::rc::Rc<Vec<(i64, u32, Target)>> {
        match home {
            // Shared memory's cells do not change while an invocation is
            // lowered: listed once per instance.
            Home::Mem { var, instance } => {
                let key = (var.clone(), *instance);
                if let Some(t) = self.mem_targets.borrow().get(&key) {
                    return t.clone();
                }
                let t: std::rc::Rc<Vec<_>> = std::rc::Rc::new(
                    self.mem
                        .cells
                        .get(&key)
                        .map(|cs| {
                            cs.iter()
                                .map(|(c, l)| (c.offset, c.size, Target::Loc(*l)))
                                .collect()
                        })
                        .unwrap_or_default(),
                );
                self.mem_targets.borrow_mut().insert(key, t.clone());
                t
            }
            Home::Regs { .. } => std::rc::Rc::new(
                self.reg_cells
                    .get(home)
                    .map(|cs| {
                        cs.iter()
                            .map(|(c, r)| (c.offset, c.size, Target::Reg(r.clone())))
                            .collect()
                    })
                    .unwrap_or_default(),
            ),
        }
    }

    /// The byte offset of a pointer as an operand.
    fn offset_operand(&mut self, p: &Ptr, inst: &Inst) -> Operand {
        if p.dynamic.is_empty() {
            return Operand::Const(p.offset);
        }
        let src = span(inst);
        let acc = self.fresh_reg();
        self.copy(&acc, Operand::Const(p.offset), &src);
        for (o, stride) in &p.dynamic {
            let t = self.fresh_reg();
            self.assign(&t, ArithOp::Mul, o.clone(), Operand::Const(*stride), &src);
            self.assign(
                &acc,
                ArithOp::Add,
                Operand::Reg(acc.clone()),
                Operand::Reg(t),
                &src,
            );
        }
        Operand::Reg(acc)
    }

    /// Runs `f` on the pieces of the scalar at `off + rel` of `p`'s home:
    /// directly for a constant offset, through a chain of branches
    /// otherwise. An access that is not exactly one cell is one piece per
    /// cell it overlaps (`bytes::cover`, docs/format-spirv.md, "Byte
    /// offsets").
    fn at_each(
        &mut self,
        p: &Ptr,
        off: &Operand,
        rel: i64,
        size: u32,
        inst: &Inst,
        f: &mut dyn FnMut(&mut Self, &[bytes::Piece]) -> R<()>,
    ) -> R<()> {
        let targets = self.targets(&p.home);
        let var = match &p.home {
            Home::Mem { var, .. } | Home::Regs { var, .. } => var.clone(),
        };
        let in_memory = matches!(p.home, Home::Mem { .. });
        // The variable's bytes: its type's size (padding at the end
        // included), at least its cells' (a runtime array's @Input), not
        // counting the elements past the end the flat reading added.
        // An offset outside them is out of bounds; one inside that names
        // no cell (padding, the middle of a cell) is no access, unmarked.
        let extent = match &p.home {
            Home::Mem { var, instance } => self.mem.real_end.get(&(var.clone(), *instance)),
            Home::Regs { .. } => None,
        }
        .copied()
        .unwrap_or_else(|| extent_of(self.m, &var, targets.iter().map(|(c, s, _)| (*c, *s))));
        // The offsets a bounded pointer may have (`Ptr::window`).
        let inside = |c: i64| {
            p.window.is_none_or(|(span, step)| {
                let d = c - rel - p.offset;
                (0..span).contains(&d) && d % step.max(1) == 0
            })
        };
        // The cells an offset held in a register may name: cells of the
        // access's size, and in memory every multiple of the size other
        // cells cover (`bytes::mixed_candidates`).
        let candidates = || {
            let mut cases = Vec::new();
            let mut whole = Vec::new();
            for (c, s, t) in targets.iter().filter(|(c, s, _)| *s == size && inside(*c)) {
                whole.push(*c);
                cases.push((*c, vec![bytes::Piece::whole(t.clone(), *s)]));
            }
            if in_memory {
                for (at, pieces) in bytes::mixed_candidates(&targets, size, &whole) {
                    if inside(at) {
                        cases.push((at, pieces));
                    }
                }
            }
            cases
        };
        match off {
            // A runtime index whose value the lowering knows (a builtin
            // of this invocation, folded): the access the branch chain
            // below takes for that value, the cell it names, or, when it
            // names none, an out-of-bounds access (docs/format-spirv.md,
            // "Out-of-bounds accesses"): the path is marked, and under the
            // flat reading the element past the end asks for a location.
            Operand::Const(o) if self.want_sparse(p, &targets, o + rel, size) => {
                // A cell of a sparse instance without a location yet: it
                // gets one, and the lowering runs again.
                Ok(())
            }
            Operand::Const(o) if p.runtime => {
                // The case the branch chain takes for this offset. The
                // cells of the access's size come first among the cases,
                // so one starting at the offset is it; only an offset no
                // such cell starts at asks for every case (a variable's
                // cells may number thousands: an image's texels).
                let at = o + rel;
                let found = match targets
                    .iter()
                    .find(|(c, s, _)| *c == at && *s == size && inside(*c))
                {
                    Some((_, s, t)) => Some((at, vec![bytes::Piece::whole(t.clone(), *s)])),
                    None => candidates().into_iter().find(|(c, _)| *c == at),
                };
                match found {
                    Some((_, pieces)) => f(self, &pieces),
                    None if (0..extent).contains(&(o + rel)) => Ok(()),
                    None => {
                        if let Home::Mem { var, instance } = &p.home
                            && self.mem.out_of_bounds == crate::frontend::OutOfBoundsReading::Flat
                        {
                            self.past_end.push((var.clone(), *instance, o + rel, size));
                        }
                        self.mark_out_of_bounds(&var, inst);
                        Ok(())
                    }
                }
            }
            Operand::Const(o) => {
                let at = o + rel;
                match targets.iter().find(|(c, _, _)| *c == at) {
                    Some((_, s, t)) if *s == size => f(self, &[bytes::Piece::whole(t.clone(), size)]),
                    _ if in_memory => match bytes::cover(&targets, at, size) {
                        Some(pieces) => f(self, &pieces),
                        None => Err(inst.err(match super::inputs::past_runtime_end(self.insts, self.m, &var) {
                            Some(runtime) => format!("{}: a constant index past the end: bytes {at}..{} are past the end of {runtime}", inst.name, at + i64::from(size)),
                            None => format!("{}: bytes {at}..{} are not all in the variable `%{var}` (outside it, or padding between its members; a runtime array is as long as its @Input)", inst.name, at + i64::from(size)),
                        })),
                    },
                    Some((_, s, _)) => Err(unsupported(
                        inst,
                        &format!("a {size}-byte access to a {s}-byte cell of a per-invocation variable (mixed-size access; vkmm keeps those variables in registers)"),
                    )),
                    None => {
                        if targets
                            .iter()
                            .any(|(c, s, _)| *c < at && at < c + i64::from(*s))
                        {
                            Err(unsupported(
                                inst,
                                "an access to the middle of a cell of a per-invocation variable (mixed-size access; vkmm keeps those variables in registers)",
                            ))
                        } else {
                            Err(inst.err(format!("{}: byte offset {at} is outside the variable `%{var}` (a runtime array is as long as its @Input)", inst.name)))
                        }
                    }
                }
            }
            Operand::Reg(r) => {
                self.want_past_end(p, rel, size, extent);
                // A block no path reaches, kept where the lowering numbers
                // what it meets for every invocation alike
                // (`skip_unreached`), never runs this access: the branches
                // over every cell it may name (thousands of statements
                // for an image's texels) are left out. What they leave
                // beyond their code stays: the cells some case accesses
                // in part (`sized`) and the access's out-of-bounds
                // marker. A sparse instance's probe keeps its branches.
                let sparse = matches!(&p.home, Home::Mem { var: v, instance }
                    if self.mem.sparse.contains_key(&(v.clone(), *instance)));
                if self.dead && !self.mem.unreached_chains && !sparse {
                    for (_, pieces) in candidates() {
                        for piece in &pieces {
                            self.size_cell(piece);
                        }
                    }
                    self.mark_out_of_bounds(&var, inst);
                    return Ok(());
                }
                let src = span(inst);
                let end = self.fresh_label();
                let cases = candidates();
                let mut labelled = Vec::new();
                for (c, pieces) in cases {
                    let l = self.fresh_label();
                    self.branch(
                        Cmp::Eq,
                        Operand::Reg(r.clone()),
                        Operand::Const(c - rel),
                        &l,
                        &src,
                    );
                    labelled.push((l, pieces));
                }
                // No case: the offset names no cell; out of bounds when it
                // is outside the variable's bytes (else padding: nothing).
                let oob = self.fresh_label();
                self.branch(
                    Cmp::Lt,
                    Operand::Reg(r.clone()),
                    Operand::Const(-rel),
                    &oob,
                    &src,
                );
                self.branch(
                    Cmp::Ge,
                    Operand::Reg(r.clone()),
                    Operand::Const(extent - rel),
                    &oob,
                    &src,
                );
                // An offset inside a sparse instance that names no cell
                // with a location: while the cells are sought, the offset
                // is written down and the path stops there (what it would
                // do next depends on the cell's value); in the program
                // checked no explored path gets here, and one that does
                // (a bound other than the search's) is marked.
                if let Home::Mem { var: v, instance } = &p.home
                    && self.mem.sparse.contains_key(&(v.clone(), *instance))
                {
                    match self.mem.probe.get(&(v.clone(), *instance, size)) {
                        Some(&probe) => {
                            let at = self.fresh_reg();
                            self.assign(
                                &at,
                                ArithOp::Add,
                                Operand::Reg(r.clone()),
                                Operand::Const(rel),
                                &src,
                            );
                            let mut ins = Instruction::new(OpKind::Store, src.clone());
                            ins.reference = Some(probe);
                            ins.storage_class = self.storage_class(p);
                            ins.operand = Some(Operand::Reg(at));
                            self.code.push(Stmt::Op(ins));
                            self.probed = true;
                            self.goto("END", &src);
                        }
                        None => self.mark_out_of_bounds(&format!("{var} (a cell the search for the cells accesses reach did not find)"), inst),
                    }
                }
                self.goto(&end, &src);
                self.label(&oob, &src);
                self.mark_out_of_bounds(&var, inst);
                self.goto(&end, &src);
                for (l, pieces) in labelled {
                    self.poll(inst)?;
                    self.label(&l, &src);
                    f(self, &pieces)?;
                    self.goto(&end, &src);
                }
                self.label(&end, &src);
                Ok(())
            }
        }
    }

    /// Whether the `size` bytes at `at` of a sparse instance (`p`'s home)
    /// are not all in cells with a location (`targets`) but in cells of its
    /// layout: they are then asked for (`Gen::wanted`).
    fn want_sparse(&mut self, p: &Ptr, targets: &[(i64, u32, Target)], at: i64, size: u32) -> bool {
        let Home::Mem { var, instance } = &p.home else {
            return false;
        };
        let Some(layout) = self.mem.sparse.get(&(var.clone(), *instance)) else {
            return false;
        };
        if bytes::cover(targets, at, size).is_some() {
            return false;
        }
        if overlapping(layout, at, size).is_empty() {
            return false;
        }
        self.wanted.push((var.clone(), *instance, at, size));
        true
    }

    /// Under the flat reading, an offset held in a register into a shared
    /// variable instance asks for the elements past its end (`extent`)
    /// the offset may name: those congruent to the pointer's constant
    /// part modulo the gcd of its strides, one access size apart at
    /// least, up to [`MAX_PAST_END`] of them (`super::past_end_cells`
    /// gives them locations; the branch chain of the second pass has a
    /// case for each). Offsets below 0 or past them stay out of bounds.
    fn want_past_end(&mut self, p: &Ptr, rel: i64, size: u32, extent: i64) {
        let Home::Mem { var, instance } = &p.home else {
            return;
        };
        if self.mem.out_of_bounds != crate::frontend::OutOfBoundsReading::Flat {
            return;
        }
        let g = p
            .dynamic
            .iter()
            .fold(0, |g, (_, stride)| gcd(g, stride.abs()));
        if g == 0 {
            return;
        }
        let step = g * ((i64::from(size) + g - 1) / g).max(1);
        let base = (p.offset + rel).rem_euclid(g);
        let first = extent + (base - extent).rem_euclid(g);
        for k in 0..MAX_PAST_END as i64 {
            self.past_end
                .push((var.clone(), *instance, first + k * step, size));
        }
    }

    /// Marks the path at `inst`: its access names no cell of `var`, which
    /// SPIR-V leaves undefined (OpAccessChain, of each index: "if indexing
    /// into a vector, array, or matrix, with the result type being a
    /// logical pointer type, causes undefined behavior if not in
    /// bounds"). The site's marker register counts the path's passes; the
    /// access itself is not made (`Program::out_of_bounds`).
    fn mark_out_of_bounds(&mut self, var: &str, inst: &Inst) {
        let src = span(inst);
        let known = self
            .out_of_bounds
            .iter()
            .find(|(_, v, s)| v == var && *s == src)
            .map(|(r, _, _)| r.clone());
        let reg = known.unwrap_or_else(|| {
            let r = format!(
                "{}{}",
                crate::ir::OutOfBounds::PREFIX,
                self.out_of_bounds.len()
            );
            self.out_of_bounds
                .push((r.clone(), var.to_string(), src.clone()));
            r
        });
        self.assign(
            &reg,
            ArithOp::Add,
            Operand::Reg(reg.clone()),
            Operand::Const(1),
            &src,
        );
    }

    fn storage_class(&self, p: &Ptr) -> Option<StorageClass> {
        match &p.home {
            Home::Mem { var, .. } => self.mem.class.get(var).copied(),
            Home::Regs { .. } => None,
        }
    }

    fn mem_instruction(
        &self,
        kind: OpKind,
        loc: usize,
        p: &Ptr,
        inst: &Inst,
        acc: &Access,
    ) -> Instruction {
        let mut ins = Instruction::new(kind, span(inst));
        ins.reference = Some(loc);
        ins.storage_class = self.storage_class(p);
        ins.scope = acc.scope;
        ins.make_pointer_available = acc.available;
        ins.make_pointer_visible = acc.visible;
        ins.non_private = acc.non_private;
        ins.access_kind = acc.kind;
        ins.interface = p.iface;
        // The coherent reading of a GLSL450 module (`legacy.rs`): the
        // appendix, "GLSL to SPIR-V compilers should map all (non-atomic)
        // operations on a coherent variable to
        // Make{Pointer,Texel}{Available}{Visible} flags in this model".
        // Both flags here; a load drops availability, a store visibility,
        // as they do for the operands (SPIR-V, Memory Operands:
        // MakePointerAvailable "Not valid with OpLoad", MakePointerVisible
        // "Not valid with OpStore"). An atomic sets its own.
        if let Some(&scope) = self.mem.coherent.get(&loc)
            && !acc.available
            && !acc.visible
        {
            ins.scope = Some(scope);
            ins.make_pointer_available = true;
            ins.make_pointer_visible = true;
            ins.non_private = true;
        }
        ins
    }

    fn load(&mut self, p: &Ptr, ty: &str, name: &str, inst: &Inst, acc: &Access) -> R<Val> {
        let mut leaves = Vec::new();
        // A matrix in a struct member: the layout its decorations give.
        self.m
            .leaves(self.m.laid_out(&p.ty, ty), 0, &mut leaves)
            .map_err(|e| unsupported(inst, &e))?;
        let result = self.regs_like(ty, name, inst)?;
        let mut regs = Vec::new();
        leaves_of(&result, &mut regs);
        let off = self.offset_operand(p, inst);
        for ((rel, size), reg) in leaves.into_iter().zip(regs) {
            let Val::Reg(reg) = reg else { continue };
            self.at_each(p, &off, rel, size, inst, &mut |g, pieces| {
                g.load_pieces(pieces, &reg, p, inst, acc)
            })?;
        }
        Ok(result)
    }

    /// A load of read-only cells (`Gen::fixed`) at a constant offset:
    /// their values, as constants, so that what depends on them only (a
    /// runtime index `%out[%id]`, a branch on the id) is known per
    /// invocation; `None` for any other load.
    fn builtin_value(&self, p: &Ptr, ty: &str, name: &str, inst: &Inst) -> R<Option<Val>> {
        if !p.dynamic.is_empty() || !matches!(p.home, Home::Regs { .. }) {
            return Ok(None);
        }
        let Some(cells) = self.reg_cells.get(&p.home) else {
            return Ok(None);
        };
        let mut leaves = Vec::new();
        if self.m.leaves(ty, 0, &mut leaves).is_err() {
            return Ok(None);
        }
        self.constants_at(p.offset, &leaves, ty, name, inst, |at, size| {
            cells
                .iter()
                .find(|(c, _)| c.offset == at && c.size == size)
                .and_then(|(_, r)| self.fixed.get(r))
                .copied()
        })
    }

    /// The value of type `ty` whose leaves (`leaves`, relative to byte
    /// `offset`) are the constants `cell` gives each (byte offset, size);
    /// `None` when it gives none for some leaf.
    fn constants_at(
        &self,
        offset: i64,
        leaves: &[(i64, u32)],
        ty: &str,
        name: &str,
        inst: &Inst,
        cell: impl Fn(i64, u32) -> Option<i64>,
    ) -> R<Option<Val>> {
        let mut values = Vec::new();
        for &(rel, size) in leaves {
            let Some(x) = cell(offset + rel, size) else {
                return Ok(None);
            };
            values.push(x);
        }
        let shape = self.regs_like(ty, name, inst)?;
        let mut it = values.into_iter();
        Ok(Some(with_leaves(&shape, &mut it)))
    }

    /// A load of read-only shared cells (`Memory::read_only`: a uniform
    /// buffer's, a `NonWritable` variable's) at an offset the lowering
    /// knows, naming whole cells: their initial values, as constants;
    /// `None` for any other load.
    ///
    /// No instruction writes such a cell, so in every execution each of
    /// its reads reads from its initial write: the value is known, and the
    /// read can take part in no data race ("at least one of which is a
    /// write"). A visibility operation the read carries (its own
    /// `MakePointerVisible`, or the legacy reading's) changes nothing
    /// either: its "destination scope includes the agent and reference
    /// used to perform the read and the memory locations read by the
    /// instruction", locations no write reaches. The load makes no event,
    /// so what depends on its value only (a loop's trip count, a branch on
    /// a size, an index) is known when the invocation is lowered, as for
    /// push constants.
    fn read_only_value(&self, p: &Ptr, ty: &str, name: &str, inst: &Inst) -> R<Option<Val>> {
        if self.mem.read_only.is_empty()
            || !p.dynamic.is_empty()
            || !matches!(p.home, Home::Mem { .. })
        {
            return Ok(None);
        }
        let mut leaves = Vec::new();
        if self
            .m
            .leaves(self.m.laid_out(&p.ty, ty), 0, &mut leaves)
            .is_err()
        {
            return Ok(None);
        }
        let targets = self.targets(&p.home);
        self.constants_at(p.offset, &leaves, ty, name, inst, |at, size| {
            targets
                .iter()
                .find(|(o, s, _)| *o == at && *s == size)
                .and_then(|(_, _, t)| match t {
                    Target::Loc(l) => self.mem.read_only.get(l).copied(),
                    Target::Reg(_) => None,
                })
        })
    }

    fn store(&mut self, p: &Ptr, v: &Val, inst: &Inst, acc: &Access) -> R<()> {
        if let Home::Regs { var, .. } = &p.home
            && self
                .reg_cells
                .get(&p.home)
                .is_some_and(|cs| cs.iter().any(|(_, r)| self.fixed.contains_key(r)))
        {
            return Err(inst.err(format!(
                "{}: `%{var}` is read only (SPIR-V, Storage Class, Input and PushConstant: \"Variables declared with this storage class are read-only\")",
                inst.name
            )));
        }
        let mut leaves = Vec::new();
        self.m
            .leaves(&p.ty, 0, &mut leaves)
            .map_err(|e| unsupported(inst, &e))?;
        let mut values = Vec::new();
        typed_leaves(self.m, &p.ty, v, &mut values);
        if values.len() != leaves.len() {
            return Err(inst.err_at(
                1,
                "OpStore: the value does not have the pointee's type".into(),
            ));
        }
        let off = self.offset_operand(p, inst);
        for ((rel, size), x) in leaves.iter().zip(&values) {
            let o = self.operand(x, inst, 1)?;
            self.at_each(p, &off, *rel, *size, inst, &mut |g, pieces| {
                g.store_pieces(pieces, &o, p, inst, acc)
            })?;
        }
        if let (Home::Regs { .. }, Operand::Const(at)) = (&p.home, &off) {
            self.note_store(&p.home, *at, &leaves, &values);
        }
        Ok(())
    }

    fn atomic(&mut self, fr: &mut Frame, inst: &Inst) -> R<()> {
        let store = inst.op == Op::AtomicStore;
        // Operand positions: (pointer, scope, semantics) after the result type.
        let base = if store { 0 } else { 1 };
        let p = self.ptr(fr, inst, base)?;
        let scope = self.scope(fr, inst, base + 1)?;
        let sem = semantics_of(self.int_const(fr, inst, base + 2, "memory semantics")?);
        let mut leaves = Vec::new();
        self.m
            .leaves(&p.ty, 0, &mut leaves)
            .map_err(|e| unsupported(inst, &e))?;
        let [(_, size)] = leaves.as_slice() else {
            return Err(inst.err_at(base, "atomics apply to scalars".into()));
        };
        let (kind, rmw_op) = match inst.op {
            Op::AtomicLoad => (OpKind::Load, RmwOp::Exchange),
            Op::AtomicStore => (OpKind::Store, RmwOp::Exchange),
            Op::AtomicExchange => (OpKind::Rmw, RmwOp::Exchange),
            Op::AtomicCompareExchange => (OpKind::Rmw, RmwOp::CompareExchange),
            Op::AtomicIIncrement | Op::AtomicIAdd => (OpKind::Rmw, RmwOp::Add),
            Op::AtomicIDecrement | Op::AtomicISub => (OpKind::Rmw, RmwOp::Sub),
            Op::AtomicSMin => (OpKind::Rmw, RmwOp::Min),
            Op::AtomicUMin => (OpKind::Rmw, RmwOp::UMin),
            Op::AtomicSMax => (OpKind::Rmw, RmwOp::Max),
            Op::AtomicUMax => (OpKind::Rmw, RmwOp::UMax),
            Op::AtomicAnd => (OpKind::Rmw, RmwOp::And),
            Op::AtomicOr => (OpKind::Rmw, RmwOp::Or),
            Op::AtomicFAddEXT => (OpKind::Rmw, RmwOp::FAdd),
            Op::AtomicFMinEXT => (OpKind::Rmw, RmwOp::FMin),
            Op::AtomicFMaxEXT => (OpKind::Rmw, RmwOp::FMax),
            _ => (OpKind::Rmw, RmwOp::Xor),
        };
        let (operand, expected, failure) = match inst.op {
            Op::AtomicLoad => (None, None, None),
            Op::AtomicIIncrement | Op::AtomicIDecrement => (Some(Operand::Const(1)), None, None),
            Op::AtomicStore => {
                let v = self.val(fr, inst, 3)?;
                (Some(self.operand(&v, inst, 3)?), None, None)
            }
            Op::AtomicCompareExchange => {
                let unequal = semantics_of(self.int_const(fr, inst, 4, "memory semantics")?);
                let v = self.val(fr, inst, 5)?;
                let c = self.val(fr, inst, 6)?;
                (
                    Some(self.operand(&v, inst, 5)?),
                    Some(self.operand(&c, inst, 6)?),
                    Some(unequal),
                )
            }
            _ => {
                let v = self.val(fr, inst, 4)?;
                (Some(self.operand(&v, inst, 4)?), None, None)
            }
        };
        let dest = if store {
            None
        } else {
            Some(self.reg_name(fr, inst.result_id()?))
        };
        let off = self.offset_operand(&p, inst);
        let size = *size;
        self.at_each(&p, &off, 0, size, inst, &mut |g, pieces| {
            let (l, range) = g.atomic_piece(pieces, size, inst)?;
            let mut ins = g.mem_instruction(kind.clone(), l, &p, inst, &Access::default());
            ins.atomic = true;
            ins.scope = Some(scope);
            ins.semantics = sem.clone();
            ins.rmw_op = rmw_op;
            // "the low-order N bits" of the result, N the integer's width
            ins.width = u8::try_from(size * 8).ok();
            ins.operand = operand.clone();
            ins.expected = expected.clone();
            ins.failure_semantics = failure.clone();
            ins.dest = dest.clone();
            ins.make_pointer_available = ins.is_write();
            ins.make_pointer_visible = ins.is_read();
            ins.non_private = true;
            ins.bytes = range;
            g.code.push(Stmt::Op(ins));
            Ok(())
        })?;
        if let Some(d) = dest {
            self.bind(fr, inst, Val::Reg(d))?;
        }
        Ok(())
    }

    /// GLSL.std.450 / OpenCL.std integer functions.
    /// Whether `inst` (an `OpExtInst`) belongs to an extended instruction
    /// set named `NonSemantic.*`.
    fn non_semantic(&self, inst: &Inst) -> bool {
        inst.id(1)
            .ok()
            .and_then(|set| self.m.ext_sets.get(set))
            .is_some_and(|s| s.starts_with("NonSemantic."))
    }

    fn ext_inst(&mut self, fr: &Frame, inst: &Inst) -> R<Val> {
        let set = self
            .m
            .ext_sets
            .get(inst.id(1)?)
            .cloned()
            .unwrap_or_default();
        let name = match inst.operands.get(2).map(|o| &o.tok) {
            Some(Tok::Word(w)) => w.clone(),
            Some(Tok::Int(n)) => n.to_string(),
            _ => String::new(),
        };
        let args = (3..inst.operands.len())
            .map(|i| self.val(fr, inst, i))
            .collect::<R<Vec<_>>>()?;
        let dest = self.reg_name(fr, inst.result_id()?);
        let ext_err = || {
            inst.err(format!(
                "unsupported construct `{}` `{name}` of `{set}`: vkmm does not lower this function",
                inst.name
            ))
        };
        if let Some(v) = self.float_function(&name, &args, inst, &dest)? {
            return Ok(v);
        }
        if matches!(name.as_str(), "SClamp" | "UClamp" | "s_clamp" | "u_clamp") {
            // clamp(x, lo, hi) = min(max(x, lo), hi).
            let [x, lo, hi] = args.as_slice() else {
                return Err(ext_err());
            };
            let unsigned = name.starts_with('U') || name.starts_with("u_");
            let width = self.width_of_type(inst.id(0)?);
            let pick = |g: &mut Self, a: &Val, b: &Val, cmp: Cmp, d: &str| -> R<Val> {
                let c = if unsigned {
                    let ua = g.unsigned(a, width, &format!("{d}.ua"), inst)?;
                    let ub = g.unsigned(b, width, &format!("{d}.ub"), inst)?;
                    g.compare(&ua, &ub, cmp, inst)?
                } else {
                    g.compare(a, b, cmp, inst)?
                };
                g.select(&c, a, b, d, inst)
            };
            let m = pick(self, x, lo, Cmp::Gt, &format!("{dest}.lo"))?;
            return pick(self, &m, hi, Cmp::Lt, &dest);
        }
        let cmp = match name.as_str() {
            "SMax" | "UMax" | "s_max" | "u_max" => Cmp::Gt,
            "SMin" | "UMin" | "s_min" | "u_min" => Cmp::Lt,
            "SAbs" | "s_abs" => {
                let a = args.first().cloned().unwrap_or(Val::Undef);
                let neg =
                    self.binop(&Val::Int(0), &a, &format!("{dest}.neg"), ArithOp::Sub, inst)?;
                let c = self.compare(&a, &Val::Int(0), Cmp::Lt, inst)?;
                return self.select(&c, &neg, &a, &dest, inst);
            }
            "SSign" | "s_sign" => {
                // GLSL.std.450 SSign: "Result is 1 if x > 0, 0 if x = 0, or
                // -1 if x < 0".
                let a = args.first().cloned().unwrap_or(Val::Undef);
                let pos = self.compare(&a, &Val::Int(0), Cmp::Gt, inst)?;
                let p = self.select(
                    &pos,
                    &Val::Int(1),
                    &Val::Int(0),
                    &format!("{dest}.pos"),
                    inst,
                )?;
                let neg = self.compare(&a, &Val::Int(0), Cmp::Lt, inst)?;
                return self.select(&neg, &Val::Int(-1), &p, &dest, inst);
            }
            _ if self.float_width(inst.id(0)?).is_some() => {
                return Err(self.float_refusal(inst, &name));
            }
            _ => return Err(ext_err()),
        };
        let [a, b] = args.as_slice() else {
            return Err(ext_err());
        };
        let c = if name.starts_with('U') || name.starts_with("u_") {
            let width = self.width_of_type(inst.id(0)?);
            let ua = self.unsigned(a, width, &format!("{dest}.ua"), inst)?;
            let ub = self.unsigned(b, width, &format!("{dest}.ub"), inst)?;
            self.compare(&ua, &ub, cmp, inst)?
        } else {
            self.compare(a, b, cmp, inst)?
        };
        self.select(&c, a, b, &dest, inst)
    }
}

/// Whether an integer operation can leave its type's range (and its result
/// is cut to the low bits): SPIR-V's OpIAdd, OpISub, OpIMul "The resulting
/// value equals the low-order N bits of the correct result R, where N is
/// the component width and R is computed with enough precision to avoid
/// overflow and underflow"; shifts left; signed division (`MIN / -1`);
/// unsigned division and shifts right of zero-extended values.
/// The most elements past the end of one variable instance the flat
/// out-of-bounds reading gives locations (the others stay undefined
/// behaviour).
pub(super) const MAX_PAST_END: usize = 64;

/// The end of a variable's bytes: its type's size (padding at the end
/// included), at least the end of its cells `(offset, size)` (a runtime
/// array's @Input).
pub(super) fn extent_of(m: &Module, var: &str, cells: impl Iterator<Item = (i64, u32)>) -> i64 {
    cells
        .map(|(c, s)| c + i64::from(s))
        .chain(
            m.globals
                .iter()
                .find(|g| g.id == var)
                .and_then(|g| m.size_of(&g.pointee)),
        )
        .max()
        .unwrap_or(0)
}

/// A per-invocation variable keeps every cell in a register: at most
/// [`super::module::MAX_CELLS`] of them.
fn registers_fit(n: usize) -> Result<(), String> {
    use super::module::MAX_CELLS;
    if n > MAX_CELLS {
        return Err(format!("more than {MAX_CELLS} scalar cells"));
    }
    Ok(())
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn wraps(op: Op) -> bool {
    matches!(
        op,
        Op::IAdd
            | Op::ISub
            | Op::IMul
            | Op::ShiftLeftLogical
            | Op::SDiv
            | Op::UDiv
            | Op::UMod
            | Op::ShiftRightLogical
    )
}

/// Rebuilds the shape of `like` from a stream of leaves.
fn rebuild(like: &Val, it: &mut dyn Iterator<Item = Val>) -> Val {
    match like {
        Val::Comp(items) => Val::Comp(items.iter().map(|i| rebuild(i, it)).collect()),
        _ => it.next().unwrap_or(Val::Undef),
    }
}

/// The register of a per-invocation variable's cell: `%v[0][1]` (with
/// `.cN` inside inlined call N).
pub(super) fn cell_name(var: &str, path: &[usize], call: usize) -> String {
    let mut s = format!("%{var}");
    for k in path {
        s.push_str(&format!("[{k}]"));
    }
    if call > 0 {
        s.push_str(&format!(".c{call}"));
    }
    s
}

/// The Memory Operands words vkmm reads (SPIR-V 3.26).
const MEMORY_OPERANDS: &[(&str, i64)] = &[
    ("None", 0),
    ("Volatile", 1),
    ("Aligned", 2),
    ("Nontemporal", 4),
    ("MakePointerAvailable", 8),
    ("MakePointerAvailableKHR", 8),
    ("MakePointerVisible", 0x10),
    ("MakePointerVisibleKHR", 0x10),
    ("NonPrivatePointer", 0x20),
    ("NonPrivatePointerKHR", 0x20),
];

/// A bit-mask operand at `i` (memory or image operands, named by `what`):
/// a number, or `|`-joined names of `named`; `None` when absent.
fn mask_operand(inst: &Inst, i: usize, what: &str, named: &[(&str, i64)]) -> R<Option<i64>> {
    let Some(first) = inst.operands.get(i) else {
        return Ok(None);
    };
    match &first.tok {
        Tok::Int(n) => Ok(Some(*n as i64)),
        Tok::Word(w) => {
            let mut bits = 0;
            for part in w.split('|') {
                match named.iter().find(|(n, _)| *n == part) {
                    Some((_, v)) => bits |= *v,
                    None => {
                        return Err(inst.err_at(i, format!("unknown {what} operand `{part}`")));
                    }
                }
            }
            Ok(Some(bits))
        }
        _ => Err(inst.err_at(i, format!("expected {what} operands"))),
    }
}
