//! The litmus program IR: threads placed in subgroups, workgroups and queue
//! families; their code (instructions carrying every attribute the Vulkan
//! memory model gives an operation, plus registers, local arithmetic, labels
//! and branches); locations, references and initial values;
//! system-synchronizes-with declarations; and what a test asks: Alloy-style
//! queries or a herd-style final condition.
//!
//! Front ends produce a [`Program`]; the execution enumerator consumes it.

pub mod attribution;
pub mod bytes;
mod condition;
pub mod host;
pub mod interlock;
mod kind;
pub mod numeric;
mod query;
pub mod shadercall;
mod symbols;
mod warning;

pub use attribution::{Attributions, MAX_ATTRIBUTIONS};
pub use bytes::ByteRange;
pub use condition::{BytePart, CondExpr, Condition, Quantifier, Term};
pub use kind::ValueKind;
pub use query::{Cmp, Expectation, Pred, Query};
pub use symbols::{LocationName, Symbols, ThreadSymbols};
pub use warning::FrontendWarning;

use std::collections::BTreeSet;
use std::fmt;

/// A memory or execution scope, narrowest first.
///
/// The derived order is the inclusion order of the scope instances that
/// contain a given invocation (`Subgroup` < `Workgroup` < `QueueFamily` <
/// `Device` < `CrossDevice`). `FragmentInterlock` sits where the appendix
/// lists its domain: "The memory domains are nested in the order listed
/// above" (queue family instance, fragment interlock instance, ..., workgroup
/// instance, subgroup instance); a fragment interlock instance is not a
/// partition of the invocations (overlap is not transitive), so the engine
/// decides membership per pair (`engine::base`), never from this order
/// alone. `ShaderCall` is kept so front ends can express it; the engine
/// rejects it until the model supports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum Scope {
    Invocation,
    Subgroup,
    Workgroup,
    FragmentInterlock,
    ShaderCall,
    QueueFamily,
    Device,
    CrossDevice,
}

impl Scope {
    /// The spelling used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Invocation => "Invocation",
            Scope::Subgroup => "Subgroup",
            Scope::Workgroup => "Workgroup",
            Scope::FragmentInterlock => "FragmentInterlock",
            Scope::ShaderCall => "ShaderCallKHR",
            Scope::QueueFamily => "QueueFamily",
            Scope::Device => "Device",
            Scope::CrossDevice => "CrossDevice",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The storage class OpenCL's `global` address space maps to.
pub const OPENCL_GLOBAL: StorageClass = StorageClass(0);
/// The storage class OpenCL's `local` address space maps to.
pub const OPENCL_LOCAL: StorageClass = StorageClass(1);
/// The storage class of OpenCL accesses through unqualified (generic)
/// pointers: "The Generic storage class may behave as global, local or
/// private memory depending on the underlying value", which a litmus test
/// does not give, so such accesses are in neither memory region.
pub const OPENCL_GENERIC: StorageClass = StorageClass(2);

/// The storage class `UniformMemory` semantics name (`sc0`:
/// docs/glsl-spirv-mapping.md).
pub const UNIFORM_MEMORY: StorageClass = StorageClass(0);
/// The storage class `ImageMemory` semantics name (`sc2`:
/// docs/glsl-spirv-mapping.md).
pub const IMAGE_MEMORY: StorageClass = StorageClass(2);

/// A storage class, numbered by the front end (`sc0`, `sc1`, ...).
///
/// The Vulkan appendix has four storage class semantics flags (UniformMemory,
/// WorkgroupMemory, ImageMemory, OutputMemory); litmus formats name classes
/// abstractly, so the IR only keeps an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct StorageClass(pub u8);

/// The ordering part of a memory semantics operand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Order {
    #[default]
    Relaxed,
    Acquire,
    Release,
    AcquireRelease,
}

impl Order {
    pub fn is_acquire(self) -> bool {
        matches!(self, Order::Acquire | Order::AcquireRelease)
    }
    pub fn is_release(self) -> bool {
        matches!(self, Order::Release | Order::AcquireRelease)
    }
    /// Combines two orders (acquire + release = acquire-release).
    pub fn join(self, other: Order) -> Order {
        let acq = self.is_acquire() || other.is_acquire();
        let rel = self.is_release() || other.is_release();
        match (acq, rel) {
            (true, true) => Order::AcquireRelease,
            (true, false) => Order::Acquire,
            (false, true) => Order::Release,
            (false, false) => Order::Relaxed,
        }
    }
}

/// A memory semantics operand (atomics, memory and control barriers).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Semantics {
    pub order: Order,
    /// Storage classes named in the semantics (`semsc0`, ...).
    pub storage_classes: BTreeSet<StorageClass>,
    /// MakeAvailable.
    pub make_available: bool,
    /// MakeVisible.
    pub make_visible: bool,
    /// Sequentially consistent (OpenCL `memory_order_seq_cst`; the Vulkan
    /// memory model does not support it).
    pub seq_cst: bool,
}

/// How a memory access names its memory, which decides how its
/// per-instruction availability/visibility and non-private flags are
/// spelt. The appendix gives the three spellings one meaning: "A memory
/// write instruction that includes MakePointerAvailable, or an image write
/// instruction that includes MakeTexelAvailable, or a tensor write
/// instruction that includes MakeElementAvailableARM, performs an
/// availability operation whose source scope includes the agent and
/// reference used to perform the write and the memory locations written by
/// the instruction" (visibility alike), and "Memory operations with the
/// NonPrivatePointer, NonPrivateTexel, or NonPrivateElementARM bit set are
/// treated as non-private". The flags themselves are
/// [`Instruction::make_pointer_available`], [`Instruction::make_pointer_visible`]
/// and [`Instruction::non_private`] whatever the kind; the kind only keeps
/// the spelling (printing, reports).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub enum AccessKind {
    /// A pointer access (`OpLoad`, `OpStore`, `OpAtomic*`):
    /// `MakePointerAvailable`, `MakePointerVisible`, `NonPrivatePointer`.
    #[default]
    Pointer,
    /// An image access (`OpImageRead`, `OpImageWrite`): `MakeTexelAvailable`,
    /// `MakeTexelVisible`, `NonPrivateTexel`.
    Texel,
    /// A tensor access (`OpTensorReadARM`, `OpTensorWriteARM`, the newer
    /// rendering): `MakeElementAvailableARM`, `MakeElementVisibleARM`,
    /// `NonPrivateElementARM`.
    ElementArm,
}

impl AccessKind {
    pub fn is_pointer(&self) -> bool {
        *self == AccessKind::Pointer
    }
}

/// The token of `value` in a table of `(token, value)` pairs (`?` if absent).
fn token_of<T: PartialEq>(tokens: &[(&'static str, T)], value: T) -> &'static str {
    tokens
        .iter()
        .find(|(_, v)| *v == value)
        .map_or("?", |(t, _)| t)
}

/// The shader interface storage class of a variable an access goes
/// through, where the appendix gives it rules of its own ("Shader I/O",
/// "Tessellation Output Ordering"). Independent of the numbered
/// [`StorageClass`] (which is what semantics name): a test says `output`
/// on the access (docs/format-vulkan-litmus.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Interface {
    /// The `Output` storage class.
    Output,
    /// The `Input` storage class.
    Input,
    /// `CallableDataKHR`: a caller's data for the callable shaders it
    /// invokes (Shader I/O, ray tracing storage classes).
    CallableData,
    /// `IncomingCallableDataKHR`: a callable shader's view of its
    /// caller's callable data.
    IncomingCallableData,
    /// `RayPayloadKHR`: a caller's ray payload.
    RayPayload,
    /// `HitAttributeKHR`: hit attributes an intersection shader reports.
    HitAttribute,
    /// `IncomingRayPayloadKHR`: a hit or miss shader's view of its
    /// caller's ray payload.
    IncomingRayPayload,
}

impl Interface {
    /// Every interface storage class with its token in both Vulkan dialects.
    pub const TOKENS: &[(&str, Interface)] = &[
        ("output", Interface::Output),
        ("input", Interface::Input),
        ("callable", Interface::CallableData),
        ("incallable", Interface::IncomingCallableData),
        ("payload", Interface::RayPayload),
        ("hitattr", Interface::HitAttribute),
        ("inpayload", Interface::IncomingRayPayload),
    ];

    /// The token of the storage class (`output`).
    pub fn token(self) -> &'static str {
        token_of(Self::TOKENS, self)
    }

    /// The five ray tracing storage classes the Shader I/O sentence lists
    /// besides Input and Output ("CallableDataKHR,
    /// IncomingCallableDataKHR, RayPayloadKHR, HitAttributeKHR,
    /// IncomingRayPayloadKHR").
    pub fn is_ray_tracing(self) -> bool {
        !matches!(self, Interface::Output | Interface::Input)
    }
}

/// The shader stage (execution model) of an invocation, where the appendix
/// gives it rules of its own; invocations without one are compute-like.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum ShaderStage {
    /// The `Vertex` execution model: its Input variables are not written
    /// by invocations ("Shader I/O": "a shader stage other than Vertex").
    Vertex,
    /// The `TessellationControl` execution model ("Tessellation Output
    /// Ordering").
    TessellationControl,
    /// `TessellationEvaluation`.
    TessellationEvaluation,
    /// `Geometry`.
    Geometry,
    /// `RayGenerationKHR` (ray tracing stages: their invocations are the
    /// ones shader calls create and relate, "Shader Call Related").
    RayGeneration,
    /// `IntersectionKHR`.
    Intersection,
    /// `AnyHitKHR`.
    AnyHit,
    /// `ClosestHitKHR`.
    ClosestHit,
    /// `MissKHR`.
    Miss,
    /// `CallableKHR`.
    Callable,
}

