//! A [`Plan`] as a SPIR-V compute shader, built with `rspirv` (no external
//! compiler at run time).
//!
//! One shader runs every instance of a test. Each workgroup reads its
//! *role* (a litmus workgroup, a stress workgroup, or idle) from the `ROLE`
//! buffer, and each invocation its `(instance, litmus thread)` from the
//! `PLACE` buffer: the host ([`super::harness`]) decides the placement, so
//! permuting it each iteration needs no new shader. Locations are words of
//! the `MEM` buffer at the indices `ADDR` gives per instance (memory stride
//! and location shuffling are host decisions too).
//!
//! The memory model operands are as the test writes them:
//!
//! - atomics are `OpAtomic*` with the test's scope and semantics;
//! - "A memory write instruction that includes MakePointerAvailable ...
//!   performs an availability operation whose source scope includes the
//!   agent and reference used to perform the write" (appendix,
//!   Per-Instruction Availability and Visibility Semantics): `st.av.SCOPE`
//!   is `OpStore` with `MakePointerAvailable|NonPrivatePointer` and the
//!   scope, `ld.vis.SCOPE` is `OpLoad` with `MakePointerVisible|NonPrivatePointer`;
//! - "Memory operations with the NonPrivatePointer/NonPrivateTexel bit set
//!   are treated as non-private" (Private vs. Non-Private): a non-private
//!   plain access gets `NonPrivatePointer`, a private one no operand;
//! - barriers are `OpMemoryBarrier` / `OpControlBarrier`, control barriers
//!   emitted where every invocation of the workgroup executes the same
//!   instruction (the code between barriers is a switch on the litmus
//!   thread, the barrier after it is not);
//! - storage classes: StorageBuffer (semantics bit UniformMemory), or
//!   Workgroup memory (WorkgroupMemory) for a class one litmus workgroup
//!   uses alone ([`super::Plan::class_bits`] quotes the appendix).
//!
//! Threads with branches run on their statement index: without a backward
//! jump as a sequence of blocks guarded by it (no loop), with one as a
//! small state machine (a loop over a switch on the statement index),
//! structured as SPIR-V requires for any `goto`, and bounded: after
//! `step_cap` statements the invocation stops and its instance is not
//! counted (a spin loop whose partner never ran, e.g. because workgroups
//! are not scheduled concurrently, must not hang the device).

use super::Plan;
use crate::ir::{ArithOp, Cmp, Instruction, OpKind, Operand, Order, RmwOp, Scope, Stmt};
use rspirv::dr::{Builder, Operand as SpvOperand};
use spirv::{Word, *};
use std::collections::BTreeMap;

/// Role of a stress workgroup.
pub const ROLE_STRESS: u32 = u32::MAX;
/// Role of a workgroup that does nothing.
pub const ROLE_IDLE: u32 = u32::MAX - 1;

/// Descriptor bindings (set 0), all storage buffers of 32-bit words.
pub mod binding {
    /// Test locations of every instance.
    pub const MEM: u32 = 0;
    /// Per (workgroup, position): 0 idle, else `instance * threads + thread + 1`.
    pub const PLACE: u32 = 1;
    /// Per instance, `2 * locations` words: for each location the index of
    /// the instance's copy (in `MEM`, or in the workgroup's shared memory
    /// for Workgroup locations), then for each location the `MEM` word
    /// holding its final value (the same word for StorageBuffer locations).
    pub const ADDR: u32 = 2;
    /// Per instance: the registers (plan order), then one status per thread.
    pub const OUT: u32 = 3;
    /// Per workgroup: its role.
    pub const ROLE: u32 = 4;
    /// Scratch memory the stress workgroups hammer.
    pub const SCRATCH: u32 = 5;
    /// Parameters and counters, indexed by [`super::param`].
    pub const PARAMS: u32 = 6;
    pub const COUNT: u32 = 7;
}

/// Words of the `PARAMS` buffer.
pub mod param {
    /// Iterations of each stress invocation.
    pub const STRESS_ITERATIONS: usize = 0;
    /// Words of scratch memory.
    pub const SCRATCH_WORDS: usize = 1;
    /// Invocations the start barrier waits for (0: no start barrier).
    pub const BARRIER_PARTICIPANTS: usize = 2;
    /// The start barrier's counter.
    pub const SYNC: usize = 3;
    /// The largest and smallest `SubgroupSize` any invocation saw.
    pub const SUBGROUP_SIZE_MAX: usize = 4;
    pub const SUBGROUP_SIZE_MIN: usize = 5;
    /// The most spins of the start barrier.
    pub const SPIN_CAP: usize = 6;
    pub const COUNT: usize = 7;
}

/// Memory barriers every invocation of a litmus workgroup with a looping
/// thread executes after writing its results: switch points that let a
/// spin loop in another subgroup of the workgroup finish on lavapipe
/// (docs/device.md, "Spin loops within one workgroup").
pub const SWITCH_PADDING: u32 = 64;

/// Status of a thread in `OUT`: ran to its end.
pub const STATUS_DONE: u32 = 1;
/// Status of a thread in `OUT`: stopped by the step cap.
pub const STATUS_CUT: u32 = 2;

/// A deliberately wrong translation, for testing that the classification
/// reports forbidden observations (a correct device never shows one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Breakage {
    /// Plain (non-atomic) loads do not read memory: they return the
    /// location's initial value.
    PlainLoadsReadInitial,
}

/// How the shader is built.
#[derive(Clone, Copy, Debug)]
pub struct ShaderOptions {
    /// Invocations per workgroup (`LocalSize`).
    pub workgroup_size: u32,
    /// The most statements a thread with branches or loops executes.
    pub step_cap: u32,
    pub breakage: Option<Breakage>,
}

impl Default for ShaderOptions {
    fn default() -> Self {
        ShaderOptions {
            workgroup_size: 64,
            step_cap: 4096,
            breakage: None,
        }
    }
}

