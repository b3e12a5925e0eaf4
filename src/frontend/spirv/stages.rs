//! Graphics shader stages in a SPIR-V module: the instances of
//! `Output` variables, the `Input` variables a generated invocation reads
//! its generators' outputs through (Shader I/O), and the legacy memory
//! model mode (Tessellation Output Ordering). docs/format-spirv.md,
//! "Shader stages, Input and Output".

use super::module::{Class, Grid, Module};
use super::syntax::{Inst, Located, Tok};
use crate::ir::ShaderStage;
use std::collections::HashMap;

/// Which instance of the module's `Output` variables each invocation
/// accesses.
///
/// A program without graphics stages keeps one instance for all (Dat3M's
/// reading of `Output` in a compute shader, the corpus's). With them, each
/// invocation has its own, except that the TessellationControl invocations
/// of one workgroup (vkmm's patch, as in the Vulkan litmus dialect, where
/// `wg` places the invocations a control barrier meets) share one: the
/// appendix's rule is about invocations accessing each other's outputs
/// ("If shader invocations AX and AY in the TessellationControl execution
/// model execute memory operations X and Y, respectively, on the Output
/// storage class ..."), which they do through the patch's output arrays.
pub(super) struct Outputs {
    /// The instance of each invocation.
    of: Vec<usize>,
    /// The name suffix of each instance (`@P0`, `@wg1`).
    suffixes: Vec<String>,
}

impl Outputs {
    pub fn new(entries: &[(String, Option<ShaderStage>)], grid: Grid) -> Outputs {
        let graphics = entries
            .iter()
            .any(|e| e.1.is_some_and(|s| !s.is_ray_tracing()));
        if !graphics {
            return Outputs {
                of: vec![0; entries.len()],
                suffixes: vec![String::new()],
            };
        }
        let mut suffixes: Vec<String> = Vec::new();
        let of = entries
            .iter()
            .enumerate()
            .map(|(k, e)| {
                let suffix = if e.1 == Some(ShaderStage::TessellationControl) {
                    format!("@wg{}", k / grid.workgroup_size())
                } else {
                    format!("@P{k}")
                };
                match suffixes.iter().position(|s| *s == suffix) {
                    Some(i) => i,
                    None => {
                        suffixes.push(suffix);
                        suffixes.len() - 1
                    }
                }
            })
            .collect();
        Outputs { of, suffixes }
    }

    /// How many instances each Output variable has.
    pub fn count(&self) -> usize {
        self.suffixes.len()
    }

    /// The name suffix of instance `i`.
    pub fn suffix(&self, i: usize) -> String {
        self.suffixes.get(i).cloned().unwrap_or_default()
    }

    /// The instance invocation `k` accesses.
    pub fn of(&self, k: usize) -> usize {
        self.of.get(k).copied().unwrap_or(0)
    }
}

/// The `Location` decoration of a variable.
fn location(m: &Module, id: &str) -> Option<i64> {
    match m.decoration(id, "Location")?.first()? {
        Tok::Int(n) => i64::try_from(*n).ok(),
        _ => None,
    }
}

/// The (offset, size) of each scalar cell of a type.
fn layout(m: &Module, ty: &str) -> Vec<(i64, u32)> {
    let mut cells = Vec::new();
    if m.cells(ty, 0, &mut Vec::new(), None, &mut cells).is_err() {
        return Vec::new();
    }
    cells.iter().map(|c| (c.offset, c.size)).collect()
}

/// Binds the `Input` variables (those with a `Location`, not built-ins) of
/// each invocation some `@Generates` line names to the `Output` variable
/// with the same `Location`, in the instance of the invocation(s) that
/// generate it. The appendix, "Shader I/O": "If a shader invocation A in a
/// shader stage other than Vertex performs a memory read operation X from
/// an object in storage class ... Input, then X is
/// system-synchronized-after all writes to the corresponding ... Output
/// storage variable(s) in the shader invocation(s) that contribute to
/// generating invocation A, and those writes are all visible-to X." The
/// corresponding variable is the one whose `Location` matches (SPIR-V,
/// Location: "Apply to a variable to specify the location number"; the
/// Vulkan interface matching rules pair outputs and inputs by location).
/// An invocation nothing generates keeps its Input variables in
/// registers, as before.
pub(super) fn bind_inputs(
    m: &Module,
    outputs: &Outputs,
    generates: &[(usize, usize)],
    bindings: &mut [HashMap<String, (String, usize)>],
) -> Result<(), Located> {
    for (k, bound) in bindings.iter_mut().enumerate() {
        let makers: Vec<usize> = generates.iter().filter(|g| g.1 == k).map(|g| g.0).collect();
        let Some(&first) = makers.first() else {
            continue;
        };
        for v in m
            .globals
            .iter()
            .filter(|v| v.class_name == "Input" && m.builtin(&v.id).is_none())
        {
            let Some(loc) = location(m, &v.id) else {
                return Err((
                    v.line,
                    v.col,
                    format!(
                        "the Input variable `%{}` of P{k}, which @Generates gives generating invocations, has no `Location` decoration: expected `OpDecorate %{} Location N` naming the Output variable it reads",
                        v.id, v.id
                    ),
                ));
            };
            let Some(out) = m
                .globals
                .iter()
                .find(|o| o.class == Class::Output && location(m, &o.id) == Some(loc))
            else {
                return Err((
                    v.line,
                    v.col,
                    format!(
                        "no Output variable has Location {loc}, the Location of the Input variable `%{}`: expected the corresponding Output variable the generating invocations write",
                        v.id
                    ),
                ));
            };
            let instance = outputs.of(first);
            if let Some(&other) = makers.iter().find(|&&g| outputs.of(g) != instance) {
                return Err((
                    v.line,
                    v.col,
                    format!(
                        "P{k} is generated by P{first} and P{other}, which have distinct instances of `%{}`: vkmm binds an Input variable to one instance (the invocations generating one invocation are TessellationControl invocations of one workgroup, or one invocation)",
                        out.id
                    ),
                ));
            }
            if layout(m, &v.pointee) != layout(m, &out.pointee) {
                return Err((
                    v.line,
                    v.col,
                    format!(
                        "the Input variable `%{}` does not have the layout of the Output variable `%{}` with the same Location {loc}",
                        v.id, out.id
                    ),
                ));
            }
            bound.insert(v.id.clone(), (out.id.clone(), instance));
        }
    }
    Ok(())
}

/// Whether the module is legacy SPIR-V: its `OpMemoryModel` is not
/// `Vulkan`. SPIR-V, OpMemoryModel: "Set addressing model and memory
/// model for the entire module." Memory Model: "Simple: No shared memory
/// consistency issues.", "GLSL450: Memory model needed by later versions
/// of GLSL and ESSL. Works across multiple versions.", "Vulkan: Vulkan
/// memory model, as specified by the client API." The appendix,
/// "Tessellation Output Ordering": "For legacy SPIR-V that does not enable
/// the Vulkan Memory Model via OpMemoryModel, tessellation outputs can be
/// ordered using a control barrier with no particular memory scope or
/// semantics" (`Program::legacy`, the base set `LEGACY`).
pub(super) fn is_legacy(insts: &[Inst]) -> bool {
    insts
        .iter()
        .find(|i| i.op == ::spirv::Op::MemoryModel)
        .is_some_and(|mm| mm.word(1).is_ok_and(|w| w == "GLSL450" || w == "Simple"))
}