impl ShaderStage {
    /// Every stage with its token in both Vulkan dialects.
    pub const TOKENS: &[(&str, ShaderStage)] = &[
        ("vert", ShaderStage::Vertex),
        ("tesc", ShaderStage::TessellationControl),
        ("tese", ShaderStage::TessellationEvaluation),
        ("geom", ShaderStage::Geometry),
        ("rgen", ShaderStage::RayGeneration),
        ("rint", ShaderStage::Intersection),
        ("rahit", ShaderStage::AnyHit),
        ("rchit", ShaderStage::ClosestHit),
        ("rmiss", ShaderStage::Miss),
        ("rcall", ShaderStage::Callable),
    ];

    /// Whether the stage is a ray tracing stage (`rgen` ... `rcall`).
    pub fn is_ray_tracing(self) -> bool {
        matches!(
            self,
            ShaderStage::RayGeneration
                | ShaderStage::Intersection
                | ShaderStage::AnyHit
                | ShaderStage::ClosestHit
                | ShaderStage::Miss
                | ShaderStage::Callable
        )
    }

    /// The token of the stage (`tesc`).
    pub fn token(self) -> &'static str {
        token_of(Self::TOKENS, self)
    }
}

/// What an instruction does.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum OpKind {
    /// A read of one location.
    Load,
    /// A write of one location.
    Store,
    /// An atomic read-modify-write.
    Rmw,
    /// `OpMemoryBarrier`.
    MemoryBarrier,
    /// `OpControlBarrier`. Its two scopes are kept apart: `execution_scope`
    /// here, the memory scope in [`Instruction::scope`] (Vulkan appendix,
    /// synchronizes-with: "A and B are in the instance of each other's
    /// memory scopes" and "A and B are in the instance of C's execution
    /// scope"). Each front end says how its syntax maps to the two:
    /// SPIR-V gives both operands; the Dat3M Vulkan dialect's scope token is
    /// the memory scope and the execution scope is always Workgroup; an
    /// Alloy `.test` `cbar` has one scope token used as both; OpenCL
    /// `barrier`/`work_group_barrier` have Workgroup execution scope.
    ControlBarrier {
        /// The static instance: barriers with the same number (and the same
        /// pass count on their paths, see `engine::barrier`) are one dynamic
        /// instance, met by the invocations of one execution-scope instance.
        instance: u32,
        execution_scope: Scope,
        /// A named barrier's id (Dat3M dialect `cbar ... INSTANCE, ID`): only
        /// barriers with the same instance and the same id value meet.
        /// `None`: an unnamed barrier (all meet).
        id: Option<Operand>,
        /// A named barrier's quorum (`cbar ... INSTANCE, ID, QUORUM`): the
        /// barrier opens once this many invocations of its execution-scope
        /// instance have arrived at it (Dat3M's `NamedBarrier`; the
        /// specifications have no quorum). `None`: every invocation of the
        /// execution-scope instance must arrive.
        quorum: Option<Operand>,
    },
    /// `OpBeginInvocationInterlockEXT`: the start of a fragment invocation's
    /// critical section. The appendix: "A and B are both considered to have
    /// FragmentInterlock memory scope and semantics of UniformMemory and
    /// ImageMemory, and ... B is considered to have Acquire semantics"
    /// ([`Instruction::interlock`] builds it so).
    BeginInterlock,
    /// `OpEndInvocationInterlockEXT`: the end of the critical section
    /// ("A is considered to have Release semantics").
    EndInterlock,
    /// The deallocation of the memory a reference names (a `vkFreeMemory`
    /// of its `VkDeviceMemory`, or the end of a SPIR-V variable's
    /// lifetime): "A call to vkFreeMemory must happen-after all memory
    /// operations on all memory locations in that VkDeviceMemory object."
    /// It has the reference and storage class of the memory it frees, and
    /// accesses nothing.
    Deallocate,
    /// A shader call instruction ("Shader Call Related": "A is
    /// shader-call-related to B if A is created by an shader call
    /// instruction executed by B"): `OpTraceRayKHR`,
    /// `OpExecuteCallableKHR` or `OpReportIntersectionKHR`, creating the
    /// invocations `callees` (indices into [`Program::threads`]; one
    /// `OpTraceRayKHR` may create several, e.g. an any-hit and a
    /// closest-hit invocation, which run unordered with each other). It
    /// accesses no memory; the engine derives shader-call order from it.
    ShaderCall { callees: Vec<usize>, call: CallKind },
    /// A device-domain availability operation (API-level, e.g. a pipeline barrier).
    AvailabilityDevice,
    /// A device-domain visibility operation.
    VisibilityDevice,
    /// An API operation of a host thread or a queue submission
    /// (docs/host.md): no memory access of its own; the engine derives
    /// system-synchronizes-with and the availability, visibility and domain
    /// operations it performs from it.
    Api(host::ApiOp),
}

impl OpKind {
    /// An unnamed control barrier (no id, no quorum).
    pub fn control_barrier(instance: u32, execution_scope: Scope) -> OpKind {
        OpKind::ControlBarrier {
            instance,
            execution_scope,
            id: None,
            quorum: None,
        }
    }
}

/// Which shader call instruction an [`OpKind::ShaderCall`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum CallKind {
    /// `OpTraceRayKHR` (`trace Pk`): creates intersection, any-hit,
    /// closest-hit and miss invocations.
    TraceRay,
    /// `OpExecuteCallableKHR` (`call Pk`): creates a callable invocation.
    ExecuteCallable,
    /// `OpReportIntersectionKHR` (`report Pk`): an intersection invocation
    /// creates an any-hit invocation.
    ReportIntersection,
}

impl CallKind {
    /// Every shader call instruction with its token in both Vulkan dialects.
    pub const TOKENS: &[(&str, CallKind)] = &[
        ("trace", CallKind::TraceRay),
        ("call", CallKind::ExecuteCallable),
        ("report", CallKind::ReportIntersection),
    ];

    /// The statement word (`trace`).
    pub fn token(self) -> &'static str {
        token_of(Self::TOKENS, self)
    }

    /// The SPIR-V instruction.
    pub fn spirv(self) -> &'static str {
        match self {
            CallKind::TraceRay => "OpTraceRayKHR",
            CallKind::ExecuteCallable => "OpExecuteCallableKHR",
            CallKind::ReportIntersection => "OpReportIntersectionKHR",
        }
    }

    /// The stages an invocation this instruction creates may have.
    pub fn callee_stages(self) -> &'static [ShaderStage] {
        match self {
            CallKind::TraceRay => &[
                ShaderStage::Intersection,
                ShaderStage::AnyHit,
                ShaderStage::ClosestHit,
                ShaderStage::Miss,
            ],
            CallKind::ExecuteCallable => &[ShaderStage::Callable],
            CallKind::ReportIntersection => &[ShaderStage::AnyHit],
        }
    }
}