/// Words per instance in `OUT`.
pub fn out_words(plan: &Plan) -> usize {
    plan.registers.len() + plan.threads.len()
}

/// Statement index of each label of a thread's code.
fn label_indices(code: &[Stmt]) -> BTreeMap<&str, u32> {
    code.iter()
        .enumerate()
        .filter_map(|(k, s)| match s {
            Stmt::Label { name, .. } => Some((name.as_str(), k as u32)),
            _ => None,
        })
        .collect()
}

/// Every `goto` and branch of `code` targets a later statement (or a
/// missing label, which ends the thread): the thread has no loop.
pub fn forward_only(code: &[Stmt], labels: &BTreeMap<&str, u32>) -> bool {
    let n = code.len() as u32;
    code.iter().enumerate().all(|(k, s)| match s {
        Stmt::Goto { label, .. } | Stmt::Branch { label, .. } => {
            labels.get(label.as_str()).copied().unwrap_or(n) > k as u32
        }
        _ => true,
    })
}

/// The SPIR-V words of the shader (entry point `main`, SPIR-V 1.5).
pub fn shader(plan: &Plan, options: &ShaderOptions) -> Vec<u32> {
    use rspirv::binary::Assemble;
    Gen::new(plan, *options).build().assemble()
}

/// The SPIR-V module (for disassembly in tests and `--spirv`).
pub fn module(plan: &Plan, options: &ShaderOptions) -> rspirv::dr::Module {
    Gen::new(plan, *options).build()
}

struct Gen<'a> {
    b: Builder,
    plan: &'a Plan,
    opts: ShaderOptions,
    uint: Word,
    boolean: Word,
    ptr_sb: Word,
    ptr_fn: Word,
    ptr_wg: Word,
    /// The Workgroup memory holding Workgroup-class locations (0: none).
    shared: Word,
    buffers: Vec<Word>,
    consts: BTreeMap<u32, Word>,
    regs: BTreeMap<(usize, String), Word>,
    pc: Word,
    steps: Word,
    status: Word,
    counter: Word,
    /// Per location: the word index of the current instance's copy (in
    /// MEM, or in the shared memory for Workgroup locations).
    idx: Vec<Word>,
    /// `instance * 2 * locations`: where the instance's ADDR entries start.
    addr_base: Word,
    instance: Word,
    thread: Word,
    active: Word,
    wg: Word,
    pos: Word,
    device_scope: bool,
}

fn scope_value(s: Scope) -> u32 {
    match s {
        Scope::CrossDevice => 0,
        Scope::Device => 1,
        Scope::Workgroup => 2,
        Scope::Subgroup => 3,
        Scope::Invocation => 4,
        Scope::QueueFamily => 5,
        // refused by the plan
        Scope::FragmentInterlock | Scope::ShaderCall => 1,
    }
}

