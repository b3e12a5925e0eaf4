//! Values of per-invocation variables known at lowering time.
//!
//! Compilers at their default settings keep locals in Function variables
//! and pass arguments by pointer: glslang gives every call's `in`
//! parameter an `OpVariable Function`, stores the argument there and hands
//! the callee the pointer (`OpFunctionParameter` of pointer type). A value
//! the lowering folds per invocation (a builtin, a push constant, a
//! constant) would become a register at the first such store and load, and
//! every index computed from it a runtime index (a chain of branches over
//! the variable's cells). So the lowering follows the constants stored in
//! the registers of Private and Function variables, as a compiler's
//! memory-to-register pass would:
//!
//! - a store of a constant at a constant offset makes the cell's value
//!   known; any other write to the cell's register forgets it;
//! - a load of cells whose values are known is those constants;
//! - a function's result is a constant when every `OpReturnValue` the
//!   lowering reaches returns that constant;
//! - control flow joins the knowledge of the edges into a block: a block
//!   whose predecessors have all been lowered (blocks are lowered in text
//!   order, which "must satisfy the rule that blocks appear before all
//!   blocks they dominate", SPIR-V 2.16.1) keeps what every edge lowered
//!   into it agrees on (an edge the lowering folded away is never taken);
//!   a block with a predecessor still to come (a loop header's back edge)
//!   also forgets every variable its function may write ([`Kills`]).
//!
//! A block no edge reaches is not lowered at all: no path of the invocation
//! runs it, and its accesses (a texel at a coordinate known only in
//! another invocation's branch) need no branch chains.
//!
//! The program checked is the same either way: the registers hold the same
//! values; only the branches and accesses folded differ.

use super::{Frame, Gen, Home, Val};
use crate::frontend::spirv::module::{Module, Ty};
use crate::frontend::spirv::syntax::Inst;
use ::spirv::Op;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// What may write a function's per-invocation variables.
#[derive(Debug, Default)]
pub(super) struct Kills {
    /// Some pointer of unknown origin is written (a pointer chosen by
    /// OpSelect or OpPhi, or loaded from memory): forget everything.
    pub all: bool,
    /// The variables and pointer parameters written, or passed to a call,
    /// or given to any instruction other than a load or an access chain.
    pub roots: HashSet<String>,
    /// The function calls another, which may write module-scope (Private)
    /// variables.
    pub calls: bool,
}

/// A function's control flow and the variables it may write.
#[derive(Debug, Default)]
pub(super) struct Flow {
    /// Each block's predecessors.
    pub preds: HashMap<String, Vec<String>>,
    pub kills: Kills,
    /// The loop headers (blocks with an `OpLoopMerge`).
    pub headers: HashSet<String>,
}

/// Where a pointer id comes from, within one function.
#[derive(Clone, Debug)]
enum Root {
    Id(String),
    Any,
}

impl Flow {
    /// The flow of the function whose instructions are `body`.
    pub(super) fn of(m: &Module, body: &[Inst]) -> Flow {
        let mut f = Flow::default();
        let mut roots: HashMap<String, Root> = HashMap::new();
        let resolve = |roots: &HashMap<String, Root>, id: &str| -> Option<Root> {
            roots.get(id).cloned().or_else(|| {
                m.globals
                    .iter()
                    .any(|g| g.id == id)
                    .then(|| Root::Id(id.into()))
            })
        };
        let is_ptr_type = |inst: &Inst| {
            inst.id(0)
                .ok()
                .is_some_and(|t| matches!(m.ty(t), Some(Ty::Pointer { .. })))
        };
        let mut cur = String::new();
        for inst in body {
            let result = inst.result_id().ok().map(str::to_string);
            let ids = |from: usize| {
                (from..inst.operands.len())
                    .filter_map(|i| inst.id(i).ok().map(str::to_string))
                    .collect::<Vec<_>>()
            };
            match inst.op {
                Op::Label => {
                    if let Some(id) = result {
                        cur = id;
                    }
                }
                Op::Branch | Op::BranchConditional | Op::Switch => {
                    let targets: Vec<String> = match inst.op {
                        Op::Branch => ids(0),
                        Op::BranchConditional => ids(1).into_iter().take(2).collect(),
                        _ => {
                            let mut t = ids(1).into_iter().take(1).collect::<Vec<_>>();
                            let mut i = 3;
                            while i < inst.operands.len() {
                                if let Ok(id) = inst.id(i) {
                                    t.push(id.to_string());
                                }
                                i += 2;
                            }
                            t
                        }
                    };
                    for t in targets {
                        let ps = f.preds.entry(t).or_default();
                        if !ps.contains(&cur) {
                            ps.push(cur.clone());
                        }
                    }
                }
                Op::Variable | Op::FunctionParameter => {
                    if let Some(id) = result {
                        roots.insert(id.clone(), Root::Id(id));
                    }
                }
                Op::AccessChain
                | Op::InBoundsAccessChain
                | Op::PtrAccessChain
                | Op::InBoundsPtrAccessChain
                | Op::CopyObject
                | Op::CopyLogical
                | Op::Bitcast => {
                    if let (Some(id), Ok(base)) = (result, inst.id(1))
                        && let Some(r) = resolve(&roots, base)
                    {
                        roots.insert(id, r);
                    }
                }
                Op::Load => {
                    if let Some(id) = result
                        && is_ptr_type(inst)
                    {
                        roots.insert(id, Root::Any);
                    }
                }
                Op::Name
                | Op::Decorate
                | Op::Line
                | Op::NoLine
                | Op::ArrayLength
                | Op::ImageTexelPointer
                | Op::SelectionMerge => {}
                Op::LoopMerge => {
                    f.headers.insert(cur.clone());
                }
                _ => {
                    if inst.op == Op::FunctionCall {
                        f.kills.calls = true;
                    }
                    let mut any = false;
                    for id in ids(0) {
                        match resolve(&roots, &id) {
                            Some(Root::Id(r)) => {
                                any = true;
                                f.kills.roots.insert(r);
                            }
                            Some(Root::Any) => {
                                any = true;
                                f.kills.all = true;
                            }
                            None => {}
                        }
                    }
                    // A pointer chosen among others (OpSelect, OpPhi of
                    // pointers): its accesses may write any of them.
                    if let Some(id) = result
                        && (any || is_ptr_type(inst))
                        && matches!(inst.op, Op::Select | Op::Phi)
                    {
                        roots.insert(id, Root::Any);
                        f.kills.all = true;
                    }
                }
            }
        }
        f
    }
}

