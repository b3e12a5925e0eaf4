//! `OpCooperativeMatrixLoadKHR` / `OpCooperativeMatrixStoreKHR`
//! (SPV_KHR_cooperative_matrix) lowered to the element accesses the Vulkan
//! litmus dialect's `cmld` / `cmst` build (src/frontend/vulkan_litmus/coop.rs):
//! each invocation holds a non-atomic access of every element, tagged with
//! [`CoopElement`]; which invocation performs which is left open, and
//! `super::super::coop::finish` builds the attributions
//! (docs/format-spirv.md, "Cooperative matrices").

use super::{Access, Frame, Gen, Home, R, Target, Val, leaves_of};
use crate::frontend::spirv::module::{Ty, unsupported};
use crate::frontend::spirv::syntax::{Inst, Tok};
use crate::ir::{CoopElement, OpKind, Operand, Scope, Stmt};
use ::spirv::Op;

/// One cooperative matrix instruction as one invocation lowered it.
#[derive(Clone, Debug, PartialEq)]
pub(in crate::frontend::spirv) struct CoopUse {
    pub line: usize,
    pub col: usize,
    pub load: bool,
    pub scope: Scope,
    /// The locations of the elements, each once.
    pub elements: Vec<usize>,
    /// The value stored in every element (a store).
    pub value: Option<i64>,
}

