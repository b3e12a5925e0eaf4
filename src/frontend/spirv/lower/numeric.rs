//! Floating point, relational and integer bit instructions
//! (docs/format-spirv.md, "Floating point"): each becomes register
//! arithmetic of [`ArithOp::Num`] on the bits of the values
//! (`crate::ir::numeric`), folded when its operands are constants.

use super::{Frame, Gen, R, Val};
use crate::frontend::spirv::module::{Ty, unsupported};
use crate::frontend::spirv::syntax::Inst;
use crate::ir::numeric::{Conv, FBin, FUn, IntOp, NumOp};
use crate::ir::{ArithOp, Cmp};
use ::spirv::Op;

impl Gen<'_> {
    /// The width of a float type (of its components for a vector).
    pub(super) fn float_width(&self, ty: &str) -> Option<u8> {
        match self.m.ty(ty)? {
            Ty::Float { width } => Some(*width as u8),
            Ty::Vector { elem, .. } | Ty::CoopMatrix { elem, .. } => self.float_width(elem),
            Ty::Matrix { col, .. } => self.float_width(col),
            _ => None,
        }
    }

    /// The bit width of the scalar (or component) type of `ty`: integer,
    /// float; 32 for booleans and anything else.
    fn scalar_width(&self, ty: &str) -> u8 {
        match self.m.ty(ty) {
            Some(Ty::Int { width } | Ty::Float { width }) => *width as u8,
            Some(Ty::Vector { elem, .. } | Ty::CoopMatrix { elem, .. }) => self.scalar_width(elem),
            Some(Ty::Matrix { col, .. }) => self.scalar_width(col),
            _ => 32,
        }
    }

    fn width_of_operand(&self, inst: &Inst, i: usize) -> R<u8> {
        let id = inst.id(i)?;
        Ok(self
            .m
            .result_types
            .get(id)
            .map_or(32, |t| self.scalar_width(t)))
    }

    /// `op` on `a` and `b`, component-wise (a scalar `b` applies to each
    /// component of a vector `a`), folded for constants.
    pub(super) fn num(&mut self, a: &Val, b: &Val, dest: &str, op: NumOp, inst: &Inst) -> R<Val> {
        let b = match (a, b) {
            (Val::Comp(xs), Val::Reg(_) | Val::Cond(..)) => Val::Comp(vec![b.clone(); xs.len()]),
            _ => b.clone(),
        };
        self.binop(a, &b, dest, ArithOp::Num(op), inst)
    }

    fn un(&mut self, a: &Val, dest: &str, op: NumOp, inst: &Inst) -> R<Val> {
        self.binop(a, &Val::Int(0), dest, ArithOp::Num(op), inst)
    }

    fn result_width(&self, inst: &Inst) -> R<u8> {
        let ty = inst.id(0)?;
        self.float_width(ty)
            .ok_or_else(|| inst.err_at(0, format!("{}: expected a float result type", inst.name)))
    }

    /// Lowers a numeric instruction; `None` when `inst` is not one.
    pub(super) fn numeric(&mut self, fr: &Frame, inst: &Inst) -> R<Option<Val>> {
        let dest = self.reg_name(fr, inst.result_id().unwrap_or("_"));
        let arg = |g: &Self, i: usize| g.val(fr, inst, i);
        let v = match inst.op {
            Op::FAdd | Op::FSub | Op::FMul | Op::FDiv | Op::FRem | Op::FMod => {
                let w = self.result_width(inst)?;
                let op = match inst.op {
                    Op::FAdd => FBin::Add,
                    Op::FSub => FBin::Sub,
                    Op::FMul => FBin::Mul,
                    Op::FDiv => FBin::Div,
                    Op::FRem => FBin::Rem,
                    _ => FBin::Mod,
                };
                let (a, b) = (arg(self, 1)?, arg(self, 2)?);
                self.num(&a, &b, &dest, NumOp::FBin(op, w), inst)?
            }
            Op::FNegate => {
                let w = self.result_width(inst)?;
                let a = arg(self, 1)?;
                self.un(&a, &dest, NumOp::FUn(FUn::Neg, w), inst)?
            }
            Op::VectorTimesScalar => {
                let w = self.result_width(inst)?;
                let (a, b) = (arg(self, 1)?, arg(self, 2)?);
                let b = match (&a, &b) {
                    (Val::Comp(xs), Val::Int(_) | Val::Undef) => {
                        Val::Comp(vec![b.clone(); xs.len()])
                    }
                    _ => b,
                };
                self.num(&a, &b, &dest, NumOp::FBin(FBin::Mul, w), inst)?
            }
            // SPV_KHR_cooperative_matrix: "Allow cooperative matrix types
            // for OpMatrixTimesScalar": each component times the scalar.
            Op::MatrixTimesScalar
                if matches!(self.m.ty(inst.id(0)?), Some(Ty::CoopMatrix { .. })) =>
            {
                let w = self.result_width(inst)?;
                let (a, b) = (arg(self, 1)?, arg(self, 2)?);
                self.num(&a, &b, &dest, NumOp::FBin(FBin::Mul, w), inst)?
            }
            Op::MatrixTimesScalar
            | Op::MatrixTimesVector
            | Op::VectorTimesMatrix
            | Op::MatrixTimesMatrix
            | Op::OuterProduct
            | Op::Transpose => {
                // An undefined operand: its shape, every component undefined.
                let shaped = |g: &Self, i: usize| -> R<Val> {
                    match arg(g, i)? {
                        Val::Undef => {
                            let ty =
                                g.m.result_types
                                    .get(inst.id(i)?)
                                    .cloned()
                                    .unwrap_or_default();
                            Ok(g.undef_like(&ty))
                        }
                        v => Ok(v),
                    }
                };
                let a = shaped(self, 1)?;
                let b = if inst.op == Op::Transpose {
                    Val::Undef
                } else {
                    shaped(self, 2)?
                };
                self.matrix(&a, &b, &dest, inst)?
            }
            Op::Dot => {
                let w = self.width_of_operand(inst, 1)?;
                let (a, b) = (arg(self, 1)?, arg(self, 2)?);
                self.dot(&a, &b, w, &dest, inst)?
            }
            Op::IsNan | Op::IsInf => {
                let w = self.width_of_operand(inst, 1)?;
                let op = if inst.op == Op::IsNan {
                    FUn::IsNan
                } else {
                    FUn::IsInf
                };
                let a = arg(self, 1)?;
                self.un(&a, &dest, NumOp::FUn(op, w), inst)?
            }
            op if let Some((cmp, ordered)) = fcmp(op) => {
                let width = self.width_of_operand(inst, 1)?;
                let (a, b) = (arg(self, 1)?, arg(self, 2)?);
                self.num(
                    &a,
                    &b,
                    &dest,
                    NumOp::FCmp {
                        cmp,
                        ordered,
                        width,
                    },
                    inst,
                )?
            }
            Op::ConvertFToU
            | Op::ConvertFToS
            | Op::ConvertSToF
            | Op::ConvertUToF
            | Op::FConvert => {
                let from = self.width_of_operand(inst, 1)?;
                let to = self.scalar_width(inst.id(0)?);
                let c = match inst.op {
                    Op::ConvertFToU => Conv::FToU { from, to },
                    Op::ConvertFToS => Conv::FToS { from, to },
                    Op::ConvertSToF => Conv::SToF { from, to },
                    Op::ConvertUToF => Conv::UToF { from, to },
                    _ => Conv::FConvert { from, to },
                };
                let a = arg(self, 1)?;
                self.un(&a, &dest, NumOp::Conv(c), inst)?
            }
            Op::QuantizeToF16 => {
                let a = arg(self, 1)?;
                self.un(&a, &dest, NumOp::FUn(FUn::QuantizeToF16, 32), inst)?
            }
            Op::All | Op::Any => {
                let a = arg(self, 1)?;
                let a = self.booleans(&a, inst)?;
                let mut items = Vec::new();
                super::leaves_of(&a, &mut items);
                let op = if inst.op == Op::All {
                    ArithOp::And
                } else {
                    ArithOp::Or
                };
                let mut acc = items.first().cloned().unwrap_or(Val::Int(1));
                for (k, x) in items.iter().enumerate().skip(1) {
                    let name = if k + 1 == items.len() {
                        dest.clone()
                    } else {
                        format!("{dest}.{k}")
                    };
                    acc = self.binop(&acc, x, &name, op, inst)?;
                }
                acc
            }
            Op::BitCount | Op::BitReverse => {
                let w = self.width_of_operand(inst, 1)?;
                let op = if inst.op == Op::BitCount {
                    IntOp::BitCount
                } else {
                    IntOp::BitReverse
                };
                let a = arg(self, 1)?;
                self.un(&a, &dest, NumOp::Int(op, w), inst)?
            }
            Op::BitFieldInsert | Op::BitFieldSExtract | Op::BitFieldUExtract => {
                let w = self.scalar_width(inst.id(0)?);
                self.bit_field(fr, inst, w, &dest)?
            }
            Op::UMulExtended | Op::SMulExtended | Op::IAddCarry | Op::ISubBorrow => {
                // A struct of the low half (the wrapped result) and the
                // high half, carry or borrow.
                let w = self.scalar_width(&self.member_type(inst)?);
                let (a, b) = (arg(self, 1)?, arg(self, 2)?);
                let (low, high) = match inst.op {
                    Op::IAddCarry => (ArithOp::Add, IntOp::Carry),
                    Op::ISubBorrow => (ArithOp::Sub, IntOp::Borrow),
                    Op::UMulExtended => (ArithOp::Mul, IntOp::MulHi { signed: false }),
                    _ => (ArithOp::Mul, IntOp::MulHi { signed: true }),
                };
                let raw = self.binop(&a, &b, &format!("{dest}.raw"), low, inst)?;
                let lo = self.wrap(&raw, u32::from(w), &format!("{dest}.0"), inst)?;
                let hi = self.num(&a, &b, &format!("{dest}.1"), NumOp::Int(high, w), inst)?;
                Val::Comp(vec![lo, hi])
            }
            _ => return Ok(None),
        };
        Ok(Some(v))
    }

    /// The type of the first member of an instruction's struct result type.
    fn member_type(&self, inst: &Inst) -> R<String> {
        match self.m.ty(inst.id(0)?) {
            Some(Ty::Struct { members }) if !members.is_empty() => Ok(members[0].clone()),
            _ => Err(inst.err_at(0, format!("{}: expected a struct result type", inst.name))),
        }
    }

    /// The matrix instructions, on matrices held as their columns. Vulkan's
    /// "Precision and Operation of SPIR-V Instructions" gives them the
    /// precision of the multiplications and additions they are made of,
    /// and no order of the additions: vkmm adds in index order, each
    /// product and sum rounded (as `dot`).
    fn matrix(&mut self, a: &Val, b: &Val, dest: &str, inst: &Inst) -> R<Val> {
        let w = self.result_width(inst)?;
        // The columns of a matrix, each a list of its components.
        let columns = |v: &Val, at: usize| -> R<Vec<Vec<Val>>> {
            match v {
                Val::Comp(cols) => cols
                    .iter()
                    .map(|c| match c {
                        Val::Comp(xs) => Ok(xs.clone()),
                        _ => Err(inst.err_at(at, format!("{}: expected a matrix", inst.name))),
                    })
                    .collect(),
                _ => Err(inst.err_at(at, format!("{}: expected a matrix", inst.name))),
            }
        };
        let vector = |v: &Val, at: usize| -> R<Vec<Val>> {
            match v {
                Val::Comp(xs) => Ok(xs.clone()),
                _ => Err(inst.err_at(at, format!("{}: expected a vector", inst.name))),
            }
        };
        let mul = NumOp::FBin(FBin::Mul, w);
        // "Linear-algebraic Matrix X Vector": component i is the sum
        // over the columns c of m[c][i] * v[c].
        let times = |g: &mut Self, m: &[Vec<Val>], v: &[Val], dest: &str| -> R<Val> {
            if m.len() != v.len() {
                return Err(inst.err(format!(
                    "{}: the vector has {} components where the matrix has {} columns",
                    inst.name,
                    v.len(),
                    m.len()
                )));
            }
            let rows = m.first().map_or(0, Vec::len);
            let mut out = Vec::new();
            for i in 0..rows {
                let row = Val::Comp(
                    m.iter()
                        .map(|c| c.get(i).cloned().unwrap_or(Val::Undef))
                        .collect(),
                );
                out.push(g.dot(
                    &row,
                    &Val::Comp(v.to_vec()),
                    w,
                    &format!("{dest}.{i}"),
                    inst,
                )?);
            }
            Ok(Val::Comp(out))
        };
        Ok(match inst.op {
            // "Each component in each column in Matrix is multiplied by
            // Scalar."
            Op::MatrixTimesScalar => {
                let m = columns(a, 1)?;
                let mut out = Vec::new();
                for (c, col) in m.into_iter().enumerate() {
                    out.push(self.num(&Val::Comp(col), b, &format!("{dest}.{c}"), mul, inst)?);
                }
                Val::Comp(out)
            }
            Op::MatrixTimesVector => times(self, &columns(a, 1)?, &vector(b, 2)?, dest)?,
            // "Linear-algebraic Vector X Matrix": component c is the dot
            // product of the vector with column c.
            Op::VectorTimesMatrix => {
                let (v, m) = (vector(a, 1)?, columns(b, 2)?);
                let mut out = Vec::new();
                for (c, col) in m.into_iter().enumerate() {
                    if col.len() != v.len() {
                        return Err(inst.err(format!(
                            "{}: the vector has {} components where a column has {}",
                            inst.name,
                            v.len(),
                            col.len()
                        )));
                    }
                    out.push(self.dot(
                        &Val::Comp(v.clone()),
                        &Val::Comp(col),
                        w,
                        &format!("{dest}.{c}"),
                        inst,
                    )?);
                }
                Val::Comp(out)
            }
            // "Linear-algebraic multiply of LeftMatrix X RightMatrix":
            // column j of the result is LeftMatrix times column j of
            // RightMatrix.
            Op::MatrixTimesMatrix => {
                let (l, r) = (columns(a, 1)?, columns(b, 2)?);
                let mut out = Vec::new();
                for (j, col) in r.iter().enumerate() {
                    out.push(times(self, &l, col, &format!("{dest}.{j}"))?);
                }
                Val::Comp(out)
            }
            // "Linear-algebraic outer product of Vector 1 and Vector 2":
            // column j is Vector 1 times component j of Vector 2.
            Op::OuterProduct => {
                let (x, y) = (vector(a, 1)?, vector(b, 2)?);
                let mut out = Vec::new();
                for (j, s) in y.iter().enumerate() {
                    let col = Val::Comp(x.clone());
                    out.push(self.num(&col, s, &format!("{dest}.{j}"), mul, inst)?);
                }
                Val::Comp(out)
            }
            // "Transpose a matrix": component [c][r] of the result is
            // component [r][c] of Matrix.
            _ => {
                let m = columns(a, 1)?;
                let rows = m.first().map_or(0, Vec::len);
                Val::Comp(
                    (0..rows)
                        .map(|i| {
                            Val::Comp(
                                m.iter()
                                    .map(|c| c.get(i).cloned().unwrap_or(Val::Undef))
                                    .collect(),
                            )
                        })
                        .collect(),
                )
            }
        })
    }

    /// The dot product of two float vectors: the sum, in component
    /// order, of the products (each rounded).
    fn dot(&mut self, a: &Val, b: &Val, w: u8, dest: &str, inst: &Inst) -> R<Val> {
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        super::leaves_of(a, &mut xs);
        super::leaves_of(b, &mut ys);
        let mut acc: Option<Val> = None;
        for (k, (x, y)) in xs.iter().zip(&ys).enumerate() {
            let p = self.num(
                x,
                y,
                &format!("{dest}.p{k}"),
                NumOp::FBin(FBin::Mul, w),
                inst,
            )?;
            acc = Some(match acc {
                None => p,
                Some(s) => {
                    let name = if k + 1 == xs.len() {
                        dest.to_string()
                    } else {
                        format!("{dest}.s{k}")
                    };
                    self.num(&s, &p, &name, NumOp::FBin(FBin::Add, w), inst)?
                }
            });
        }
        Ok(acc.unwrap_or(Val::Int(0)))
    }

    /// OpBitFieldInsert (Base, Insert, Offset, Count), OpBitField\[SU\]Extract
    /// (Base, Offset, Count), at `w` bits: "the result is undefined" where
    /// Offset + Count exceeds the width; vkmm computes with the shifts
    /// below (bits past the width are cut).
    fn bit_field(&mut self, fr: &Frame, inst: &Inst, w: u8, dest: &str) -> R<Val> {
        let base = self.val(fr, inst, 1)?;
        let insert = inst.op == Op::BitFieldInsert;
        let (ins, off_i) = if insert {
            (Some(self.val(fr, inst, 2)?), 3)
        } else {
            (None, 2)
        };
        let offset = self.val(fr, inst, off_i)?;
        let count = self.val(fr, inst, off_i + 1)?;
        let width = u32::from(w);
        let shape = |v: &Val, like: &Val| match (like, v) {
            (Val::Comp(xs), Val::Int(_) | Val::Reg(_) | Val::Undef) => {
                Val::Comp(vec![v.clone(); xs.len()])
            }
            _ => v.clone(),
        };
        let (offset, count) = (shape(&offset, &base), shape(&count, &base));
        // mask = ((1 << count) - 1): count bits set (all for count = 64).
        let one = Val::Int(1);
        let shifted = self.binop(&one, &count, &format!("{dest}.m1"), ArithOp::Shl, inst)?;
        let shifted = match &shifted {
            Val::Comp(_) => shifted,
            _ => shape(&shifted, &base),
        };
        let mask = self.binop(
            &shifted,
            &Val::Int(1),
            &format!("{dest}.m2"),
            ArithOp::Sub,
            inst,
        )?;
        if let Some(ins) = ins {
            // (base & !(mask << offset)) | ((insert << offset) & (mask << offset))
            let at = self.binop(&mask, &offset, &format!("{dest}.m3"), ArithOp::Shl, inst)?;
            let keep = self.binop(
                &at,
                &Val::Int(-1),
                &format!("{dest}.m4"),
                ArithOp::Xor,
                inst,
            )?;
            let kept = self.binop(&base, &keep, &format!("{dest}.k"), ArithOp::And, inst)?;
            let moved = self.binop(&ins, &offset, &format!("{dest}.i1"), ArithOp::Shl, inst)?;
            let put = self.binop(&moved, &at, &format!("{dest}.i2"), ArithOp::And, inst)?;
            let raw = self.binop(&kept, &put, &format!("{dest}.raw"), ArithOp::Or, inst)?;
            return self.wrap(&raw, width, dest, inst);
        }
        let ubase = self.unsigned(&base, width, &format!("{dest}.u"), inst)?;
        let down = self.binop(&ubase, &offset, &format!("{dest}.d"), ArithOp::Shr, inst)?;
        let field = self.binop(&down, &mask, &format!("{dest}.f"), ArithOp::And, inst)?;
        if inst.op == Op::BitFieldUExtract {
            return self.wrap(&field, width, dest, inst);
        }
        // Sign-extend from bit count - 1: (field ^ top) - top, top = 1 << (count - 1)
        // (count 0 gives 0).
        let cm1 = self.binop(
            &count,
            &Val::Int(1),
            &format!("{dest}.c1"),
            ArithOp::Sub,
            inst,
        )?;
        let top = self.binop(&one, &cm1, &format!("{dest}.t"), ArithOp::Shl, inst)?;
        let top = match &top {
            Val::Comp(_) => top,
            _ => shape(&top, &base),
        };
        let flipped = self.binop(&field, &top, &format!("{dest}.x"), ArithOp::Xor, inst)?;
        let signed = self.binop(&flipped, &top, &format!("{dest}.s"), ArithOp::Sub, inst)?;
        self.wrap(&signed, width, dest, inst)
    }

    /// A GLSL.std.450 or OpenCL.std function on floats (or an integer
    /// bit function), `None` when `name` is not one vkmm lowers here.
    pub(super) fn float_function(
        &mut self,
        name: &str,
        args: &[Val],
        inst: &Inst,
        dest: &str,
    ) -> R<Option<Val>> {
        let ty = inst.id(0)?;
        // OpExtInst: result type, set, instruction, then the operands.
        let arg_w = |g: &Self, i: usize| g.width_of_operand(inst, 3 + i);
        let un = match name {
            "FAbs" | "fabs" => Some(FUn::Abs),
            "FSign" | "sign" => Some(FUn::Sign),
            "Floor" | "floor" => Some(FUn::Floor),
            "Ceil" | "ceil" => Some(FUn::Ceil),
            "Trunc" | "trunc" => Some(FUn::Trunc),
            "Round" | "round" => Some(FUn::Round),
            "RoundEven" | "rint" => Some(FUn::RoundEven),
            "Fract" => Some(FUn::Fract),
            "Sqrt" | "sqrt" => Some(FUn::Sqrt),
            "InverseSqrt" | "rsqrt" => Some(FUn::InverseSqrt),
            "Exp" | "exp" => Some(FUn::Exp),
            "Exp2" | "exp2" => Some(FUn::Exp2),
            "Log" | "log" => Some(FUn::Log),
            "Log2" | "log2" => Some(FUn::Log2),
            "Sin" | "sin" => Some(FUn::Sin),
            "Cos" | "cos" => Some(FUn::Cos),
            "Tan" | "tan" => Some(FUn::Tan),
            "Asin" | "asin" => Some(FUn::Asin),
            "Acos" | "acos" => Some(FUn::Acos),
            "Atan" | "atan" => Some(FUn::Atan),
            "Sinh" | "sinh" => Some(FUn::Sinh),
            "Cosh" | "cosh" => Some(FUn::Cosh),
            "Tanh" | "tanh" => Some(FUn::Tanh),
            "Asinh" | "asinh" => Some(FUn::Asinh),
            "Acosh" | "acosh" => Some(FUn::Acosh),
            "Atanh" | "atanh" => Some(FUn::Atanh),
            "Radians" | "radians" => Some(FUn::Radians),
            "Degrees" | "degrees" => Some(FUn::Degrees),
            _ => None,
        };
        let arg = |k: usize| {
            args.get(k)
                .cloned()
                .ok_or_else(|| inst.err(format!("`{name}`: expected at least {} operands", k + 1)))
        };
        if let Some(op) = un {
            let w = self.result_width(inst)?;
            return Ok(Some(self.un(&arg(0)?, dest, NumOp::FUn(op, w), inst)?));
        }
        let bin = match name {
            "FMin" | "fmin" => Some(FBin::Min),
            "FMax" | "fmax" => Some(FBin::Max),
            "NMin" => Some(FBin::NMin),
            "NMax" => Some(FBin::NMax),
            "Pow" | "pow" | "powr" => Some(FBin::Pow),
            "Atan2" | "atan2" => Some(FBin::Atan2),
            "Step" | "step" => Some(FBin::Step),
            "Ldexp" | "ldexp" => Some(FBin::Ldexp),
            "fmod" => Some(FBin::Rem),
            _ => None,
        };
        if let Some(op) = bin {
            let w = self.result_width(inst)?;
            let (a, b) = (arg(0)?, arg(1)?);
            return Ok(Some(self.num(&a, &b, dest, NumOp::FBin(op, w), inst)?));
        }
        let v = match name {
            "FClamp" | "NClamp" | "fclamp" | "clamp" if self.float_width(ty).is_some() => {
                let w = self.result_width(inst)?;
                let (lo, hi) = if name == "NClamp" {
                    (FBin::NMax, FBin::NMin)
                } else {
                    (FBin::Max, FBin::Min)
                };
                let (x, a, b) = (arg(0)?, arg(1)?, arg(2)?);
                let m = self.num(&x, &a, &format!("{dest}.lo"), NumOp::FBin(lo, w), inst)?;
                self.num(&m, &b, dest, NumOp::FBin(hi, w), inst)?
            }
            // FMix: "x * (1 - a) + y * a" (GLSL.std.450), each step rounded.
            "FMix" | "mix" => {
                let w = self.result_width(inst)?;
                let (x, y, a) = (arg(0)?, arg(1)?, arg(2)?);
                let one = Val::Int(crate::ir::numeric::from_f64(1.0, w));
                let a_like = match (&x, &a) {
                    (Val::Comp(xs), Val::Int(_) | Val::Reg(_) | Val::Undef) => {
                        Val::Comp(vec![a.clone(); xs.len()])
                    }
                    _ => a.clone(),
                };
                let one = match &a_like {
                    Val::Comp(xs) => Val::Comp(vec![one; xs.len()]),
                    _ => one,
                };
                let f = |op| NumOp::FBin(op, w);
                let oma = self.num(&one, &a_like, &format!("{dest}.oma"), f(FBin::Sub), inst)?;
                let l = self.num(&x, &oma, &format!("{dest}.l"), f(FBin::Mul), inst)?;
                let r = self.num(&y, &a_like, &format!("{dest}.r"), f(FBin::Mul), inst)?;
                self.num(&l, &r, dest, f(FBin::Add), inst)?
            }
            // Vulkan: "fma() | Inherited from OpFMul followed by OpFAdd."
            "Fma" | "fma" | "mad" => {
                let w = self.result_width(inst)?;
                let (a, b, c) = (arg(0)?, arg(1)?, arg(2)?);
                let p = self.num(
                    &a,
                    &b,
                    &format!("{dest}.p"),
                    NumOp::FBin(FBin::Mul, w),
                    inst,
                )?;
                self.num(&p, &c, dest, NumOp::FBin(FBin::Add, w), inst)?
            }
            // GLSL.std.450 Determinant: "Result is the determinant of x";
            // MatrixInverse: "Result is a matrix that is the inverse of x.
            // The values in the result are undefined if x is singular or
            // poorly conditioned (nearly singular)." Vulkan's precision
            // table has no row of their own: "GLSL.std.450 extended
            // instructions not listed above and not defined in terms of
            // the above have undefined precision"; they are defined in
            // terms of multiplications, additions and (the inverse) a
            // division, so vkmm computes the formulae they are derived
            // from with each of those rounded: the cofactor expansion
            // along the first column, and the adjugate over the
            // determinant.
            "Determinant" | "MatrixInverse" => {
                let w = self.result_width(inst)?;
                let m = self.square_matrix(&arg(0)?, name, inst)?;
                let n = m.len();
                let all: Vec<usize> = (0..n).collect();
                let mut names = 0usize;
                if name == "Determinant" {
                    self.determinant(&m, &all, &all, w, dest, &mut names, inst)?
                } else {
                    let det = format!("{dest}.det");
                    let d = self.determinant(&m, &all, &all, w, &det, &mut names, inst)?;
                    // Column c, row r of the inverse: the cofactor of
                    // row c, column r ((-1)^(r+c) times the determinant
                    // of the matrix without them) over the determinant.
                    let mut columns = Vec::new();
                    for c in 0..n {
                        let mut column = Vec::new();
                        for r in 0..n {
                            let rows: Vec<usize> =
                                all.iter().copied().filter(|&k| k != c).collect();
                            let cols: Vec<usize> =
                                all.iter().copied().filter(|&k| k != r).collect();
                            let minor = format!("{dest}.m{c}{r}");
                            let mut cof =
                                self.determinant(&m, &rows, &cols, w, &minor, &mut names, inst)?;
                            if (r + c) % 2 == 1 {
                                cof = self.un(
                                    &cof,
                                    &format!("{dest}.n{c}{r}"),
                                    NumOp::FUn(FUn::Neg, w),
                                    inst,
                                )?;
                            }
                            column.push(self.num(
                                &cof,
                                &d,
                                &format!("{dest}.{c}.{r}"),
                                NumOp::FBin(FBin::Div, w),
                                inst,
                            )?);
                        }
                        columns.push(Val::Comp(column));
                    }
                    Val::Comp(columns)
                }
            }
            // Vulkan, "Precision of GLSL.std.450 Instructions": "length(x)
            // | Inherited from sqrt(dot(x, x))."
            "Length" | "length" => {
                let w = self.result_width(inst)?;
                let x = arg(0)?;
                let d = self.dot(&x, &x, w, &format!("{dest}.d"), inst)?;
                self.un(&d, dest, NumOp::FUn(FUn::Sqrt, w), inst)?
            }
            // The other geometric functions, each computed as the
            // formula Vulkan's precision table says it inherits its
            // precision from, every step rounded: "distance(p0, p1) |
            // Inherited from length(p0 - p1)"; "normalize(x) | Inherited
            // from x / length(x)"; "cross() | Inherited from (x[1] * y[2] -
            // y[1] * x[2], x[2] * y[0] - y[2] * x[0], x[0] * y[1] - y[0] *
            // x[1])"; "faceforward(N, I, NRef) | Inherited from NRef · I <
            // 0.0 ? N : -N"; "reflect(x, y) | Inherited from x - 2.0 *
            // dot(y, x) * y"; "refract(I, N, eta) | Inherited from k < 0.0
            // ? 0.0 : eta * I - (eta * dot(N, I) + sqrt(k)) * N, where k =
            // 1 - eta * eta * (1.0 - dot(N, I) * dot(N, I))";
            // "smoothstep(edge0, edge1, x) | Inherited from t * t * (3.0 -
            // 2.0 * t), where t = clamp((x - edge0) / (edge1 - edge0),
            // 0.0, 1.0)".
            "Distance" | "distance" => {
                let w = self.result_width(inst)?;
                let (a, b) = (arg(0)?, arg(1)?);
                let f = |op| NumOp::FBin(op, w);
                let d = self.num(&a, &b, &format!("{dest}.v"), f(FBin::Sub), inst)?;
                let dd = self.dot(&d, &d, w, &format!("{dest}.d"), inst)?;
                self.un(&dd, dest, NumOp::FUn(FUn::Sqrt, w), inst)?
            }
            "Normalize" | "normalize" => {
                let w = self.result_width(inst)?;
                let x = arg(0)?;
                let d = self.dot(&x, &x, w, &format!("{dest}.d"), inst)?;
                let l = self.un(&d, &format!("{dest}.l"), NumOp::FUn(FUn::Sqrt, w), inst)?;
                let l = like(&x, l);
                self.num(&x, &l, dest, NumOp::FBin(FBin::Div, w), inst)?
            }
            "Cross" | "cross" => {
                let w = self.result_width(inst)?;
                let (mut xs, mut ys) = (Vec::new(), Vec::new());
                super::leaves_of(&arg(0)?, &mut xs);
                super::leaves_of(&arg(1)?, &mut ys);
                if xs.len() != 3 || ys.len() != 3 {
                    return Err(inst.err_at(
                        4,
                        "`Cross`: \"x and y must be vectors of 3 components\"".into(),
                    ));
                }
                let f = |op| NumOp::FBin(op, w);
                let mut out = Vec::new();
                for (k, (i, j)) in [(1, 2), (2, 0), (0, 1)].into_iter().enumerate() {
                    let l =
                        self.num(&xs[i], &ys[j], &format!("{dest}.{k}l"), f(FBin::Mul), inst)?;
                    let r =
                        self.num(&ys[i], &xs[j], &format!("{dest}.{k}r"), f(FBin::Mul), inst)?;
                    out.push(self.num(&l, &r, &format!("{dest}.{k}"), f(FBin::Sub), inst)?);
                }
                Val::Comp(out)
            }
            "FaceForward" | "faceforward" => {
                let w = self.result_width(inst)?;
                let (n, i, nref) = (arg(0)?, arg(1)?, arg(2)?);
                let d = self.dot(&nref, &i, w, &format!("{dest}.d"), inst)?;
                let lt = self.less_than_zero(&d, w, &format!("{dest}.c"), inst)?;
                let neg = self.un(&n, &format!("{dest}.n"), NumOp::FUn(FUn::Neg, w), inst)?;
                let c = like(&n, lt);
                self.select(&c, &n, &neg, dest, inst)?
            }
            "Reflect" | "reflect" => {
                let w = self.result_width(inst)?;
                let (i, n) = (arg(0)?, arg(1)?);
                let f = |op| NumOp::FBin(op, w);
                let two = Val::Int(crate::ir::numeric::from_f64(2.0, w));
                let d = self.dot(&n, &i, w, &format!("{dest}.d"), inst)?;
                let t = self.num(&two, &d, &format!("{dest}.t"), f(FBin::Mul), inst)?;
                let t = like(&n, t);
                let tn = self.num(&t, &n, &format!("{dest}.tn"), f(FBin::Mul), inst)?;
                self.num(&i, &tn, dest, f(FBin::Sub), inst)?
            }
            "Refract" | "refract" => {
                let w = self.result_width(inst)?;
                let (i, n, eta) = (arg(0)?, arg(1)?, arg(2)?);
                let f = |op| NumOp::FBin(op, w);
                let c = |x: f64| Val::Int(crate::ir::numeric::from_f64(x, w));
                let d = self.dot(&n, &i, w, &format!("{dest}.d"), inst)?;
                let dd = self.num(&d, &d, &format!("{dest}.dd"), f(FBin::Mul), inst)?;
                let omd = self.num(&c(1.0), &dd, &format!("{dest}.omd"), f(FBin::Sub), inst)?;
                let ee = self.num(&eta, &eta, &format!("{dest}.ee"), f(FBin::Mul), inst)?;
                let eeo = self.num(&ee, &omd, &format!("{dest}.eeo"), f(FBin::Mul), inst)?;
                let k = self.num(&c(1.0), &eeo, &format!("{dest}.k"), f(FBin::Sub), inst)?;
                let ed = self.num(&eta, &d, &format!("{dest}.ed"), f(FBin::Mul), inst)?;
                let sk = self.un(&k, &format!("{dest}.sk"), NumOp::FUn(FUn::Sqrt, w), inst)?;
                let m = self.num(&ed, &sk, &format!("{dest}.m"), f(FBin::Add), inst)?;
                let ei = self.num(
                    &like(&i, eta),
                    &i,
                    &format!("{dest}.ei"),
                    f(FBin::Mul),
                    inst,
                )?;
                let mn = self.num(&like(&n, m), &n, &format!("{dest}.mn"), f(FBin::Mul), inst)?;
                let r = self.num(&ei, &mn, &format!("{dest}.r"), f(FBin::Sub), inst)?;
                let lt = self.less_than_zero(&k, w, &format!("{dest}.c"), inst)?;
                let zero = like(&i, Val::Int(0));
                self.select(&like(&i, lt), &zero, &r, dest, inst)?
            }
            "SmoothStep" | "smoothstep" => {
                let w = self.result_width(inst)?;
                let (e0, e1, x) = (arg(0)?, arg(1)?, arg(2)?);
                let (e0, e1) = (like(&x, e0), like(&x, e1));
                let f = |op| NumOp::FBin(op, w);
                let c = |v: f64| like(&x, Val::Int(crate::ir::numeric::from_f64(v, w)));
                let a = self.num(&x, &e0, &format!("{dest}.a"), f(FBin::Sub), inst)?;
                let b = self.num(&e1, &e0, &format!("{dest}.b"), f(FBin::Sub), inst)?;
                let q = self.num(&a, &b, &format!("{dest}.q"), f(FBin::Div), inst)?;
                let lo = self.num(&q, &c(0.0), &format!("{dest}.lo"), f(FBin::Max), inst)?;
                let t = self.num(&lo, &c(1.0), &format!("{dest}.t"), f(FBin::Min), inst)?;
                let tt = self.num(&t, &t, &format!("{dest}.tt"), f(FBin::Mul), inst)?;
                let t2 = self.num(&c(2.0), &t, &format!("{dest}.t2"), f(FBin::Mul), inst)?;
                let s = self.num(&c(3.0), &t2, &format!("{dest}.s"), f(FBin::Sub), inst)?;
                self.num(&tt, &s, dest, f(FBin::Mul), inst)?
            }
            "PackHalf2x16" => {
                let v = arg(0)?;
                let mut xs = Vec::new();
                super::leaves_of(&v, &mut xs);
                let [a, b] = xs.as_slice() else {
                    return Err(inst.err("PackHalf2x16: expected a vector of two floats".into()));
                };
                self.num(a, b, dest, NumOp::Conv(Conv::PackHalf2x16), inst)?
            }
            "UnpackHalf2x16" => {
                let v = arg(0)?;
                let lo = self.un(
                    &v,
                    &format!("{dest}.0"),
                    NumOp::Conv(Conv::UnpackHalf { high: false }),
                    inst,
                )?;
                let hi = self.un(
                    &v,
                    &format!("{dest}.1"),
                    NumOp::Conv(Conv::UnpackHalf { high: true }),
                    inst,
                )?;
                Val::Comp(vec![lo, hi])
            }
            "PackUnorm4x8" | "PackSnorm4x8" | "PackUnorm2x16" | "PackSnorm2x16" => {
                let signed = name.contains("Snorm");
                let bits: u8 = if name.ends_with("4x8") { 8 } else { 16 };
                let v = arg(0)?;
                let mut xs = Vec::new();
                super::leaves_of(&v, &mut xs);
                let mut acc = Val::Int(0);
                for (k, x) in xs.iter().enumerate() {
                    let f = self.un(
                        x,
                        &format!("{dest}.n{k}"),
                        NumOp::Conv(Conv::ToNorm { signed, bits }),
                        inst,
                    )?;
                    let f = self.unsigned(&f, u32::from(bits), &format!("{dest}.z{k}"), inst)?;
                    let at = Val::Int(i64::from(bits) * k as i64);
                    let moved = self.binop(&f, &at, &format!("{dest}.s{k}"), ArithOp::Shl, inst)?;
                    acc = self.binop(&acc, &moved, &format!("{dest}.o{k}"), ArithOp::Or, inst)?;
                }
                self.wrap(&acc, 32, dest, inst)?
            }
            "UnpackUnorm4x8" | "UnpackSnorm4x8" | "UnpackUnorm2x16" | "UnpackSnorm2x16" => {
                let signed = name.contains("Snorm");
                let bits: u8 = if name.ends_with("4x8") { 8 } else { 16 };
                let v = self.unsigned(&arg(0)?, 32, &format!("{dest}.u"), inst)?;
                let mut out = Vec::new();
                for k in 0..(32 / bits) {
                    let at = Val::Int(i64::from(bits) * i64::from(k));
                    let down = self.binop(&v, &at, &format!("{dest}.d{k}"), ArithOp::Shr, inst)?;
                    out.push(self.un(
                        &down,
                        &format!("{dest}.{k}"),
                        NumOp::Conv(Conv::FromNorm { signed, bits }),
                        inst,
                    )?);
                }
                Val::Comp(out)
            }
            // GLSL.std.450, of any operand (a constant folds, a register
            // is the register operation `IntOp`): FindILsb, "the bit
            // number of the least-significant 1-bit ... If Value is 0,
            // -1 is returned"; FindUMsb, "the bit number of the
            // most-significant 1-bit ... If Value is 0, -1 is returned";
            // FindSMsb, "For positive numbers, this will be the bit
            // number of the most significant 1-bit. For negative
            // numbers, this will be the bit number of the most
            // significant 0-bit. For a Value of 0 or -1, -1 will be
            // returned." Each at the operand's width.
            "FindILsb" | "FindSMsb" | "FindUMsb" => {
                let w = arg_w(self, 0)?;
                let op = match name {
                    "FindILsb" => IntOp::FindLsb,
                    "FindSMsb" => IntOp::FindSMsb,
                    _ => IntOp::FindUMsb,
                };
                self.un(&arg(0)?, dest, NumOp::Int(op, w), inst)?
            }
            _ => return Ok(None),
        };
        Ok(Some(v))
    }

    /// Whether the float `x` of width `w` is less than 0.0 (an ordered
    /// comparison: a NaN is not), as a boolean value.
    fn less_than_zero(&mut self, x: &Val, w: u8, dest: &str, inst: &Inst) -> R<Val> {
        let zero = Val::Int(crate::ir::numeric::from_f64(0.0, w));
        let op = NumOp::FCmp {
            cmp: Cmp::Lt,
            ordered: true,
            width: w,
        };
        self.num(x, &zero, dest, op, inst)
    }

    /// The columns of a square float matrix of 2 to 4 columns (`name`'s
    /// operand: GLSL.std.450 "x must be a square matrix").
    fn square_matrix(&self, v: &Val, name: &str, inst: &Inst) -> R<Vec<Vec<Val>>> {
        let columns: Option<Vec<Vec<Val>>> = match v {
            Val::Comp(cols) => cols
                .iter()
                .map(|c| match c {
                    Val::Comp(xs) => Some(xs.clone()),
                    _ => None,
                })
                .collect(),
            _ => None,
        };
        match columns {
            Some(m) if (2..=4).contains(&m.len()) && m.iter().all(|c| c.len() == m.len()) => Ok(m),
            _ => Err(inst.err_at(
                3,
                format!("`{name}`: expected a square matrix of 2, 3 or 4 columns"),
            )),
        }
    }

    /// The determinant of the square matrix `m` (columns) restricted to
    /// `rows` and `cols`, by cofactor expansion along its first column,
    /// left to right: `a(r0, c0) * det(M0) - a(r1, c0) * det(M1) + ...`,
    /// each product and sum rounded at width `w` (a 2 x 2 is `a00 * a11 -
    /// a10 * a01`). `names` numbers the intermediate registers.
    #[allow(clippy::too_many_arguments)]
    fn determinant(
        &mut self,
        m: &[Vec<Val>],
        rows: &[usize],
        cols: &[usize],
        w: u8,
        dest: &str,
        names: &mut usize,
        inst: &Inst,
    ) -> R<Val> {
        let (Some(&c0), true) = (cols.first(), rows.len() == cols.len()) else {
            return Ok(Val::Int(crate::ir::numeric::from_f64(1.0, w)));
        };
        if rows.len() == 1 {
            return Ok(m[c0][rows[0]].clone());
        }
        let mut acc: Option<Val> = None;
        for (k, &r) in rows.iter().enumerate() {
            *names += 1;
            let here = *names;
            let rest: Vec<usize> = rows.iter().copied().filter(|&x| x != r).collect();
            let minor = self.determinant(
                m,
                &rest,
                &cols[1..],
                w,
                &format!("{dest}.d{here}"),
                names,
                inst,
            )?;
            let term = self.num(
                &m[c0][r],
                &minor,
                &format!("{dest}.t{here}"),
                NumOp::FBin(FBin::Mul, w),
                inst,
            )?;
            acc = Some(match acc {
                None => term,
                Some(a) => {
                    let op = if k % 2 == 1 { FBin::Sub } else { FBin::Add };
                    let name = if k + 1 == rows.len() {
                        dest.to_string()
                    } else {
                        format!("{dest}.s{here}")
                    };
                    self.num(&a, &term, &name, NumOp::FBin(op, w), inst)?
                }
            });
        }
        Ok(acc.unwrap_or(Val::Int(0)))
    }

    /// A refusal of a float function vkmm does not lower.
    pub(super) fn float_refusal(
        &self,
        inst: &Inst,
        name: &str,
    ) -> crate::frontend::spirv::syntax::Located {
        unsupported(
            inst,
            &format!(
                "vkmm does not lower the extended instruction `{name}` (docs/format-spirv.md, \"Floating point\")"
            ),
        )
    }
}