/// Where an instruction came from, for error messages and reports.
///
/// The file and the text are [`SpanText`]s: a front end that lowers one
/// source instruction to many statements (a branch per cell of a
/// runtime-indexed array, a store per texel) hands every statement the
/// same span, and cloning it shares the text instead of copying the line.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SourceSpan {
    /// The file `line` is in, where that is not the program's own: a
    /// header the shader includes (named as the compiler's `OpLine`
    /// names it, resolved against the shader's folder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<SpanText>,
    pub line: usize,
    pub text: SpanText,
}

/// Immutable text whose clones share one allocation (a reference-counted
/// `str`): a source line or file name many statements point at. It reads
/// as a `str` (`Deref`), prints and serialises as one, and compares with
/// `str` and `String`.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SpanText(std::sync::Arc<str>);

impl SpanText {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for SpanText {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SpanText {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for SpanText {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<String> for SpanText {
    fn from(s: String) -> Self {
        SpanText(s.into())
    }
}

impl From<&str> for SpanText {
    fn from(s: &str) -> Self {
        SpanText(s.into())
    }
}

impl From<&String> for SpanText {
    fn from(s: &String) -> Self {
        SpanText(s.as_str().into())
    }
}

impl From<SpanText> for String {
    fn from(s: SpanText) -> Self {
        s.0.to_string()
    }
}

impl fmt::Debug for SpanText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for SpanText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl PartialEq<str> for SpanText {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for SpanText {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for SpanText {
    fn eq(&self, other: &String) -> bool {
        &*self.0 == other.as_str()
    }
}

impl serde::Serialize for SpanText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl SourceSpan {
    /// Where the span is, for a reader: `line 7` in the program's own
    /// file, `FILE:7` in a header it includes.
    pub fn place(&self) -> String {
        match &self.file {
            Some(f) => format!("{f}:{}", self.line),
            None => format!("line {}", self.line),
        }
    }
}

/// One instruction of a thread, with every attribute the appendix gives an operation.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Instruction {
    pub kind: OpKind,
    /// Atomic access (`OpAtomic*`).
    pub atomic: bool,
    /// The reference used by a memory access (index into [`Program::references`]).
    pub reference: Option<usize>,
    /// Storage class of a memory access.
    pub storage_class: Option<StorageClass>,
    /// Memory scope: of an atomic, a barrier, or of the per-instruction
    /// availability/visibility operation of a non-atomic access.
    pub scope: Option<Scope>,
    /// Memory semantics (atomics and barriers).
    pub semantics: Semantics,
    /// Per-instruction availability (`MakePointerAvailable`); atomic writes have it implicitly.
    pub make_pointer_available: bool,
    /// Per-instruction visibility (`MakePointerVisible`); atomic reads have it implicitly.
    pub make_pointer_visible: bool,
    /// `NonPrivatePointer`; atomics and av/vis accesses are always non-private.
    pub non_private: bool,
    /// Whether the access goes through a pointer, an image texel or a
    /// tensor element: the three spellings of the flags above, one meaning.
    #[serde(skip_serializing_if = "AccessKind::is_pointer")]
    pub access_kind: AccessKind,
    /// The shader interface storage class of the variable accessed
    /// (`Output`), if it has rules of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interface: Option<Interface>,
    /// Value a read must observe, if the test pins it (Alloy `.test` format).
    pub read_value: Option<i64>,
    /// Value written, if known (Alloy `.test` format).
    pub write_value: Option<i64>,
    /// Register receiving the value read (herd-style litmus).
    pub dest: Option<String>,
    /// The value stored, or the operand of a read-modify-write (herd-style litmus).
    pub operand: Option<Operand>,
    /// What a read-modify-write writes, from the value read and the operand.
    pub rmw_op: RmwOp,
    /// The value a compare-exchange compares with (`RmwOp::CompareExchange`).
    pub expected: Option<Operand>,
    /// The semantics of a compare-exchange that fails (then only a read).
    pub failure_semantics: Option<Semantics>,
    /// The bit width of the integer an atomic read-modify-write computes
    /// on (SPIR-V: its type's width); `None` for the unbounded integers of
    /// the litmus dialects. The value written is cut to it
    /// ([`RmwOp::apply_at`]).
    pub width: Option<u8>,
    /// C operand positions: `(expression, operand)` from the outermost
    /// binary expression inward. Two instructions of one evaluation whose
    /// lists diverge at the same expression are operands of it evaluated in
    /// either order, unsequenced (C11 6.5p2-3).
    pub operand_of: Vec<(u32, u8)>,
    /// A group function (OpenCL `work_group_*` / `sub_group_*`, SPIR-V
    /// `OpGroup*`): the instruction is then an unnamed
    /// [`OpKind::ControlBarrier`] (its instance and execution scope say
    /// which work-items meet), [`Instruction::operand`] is the value this
    /// work-item contributes and [`Instruction::dest`] receives the result.
    /// `None` for every other instruction.
    pub group: Option<GroupFunction>,
    /// The bytes of a sized variable a memory access covers (`x[0..4]`);
    /// `None`: the whole variable ([`bytes`]). The front ends set it, and
    /// [`bytes::lower`] replaces it by one access per chunk location.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<ByteRange>,
    /// The element access of a cooperative matrix load or store this
    /// instruction is (`None` for every other instruction): "For each
    /// dynamic instance of a cooperative matrix load instruction ..., some
    /// implementation-dependent invocation(s) within the instance of the
    /// matrix's scope perform a non-atomic load from each memory location
    /// that is defined to be accessed by the instruction." The invocation
    /// whose code holds it is the one the test says performs it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coop: Option<CoopElement>,
    pub source: SourceSpan,
}

/// Which cooperative matrix instruction instance an element access belongs
/// to ([`Instruction::coop`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct CoopElement {
    /// The static instance number: the statements with one number in the
    /// invocations of one instance of `scope` are one dynamic instance.
    pub instance: u32,
    /// The matrix's scope (Subgroup or Workgroup).
    pub scope: Scope,
}

impl Instruction {
    pub fn new(kind: OpKind, source: SourceSpan) -> Self {
        Instruction {
            kind,
            atomic: false,
            reference: None,
            storage_class: None,
            scope: None,
            semantics: Semantics::default(),
            make_pointer_available: false,
            make_pointer_visible: false,
            non_private: false,
            access_kind: AccessKind::Pointer,
            interface: None,
            read_value: None,
            write_value: None,
            dest: None,
            operand: None,
            rmw_op: RmwOp::Exchange,
            expected: None,
            failure_semantics: None,
            width: None,
            operand_of: Vec::new(),
            group: None,
            bytes: None,
            coop: None,
            source,
        }
    }
    /// `OpBeginInvocationInterlockEXT` (`begin`) or
    /// `OpEndInvocationInterlockEXT`, with the attributes the appendix gives
    /// them: "A and B are both considered to have FragmentInterlock memory
    /// scope and semantics of UniformMemory and ImageMemory, and A [the End]
    /// is considered to have Release semantics and B [the Begin] is
    /// considered to have Acquire semantics". UniformMemory is storage class
    /// 0 and ImageMemory storage class 2, as in docs/glsl-spirv-mapping.md.
    /// "OpBeginInvocationInterlockEXT and OpEndInvocationInterlockEXT do not
    /// perform implicit availability or visibility operations": no
    /// MakeAvailable/MakeVisible.
    pub fn interlock(begin: bool, source: SourceSpan) -> Self {
        let kind = if begin {
            OpKind::BeginInterlock
        } else {
            OpKind::EndInterlock
        };
        let mut i = Instruction::new(kind, source);
        i.scope = Some(Scope::FragmentInterlock);
        i.semantics.order = if begin {
            Order::Acquire
        } else {
            Order::Release
        };
        i.semantics.storage_classes = [UNIFORM_MEMORY, IMAGE_MEMORY].into_iter().collect();
        i
    }
    /// `OpBeginInvocationInterlockEXT` or `OpEndInvocationInterlockEXT`.
    pub fn is_interlock(&self) -> bool {
        matches!(self.kind, OpKind::BeginInterlock | OpKind::EndInterlock)
    }
    pub fn is_read(&self) -> bool {
        matches!(self.kind, OpKind::Load | OpKind::Rmw)
    }
    pub fn is_write(&self) -> bool {
        matches!(self.kind, OpKind::Store | OpKind::Rmw)
    }
    pub fn is_memory_access(&self) -> bool {
        self.is_read() || self.is_write()
    }
    /// Whether the instruction is a group function ([`Instruction::group`]).
    pub fn is_group_function(&self) -> bool {
        self.group.is_some()
    }
}

/// What a group function computes from the values the work-items of its
/// scope instance contribute (OpenCL C 2.0 6.13.15 "Work-group Functions"
/// and the `cl_khr_subgroups` sub-group functions; SPIR-V `OpGroup*` and
/// `OpGroupNonUniform*`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct GroupFunction {
    pub op: GroupOp,
    /// `work_group_broadcast(a, local_id)` / `sub_group_broadcast(a, id)`:
    /// the local id of the work-item whose `a` every work-item receives;
    /// for [`GroupOp::Lane`] the mask, delta or quad index it names.
    pub local_id: Option<Operand>,
    /// A SPIR-V non-uniform instruction (`OpGroupNonUniform*`): the
    /// invocations that take part are the *tangle*, those of the
    /// execution-scope instance whose paths reach it with the same
    /// [`OpKind::ControlBarrier`] `id` value (the tangle key the front end
    /// computes, docs/format-spirv.md "Subgroup operations"); the others
    /// neither take part nor are waited for. SPIR-V, glossary: "Tangle: The
    /// set of invocations that execute the same dynamic instance of an
    /// instruction." `false`: every invocation of the instance must arrive
    /// (OpenCL group functions, `OpGroup*`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub nonuniform: bool,
    /// The bit width of the integers the operation computes on (SPIR-V: the
    /// result type's); `None` for the litmus dialects' `int`s (32 bits for
    /// identities, unbounded arithmetic).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u8>,
}

/// The group functions OpenCL C and SPIR-V list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum GroupOp {
    /// "Broadcast the value of a for work-item identified by local_id to
    /// all work-items in the work-group." Also SPIR-V's
    /// `OpGroupNonUniformBroadcast` and `OpGroupNonUniformShuffle` (the
    /// value of the invocation whose id is `local_id`; undefined when it
    /// does not take part).
    Broadcast,
    /// `*_reduce_<op>`: the operation over every work-item's value.
    Reduce(GroupArith),
    /// `*_scan_inclusive_<op>`: over the work-items whose local id is at
    /// most this one's.
    ScanInclusive(GroupArith),
    /// `*_scan_exclusive_<op>`: over the work-items whose local id is below
    /// this one's; the operation's identity for the first.
    ScanExclusive(GroupArith),
    /// `*_any(predicate)`: non-zero if some predicate is non-zero.
    Any,
    /// `*_all(predicate)`: non-zero if every predicate is non-zero.
    All,
    /// `OpGroupNonUniformClusteredReduce` forms, cluster size `n`: "the
    /// operation over the values of the invocations whose id is in the
    /// same cluster of n consecutive ids" (SPIR-V, Group Operation
    /// ClusteredReduce: "A reduction operation for all values of a
    /// specific value X specified by invocations within a cluster").
    Clustered(GroupArith, u32),
    /// `OpGroupNonUniformElect`: "Result is true only in the active
    /// invocation with the lowest id in the group, otherwise result is
    /// false."
    Elect,
    /// `OpGroupNonUniformAllEqual`: "Result is true if Value is equal for
    /// all active invocations in the group."
    AllEqual,
    /// `OpGroupNonUniformBroadcastFirst`: "Result is the Value of the
    /// invocation from the active invocations with the lowest id".
    BroadcastFirst,
    /// `OpGroupNonUniformBallot`, one 32-bit component of its vector: bit
    /// `k` of component `c` is set when the invocation with id `32c + k`
    /// takes part and its predicate is true ("a bitfield value combining
    /// the Predicate value of all invocations within the Execution scope
    /// that execute the same dynamic instance of this instruction").
    Ballot(u8),
    /// The value of another invocation named relative to this one by the
    /// `local_id` operand; undefined when it does not take part.
    Lane(LaneOp),
}

/// How [`GroupOp::Lane`] names the invocation it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum LaneOp {
    /// `OpGroupNonUniformShuffleXor`: "the invocation identified by the
    /// current invocation's id within the group xor'ed with Mask"
    /// (`OpGroupNonUniformQuadSwap` is the xor with 1, 2 or 3).
    Xor,
    /// `OpGroupNonUniformShuffleUp`: "the current invocation's id within
    /// the group - Delta".
    Up,
    /// `OpGroupNonUniformShuffleDown`: "the current invocation's id within
    /// the group + Delta".
    Down,
    /// `OpGroupNonUniformQuadBroadcast`: "the invocation within the quad
    /// with a quad index equal to Index" (the quad of ids `4q .. 4q+3`).
    Quad,
}

impl LaneOp {
    /// The id of the invocation read by the invocation with id `me`.
    pub fn target(self, me: usize, operand: i64) -> Option<usize> {
        let me = i64::try_from(me).ok()?;
        let t = match self {
            LaneOp::Xor => me ^ operand,
            LaneOp::Up => me.checked_sub(operand)?,
            LaneOp::Down => me.checked_add(operand)?,
            LaneOp::Quad => (me & !3) + operand,
        };
        usize::try_from(t).ok()
    }
}

/// The `<op>` of a reduction or scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum GroupArith {
    Add,
    /// Signed minimum and maximum.
    Min,
    Max,
    Mul,
    /// Unsigned minimum and maximum (of the group function's width).
    UMin,
    UMax,
    /// Bitwise and, or, xor (the logical forms on 0/1 values too).
    And,
    Or,
    Xor,
    /// IEEE-754 addition, multiplication, minimum and maximum of floats
    /// of the group function's width (`numeric`): OpGroupNonUniformFAdd,
    /// FMul, FMin, FMax and the kernels' OpGroupFAdd, FMin, FMax,
    /// OpGroupFMulKHR.
    FAdd,
    FMul,
    FMin,
    FMax,
}

