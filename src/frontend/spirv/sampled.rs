//! Where the value of a sample may go (docs/format-spirv.md, "Sampling").
//!
//! vkmm reads a sampling instruction as non-atomic reads of every texel it
//! may read and does not compute its value (nor a sparse read's or fetch's
//! Residency Code, whose encoding is the implementation's; its texel is
//! computed) (`lower/image.rs`, `Gen::sample`):
//! the texels a filter combines and their weights are the sampler's and the
//! implementation's (Vulkan, Texel Filtering: "VK_FILTER_LINEAR filtering
//! combines 8 (for 3D), 4 (for 2D or Cube), or 2 (for 1D) texel values,
//! together with their linear weights"; "The particular scheme for
//! anisotropic texture filtering is implementation-dependent"). A verdict
//! about races or termination stays right whatever the value is as long as
//! the value decides no branch, no address and no write: then every
//! execution makes the same accesses in the same order, and only the values
//! written differ. This pass follows the value through the module, through
//! registers, function calls and memory (the part of a variable a sampled
//! value may be stored in, as far as the access chain's constant indices
//! name it, holds one for every later load of any overlapping part, by
//! any invocation), and
//! refuses, at the instruction, a module where it reaches
//!
//! - a branch's condition or a switch's selector (which way the invocation
//!   goes), unless the selection construct it heads only computes values
//!   (below),
//! - an index of an access chain, an image or tensor coordinate, a Lod or
//!   Sample operand of a read or write, a pointer `OpSelect`'s condition
//!   (which location an access reaches),
//! - a compare-exchange's comparator, or a compare-exchange of memory that
//!   may hold a sampled value (whether it writes).
//!
//! A selection construct (`OpSelectionMerge`) whose arms make no access to
//! memory with events (only to Private, Function and the other
//! per-invocation variables, which vkmm keeps in registers, at constant
//! indices), no barrier, call, atomic, image or group operation, and
//! leave only through its merge block (no return, kill, break, continue or
//! loop inside) computes values only: whichever way it goes, the
//! invocation makes the same accesses in the same order and arrives at the
//! merge block. Its branch is accepted, and what it decides becomes a
//! sampled value in turn: the merge block's `OpPhi` results and every
//! per-invocation variable part an arm stores to (control dependence; no
//! other value defined in an arm is visible past the merge block, "the
//! definition of an SSA id must dominate its uses").
//!
//! The engine's finite domain of undefined values (`engine::undefined`) is
//! not used for it: that domain is exact for equality comparisons only, and
//! sampled values are compared by order (`depth > 0.5`).
//!
//! Its answer also says which parts of variables may hold a sampled value, so that
//! a condition on their final values is refused and the final states do
//! not show them (`mod.rs`).

use super::image::is_sampling;
use super::module::{CVal, Module, Ty};
use super::syntax::{Inst, Located, Tok, is_atomic};
use ::spirv::Op;
use std::collections::{BTreeSet, HashMap, HashSet};

/// A part of a variable: the variable (its first declared view) and the
/// indices of an access chain's constant indices into its type, the part
/// being everything below them (`[0, 1]`: `%buf[0][1]` and its cells).
type Part = (String, Vec<usize>);

/// The parts a pointer may point into, each with whether the path is the
/// pointer's own (else a prefix of it: a later constant index does not
/// extend it); `None`: any variable (a pointer loaded from memory, or made
/// some other way this pass does not follow).
type Roots = Option<BTreeSet<(String, Vec<usize>, bool)>>;

/// Whether two parts of variables overlap: one's path starts the other's.
fn overlap(a: &Part, b: &Part) -> bool {
    a.0 == b.0 && (a.1.starts_with(&b.1) || b.1.starts_with(&a.1))
}

/// The memory a sampled value may be stored in.
#[derive(Default, Debug)]
pub(super) struct Sampled {
    /// The parts of variables that may hold one.
    pub parts: BTreeSet<Part>,
    /// A sampled value may be stored through a pointer into a variable this
    /// pass cannot name: every variable may hold one.
    pub anywhere: bool,
    /// The line and column of a sample whose value memory may hold.
    pub origin: Option<(usize, usize)>,
    /// What the value at `origin` is, for messages: a sample's, or a
    /// cooperative matrix's.
    pub what: &'static str,
    /// The ids whose value may be one vkmm does not compute.
    pub values: HashSet<String>,
}

