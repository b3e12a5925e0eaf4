//! The GLSL450 (and Simple) memory model, read as GLSL compilers and
//! drivers read it (`--legacy-memory-model coherent`, the default) or
//! literally (`strict`); docs/format-spirv.md, "The GLSL450 memory model".
//!
//! vkmm's models are the Vulkan memory model, whose availability and
//! visibility operations come from memory operands. A module under the
//! GLSL450 model has none: its coherence is in decorations and storage
//! classes. The Vulkan memory-model appendix ("Availability and
//! Visibility" notes) says how one maps to the other: "While GLSL (and
//! legacy SPIR-V) applies the "coherent" decoration to variables (for
//! historical reasons), this model treats each memory access instruction
//! as having optional implicit availability/visibility operations. GLSL to
//! SPIR-V compilers should map all (non-atomic) operations on a coherent
//! variable to Make{Pointer,Texel}{Available}{Visible} flags in this
//! model." The coherent reading applies that map to the module's plain
//! accesses (`Coherence`); the lowering gives each such access the flags
//! the Vulkan memory model's operands would (`Gen::mem_instruction`).
//!
//! Barriers need nothing of their own: glslang compiles GLSL's `barrier()`
//! to `OpControlBarrier Workgroup Workgroup AcquireRelease|WorkgroupMemory`,
//! `memoryBarrier()` to `OpMemoryBarrier Device
//! AcquireRelease|UniformMemory|WorkgroupMemory|AtomicCounterMemory|ImageMemory`,
//! `memoryBarrierBuffer()` to `OpMemoryBarrier Device
//! AcquireRelease|UniformMemory`, `memoryBarrierShared()` to
//! `OpMemoryBarrier Device AcquireRelease|WorkgroupMemory`,
//! `groupMemoryBarrier()` to `OpMemoryBarrier Workgroup` with
//! `memoryBarrier()`'s semantics; naga compiles WGSL's `workgroupBarrier()`
//! to `OpControlBarrier Workgroup Workgroup AcquireRelease|WorkgroupMemory`
//! and `storageBarrier()` to `OpControlBarrier Workgroup Device
//! AcquireRelease|UniformMemory`. These are acquire-release barriers the
//! Vulkan memory model reads as written; with the accesses' availability
//! and visibility operations they order what GLSL says they order.

use super::module::{Class, Global, Module, Ty};
use super::syntax::{Inst, Tok};
use crate::frontend::LegacyMemoryModel;
use crate::ir::{Program, Scope};
use std::collections::HashSet;

/// Whether the module's `OpMemoryModel` is GLSL450 or Simple (SPIR-V,
/// Memory Model: "Simple: No shared memory consistency issues.",
/// "GLSL450: Memory model needed by later versions of GLSL and ESSL.
/// Works across multiple versions.").
fn memory_model(insts: &[Inst]) -> Option<&Inst> {
    insts
        .iter()
        .find(|i| i.op == ::spirv::Op::MemoryModel)
        .filter(|mm| mm.word(1).is_ok_and(|w| w == "GLSL450" || w == "Simple"))
}

/// The decorations SPIR-V gives legacy coherence.
///
/// SPIR-V, Decoration, Coherent: "This indicates the memory backing the
/// object is coherent. Coherent is not allowed if the declared memory
/// model is Vulkan. The memory operand bits MakePointerAvailable and
/// MakePointerVisible or the image operand bits MakeTexelAvailable and
/// MakeTexelVisible can be used instead."
///
/// SPIR-V, Decoration, Volatile: "This indicates the memory holding the
/// variable is volatile memory. Accesses to volatile memory cannot be
/// eliminated, duplicated, or combined with other accesses. Volatile
/// applies only to a single invocation and does not guarantee each
/// invocation performs the access. Volatile is not allowed if the declared
/// memory model is Vulkan. The memory operand bit Volatile, the image
/// operand bit VolatileTexel, or the memory semantic bit Volatile can be
/// used instead." vkmm lowers every access instruction to its own events
/// and never eliminates, duplicates or combines them, so Volatile is
/// honoured as it stands; it is not coherence (the SPIR-V text names
/// none). GLSL's "variables declared as volatile are automatically treated
/// as coherent" (GLSL 4.60, Memory Qualifiers) is the compiler's to spell:
/// glslang decorates a `volatile` member both `Volatile` and `Coherent`.
const COHERENT: &str = "Coherent";

