//! Group and subgroup instructions (`OpGroupNonUniform*`, the kernels'
//! `OpGroup*`), and the tangle key that says which invocations execute a
//! dynamic instance of one together (docs/format-spirv.md, "Subgroup
//! operations").
//!
//! SPIR-V, glossary: "Tangle: The set of invocations that execute the same
//! dynamic instance of an instruction", and of dynamic instances: "At the
//! entry point, all invocations (in the invocation group, unless otherwise
//! stated) execute the same dynamic instance of the first instruction in
//! the entry point function. Invocations will continue to execute the same
//! dynamic instances as long as they follow the same control-flow path."
//!
//! Each invocation keeps a *tangle key* (the register [`KEY`]): a hash of
//! the blocks its path entered since the last reconvergence point, which a
//! reconvergence point resets to the key the construct's header had.
//! Invocations of one scope instance that reach a group instruction with
//! the same key execute the same dynamic instance of it: they are its
//! tangle (the engine groups arrivals by the key,
//! `crate::engine::barrier::groups`). The reconvergence points:
//!
//! - Always, the merge block of a selection or loop construct, for the
//!   invocations that executed its header together: "If control flow is
//!   uniform upon entry into a structured loop or selection, and all
//!   invocations leave that loop or selection via the header block's
//!   declared merge block, then control flow reconverges to be uniform at
//!   that merge block" (Uniform Control Flow), which
//!   SPV_KHR_subgroup_uniform_control_flow extends "to apply to each
//!   Subgroup scope instance".
//! - Under `MaximallyReconvergesKHR` besides, a loop's continue target ("'T(L)'
//!   will include all non-escaping invocations in 'T(M)'", "at the
//!   beginning of each iteration of the loop, invocations that entered the
//!   loop together and are continuing to the execute the loop will be
//!   converged") and the instruction after a function call ("'T(I)' will
//!   include all non-escaping invocations in 'T(FC)'").
//!
//! A loop's iterations are told apart: each back edge counts one, so that
//! the same static instruction in two iterations is two dynamic instances.
//! A module without group instructions keeps no key (no statement is
//! added).

use super::{Frame, Gen, R, Val, leaves_of, span};
use crate::frontend::spirv::module::{Module, Ty, unsupported};
use crate::frontend::spirv::syntax::Inst;
use crate::ir::{
    ArithOp, GroupArith, GroupFunction, GroupOp, Instruction, LaneOp, OpKind, Operand, Scope,
    SourceSpan, Stmt,
};
use ::spirv::Op;

/// The register holding an invocation's tangle key (`#` is in no register
/// name a source gives).
pub(in crate::frontend::spirv) const KEY: &str = "sg#key";

/// The multiplier of the key's hash (a large odd number: distinct paths
/// give distinct keys unless their hashes collide modulo 2^64).
const P: i64 = 1_000_003;

/// The tangle state of a module with group instructions.
pub(in crate::frontend::spirv) struct Tangles {
    /// The entry point declares `MaximallyReconvergesKHR`.
    maximal: bool,
    /// The first barrier instance number of group instructions: past every
    /// line, so that no `OpControlBarrier` (numbered by its line) shares it.
    base: u32,
    /// Group events lowered so far (each has its own instance number).
    seq: u32,
}

impl Tangles {
    /// `Some` when the module has a group instruction.
    pub fn of(_m: &Module, insts: &[Inst]) -> Option<Tangles> {
        if !insts.iter().any(is_group) {
            return None;
        }
        let maximal = insts.iter().any(|i| {
            matches!(i.op, Op::ExecutionMode | Op::ExecutionModeId)
                && i.word(1).is_ok_and(|w| w == "MaximallyReconvergesKHR")
        });
        let base = insts.iter().map(|i| i.line).max().unwrap_or(0) as u32 + 1;
        Some(Tangles {
            maximal,
            base,
            seq: 0,
        })
    }
}

