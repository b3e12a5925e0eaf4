//! Large shared variables: locations for the cells the program reaches.
//!
//! A buffer is as long as the shader declares it or the host binds it (a
//! linked-list shader's 65536 buckets and its allocation area behind them),
//! while one execution touches a few of its cells. A shared variable
//! instance of more than [`SPARSE_FROM`] scalar cells is *sparse*: its
//! layout is kept whole (`Memory::sparse`), and a cell gets a location only
//! once an access can reach it. No access reaches the others, so they keep
//! their initial value and nothing else would change if they had a
//! location: leaving them out changes no execution.
//!
//! The cells are found by lowering again until nothing new turns up:
//!
//! - an access at a constant offset (or a runtime index the lowering folds
//!   per invocation) names its cells directly (`Gen::wanted`);
//! - an access at an offset held in a register becomes a branch chain over
//!   the cells that have a location, and one more case: the offset names
//!   none of them. While the cells are sought, that case writes the offset
//!   to a probe location and stops the path. The checker's per-thread path
//!   walk (the walk the check itself starts with, handed in by the request:
//!   [`crate::frontend::clock::walk_domains`]; loops unrolled to the
//!   request's bound, reads splitting over the values their locations can
//!   hold) gives every value the probe locations can receive; those cells
//!   get locations and the search goes on until no path reaches a probe.
//!   The program checked has no probe: an access that still names no
//!   located cell (a bound larger than the search's) is marked as an
//!   out-of-bounds access of the variable, never dropped silently.
//!
//! The search runs under the request's bounds (`--timeout`, `--max-memory`,
//! `--max-paths`) and at most [`MAX_ROUNDS`] rounds. A search a bound stops
//! is not an error: the cells found so far keep their locations, the
//! program is lowered once more over them, and it carries the limit
//! (`Program::front_end_limit`), so that its answer is undecided, never a
//! verdict.

use super::legacy::Coherence;
use super::lower::{Gen, Memory, cell_name};
use super::module::{Grid, MAX_CELLS, Module, overlapping};
use crate::frontend::clock::WalkStop;
use crate::ir::{Program, Reference, Stmt, Thread};
use std::collections::{BTreeSet, HashMap};

/// A shared variable instance with more scalar cells than this is sparse.
pub(super) const SPARSE_FROM: usize = 4096;

/// The most rounds of the search (each one lowers every invocation and
/// walks its paths).
pub(super) const MAX_ROUNDS: usize = 64;

/// The access sizes (bytes) a probe location is kept for.
pub(super) const PROBE_SIZES: [u32; 5] = [1, 2, 4, 8, 16];

/// What giving a sparse cell a location needs.
pub(super) struct Placing<'a> {
    pub m: &'a Module,
    pub coherence: &'a Coherence,
    /// The user's inputs: which cells they make arbitrary.
    pub arbitrary: &'a super::inputs::Resolved,
    /// Per sparse variable, its number of instances.
    pub instances: HashMap<String, usize>,
}

/// Gives the cells `wanted` names (variable, instance, byte offset, size)
/// locations; the number of cells that got one.
pub(super) fn materialise(
    p: &Placing,
    mem: &mut Memory,
    program: &mut Program,
    widths: &mut Vec<u32>,
    arbitrary: &mut BTreeSet<usize>,
    wanted: Vec<(String, usize, i64, u32)>,
) -> Result<usize, String> {
    let mut added = 0;
    for (var, instance, at, size) in wanted {
        let key = (var.clone(), instance);
        let Some(layout) = mem.sparse.get(&key).cloned() else {
            continue;
        };
        let Some(g) = p.m.globals.iter().find(|g| g.id == var) else {
            continue;
        };
        let instances = p.instances.get(&var).copied().unwrap_or(1);
        for c in overlapping(&layout, at, size) {
            let placed = mem.cells.entry(key.clone()).or_default();
            if placed.iter().any(|(d, _)| d.offset == c.offset) {
                continue;
            }
            if placed.len() >= MAX_CELLS {
                return Err(format!(
                    "variable `%{var}`: the accesses reach more than {MAX_CELLS} of its cells"
                ));
            }
            let loc = program.locations.len();
            let base = cell_name(&var, &c.path, 0);
            let name = if instances > 1 {
                format!("{base}@wg{instance}")
            } else {
                base
            };
            program.locations.push(name.clone());
            widths.push(c.size * 8);
            program.initial_values.push(c.init);
            super::note_kind(program, loc, c.kind);
            if let Some(scope) = p.coherence.cell(p.m, g, &c.path) {
                mem.coherent.insert(loc, scope);
            }
            if p.arbitrary.is_arbitrary(&var, instance, &c.path) {
                arbitrary.insert(loc);
                program.undefined.insert(loc);
            }
            program.references.push(Reference {
                name: name.clone(),
                location: loc,
            });
            program.symbols.add_name(&name, vec![loc]);
            placed.push((c.clone(), loc));
            added += 1;
        }
    }
    Ok(added)
}