/// Which cells of a GLSL450 module the coherent reading gives
/// per-instruction availability and visibility, and at which scope.
#[derive(Default)]
pub(super) struct Coherence {
    /// Whether the coherent reading applies (a GLSL450 or Simple module,
    /// `LegacyMemoryModel::Coherent` or `Wgsl`).
    pub applies: bool,
    /// WGSL's reading (`LegacyMemoryModel::Wgsl`): storage buffers and
    /// workgroup variables coherent at Workgroup scope.
    wgsl: bool,
    /// `(struct type, member)` decorated `Coherent`.
    members: HashSet<(String, usize)>,
}

impl Coherence {
    pub fn new(insts: &[Inst], reading: LegacyMemoryModel) -> Coherence {
        let wgsl = reading == LegacyMemoryModel::Wgsl;
        let applies =
            (reading == LegacyMemoryModel::Coherent || wgsl) && memory_model(insts).is_some();
        let mut members = HashSet::new();
        for i in insts.iter().filter(|i| i.op == ::spirv::Op::MemberDecorate) {
            if let (Ok(st), Ok(k), Ok(d)) = (i.id(0), i.int(1), i.word(2))
                && d == COHERENT
                && let Ok(k) = usize::try_from(k)
            {
                members.insert((st.to_string(), k));
            }
        }
        Coherence {
            applies,
            wgsl,
            members,
        }
    }

    /// The scope of a whole variable's coherence: Workgroup for a
    /// Workgroup variable, Device for one decorated `Coherent`.
    ///
    /// GLSL 4.60, Shared Variables: "Shared variables are implicitly
    /// coherent", "Any data written to shared variables will be visible to
    /// other work items (executing the same shader) within the same
    /// workgroup", "In order to achieve ordering with respect to reads and
    /// writes to shared variables, control flow barriers must be employed
    /// using the barrier() function". glslang under the Vulkan memory
    /// model: "shared variables are implicitly workgroupcoherent in GLSL"
    /// (Workgroup scope).
    ///
    /// The `Coherent` decoration names no scope. glslang's mapping of
    /// `coherent` to a scope (`TranslateMemoryScope`): "coherent defaults
    /// to Device scope in the old model, QueueFamilyKHR scope in the new
    /// model"; vkmm reads a GLSL450 module as that old model: Device. (For
    /// one dispatch the two scopes hold the same invocations.)
    ///
    /// WGSL's reading: a variable in the storage (a storage or uniform
    /// buffer: `Class::Global`) or workgroup address space is coherent at
    /// Workgroup scope (WGSL 14.5.5: "All non-atomic read accesses in the
    /// storage or workgroup address spaces are considered non-private and
    /// correspond to read operations with NonPrivatePointer |
    /// MakePointerVisible memory operands with the Workgroup scope", "All
    /// non-atomic write accesses in the storage or workgroup address
    /// spaces are considered non-private and correspond to write
    /// operations with NonPrivatePointer | MakePointerAvailable memory
    /// operands with the Workgroup scope"). Textures keep the decoration's
    /// reading: the section names only those two address spaces.
    pub fn variable(&self, m: &Module, g: &Global) -> Option<Scope> {
        if !self.applies {
            return None;
        }
        if g.class == Class::Workgroup || (self.wgsl && g.class == Class::Global) {
            return Some(Scope::Workgroup);
        }
        let eligible = matches!(g.class, Class::Global | Class::Image);
        (eligible && m.decoration(&g.id, COHERENT).is_some()).then_some(Scope::Device)
    }

    /// The scope of one cell's coherence: its variable's, or Device when
    /// a struct member on the way from the variable's type down to the
    /// cell (`path`) is decorated `Coherent` (glslang decorates the
    /// members of a `coherent buffer` block, not the variable).
    pub fn cell(&self, m: &Module, g: &Global, path: &[usize]) -> Option<Scope> {
        if let Some(s) = self.variable(m, g) {
            return Some(s);
        }
        if !self.applies || !matches!(g.class, Class::Global | Class::Image) {
            return None;
        }
        let mut ty = g.pointee.as_str();
        for &k in path {
            ty = match m.ty(ty)? {
                Ty::Struct { members } => {
                    if self.members.contains(&(ty.to_string(), k)) {
                        return Some(Scope::Device);
                    }
                    members.get(k)?
                }
                Ty::Array { elem, .. }
                | Ty::RuntimeArray { elem }
                | Ty::Vector { elem, .. }
                | Ty::Strided { elem, .. }
                | Ty::Matrix { col: elem, .. } => elem,
                _ => return None,
            };
        }
        None
    }
}