/// The integer and float operations of the arithmetic group instructions, by the
/// name after `OpGroupNonUniform` / `OpGroup` (a `KHR` suffix dropped), and
/// whether they are the logical (Boolean) forms.
fn arith(body: &str) -> Option<(GroupArith, bool)> {
    Some(match body.strip_suffix("KHR").unwrap_or(body) {
        "IAdd" => (GroupArith::Add, false),
        "FAdd" => (GroupArith::FAdd, false),
        "FMul" => (GroupArith::FMul, false),
        "FMin" => (GroupArith::FMin, false),
        "FMax" => (GroupArith::FMax, false),
        "IMul" => (GroupArith::Mul, false),
        "SMin" => (GroupArith::Min, false),
        "UMin" => (GroupArith::UMin, false),
        "SMax" => (GroupArith::Max, false),
        "UMax" => (GroupArith::UMax, false),
        "BitwiseAnd" => (GroupArith::And, false),
        "BitwiseOr" => (GroupArith::Or, false),
        "BitwiseXor" => (GroupArith::Xor, false),
        "LogicalAnd" => (GroupArith::And, true),
        "LogicalOr" => (GroupArith::Or, true),
        "LogicalXor" => (GroupArith::Xor, true),
        _ => return None,
    })
}

/// The name of a group instruction after its prefix.
fn body(inst: &Inst) -> Option<&str> {
    let n = inst.name.as_str();
    n.strip_prefix("OpGroupNonUniform")
        .or_else(|| n.strip_prefix("OpGroup"))
}

/// Whether the instruction is a group instruction this module lowers (or
/// refuses with a message of its own): the `OpGroupNonUniform*`
/// instructions and the kernels' collective `OpGroup*` ones (not the
/// decoration groups, pipes or asynchronous copies).
pub(in crate::frontend::spirv) fn is_group(inst: &Inst) -> bool {
    if inst.name.starts_with("OpGroupNonUniform") {
        return true;
    }
    matches!(
        body(inst),
        Some("All" | "Any" | "Broadcast" | "FAdd" | "FMin" | "FMax" | "FMulKHR")
    ) || (inst.name.starts_with("OpGroup") && body(inst).and_then(arith).is_some())
}