/// The cells of sparse instances that the names in `texts` denote
/// (`%var[i][j]`, `%var[i]@wgK` for workgroup instance K), as `wanted`
/// entries: a condition may name a cell no access reaches (it keeps its
/// initial value), and a name needs a location.
pub(super) fn named_cells(mem: &Memory, texts: &[&str]) -> Vec<(String, usize, i64, u32)> {
    let mut out = Vec::new();
    if mem.sparse.is_empty() {
        return out;
    }
    for text in texts {
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            if chars[i] != '%' {
                i += 1;
                continue;
            }
            i += 1;
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let var: String = chars[start..i].iter().collect();
            let mut path: Vec<usize> = Vec::new();
            while i < chars.len() && chars[i] == '[' {
                let from = i + 1;
                let mut j = from;
                while j < chars.len() && chars[j].is_ascii_digit() {
                    j += 1;
                }
                match (
                    chars.get(j),
                    chars[from..j].iter().collect::<String>().parse(),
                ) {
                    (Some(']'), Ok(k)) => {
                        path.push(k);
                        i = j + 1;
                    }
                    _ => break,
                }
            }
            let mut instance = 0;
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            if rest == "@wg" {
                let from = i + 3;
                let mut j = from;
                while j < chars.len() && chars[j].is_ascii_digit() {
                    j += 1;
                }
                instance = chars[from..j]
                    .iter()
                    .collect::<String>()
                    .parse()
                    .unwrap_or(0);
                i = j;
            }
            if path.is_empty() {
                continue;
            }
            let Some(layout) = mem.sparse.get(&(var.clone(), instance)) else {
                continue;
            };
            if let Some(c) = layout.iter().find(|c| c.path == path) {
                out.push((var, instance, c.offset, c.size));
            }
        }
    }
    out
}

/// The probe locations of this round: one per sparse instance and access
/// size, numbered after the program's locations.
pub(super) fn probes(mem: &Memory, first: usize) -> HashMap<(String, usize, u32), usize> {
    let mut keys: Vec<&(String, usize)> = mem.sparse.keys().collect();
    keys.sort();
    let mut out = HashMap::new();
    for (var, instance) in keys {
        for size in PROBE_SIZES {
            let loc = first + out.len();
            out.insert((var.clone(), *instance, size), loc);
        }
    }
    out
}

/// The cells the probes of `lowered` receive: the program so far
/// (`template`, no threads yet) with the lowered invocations and the probe
/// locations, its paths walked under the request's bounds.
pub(super) fn probed(
    template: &Program,
    lowered: &[Option<Gen>],
    grid: Grid,
    probes: &HashMap<(String, usize, u32), usize>,
) -> Result<Vec<(String, usize, i64, u32)>, WalkStop> {
    let mut program = template.clone();
    let first = program.locations.len();
    for k in 0..probes.len() {
        let name = format!("(probe {k})");
        program.references.push(Reference {
            name: name.clone(),
            location: program.locations.len(),
        });
        program.locations.push(name);
        // No offset the probes receive is negative.
        program.initial_values.push(-1);
    }
    let t = grid.per_subgroup;
    let s = grid.subgroups;
    for (k, g) in lowered.iter().enumerate() {
        let Some(g) = g else { continue };
        program.sizes.extend(g.sized.iter().map(|(l, s)| (*l, *s)));
        let mut code = g.code.clone();
        code.push(Stmt::Label {
            name: "END".into(),
            source: crate::ir::SourceSpan::default(),
        });
        program.threads.push(Thread {
            id: k,
            subgroup: k / t,
            workgroup: k / (t * s),
            queue_family: 0,
            device: 0,
            code: super::simplify(code),
            registers: g.registers.clone(),
            fragment: None,
        });
    }
    let domains = crate::frontend::clock::walk_domains(&program)?;
    let mut out = Vec::new();
    for ((var, instance, size), &loc) in probes {
        debug_assert!(loc >= first);
        for &v in domains.get(loc).map_or(&[][..], |d| &d[..]) {
            if v >= 0 {
                out.push((var.clone(), *instance, v, *size));
            }
        }
    }
    out.sort();
    Ok(out)
}