/// The float width of a group function's `width` (32 without one).
fn float_width(width: Option<u8>) -> u8 {
    match width {
        Some(16) => 16,
        Some(64) => 64,
        _ => 32,
    }
}

impl GroupArith {
    /// The operation's identity, the first result of an exclusive scan, at
    /// `width` bits (`None`: the litmus registers' 32-bit `int`s), as the
    /// signed reading of its bits: SPIR-V gives "The identity I for
    /// Operation is 0" (IAdd, UMax, BitwiseOr, BitwiseXor), "1" (IMul),
    /// "INT_MAX" (SMin), "INT_MIN" (SMax), "UINT_MAX" (UMin) and "~0"
    /// (BitwiseAnd).
    pub fn identity_at(self, width: Option<u8>) -> i64 {
        let bits = u32::from(width.unwrap_or(32)).clamp(1, 64);
        let max = if bits == 64 {
            i64::MAX
        } else {
            (1i64 << (bits - 1)) - 1
        };
        match self {
            GroupArith::Add | GroupArith::UMax | GroupArith::Or | GroupArith::Xor => 0,
            GroupArith::Mul => 1,
            GroupArith::Min => max,
            GroupArith::Max => -max - 1,
            GroupArith::UMin | GroupArith::And => -1,
            // "The identity I for Operation is 0" (FAdd), "1" (FMul),
            // "+INF" (FMin), "-INF" (FMax), as floats of the width.
            GroupArith::FAdd => 0,
            GroupArith::FMul => numeric::from_f64(1.0, float_width(width)),
            GroupArith::FMin => numeric::from_f64(f64::INFINITY, float_width(width)),
            GroupArith::FMax => numeric::from_f64(f64::NEG_INFINITY, float_width(width)),
        }
    }
    /// [`GroupArith::identity_at`] for 32-bit `int`s.
    pub fn identity(self) -> i64 {
        self.identity_at(None)
    }
    /// `a op b` at `width` bits: computed exactly, then cut to the low
    /// `width` bits and read signed (`None`: unbounded, as the litmus
    /// dialects compute).
    pub fn apply_at(self, a: i64, b: i64, width: Option<u8>) -> i64 {
        let bits = u32::from(width.unwrap_or(64)).clamp(1, 64);
        let unsigned = |v: i64| (v as u64) & (u64::MAX >> (64 - bits));
        let v = match self {
            GroupArith::Add => a.wrapping_add(b),
            GroupArith::Mul => a.wrapping_mul(b),
            GroupArith::Min => a.min(b),
            GroupArith::Max => a.max(b),
            GroupArith::UMin if unsigned(b) < unsigned(a) => b,
            GroupArith::UMax if unsigned(b) > unsigned(a) => b,
            GroupArith::UMin | GroupArith::UMax => a,
            GroupArith::And => a & b,
            GroupArith::Or => a | b,
            GroupArith::Xor => a ^ b,
            // The SPIR-V minimum and maximum of a group: "if for any two
            // Values one of them is a NaN, the other is chosen" (NMin,
            // NMax; two NaNs give a NaN, where the spec leaves "an
            // undefined value").
            GroupArith::FAdd | GroupArith::FMul | GroupArith::FMin | GroupArith::FMax => {
                let op = match self {
                    GroupArith::FAdd => numeric::FBin::Add,
                    GroupArith::FMul => numeric::FBin::Mul,
                    GroupArith::FMin => numeric::FBin::NMin,
                    _ => numeric::FBin::NMax,
                };
                numeric::NumOp::FBin(op, float_width(width)).apply(a, b)
            }
        };
        let shift = 64 - bits;
        (v << shift) >> shift
    }
    pub fn apply(self, a: i64, b: i64) -> i64 {
        self.apply_at(a, b, None)
    }
    /// The name in the built-ins (`add`, `min`, `max`).
    pub fn name(self) -> &'static str {
        match self {
            GroupArith::Add => "add",
            GroupArith::Min => "min",
            GroupArith::Max => "max",
            GroupArith::Mul => "mul",
            GroupArith::UMin => "umin",
            GroupArith::UMax => "umax",
            GroupArith::And => "and",
            GroupArith::Or => "or",
            GroupArith::Xor => "xor",
            GroupArith::FAdd => "fadd",
            GroupArith::FMul => "fmul",
            GroupArith::FMin => "fmin",
            GroupArith::FMax => "fmax",
        }
    }
}