impl Sampled {
    /// Whether the cell at `path` of the variable `var` (its first
    /// declared view) may hold a sampled value.
    pub fn may_hold(&self, var: &str, path: &[usize]) -> bool {
        self.anywhere
            || self
                .parts
                .iter()
                .any(|(v, p)| v == var && path.starts_with(p))
    }
}

/// The module's instructions with what the pass needs to follow values.
struct Flow<'a> {
    insts: &'a [Inst],
    m: &'a Module,
    alias: &'a HashMap<String, String>,
    /// The instruction that defines each id.
    def: HashMap<&'a str, usize>,
    /// Each function parameter's arguments at the calls.
    args: HashMap<&'a str, Vec<&'a str>>,
    /// The results of the sparse texel reads.
    sparse: HashSet<&'a str>,
}

/// The id operands of `inst` from operand `from` on, with their indices.
fn ids_from(inst: &Inst, from: usize) -> impl Iterator<Item = (usize, &str)> {
    inst.operands
        .iter()
        .enumerate()
        .skip(from)
        .filter_map(|(i, o)| match &o.tok {
            Tok::Id(s) => Some((i, s.as_str())),
            _ => None,
        })
}

/// The id at operand `i`, if it is one.
fn id_at(inst: &Inst, i: usize) -> Option<&str> {
    inst.id(i).ok()
}

impl<'a> Flow<'a> {
    fn new(insts: &'a [Inst], m: &'a Module, alias: &'a HashMap<String, String>) -> Flow<'a> {
        let mut def = HashMap::new();
        for (k, inst) in insts.iter().enumerate() {
            if let Some((id, _)) = &inst.result {
                def.insert(id.as_str(), k);
            }
        }
        let mut args: HashMap<&str, Vec<&str>> = HashMap::new();
        for inst in insts.iter().filter(|i| i.op == Op::FunctionCall) {
            let Some(f) = id_at(inst, 1).and_then(|f| m.functions.get(f)) else {
                continue;
            };
            for (p, (_, a)) in f.params.iter().zip(ids_from(inst, 2)) {
                args.entry(p.as_str()).or_default().push(a);
            }
        }
        let sparse = insts
            .iter()
            .filter(|i| is_sparse_read(i.op))
            .filter_map(|i| i.result.as_ref().map(|(r, _)| r.as_str()))
            .collect();
        Flow {
            insts,
            m,
            alias,
            def,
            args,
            sparse,
        }
    }

    /// The first declared view of the variable `var`.
    fn view(&self, var: &str) -> String {
        self.alias
            .get(var)
            .cloned()
            .unwrap_or_else(|| var.to_string())
    }

    /// The variables the pointer (or image) `id` may point into.
    fn roots(&self, id: &str, seen: &mut HashSet<String>) -> Roots {
        if !seen.insert(id.to_string()) {
            return Some(BTreeSet::new());
        }
        if self.m.globals.iter().any(|g| g.id == id) {
            // Views of one binding may lay it out as different types: an
            // index path names a part in its own view's type only, so a
            // view's accesses reach the whole variable.
            let alone = !self.alias.contains_key(id) && !self.alias.values().any(|v| v == id);
            return Some(BTreeSet::from([(self.view(id), Vec::new(), alone)]));
        }
        let inst = &self.insts[*self.def.get(id)?];
        let union = |flow: &Self, ids: Vec<&str>, seen: &mut HashSet<String>| -> Roots {
            let mut out = BTreeSet::new();
            for id in ids {
                out.extend(flow.roots(id, seen)?);
            }
            Some(out)
        };
        // The constant value of an index operand.
        let constant = |id: &str| match self.m.consts.get(id) {
            Some(CVal::Int(k)) => usize::try_from(*k).ok(),
            _ => None,
        };
        match inst.op {
            Op::Variable => Some(BTreeSet::from([(self.view(id), Vec::new(), true)])),
            Op::AccessChain | Op::InBoundsAccessChain => {
                let base = self.roots(id_at(inst, 1)?, seen)?;
                let indices: Vec<Option<usize>> =
                    ids_from(inst, 2).map(|(_, i)| constant(i)).collect();
                Some(
                    base.into_iter()
                        .map(|(v, mut path, exact)| {
                            if !exact {
                                return (v, path, false);
                            }
                            for i in &indices {
                                match i {
                                    Some(k) => path.push(*k),
                                    None => return (v, path, false),
                                }
                            }
                            (v, path, true)
                        })
                        .collect(),
                )
            }
            // The Element index moves the base's last index: the part
            // above it.
            Op::PtrAccessChain | Op::InBoundsPtrAccessChain => Some(
                self.roots(id_at(inst, 1)?, seen)?
                    .into_iter()
                    .map(|(v, mut path, _)| {
                        path.pop();
                        (v, path, false)
                    })
                    .collect(),
            ),
            Op::CopyObject | Op::ImageTexelPointer | Op::SampledImage | Op::Image => {
                self.roots(id_at(inst, 1)?, seen)
            }
            // An image or sampled image loaded from its variable.
            Op::Load
                if matches!(
                    self.m.ty(id_at(inst, 0)?),
                    Some(Ty::Image { .. } | Ty::SampledImage { .. })
                ) =>
            {
                self.roots(id_at(inst, 1)?, seen)
            }
            Op::FunctionParameter => {
                union(self, self.args.get(id).cloned().unwrap_or_default(), seen)
            }
            Op::Phi => union(
                self,
                ids_from(inst, 1).step_by(2).map(|(_, v)| v).collect(),
                seen,
            ),
            Op::Select => union(self, ids_from(inst, 2).map(|(_, v)| v).collect(), seen),
            _ => None,
        }
    }

    /// Whether the value `id` is a pointer.
    fn is_pointer(&self, id: &str) -> bool {
        self.m
            .result_types
            .get(id)
            .is_some_and(|t| matches!(self.m.ty(t), Some(Ty::Pointer { .. })))
    }

    /// The variables the pointer at operand `i` of `inst` may point into.
    fn roots_at(&self, inst: &Inst, i: usize) -> Roots {
        self.roots(id_at(inst, i)?, &mut HashSet::new())
    }

    /// The source line of the `OpLine` in force at instruction `k` (in its
    /// function), else the instruction's own line.
    fn line_of(&self, k: usize) -> usize {
        for inst in self.insts[..k].iter().rev() {
            match inst.op {
                Op::Line => {
                    if let Ok(l) = inst.int(1) {
                        return l as usize;
                    }
                }
                Op::Function | Op::FunctionEnd => break,
                _ => {}
            }
        }
        self.insts[k].line
    }
}

/// The state of the pass: the ids whose value may be a sampled one (each
/// with the sample it may come from), the memory that may hold one, the
/// functions that may return one.
#[derive(Default)]
struct State<'a> {
    values: HashMap<&'a str, usize>,
    memory: HashMap<Part, usize>,
    anywhere: Option<usize>,
    returns: HashMap<&'a str, usize>,
    /// A sparse read's or fetch's result whose texel (its second member)
    /// may come from memory that holds a sampled value; the result as a
    /// whole is in `values` by its Residency Code.
    texels: HashMap<&'a str, usize>,
}