impl Gen<'_> {
    /// The tangle key on entering block `id` (the label instruction at
    /// `k`): a merge block restores its header's key; under maximal
    /// reconvergence a continue target takes its loop's key and iteration;
    /// any other block extends the key with itself.
    pub(super) fn enter_block(&mut self, fr: &Frame, id: &str, k: usize, src: &SourceSpan) {
        if self.tangles.is_some() {
            self.entered_key(fr, id, k, KEY, src);
        }
    }

    /// Sets `dest` to the key [`Gen::enter_block`] gives on entering block
    /// `id` from the current key.
    fn entered_key(&mut self, fr: &Frame, id: &str, k: usize, dest: &str, src: &SourceSpan) {
        let Some(t) = &self.tangles else {
            return;
        };
        if let Some(saved) = fr.restore.get(id) {
            self.copy(dest, Operand::Reg(saved.clone()), src);
        } else if let (true, Some((kl, it))) = (t.maximal, fr.cont.get(id)) {
            let (kl, it) = (kl.clone(), it.clone());
            self.assign(dest, ArithOp::Mul, Operand::Reg(kl), Operand::Const(P), src);
            self.assign(
                dest,
                ArithOp::Add,
                Operand::Reg(dest.to_string()),
                Operand::Reg(it),
                src,
            );
        } else {
            self.assign(
                dest,
                ArithOp::Mul,
                Operand::Reg(KEY.into()),
                Operand::Const(P),
                src,
            );
            self.assign(
                dest,
                ArithOp::Add,
                Operand::Reg(dest.to_string()),
                Operand::Const(k as i64 + 1),
                src,
            );
        }
    }

    /// The registers of the loop whose header is block `header`: the key
    /// its merge block restores and its iteration number.
    fn loop_registers(fr: &Frame, header: &str) -> (String, String) {
        (
            format!("sg#loop{}_{header}", fr.call),
            format!("sg#iter{}_{header}", fr.call),
        )
    }

    /// An edge into the loop header `header` (its label the instruction
    /// at `k`). An edge from outside the loop (the header is not lowered
    /// yet: blocks are lowered in text order, and the header dominates
    /// its back edges' blocks, SPIR-V 2.11) saves the key the header has
    /// once entered and starts the iteration number at 0; a back edge
    /// counts an iteration. The header itself runs the same statements
    /// on every arrival, so an iteration that changes nothing arrives at
    /// it in the state it left it in (a spin loop repeats its state).
    pub(super) fn loop_edge(&mut self, fr: &Frame, header: &str, k: usize, src: &SourceSpan) {
        let (kl, it) = Self::loop_registers(fr, header);
        if fr.visited.contains(header) {
            self.assign(
                &it,
                ArithOp::Add,
                Operand::Reg(it.clone()),
                Operand::Const(1),
                src,
            );
        } else {
            self.entered_key(fr, header, k, &kl, src);
            self.copy(&it, Operand::Const(0), src);
        }
    }

    /// `OpSelectionMerge` / `OpLoopMerge`: the header saves the key its
    /// merge block restores (a loop's edges into its header save it and
    /// count iterations, [`Gen::loop_edge`]).
    pub(super) fn merge(&mut self, fr: &mut Frame, inst: &Inst) -> R<()> {
        let Some(t) = &self.tangles else {
            return Ok(());
        };
        let maximal = t.maximal;
        let src = span(inst);
        let merge = inst.id(0)?.to_string();
        if inst.op == Op::SelectionMerge {
            self.fresh += 1;
            let saved = format!("sg#sel{}", self.fresh);
            self.copy(&saved, Operand::Reg(KEY.into()), &src);
            fr.restore.insert(merge, saved);
            return Ok(());
        }
        let cont = inst.id(1)?.to_string();
        let (kl, it) = Self::loop_registers(fr, &fr.cur);
        fr.restore.insert(merge, kl.clone());
        if maximal {
            fr.cont.insert(cont, (kl, it));
        }
        Ok(())
    }

    /// Under maximal reconvergence, the key before a call (restored after
    /// it, [`Gen::after_call`]).
    pub(super) fn before_call(&mut self, src: &SourceSpan) -> Option<String> {
        if !self.tangles.as_ref().is_some_and(|t| t.maximal) {
            return None;
        }
        self.fresh += 1;
        let saved = format!("sg#call{}", self.fresh);
        self.copy(&saved, Operand::Reg(KEY.into()), src);
        Some(saved)
    }

    pub(super) fn after_call(&mut self, saved: Option<String>, src: &SourceSpan) {
        if let Some(saved) = saved {
            self.copy(KEY, Operand::Reg(saved), src);
        }
    }

    /// One group event: this invocation contributes `value` and receives
    /// the result in `dest`.
    #[allow(clippy::too_many_arguments)]
    fn collective(
        &mut self,
        exec: Scope,
        op: GroupOp,
        value: Operand,
        local_id: Option<Operand>,
        dest: &str,
        (width, nonuniform): (Option<u8>, bool),
        src: &SourceSpan,
    ) -> Val {
        let t = self
            .tangles
            .as_mut()
            .expect("a module with group instructions");
        let instance = t.base + t.seq;
        t.seq += 1;
        let id = nonuniform.then(|| Operand::Reg(KEY.into()));
        let mut ins = Instruction::new(
            OpKind::ControlBarrier {
                instance,
                execution_scope: exec,
                id,
                quorum: None,
            },
            src.clone(),
        );
        ins.operand = Some(value);
        ins.dest = Some(dest.to_string());
        ins.group = Some(GroupFunction {
            op,
            local_id,
            nonuniform,
            width,
        });
        self.code.push(Stmt::Op(ins));
        Val::Reg(dest.to_string())
    }

    /// The scalar operands of the value at operand `i` (a vector's
    /// components in order).
    fn scalars(&mut self, fr: &Frame, inst: &Inst, i: usize) -> R<Vec<Operand>> {
        let v = self.val(fr, inst, i)?;
        let mut leaves = Vec::new();
        leaves_of(&v, &mut leaves);
        leaves
            .iter()
            .map(|l| self.operand(l, inst, i))
            .collect::<R<_>>()
    }

    /// A single scalar operand (the first component of a vector whose
    /// other components are 0: a kernel's `LocalId` vector).
    fn scalar(&mut self, fr: &Frame, inst: &Inst, i: usize) -> R<Operand> {
        let mut xs = self.scalars(fr, inst, i)?;
        if xs.len() > 1 && xs[1..].iter().any(|x| *x != Operand::Const(0)) {
            return Err(unsupported(
                inst,
                "a local id with nonzero Y or Z components (vkmm's workgroups are one-dimensional)",
            ));
        }
        if xs.is_empty() {
            return Err(inst.err_at(i, format!("{}: expected a scalar", inst.name)));
        }
        Ok(xs.swap_remove(0))
    }

    /// Lowers a group instruction (module doc).
    pub(super) fn group(&mut self, fr: &mut Frame, inst: &Inst) -> R<()> {
        let name = inst.name.clone();
        let body = body(inst).unwrap_or_default().to_string();
        let nonuniform = name.starts_with("OpGroupNonUniform");
        let src = span(inst);
        // "Execution is the scope defining the scope restricted tangle
        // affected by this command. It must be Subgroup" (Vulkan) or
        // Workgroup (kernels, and the arithmetic forms in SPIR-V).
        let exec = self.scope(fr, inst, 1)?;
        if !matches!(exec, Scope::Subgroup | Scope::Workgroup) {
            return Err(inst.err_at(
                1,
                format!(
                    "{name}: the Execution scope is {exec}; expected Subgroup (3) or Workgroup (2)"
                ),
            ));
        }
        let ty = inst.id(0)?.to_string();
        // Floats keep their bits; the width says which IEEE-754 format the
        // arithmetic forms compute in (`GroupArith::FAdd`...).
        let width = match self.m.ty(&ty) {
            _ if self.float_width(&ty).is_some() => self.float_width(&ty),
            Some(Ty::Int { .. } | Ty::Vector { .. }) if self.width_of_type(&ty) < 64 => {
                Some(self.width_of_type(&ty) as u8)
            }
            Some(Ty::Int { .. } | Ty::Vector { .. }) => Some(64),
            _ => None,
        };
        let flags = (width, nonuniform);
        let dest = self.reg_name(fr, inst.result_id()?);
        let me = self.place.index % self.place.grid.per_subgroup.max(1);
        let size = self.place.grid.per_subgroup;
        let subgroup_only = |what: &str| -> R<()> {
            if exec == Scope::Subgroup {
                Ok(())
            } else {
                Err(inst.err_at(
                    1,
                    format!("{name}: {what} needs the Subgroup execution scope (3), not {exec}"),
                ))
            }
        };
        // A result with one register per component.
        let per_component = |g: &mut Self, xs: Vec<Operand>, op: GroupOp, id: Option<Operand>| {
            let vals: Vec<Val> = xs
                .into_iter()
                .enumerate()
                .map(|(k, x)| {
                    let d = format!("{dest}.{k}");
                    g.collective(exec, op, x, id.clone(), &d, flags, &src)
                })
                .collect();
            if vals.len() == 1 {
                vals.into_iter().next().unwrap_or(Val::Undef)
            } else {
                Val::Comp(vals)
            }
        };
        let v = match body.as_str() {
            "Elect" => {
                subgroup_only("OpGroupNonUniformElect")?;
                self.collective(
                    exec,
                    GroupOp::Elect,
                    Operand::Const(1),
                    None,
                    &dest,
                    flags,
                    &src,
                )
            }
            "All" | "Any" => {
                let op = if body == "All" {
                    GroupOp::All
                } else {
                    GroupOp::Any
                };
                let p = self.scalar(fr, inst, 2)?;
                self.collective(exec, op, p, None, &dest, flags, &src)
            }
            "AllEqual" => {
                let xs = self.scalars(fr, inst, 2)?;
                let mut acc = Val::Int(1);
                for (k, x) in xs.into_iter().enumerate() {
                    let d = format!("{dest}.e{k}");
                    let e = self.collective(exec, GroupOp::AllEqual, x, None, &d, flags, &src);
                    acc = self.binop(&acc, &e, &format!("{dest}.a{k}"), ArithOp::And, inst)?;
                }
                acc
            }
            "Broadcast" | "Shuffle" => {
                let xs = self.scalars(fr, inst, 2)?;
                let id = self.scalar(fr, inst, 3)?;
                per_component(self, xs, GroupOp::Broadcast, Some(id))
            }
            "BroadcastFirst" => {
                let xs = self.scalars(fr, inst, 2)?;
                per_component(self, xs, GroupOp::BroadcastFirst, None)
            }
            "ShuffleXor" | "ShuffleUp" | "ShuffleDown" | "QuadBroadcast" => {
                subgroup_only(&name)?;
                let lane = match body.as_str() {
                    "ShuffleXor" => LaneOp::Xor,
                    "ShuffleUp" => LaneOp::Up,
                    "ShuffleDown" => LaneOp::Down,
                    _ => LaneOp::Quad,
                };
                let xs = self.scalars(fr, inst, 2)?;
                let id = self.scalar(fr, inst, 3)?;
                per_component(self, xs, GroupOp::Lane(lane), Some(id))
            }
            "QuadSwap" => {
                subgroup_only(&name)?;
                // "Direction ... 0 indicates a horizontal swap ... 1
                // indicates a vertical swap ... 2 indicates a diagonal
                // swap": the quad index xor 1, 2 or 3.
                let d = self.int_const(fr, inst, 3, "Direction")?;
                if !(0..=2).contains(&d) {
                    return Err(
                        inst.err_at(3, format!("{name}: Direction is {d}; expected 0, 1 or 2"))
                    );
                }
                let xs = self.scalars(fr, inst, 2)?;
                per_component(
                    self,
                    xs,
                    GroupOp::Lane(LaneOp::Xor),
                    Some(Operand::Const(d + 1)),
                )
            }
            "Ballot" => {
                subgroup_only("OpGroupNonUniformBallot")?;
                let p = self.scalar(fr, inst, 2)?;
                let n = match self.m.ty(&ty) {
                    Some(Ty::Vector { n, .. }) => *n,
                    _ => 1,
                };
                let vals = (0..n)
                    .map(|c| {
                        let d = format!("{dest}.{c}");
                        self.collective(
                            exec,
                            GroupOp::Ballot(c as u8),
                            p.clone(),
                            None,
                            &d,
                            flags,
                            &src,
                        )
                    })
                    .collect();
                Val::Comp(vals)
            }
            "InverseBallot" => {
                subgroup_only(&name)?;
                let v = self.scalars(fr, inst, 2)?;
                self.ballot_bit(&v, Operand::Const(me as i64), &dest, size, inst)?
            }
            "BallotBitExtract" => {
                subgroup_only(&name)?;
                let v = self.scalars(fr, inst, 2)?;
                let index = self.scalar(fr, inst, 3)?;
                self.ballot_bit(&v, index, &dest, size, inst)?
            }
            "BallotBitCount" => {
                subgroup_only(&name)?;
                let v = self.scalars(fr, inst, 3)?;
                // "Reduce: the number of bits set to 1 in Value, considering
                // only the bits in Value required to represent all bits of
                // the scope restricted tangle"; InclusiveScan: "only the
                // bits in Value representing invocations with a lower or
                // equal local invocation id"; ExclusiveScan: "lower".
                let upto = match inst.word(2)? {
                    "Reduce" => size,
                    "InclusiveScan" => me + 1,
                    "ExclusiveScan" => me,
                    w => {
                        return Err(inst.err_at(
                            2,
                            format!("{name}: Operation {w}; expected Reduce, InclusiveScan or ExclusiveScan"),
                        ));
                    }
                };
                let mut acc = Val::Int(0);
                for k in 0..upto {
                    let b = self.bit_of(&v, k, &format!("{dest}.b{k}"), inst)?;
                    acc = self.binop(&acc, &b, &format!("{dest}.s{k}"), ArithOp::Add, inst)?;
                }
                acc
            }
            "BallotFindLSB" | "BallotFindMSB" => {
                subgroup_only(&name)?;
                let v = self.scalars(fr, inst, 2)?;
                // r = r + b*(k - r) keeps the last k whose bit b is set:
                // the order of k picks the lowest (LSB) or the highest.
                let order: Vec<usize> = if body == "BallotFindLSB" {
                    (0..size).rev().collect()
                } else {
                    (0..size).collect()
                };
                let mut r = Val::Int(-1);
                for k in order {
                    let b = self.bit_of(&v, k, &format!("{dest}.b{k}"), inst)?;
                    let diff = self.binop(
                        &Val::Int(k as i64),
                        &r,
                        &format!("{dest}.d{k}"),
                        ArithOp::Sub,
                        inst,
                    )?;
                    let step =
                        self.binop(&b, &diff, &format!("{dest}.m{k}"), ArithOp::Mul, inst)?;
                    r = self.binop(&r, &step, &format!("{dest}.r{k}"), ArithOp::Add, inst)?;
                }
                r
            }
            other => {
                let Some((a, logical)) = arith(other) else {
                    return Err(unsupported(
                        inst,
                        "vkmm does not lower this group instruction (docs/format-spirv.md, \"Subgroup operations\")",
                    ));
                };
                let op = match inst.word(2)? {
                    "Reduce" => GroupOp::Reduce(a),
                    "InclusiveScan" => GroupOp::ScanInclusive(a),
                    "ExclusiveScan" => GroupOp::ScanExclusive(a),
                    "ClusteredReduce" => {
                        // "ClusterSize is the size of cluster to use.
                        // ClusterSize must be a scalar of integer type,
                        // whose Signedness operand is 0. ClusterSize must
                        // come from a constant instruction. Behavior is
                        // undefined unless ClusterSize is at least 1 and a
                        // power of 2."
                        let n = self.int_const(fr, inst, 4, "ClusterSize")?;
                        if n < 1 || n.count_ones() != 1 {
                            return Err(inst.err_at(
                                4,
                                format!(
                                    "{name}: ClusterSize is {n}; expected a power of 2 (at least 1)"
                                ),
                            ));
                        }
                        GroupOp::Clustered(a, n as u32)
                    }
                    w => {
                        return Err(inst.err_at(
                            2,
                            format!("{name}: Operation {w} is not modelled; expected Reduce, InclusiveScan, ExclusiveScan or ClusteredReduce"),
                        ));
                    }
                };
                let xs = self.scalars(fr, inst, 3)?;
                let flags = if logical { (None, nonuniform) } else { flags };
                let vals: Vec<Val> = xs
                    .into_iter()
                    .enumerate()
                    .map(|(k, x)| {
                        let d = format!("{dest}.{k}");
                        let r = self.collective(exec, op, x, None, &d, flags, &src);
                        // A Boolean result is 0 or 1 (the and's identity
                        // is all ones).
                        if logical {
                            self.binop(&r, &Val::Int(1), &format!("{d}.bool"), ArithOp::And, inst)
                        } else {
                            Ok(r)
                        }
                    })
                    .collect::<R<_>>()?;
                if vals.len() == 1 {
                    vals.into_iter().next().unwrap_or(Val::Undef)
                } else {
                    Val::Comp(vals)
                }
            }
        };
        self.bind(fr, inst, v)
    }

    /// Bit `k` of a ballot value (its 32-bit components in order), 0 or 1.
    fn bit_of(&mut self, v: &[Operand], k: usize, dest: &str, inst: &Inst) -> R<Val> {
        let Some(c) = v.get(k / 32) else {
            return Ok(Val::Int(0));
        };
        let c = match c {
            Operand::Const(x) => Val::Int(*x),
            Operand::Reg(r) => Val::Reg(r.clone()),
        };
        let shifted = self.binop(
            &c,
            &Val::Int((k % 32) as i64),
            &format!("{dest}.sh"),
            ArithOp::Shr,
            inst,
        )?;
        self.binop(&shifted, &Val::Int(1), dest, ArithOp::And, inst)
    }

    /// The bit of a ballot value at `index` (InverseBallot: the
    /// invocation's own id; BallotBitExtract: "Result is true if the bit
    /// of Value at Index is set").
    fn ballot_bit(
        &mut self,
        v: &[Operand],
        index: Operand,
        dest: &str,
        size: usize,
        inst: &Inst,
    ) -> R<Val> {
        match index {
            Operand::Const(k) => match usize::try_from(k) {
                Ok(k) => self.bit_of(v, k, dest, inst),
                Err(_) => Ok(Val::Int(0)),
            },
            Operand::Reg(r) if size <= 32 => {
                let c = match v.first() {
                    Some(Operand::Reg(c)) => Val::Reg(c.clone()),
                    Some(Operand::Const(x)) => Val::Int(*x),
                    None => Val::Int(0),
                };
                let shifted =
                    self.binop(&c, &Val::Reg(r), &format!("{dest}.sh"), ArithOp::Shr, inst)?;
                self.binop(&shifted, &Val::Int(1), dest, ArithOp::And, inst)
            }
            Operand::Reg(_) => Err(unsupported(
                inst,
                "a runtime bit index into a ballot of a subgroup of more than 32 invocations",
            )),
        }
    }
}