impl GroupOp {
    /// [`GroupOp::result_at`] on the litmus dialects' integers (no width).
    pub fn result(self, values: &[Option<i64>], me: usize, local_id: Option<i64>) -> Option<i64> {
        self.result_at(values, me, local_id, None)
    }

    /// The result the work-item at local id `me` receives, from the
    /// values the work-items of the scope instance contribute, by local id
    /// (`None`: that work-item does not take part in this dynamic instance,
    /// which only a divergent program has, or, for a non-uniform
    /// instruction, an invocation outside the tangle), the `local_id`
    /// operand and the width. `None` when the result is undefined: a
    /// broadcast or shuffle from a local id that contributes nothing.
    ///
    /// Any and all return 1 for true: OpenCL C says "a non-zero value";
    /// SPIR-V's `OpGroupAny`/`OpGroupAll` return a Boolean, which converts
    /// to the `int` 1.
    pub fn result_at(
        self,
        values: &[Option<i64>],
        me: usize,
        local_id: Option<i64>,
        width: Option<u8>,
    ) -> Option<i64> {
        let present = |range: std::ops::Range<usize>| {
            values[range.start.min(values.len())..range.end.min(values.len())]
                .iter()
                .flatten()
                .copied()
        };
        // The values combine in ascending local id, left to right
        // (((x0 op x1) op x2) ...), the identity only for a range where no
        // invocation contributes (an exclusive scan's first). SPIR-V leaves
        // the order open ("The method used to perform the group operation
        // on the contributed Value(s) from active invocations is
        // implementation defined"): for the integer operations every order
        // gives the same value; for FAdd and FMul the rounding may differ
        // between orders, and vkmm checks this one order. Starting from the
        // first value rather than the identity keeps a lone -0.0 of FAdd
        // (+0.0 + -0.0 would be +0.0).
        let fold = |a: GroupArith, range| {
            present(range)
                .reduce(|x, v| a.apply_at(x, v, width))
                .unwrap_or_else(|| a.identity_at(width))
        };
        let all = 0..values.len();
        let first = values.iter().position(Option::is_some);
        Some(match self {
            GroupOp::Broadcast => {
                let k = usize::try_from(local_id?).ok()?;
                (*values.get(k)?)?
            }
            GroupOp::Lane(l) => (*values.get(l.target(me, local_id?)?)?)?,
            GroupOp::Reduce(a) => fold(a, all),
            GroupOp::ScanInclusive(a) => fold(a, 0..me + 1),
            GroupOp::ScanExclusive(a) => fold(a, 0..me),
            GroupOp::Clustered(a, n) => {
                let n = (n as usize).max(1);
                let start = me - me % n;
                fold(a, start..start + n)
            }
            GroupOp::Any => i64::from(present(all).any(|v| v != 0)),
            GroupOp::All => i64::from(present(all).all(|v| v != 0)),
            GroupOp::Elect => i64::from(first == Some(me)),
            GroupOp::AllEqual => {
                let mut vs = present(all);
                let v0 = vs.next();
                i64::from(vs.all(|v| Some(v) == v0))
            }
            GroupOp::BroadcastFirst => values[first?]?,
            GroupOp::Ballot(c) => {
                let base = 32 * usize::from(c);
                let bits = (0..32)
                    .filter(|k| {
                        values
                            .get(base + k)
                            .copied()
                            .flatten()
                            .is_some_and(|v| v != 0)
                    })
                    .fold(0u32, |m, k| m | 1 << k);
                i64::from(bits as i32)
            }
        })
    }
}

/// A register operand or a constant.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Operand {
    Const(i64),
    Reg(String),
}

/// The operation of an atomic read-modify-write: the value written from the
/// value read (`old`) and the operand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum RmwOp {
    /// Writes the operand (`OpAtomicExchange`).
    #[default]
    Exchange,
    Add,
    Sub,
    And,
    Or,
    Xor,
    /// Signed minimum and maximum (`OpAtomicSMin`, `OpAtomicSMax`, C11
    /// `atomic_fetch_min`/`max` on signed types).
    Min,
    Max,
    /// Unsigned minimum and maximum (`OpAtomicUMin`, `OpAtomicUMax`): the
    /// values compared as unsigned integers of the instruction's
    /// [`Instruction::width`] (as unsigned 64-bit integers without one).
    UMin,
    UMax,
    /// Compare-and-swap (`OpAtomicCompareExchange`, C11
    /// `atomic_compare_exchange_*`): writes the operand only when the value
    /// read equals [`Instruction::expected`]; otherwise the event is a read only.
    CompareExchange,
    /// Float addition, minimum and maximum of the instruction's
    /// [`Instruction::width`] (32 without one) on the values' bits
    /// (`OpAtomicFAddEXT`, `OpAtomicFMinEXT`, `OpAtomicFMaxEXT`;
    /// [`numeric`]): the sum correctly rounded, the minimum and maximum
    /// as NMin / NMax (a NaN operand gives the other).
    FAdd,
    FMin,
    FMax,
}