impl<'a> State<'a> {
    fn size(&self) -> (usize, usize, bool, usize, usize) {
        (
            self.values.len(),
            self.memory.len(),
            self.anywhere.is_some(),
            self.returns.len(),
            self.texels.len(),
        )
    }

    /// The sample a value read through `roots` may come from.
    fn held(&self, roots: &Roots) -> Option<usize> {
        if let Some(k) = self.anywhere {
            return Some(k);
        }
        match roots {
            None => self.memory.values().next().copied(),
            Some(r) => r.iter().find_map(|(v, p, _)| {
                let part = (v.clone(), p.clone());
                self.memory
                    .iter()
                    .find(|(m, _)| overlap(m, &part))
                    .map(|(_, k)| *k)
            }),
        }
    }

    /// Memory reached through `roots` may now hold the value of sample `k`.
    fn store(&mut self, roots: Roots, k: usize) {
        match roots {
            None => {
                self.anywhere.get_or_insert(k);
            }
            Some(r) => {
                for (v, p, _) in r {
                    self.memory.entry((v, p)).or_insert(k);
                }
            }
        }
    }

    fn value(&self, inst: &Inst, i: usize) -> Option<usize> {
        self.values.get(id_at(inst, i)?).copied()
    }

    /// The sample the first of the id operands from `from` on may come from.
    fn any_from(&self, inst: &Inst, from: usize) -> Option<usize> {
        ids_from(inst, from).find_map(|(_, id)| self.values.get(id).copied())
    }
}

