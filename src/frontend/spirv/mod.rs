//! SPIR-V assembly (`.spvasm`) with Dat3M's headers: the programs of
//! `../shared/corpus/dat3m-spirv/` (clspv output from OpenCL C, GLSL and
//! Slang output). docs/format-spirv.md describes what is read.
//!
//! Why a front end of its own rather than a crate: most of these files are
//! not valid SPIR-V modules as written (clspv reflection instructions after
//! the functions, named ids the headers refer to). rspirv's loader reads
//! 61 of the corpus' 413 files, naga 24 (with panics), and assembling them
//! with `spirv-as` first loses the names the headers use. So the text is
//! read here, line by line (`syntax`), with every opcode and its operand
//! kinds checked against the grammar tables of the `rspirv` crate
//! (generated from Khronos' grammar), not against a hand-typed table.
//!
//! Binary modules (`.spv`, `binary`) are decoded by rspirv's binary
//! parser and rendered as this text, one instruction per line, so both go
//! through the same lowering; GLSL compute shaders ([`glsl`]) are compiled
//! to a binary module by `glslangValidator` first.
//!
//! Lowering (`lower`): each invocation of the `@Config` grid gets its own
//! copy of the entry function, calls inlined, with builtins and
//! everything computed from constants folded; shared variables
//! (StorageBuffer, Uniform, PhysicalStorageBuffer, CrossWorkgroup: `sc0`;
//! Workgroup, one instance per workgroup: `sc1`) become one location per
//! scalar cell of their layout (byte offsets from `Offset` and
//! `ArrayStride`); per-invocation variables live in registers.

mod binary;
mod calls;
mod coop;
mod dispatch;
pub mod glsl;
mod headers;
pub mod hlsl;
mod image;
mod inputs;
mod layout;
mod legacy;
mod lower;
mod module;
mod names;
mod sampled;
mod sparse;
mod stages;
mod syntax;
#[cfg(test)]
mod tests;
mod types;
pub mod wgsl;

use super::FrontendError;
use super::clock;
use super::litmus::condition::{self, CondSyntax, TextStyle};
use super::litmus::lexer::{self, Lexer, Src};
use crate::ir::{
    CondExpr, Condition, Dialect, Program, Quantifier, Reference, StorageClass, TestKind, Thread,
};
use headers::{CondText, Init};
use module::{Class, Grid, Module};
use std::collections::HashMap;

/// Parses a `.spvasm` file.
pub fn parse(file: &str, text: &str) -> Result<Program, FrontendError> {
    parse_with(file, text, super::Options::default())
}

/// [`parse`] with front-end options (the out-of-bounds reading).
pub fn parse_with(
    file: &str,
    text: &str,
    options: super::Options,
) -> Result<Program, FrontendError> {
    parse_module(file, text, true, false, &options)
}