/// The lint of a GLSL450 (or Simple) module: which reading applied, at
/// the `OpMemoryModel` (line 1 of a GLSL shader). Under the strict
/// reading, it also says that `Coherent` decorations are not read.
pub(super) fn lint(file: &str, insts: &[Inst], reading: LegacyMemoryModel, program: &mut Program) {
    let Some(mm) = memory_model(insts) else {
        return;
    };
    let model = mm.word(1).unwrap_or_default();
    let decorated = insts.iter().any(|i| {
        matches!(i.op, ::spirv::Op::Decorate | ::spirv::Op::MemberDecorate)
            && i.operands
                .iter()
                .any(|o| matches!(&o.tok, Tok::Word(w) if w == "Coherent" || w == "Volatile"))
    });
    let message = match reading {
        LegacyMemoryModel::Coherent => format!(
            "the module uses the {model} memory model: vkmm reads it as GLSL compilers and drivers do (`--legacy-memory-model coherent`): Workgroup variables coherent at Workgroup scope, `Coherent` ones at Device scope, other plain accesses private (docs/format-spirv.md); `--legacy-memory-model strict` reads it literally"
        ),
        LegacyMemoryModel::Wgsl => format!(
            "naga writes the module with the {model} memory model: vkmm reads it as the WGSL specification maps WGSL to the Vulkan memory model (14.5): plain accesses to storage buffers and workgroup variables non-private, available and visible at Workgroup scope; atomics relaxed; `--legacy-memory-model strict` reads naga's module literally"
        ),
        LegacyMemoryModel::Strict => format!(
            "the module uses the {model} memory model, read literally (`--legacy-memory-model strict`): every plain access is private{}; vkmm reads the Vulkan memory model's operands (MakePointerAvailable/Visible, NonPrivatePointer), which GLSL gets with `#pragma use_vulkan_memory_model`; `--legacy-memory-model coherent` (the default) reads Workgroup and `Coherent` variables as GLSL does",
            if decorated {
                " and its `Coherent`/`Volatile` decorations are not read"
            } else {
                ""
            }
        ),
    };
    program.warnings.push(crate::frontend::FrontendWarning {
        file: file.to_string(),
        line: mm.line,
        column: mm.col,
        message,
    });
}

