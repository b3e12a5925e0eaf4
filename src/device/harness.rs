//! The testing harness, in the style of GPUHarbor (Levine et al., "MC
//! Mutants", ASPLOS 2023): many instances of a test per dispatch, each
//! litmus workgroup's threads in a real workgroup of its own (so partners
//! that the test puts in different workgroups are in different workgroups),
//! placement permuted every iteration, test locations spread by a memory
//! stride and shuffled, optional stress workgroups hammering scratch memory
//! and a spin barrier aligning the start of the testing invocations.
//!
//! Everything here is host-side arithmetic: it decides the contents of the
//! `PLACE`, `ADDR` and `ROLE` buffers of [`super::spirv`] and reads the
//! observed final states back out of `OUT` and `MEM`.

use super::spirv::{ROLE_IDLE, ROLE_STRESS, STATUS_DONE, out_words};
use super::{Plan, Reason, Unsupported};
use crate::analysis::litmus::FinalState;

/// A parameter preset (`--preset`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Preset {
    /// Instances in order, no stress, no stride, no shuffling, no barrier.
    None,
    /// Shuffled placement and memory, a stride, a few stress workgroups.
    Light,
    /// All of it: wider stride, many stress workgroups, the start barrier.
    Heavy,
}

impl std::str::FromStr for Preset {
    type Err = String;
    fn from_str(s: &str) -> Result<Preset, String> {
        match s {
            "none" => Ok(Preset::None),
            "light" => Ok(Preset::Light),
            "heavy" => Ok(Preset::Heavy),
            _ => Err(format!("expected none, light or heavy, found `{s}`")),
        }
    }
}

/// The parameters of a run (JSON: `parameters`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Params {
    pub preset: Preset,
    /// Invocations per workgroup.
    pub workgroup_size: u32,
    /// Real workgroups per litmus workgroup (each hosts many instances).
    pub testing_workgroups: u32,
    /// Workgroups that only stress memory.
    pub stress_workgroups: u32,
    /// Loop iterations of each stress invocation.
    pub stress_iterations: u32,
    /// Words of scratch memory for the stress workgroups.
    pub scratch_words: u32,
    /// Words between consecutive test locations.
    pub mem_stride: u32,
    /// Permute instance placement, workgroup roles and locations each iteration.
    pub shuffle: bool,
    /// Align the testing invocations with a (bounded) spin barrier.
    pub start_barrier: bool,
    /// Dispatches (each runs every instance once).
    pub iterations: u64,
    /// Stop after this many seconds even if iterations remain.
    pub time_budget_secs: Option<f64>,
    /// The most statements a thread with loops executes (then its
    /// instance is not counted).
    pub step_cap: u32,
    /// Seed of the placement permutations.
    pub seed: u64,
}

impl Params {
    pub fn preset(preset: Preset) -> Params {
        let base = Params {
            preset,
            workgroup_size: 32,
            testing_workgroups: 4,
            stress_workgroups: 0,
            stress_iterations: 0,
            scratch_words: 1024,
            mem_stride: 1,
            shuffle: false,
            start_barrier: false,
            iterations: 100,
            time_budget_secs: None,
            step_cap: 4096,
            seed: 1,
        };
        match preset {
            Preset::None => base,
            Preset::Light => Params {
                workgroup_size: 64,
                testing_workgroups: 8,
                stress_workgroups: 2,
                stress_iterations: 256,
                mem_stride: 16,
                shuffle: true,
                ..base
            },
            Preset::Heavy => Params {
                workgroup_size: 128,
                testing_workgroups: 16,
                stress_workgroups: 8,
                stress_iterations: 2048,
                scratch_words: 4096,
                mem_stride: 64,
                shuffle: true,
                start_barrier: true,
                ..base
            },
        }
    }
}

/// A small deterministic generator (xorshift64*), so a run is reproducible
/// from its seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

/// The buffers of one dispatch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub instances: usize,
    pub workgroups: u32,
    pub place: Vec<u32>,
    pub addr: Vec<u32>,
    pub role: Vec<u32>,
    /// Words of `MEM`.
    pub mem_words: usize,
    /// Invocations running a litmus thread (the start barrier's count).
    pub active: u32,
}