impl RmwOp {
    /// The value written by an instruction of `width` bits (`None`: the
    /// unbounded integers of the litmus dialects): computed exactly, then
    /// cut to the low `width` bits and read signed, as SPIR-V says of its
    /// integer arithmetic ("the low-order N bits of the correct result").
    pub fn apply_at(self, old: i64, operand: i64, width: Option<u8>) -> i64 {
        let bits = u32::from(width.unwrap_or(64)).clamp(1, 64);
        let unsigned = |v: i64| (v as u64) & (u64::MAX >> (64 - bits));
        let v = match self {
            RmwOp::Exchange | RmwOp::CompareExchange => operand,
            RmwOp::Add => old.wrapping_add(operand),
            RmwOp::Sub => old.wrapping_sub(operand),
            RmwOp::And => old & operand,
            RmwOp::Or => old | operand,
            RmwOp::Xor => old ^ operand,
            RmwOp::Min => old.min(operand),
            RmwOp::Max => old.max(operand),
            RmwOp::UMin if unsigned(operand) < unsigned(old) => operand,
            RmwOp::UMax if unsigned(operand) > unsigned(old) => operand,
            RmwOp::UMin | RmwOp::UMax => old,
            RmwOp::FAdd | RmwOp::FMin | RmwOp::FMax => {
                let op = match self {
                    RmwOp::FAdd => numeric::FBin::Add,
                    RmwOp::FMin => numeric::FBin::NMin,
                    _ => numeric::FBin::NMax,
                };
                let w = width.unwrap_or(32);
                numeric::NumOp::FBin(op, w).apply(old, operand)
            }
        };
        let shift = 64 - bits;
        (v << shift) >> shift
    }

    /// The value written (unbounded integers: [`RmwOp::apply_at`] with no width).
    pub fn apply(self, old: i64, operand: i64) -> i64 {
        self.apply_at(old, operand, None)
    }
    /// Whether the value written depends on the value read.
    pub fn uses_old(self) -> bool {
        self != RmwOp::Exchange
    }

    /// The integer operations whose effects on a location commute with
    /// each other's and associate, one class each (add and sub; and; or;
    /// xor; signed min; signed max; unsigned min; unsigned max): applied
    /// in any order to one initial value, the operands of a class give one
    /// final value. `None`: exchange, compare-exchange and the float
    /// operations (float addition does not associate).
    pub fn commuting_class(self) -> Option<u8> {
        match self {
            RmwOp::Add | RmwOp::Sub => Some(0),
            RmwOp::And => Some(1),
            RmwOp::Or => Some(2),
            RmwOp::Xor => Some(3),
            RmwOp::Min => Some(4),
            RmwOp::Max => Some(5),
            RmwOp::UMin => Some(6),
            RmwOp::UMax => Some(7),
            RmwOp::Exchange | RmwOp::CompareExchange | RmwOp::FAdd | RmwOp::FMin | RmwOp::FMax => {
                None
            }
        }
    }
}

/// Local (register) arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    /// Shift left (SPIR-V `OpShiftLeftLogical`; shifts of 64 or more give 0).
    Shl,
    /// Arithmetic shift right (`OpShiftRightArithmetic`, and
    /// `OpShiftRightLogical` on the non-negative values vkmm computes with).
    Shr,
    /// Division truncating toward zero (division by zero gives 0: SPIR-V
    /// leaves it undefined).
    Div,
    /// Remainder with the sign of the dividend (by zero: 0).
    Rem,
    /// Remainder with the sign of the divisor (SPIR-V `OpSMod`: "the sign
    /// of the result is the sign of Operand 2"; by zero: 0).
    Mod,
    /// Floating point, conversions and integer bit operations on the bits
    /// of values of a width ([`numeric`]); the SPIR-V front end emits them.
    Num(numeric::NumOp),
}

impl ArithOp {
    pub fn apply(self, a: i64, b: i64) -> i64 {
        match self {
            ArithOp::Add => a.wrapping_add(b),
            ArithOp::Sub => a.wrapping_sub(b),
            ArithOp::Mul => a.wrapping_mul(b),
            ArithOp::And => a & b,
            ArithOp::Or => a | b,
            ArithOp::Xor => a ^ b,
            ArithOp::Shl => u32::try_from(b)
                .ok()
                .and_then(|b| a.checked_shl(b))
                .unwrap_or(0),
            ArithOp::Shr => u32::try_from(b)
                .ok()
                .and_then(|b| a.checked_shr(b))
                .unwrap_or(if a < 0 { -1 } else { 0 }),
            ArithOp::Div => a.checked_div(b).unwrap_or(0),
            ArithOp::Rem => a.checked_rem(b).unwrap_or(0),
            ArithOp::Mod => match a.checked_rem(b) {
                Some(r) if r != 0 && (r < 0) != (b < 0) => r + b,
                Some(r) => r,
                None => 0,
            },
            ArithOp::Num(op) => op.apply(a, b),
        }
    }
}

/// One statement of a thread's code.
// Most statements are instructions: boxing them (clippy's advice for the
// size difference with labels and jumps) would add an indirection to every
// step of the path enumeration for no saving.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Stmt {
    /// An instruction that is an event when executed.
    Op(Instruction),
    /// A branch target.
    Label { name: String, source: SourceSpan },
    /// Unconditional jump.
    Goto { label: String, source: SourceSpan },
    /// Jump to `label` when `a cmp b` holds.
    Branch {
        cmp: Cmp,
        a: Operand,
        b: Operand,
        label: String,
        source: SourceSpan,
    },
    /// `dest = a op b`.
    Assign {
        dest: String,
        op: ArithOp,
        a: Operand,
        b: Operand,
        source: SourceSpan,
    },
}

impl Stmt {
    pub fn source(&self) -> &SourceSpan {
        match self {
            Stmt::Op(i) => &i.source,
            Stmt::Label { source, .. }
            | Stmt::Goto { source, .. }
            | Stmt::Branch { source, .. }
            | Stmt::Assign { source, .. } => source,
        }
    }
}

/// An invocation (shader agent) and its place in the scope hierarchy.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Thread {
    /// The thread number used by `SSW` and in reports.
    pub id: usize,
    pub subgroup: usize,
    pub workgroup: usize,
    pub queue_family: usize,
    /// The device the invocation runs on (OpenCL `dev`; 0 for Vulkan tests).
    pub device: usize,
    /// The thread's code, in program order.
    pub code: Vec<Stmt>,
    /// Initial register values (registers not listed start at 0).
    pub registers: Vec<(String, i64)>,
    /// Where a fragment shader invocation is rasterized; `None` for other
    /// invocations (docs/interlock.md).
    pub fragment: Option<Fragment>,
}

/// A fragment shader invocation's place: the primitive that produced it
/// (its place in rasterization order), the pixels it covers, its fragment
/// area, the covered samples and the subpass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Fragment {
    /// The primitive's number in primitive order: a lower number is
    /// earlier in rasterization order.
    pub primitive: u32,
    /// The first covered framebuffer pixel (an abstract number: pixels are
    /// equal or not); the one pictures group the invocation by.
    pub pixel: u32,
    /// The covered pixels (more than one for a multi-pixel fragment: a
    /// fragment shading rate or shading rate image larger than 1x1).
    pub pixels: PixelSet,
    /// The pixels of the fragment area (the covered pixels and the others
    /// of the same area), which shading-rate interlock reads.
    pub area: PixelSet,
    /// The covered samples, bit k for sample k (at least one), in each
    /// covered pixel.
    pub samples: u64,
    /// The subpass the drawing command is in.
    pub subpass: u32,
}

impl Fragment {
    /// A one-pixel fragment (fragment area 1x1).
    pub fn at(primitive: u32, pixel: u32, samples: u64, subpass: u32) -> Fragment {
        let one = PixelSet::of(&[pixel]).expect("one pixel fits");
        Fragment {
            primitive,
            pixel,
            pixels: one,
            area: one,
            samples,
            subpass,
        }
    }

    /// A fragment covering `pixels` (at least one) in a fragment area of
    /// `area` pixels (default: the covered ones; it must contain them), or
    /// what is wrong with it.
    pub fn placed(
        primitive: u32,
        pixels: &[u32],
        area: Option<&[u32]>,
        samples: u64,
        subpass: u32,
    ) -> Result<Fragment, String> {
        let too_many = || format!("a fragment area has at most {} pixels (4x4)", PixelSet::MAX);
        let covered = PixelSet::of(pixels).ok_or_else(too_many)?;
        let Some(&first) = covered.as_slice().first() else {
            return Err("a fragment invocation covers at least one pixel".into());
        };
        let area = match area {
            Some(a) => PixelSet::of(a).ok_or_else(too_many)?,
            None => covered,
        };
        if let Some(p) = covered.as_slice().iter().find(|&&p| !area.contains(p)) {
            return Err(format!(
                "pixel {p} is covered but not in the fragment area: the area holds every pixel the fragment covers"
            ));
        }
        Ok(Fragment {
            primitive,
            pixel: first,
            pixels: covered,
            area,
            samples,
            subpass,
        })
    }