/// [`parse`], for every format (`.spvasm`, and the disassembly of a
/// binary module or of a compiled GLSL, WGSL or HLSL shader; `own_text`:
/// the module is the file's own text, a `.spvasm`).
///
/// Memory nobody initialises (no Initializer, no `@Input`, no input from
/// the command line or a dispatch file) starts at 0, as a host that
/// clears its buffers leaves it, unless the file is one of Dat3M's
/// tests: a `.spvasm` whose own comments carry Dat3M's headers
/// (`@Input`, `@Output`, `@Filter`, `@Config`; a binary module's headers
/// file is vkmm's spelling for a module without comments, not a Dat3M
/// test, and a compiled shader has no headers). Those
/// files are written for Dat3M's reading, where such a variable holds a
/// fresh unconstrained value (its SPIR-V front end gives it
/// `makeUndefinedValue`, a new constant of the program), and their
/// expected verdicts rest on it; the Vulkan memory model appendix agrees:
/// "The values stored in newly allocated memory locations are determined
/// by a SPIR-V variable's initializer, if present, or else are undefined".
/// docs/format-spirv.md, "Memory nobody initialises".
fn parse_module(
    file: &str,
    text: &str,
    own_text: bool,
    source_names: bool,
    options: &super::Options,
) -> Result<Program, FrontendError> {
    let oob = options.out_of_bounds;
    let shader = &options.shader;
    let located = |(line, column, message): syntax::Located| FrontendError {
        file: file.to_string(),
        line,
        column,
        message,
    };
    let h = headers::read(text).map_err(located)?;
    let undefined_init = own_text
        && (!h.inputs.is_empty()
            || !h.outputs.is_empty()
            || h.filter.is_some()
            || h.config.is_some());
    let insts = syntax::parse(text).map_err(located)?;
    let sc = calls::read(text).map_err(located)?;
    // `@Shaders` without `@Config`: its invocations in one subgroup.
    let config = match (&h.config, &sc.shaders) {
        (None, Some((ids, _, _))) => Some((ids.len(), 1, 1)),
        _ => h.config,
    };
    let (t, s, w) = config.unwrap_or((1, 1, 1));
    let mut grid = Grid::flat(t, s, w);
    // An @Input naming a spec constant sets its value.
    let is_spec = |id: &str| {
        insts.iter().any(|i| {
            i.result.as_ref().is_some_and(|(r, _)| r == id)
                && matches!(
                    i.op,
                    ::spirv::Op::SpecConstant
                        | ::spirv::Op::SpecConstantTrue
                        | ::spirv::Op::SpecConstantFalse
                )
        })
    };
    let mut spec = HashMap::new();
    for (id, value, line, col) in &h.inputs {
        if is_spec(id) {
            match value {
                Init::Num(v) => {
                    spec.insert(id.clone(), *v);
                }
                Init::List(_) => {
                    return Err(located((
                        *line,
                        *col,
                        format!("`%{id}` is a spec constant: expected a number"),
                    )));
                }
            }
        }
    }
    dispatch::set_spec_constants(&insts, &shader.set, &mut spec).map_err(located)?;
    let mut m = Module::read(&insts, grid, &spec, shader.entry.as_deref()).map_err(located)?;
    let Some((entry, _, _)) = m.entry.clone() else {
        if let Some(name) = &shader.entry {
            return Err(located((
                0,
                0,
                dispatch::no_such_entry(name, &m.entry_names),
            )));
        }
        return Err(located((
            1,
            1,
            "no OpEntryPoint: expected a module with an entry point".into(),
        )));
    };
    // The dispatch: the command line's, else `@Config`'s, else the
    // workgroup size the entry point declares, in one workgroup.
    let declared = dispatch::declared_size(&insts, &m, &entry);
    let chosen = dispatch::grid(shader, config, declared.as_ref()).map_err(located)?;
    if chosen.local != grid.local || chosen.groups != grid.groups || chosen.per_subgroup != t {
        grid = chosen;
        m = Module::read(&insts, grid, &spec, shader.entry.as_deref()).map_err(located)?;
    }
    let (t, s, w) = (grid.per_subgroup, grid.subgroups, grid.workgroups);
    let mut program = Program {
        name: std::path::Path::new(file)
            .file_stem()
            .map_or_else(|| file.to_string(), |s| s.to_string_lossy().into_owned()),
        dialect: Dialect::Vulkan,
        kind: TestKind::Litmus,
        ..Program::default()
    };
    // @Input values, checked against the variables.
    let mut inputs: HashMap<String, &Init> = HashMap::new();
    for (id, value, line, col) in &h.inputs {
        if spec.contains_key(id) {
            continue;
        }
        if !m.globals.iter().any(|g| g.id == *id) {
            return Err(located((
                *line,
                *col,
                format!("@Input names `%{id}`, which is not a global variable of the module"),
            )));
        }
        if inputs.insert(id.clone(), value).is_some() {
            return Err(located((
                *line,
                *col,
                format!("`%{id}` has two @Input values"),
            )));
        }
    }
    // The command line's and dispatch file's inputs, beside the headers'.
    let user = inputs::resolve(&insts, &m, &shader.inputs, w).map_err(located)?;
    for (line, column, message) in inputs::default_sizes(&insts, &m, &user, &h.inputs) {
        program.warnings.push(crate::ir::FrontendWarning {
            file: file.to_string(),
            line,
            column,
            message,
        });
    }
    for (id, init) in &user.inits {
        if inputs.insert(id.clone(), init).is_some() {
            return Err(located((
                0,
                0,
                format!(
                    "`%{id}` has an @Input value and an input from the command line or dispatch file: give one"
                ),
            )));
        }
    }
    for (id, k) in user.copies.keys() {
        if h.inputs.iter().any(|i| i.0 == *id) && !user.inits.contains_key(id) {
            return Err(located((
                0,
                0,
                format!(
                    "`%{id}` has an @Input value and an input for its copy `@wg{k}` from the command line or dispatch file: give the variable's contents there too"
                ),
            )));
        }
    }
    let mut arbitrary = std::collections::BTreeSet::new();
    let input_line = |id: &str| h.inputs.iter().find(|i| i.0 == id).map(|i| (i.2, i.3));
    // The entry function and stage of each invocation.
    let n = grid.invocations();
    let entries = calls::entries(&sc, &m, &entry, n).map_err(located)?;
    let outputs = stages::Outputs::new(&entries, grid);
    // Shared memory.
    let mut mem = lower::Memory {
        alias: layout::aliases(&m),
        out_of_bounds: oob,
        unreached_chains: options.unreached_chains,
        ..lower::Memory::default()
    };
    // Where the samples' values may go: refused where one may decide a
    // branch, an address or a write (`sampled.rs`).
    let entry_functions: Vec<String> = entries.iter().map(|e| e.0.clone()).collect();
    let sampled = sampled::check(&insts, &m, &mem.alias, &entry_functions).map_err(located)?;
    mem.written_images = sampled::written_images(&insts, &m, &mem.alias);
    mem.uncomputed_matrices = sampled.values.clone();
    let coherence = legacy::Coherence::new(&insts, options.legacy_memory_model);
    let mut all_instances: Vec<(String, Vec<usize>)> = Vec::new();
    // The bit width of each location's cell.
    let mut widths: Vec<u32> = Vec::new();
    let mut sparse_instances: HashMap<String, usize> = HashMap::new();
    for g in &m.globals {
        let (class, instances) = match g.class {
            Class::Global => (StorageClass(0), 1),
            Class::Workgroup => (StorageClass(1), w),
            // Storage images: "The ImageMemory storage class semantic
            // applies to accesses to memory in the Image storage class".
            Class::Image => (StorageClass(2), 1),
            // Dat3M reads an Output variable as one instance for all (a
            // compute program); with graphics stages, one per invocation,
            // a TessellationControl one per patch (`stages::Outputs`).
            Class::Output => (StorageClass(3), outputs.count()),
            // The ray tracing storage classes: one instance per invocation
            // (docs/format-spirv.md, "Shader calls"), a storage class no
            // semantics names (the appendix lists the classes
            // UniformMemory, WorkgroupMemory, ImageMemory and OutputMemory
            // apply to; none of these).
            Class::Ray(_) => (calls::RAY_DATA, grid.invocations()),
            _ => continue,
        };
        if let Some(first) = mem.alias.get(&g.id) {
            layout::check_view(&m, g, first).map_err(located)?;
            if let Some((line, col)) = input_line(&g.id) {
                return Err(located((
                    line,
                    col,
                    format!(
                        "`%{}` shares its memory with `%{first}` (the same binding, or Aliased): give the @Input to `%{first}`",
                        g.id
                    ),
                )));
            }
            continue;
        }
        let suffix = |k: usize| match g.class {
            Class::Output => outputs.suffix(k),
            Class::Ray(_) => format!("@P{k}"),
            _ => format!("@wg{k}"),
        };
        mem.class.insert(g.id.clone(), class);
        let mut cells = Vec::new();
        let err = |e: String| {
            let (line, col) = input_line(&g.id).unwrap_or((g.line, g.col));
            located((line, col, format!("variable `%{}`: {e}", g.id)))
        };
        // The initial contents: the @Input, else the variable's
        // Initializer. SPIR-V, OpVariable: "If Initializer is present, it
        // will be the initial value of the variable's memory content."
        let initializer = g.init.as_ref().and_then(|c| m.consts.get(c)).map(init_of);
        // Neither: the contents are undefined. The Vulkan memory model
        // appendix: "The values stored in newly allocated memory locations
        // are determined by a SPIR-V variable's initializer, if present, or
        // else are undefined" (`Program::undefined`).
        // (Workgroup variables keep starting at 0 for now: with them
        // undefined the ratchet's run ran out of memory; docs/format-spirv.md.)
        let undefined = undefined_init
            && !inputs.contains_key(&g.id)
            && initializer.is_none()
            && g.class != Class::Workgroup;
        m.cells(
            &g.pointee,
            0,
            &mut Vec::new(),
            inputs.get(&g.id).copied().or(initializer.as_ref()),
            &mut cells,
        )
        .map_err(|e| {
            if matches!(m.ty(&g.pointee), Some(module::Ty::Other(_))) {
                located((
                    g.line,
                    g.col,
                    format!(
                        "unsupported construct `OpVariable`: `%{}` is an image or sampler",
                        g.id
                    ),
                ))
            } else {
                err(e)
            }
        })?;
        // A large buffer or workgroup array: its cells get locations as
        // the program's accesses reach them (`sparse`).
        if matches!(g.class, Class::Global | Class::Workgroup) && cells.len() > sparse::SPARSE_FROM
        {
            let extent = lower::extent_of(&m, &g.id, cells.iter().map(|c| (c.offset, c.size)));
            cells.sort_by_key(|c| c.offset);
            let layout = std::sync::Arc::new(cells);
            for instance in 0..instances {
                let key = (g.id.clone(), instance);
                // A workgroup's copy an input gives contents of its own.
                let layout = match user.copies.get(&key) {
                    Some(init) => {
                        let mut own = Vec::new();
                        m.cells(&g.pointee, 0, &mut Vec::new(), Some(init), &mut own)
                            .map_err(err)?;
                        own.sort_by_key(|c| c.offset);
                        std::sync::Arc::new(own)
                    }
                    None => layout.clone(),
                };
                mem.sparse.insert(key.clone(), layout);
                mem.cells.insert(key.clone(), Vec::new());
                mem.real_end.insert(key, extent);
            }
            sparse_instances.insert(g.id.clone(), instances);
            continue;
        }
        if cells.len() > module::MAX_CELLS {
            return Err(err(format!("more than {} scalar cells", module::MAX_CELLS)));
        }
        let read_only = layout::read_only(&m, &mem.alias, &g.id);
        for instance in 0..instances {
            let mut placed = Vec::new();
            // A workgroup's copy an input gives contents of its own.
            let own;
            let cells = match user.copies.get(&(g.id.clone(), instance)) {
                Some(init) => {
                    let mut c = Vec::new();
                    m.cells(&g.pointee, 0, &mut Vec::new(), Some(init), &mut c)
                        .map_err(err)?;
                    own = c;
                    &own
                }
                None => &cells,
            };
            for c in cells {
                let loc = program.locations.len();
                let base = lower::cell_name(&g.id, &c.path, 0);
                let name = if instances > 1 {
                    format!("{base}{}", suffix(instance))
                } else {
                    base.clone()
                };
                program.locations.push(name.clone());
                widths.push(c.size * 8);
                program.initial_values.push(c.init);
                note_kind(&mut program, loc, c.kind);
                if let Some(scope) = coherence.cell(&m, g, &c.path) {
                    mem.coherent.insert(loc, scope);
                }
                if undefined {
                    program.undefined.insert(loc);
                }
                if user.is_arbitrary(&g.id, instance, &c.path) {
                    arbitrary.insert(loc);
                }
                program.references.push(Reference {
                    name: name.clone(),
                    location: loc,
                });
                program.symbols.add_name(&name, vec![loc]);
                if instances > 1 {
                    match all_instances.iter_mut().find(|(n, _)| *n == base) {
                        Some((_, locs)) => locs.push(loc),
                        None => all_instances.push((base, vec![loc])),
                    }
                }
                if !undefined
                    && g.class == Class::Global
                    && !user.is_arbitrary(&g.id, instance, &c.path)
                    && read_only(&c.path)
                {
                    mem.read_only.insert(loc, c.init);
                }
                placed.push((c.clone(), loc));
            }
            mem.cells.insert((g.id.clone(), instance), placed);
        }
    }
    for (name, locs) in all_instances {
        program.symbols.add_name(&name, locs);
    }
    // At most MAX_UNDEFINED undefined cells, else none (they start at 0 as
    // before): each read of one splits over the whole value domain, and
    // rows with large buffers and no @Input ran out of memory
    // (docs/format-spirv.md, "Undefined initial values").
    if arbitrary.len() > MAX_UNDEFINED {
        return Err(located((
            0,
            0,
            format!(
                "the inputs make {} cells arbitrary; vkmm follows at most {MAX_UNDEFINED} arbitrary cells exactly: give the others values (zero, or the values the host writes)",
                arbitrary.len()
            ),
        )));
    }
    let mut budget = MAX_UNDEFINED.saturating_sub(program.undefined.len());
    if program.undefined.len() > MAX_UNDEFINED {
        program.undefined.clear();
        budget = 0;
    }
    // Cells the user made arbitrary stay so.
    if !arbitrary.is_empty() {
        program.undefined.extend(arbitrary.iter().copied());
        budget = MAX_UNDEFINED.saturating_sub(program.undefined.len());
        if program.undefined.len() > MAX_UNDEFINED {
            program.undefined.retain(|l| arbitrary.contains(l));
            budget = 0;
        }
    }
    // Per-invocation variables (Private, PushConstant) live in registers;
    // a cell with an undefined initial value (no Initializer, no @Input,
    // no builtin, not a push constant clspv's reflection fills) is read at
    // the start of the invocation from a location of its own, which
    // nothing writes and whose initial value is undefined.
    for g in &m.globals {
        if !undefined_init
            || g.class != Class::Invocation
            || !matches!(g.class_name.as_str(), "Private" | "PushConstant")
            || g.init.is_some()
            || inputs.contains_key(&g.id)
            || m.builtin(&g.id).is_some()
        {
            continue;
        }
        let mut cells = Vec::new();
        if m.cells(&g.pointee, 0, &mut Vec::new(), None, &mut cells)
            .is_err()
        {
            continue;
        }
        let filled = |off: i64| {
            g.class_name == "PushConstant"
                && m.push_constants
                    .iter()
                    .any(|(o, v)| (0..v.len() as i64).any(|k| off == o + 4 * k))
        };
        let count = cells.iter().filter(|c| !filled(c.offset)).count()
            * if g.class_name == "PushConstant" {
                1
            } else {
                grid.invocations()
            };
        if count > budget {
            continue;
        }
        budget -= count;
        // A push constant is one value for the whole dispatch (the host
        // sets it once); a Private variable is one per invocation.
        let shared = g.class_name == "PushConstant";
        let mut first: Vec<(i64, usize)> = Vec::new();
        for k in 0..grid.invocations() {
            if shared && k > 0 {
                mem.undefined_cells.insert((g.id.clone(), k), first.clone());
                continue;
            }
            let mut placed = Vec::new();
            for c in cells.iter().filter(|c| !filled(c.offset)) {
                let loc = program.locations.len();
                let base = lower::cell_name(&g.id, &c.path, 0);
                let name = if shared { base } else { format!("{base}@P{k}") };
                program.locations.push(name.clone());
                widths.push(c.size * 8);
                program.initial_values.push(0);
                note_kind(&mut program, loc, c.kind);
                program.undefined.insert(loc);
                program.references.push(Reference {
                    name: name.clone(),
                    location: loc,
                });
                placed.push((c.offset, loc));
            }
            if k == 0 {
                first = placed.clone();
            }
            mem.undefined_cells.insert((g.id.clone(), k), placed);
        }
    }
    // Threads, creators before the invocations they create (an incoming
    // variable is its creator's variable: docs/format-spirv.md, "Shader
    // calls").
    let order = calls::order(&sc, n).map_err(located)?;
    // Shader I/O: `@Generates`, and each generated invocation's Input
    // variables bound to the Output variables they correspond to.
    program.generates = calls::generates(&sc, n).map_err(located)?;
    program.legacy = stages::is_legacy(&insts);
    // The cells of sparse instances their accesses reach get locations,
    // round by round (`sparse`); under the flat out-of-bounds reading, one
    // more pass once the elements past the end a pass named have
    // locations.
    let placing = sparse::Placing {
        m: &m,
        coherence: &coherence,
        arbitrary: &user,
        instances: sparse_instances,
    };
    // The cells of sparse instances a condition names (the headers' or
    // the manifest's assertion, `ShaderOptions::named`): a location each,
    // holding its initial value where no access reaches it.
    let asserted = shader
        .assertion
        .as_ref()
        .map(|a| super::assertion::read_with(&a.text, &|name| inputs::cell_of(&insts, &m, name)));
    let conditions_text: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with(';'))
        .chain(shader.named.iter().map(String::as_str))
        .chain(asserted.as_ref().map(|a| a.expr.as_str()))
        .collect();
    let named = sparse::named_cells(&mem, &conditions_text);
    if !named.is_empty() {
        sparse::materialise(
            &placing,
            &mut mem,
            &mut program,
            &mut widths,
            &mut arbitrary,
            named,
        )
        .map_err(|e| located((0, 0, e)))?;
    }
    let mut searching = !mem.sparse.is_empty();
    // A bound that stopped the search, and the deadline set aside for the
    // pass that lowers what it found.
    let mut limit: Option<String> = None;
    let mut grace: Option<clock::Grace> = None;
    let mut rounds = 0;
    let mut past_end_done = false;
    let mut settled = false;
    let lowered = loop {
        mem.probe = if searching {
            sparse::probes(&mem, program.locations.len())
        } else {
            HashMap::new()
        };
        let mut bindings: Vec<HashMap<String, (String, usize)>> = vec![HashMap::new(); n];
        stages::bind_inputs(&m, &outputs, &program.generates, &mut bindings).map_err(located)?;
        let mut lowered: Vec<Option<lower::Gen>> = (0..n).map(|_| None).collect();
        for &k in &order {
            let place = lower::Place {
                index: k,
                grid,
                calls: sc
                    .calls
                    .iter()
                    .filter(|c| c.caller == k)
                    .map(|c| c.callees.clone())
                    .collect(),
                bindings: std::mem::take(&mut bindings[k]),
                output: outputs.of(k),
            };
            let mut g = lower::Gen::new(&m, &insts, &mem, place, &inputs).map_err(located)?;
            g.run(&entries[k].0).map_err(located)?;
            calls::bind(&sc, &m, &mem, k, &g, &mut bindings).map_err(located)?;
            lowered[k] = Some(g);
        }
        let sparse_error = |e: String| located((0, 0, e));
        let mut wanted: Vec<(String, usize, i64, u32)> = lowered
            .iter()
            .flatten()
            .flat_map(|g| g.wanted.iter().cloned())
            .collect();
        if searching && lowered.iter().flatten().any(|g| g.probed) {
            match sparse::probed(&program, &lowered, grid, &mem.probe) {
                Ok(found) => wanted.extend(found),
                Err(clock::WalkStop::Error(e)) => {
                    return Err(sparse_error(format!(
                        "a large buffer: vkmm gives locations to the cells the accesses reach, and could not find them ({e}); give the buffer a shorter length"
                    )));
                }
                // A bound stopped the search: what it found is lowered once
                // more, without probes, and the program carries the limit.
                Err(clock::WalkStop::Limit(e)) => {
                    limit = Some(format!(
                        "the search for the cells a large buffer's accesses reach did not finish: {e} (round {}, {} cells located): an access to a cell it did not reach is marked out of bounds",
                        rounds + 1,
                        located_cells(&mem)
                    ));
                    grace = Some(clock::Grace::start());
                    searching = false;
                    settled = true;
                    drop(lowered);
                    continue;
                }
            }
        }
        if (!wanted.is_empty() && !settled) || searching {
            drop(lowered);
            rounds += 1;
            if rounds > sparse::MAX_ROUNDS {
                limit = Some(format!(
                    "the cells a large buffer's accesses reach did not settle in {} rounds of the search ({} cells located): an access to a cell it did not reach is marked out of bounds",
                    sparse::MAX_ROUNDS,
                    located_cells(&mem)
                ));
                searching = false;
                settled = true;
                continue;
            }
            let added = sparse::materialise(
                &placing,
                &mut mem,
                &mut program,
                &mut widths,
                &mut arbitrary,
                wanted,
            )
            .map_err(sparse_error)?;
            if added == 0 {
                // Nothing new: once more, without the probes (and the
                // bytes asked for that no cell holds, padding, stay so).
                searching = false;
                settled = true;
            }
            continue;
        }
        if arbitrary.len() > MAX_UNDEFINED {
            return Err(sparse_error(format!(
                "the inputs make {} cells arbitrary; vkmm follows at most {MAX_UNDEFINED} arbitrary cells exactly: give the others values (zero, or the values the host writes)",
                arbitrary.len()
            )));
        }
        let wanted: Vec<(String, usize, i64, u32)> = lowered
            .iter()
            .flatten()
            .flat_map(|g| g.past_end.iter().cloned())
            .collect();
        if wanted.is_empty() || past_end_done {
            break lowered;
        }
        past_end_done = true;
        drop(lowered);
        past_end_cells(
            &m,
            &coherence,
            &mut mem,
            &mut program,
            &mut widths,
            (wanted, w),
        );
    };
    drop(grace);
    if let Some(message) = limit {
        program.warnings.push(crate::ir::FrontendWarning {
            file: file.to_string(),
            line: 1,
            column: 1,
            message: format!("undecided: {message}"),
        });
        program.front_end_limit = Some(message);
    }
    let mut coops = Vec::new();
    for (k, g) in lowered.into_iter().enumerate() {
        let g = g.expect("every invocation is lowered");
        for (register, var, source) in &g.out_of_bounds {
            program.out_of_bounds.push(crate::ir::OutOfBounds {
                thread: k,
                register: register.clone(),
                variable: format!("%{var}"),
                source: source.clone(),
            });
        }
        program.sizes.extend(g.sized.iter().map(|(l, s)| (*l, *s)));
        coops.push(g.coops.clone());
        let mut code = g.code;
        code.push(crate::ir::Stmt::Label {
            name: "END".into(),
            source: crate::ir::SourceSpan::default(),
        });
        let code = simplify(code);
        let mut names: Vec<String> = g.registers.iter().map(|(r, _)| r.clone()).collect();
        for st in &code {
            match st {
                crate::ir::Stmt::Assign { dest, .. } => names.push(dest.clone()),
                crate::ir::Stmt::Op(i) => names.extend(i.dest.clone()),
                _ => {}
            }
        }
        program.symbols.add_thread(format!("P{k}"), &names);
        // Reports name the invocation by its builtin ids too.
        if let Some(last) = program.symbols.threads.last_mut() {
            let [wx, wy, wz] = grid.unfold(k / grid.workgroup_size(), grid.groups);
            let [lx, ly, lz] = grid.unfold(k % grid.workgroup_size(), grid.local);
            last.label = Some(format!("wg {wx},{wy},{wz} lid {lx},{ly},{lz}"));
        }
        if let Some(stage) = entries[k].1 {
            program.stages.insert(k, stage);
        }
        program.threads.push(Thread {
            id: k,
            subgroup: k / t,
            workgroup: k / (t * s),
            queue_family: 0,
            device: 0,
            code,
            registers: g.registers,
            fragment: None,
        });
    }
    read_only_writes(&program, &mem).map_err(located)?;
    calls::check(&program, &insts).map_err(located)?;
    layout::cut_cells(&mut program, &mut widths).map_err(located)?;
    // A compiled shader's memory under the source's names (the module's
    // stay), before the conditions name it.
    let renamed = source_names.then(|| names::rename(&insts, &m, &mut program));
    if !source_names {
        names::alias(&insts, &m, &mut program);
    }
    program.condition = conditions(file, text, &h, &program)?;
    if let (Some(a), Some(given)) = (&asserted, &shader.assertion) {
        let expr = asserted_condition(a, &given.origin, &program)?;
        let filter = program.condition.take().and_then(|c| c.filter);
        program.condition = Some(Condition {
            quantifier: Some(a.quantifier),
            expr,
            filter,
            text: a.text(),
        });
    }
    if program.condition.is_none() {
        shown_outputs(&mut program);
    }
    sampled_memory(file, &sampled, &mem, &mut program)?;
    if let Some(c) = &mut program.condition {
        at_width(&mut c.expr, &widths);
        if let Some(f) = &mut c.filter {
            at_width(f, &widths);
        }
    }
    legacy::lint(file, &insts, options.legacy_memory_model, &mut program);
    legacy::unread(file, &insts, &m, &coherence, &mut program);
    odd_vectors(file, &insts, &mut program);
    workgroup_size(file, declared.as_ref(), config, shader, grid, &mut program);
    if let Some(renamed) = &renamed {
        names::respell_condition(renamed, &mut program);
    }
    // Cooperative matrices: the rules and the attributions, last (every
    // attribution is a copy of the whole program).
    coop::finish(&mut program, &coops).map_err(located)?;
    Ok(program)
}