/// Decorations the coherent reading does not apply: `Coherent` on an id
/// that is not a module-scope variable (a function parameter, a pointer
/// made inside a function). A warning at the decoration.
pub(super) fn unread(
    file: &str,
    insts: &[Inst],
    m: &Module,
    coherence: &Coherence,
    program: &mut Program,
) {
    if !coherence.applies {
        return;
    }
    // Module-scope variables of every class: those in registers (Private,
    // Input, ...) belong to one invocation, where coherence changes nothing.
    let variables: HashSet<&str> = m.globals.iter().map(|g| g.id.as_str()).collect();
    for i in insts.iter().filter(|i| i.op == ::spirv::Op::Decorate) {
        let (Ok(id), Ok(d)) = (i.id(0), i.word(1)) else {
            continue;
        };
        if d != COHERENT || variables.contains(id) || m.ty(id).is_some() {
            continue;
        }
        program.warnings.push(crate::frontend::FrontendWarning {
            file: file.to_string(),
            line: i.line,
            column: i.col,
            message: format!(
                "`%{id}` is decorated Coherent but is not a module-scope variable (a function parameter or a pointer): the coherent reading applies the decorations of variables and struct members only, so accesses through `%{id}` carry the flags of the variable they reach"
            ),
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::frontend::{LegacyMemoryModel, Options};
    use crate::ir::{OpKind, Scope, Stmt};

    /// A module with every kind of variable the coherent reading tells
    /// apart: a Workgroup variable `%w`, a block `%b` whose member 0 is
    /// decorated Coherent and member 1 is not, a plain StorageBuffer
    /// variable `%p`, a StorageBuffer variable `%c` decorated Coherent as
    /// a whole, and a block `%v` whose member is decorated Volatile only.
    /// Each gets a plain store and a plain load; `%w` also an atomic add.
    fn module(model: &str) -> String {
        format!(
            "OpCapability Shader
OpMemoryModel Logical {model}
OpEntryPoint GLCompute %main \"main\"
OpMemberDecorate %B 0 Coherent
OpMemberDecorate %B 0 Offset 0
OpMemberDecorate %B 1 Offset 4
OpMemberDecorate %V 0 Volatile
OpMemberDecorate %V 0 Offset 0
OpDecorate %c Coherent
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%c0 = OpConstant %uint 0
%c1 = OpConstant %uint 1
%B = OpTypeStruct %uint %uint
%V = OpTypeStruct %uint
%pB = OpTypePointer StorageBuffer %B
%pV = OpTypePointer StorageBuffer %V
%ps = OpTypePointer StorageBuffer %uint
%pw = OpTypePointer Workgroup %uint
%w = OpVariable %pw Workgroup
%b = OpVariable %pB StorageBuffer
%p = OpVariable %ps StorageBuffer
%c = OpVariable %ps StorageBuffer
%v = OpVariable %pV StorageBuffer
%main = OpFunction %void None %fn
%entry = OpLabel
%b0 = OpAccessChain %ps %b %c0
%b1 = OpAccessChain %ps %b %c1
%v0 = OpAccessChain %ps %v %c0
OpStore %w %c1
OpStore %b0 %c1
OpStore %b1 %c1
OpStore %p %c1
OpStore %c %c1
OpStore %v0 %c1
%lw = OpLoad %uint %w
%lb0 = OpLoad %uint %b0
%lb1 = OpLoad %uint %b1
%lp = OpLoad %uint %p
%lc = OpLoad %uint %c
%lv = OpLoad %uint %v0
%a = OpAtomicIAdd %uint %w %c1 %c0 %c1
OpReturn
OpFunctionEnd
"
        )
    }

    /// Each memory access as `location kind av vis nonprivate scope`.
    fn accesses(model: &str, reading: LegacyMemoryModel) -> Vec<String> {
        let options = Options {
            legacy_memory_model: reading,
            ..Options::default()
        };
        let p = super::super::parse_with("t.spvasm", &module(model), options).unwrap();
        p.threads[0]
            .code
            .iter()
            .filter_map(|s| match s {
                Stmt::Op(i) => {
                    let loc = &p.locations[i.reference?];
                    let kind = match (&i.kind, i.atomic) {
                        (_, true) => "rmw",
                        (OpKind::Load, _) => "ld",
                        (OpKind::Store, _) => "st",
                        _ => "other",
                    };
                    let flag = |b: bool, s: &'static str| if b { s } else { "-" };
                    Some(format!(
                        "{loc} {kind} {} {} {} {:?}",
                        flag(i.make_pointer_available, "av"),
                        flag(i.make_pointer_visible, "vis"),
                        flag(i.non_private, "np"),
                        i.scope
                    ))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_coherent_reading_gives_workgroup_and_coherent_accesses_their_flags() {
        // By hand: %w (Workgroup: GLSL "Shared variables are implicitly
        // coherent") at Workgroup scope; %b[0] (member Coherent) and %c
        // (variable Coherent) at Device scope (glslang: "coherent defaults
        // to Device scope in the old model"); %b[1], %p and %v[0]
        // (Volatile only) private, no flags. Stores make available, loads
        // visible. The atomic keeps its own scope (Device) and flags.
        let dev = Some(Scope::Device);
        let wg = Some(Scope::Workgroup);
        let want = [
            format!("%w st av - np {wg:?}"),
            format!("%b[0] st av - np {dev:?}"),
            "%b[1] st - - - None".to_string(),
            "%p st - - - None".to_string(),
            format!("%c st av - np {dev:?}"),
            "%v[0] st - - - None".to_string(),
            format!("%w ld - vis np {wg:?}"),
            format!("%b[0] ld - vis np {dev:?}"),
            "%b[1] ld - - - None".to_string(),
            "%p ld - - - None".to_string(),
            format!("%c ld - vis np {dev:?}"),
            "%v[0] ld - - - None".to_string(),
            format!("%w rmw av vis np {dev:?}"),
        ];
        assert_eq!(accesses("GLSL450", LegacyMemoryModel::Coherent), want);
        // Simple is read as GLSL450.
        assert_eq!(accesses("Simple", LegacyMemoryModel::Coherent), want);
    }

    #[test]
    fn the_strict_reading_and_the_vulkan_model_give_plain_accesses_no_flags() {
        let dev = Some(Scope::Device);
        let plain = |loc: &str, k: &str| format!("{loc} {k} - - - None");
        let mut want: Vec<String> = ["%w", "%b[0]", "%b[1]", "%p", "%c", "%v[0]"]
            .iter()
            .map(|l| plain(l, "st"))
            .collect();
        want.extend(
            ["%w", "%b[0]", "%b[1]", "%p", "%c", "%v[0]"]
                .iter()
                .map(|l| plain(l, "ld")),
        );
        want.push(format!("%w rmw av vis np {dev:?}"));
        assert_eq!(accesses("GLSL450", LegacyMemoryModel::Strict), want);
        // A Vulkan-model module is read from its operands under either
        // setting (its Coherent decorations are not allowed there).
        assert_eq!(accesses("Vulkan", LegacyMemoryModel::Coherent), want);
    }

    #[test]
    fn the_lint_names_the_reading() {
        let read = |model: &str, reading| {
            let options = Options {
                legacy_memory_model: reading,
                ..Options::default()
            };
            super::super::parse_with("t.spvasm", &module(model), options)
                .unwrap()
                .warnings
                .into_iter()
                .map(|w| format!("{}:{}: {}", w.line, w.column, w.message))
                .collect::<Vec<_>>()
        };
        let coherent = read("GLSL450", LegacyMemoryModel::Coherent);
        assert_eq!(coherent.len(), 1, "{coherent:?}");
        assert!(
            coherent[0].starts_with("2:1: the module uses the GLSL450 memory model: vkmm reads it as GLSL compilers and drivers do (`--legacy-memory-model coherent`)"),
            "{coherent:?}"
        );
        let strict = read("GLSL450", LegacyMemoryModel::Strict);
        assert_eq!(strict.len(), 1, "{strict:?}");
        assert!(
            strict[0].contains("read literally (`--legacy-memory-model strict`)")
                && strict[0].contains("decorations are not read"),
            "{strict:?}"
        );
        assert!(read("Vulkan", LegacyMemoryModel::Coherent).is_empty());
    }

    #[test]
    fn a_coherent_function_parameter_is_named_in_a_warning() {
        // clspv decorates pointer parameters Coherent; the coherent reading
        // reads variables and members only, and says so at the decoration
        // (line 4). The store through the parameter reaches %p, a plain
        // StorageBuffer variable: no flags.
        let text = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpDecorate %param Coherent
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%c1 = OpConstant %uint 1
%ps = OpTypePointer StorageBuffer %uint
%fnp = OpTypeFunction %void %ps
%p = OpVariable %ps StorageBuffer
%f = OpFunction %void None %fnp
%param = OpFunctionParameter %ps
%fentry = OpLabel
OpStore %param %c1
OpReturn
OpFunctionEnd
%main = OpFunction %void None %fn
%entry = OpLabel
%r = OpFunctionCall %void %f %p
OpReturn
OpFunctionEnd
";
        let p = super::super::parse("t.spvasm", text).unwrap();
        let w: Vec<String> = p
            .warnings
            .iter()
            .map(|w| format!("{}:{}: {}", w.line, w.column, w.message))
            .collect();
        assert!(
            w.iter().any(|w| w.starts_with(
                "4:1: `%param` is decorated Coherent but is not a module-scope variable"
            )),
            "{w:?}"
        );
        let stores: Vec<_> = p.threads[0]
            .code
            .iter()
            .filter_map(|s| match s {
                Stmt::Op(i) if i.kind == OpKind::Store => Some(i.make_pointer_available),
                _ => None,
            })
            .collect();
        assert_eq!(stores, [false]);
    }
}