/// An instruction that only computes a value (or moves control within a
/// construct): what an arm of a value-only selection construct may hold
/// besides loads and stores of per-invocation variables.
fn computes_only(op: Op) -> bool {
    matches!(
        op,
        Op::Label
            | Op::Line
            | Op::NoLine
            | Op::Nop
            | Op::Branch
            | Op::BranchConditional
            | Op::Switch
            | Op::SelectionMerge
            | Op::Phi
            | Op::Select
            | Op::Undef
            | Op::CopyObject
            | Op::CopyLogical
            | Op::Bitcast
            | Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::CompositeConstruct
            | Op::CompositeExtract
            | Op::CompositeInsert
            | Op::VectorExtractDynamic
            | Op::VectorInsertDynamic
            | Op::VectorShuffle
            | Op::ConvertFToU
            | Op::ConvertFToS
            | Op::ConvertSToF
            | Op::ConvertUToF
            | Op::UConvert
            | Op::SConvert
            | Op::FConvert
            | Op::QuantizeToF16
            | Op::SNegate
            | Op::FNegate
            | Op::IAdd
            | Op::FAdd
            | Op::ISub
            | Op::FSub
            | Op::IMul
            | Op::FMul
            | Op::UDiv
            | Op::SDiv
            | Op::FDiv
            | Op::UMod
            | Op::SRem
            | Op::SMod
            | Op::FRem
            | Op::FMod
            | Op::VectorTimesScalar
            | Op::MatrixTimesScalar
            | Op::VectorTimesMatrix
            | Op::MatrixTimesVector
            | Op::MatrixTimesMatrix
            | Op::OuterProduct
            | Op::Dot
            | Op::Transpose
            | Op::IAddCarry
            | Op::ISubBorrow
            | Op::UMulExtended
            | Op::SMulExtended
            | Op::ShiftRightLogical
            | Op::ShiftRightArithmetic
            | Op::ShiftLeftLogical
            | Op::BitwiseOr
            | Op::BitwiseXor
            | Op::BitwiseAnd
            | Op::Not
            | Op::BitFieldInsert
            | Op::BitFieldSExtract
            | Op::BitFieldUExtract
            | Op::BitReverse
            | Op::BitCount
            | Op::Any
            | Op::All
            | Op::IsNan
            | Op::IsInf
            | Op::IsFinite
            | Op::IsNormal
            | Op::SignBitSet
            | Op::Ordered
            | Op::Unordered
            | Op::LogicalEqual
            | Op::LogicalNotEqual
            | Op::LogicalOr
            | Op::LogicalAnd
            | Op::LogicalNot
            | Op::IEqual
            | Op::INotEqual
            | Op::UGreaterThan
            | Op::SGreaterThan
            | Op::UGreaterThanEqual
            | Op::SGreaterThanEqual
            | Op::ULessThan
            | Op::SLessThan
            | Op::ULessThanEqual
            | Op::SLessThanEqual
            | Op::ImageSparseTexelsResident
    ) || super::lower::numeric::fcmp(op).is_some()
}

/// A selection construct that computes values only: its branch, its
/// merge block's label, and the stores its arms make (all to
/// per-invocation variables).
struct ValueOnly<'a> {
    merge: &'a str,
    stores: Vec<usize>,
}