/// The lowering folded the loads of read-only cells (`layout::read_only`)
/// on the word of the module's declarations; a write to one of them breaks
/// that word, and is an error at the writing instruction.
fn read_only_writes(program: &Program, mem: &lower::Memory) -> Result<(), syntax::Located> {
    if mem.read_only.is_empty() {
        return Ok(());
    }
    for t in &program.threads {
        for i in t.instructions() {
            let Some(loc) = i
                .reference
                .filter(|l| i.is_write() && mem.read_only.contains_key(l))
            else {
                continue;
            };
            return Err((
                i.source.line,
                1,
                format!(
                    "this instruction writes `{}`, which the module declares read-only (a uniform buffer: \"load operations can be performed on\" it; or decorated NonWritable: \"this module does not write to it\")",
                    program.locations[loc]
                ),
            ));
        }
    }
    Ok(())
}

/// A shader checked without a condition: its final states show what the
/// host can read back, the cells of storage buffers and images
/// (`UniformMemory` and `ImageMemory` storage classes) that some
/// instruction may write, in location order; its registers are SSA ids
/// the source never names, so they are not shown.
fn shown_outputs(program: &mut Program) {
    let mut written = std::collections::BTreeSet::new();
    for t in &program.threads {
        for i in t.instructions() {
            if i.is_write()
                && matches!(
                    i.storage_class,
                    Some(crate::ir::UNIFORM_MEMORY | crate::ir::IMAGE_MEMORY)
                )
                && let Some(r) = i.reference
            {
                written.insert(program.references[r].location);
            }
        }
    }
    program.shown_locations = written.into_iter().collect();
    program.registers_internal = true;
}