impl Gen<'_> {
    /// The flow of function `fid` (computed once).
    pub(super) fn flow(&mut self, fid: &str) -> Rc<Flow> {
        if let Some(f) = self.flows.get(fid) {
            return f.clone();
        }
        let body = self.m.functions.get(fid).map(|f| f.body.clone());
        let f = Rc::new(match body {
            Some(b) => Flow::of(self.m, &self.insts[b]),
            None => Flow::default(),
        });
        self.flows.insert(fid.to_string(), f.clone());
        f
    }

    /// The knowledge on entering block `id` of `fr`, not its function's
    /// first block: what the edges lowered into it agree on, less what
    /// its function may write when an edge into it is still to come.
    /// `false` when no path of this invocation reaches the block: no edge
    /// into it was lowered, and every predecessor has been lowered, or
    /// the block is a loop header (the blocks of its back edges are
    /// dominated by it: SPIR-V 2.11, "the loop header must dominate the
    /// Continue Target", and "the Continue Target must dominate the
    /// back-edge block"), so nothing reaches them either.
    pub(super) fn enter_known(&mut self, fr: &Frame, flow: &Flow, id: &str) -> bool {
        let edges = self.edge_known.remove(&(fr.call, id.to_string()));
        let all_seen = flow
            .preds
            .get(id)
            .is_none_or(|ps| ps.iter().all(|p| fr.visited.contains(p)));
        let Some(known) = edges else {
            self.known.clear();
            return !(all_seen || flow.headers.contains(id));
        };
        self.known = known;
        if all_seen || self.known.is_empty() {
            return true;
        }
        let k = &flow.kills;
        if k.all {
            self.known.clear();
            return true;
        }
        let mut homes: Vec<Home> = Vec::new();
        for r in &k.roots {
            match fr.vals.get(r).or_else(|| self.globals.get(r)) {
                Some(Val::Ptr(p)) => homes.push(p.home.clone()),
                Some(_) => {}
                // A variable of this function not lowered yet.
                None => homes.push(Home::Regs {
                    var: r.clone(),
                    call: fr.call,
                }),
            }
        }
        if k.calls {
            for v in &self.m.globals {
                homes.push(Home::Regs {
                    var: v.id.clone(),
                    call: 0,
                });
            }
        }
        for h in homes {
            self.forget_home(&h);
        }
        true
    }

    /// Forgets the values of every cell of `home`.
    pub(super) fn forget_home(&mut self, home: &Home) {
        if self.known.is_empty() {
            return;
        }
        if let Some(cells) = self.reg_cells.get(home) {
            for (_, r) in cells {
                self.known.remove(r);
            }
        }
    }

    /// Records the knowledge on an edge from the current block of `fr` to
    /// block (or exit label) `to`: joined with the other edges' so far.
    pub(super) fn note_edge(&mut self, call: usize, to: &str) {
        if self.dead {
            return;
        }
        let key = (call, to.to_string());
        match self.edge_known.get_mut(&key) {
            Some(prev) => prev.retain(|r, v| self.known.get(r) == Some(v)),
            None => {
                let now = self.known.clone();
                self.edge_known.insert(key, now);
            }
        }
    }

    /// After a store of `v` at the constant offset `off` of `home`: the
    /// cells of the scalars `leaves` (offset from `off`, size) take the
    /// values of `v`'s constant leaves.
    pub(super) fn note_store(&mut self, home: &Home, off: i64, leaves: &[(i64, u32)], v: &[Val]) {
        let Some(cells) = self.reg_cells.get(home) else {
            return;
        };
        for ((rel, size), x) in leaves.iter().zip(v) {
            let Val::Int(c) = x else { continue };
            if let Some((_, r)) = cells
                .iter()
                .find(|(cell, _)| cell.offset == off + rel && cell.size == *size)
            {
                self.known.insert(r.clone(), *c);
            }
        }
    }

    /// The value of a load of type `ty` at the constant offset `off` of
    /// `home` when every cell it reads is known.
    pub(super) fn known_value(&self, home: &Home, off: i64, ty: &str) -> Option<Vec<i64>> {
        if self.known.is_empty() {
            return None;
        }
        let cells = self.reg_cells.get(home)?;
        let mut leaves = Vec::new();
        self.m.leaves(ty, 0, &mut leaves).ok()?;
        leaves
            .into_iter()
            .map(|(rel, size)| {
                cells
                    .iter()
                    .find(|(c, _)| c.offset == off + rel && c.size == size)
                    .and_then(|(_, r)| self.known.get(r).copied())
            })
            .collect()
    }
}