/// The value-only selection constructs of `func`'s body, by the index of
/// their `OpBranchConditional` or `OpSwitch` (module doc).
fn value_only_constructs<'a>(
    flow: &Flow<'a>,
    body: std::ops::Range<usize>,
) -> HashMap<usize, ValueOnly<'a>> {
    let insts = flow.insts;
    // Each block: its label and the range of its instructions.
    let mut blocks: HashMap<&str, std::ops::Range<usize>> = HashMap::new();
    let mut open: Option<(&str, usize)> = None;
    for k in body.clone() {
        if insts[k].op == Op::Label {
            if let Some((l, from)) = open.take() {
                blocks.insert(l, from..k);
            }
            if let Some((l, _)) = &insts[k].result {
                open = Some((l.as_str(), k));
            }
        }
    }
    if let Some((l, from)) = open {
        blocks.insert(l, from..body.end);
    }
    // A per-invocation variable (kept in registers: no events), reached
    // at constant indices.
    let private_access = |inst: &Inst, i: usize| -> bool {
        let Some(roots) = flow.roots_at(inst, i) else {
            return false;
        };
        !roots.is_empty()
            && roots.iter().all(|(v, _, exact)| {
                *exact && {
                    let class = match flow.m.globals.iter().find(|g| &g.id == v) {
                        Some(g) => g.class_name.as_str(),
                        None => flow
                            .def
                            .get(v.as_str())
                            .and_then(|&d| insts[d].word(1).ok())
                            .unwrap_or(""),
                    };
                    super::module::class_of(class) == super::types::Class::Invocation
                }
            })
    };
    let mut out = HashMap::new();
    for k in body.clone() {
        let inst = &insts[k];
        if !matches!(inst.op, Op::BranchConditional | Op::Switch)
            || k == 0
            || insts[k - 1].op != Op::SelectionMerge
        {
            continue;
        }
        let Some(merge) = id_at(&insts[k - 1], 0) else {
            continue;
        };
        let mut todo: Vec<&str> = ids_from(inst, 1).map(|(_, l)| l).collect();
        let mut seen: HashSet<&str> = HashSet::new();
        let mut stores = Vec::new();
        let mut ok = true;
        'walk: while let Some(l) = todo.pop() {
            if l == merge || !seen.insert(l) {
                continue;
            }
            let Some(range) = blocks.get(l) else {
                ok = false;
                break;
            };
            for j in range.clone() {
                let x = &insts[j];
                let fine = match x.op {
                    Op::Load => private_access(x, 1),
                    Op::Store => {
                        stores.push(j);
                        private_access(x, 0)
                    }
                    Op::ExtInst => ids_from(x, 2).all(|(_, id)| !flow.is_pointer(id)),
                    op => computes_only(op),
                };
                if !fine {
                    ok = false;
                    break 'walk;
                }
                match x.op {
                    Op::Branch => todo.extend(id_at(x, 0)),
                    Op::BranchConditional | Op::Switch => {
                        todo.extend(ids_from(x, 1).map(|(_, l)| l))
                    }
                    _ => {}
                }
            }
        }
        if ok {
            out.insert(k, ValueOnly { merge, stores });
        }
    }
    out
}

/// The results of the `OpPhi` instructions of the block labelled `label`.
fn phis_of<'a>(flow: &Flow<'a>, label: &str) -> Vec<&'a str> {
    let Some(&at) = flow.def.get(label) else {
        return Vec::new();
    };
    flow.insts[at + 1..]
        .iter()
        .take_while(|x| matches!(x.op, Op::Phi | Op::Line | Op::NoLine))
        .filter(|x| x.op == Op::Phi)
        .filter_map(|x| x.result.as_ref().map(|(r, _)| r.as_str()))
        .collect()
}

/// The cooperative matrix instructions whose result vkmm does not compute
/// (docs/format-spirv.md, "Cooperative matrices"): "The mapping of
/// components to invocations and indexes is implementation-dependent", so
/// a loaded matrix's components, a MulAdd's ("The order of the operations
/// is implementation-dependent") and the number of components an
/// invocation holds ("Number of components of a cooperative matrix type
/// accessible to the current invocation") are the implementation's.
fn is_coop_source(op: Op) -> bool {
    matches!(
        op,
        Op::CooperativeMatrixLoadKHR
            | Op::CooperativeMatrixMulAddKHR
            | Op::CooperativeMatrixLengthKHR
    )
}

/// Whether `ty` is a cooperative matrix type.
fn is_matrix(m: &Module, ty: &str) -> bool {
    matches!(m.ty(ty), Some(Ty::CoopMatrix { .. }))
}

/// The pointer to the cooperative matrix the pointer `id` points into
/// (an access chain to one of its components), if any.
fn matrix_of<'a>(flow: &Flow<'a>, id: &'a str) -> Option<&'a str> {
    let inst = &flow.insts[*flow.def.get(id)?];
    if !matches!(inst.op, Op::AccessChain | Op::InBoundsAccessChain) {
        return None;
    }
    let base = id_at(inst, 1)?;
    let pointee = match flow.m.ty(flow.m.result_types.get(base)?)? {
        Ty::Pointer { pointee, .. } => pointee,
        _ => return None,
    };
    if is_matrix(flow.m, pointee) {
        Some(base)
    } else {
        matrix_of(flow, base)
    }
}

/// The sparse texel reads: their result is a Residency Code, whose value
/// is the implementation's, and the texel.
fn is_sparse_read(op: Op) -> bool {
    matches!(op, Op::ImageSparseRead | Op::ImageSparseFetch)
}