/// The locations that may hold a sampled value (`sampled.rs`): a
/// condition that reads one is refused (vkmm does not compute sampled
/// values, so it cannot decide it), and the final states leave them out,
/// with a warning at the sample, rather than show the 0 their registers
/// hold.
fn sampled_memory(
    file: &str,
    sampled: &sampled::Sampled,
    mem: &lower::Memory,
    program: &mut Program,
) -> Result<(), FrontendError> {
    let Some((line, column)) = sampled.origin else {
        return Ok(());
    };
    let held: std::collections::BTreeSet<usize> = mem
        .cells
        .iter()
        .flat_map(|((var, _), cells)| {
            cells
                .iter()
                .filter(|(c, _)| sampled.may_hold(var, &c.path))
                .map(|(_, loc)| *loc)
        })
        .collect();
    if let Some(c) = &program.condition {
        let mut terms = Vec::new();
        c.expr.terms(&mut terms);
        if let Some(f) = &c.filter {
            f.terms(&mut terms);
        }
        if let Some(l) = terms
            .iter()
            .flat_map(|t| t.locations())
            .find(|l| held.contains(l))
        {
            return Err(FrontendError {
                file: file.to_string(),
                line: 0,
                column: 0,
                message: format!(
                    "the condition `{}` reads `{}`, which may hold {}, a value vkmm does not compute, so it cannot decide the condition",
                    c.text, program.locations[l], sampled.what
                ),
            });
        }
    }
    program.uncomputed = held.iter().copied().collect();
    let hidden: Vec<String> = program
        .shown_locations
        .iter()
        .filter(|l| held.contains(l))
        .map(|l| program.locations[*l].clone())
        .collect();
    if !hidden.is_empty() {
        program.shown_locations.retain(|l| !held.contains(l));
        program.warnings.push(crate::ir::FrontendWarning {
            file: file.to_string(),
            line,
            column,
            message: format!(
                "the final states leave out {}: {} may hold {}, which vkmm does not compute",
                hidden.join(", "),
                if hidden.len() == 1 { "it" } else { "they" },
                sampled.what
            ),
        });
    }
    Ok(())
}