impl Gen<'_> {
    /// "Elements (row,*) of the result of load or store operations are
    /// taken in order from contiguous locations starting at
    /// 'Pointer'[row*'Stride']" (RowMajorKHR; ColumnMajorKHR the same with
    /// columns): one non-atomic access per memory location, in every
    /// invocation (the attributions keep some).
    pub(super) fn coop(&mut self, fr: &mut Frame, inst: &Inst) -> R<()> {
        let load = inst.op == Op::CooperativeMatrixLoadKHR;
        let (ptr_at, matrix_ty) = if load {
            (1, inst.id(0)?.to_string())
        } else {
            let obj = inst.id(1)?;
            let ty = self.m.result_types.get(obj).cloned().unwrap_or_default();
            (0, ty)
        };
        let Some(Ty::CoopMatrix {
            elem,
            scope,
            rows,
            cols,
        }) = self.m.ty(&matrix_ty).cloned()
        else {
            return Err(inst.err_at(
                if load { 0 } else { 1 },
                format!(
                    "{}: expected a cooperative matrix (OpTypeCooperativeMatrixKHR)",
                    inst.name
                ),
            ));
        };
        let scope = if scope == 3 {
            Scope::Subgroup
        } else {
            Scope::Workgroup
        };
        let p = self.ptr(fr, inst, ptr_at)?;
        if !p.dynamic.is_empty() {
            return Err(inst.err_at(
                ptr_at,
                format!("{}: the pointer has an index vkmm knows only at run time: \"All the operands to this instruction must be dynamically uniform within every instance of the 'Scope' of the cooperative matrix\"; index with constants (or builtins)", inst.name),
            ));
        }
        // "Its type must be an OpTypePointer whose 'Type' operand is a
        // scalar or vector type ... any ArrayStride decoration on 'Pointer'
        // is ignored", and "The 'Stride' parameter is interpreted in units
        // of the pointed-to type, not in units of the matrix's component
        // type": a row (column) starts `Stride` pointees on, its elements
        // are consecutive components. Each element is one cell of the
        // component's width (a 16-bit float, an 8-bit integer: cells of 2
        // and 1 bytes, each its memory locations).
        let scalar = |t: &str| {
            matches!(
                self.m.ty(t),
                Some(Ty::Int { .. } | Ty::Float { .. } | Ty::Bool)
            )
        };
        let psize = match self.m.ty(&p.ty) {
            Some(Ty::Vector { elem: e, .. }) if scalar(e) => self.m.size_of(&p.ty),
            Some(_) if scalar(&p.ty) => self.m.size_of(&p.ty),
            _ => None,
        };
        let (Some(psize), Some(esize)) = (psize, self.m.size_of(&elem)) else {
            return Err(unsupported(
                inst,
                "a cooperative matrix through a pointer to a composite other than a vector of scalars (\"Its type must be an OpTypePointer whose 'Type' operand is a scalar or vector type\")",
            ));
        };
        let layout_at = ptr_at + if load { 1 } else { 2 };
        let column_major = match self.val(fr, inst, layout_at)? {
            Val::Int(0) => false,
            Val::Int(1) => true,
            Val::Int(other) => {
                return Err(inst.err_at(
                    layout_at,
                    format!("unsupported cooperative matrix layout {other}: vkmm reads RowMajorKHR (0) and ColumnMajorKHR (1)"),
                ));
            }
            _ => {
                return Err(inst.err_at(
                    layout_at,
                    "'MemoryLayout' ... must come from a 32-bit integer constant instruction whose value corresponds to a 'Cooperative Matrix Layout'".into(),
                ));
            }
        };
        // Stride, then the memory operands (both optional).
        let stride_at = layout_at + 1;
        let has_stride = matches!(
            inst.operands.get(stride_at).map(|o| &o.tok),
            Some(Tok::Id(_))
        );
        if !has_stride {
            return Err(inst.err_at(
                layout_at,
                format!(
                    "{}: the layout's 'Stride' operand \"must be provided\"",
                    inst.name
                ),
            ));
        }
        let stride = match self.val(fr, inst, stride_at)? {
            Val::Int(n) => n,
            _ => {
                return Err(inst.err_at(
                    stride_at,
                    "the stride must be a constant (vkmm computes the elements when it lowers the instruction)".into(),
                ));
            }
        };
        if stride < 0 || (!load && stride == 0) {
            return Err(inst.err_at(
                stride_at,
                format!("'Stride' must be greater than 0 when passed to OpCooperativeMatrixStoreKHR and must be greater than or equal to 0 when passed to OpCooperativeMatrixLoadKHR (found {stride})"),
            ));
        }
        let acc: Access = self.access(fr, inst, stride_at + 1)?;
        let value = if load {
            None
        } else {
            let v = self.val(fr, inst, 1)?;
            let mut items = Vec::new();
            leaves_of(&v, &mut items);
            let uncomputed = inst
                .id(1)
                .is_ok_and(|id| self.mem.uncomputed_matrices.contains(id));
            match items.as_slice() {
                // A matrix vkmm does not compute (`sampled.rs`): its
                // cells are left out of the final states, so the value
                // its accesses write is never shown; 0 stands for it.
                _ if uncomputed => Some(0),
                [Val::Int(n)] => Some(super::wrap_const(*n, esize as u32 * 8)),
                _ => {
                    return Err(inst.err_at(
                        1,
                        "vkmm stores a matrix whose components all have one known value: OpConstantComposite of the matrix type (\"there must be only one 'Constituent' and it is used to initialize all members\"), OpConstantNull, OpCompositeConstruct of one constant, or arithmetic on those; this one is computed from a value known only at run time".into(),
                    ));
                }
            }
        };
        // The elements' locations, each once.
        let targets = self.targets(&p.home);
        let mut elements: Vec<usize> = Vec::new();
        for r in 0..rows as i64 {
            for c in 0..cols as i64 {
                let (line, within) = if column_major { (c, r) } else { (r, c) };
                let at = p.offset + line * stride * psize + within * esize;
                let loc = match targets
                    .iter()
                    .find(|(o, size, _)| *o == at && i64::from(*size) == esize)
                {
                    Some((_, _, Target::Loc(l))) => *l,
                    Some((_, _, Target::Reg(_))) => {
                        return Err(unsupported(
                            inst,
                            "a cooperative matrix in per-invocation memory (Function, Private: registers)",
                        ));
                    }
                    None => {
                        return Err(inst.err_at(
                            ptr_at,
                            format!("{}: element ({r}, {c}) is at byte offset {at}, outside the variable (or not a cell of its size)", inst.name),
                        ));
                    }
                };
                if !elements.contains(&loc) {
                    elements.push(loc);
                }
            }
        }
        // "'Pointer' must point into an array": a stored matrix's elements
        // stay in the array the first one is an element of (`sampled.rs`
        // marks that array as holding the matrix's components).
        if !load && let Home::Mem { var, instance } = &p.home {
            let cells = self.mem.cells.get(&(var.clone(), *instance));
            let path_of = |l: usize| {
                cells
                    .and_then(|cs| cs.iter().find(|(_, at)| *at == l))
                    .map(|(c, _)| c.path.clone())
            };
            let first = elements.first().and_then(|&l| path_of(l));
            if let Some(first) = first {
                let array = &first[..first.len().saturating_sub(1)];
                if elements.iter().any(|&l| {
                    path_of(l).is_none_or(|q| !q.starts_with(array) || q.len() != first.len())
                }) {
                    return Err(inst.err_at(
                        ptr_at,
                        format!("{}: the matrix's elements leave the array the pointer points into (\"'Pointer' must point into an array\"; a row or column past its end)", inst.name),
                    ));
                }
            }
        }
        let instance = self.coops.len() as u32;
        for &l in &elements {
            let kind = if load { OpKind::Load } else { OpKind::Store };
            let mut ins = self.mem_instruction(kind, l, &p, inst, &acc);
            if load {
                ins.make_pointer_available = false;
            } else {
                ins.make_pointer_visible = false;
                ins.operand = value.map(Operand::Const);
            }
            if !(ins.make_pointer_available || ins.make_pointer_visible) {
                ins.scope = None;
            }
            ins.coop = Some(CoopElement { instance, scope });
            self.code.push(Stmt::Op(ins));
        }
        self.coops.push(CoopUse {
            line: inst.line,
            col: inst.col,
            load,
            scope,
            elements,
            value,
        });
        if load {
            // The loaded matrix: which invocation holds which component is
            // the implementation's, so vkmm does not compute its value
            // (`sampled.rs` follows it); 0 stands for it.
            self.bind(fr, inst, Val::Comp(vec![Val::Int(0)]))?;
        }
        Ok(())
    }

    /// `OpCooperativeMatrixMulAddKHR` and `OpCooperativeMatrixLengthKHR`:
    /// values only, no memory access. MulAdd's result is "Linear-algebraic
    /// matrix multiply of 'A' by 'B' and then component-wise add 'C'. The
    /// order of the operations is implementation-dependent", and the
    /// length is the "Number of components of a cooperative matrix type
    /// accessible to the current invocation": neither is a value vkmm
    /// computes (`sampled.rs` refuses them where they decide a branch, an
    /// address or a write); 0 and 1 stand for them. Both are cooperative
    /// matrix instructions of their invocations (MulAdd has matrix
    /// operands and result: the rules of `super::super::coop::finish`);
    /// the length's operand is a type, no object, so it is not one.
    pub(super) fn coop_value(&mut self, fr: &mut Frame, inst: &Inst) -> R<()> {
        if inst.op == Op::CooperativeMatrixLengthKHR {
            if !matches!(self.m.ty(inst.id(1)?), Some(Ty::CoopMatrix { .. })) {
                return Err(inst.err_at(
                    1,
                    "OpCooperativeMatrixLengthKHR: \"'Type' is a cooperative matrix type\"".into(),
                ));
            }
            return self.bind(fr, inst, Val::Int(1));
        }
        let Some(Ty::CoopMatrix { scope, .. }) = self.m.ty(inst.id(0)?).cloned() else {
            return Err(inst.err_at(
                0,
                "OpCooperativeMatrixMulAddKHR: \"'Result Type' must be a cooperative matrix type\""
                    .into(),
            ));
        };
        for i in 1..4 {
            if !self.is_coop(inst.id(i)?) {
                return Err(inst.err_at(
                    i,
                    "OpCooperativeMatrixMulAddKHR: 'A', 'B' and 'C' are cooperative matrices"
                        .into(),
                ));
            }
        }
        self.coops.push(CoopUse {
            line: inst.line,
            col: inst.col,
            load: false,
            scope: if scope == 3 {
                Scope::Subgroup
            } else {
                Scope::Workgroup
            },
            elements: Vec::new(),
            value: None,
        });
        self.bind(fr, inst, Val::Comp(vec![Val::Int(0)]))
    }
}