/// The reads of memory: their pointer (or image) operand.
fn read_through(op: Op) -> Option<usize> {
    match op {
        Op::AtomicStore => None,
        op if is_atomic(op) => Some(1),
        Op::Load
        | Op::AtomicCompareExchangeWeak
        | Op::ImageRead
        | Op::ImageFetch
        | Op::ImageSparseRead
        | Op::ImageSparseFetch
        | Op::TensorReadARM
        | Op::CooperativeMatrixLoadKHR => Some(1),
        _ => None,
    }
}

/// One step of the pass over instruction `k` of function `f`.
fn step<'a>(flow: &Flow<'a>, st: &mut State<'a>, f: &'a str, k: usize) {
    let inst: &'a Inst = &flow.insts[k];
    let result = inst.result.as_ref().map(|(r, _)| r.as_str());
    let mut from = if (is_sampling(inst.op) && inst.op != Op::ImageSparseTexelsResident)
        || is_sparse_read(inst.op)
        || is_coop_source(inst.op)
    {
        Some(k)
    } else {
        None
    };
    // A component written into a matrix: which component an index names
    // is the implementation's ("The mapping of components to invocations
    // and indexes is implementation-dependent"), so the matrix no longer
    // has one known value.
    if inst.op == Op::CompositeInsert && id_at(inst, 0).is_some_and(|t| is_matrix(flow.m, t)) {
        from = Some(k);
    }
    if inst.op == Op::Store
        && let Some(base) = id_at(inst, 0).and_then(|p| matrix_of(flow, p))
    {
        st.store(flow.roots(base, &mut HashSet::new()), k);
    }
    match inst.op {
        // A sparse result's texel member: the memory it was read from
        // decides it, not the Residency Code.
        Op::CompositeExtract
            if id_at(inst, 1).is_some_and(|c| flow.sparse.contains(c))
                && inst.int(2).is_ok_and(|m| m != 0) =>
        {
            if let (Some(r), Some(s)) = (result, id_at(inst, 1).and_then(|c| st.texels.get(c))) {
                st.values.entry(r).or_insert(*s);
            }
            return;
        }
        Op::Store => {
            if let Some(s) = st.value(inst, 1) {
                st.store(flow.roots_at(inst, 0), s);
            }
        }
        Op::AtomicStore => {
            if let Some(s) = st.any_from(inst, 1) {
                st.store(flow.roots_at(inst, 0), s);
            }
        }
        Op::CopyMemory | Op::CopyMemorySized => {
            if let Some(s) = st.held(&flow.roots_at(inst, 1)) {
                st.store(flow.roots_at(inst, 0), s);
            }
        }
        Op::ImageWrite | Op::TensorWriteARM => {
            if let Some(s) = st.any_from(inst, 1) {
                st.store(flow.roots_at(inst, 0), s);
            }
        }
        // The elements reach past the pointer's own part ("Elements
        // (row,*) ... are taken in order from contiguous locations starting
        // at 'Pointer'[row*'Stride']", and "'Pointer' must point into an
        // array"): the array the pointer points into may hold them.
        Op::CooperativeMatrixStoreKHR => {
            if let Some(s) = st.value(inst, 1) {
                let roots = flow.roots_at(inst, 0).map(|r| {
                    r.into_iter()
                        .map(|(v, mut path, exact)| {
                            if exact {
                                path.pop();
                            }
                            (v, path, false)
                        })
                        .collect()
                });
                st.store(roots, s);
            }
        }
        Op::FunctionCall => {
            if let Some(callee) = id_at(inst, 1).and_then(|c| flow.m.functions.get(c)) {
                for (p, (_, a)) in callee.params.iter().zip(ids_from(inst, 2)) {
                    if let Some(&s) = st.values.get(a) {
                        st.values.entry(p.as_str()).or_insert(s);
                    }
                }
            }
            from = from.or_else(|| id_at(inst, 1).and_then(|c| st.returns.get(c).copied()));
        }
        Op::ReturnValue => {
            if let Some(s) = st.value(inst, 0) {
                st.returns.entry(f).or_insert(s);
            }
        }
        Op::ExtInst => {
            // GLSL.std.450 Modf and Frexp, OpenCL.std's pointer results:
            // the result stored through a pointer operand.
            if let Some(s) = st.any_from(inst, 2) {
                for (i, id) in ids_from(inst, 2) {
                    if flow.is_pointer(id) {
                        st.store(flow.roots_at(inst, i), s);
                    }
                }
            }
        }
        op => {
            if let Some(i) = read_through(op) {
                let held = st.held(&flow.roots_at(inst, i));
                if is_sparse_read(op)
                    && let (Some(r), Some(s)) = (result, held)
                {
                    st.texels.entry(r).or_insert(s);
                }
                from = from.or(held);
                // An atomic read-modify-write stores its operands' value.
                if op != Op::Load
                    && let Some(s) = st.any_from(inst, i + 1)
                {
                    st.store(flow.roots_at(inst, i), s);
                }
            }
        }
    }
    // Any other value computed from a sampled one.
    from = from.or_else(|| st.any_from(inst, 1));
    if let (Some(r), Some(s)) = (result, from) {
        st.values.entry(r).or_insert(s);
    }
}