/// The cells of large variables that have a location.
fn located_cells(mem: &lower::Memory) -> usize {
    mem.sparse
        .keys()
        .map(|k| mem.cells.get(k).map_or(0, Vec::len))
        .sum()
}

/// The most cells a program may leave undefined (more: all start at 0).
const MAX_UNDEFINED: usize = 4;

use lower::MAX_PAST_END;

/// The flat out-of-bounds reading (Dat3M's memory is byte addressed):
/// each element past the end of a shared variable instance that an access
/// names (`wanted`: variable, instance, byte offset, size) becomes a
/// location of that instance, starting at 0 as the Workgroup variables
/// do, named `%v[k]` (the `k`-th element of an array, counting on past its
/// length) or `%v+OFFSET` (bytes from the start). Offsets below 0, past
/// [`MAX_PAST_END`] elements, overlapping another such element with a
/// different size, or of a variable neither Workgroup nor StorageBuffer-like
/// (Output, ray tracing data) get none: their accesses stay undefined
/// behaviour, marked.
fn past_end_cells(
    m: &Module,
    coherence: &legacy::Coherence,
    mem: &mut lower::Memory,
    program: &mut Program,
    widths: &mut Vec<u32>,
    (mut wanted, w): (Vec<(String, usize, i64, u32)>, usize),
) {
    wanted.sort();
    wanted.dedup();
    let mut added: HashMap<(String, usize), usize> = HashMap::new();
    for (var, instance, off, size) in wanted {
        let Some(g) = m.globals.iter().find(|g| g.id == var) else {
            continue;
        };
        let workgroups = match g.class {
            Class::Global => 1,
            Class::Workgroup => w,
            _ => continue,
        };
        let Some(cells) = mem.cells.get_mut(&(var.clone(), instance)) else {
            continue;
        };
        // The instance's own bytes, before any element past them.
        mem.real_end
            .entry((var.clone(), instance))
            .or_insert_with(|| {
                lower::extent_of(m, &var, cells.iter().map(|(c, _)| (c.offset, c.size)))
            });
        let count = added.entry((var.clone(), instance)).or_default();
        let end = i64::from(size);
        if off < 0
            || *count >= MAX_PAST_END
            || cells
                .iter()
                .any(|(c, _)| c.offset < off + end && off < c.offset + i64::from(c.size))
        {
            continue;
        }
        *count += 1;
        let (index, kind) = match m.ty(&g.pointee) {
            Some(module::Ty::Array { elem, .. } | module::Ty::RuntimeArray { elem }) => {
                let index = m
                    .stride(&g.pointee, elem)
                    .filter(|&s| s > 0 && off % s == 0 && m.size_of(elem) == Some(end))
                    .map(|s| off / s);
                (index, index.map(|_| m.kind_of(elem)))
            }
            _ => (None, None),
        };
        let kind = kind.unwrap_or(crate::ir::ValueKind::Signed(
            u8::try_from(size * 8).unwrap_or(64),
        ));
        let base = match index {
            Some(k) => format!("%{var}[{k}]"),
            None => format!("%{var}+{off}"),
        };
        let name = if workgroups > 1 {
            format!("{base}@wg{instance}")
        } else {
            base
        };
        let loc = program.locations.len();
        program.locations.push(name.clone());
        widths.push(size * 8);
        program.initial_values.push(0);
        note_kind(program, loc, kind);
        program.references.push(Reference {
            name: name.clone(),
            location: loc,
        });
        program.symbols.add_name(&name, vec![loc]);
        let path = index.map_or_else(Vec::new, |k| vec![k as usize]);
        if let Some(scope) = coherence.cell(m, g, &path) {
            mem.coherent.insert(loc, scope);
        }
        cells.push((
            module::Cell {
                offset: off,
                size,
                path,
                init: 0,
                kind,
            },
            loc,
        ));
    }
}