    /// Whether two fragment invocations overlap under `granularity`, in the
    /// same subpass (docs/interlock.md quotes the sentences). The Vulkan
    /// specification's "Interlocked Operations" (fragops.adoc) orders
    /// interlocked operations of invocations that "cover at least one of
    /// the same samples" (sample interlock), "cover at least one sample in
    /// the same pixel" (pixel interlock) or "cover at least one sample in
    /// the same fragment area" (shading-rate interlock).
    pub fn overlaps(&self, other: &Fragment, granularity: InterlockGranularity) -> bool {
        self.subpass == other.subpass
            && match granularity {
                InterlockGranularity::Pixel => self.pixels.intersects(&other.pixels),
                InterlockGranularity::Sample => {
                    self.pixels.intersects(&other.pixels) && self.samples & other.samples != 0
                }
                InterlockGranularity::ShadingRate => {
                    self.pixels.intersects(&other.area) || other.pixels.intersects(&self.area)
                }
            }
    }
}

/// A set of at most [`PixelSet::MAX`] pixels (a fragment area is at most
/// 4x4 pixels), kept sorted; `Copy` like the rest of a fragment's place.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PixelSet {
    len: u8,
    pixels: [u32; PixelSet::MAX],
}

impl PixelSet {
    /// The most pixels of one fragment area (4x4).
    pub const MAX: usize = 16;

    /// The set of `pixels` (duplicates dropped); `None` when more than
    /// [`PixelSet::MAX`] distinct pixels are given.
    pub fn of(pixels: &[u32]) -> Option<PixelSet> {
        let mut v: Vec<u32> = pixels.to_vec();
        v.sort_unstable();
        v.dedup();
        if v.len() > PixelSet::MAX {
            return None;
        }
        let mut set = PixelSet {
            len: v.len() as u8,
            pixels: [0; PixelSet::MAX],
        };
        set.pixels[..v.len()].copy_from_slice(&v);
        Some(set)
    }

    /// The pixels, in increasing order.
    pub fn as_slice(&self) -> &[u32] {
        &self.pixels[..self.len as usize]
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn contains(&self, pixel: u32) -> bool {
        self.as_slice().binary_search(&pixel).is_ok()
    }

    pub fn intersects(&self, other: &PixelSet) -> bool {
        self.as_slice().iter().any(|&p| other.contains(p))
    }

    /// Whether every pixel of `self` is in `other`.
    pub fn is_subset(&self, other: &PixelSet) -> bool {
        self.as_slice().iter().all(|&p| other.contains(p))
    }
}

impl std::fmt::Debug for PixelSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.as_slice()).finish()
    }
}

impl serde::Serialize for PixelSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.as_slice())
    }
}

impl InterlockGranularity {
    /// The word the litmus dialects spell it with.
    pub fn keyword(self) -> &'static str {
        match self {
            InterlockGranularity::Pixel => "pixel",
            InterlockGranularity::Sample => "sample",
            InterlockGranularity::ShadingRate => "shadingrate",
        }
    }

    /// The granularity spelled `word` (case-insensitive).
    pub fn from_keyword(word: &str) -> Option<InterlockGranularity> {
        [
            InterlockGranularity::Pixel,
            InterlockGranularity::Sample,
            InterlockGranularity::ShadingRate,
        ]
        .into_iter()
        .find(|g| g.keyword().eq_ignore_ascii_case(word))
    }

    /// What the front ends expect where a granularity is missing.
    pub const EXPECTED: &'static str = "`pixel`, `sample` or `shadingrate`";
}

/// Which fragment invocations an interlock orders.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum InterlockGranularity {
    /// `PixelInterlock*EXT`: invocations covering a sample in a common pixel.
    #[default]
    Pixel,
    /// `SampleInterlock*EXT`: invocations covering a common sample.
    Sample,
    /// `ShadingRateInterlock*EXT`: invocations covering a sample in a common
    /// fragment area.
    ShadingRate,
}

/// The interlock execution mode of a test's fragment shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct InterlockMode {
    pub granularity: InterlockGranularity,
    /// `*InterlockOrderedEXT`: the critical sections of overlapping
    /// invocations run in rasterization order; unordered: in some order.
    pub ordered: bool,
}

impl Default for InterlockMode {
    fn default() -> Self {
        InterlockMode {
            granularity: InterlockGranularity::Pixel,
            ordered: true,
        }
    }
}

impl InterlockMode {
    /// The GLSL layout qualifier / SPIR-V execution mode name.
    pub fn name(self) -> &'static str {
        match (self.granularity, self.ordered) {
            (InterlockGranularity::Pixel, true) => "pixel_interlock_ordered",
            (InterlockGranularity::Pixel, false) => "pixel_interlock_unordered",
            (InterlockGranularity::Sample, true) => "sample_interlock_ordered",
            (InterlockGranularity::Sample, false) => "sample_interlock_unordered",
            (InterlockGranularity::ShadingRate, true) => "shading_rate_interlock_ordered",
            (InterlockGranularity::ShadingRate, false) => "shading_rate_interlock_unordered",
        }
    }
}

impl Thread {
    /// The instructions of the code (ignoring control flow).
    pub fn instructions(&self) -> impl Iterator<Item = &Instruction> {
        self.code.iter().filter_map(|s| match s {
            Stmt::Op(i) => Some(i),
            _ => None,
        })
    }
    /// Whether the code is straight-line (no labels, jumps or local arithmetic).
    pub fn is_straight_line(&self) -> bool {
        self.code.iter().all(|s| matches!(s, Stmt::Op(_)))
    }

    /// The registers the code reads: the operands of branches, assignments
    /// and instructions (values, expected values, barrier ids and quorums).
    pub fn read_registers(&self) -> BTreeSet<&str> {
        fn add<'a>(out: &mut BTreeSet<&'a str>, o: Option<&'a Operand>) {
            if let Some(Operand::Reg(r)) = o {
                out.insert(r.as_str());
            }
        }
        let mut out = BTreeSet::new();
        for s in &self.code {
            match s {
                Stmt::Branch { a, b, .. } | Stmt::Assign { a, b, .. } => {
                    add(&mut out, Some(a));
                    add(&mut out, Some(b));
                }
                Stmt::Op(i) => {
                    add(&mut out, i.operand.as_ref());
                    add(&mut out, i.expected.as_ref());
                    if let OpKind::ControlBarrier { id, quorum, .. } = &i.kind {
                        add(&mut out, id.as_ref());
                        add(&mut out, quorum.as_ref());
                    }
                }
                Stmt::Label { .. } | Stmt::Goto { .. } => {}
            }
        }
        out
    }
}

/// A reference: a name through which a location is accessed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Reference {
    pub name: String,
    /// Index into [`Program::locations`].
    pub location: usize,
}

/// At most this many fresh values stand for the undefined initial values
/// of a program's locations (`engine::undefined`): locations beyond it
/// share them (the equality patterns among more than this many undefined
/// locations are not all walked; docs/format-spirv.md says so). Front ends
/// read it to say when a program has more.
pub const MAX_FRESH: usize = 4;