/// Instance slots of one workgroup of a role: for each slot, the position
/// (index within the workgroup) of each of the role's threads.
fn slots(
    plan: &Plan,
    role: usize,
    wg_size: usize,
    sg_size: usize,
    rng: Option<&mut Rng>,
) -> Vec<Vec<usize>> {
    let r = &plan.roles[role];
    let mine: Vec<usize> = (0..plan.threads.len())
        .filter(|&t| plan.threads[t].role == role)
        .collect();
    if !plan.needs_subgroups {
        // One thread per workgroup of this role... or per position.
        let mut pos: Vec<usize> = (0..wg_size).collect();
        if let Some(rng) = rng {
            rng.shuffle(&mut pos);
        }
        return pos.into_iter().map(|p| vec![p]).collect();
    }
    let real = wg_size / sg_size;
    let blocks = real / r.subgroups;
    let per_subgroup = sg_size / r.lanes;
    let mut subgroups: Vec<usize> = (0..real).collect();
    let mut lanes: Vec<Vec<usize>> = (0..real).map(|_| (0..sg_size).collect()).collect();
    if let Some(rng) = rng {
        rng.shuffle(&mut subgroups);
        for l in &mut lanes {
            rng.shuffle(l);
        }
    }
    let mut out = Vec::new();
    for b in 0..blocks {
        for c in 0..per_subgroup {
            let slot = mine
                .iter()
                .map(|&t| {
                    let p = &plan.threads[t];
                    let sg = subgroups[b * r.subgroups + p.subgroup];
                    sg * sg_size + lanes[sg][c * r.lanes + p.lane]
                })
                .collect();
            out.push(slot);
        }
    }
    out
}

/// Checks that the device can host the plan.
pub fn check_fits(plan: &Plan, params: &Params, subgroup_size: u32) -> Result<(), Unsupported> {
    let s = params.workgroup_size as usize;
    let sg = subgroup_size.max(1) as usize;
    if plan.needs_subgroups {
        if !s.is_multiple_of(sg) {
            return Err(Unsupported {
                reason: Reason::Placement,
                detail: format!("workgroup size {s} is not a multiple of the subgroup size {sg}"),
            });
        }
        for r in &plan.roles {
            if r.lanes > sg {
                return Err(Unsupported {
                    reason: Reason::Placement,
                    detail: format!(
                        "{} threads share a subgroup of workgroup {}, the device's subgroups have {sg} invocations",
                        r.lanes, r.workgroup
                    ),
                });
            }
            if r.subgroups > s / sg {
                return Err(Unsupported {
                    reason: Reason::Placement,
                    detail: format!(
                        "workgroup {} uses {} subgroups, a workgroup of {s} invocations has {}",
                        r.workgroup,
                        r.subgroups,
                        s / sg
                    ),
                });
            }
        }
    }
    Ok(())
}