/// Parses a binary module (`.spv`). `headers` is the file holding its
/// Dat3M header comments and that file's text (`mp.spv.headers`), if any.
/// docs/format-spirv.md, "Binary modules".
pub fn parse_binary(
    file: &str,
    bytes: &[u8],
    headers: Option<(&str, &str)>,
) -> Result<Program, FrontendError> {
    parse_binary_with(file, bytes, headers, super::Options::default())
}

/// [`parse_binary`] with front-end options (the out-of-bounds reading).
pub fn parse_binary_with(
    file: &str,
    bytes: &[u8],
    headers: Option<(&str, &str)>,
    options: super::Options,
) -> Result<Program, FrontendError> {
    let asm = binary::disassemble(bytes).map_err(|(line, column, message)| FrontendError {
        file: file.to_string(),
        line,
        column,
        message,
    })?;
    if let Some((hfile, htext)) = headers {
        for (n, raw) in htext.lines().enumerate() {
            let t = raw.trim_start();
            if !t.is_empty() && !t.starts_with(';') {
                return Err(FrontendError {
                    file: hfile.to_string(),
                    line: n + 1,
                    column: raw.len() - t.len() + 1,
                    message: "expected a header comment (`; @Input: ...`, `; @Output: ...`, `; @Filter: ...`, `; @Config: T, S, W`) or a blank line".into(),
                });
            }
        }
    }
    parse_disassembly(file, &asm, headers, Positions::Instructions, options)
}

/// Lowers a module a compiler made of the shader `source` (GLSL, HLSL,
/// WGSL), rendered as text by [`binary::disassemble`]: the shader's `//`
/// header comments apply, positions go back to its lines through the
/// module's `OpLine`s, and `--set` applies to the module's specialization
/// constants (the caller leaves in `options.shader.set` only what the
/// source did not take: a `#define` line, a WGSL `const` or `override`).
fn parse_compiled(
    file: &str,
    source: &str,
    asm: &str,
    options: super::Options,
) -> Result<Program, FrontendError> {
    let h = glsl::headers(source);
    parse_disassembly(
        file,
        asm,
        Some((file, &h)),
        Positions::SourceLines(source),
        options,
    )
}

/// A compiled module as text; an error naming `compiler` when it cannot be
/// read.
fn disassemble_compiled(file: &str, bytes: &[u8], compiler: &str) -> Result<String, FrontendError> {
    binary::disassemble(bytes).map_err(|(_, _, m)| FrontendError {
        file: file.to_string(),
        line: 0,
        column: 0,
        message: format!("the SPIR-V {compiler} made of this shader: {m}"),
    })
}

/// What a position in a disassembled module is reported as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Positions<'s> {
    /// The instruction's number (a binary module).
    Instructions,
    /// The source line of the nearest `OpLine` before the instruction
    /// (a module compiled with debug lines from GLSL, WGSL, HLSL), a
    /// global variable's at its declaration in the source (this one).
    SourceLines(&'s str),
}

/// Lowers `asm` (one instruction per line, as [`binary::disassemble`]
/// renders a module) with the header comments `headers` appended, and
/// moves error positions back to where they came from: a header line to
/// its file, an instruction to its number or source line.
fn parse_disassembly(
    file: &str,
    asm: &str,
    headers: Option<(&str, &str)>,
    positions: Positions,
    options: super::Options,
) -> Result<Program, FrontendError> {
    let lines: Vec<&str> = asm.lines().collect();
    let mut text = asm.to_string();
    if let Some((_, h)) = headers {
        text.push_str(h);
        text.push('\n');
    }
    let sources = match positions {
        Positions::SourceLines(_) => names::Sources::read(&lines),
        Positions::Instructions => names::Sources::default(),
    };
    // The source position of the `OpLine` in force at a line, if any: in
    // the header its file operand names, if it names one.
    let line_of = |k: usize| -> Option<names::Place> {
        lines[..k.min(lines.len())].iter().rev().find_map(|l| {
            let mut w = l.split_whitespace();
            match w.next() {
                Some("OpLine") => {}
                // A function boundary: no OpLine of another function.
                Some("OpFunctionEnd") => return Some(None),
                _ => return None,
            }
            let header = sources.header(w.next()?).map(str::to_string);
            let line = w.next()?.parse::<usize>().ok()?;
            let col = w.next().and_then(|c| c.parse::<usize>().ok()).unwrap_or(1);
            Some(Some((header, line, col.max(1))))
        })?
    };
    // An instruction outside the functions has no OpLine: a global
    // variable is at its declaration in the source, another (a constant,
    // a type) at its first use that has one.
    let moved = |k: usize| -> Option<names::Place> {
        let Positions::SourceLines(source) = positions else {
            return None;
        };
        // A type or constant: follow its first use (a pointer type, the
        // variable of that type, an instruction of a function) until one
        // has a place; a few steps reach a variable from its array type.
        let mut at = k;
        for _ in 0..6 {
            if let Some(p) =
                line_of(at).or_else(|| names::declared_at(&lines, at, source, &sources))
            {
                return Some(p);
            }
            let id = lines.get(at - 1)?.split_whitespace().next()?;
            if !id.starts_with('%') {
                return None;
            }
            let annotation = |l: &str| {
                let l = l.trim_start();
                ["OpName", "OpMemberName", "OpDecorate", "OpMemberDecorate"]
                    .iter()
                    .any(|a| l.starts_with(a))
            };
            at = 1 + lines.iter().enumerate().skip(at).find_map(|(u, l)| {
                (l.split_whitespace().skip(1).any(|w| w == id) && !annotation(l)).then_some(u)
            })?;
        }
        None
    };
    // A shader compiled from source names its memory as the source does.
    let source_names = positions != Positions::Instructions;
    let mut program =
        parse_module(file, &text, false, source_names, &options).map_err(|mut e| {
            if e.line > lines.len() {
                if let Some((hfile, _)) = headers {
                    e.file = hfile.to_string();
                    e.line -= lines.len();
                }
            } else if e.line >= 1 {
                let k = e.line;
                let inst = lines[k - 1].trim();
                match positions {
                    Positions::Instructions => {
                        e.message = format!("{} (instruction {k}: `{inst}`)", e.message);
                    }
                    Positions::SourceLines(_) => {
                        let (header, line, column) = moved(k).unwrap_or((None, 0, 0));
                        (e.line, e.column) = (line, column);
                        if let Some(h) = header {
                            e.file = glsl::included(file, &h, &options.shader);
                        }
                        e.message = format!(
                            "{} (in instruction {k} of the SPIR-V compiled from it: `{inst}`)",
                            e.message
                        );
                    }
                }
            }
            e
        })?;
    // Warnings about instructions: at their source line (the first line of
    // the shader when no OpLine precedes them).
    if positions != Positions::Instructions {
        for w in &mut program.warnings {
            if (1..=lines.len()).contains(&w.line) {
                let (header, line, column) = moved(w.line).unwrap_or((None, 1, 1));
                (w.line, w.column) = (line, column);
                if let Some(h) = header {
                    w.file = glsl::included(file, &h, &options.shader);
                }
            }
        }
        // Events read `line 9: %36 = OpAtomicLoad ...`: the shader's line,
        // the compiled instruction; in a header, `HEADER:9: ...`.
        // Each header's name is resolved once and shared by its statements.
        let mut files: std::collections::HashMap<String, crate::ir::SpanText> =
            std::collections::HashMap::new();
        let mut place = |source: &mut crate::ir::SourceSpan| {
            if (1..=lines.len()).contains(&source.line) {
                let (header, line, _) = moved(source.line).unwrap_or((None, 0, 0));
                source.line = line;
                source.file = header.map(|h| {
                    files
                        .entry(h)
                        .or_insert_with_key(|h| glsl::included(file, h, &options.shader).into())
                        .clone()
                });
            }
        };
        for t in &mut program.threads {
            for st in &mut t.code {
                let source = match st {
                    crate::ir::Stmt::Op(i) => &mut i.source,
                    crate::ir::Stmt::Label { source, .. }
                    | crate::ir::Stmt::Goto { source, .. }
                    | crate::ir::Stmt::Branch { source, .. }
                    | crate::ir::Stmt::Assign { source, .. } => source,
                };
                place(source);
            }
        }
        for site in &mut program.out_of_bounds {
            place(&mut site.source);
        }
    }
    Ok(program)
}