/// A whole litmus test.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Program {
    pub name: String,
    pub threads: Vec<Thread>,
    /// Location names (a location takes the name of the first reference to it).
    pub locations: Vec<String>,
    /// Initial value of each location (same order as `locations`; 0 by default).
    pub initial_values: Vec<i64>,
    /// The locations whose initial value is undefined (their entry in
    /// `initial_values` is ignored): SPIR-V, OpVariable, "If Initializer
    /// is present, it will be the initial value of the variable's memory
    /// content"; the Vulkan memory model appendix, "The values stored in
    /// newly allocated memory locations are determined by a SPIR-V
    /// variable's initializer, if present, or else are undefined". A read
    /// of such a location's initial value may return any value
    /// (`engine::undefined` says which values stand for "any").
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub undefined: BTreeSet<usize>,
    pub references: Vec<Reference>,
    /// `(a, b)`: every operation of thread `a` system-synchronizes-with every
    /// operation of thread `b` (indices into `threads`).
    pub ssw: Vec<(usize, usize)>,
    /// Alloy-style queries (`.test` files).
    pub queries: Vec<Query>,
    /// Herd-style final condition and filter (`.litmus` files).
    pub condition: Option<Condition>,
    /// Locations whose final values herd-style reports show (`locations [...]`).
    pub shown_locations: Vec<usize>,
    /// The dialect the test was written in (it picks the default model).
    pub dialect: Dialect,
    /// What the test asks: a final condition (herd-style litmus) or
    /// queries (Alloy `.test`).
    pub kind: TestKind,
    /// The source names of threads, registers and locations.
    pub symbols: Symbols,
    /// The interlock execution mode (meaningful when some thread is a
    /// fragment invocation).
    pub interlock: InterlockMode,
    /// What the front end found legal but suspicious (the "Lints" tables
    /// of docs/format-*.md).
    pub warnings: Vec<FrontendWarning>,
    /// The shader stage of each thread that has one (index into
    /// `threads`); the others are compute-like invocations.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub stages: std::collections::BTreeMap<usize, ShaderStage>,
    /// `(a, b)`: invocation `a` contributes to generating invocation `b`
    /// (indices into `threads`): its writes to Output variables are what
    /// `b` reads from its Input variables ("Shader I/O").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub generates: Vec<(usize, usize)>,
    /// A legacy program: a SPIR-V module whose `OpMemoryModel` is not
    /// `Vulkan` (GLSL450, Simple). The appendix, "Tessellation Output
    /// Ordering": "For legacy SPIR-V that does not enable the Vulkan Memory
    /// Model via OpMemoryModel, tessellation outputs can be ordered using a
    /// control barrier with no particular memory scope or semantics"; the
    /// models read it as the base set `LEGACY` (every event of the
    /// program). Every other input is a Vulkan memory model program.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub legacy: bool,
    /// Host threads, queue submissions and mapped memory (docs/host.md);
    /// empty for shader-only tests.
    pub host: host::HostSetup,
    /// The size in bytes of each location declared with one (`x:8`), until
    /// [`bytes::lower`] gives each chunk of it a location and empties it.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub sizes: std::collections::BTreeMap<usize, u32>,
    /// The attributions of cooperative matrix element accesses the test
    /// leaves to the implementation: this program is one, the others are
    /// alternatives whose answers join this one's ([`attribution`]).
    #[serde(skip_serializing_if = "Attributions::is_empty")]
    pub attributions: Attributions,
    /// The places where a thread may access out of bounds (SPIR-V,
    /// OpAccessChain, of each index: "if indexing into a vector, array, or
    /// matrix, with the result type being a logical pointer type, causes
    /// undefined behavior if not in bounds"): a path that takes one
    /// increments the site's marker register, so an execution performs an
    /// out-of-bounds access when some site's register is nonzero in its
    /// final registers ([`OutOfBounds`]; docs/reading-output.md).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub out_of_bounds: Vec<OutOfBounds>,
    /// A bound of the request (`--timeout`, `--max-memory`, `--max-paths`)
    /// or of the front end's own search stopped the front end part-way, in
    /// words: the program is what it built so far, and no answer about it
    /// is a verdict (the analysis reports it undecided, with what the check
    /// covered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub front_end_limit: Option<String>,
    /// The threads' registers are the compiler's values (a shader's SSA
    /// ids, which the source never names): a final state without a
    /// condition shows `shown_locations` alone, not every register.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub registers_internal: bool,
    /// Locations whose values vkmm does not compute (a shader's memory
    /// that may hold the value of a sample): the final states leave them
    /// out, and a condition or outcome that reads one is refused.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uncomputed: Vec<usize>,
}

/// One place a thread may access out of bounds: the lowering found no
/// cell for the offset the access names (a runtime index past the end of
/// an array, or into padding), and marks the path that gets there with
/// `register += 1` instead of an access. Undefined behaviour: the
/// execution promises nothing, and reports say so.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct OutOfBounds {
    /// Index into `Program::threads`.
    pub thread: usize,
    /// The marker register (a name no source register has).
    pub register: String,
    /// The variable accessed (`%18`).
    pub variable: String,
    /// The access instruction (its file where that is a header).
    pub source: SourceSpan,
}

impl OutOfBounds {
    /// The prefix of every marker register's name (`#` is in no register
    /// name a front end reads).
    pub const PREFIX: &'static str = "oob#";
}

/// What a test asks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum TestKind {
    /// Herd-style: the reachable final states, a final condition, races.
    #[default]
    Litmus,
    /// Alloy-style queries over the model's results (`.test` files).
    Queries,
}

/// The language a test was written in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum Dialect {
    /// Vulkan / SPIR-V for Vulkan (Alloy `.test`, Vulkan `.litmus`).
    #[default]
    Vulkan,
    /// OpenCL C (OpenCL `.litmus`).
    OpenCl,
}

impl Dialect {
    pub const ALL: &[Dialect] = &[Dialect::Vulkan, Dialect::OpenCl];

    /// The dialect's name (in model profiles' `default-for`); the model a
    /// dialect runs under by default is `crate::model::default_for`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Vulkan => "vulkan",
            Dialect::OpenCl => "opencl",
        }
    }

    pub fn from_name(name: &str) -> Option<Dialect> {
        Self::ALL.iter().copied().find(|d| d.name() == name)
    }
}

impl Program {
    /// The initial value of a location.
    pub fn initial_value(&self, location: usize) -> i64 {
        self.initial_values.get(location).copied().unwrap_or(0)
    }
    /// Whether a location's initial value is undefined ([`Program::undefined`]).
    pub fn is_undefined(&self, location: usize) -> bool {
        self.undefined.contains(&location)
    }
    /// The shader stage of thread `t`, if it has one.
    pub fn stage(&self, t: usize) -> Option<ShaderStage> {
        self.stages.get(&t).copied()
    }
    /// Whether thread `t` is an invocation of a ray tracing stage.
    pub fn is_ray_tracing(&self, t: usize) -> bool {
        self.stage(t).is_some_and(ShaderStage::is_ray_tracing)
    }
    /// The shader calls of the program: `(caller, statement, callee)`
    /// (thread indices; the statement's index in the caller's code).
    pub fn shader_calls(&self) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        for (t, th) in self.threads.iter().enumerate() {
            for (k, s) in th.code.iter().enumerate() {
                if let Stmt::Op(i) = s
                    && let OpKind::ShaderCall { callees, .. } = &i.kind
                {
                    out.extend(callees.iter().map(|&c| (t, k, c)));
                }
            }
        }
        out
    }
    /// The shader call instance of each thread: "Shader-call-related is an
    /// equivalence relation on invocations defined as the symmetric and
    /// transitive closure of: A is shader-call-related to B if A is
    /// created by an shader call instruction executed by B." Two threads
    /// with the same number are shader-call-related; `None` for threads of
    /// no ray tracing stage (vkmm relates ray tracing invocations only:
    /// shader call instructions create them).
    pub fn shader_call_instances(&self) -> Vec<Option<usize>> {
        let n = self.threads.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        for (a, _, b) in self.shader_calls() {
            if b < n {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
        (0..n)
            .map(|t| self.is_ray_tracing(t).then(|| root(&mut parent, t)))
            .collect()
    }
    /// Whether memory is written other ways than by whole-location
    /// accesses of the threads: host operations, or byte-range or
    /// cooperative-matrix accesses (which write parts or runs of
    /// locations). Scans that count a location's writes by its
    /// instructions hold only where this is false.
    pub fn has_other_writers(&self) -> bool {
        !self.host.is_empty()
            || self
                .threads
                .iter()
                .flat_map(|t| t.instructions())
                .any(|i| i.bytes.is_some() || i.coop.is_some())
    }
    /// The location an instruction accesses.
    pub fn location_of(&self, instr: &Instruction) -> Option<usize> {
        instr.reference.map(|r| self.references[r].location)
    }
    /// All storage classes mentioned by the program.
    pub fn storage_classes(&self) -> BTreeSet<StorageClass> {
        let mut out = BTreeSet::new();
        for t in &self.threads {
            for i in t.instructions() {
                out.extend(i.storage_class);
                out.extend(i.semantics.storage_classes.iter().copied());
            }
        }
        out
    }
}