/// The buffers of one iteration (a fresh permutation when `params.shuffle`).
pub fn layout(plan: &Plan, params: &Params, subgroup_size: u32, rng: &mut Rng) -> Layout {
    let s = params.workgroup_size as usize;
    let sg = subgroup_size.max(1) as usize;
    let nroles = plan.roles.len();
    let per_role = params.testing_workgroups.max(1) as usize;
    let testing = nroles * per_role;
    let total = testing + params.stress_workgroups as usize;
    // Workgroup roles: per_role of each role, then the stress workgroups.
    let mut role: Vec<u32> = (0..nroles)
        .flat_map(|g| std::iter::repeat_n(g as u32, per_role))
        .chain(std::iter::repeat_n(
            ROLE_STRESS,
            params.stress_workgroups as usize,
        ))
        .collect();
    if params.shuffle {
        rng.shuffle(&mut role);
    }
    // Each role's (workgroup, slot) pairs.
    let mut pairs: Vec<Vec<(usize, Vec<usize>)>> = Vec::new();
    for g in 0..nroles {
        let mut v = Vec::new();
        for (w, _) in role.iter().enumerate().filter(|(_, r)| **r == g as u32) {
            let sl = slots(plan, g, s, sg, params.shuffle.then_some(&mut *rng));
            v.extend(sl.into_iter().map(|p| (w, p)));
        }
        if params.shuffle {
            rng.shuffle(&mut v);
        }
        pairs.push(v);
    }
    let instances = pairs.iter().map(Vec::len).min().unwrap_or(0);
    let nt = plan.threads.len();
    let nl = plan.program.locations.len();
    let mut place = vec![0u32; total * s];
    // Per (instance, role): the instance's rank among those its role's
    // real workgroup hosts (its share of that workgroup's shared memory).
    let mut rank = vec![vec![0usize; nroles]; instances];
    for (g, v) in pairs.iter().enumerate() {
        let mine: Vec<usize> = (0..nt).filter(|&t| plan.threads[t].role == g).collect();
        let mut hosted = vec![0usize; total];
        for (i, (w, positions)) in v.iter().take(instances).enumerate() {
            for (t, p) in mine.iter().zip(positions) {
                place[w * s + p] = (i * nt + t + 1) as u32;
            }
            rank[i][g] = hosted[*w];
            hosted[*w] += 1;
        }
    }
    let mut order: Vec<usize> = (0..instances * nl).collect();
    if params.shuffle {
        rng.shuffle(&mut order);
    }
    let stride = params.mem_stride.max(1) as usize;
    // Workgroup locations: (role, index among the role's) per location.
    let mut shared: Vec<Option<(usize, usize, usize)>> = vec![None; nl];
    for g in 0..nroles {
        let locs = plan.workgroup_locations(g);
        for (k, &l) in locs.iter().enumerate() {
            shared[l] = Some((g, k, locs.len()));
        }
    }
    let mut addr = vec![0u32; (instances * 2 * nl).max(2 * nl).max(1)];
    for i in 0..instances {
        for l in 0..nl {
            let word = (order[i * nl + l] * stride) as u32;
            addr[i * 2 * nl + nl + l] = word;
            addr[i * 2 * nl + l] = match shared[l] {
                Some((g, k, n)) => (rank[i][g] * n + k) as u32,
                None => word,
            };
        }
    }
    for w in role.iter_mut() {
        if *w != ROLE_STRESS && (*w as usize) >= nroles {
            *w = ROLE_IDLE;
        }
    }
    Layout {
        instances,
        workgroups: total as u32,
        place,
        addr,
        role,
        mem_words: (instances * nl * stride).max(1),
        active: (instances * nt) as u32,
    }
}

/// The initial `MEM` contents.
pub fn initial_memory(plan: &Plan, layout: &Layout) -> Vec<u32> {
    let mut mem = vec![0u32; layout.mem_words];
    let nl = plan.program.locations.len();
    for i in 0..layout.instances {
        for l in 0..nl {
            mem[layout.addr[i * 2 * nl + nl + l] as usize] = plan.program.initial_value(l) as u32;
        }
    }
    mem
}

/// The final state of every complete instance (registers then locations,
/// as the model's states name them), and the number of instances a thread
/// of which was cut by the step cap.
pub fn final_states(
    plan: &Plan,
    layout: &Layout,
    out: &[u32],
    mem: &[u32],
) -> (Vec<FinalState>, u64) {
    let ow = out_words(plan);
    let nregs = plan.registers.len();
    let nl = plan.program.locations.len();
    let mut states = Vec::with_capacity(layout.instances);
    let mut cut = 0;
    // The states' names, once (src/analysis/states.rs).
    let names: crate::analysis::states::Schema = (0..nregs)
        .map(|k| plan.register_key(k))
        .chain(plan.program.locations.iter().cloned())
        .collect::<Vec<_>>()
        .into();
    for i in 0..layout.instances {
        let row = &out[i * ow..(i + 1) * ow];
        if row[nregs..].iter().any(|&s| s != STATUS_DONE) {
            cut += 1;
            continue;
        }
        let mut values: Vec<i64> = Vec::with_capacity(nregs + nl);
        values.extend((0..nregs).map(|k| row[k] as i32 as i64));
        for l in 0..nl {
            let v = mem[layout.addr[i * 2 * nl + nl + l] as usize];
            values.push(v as i32 as i64);
        }
        states.push(FinalState::new(names.clone(), values.into()));
    }
    (states, cut)
}