/// The operands of `inst` whose value decides a branch, an address or a
/// write, and what they decide.
fn deciding(flow: &Flow, inst: &Inst) -> Vec<(usize, &'static str)> {
    let all_from = |from: usize, what| {
        ids_from(inst, from)
            .map(move |(i, _)| (i, what))
            .collect::<Vec<_>>()
    };
    match inst.op {
        Op::BranchConditional => vec![(0, "which way a branch goes")],
        Op::Switch => vec![(0, "which case of a switch runs")],
        Op::AccessChain
        | Op::InBoundsAccessChain
        | Op::PtrAccessChain
        | Op::InBoundsPtrAccessChain => all_from(2, "the location an access reaches (an index)"),
        Op::ImageRead
        | Op::ImageFetch
        | Op::ImageSparseRead
        | Op::ImageSparseFetch
        | Op::TensorReadARM => all_from(
            2,
            "the texel an access reaches (a coordinate, level or sample)",
        ),
        Op::ImageWrite | Op::TensorWriteARM => {
            let mut v = vec![(
                1,
                "the texel an access reaches (a coordinate, level or sample)",
            )];
            v.extend(all_from(
                3,
                "the texel an access reaches (a coordinate, level or sample)",
            ));
            v
        }
        Op::ImageTexelPointer => {
            all_from(2, "the texel an atomic reaches (a coordinate or sample)")
        }
        Op::ImageQuerySizeLod => vec![(2, "whether a size query names a level the image has")],
        Op::Select
            if id_at(inst, 0).is_some_and(|t| matches!(flow.m.ty(t), Some(Ty::Pointer { .. }))) =>
        {
            vec![(1, "the location an access reaches (a pointer's selection)")]
        }
        Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => {
            vec![(6, "whether a compare-exchange writes (its comparator)")]
        }
        _ => Vec::new(),
    }
}