impl<'a> Gen<'a> {
    fn new(plan: &'a Plan, opts: ShaderOptions) -> Gen<'a> {
        let device_scope = plan.program.threads.iter().any(|t| {
            t.instructions().any(|i| {
                i.scope == Some(Scope::Device)
                    || matches!(
                        i.kind,
                        OpKind::ControlBarrier {
                            execution_scope: Scope::Device,
                            ..
                        }
                    )
            })
        });
        Gen {
            b: Builder::new(),
            plan,
            opts,
            uint: 0,
            boolean: 0,
            ptr_sb: 0,
            ptr_fn: 0,
            ptr_wg: 0,
            shared: 0,
            buffers: Vec::new(),
            consts: BTreeMap::new(),
            regs: BTreeMap::new(),
            pc: 0,
            steps: 0,
            status: 0,
            counter: 0,
            idx: Vec::new(),
            addr_base: 0,
            instance: 0,
            thread: 0,
            active: 0,
            wg: 0,
            pos: 0,
            device_scope,
        }
    }

    fn c(&mut self, v: u32) -> Word {
        if let Some(&w) = self.consts.get(&v) {
            return w;
        }
        let w = self.b.constant_bit32(self.uint, v);
        self.consts.insert(v, w);
        w
    }

    fn elem(&mut self, buffer: u32, index: Word) -> Word {
        let zero = self.c(0);
        self.b
            .access_chain(
                self.ptr_sb,
                None,
                self.buffers[buffer as usize],
                [zero, index],
            )
            .expect("access chain in a block")
    }

    /// The current instance's copy of location `l`.
    fn location(&mut self, l: usize) -> Word {
        if self.plan.location_class[l] == super::VkClass::Workgroup {
            self.b
                .access_chain(self.ptr_wg, None, self.shared, [self.idx[l]])
                .expect("access chain in a block")
        } else {
            self.elem(binding::MEM, self.idx[l])
        }
    }

    /// A workgroup control barrier ordering Workgroup memory, with
    /// availability and visibility (before the test: the initial values;
    /// after it: the final values the leader copies out).
    fn workgroup_fence(&mut self) {
        let wg = self.c(scope_value(Scope::Workgroup));
        // AcquireRelease | WorkgroupMemory | MakeAvailable | MakeVisible
        let sem = self.c(0x8 | super::WORKGROUP_MEMORY | 0x2000 | 0x4000);
        self.b.control_barrier(wg, wg, sem).unwrap();
    }

    fn load_elem(&mut self, buffer: u32, index: Word) -> Word {
        let p = self.elem(buffer, index);
        self.b.load(self.uint, None, p, None, []).expect("load")
    }

    fn param(&mut self, k: usize) -> Word {
        let i = self.c(k as u32);
        self.load_elem(binding::PARAMS, i)
    }

    fn build(mut self) -> rspirv::dr::Module {
        self.b.set_version(1, 5);
        self.b.capability(Capability::Shader);
        self.b.capability(Capability::VulkanMemoryModel);
        self.b.capability(Capability::GroupNonUniform);
        if self.device_scope {
            self.b.capability(Capability::VulkanMemoryModelDeviceScope);
        }
        self.b
            .memory_model(AddressingModel::Logical, MemoryModel::Vulkan);
        let void = self.b.type_void();
        self.uint = self.b.type_int(32, 0);
        self.boolean = self.b.type_bool();
        let uvec3 = self.b.type_vector(self.uint, 3);
        let rta = self.b.type_runtime_array(self.uint);
        self.b
            .decorate(rta, Decoration::ArrayStride, [SpvOperand::LiteralBit32(4)]);
        let block = self.b.type_struct([rta]);
        self.b.decorate(block, Decoration::Block, []);
        self.b
            .member_decorate(block, 0, Decoration::Offset, [SpvOperand::LiteralBit32(0)]);
        let ptr_block = self
            .b
            .type_pointer(None, StorageClass::StorageBuffer, block);
        self.ptr_sb = self
            .b
            .type_pointer(None, StorageClass::StorageBuffer, self.uint);
        self.ptr_fn = self.b.type_pointer(None, StorageClass::Function, self.uint);
        let mut interface = Vec::new();
        for i in 0..binding::COUNT {
            let v = self
                .b
                .variable(ptr_block, None, StorageClass::StorageBuffer, None);
            self.b
                .decorate(v, Decoration::DescriptorSet, [SpvOperand::LiteralBit32(0)]);
            self.b
                .decorate(v, Decoration::Binding, [SpvOperand::LiteralBit32(i)]);
            self.buffers.push(v);
            interface.push(v);
        }
        let ptr_in_uvec3 = self.b.type_pointer(None, StorageClass::Input, uvec3);
        let ptr_in_uint = self.b.type_pointer(None, StorageClass::Input, self.uint);
        let builtin = |b: &mut Builder, ty: Word, which: BuiltIn| {
            let v = b.variable(ty, None, StorageClass::Input, None);
            b.decorate(v, Decoration::BuiltIn, [SpvOperand::BuiltIn(which)]);
            v
        };
        let wg_id = builtin(&mut self.b, ptr_in_uvec3, BuiltIn::WorkgroupId);
        let local = builtin(&mut self.b, ptr_in_uint, BuiltIn::LocalInvocationIndex);
        let sg_id = builtin(&mut self.b, ptr_in_uint, BuiltIn::SubgroupId);
        let sg_lane = builtin(&mut self.b, ptr_in_uint, BuiltIn::SubgroupLocalInvocationId);
        let sg_size = builtin(&mut self.b, ptr_in_uint, BuiltIn::SubgroupSize);
        interface.extend([wg_id, local, sg_id, sg_lane, sg_size]);
        let words = self.plan.workgroup_words(self.opts.workgroup_size);
        if words > 0 {
            let n = self.c(words);
            let arr = self.b.type_array(self.uint, n);
            let ptr_arr = self.b.type_pointer(None, StorageClass::Workgroup, arr);
            self.ptr_wg = self
                .b
                .type_pointer(None, StorageClass::Workgroup, self.uint);
            self.shared = self
                .b
                .variable(ptr_arr, None, StorageClass::Workgroup, None);
            interface.push(self.shared);
        }

        let fn_ty = self.b.type_function(void, []);
        let main = self
            .b
            .begin_function(void, None, FunctionControl::NONE, fn_ty)
            .expect("function");
        self.b.begin_block(None).expect("entry block");
        // Function variables first (SPIR-V: at the start of the entry block).
        let plan = self.plan;
        for (ti, t) in plan.program.threads.iter().enumerate() {
            let mut names: Vec<&String> = t.registers.iter().map(|(r, _)| r).collect();
            for st in &t.code {
                match st {
                    Stmt::Op(i) => names.extend(&i.dest),
                    Stmt::Assign { dest, .. } => names.push(dest),
                    _ => {}
                }
            }
            for r in names {
                if self.regs.contains_key(&(ti, r.clone())) {
                    continue;
                }
                let init = t
                    .registers
                    .iter()
                    .find(|(n, _)| n == r)
                    .map_or(0, |(_, v)| *v as u32);
                let init = self.c(init);
                let var = self
                    .b
                    .variable(self.ptr_fn, None, StorageClass::Function, Some(init));
                self.regs.insert((ti, r.clone()), var);
            }
        }
        let zero = self.c(0);
        let one = self.c(STATUS_DONE);
        self.pc = self
            .b
            .variable(self.ptr_fn, None, StorageClass::Function, Some(zero));
        self.steps = self
            .b
            .variable(self.ptr_fn, None, StorageClass::Function, Some(zero));
        self.status = self
            .b
            .variable(self.ptr_fn, None, StorageClass::Function, Some(one));
        self.counter = self
            .b
            .variable(self.ptr_fn, None, StorageClass::Function, Some(zero));

        // Where this invocation is.
        let wgv = self.b.load(uvec3, None, wg_id, None, []).unwrap();
        self.wg = self.b.composite_extract(self.uint, None, wgv, [0]).unwrap();
        let size = self.b.load(self.uint, None, sg_size, None, []).unwrap();
        let k_max = self.c(param::SUBGROUP_SIZE_MAX as u32);
        let k_min = self.c(param::SUBGROUP_SIZE_MIN as u32);
        let qf = self.c(scope_value(Scope::QueueFamily));
        let relaxed = self.c(0);
        let p = self.elem(binding::PARAMS, k_max);
        self.b
            .atomic_u_max(self.uint, None, p, qf, relaxed, size)
            .unwrap();
        let p = self.elem(binding::PARAMS, k_min);
        self.b
            .atomic_u_min(self.uint, None, p, qf, relaxed, size)
            .unwrap();
        self.pos = if plan.needs_subgroups {
            let sid = self.b.load(self.uint, None, sg_id, None, []).unwrap();
            let lane = self.b.load(self.uint, None, sg_lane, None, []).unwrap();
            let base = self.b.i_mul(self.uint, None, sid, size).unwrap();
            self.b.i_add(self.uint, None, base, lane).unwrap()
        } else {
            self.b.load(self.uint, None, local, None, []).unwrap()
        };
        let s = self.c(self.opts.workgroup_size);
        let in_range = self.b.u_less_than(self.boolean, None, self.pos, s).unwrap();
        let row = self.b.i_mul(self.uint, None, self.wg, s).unwrap();
        let at = self.b.i_add(self.uint, None, row, self.pos).unwrap();
        let at = self.b.select(self.uint, None, in_range, at, zero).unwrap();
        let enc = self.load_elem(binding::PLACE, at);
        let enc = self.b.select(self.uint, None, in_range, enc, zero).unwrap();
        self.active = self.b.i_not_equal(self.boolean, None, enc, zero).unwrap();
        let one_c = self.c(1);
        let slot = self.b.i_sub(self.uint, None, enc, one_c).unwrap();
        let nt = self.c(plan.threads.len() as u32);
        let inst = self.b.u_div(self.uint, None, slot, nt).unwrap();
        let th = self.b.u_mod(self.uint, None, slot, nt).unwrap();
        let none = self.c(u32::MAX);
        self.instance = self
            .b
            .select(self.uint, None, self.active, inst, zero)
            .unwrap();
        self.thread = self
            .b
            .select(self.uint, None, self.active, th, none)
            .unwrap();
        let nl = self.c(2 * plan.program.locations.len() as u32);
        let base = self.b.i_mul(self.uint, None, self.instance, nl).unwrap();
        self.addr_base = base;
        for l in 0..plan.program.locations.len() {
            let lc = self.c(l as u32);
            let a = self.b.i_add(self.uint, None, base, lc).unwrap();
            let w = self.load_elem(binding::ADDR, a);
            self.idx.push(w);
        }
        let role = self.load_elem(binding::ROLE, self.wg);

        // switch (role)
        let merge = self.b.id();
        let stress = self.b.id();
        let role_labels: Vec<Word> = plan.roles.iter().map(|_| self.b.id()).collect();
        let mut targets = vec![(SpvOperand::LiteralBit32(ROLE_STRESS), stress)];
        for (g, l) in role_labels.iter().enumerate() {
            targets.push((SpvOperand::LiteralBit32(g as u32), *l));
        }
        self.b
            .selection_merge(merge, SelectionControl::NONE)
            .unwrap();
        self.b.switch(role, merge, targets).unwrap();
        self.b.begin_block(Some(stress)).unwrap();
        self.stress();
        self.b.branch(merge).unwrap();
        for (g, l) in role_labels.iter().enumerate() {
            self.b.begin_block(Some(*l)).unwrap();
            self.role(g);
            self.b.branch(merge).unwrap();
        }
        self.b.begin_block(Some(merge)).unwrap();
        self.b.ret().unwrap();
        self.b.end_function().unwrap();
        self.b
            .entry_point(ExecutionModel::GLCompute, main, "main", interface);
        self.b.execution_mode(
            main,
            ExecutionMode::LocalSize,
            [self.opts.workgroup_size, 1, 1],
        );
        std::mem::replace(&mut self.b, Builder::new()).module()
    }

    /// `if (cond) { body }`.
    fn if_then(&mut self, cond: Word, body: impl FnOnce(&mut Self)) {
        let then = self.b.id();
        let merge = self.b.id();
        self.b
            .selection_merge(merge, SelectionControl::NONE)
            .unwrap();
        self.b.branch_conditional(cond, then, merge, []).unwrap();
        self.b.begin_block(Some(then)).unwrap();
        body(self);
        self.b.branch(merge).unwrap();
        self.b.begin_block(Some(merge)).unwrap();
    }

    /// `while (cond()) { body }`.
    fn while_loop(&mut self, cond: impl FnOnce(&mut Self) -> Word, body: impl FnOnce(&mut Self)) {
        let header = self.b.id();
        let check = self.b.id();
        let body_l = self.b.id();
        let cont = self.b.id();
        let merge = self.b.id();
        self.b.branch(header).unwrap();
        self.b.begin_block(Some(header)).unwrap();
        self.b
            .loop_merge(merge, cont, LoopControl::NONE, [])
            .unwrap();
        self.b.branch(check).unwrap();
        self.b.begin_block(Some(check)).unwrap();
        let c = cond(self);
        self.b.branch_conditional(c, body_l, merge, []).unwrap();
        self.b.begin_block(Some(body_l)).unwrap();
        body(self);
        self.b.branch(cont).unwrap();
        self.b.begin_block(Some(cont)).unwrap();
        self.b.branch(header).unwrap();
        self.b.begin_block(Some(merge)).unwrap();
    }

    /// A stress invocation: relaxed atomic stores and loads to scratch
    /// words (atomics, so the stress itself is race-free).
    fn stress(&mut self) {
        let zero = self.c(0);
        self.b.store(self.counter, zero, None, []).unwrap();
        let iters = self.param(param::STRESS_ITERATIONS);
        let words = self.param(param::SCRATCH_WORDS);
        let counter = self.counter;
        self.while_loop(
            |g| {
                let i = g.b.load(g.uint, None, counter, None, []).unwrap();
                g.b.u_less_than(g.boolean, None, i, iters).unwrap()
            },
            |g| {
                let i = g.b.load(g.uint, None, counter, None, []).unwrap();
                let (k1, k2, k3) = (g.c(977), g.c(31), g.c(61));
                let a = g.b.i_mul(g.uint, None, g.wg, k1).unwrap();
                let p = g.b.i_mul(g.uint, None, g.pos, k2).unwrap();
                let q = g.b.i_mul(g.uint, None, i, k3).unwrap();
                let a = g.b.i_add(g.uint, None, a, p).unwrap();
                let a = g.b.i_add(g.uint, None, a, q).unwrap();
                let a = g.b.u_mod(g.uint, None, a, words).unwrap();
                let qf = g.c(scope_value(Scope::QueueFamily));
                let relaxed = g.c(0);
                let ptr = g.elem(binding::SCRATCH, a);
                g.b.atomic_store(ptr, qf, relaxed, i).unwrap();
                let seven = g.c(7);
                let b2 = g.b.i_add(g.uint, None, a, seven).unwrap();
                let b2 = g.b.u_mod(g.uint, None, b2, words).unwrap();
                let ptr = g.elem(binding::SCRATCH, b2);
                g.b.atomic_load(g.uint, None, ptr, qf, relaxed).unwrap();
                let one = g.c(1);
                let n = g.b.i_add(g.uint, None, i, one).unwrap();
                g.b.store(counter, n, None, []).unwrap();
            },
        );
    }

    /// The code of role `g`: start barrier, segments between its control
    /// barriers, results.
    fn role(&mut self, g: usize) {
        let plan = self.plan;
        // Workgroup locations: the role's first thread writes each
        // instance's initial values, a barrier publishes them.
        let shared_locs = plan.workgroup_locations(g);
        let leader = (0..plan.threads.len()).find(|&t| plan.threads[t].role == g);
        if !shared_locs.is_empty()
            && let Some(leader) = leader
        {
            let lc = self.c(leader as u32);
            let is_leader = self.b.i_equal(self.boolean, None, self.thread, lc).unwrap();
            self.if_then(is_leader, |s| {
                for &l in &shared_locs {
                    let v = s.c(plan.program.initial_value(l) as u32);
                    let p = s.location(l);
                    s.b.store(p, v, Some(MemoryAccess::NON_PRIVATE_POINTER), [])
                        .unwrap();
                }
            });
            self.workgroup_fence();
        }
        // Start barrier: active invocations count in, then spin (bounded).
        let participants = self.param(param::BARRIER_PARTICIPANTS);
        let zero = self.c(0);
        let wanted = self
            .b
            .i_not_equal(self.boolean, None, participants, zero)
            .unwrap();
        let cond = self
            .b
            .logical_and(self.boolean, None, wanted, self.active)
            .unwrap();
        self.if_then(cond, |s| {
            let qf = s.c(scope_value(Scope::QueueFamily));
            let relaxed = s.c(0);
            let one = s.c(1);
            let k = s.c(param::SYNC as u32);
            let ptr = s.elem(binding::PARAMS, k);
            s.b.atomic_i_add(s.uint, None, ptr, qf, relaxed, one)
                .unwrap();
            let cap = s.param(param::SPIN_CAP);
            let zero = s.c(0);
            s.b.store(s.counter, zero, None, []).unwrap();
            let counter = s.counter;
            s.while_loop(
                |s| {
                    let ptr = s.elem(binding::PARAMS, k);
                    let n = s.b.atomic_load(s.uint, None, ptr, qf, relaxed).unwrap();
                    let waiting = s.b.u_less_than(s.boolean, None, n, participants).unwrap();
                    let i = s.b.load(s.uint, None, counter, None, []).unwrap();
                    let more = s.b.u_less_than(s.boolean, None, i, cap).unwrap();
                    s.b.logical_and(s.boolean, None, waiting, more).unwrap()
                },
                |s| {
                    let i = s.b.load(s.uint, None, counter, None, []).unwrap();
                    let one = s.c(1);
                    let n = s.b.i_add(s.uint, None, i, one).unwrap();
                    s.b.store(counter, n, None, []).unwrap();
                },
            );
        });
        let mine: Vec<usize> = (0..plan.threads.len())
            .filter(|&t| plan.threads[t].role == g)
            .collect();
        let barriers = plan.roles[g].barriers.clone();
        for k in 0..=barriers.len() {
            self.thread_switch(&mine, |s, t| s.segment(t, k));
            if let Some(bar) = barriers.get(k) {
                let exec = self.c(scope_value(bar.execution_scope));
                let mem = self.c(scope_value(bar.memory_scope));
                let sem = self.c(self.plan.semantics_bits(&bar.semantics));
                self.b.control_barrier(exec, mem, sem).unwrap();
            }
        }
        // Workgroup locations: after a barrier, the leader copies each
        // instance's final values to MEM, where the host reads them.
        if !shared_locs.is_empty()
            && let Some(leader) = leader
        {
            self.workgroup_fence();
            let lc = self.c(leader as u32);
            let is_leader = self.b.i_equal(self.boolean, None, self.thread, lc).unwrap();
            let nl = plan.program.locations.len() as u32;
            self.if_then(is_leader, |s| {
                for &l in &shared_locs {
                    let p = s.location(l);
                    let v =
                        s.b.load(s.uint, None, p, Some(MemoryAccess::NON_PRIVATE_POINTER), [])
                            .unwrap();
                    let k = s.c(nl + l as u32);
                    let a = s.b.i_add(s.uint, None, s.addr_base, k).unwrap();
                    let word = s.load_elem(binding::ADDR, a);
                    let out = s.elem(binding::MEM, word);
                    s.b.store(out, v, None, []).unwrap();
                }
            });
        }
        // Results.
        let ow = out_words(plan) as u32;
        let nregs = plan.registers.len() as u32;
        self.thread_switch(&mine, |s, t| {
            let owc = s.c(ow);
            let base = s.b.i_mul(s.uint, None, s.instance, owc).unwrap();
            for (slot, (rt, r)) in plan.registers.iter().enumerate() {
                if *rt != t {
                    continue;
                }
                let var = s.regs[&(t, r.clone())];
                let v = s.b.load(s.uint, None, var, None, []).unwrap();
                let sc = s.c(slot as u32);
                let a = s.b.i_add(s.uint, None, base, sc).unwrap();
                let p = s.elem(binding::OUT, a);
                s.b.store(p, v, None, []).unwrap();
            }
            let st = s.b.load(s.uint, None, s.status, None, []).unwrap();
            let sc = s.c(nregs + t as u32);
            let a = s.b.i_add(s.uint, None, base, sc).unwrap();
            let p = s.elem(binding::OUT, a);
            s.b.store(p, st, None, []).unwrap();
        });
        // Lavapipe runs a workgroup's subgroups as coroutines that switch
        // at memory barriers and ends the workgroup one round after the
        // first subgroup finished: a spin loop waiting on another subgroup
        // needs the others to pass switch points until it is done
        // (docs/device.md, "Spin loops within one workgroup"). After the
        // results, so the test's outcomes do not depend on it.
        let loops = mine.iter().any(|&t| {
            let code = &plan.program.threads[t].code;
            !forward_only(code, &label_indices(code))
        });
        if loops {
            let zero = self.c(0);
            self.b.store(self.counter, zero, None, []).unwrap();
            let counter = self.counter;
            self.while_loop(
                |s| {
                    let i = s.b.load(s.uint, None, counter, None, []).unwrap();
                    let k = s.c(SWITCH_PADDING);
                    s.b.u_less_than(s.boolean, None, i, k).unwrap()
                },
                |s| {
                    let wg = s.c(scope_value(Scope::Workgroup));
                    let sem = (MemorySemantics::ACQUIRE_RELEASE
                        | MemorySemantics::WORKGROUP_MEMORY)
                        .bits();
                    let sem = s.c(sem);
                    s.b.memory_barrier(wg, sem).unwrap();
                    let i = s.b.load(s.uint, None, counter, None, []).unwrap();
                    let one = s.c(1);
                    let n = s.b.i_add(s.uint, None, i, one).unwrap();
                    s.b.store(counter, n, None, []).unwrap();
                },
            );
        }
    }

    /// `switch (thread) { case t: body(t) }` over `threads`.
    fn thread_switch(&mut self, threads: &[usize], mut body: impl FnMut(&mut Self, usize)) {
        let merge = self.b.id();
        let labels: Vec<Word> = threads.iter().map(|_| self.b.id()).collect();
        let targets: Vec<(SpvOperand, Word)> = threads
            .iter()
            .zip(&labels)
            .map(|(t, l)| (SpvOperand::LiteralBit32(*t as u32), *l))
            .collect();
        self.b
            .selection_merge(merge, SelectionControl::NONE)
            .unwrap();
        self.b.switch(self.thread, merge, targets).unwrap();
        for (t, l) in threads.iter().zip(&labels) {
            self.b.begin_block(Some(*l)).unwrap();
            body(self, *t);
            self.b.branch(merge).unwrap();
        }
        self.b.begin_block(Some(merge)).unwrap();
    }

    /// Segment `k` of thread `t`: its statements between its `k`-th and
    /// `k+1`-th control barrier (threads with branches have one segment).
    fn segment(&mut self, t: usize, k: usize) {
        let thread = &self.plan.program.threads[t];
        if !thread.is_straight_line() {
            if k == 0 {
                self.state_machine(t);
            }
            return;
        }
        let mut seg = 0;
        for s in &thread.code {
            let Stmt::Op(i) = s else { continue };
            if matches!(i.kind, OpKind::ControlBarrier { .. }) {
                seg += 1;
                continue;
            }
            if seg == k {
                self.op(t, i);
            }
        }
    }

    /// A thread with branches. Without a backward jump (an `if`: every
    /// `goto` and branch targets a later statement), a sequence of guarded
    /// blocks, `if (pc == k) { statement k; pc = next }` for k = 0, 1, ...:
    /// no loop, so no step cap, and every invocation of the workgroup runs
    /// the same instructions (lavapipe needs that; docs/device.md,
    /// "Lavapipe and threads with branches"). With a backward jump (a loop),
    /// `while (pc < n && steps < cap) { switch (pc) ... }`.
    fn state_machine(&mut self, t: usize) {
        let code = &self.plan.program.threads[t].code;
        let labels = label_indices(code);
        let n = code.len() as u32;
        if forward_only(code, &labels) {
            let zero = self.c(0);
            let pc = self.pc;
            self.b.store(pc, zero, None, []).unwrap();
            for (k, stmt) in code.iter().enumerate() {
                let p = self.b.load(self.uint, None, pc, None, []).unwrap();
                let kc = self.c(k as u32);
                let here = self.b.i_equal(self.boolean, None, p, kc).unwrap();
                self.if_then(here, |s| {
                    let target = s.statement(t, k, stmt, &labels, n);
                    s.b.store(pc, target, None, []).unwrap();
                });
            }
            let d = self.c(STATUS_DONE);
            self.b.store(self.status, d, None, []).unwrap();
            return;
        }
        self.loop_machine(t);
    }

    /// Statement `k` of thread `t` in a state machine: its effect, and the
    /// next statement index (a label's index, `n` for a missing label).
    fn statement(
        &mut self,
        t: usize,
        k: usize,
        stmt: &Stmt,
        labels: &BTreeMap<&str, u32>,
        n: u32,
    ) -> Word {
        let next = self.c(k as u32 + 1);
        match stmt {
            Stmt::Op(i) => {
                self.op(t, i);
                next
            }
            Stmt::Label { .. } => next,
            Stmt::Goto { label, .. } => self.c(labels.get(label.as_str()).copied().unwrap_or(n)),
            Stmt::Branch {
                cmp, a, b, label, ..
            } => {
                let a = self.operand(t, a);
                let b = self.operand(t, b);
                let cond = self.compare(*cmp, a, b);
                let to = self.c(labels.get(label.as_str()).copied().unwrap_or(n));
                self.b.select(self.uint, None, cond, to, next).unwrap()
            }
            Stmt::Assign { dest, op, a, b, .. } => {
                let a = self.operand(t, a);
                let b = self.operand(t, b);
                let v = self.arith(*op, a, b);
                let var = self.regs[&(t, dest.clone())];
                self.b.store(var, v, None, []).unwrap();
                next
            }
        }
    }

    /// A thread with a loop: `while (pc < n && steps < cap) { switch (pc) ... }`.
    fn loop_machine(&mut self, t: usize) {
        let code = &self.plan.program.threads[t].code;
        let n = code.len() as u32;
        let labels = label_indices(code);
        let zero = self.c(0);
        self.b.store(self.pc, zero, None, []).unwrap();
        self.b.store(self.steps, zero, None, []).unwrap();
        let (pc, steps) = (self.pc, self.steps);
        let cap = self.opts.step_cap;
        self.while_loop(
            |s| {
                let p = s.b.load(s.uint, None, pc, None, []).unwrap();
                let nc = s.c(n);
                let more = s.b.u_less_than(s.boolean, None, p, nc).unwrap();
                let st = s.b.load(s.uint, None, steps, None, []).unwrap();
                let capc = s.c(cap);
                let room = s.b.u_less_than(s.boolean, None, st, capc).unwrap();
                s.b.logical_and(s.boolean, None, more, room).unwrap()
            },
            |s| {
                let p = s.b.load(s.uint, None, pc, None, []).unwrap();
                let merge = s.b.id();
                let case_labels: Vec<Word> = code.iter().map(|_| s.b.id()).collect();
                let targets: Vec<(SpvOperand, Word)> = case_labels
                    .iter()
                    .enumerate()
                    .map(|(k, l)| (SpvOperand::LiteralBit32(k as u32), *l))
                    .collect();
                s.b.selection_merge(merge, SelectionControl::NONE).unwrap();
                s.b.switch(p, merge, targets).unwrap();
                for (k, stmt) in code.iter().enumerate() {
                    s.b.begin_block(Some(case_labels[k])).unwrap();
                    let target = s.statement(t, k, stmt, &labels, n);
                    s.b.store(pc, target, None, []).unwrap();
                    s.b.branch(merge).unwrap();
                }
                s.b.begin_block(Some(merge)).unwrap();
                let st = s.b.load(s.uint, None, steps, None, []).unwrap();
                let one = s.c(1);
                let st = s.b.i_add(s.uint, None, st, one).unwrap();
                s.b.store(steps, st, None, []).unwrap();
            },
        );
        // Cut by the cap: the instance is not counted.
        let p = self.b.load(self.uint, None, pc, None, []).unwrap();
        let nc = self.c(n);
        let done = self
            .b
            .u_greater_than_equal(self.boolean, None, p, nc)
            .unwrap();
        let (d, c) = (self.c(STATUS_DONE), self.c(STATUS_CUT));
        let st = self.b.select(self.uint, None, done, d, c).unwrap();
        self.b.store(self.status, st, None, []).unwrap();
    }

    fn operand(&mut self, t: usize, o: &Operand) -> Word {
        match o {
            Operand::Const(v) => self.c(*v as u32),
            Operand::Reg(r) => match self.regs.get(&(t, r.clone())) {
                Some(&var) => self.b.load(self.uint, None, var, None, []).unwrap(),
                // A register never written nor initialised reads 0.
                None => self.c(0),
            },
        }
    }

    fn compare(&mut self, cmp: Cmp, a: Word, b: Word) -> Word {
        let (bt, b_) = (self.boolean, &mut self.b);
        match cmp {
            Cmp::Eq => b_.i_equal(bt, None, a, b),
            Cmp::Ne => b_.i_not_equal(bt, None, a, b),
            Cmp::Lt => b_.s_less_than(bt, None, a, b),
            Cmp::Le => b_.s_less_than_equal(bt, None, a, b),
            Cmp::Gt => b_.s_greater_than(bt, None, a, b),
            Cmp::Ge => b_.s_greater_than_equal(bt, None, a, b),
        }
        .unwrap()
    }

    /// Local arithmetic; where SPIR-V leaves a result undefined (division by
    /// zero, shifts of 32 or more) the value vkmm's IR gives is selected.
    fn arith(&mut self, op: ArithOp, a: Word, b: Word) -> Word {
        let u = self.uint;
        let zero = self.c(0);
        let k32 = self.c(32);
        let k31 = self.c(31);
        let bt = self.boolean;
        match op {
            ArithOp::Add => self.b.i_add(u, None, a, b).unwrap(),
            ArithOp::Sub => self.b.i_sub(u, None, a, b).unwrap(),
            ArithOp::Mul => self.b.i_mul(u, None, a, b).unwrap(),
            ArithOp::And => self.b.bitwise_and(u, None, a, b).unwrap(),
            ArithOp::Or => self.b.bitwise_or(u, None, a, b).unwrap(),
            ArithOp::Xor => self.b.bitwise_xor(u, None, a, b).unwrap(),
            ArithOp::Shl => {
                let ok = self.b.u_less_than(bt, None, b, k32).unwrap();
                let sb = self.b.select(u, None, ok, b, zero).unwrap();
                let v = self.b.shift_left_logical(u, None, a, sb).unwrap();
                self.b.select(u, None, ok, v, zero).unwrap()
            }
            ArithOp::Shr => {
                let ok = self.b.u_less_than(bt, None, b, k32).unwrap();
                let sb = self.b.select(u, None, ok, b, k31).unwrap();
                self.b.shift_right_arithmetic(u, None, a, sb).unwrap()
            }
            ArithOp::Div | ArithOp::Rem | ArithOp::Mod => {
                let nz = self.b.i_not_equal(bt, None, b, zero).unwrap();
                let one = self.c(1);
                let safe = self.b.select(u, None, nz, b, one).unwrap();
                let v = match op {
                    ArithOp::Div => self.b.s_div(u, None, a, safe).unwrap(),
                    ArithOp::Rem => self.b.s_rem(u, None, a, safe).unwrap(),
                    _ => self.b.s_mod(u, None, a, safe).unwrap(),
                };
                self.b.select(u, None, nz, v, zero).unwrap()
            }
            // `check_expressible` refuses programs with these before a
            // shader is built; the value is never used.
            ArithOp::Num(_) => zero,
        }
    }

    fn set_dest(&mut self, t: usize, i: &Instruction, v: Word) {
        if let Some(d) = &i.dest {
            let var = self.regs[&(t, d.clone())];
            self.b.store(var, v, None, []).unwrap();
        }
    }

    /// One memory operation or memory barrier of thread `t`.
    fn op(&mut self, t: usize, i: &Instruction) {
        let scope = i.scope.map(|s| self.c(scope_value(s)));
        let sem_bits = self.plan.semantics_bits(&i.semantics);
        match &i.kind {
            OpKind::MemoryBarrier => {
                // A barrier without ordering orders nothing; Vulkan's SPIR-V
                // environment requires OpMemoryBarrier to have one.
                if i.semantics.order != Order::Relaxed {
                    let sem = self.c(sem_bits);
                    self.b.memory_barrier(scope.unwrap(), sem).unwrap();
                }
                return;
            }
            OpKind::Load | OpKind::Store | OpKind::Rmw => {}
            // Refused by the plan (API-level) or placed by `role`.
            _ => return,
        }
        let Some(loc) = self.plan.program.location_of(i) else {
            return;
        };
        let ptr = self.location(loc);
        let sem = self.c(sem_bits);
        match i.kind {
            OpKind::Load => {
                let v = if i.atomic {
                    self.b
                        .atomic_load(self.uint, None, ptr, scope.unwrap(), sem)
                        .unwrap()
                } else if self.opts.breakage == Some(Breakage::PlainLoadsReadInitial) {
                    self.c(self.plan.program.initial_value(loc) as u32)
                } else if i.make_pointer_visible {
                    let ops =
                        MemoryAccess::MAKE_POINTER_VISIBLE | MemoryAccess::NON_PRIVATE_POINTER;
                    self.b
                        .load(
                            self.uint,
                            None,
                            ptr,
                            Some(ops),
                            [SpvOperand::IdScope(scope.unwrap())],
                        )
                        .unwrap()
                } else if i.non_private {
                    self.b
                        .load(
                            self.uint,
                            None,
                            ptr,
                            Some(MemoryAccess::NON_PRIVATE_POINTER),
                            [],
                        )
                        .unwrap()
                } else {
                    self.b.load(self.uint, None, ptr, None, []).unwrap()
                };
                self.set_dest(t, i, v);
            }
            OpKind::Store => {
                let v = match &i.operand {
                    Some(o) => self.operand(t, o),
                    None => self.c(i.write_value.unwrap_or(0) as u32),
                };
                if i.atomic {
                    self.b.atomic_store(ptr, scope.unwrap(), sem, v).unwrap();
                } else if i.make_pointer_available {
                    let ops =
                        MemoryAccess::MAKE_POINTER_AVAILABLE | MemoryAccess::NON_PRIVATE_POINTER;
                    self.b
                        .store(ptr, v, Some(ops), [SpvOperand::IdScope(scope.unwrap())])
                        .unwrap();
                } else if i.non_private {
                    self.b
                        .store(ptr, v, Some(MemoryAccess::NON_PRIVATE_POINTER), [])
                        .unwrap();
                } else {
                    self.b.store(ptr, v, None, []).unwrap();
                }
            }
            OpKind::Rmw => {
                let v = match &i.operand {
                    Some(o) => self.operand(t, o),
                    None => self.c(i.write_value.unwrap_or(0) as u32),
                };
                let sc = scope.unwrap();
                let u = self.uint;
                let old = match i.rmw_op {
                    RmwOp::Exchange => self.b.atomic_exchange(u, None, ptr, sc, sem, v),
                    RmwOp::Add => self.b.atomic_i_add(u, None, ptr, sc, sem, v),
                    RmwOp::Sub => self.b.atomic_i_sub(u, None, ptr, sc, sem, v),
                    RmwOp::And => self.b.atomic_and(u, None, ptr, sc, sem, v),
                    RmwOp::Or => self.b.atomic_or(u, None, ptr, sc, sem, v),
                    RmwOp::Xor => self.b.atomic_xor(u, None, ptr, sc, sem, v),
                    RmwOp::Min => self.b.atomic_s_min(u, None, ptr, sc, sem, v),
                    RmwOp::Max => self.b.atomic_s_max(u, None, ptr, sc, sem, v),
                    RmwOp::UMin => self.b.atomic_u_min(u, None, ptr, sc, sem, v),
                    RmwOp::UMax => self.b.atomic_u_max(u, None, ptr, sc, sem, v),
                    // Refused by `check_instruction` before a shader is built.
                    RmwOp::FAdd | RmwOp::FMin | RmwOp::FMax => Ok(v),
                    RmwOp::CompareExchange => {
                        let cmp = match &i.expected {
                            Some(o) => self.operand(t, o),
                            None => self.c(0),
                        };
                        // The failure is a load: no Release, no MakeAvailable.
                        let mut fail = i
                            .failure_semantics
                            .clone()
                            .unwrap_or_else(|| i.semantics.clone());
                        fail.order = if fail.order.is_acquire() {
                            Order::Acquire
                        } else {
                            Order::Relaxed
                        };
                        fail.make_available = false;
                        let fail = self.plan.semantics_bits(&fail);
                        let fail = self.c(fail);
                        self.b
                            .atomic_compare_exchange(u, None, ptr, sc, sem, fail, v, cmp)
                    }
                }
                .unwrap();
                self.set_dest(t, i, old);
            }
            _ => {}
        }
    }
}
