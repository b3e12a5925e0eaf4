//! `OpCooperativeMatrixLoadKHR` / `OpCooperativeMatrixStoreKHR`
//! (SPV_KHR_cooperative_matrix) lowered to the element accesses the Vulkan
//! litmus dialect's `cmld` / `cmst` build (src/frontend/vulkan_litmus/coop.rs):
//! each invocation holds a non-atomic access of every element, tagged with
//! [`CoopElement`]; which invocation performs which is left open, and
//! `super::super::coop::finish` builds the attributions
//! (docs/format-spirv.md, "Cooperative matrices").

use super::{Access, Frame, Gen, R, Target, Val, leaves_of};
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
        // is ignored": elements are consecutive scalars.
        let esize = match self.m.ty(&p.ty) {
            Some(Ty::Int { .. } | Ty::Bool) => self.m.size_of(&p.ty).unwrap_or(4),
            _ => {
                return Err(unsupported(
                    inst,
                    "a cooperative matrix through a pointer to a vector or a composite (vkmm reads pointers to integer scalars)",
                ));
            }
        };
        if self.m.size_of(&elem) != Some(esize) {
            return Err(inst.err_at(
                ptr_at,
                format!(
                    "{}: the pointer's scalar has {esize} bytes but the matrix's components have {}",
                    inst.name,
                    self.m.size_of(&elem).unwrap_or(0)
                ),
            ));
        }
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
            match items.as_slice() {
                [Val::Int(n)] => Some(super::wrap_const(*n, esize as u32 * 8)),
                _ => {
                    return Err(inst.err_at(
                        1,
                        "vkmm stores a matrix whose components all have one known value: OpConstantComposite of the matrix type (\"there must be only one 'Constituent' ... and all components of the matrix are initialized to that value\") or OpConstantNull; which invocation holds which component of a loaded or computed matrix is the implementation's".into(),
                    ));
                }
            }
        };
        // The elements' locations, each once.
        let targets = self.targets(&p.home);
        let mut elements: Vec<usize> = Vec::new();
        for r in 0..rows as i64 {
            for c in 0..cols as i64 {
                let index = if column_major {
                    c * stride + r
                } else {
                    r * stride + c
                };
                let at = p.offset + index * esize;
                let loc = match targets.iter().find(|(o, _, _)| *o == at) {
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
            // the implementation's, so vkmm does not track its value.
            self.bind(fr, inst, Val::Comp(vec![Val::Undef]))?;
        }
        Ok(())
    }
}