/// Follows the samples' values through the module; refuses, at the
/// instruction, one whose value may decide a branch, an address or a write
/// in a function reachable from `entries`, and answers the memory that may
/// hold a sampled value.
pub(super) fn check(
    insts: &[Inst],
    m: &Module,
    alias: &HashMap<String, String>,
    entries: &[String],
) -> Result<Sampled, Located> {
    if !insts.iter().any(|i| {
        is_sampling(i.op)
            || is_sparse_read(i.op)
            || is_coop_source(i.op)
            || i.op == Op::TypeCooperativeMatrixKHR
    }) {
        return Ok(Sampled::default());
    }
    let flow = Flow::new(insts, m, alias);
    let constructs: HashMap<usize, ValueOnly> = m
        .functions
        .values()
        .flat_map(|func| value_only_constructs(&flow, func.body.clone()))
        .collect();
    let mut st = State::default();
    loop {
        let before = st.size();
        for (f, func) in &m.functions {
            for k in func.body.clone() {
                step(&flow, &mut st, f, k);
            }
        }
        // What a value-only construct's sampled branch decides.
        for (k, c) in &constructs {
            let Some(s) = st.value(&insts[*k], 0) else {
                continue;
            };
            for phi in phis_of(&flow, c.merge) {
                st.values.entry(phi).or_insert(s);
            }
            for &j in &c.stores {
                st.store(flow.roots_at(&insts[j], 0), s);
            }
        }
        if st.size() == before {
            break;
        }
    }
    // The functions the entry points reach.
    let mut reached: BTreeSet<&str> = BTreeSet::new();
    let mut todo: Vec<&str> = entries.iter().map(String::as_str).collect();
    while let Some(f) = todo.pop() {
        if !reached.insert(f) {
            continue;
        }
        if let Some(func) = m.functions.get(f) {
            for inst in &insts[func.body.clone()] {
                if inst.op == Op::FunctionCall
                    && let Some(c) = id_at(inst, 1)
                {
                    todo.push(c);
                }
            }
        }
    }
    let mut order: Vec<&str> = reached.into_iter().collect();
    order.sort_by_key(|f| m.functions.get(*f).map_or(0, |func| func.body.start));
    for f in order {
        let Some(func) = m.functions.get(f) else {
            continue;
        };
        for k in func.body.clone() {
            let inst = &insts[k];
            let mut found = deciding(&flow, inst)
                .into_iter()
                .filter(|_| !constructs.contains_key(&k))
                .find_map(|(i, what)| st.value(inst, i).map(|s| (i, what, s)));
            if found.is_none()
                && matches!(
                    inst.op,
                    Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak
                )
                && let Some(s) = st.held(&flow.roots_at(inst, 1))
            {
                found = Some((
                    1,
                    "whether a compare-exchange writes (the memory it compares may hold a sampled value)",
                    s,
                ));
            }
            if let Some((i, what, s)) = found {
                let sample = &insts[s];
                let message = if matches!(sample.op, Op::Store | Op::CompositeInsert)
                    || is_coop_source(sample.op)
                {
                    format!(
                        "{}: the components of a cooperative matrix, or its length (`{}` at line {}), may decide {what}: \"The mapping of components to invocations and indexes is implementation-dependent\" (as are a MulAdd's \"order of the operations\" and OpCooperativeMatrixLengthKHR's \"Number of components of a cooperative matrix type accessible to the current invocation\"), so vkmm does not compute it and cannot tell what this instruction does; keep matrices' components and lengths out of branches, indices and compare-exchanges (docs/format-spirv.md, \"Cooperative matrices\")",
                        inst.name,
                        sample.name,
                        flow.line_of(s)
                    )
                } else if is_sparse_read(sample.op) {
                    format!(
                        "{}: the Residency Code of a sparse read (`{}` at line {}) may decide {what}: its encoding, and whether a texel is resident, are the implementation's (\"Residency Code is a value returned by a sparse image instruction\"), so vkmm does not compute it and cannot tell what this instruction does; keep residency codes out of branches, indices and compare-exchanges (docs/format-spirv.md, \"Sampling\")",
                        inst.name,
                        sample.name,
                        flow.line_of(s)
                    )
                } else {
                    format!(
                        "{}: the value of a sample (`{}` at line {}) may decide {what}: vkmm reads a sample as reads of every texel it may read and does not compute its value (which texels a filter reads, and their weights, are the sampler's and the implementation's), so it cannot tell what this instruction does; keep sampled values out of branches, indices and compare-exchanges, or read texels with texelFetch / textureLoad / Load (OpImageFetch) (docs/format-spirv.md, \"Sampling\")",
                        inst.name,
                        sample.name,
                        flow.line_of(s)
                    )
                };
                return Err(inst.err_at(i, message));
            }
        }
    }
    let first = st.anywhere.or_else(|| st.memory.values().min().copied());
    let origin = first.map(|s| (insts[s].line, insts[s].col));
    let what = match first.map(|s| insts[s].op) {
        Some(op) if op == Op::Store || op == Op::CompositeInsert || is_coop_source(op) => {
            "the components of a cooperative matrix (\"The mapping of components to invocations and indexes is implementation-dependent\"; docs/format-spirv.md, \"Cooperative matrices\")"
        }
        _ => {
            "the value of a sample (or a sparse read's Residency Code) (docs/format-spirv.md, \"Sampling\")"
        }
    };
    Ok(Sampled {
        parts: st.memory.into_keys().collect(),
        anywhere: st.anywhere.is_some(),
        origin,
        what,
        values: st.values.keys().map(|v| v.to_string()).collect(),
    })
}

/// The image variables (their first declared views) an `OpImageWrite`, or
/// an atomic through an `OpImageTexelPointer`, may write; `None` when one
/// writes through a pointer this pass cannot follow (any image).
pub(super) fn written_images(
    insts: &[Inst],
    m: &Module,
    alias: &HashMap<String, String>,
) -> Option<BTreeSet<String>> {
    if !insts.iter().any(|i| is_sampling(i.op)) {
        return None;
    }
    let flow = Flow::new(insts, m, alias);
    let mut out = BTreeSet::new();
    for inst in insts {
        let at = match inst.op {
            Op::ImageWrite => 0,
            Op::ImageTexelPointer => 1,
            _ => continue,
        };
        out.extend(flow.roots_at(inst, at)?.into_iter().map(|(v, _, _)| v));
    }
    Some(out)
}