/// The entry point's workgroup size (`LocalSize X Y Z`, or `LocalSizeId`
/// of constants) against the grid vkmm runs: a warning when `@Config` runs
/// another size (the command line's `--local-size` says so itself).
fn workgroup_size(
    file: &str,
    declared: Option<&dispatch::Declared>,
    config: Option<(usize, usize, usize)>,
    shader: &super::ShaderOptions,
    grid: Grid,
    program: &mut Program,
) {
    let Some(d) = declared else { return };
    if shader.local_size.is_some() || d.size == grid.local {
        return;
    }
    let declared_total: usize = d.size.iter().product();
    if declared_total == grid.workgroup_size() && config.is_some() {
        return;
    }
    let (t, s, _) = config.unwrap_or((1, 1, 1));
    program.warnings.push(super::FrontendWarning {
        file: file.to_string(),
        line: d.line,
        column: d.col,
        message: format!(
            "the entry point's workgroup has {declared_total} invocations ({} {} {} {}) but @Config gives {t} x {s} = {}: vkmm runs the @Config grid",
            d.mode,
            d.size[0],
            d.size[1],
            d.size[2],
            t * s
        ),
    });
}

/// Vectors SPIR-V does not allow: OpTypeVector, "Component Count is the
/// number of components. It must be at least 2" (2, 3, 4, and 8, 16 with
/// the Vector16 capability). vkmm reads other counts (Dat3M's corpus has 1
/// and 24) as that many packed components; a warning at the count.
fn odd_vectors(file: &str, insts: &[syntax::Inst], program: &mut Program) {
    for i in insts.iter().filter(|i| i.op == ::spirv::Op::TypeVector) {
        let Ok(n) = i.int(1) else { continue };
        if ![2, 3, 4, 8, 16].contains(&n) {
            program.warnings.push(super::FrontendWarning {
                file: file.to_string(),
                line: i.line,
                column: i.operands.get(1).map_or(i.col, |o| o.col),
                message: format!(
                    "a vector of {n} component{s}: SPIR-V allows 2, 3, 4, 8 and 16 (\"It must be at least 2\"); vkmm reads {n} packed component{s}",
                    s = if n == 1 { "" } else { "s" }
                ),
            });
        }
    }
}

/// A condition's constants compared with a location, at the location's
/// width: `%x == -1` and `%x == 4294967295` both mean all 32 bits set for a
/// 32-bit `%x` (values are the signed reading of their bits).
fn at_width(e: &mut CondExpr, widths: &[u32]) {
    use crate::ir::Term;
    match e {
        CondExpr::Eq(a, b) | CondExpr::Ne(a, b) | CondExpr::Cmp(_, a, b) => {
            let w = match (&*a, &*b) {
                (Term::Loc(l), _) | (_, Term::Loc(l)) => widths.get(*l).copied(),
                // A cell cut into chunks (docs/format-spirv.md, "Byte offsets").
                (Term::Bytes { parts, .. }, _) | (_, Term::Bytes { parts, .. }) => {
                    Some(parts.iter().map(|p| 8 * p.len).sum())
                }
                _ => None,
            };
            if let Some(w) = w {
                for t in [a, b] {
                    if let Term::Const(c) = t {
                        *c = module::wrap_const(*c, w);
                    }
                }
            }
        }
        CondExpr::Not(x) => at_width(x, widths),
        CondExpr::And(x, y) | CondExpr::Or(x, y) => {
            at_width(x, widths);
            at_width(y, widths);
        }
        CondExpr::True | CondExpr::False => {}
    }
}

/// Records what location `loc`'s bits mean to a reader, where that is not
/// the signed integer every location is by default.
pub(super) fn note_kind(program: &mut Program, loc: usize, kind: crate::ir::ValueKind) {
    if !matches!(kind, crate::ir::ValueKind::Signed(_)) {
        program.symbols.kinds.insert(loc, kind);
    }
}

/// A constant as an initial value (an undefined part is 0).
fn init_of(c: &module::CVal) -> Init {
    match c {
        module::CVal::Int(v) => Init::Num(*v),
        module::CVal::Comp(items) => Init::List(items.iter().map(init_of).collect()),
        module::CVal::Undef => Init::Num(0),
    }
}

/// Parses an `--outcome` against a SPIR-V program: the `@Output` syntax
/// (`%buf[2] == 1 and %buf[3] == 0`).
pub(crate) fn parse_outcome(program: &Program, outcome: &str) -> Result<CondExpr, FrontendError> {
    let src = Src::new(outcome);
    let syntax = CondSyntax {
        bang_negation: true,
        instance_names: false,
        text: TextStyle::Source,
        spirv: true,
    };
    let mut lx = Lexer::new(&src, lexer::SPIRV, 0, outcome.chars().count());
    let e = condition::expression(&mut lx, &syntax, &program.symbols)
        .map_err(|e| src.error("--outcome", e))?;
    lx.end_or(|t| format!("expected the end of the outcome, found {}", t.show()))
        .map_err(|e| src.error("--outcome", e))?;
    let mut terms = Vec::new();
    e.terms(&mut terms);
    if let Some(l) = terms
        .iter()
        .flat_map(|t| t.locations())
        .find(|l| program.uncomputed.contains(l))
    {
        return Err(FrontendError {
            file: "--outcome".into(),
            line: 1,
            column: 1,
            message: format!(
                "the outcome `{outcome}` reads `{}`, which may hold the value of a sample or the components of a cooperative matrix: vkmm reads a sample as reads of every texel it may read and does not compute its value, nor a matrix's (\"The mapping of components to invocations and indexes is implementation-dependent\"), so no execution can be said to end in this outcome (docs/format-spirv.md, \"Sampling\", \"Cooperative matrices\")",
                program.locations[l]
            ),
        });
    }
    Ok(e)
}