/// `v` in the shape of `shape`: a scalar repeated once per component of
/// a vector `shape` (GLSL.std.450 mixes a scalar with a vector where its
/// formulae do: `eta * I`), else `v` itself.
fn like(shape: &Val, v: Val) -> Val {
    match (shape, &v) {
        (Val::Comp(_), Val::Comp(_)) => v,
        (Val::Comp(xs), _) => Val::Comp(vec![v; xs.len()]),
        _ => v,
    }
}

/// The comparison and orderedness of an OpFOrd* / OpFUnord* instruction
/// (`None`: another instruction).
pub(in crate::frontend::spirv) fn fcmp(op: Op) -> Option<(Cmp, bool)> {
    Some(match op {
        Op::FOrdEqual => (Cmp::Eq, true),
        Op::FUnordEqual => (Cmp::Eq, false),
        Op::FOrdNotEqual => (Cmp::Ne, true),
        Op::FUnordNotEqual => (Cmp::Ne, false),
        Op::FOrdLessThan => (Cmp::Lt, true),
        Op::FUnordLessThan => (Cmp::Lt, false),
        Op::FOrdGreaterThan => (Cmp::Gt, true),
        Op::FUnordGreaterThan => (Cmp::Gt, false),
        Op::FOrdLessThanEqual => (Cmp::Le, true),
        Op::FUnordLessThanEqual => (Cmp::Le, false),
        Op::FOrdGreaterThanEqual => (Cmp::Ge, true),
        Op::FUnordGreaterThanEqual => (Cmp::Ge, false),
        _ => return None,
    })
}