/// The expression of a condition given from outside the shader
/// (`--assert`, a manifest's assertion), its errors at the column of the
/// text as written, under the name of the option or column (`origin`).
fn asserted_condition(
    a: &super::assertion::Assertion,
    origin: &str,
    program: &Program,
) -> Result<CondExpr, FrontendError> {
    let src = Src::new(&a.expr);
    let syntax = CondSyntax {
        bang_negation: true,
        instance_names: false,
        text: TextStyle::Source,
        spirv: true,
    };
    // `--assert `out[0] === 2`: column 10: expected ...`.
    let err = |(at, message): (usize, String)| FrontendError {
        file: format!("{origin} `{}`", a.written),
        line: 0,
        column: a.column(at),
        message: format!("column {}: {message}", a.column(at)),
    };
    let mut lx = Lexer::new(&src, lexer::SPIRV, 0, a.expr.chars().count());
    let e = condition::expression(&mut lx, &syntax, &program.symbols).map_err(err)?;
    lx.end_or(|t| format!("expected the end of the condition, found {}", t.show()))
        .map_err(err)?;
    Ok(e)
}

/// Whether a program came from this front end (its invocations carry
/// their builtin ids).
pub(crate) fn is_spirv(program: &Program) -> bool {
    program.symbols.threads.iter().any(|t| t.label.is_some())
}

/// The headers' condition: `@Output` lines (`forall` lines joined with
/// `and`, `exists` lines with `and`, `not exists` lines with `or`) and
/// the `@Filter`.
fn conditions(
    file: &str,
    text: &str,
    h: &headers::Headers,
    program: &Program,
) -> Result<Option<Condition>, FrontendError> {
    // The headers' conditions are located by character in the whole
    // text; the characters up to the last of them are all they read (a
    // module's instructions, after them, may be megabytes).
    let end = h
        .outputs
        .iter()
        .chain(&h.filter)
        .map(|c| c.end)
        .max()
        .unwrap_or(0);
    let read = text
        .char_indices()
        .nth(end)
        .map_or(text, |(b, _)| &text[..b]);
    let src = Src::new(read);
    let syntax = CondSyntax {
        bang_negation: true,
        instance_names: false,
        text: TextStyle::Source,
        spirv: true,
    };
    let err = |e| src.error(file, e);
    let mut quantifier: Option<Quantifier> = None;
    let mut exprs: Vec<CondExpr> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    for c in &h.outputs {
        let mut lx = Lexer::new(&src, lexer::SPIRV, c.start, c.end);
        let first = lx.next().map_err(err)?;
        let q = if first.is_ident("forall") {
            Quantifier::Forall
        } else if first.is_ident("exists") {
            Quantifier::Exists
        } else if first.is_ident("not") || first.is_punct("~") || first.is_punct("!") {
            let e = lx.next().map_err(err)?;
            if !e.is_ident("exists") {
                return Err(err((
                    e.at,
                    format!("expected `exists` after `not`, found {}", e.show()),
                )));
            }
            Quantifier::NotExists
        } else {
            return Err(err((
                first.at,
                format!(
                    "expected `forall`, `exists` or `not exists`, found {}",
                    first.show()
                ),
            )));
        };
        if quantifier.is_some_and(|p| p != q) {
            return Err(err((
                first.at,
                "@Output lines mix quantifiers: vkmm combines lines of one quantifier only".into(),
            )));
        }
        quantifier = Some(q);
        let e = condition::expression(&mut lx, &syntax, &program.symbols).map_err(err)?;
        lx.end_or(|t| format!("expected the end of the @Output line, found {}", t.show()))
            .map_err(err)?;
        exprs.push(e);
        texts.push(src.text(c.start, c.end).trim().to_string());
    }
    let filter = match &h.filter {
        Some(CondText { start, end, .. }) => {
            let mut lx = Lexer::new(&src, lexer::SPIRV, *start, *end);
            let e = condition::expression(&mut lx, &syntax, &program.symbols).map_err(err)?;
            lx.end_or(|t| format!("expected the end of the @Filter line, found {}", t.show()))
                .map_err(err)?;
            texts.push(format!("filter {}", src.text(*start, *end).trim()));
            Some(e)
        }
        None => None,
    };
    if quantifier.is_none() && filter.is_none() {
        return Ok(None);
    }
    let join = |a: CondExpr, b: CondExpr| match quantifier {
        Some(Quantifier::NotExists) => CondExpr::Or(Box::new(a), Box::new(b)),
        _ => CondExpr::And(Box::new(a), Box::new(b)),
    };
    let expr = exprs.into_iter().reduce(join).unwrap_or(CondExpr::True);
    Ok(Some(Condition {
        quantifier,
        expr,
        filter,
        text: texts.join(" ; "),
    }))
}

/// Drops jumps to the next statement (past labels) and labels no jump
/// targets, until none is left: blocks laid out in order then read as
/// straight-line code, and loops whose body only leaves forward become
/// spin loops the engine can run as awaits. A conditional branch over an
/// unconditional jump (`if c goto X; goto Y; X:`, what OpBranchConditional
/// to the next block becomes) is turned round first (`if !c goto Y; X:`),
/// so that a loop `head: ... OpBranchConditional %c %continue %merge`
/// whose continue block jumps back reads `head: ... if !c goto merge;
/// goto head` (the shape `engine::trace::spin_loops` recognises).
fn simplify(mut code: Vec<crate::ir::Stmt>) -> Vec<crate::ir::Stmt> {
    use crate::ir::Stmt;
    for k in 0..code.len().saturating_sub(2) {
        let (
            Stmt::Branch { label: x, .. },
            Stmt::Goto {
                label: y,
                source: goto_source,
            },
            Stmt::Label { name, .. },
        ) = (&code[k], &code[k + 1], &code[k + 2])
        else {
            continue;
        };
        if x != name || x == y {
            continue;
        }
        let (y, name, goto_source) = (y.clone(), name.clone(), goto_source.clone());
        if let Stmt::Branch { cmp, label, .. } = &mut code[k] {
            *cmp = cmp.negate();
            *label = y;
        }
        // Now a jump to the next statement: dropped below.
        code[k + 1] = Stmt::Goto {
            label: name,
            source: goto_source,
        };
    }
    loop {
        let before = code.len();
        let mut keep = vec![true; code.len()];
        for (k, st) in code.iter().enumerate() {
            if let Stmt::Goto { label, .. } = st {
                let falls = code[k + 1..]
                    .iter()
                    .take_while(|s| matches!(s, Stmt::Label { .. }))
                    .any(|s| matches!(s, Stmt::Label { name, .. } if name == label));
                if falls {
                    keep[k] = false;
                }
            }
        }
        let mut k = 0;
        code.retain(|_| {
            k += 1;
            keep[k - 1]
        });
        let targets: std::collections::HashSet<String> = code
            .iter()
            .filter_map(|s| match s {
                Stmt::Goto { label, .. } | Stmt::Branch { label, .. } => Some(label.clone()),
                _ => None,
            })
            .collect();
        code.retain(|s| !matches!(s, Stmt::Label { name, .. } if !targets.contains(name)));
        if code.len() == before {
            return code;
        }
    }
}
