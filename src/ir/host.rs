//! The host side of a Vulkan test (docs/host.md): host threads, queue
//! submissions, mapped memory and the API operations that synchronise them.
//!
//! The appendix, Agent: "Possible agents include each shader invocation, each
//! host thread, and each fixed-function stage of the pipeline." A thread of a
//! [`Program`](super::Program) is one of three [`Agent`]s: a shader invocation
//! (every thread of every existing test), a host thread, or a queue
//! submission: the commands of one `vkQueueSubmit` batch in submission
//! order, whose dispatches run invocation threads. The engine derives
//! system-synchronizes-with from the API operations
//! (`engine::host`), the model lowers them to availability, visibility
//! and memory domain operations (`models/vulkan-host.cat`).

use serde::Serialize;

/// What kind of agent a thread is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Agent {
    /// A shader invocation (the default).
    #[default]
    Invocation,
    /// A host thread (`Pk@host`).
    Host,
    /// A queue submission (`Pk@queue N`): the commands of one batch, in
    /// submission order, on queue `queue`.
    Submission { queue: usize },
}

impl Agent {
    pub fn is_host(self) -> bool {
        self == Agent::Host
    }
    pub fn is_submission(self) -> bool {
        matches!(self, Agent::Submission { .. })
    }
}

/// How a location is mapped for the host (`mapped x coherent;`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Mapping {
    /// `VK_MEMORY_PROPERTY_HOST_COHERENT_BIT`: host accesses need no flush
    /// or invalidate.
    Coherent,
    /// Host-visible but not host-coherent: host writes need
    /// `vkFlushMappedMemoryRanges`, host reads `vkInvalidateMappedMemoryRanges`.
    NonCoherent,
}

/// The host side of a program. Empty for tests without host threads.
#[derive(Clone, Debug, Default, Serialize)]
pub struct HostSetup {
    /// The agent of each thread (indexed like `Program::threads`); empty:
    /// every thread is an invocation.
    pub agents: Vec<Agent>,
    /// The mapping of each location (indexed like `Program::locations`);
    /// empty or `None`: not mapped.
    pub mapped: Vec<Option<Mapping>>,
    /// OpenCL host tests: how each global location is shared with the host
    /// (indexed like `Program::locations`); empty or `None`: not a memory
    /// object of an OpenCL host test (every location of a test without
    /// host threads).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub svm: Vec<Option<Svm>>,
    /// OpenCL host tests: the name of each command-queue, by the index
    /// `Agent::Submission { queue }` holds (pictures name the queue).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queues: Vec<String>,
}

impl HostSetup {
    /// Whether the program has host threads or submissions.
    pub fn is_empty(&self) -> bool {
        self.agents.iter().all(|a| *a == Agent::Invocation)
    }
    /// The agent of thread `t`.
    pub fn agent(&self, t: usize) -> Agent {
        self.agents.get(t).copied().unwrap_or_default()
    }
    /// The mapping of location `l`.
    pub fn mapping(&self, l: usize) -> Option<Mapping> {
        self.mapped.get(l).copied().flatten()
    }
    /// How location `l` is shared with the host in an OpenCL host test.
    pub fn svm(&self, l: usize) -> Option<Svm> {
        self.svm.get(l).copied().flatten()
    }
    /// How pictures name the clusters of thread `thread` (number `t`) when
    /// it is an OpenCL command: its command-queue and the command, in the
    /// OpenCL API's words. `None` for every other thread (Vulkan
    /// submissions keep the wording `queue N (submissions)`).
    pub fn label(&self, t: usize, thread: &super::Thread) -> Option<HostLabel> {
        let Agent::Submission { queue } = self.agent(t) else {
            return None;
        };
        let super::Stmt::Op(first) = thread.code.first()? else {
            return None;
        };
        let super::OpKind::Api(ApiOp::ClStart {
            kind,
            event,
            wait_events,
            ..
        }) = &first.kind
        else {
            return None;
        };
        if *kind == ClCommandKind::UserEvent {
            return Some(HostLabel {
                queue: "user events (set by the host)".to_string(),
                command: format!(
                    "user event {} set to CL_COMPLETE",
                    event.as_deref().unwrap_or("?")
                ),
            });
        }
        let name = self.queues.get(queue).map_or("?", String::as_str);
        let mut command = format!("enqueued {}", kind.word());
        if let ClCommandKind::Kernel { threads } = kind {
            let list: Vec<String> = threads.iter().map(|w| format!("P{w}")).collect();
            command.push_str(&format!(" ({})", list.join(", ")));
        }
        if !wait_events.is_empty() {
            command.push_str(&format!("; waits on events {}", wait_events.join(", ")));
        }
        if let Some(e) = event {
            command.push_str(&format!("; event {e}"));
        }
        Some(HostLabel {
            queue: format!("command-queue {name} (enqueued commands)"),
            command,
        })
    }
}

/// The OpenCL words for a command thread's clusters in pictures
/// (`vkmm show`): `command-queue q (enqueued commands)` around the queue's
/// commands, `enqueued kernel (P1); waits on events k0; event k1` on the
/// command.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HostLabel {
    pub queue: String,
    pub command: String,
}

/// How a global memory object of an OpenCL host test is shared between the
/// host and the devices (the SPIR-V memory model for OpenCL, 3.3 "Shared
/// Virtual Memory", and its glossary's three SVM types; docs/host.md,
/// "OpenCL").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Svm {
    /// A buffer object (`cl_mem`, not SVM): the host reaches it through
    /// `clEnqueueMapBuffer` / `clEnqueueUnmapMemObject`.
    Buffer,
    /// Coarse-grained buffer SVM: "Consistency is enforced at explicit
    /// synchronization points defined by the execution environment's host
    /// runtime" (map and unmap).
    Coarse,
    /// Fine-grained buffer SVM (`clSVMAlloc` with
    /// `CL_MEM_SVM_FINE_GRAIN_BUFFER`), with or without SVM atomics.
    FineBuffer { atomics: bool },
    /// Fine-grained system SVM (any host allocation), with or without SVM
    /// atomics.
    FineSystem { atomics: bool },
}

impl Svm {
    /// Coarse memory: a buffer or coarse-grained SVM ("coarse-grained
    /// memory (either coarse SVM or non-SVM allocations)", 3.5).
    pub fn is_coarse(self) -> bool {
        matches!(self, Svm::Buffer | Svm::Coarse)
    }
    /// Whether CrossDevice atomics on it are CrossDevice: "When applied to
    /// coarse-grained memory (either coarse SVM or non-SVM allocations) or
    /// to fine-grained SVM, operations parameterized with CrossDevice scope
    /// will behave as if they were parameterized with Device scope" (3.5):
    /// only fine-grained SVM with atomics keeps the scope.
    pub fn cross_device(self) -> bool {
        matches!(
            self,
            Svm::FineBuffer { atomics: true } | Svm::FineSystem { atomics: true }
        )
    }
    /// Its spelling in the OpenCL dialect's init block (`svm x fine atomics;`).
    pub fn spelling(self) -> &'static str {
        match self {
            Svm::Buffer => "buffer",
            Svm::Coarse => "coarse",
            Svm::FineBuffer { atomics: false } => "fine",
            Svm::FineBuffer { atomics: true } => "fine atomics",
            Svm::FineSystem { atomics: false } => "system",
            Svm::FineSystem { atomics: true } => "system atomics",
        }
    }
}

/// What an OpenCL command does when it executes (docs/host.md, "OpenCL").
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ClCommandKind {
    /// `clEnqueueNDRangeKernel`: a kernel-instance whose work-items are
    /// these threads.
    Kernel { threads: Vec<usize> },
    /// `clEnqueueMapBuffer` / `clEnqueueSVMMap` of these locations.
    Map { locations: Vec<usize> },
    /// `clEnqueueUnmapMemObject` / `clEnqueueSVMUnmap`.
    Unmap { locations: Vec<usize> },
    /// `clEnqueueMarkerWithWaitList`.
    Marker,
    /// `clEnqueueBarrierWithWaitList`.
    Barrier,
    /// `clEnqueueReadBuffer` (`read`) or `clEnqueueWriteBuffer`: the
    /// command's thread holds the copy's loads and stores between its start
    /// and its completion.
    Transfer { read: bool },
    /// A user event (`clCreateUserEvent`) set to `CL_COMPLETE` by
    /// `clSetUserEventStatus`: vkmm reads the set as a call enqueueing a
    /// command that does nothing, whose completion is the user event
    /// (docs/host.md, "User events").
    UserEvent,
}

impl ClCommandKind {
    /// What the command is, in the OpenCL API's words (pictures).
    pub fn word(&self) -> &'static str {
        match self {
            ClCommandKind::Kernel { .. } => "kernel",
            ClCommandKind::Map { .. } => "map",
            ClCommandKind::Unmap { .. } => "unmap",
            ClCommandKind::Marker => "marker",
            ClCommandKind::Barrier => "barrier",
            ClCommandKind::Transfer { read: true } => "buffer read",
            ClCommandKind::Transfer { read: false } => "buffer write",
            ClCommandKind::UserEvent => "user event",
        }
    }
    /// The enqueuing call's name (`svm`: the SVM spelling of a map/unmap).
    pub fn call(&self, svm: bool) -> &'static str {
        match (self, svm) {
            (ClCommandKind::Kernel { .. }, _) => "clEnqueueNDRangeKernel",
            (ClCommandKind::Map { .. }, false) => "clEnqueueMapBuffer",
            (ClCommandKind::Map { .. }, true) => "clEnqueueSVMMap",
            (ClCommandKind::Unmap { .. }, false) => "clEnqueueUnmapMemObject",
            (ClCommandKind::Unmap { .. }, true) => "clEnqueueSVMUnmap",
            (ClCommandKind::Marker, _) => "clEnqueueMarkerWithWaitList",
            (ClCommandKind::Barrier, _) => "clEnqueueBarrierWithWaitList",
            (ClCommandKind::Transfer { read: true }, _) => "clEnqueueReadBuffer",
            (ClCommandKind::Transfer { read: false }, _) => "clEnqueueWriteBuffer",
            (ClCommandKind::UserEvent, _) => "clSetUserEventStatus",
        }
    }
}

/// The kinds of synchronisation object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum SyncKind {
    /// `VkFence`: signalled by a submission, waited on by the host.
    Fence,
    /// A binary `VkSemaphore`: signalled and waited on by submissions.
    Semaphore,
    /// A timeline `VkSemaphore`: signalled and waited on with values, by
    /// submissions and the host.
    Timeline,
    /// `VkEvent`: set by a submission or the host, waited on by a
    /// submission (`vkCmdWaitEvents`) or the host (`vkGetEventStatus`).
    Event,
}

impl SyncKind {
    /// For serialisation: a reset's kind is written unless it is a fence.
    pub fn is_fence(&self) -> bool {
        *self == SyncKind::Fence
    }
    pub fn name(self) -> &'static str {
        match self {
            SyncKind::Fence => "fence",
            SyncKind::Semaphore => "sem",
            SyncKind::Timeline => "timeline",
            SyncKind::Event => "event",
        }
    }
}

/// Pipeline stage bits (`VK_PIPELINE_STAGE_*_BIT`) a dependency names.
pub mod stage {
    pub const TOP_OF_PIPE: u32 = 1;
    pub const COMPUTE: u32 = 2;
    pub const TRANSFER: u32 = 4;
    pub const BOTTOM_OF_PIPE: u32 = 8;
    pub const HOST: u32 = 16;
    pub const ALL_COMMANDS: u32 = 32;
    /// `VK_PIPELINE_STAGE_2_COPY_BIT`: "specifies the execution of all copy
    /// commands" (`copy`).
    pub const COPY: u32 = 64;
    /// `VK_PIPELINE_STAGE_2_CLEAR_BIT`: "specifies the execution of clear
    /// commands, with the exception of vkCmdClearAttachments" (`fill`,
    /// `update`: both are in the clears chapter).
    pub const CLEAR: u32 = 128;
    /// Spellings in the Vulkan `.litmus` dialect (without the
    /// `VK_PIPELINE_STAGE_` prefix and `_BIT` suffix; any case).
    /// `TRANSFER` (`VK_PIPELINE_STAGE_TRANSFER_BIT`) is every transfer
    /// command, as `ALL_TRANSFER` (`VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT`).
    pub const NAMES: &[(&str, u32)] = &[
        ("TOP_OF_PIPE", TOP_OF_PIPE),
        ("COMPUTE_SHADER", COMPUTE),
        ("COMPUTE", COMPUTE),
        ("TRANSFER", TRANSFER),
        ("ALL_TRANSFER", TRANSFER),
        ("COPY", COPY),
        ("CLEAR", CLEAR),
        ("BOTTOM_OF_PIPE", BOTTOM_OF_PIPE),
        ("HOST", HOST),
        ("ALL_COMMANDS", ALL_COMMANDS),
    ];
}

/// Access type bits (`VK_ACCESS_*_BIT`) a dependency names.
pub mod access {
    pub const SHADER_READ: u32 = 1;
    pub const SHADER_WRITE: u32 = 2;
    pub const HOST_READ: u32 = 4;
    pub const HOST_WRITE: u32 = 8;
    pub const MEMORY_READ: u32 = 16;
    pub const MEMORY_WRITE: u32 = 32;
    pub const TRANSFER_READ: u32 = 64;
    pub const TRANSFER_WRITE: u32 = 128;
    pub const NAMES: &[(&str, u32)] = &[
        ("NONE", 0),
        ("SHADER_READ", SHADER_READ),
        ("SHADER_WRITE", SHADER_WRITE),
        ("HOST_READ", HOST_READ),
        ("HOST_WRITE", HOST_WRITE),
        ("MEMORY_READ", MEMORY_READ),
        ("MEMORY_WRITE", MEMORY_WRITE),
        ("TRANSFER_READ", TRANSFER_READ),
        ("TRANSFER_WRITE", TRANSFER_WRITE),
    ];

    /// The stages that can perform an access type (the synchronization
    /// chapter's table "Supported access types"): shader accesses in shader
    /// stages, host accesses in the host stage, transfer accesses in the
    /// transfer stage, `MEMORY_*` in any; `ALL_COMMANDS` covers every stage
    /// but the host's. `None`: the access needs no particular stage.
    /// VK_ACCESS_2_TRANSFER_READ_BIT: "Such access occurs in the
    /// VK_PIPELINE_STAGE_2_COPY_BIT, VK_PIPELINE_STAGE_2_BLIT_BIT, or
    /// VK_PIPELINE_STAGE_2_RESOLVE_BIT pipeline stages" (not CLEAR);
    /// VK_ACCESS_2_TRANSFER_WRITE_BIT: "... COPY_BIT, ... BLIT_BIT, ...
    /// CLEAR_BIT, or ... RESOLVE_BIT pipeline stages".
    pub fn stages_for(bit: u32) -> u32 {
        use super::stage::*;
        match bit {
            SHADER_READ | SHADER_WRITE => COMPUTE | ALL_COMMANDS,
            HOST_READ | HOST_WRITE => HOST,
            TRANSFER_READ => TRANSFER | COPY | ALL_COMMANDS,
            TRANSFER_WRITE => TRANSFER | COPY | CLEAR | ALL_COMMANDS,
            _ => COMPUTE | TRANSFER | COPY | CLEAR | HOST | ALL_COMMANDS,
        }
    }
}

/// The stage a command's memory accesses are performed in, as a mask of
/// the stage bits that name it: a dispatch's in the compute shader stage,
/// a copy's in `COPY` ("VK_PIPELINE_STAGE_2_COPY_BIT specifies the
/// execution of all copy commands"), a fill's or update's in `CLEAR`
/// ("VK_PIPELINE_STAGE_2_CLEAR_BIT specifies the execution of clear
/// commands"); `TRANSFER` names both ("VK_PIPELINE_STAGE_TRANSFER_BIT
/// specifies the following commands: All copy commands ... All clear
/// commands, with the exception of vkCmdClearAttachments").
pub fn command_stages(op: &ApiOp) -> Option<u32> {
    match op {
        ApiOp::Dispatch { .. } => Some(stage::COMPUTE),
        ApiOp::Transfer {
            kind: TransferKind::Copy,
            ..
        } => Some(stage::COPY | stage::TRANSFER),
        ApiOp::Transfer { .. } => Some(stage::CLEAR | stage::TRANSFER),
        _ => None,
    }
}

/// The access bits that name a command's accesses (`write`: its writes,
/// else its reads), `MEMORY_*` included: VK_ACCESS_MEMORY_WRITE_BIT "is
/// treated as equivalent to setting all WRITE access flags that are valid
/// where it is used" (likewise MEMORY_READ).
pub fn command_access(op: &ApiOp, write: bool) -> u32 {
    let (shader, transfer, memory) = if write {
        (
            access::SHADER_WRITE,
            access::TRANSFER_WRITE,
            access::MEMORY_WRITE,
        )
    } else {
        (
            access::SHADER_READ,
            access::TRANSFER_READ,
            access::MEMORY_READ,
        )
    };
    match op {
        ApiOp::Dispatch { .. } => shader | memory,
        ApiOp::Transfer { .. } => transfer | memory,
        _ => 0,
    }
}

/// What a transfer command of a queue submission is (docs/host.md,
/// "Transfer commands").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TransferKind {
    /// `vkCmdCopyBuffer`: "Each source region specified by pRegions is
    /// copied from the source buffer to the destination region of the
    /// destination buffer."
    Copy,
    /// `vkCmdFillBuffer`: "data is the 4-byte word written repeatedly to
    /// the buffer".
    Fill,
    /// `vkCmdUpdateBuffer`: "The source data is copied from pData to the
    /// command buffer when the command is called."
    Update,
}

impl TransferKind {
    /// Its word in the dialect.
    pub fn word(self) -> &'static str {
        match self {
            TransferKind::Copy => "copy",
            TransferKind::Fill => "fill",
            TransferKind::Update => "update",
        }
    }
    pub fn call(self) -> &'static str {
        match self {
            TransferKind::Copy => "vkCmdCopyBuffer",
            TransferKind::Fill => "vkCmdFillBuffer",
            TransferKind::Update => "vkCmdUpdateBuffer",
        }
    }
}

/// A memory dependency (`vkCmdPipelineBarrier` with a global memory barrier).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Dependency {
    pub src_stages: u32,
    pub src_access: u32,
    pub dst_stages: u32,
    pub dst_access: u32,
}

impl Dependency {
    /// "If the source access mask includes VK_ACCESS_HOST_WRITE_BIT, then
    /// the dependency includes a memory domain operation from host domain
    /// to device domain."
    ///
    /// `MEMORY_WRITE` counts as `HOST_WRITE` when the source stages include
    /// the host stage: VK_ACCESS_MEMORY_WRITE_BIT "specifies all write
    /// accesses. It is always valid in any access mask, and is treated as
    /// equivalent to setting all WRITE access flags that are valid where it
    /// is used" (the synchronization chapter; likewise MEMORY_READ).
    pub fn host_to_device(&self) -> bool {
        self.src_access & access::HOST_WRITE != 0
            || (self.src_access & access::MEMORY_WRITE != 0 && self.src_stages & stage::HOST != 0)
    }
    /// "If the destination access mask includes VK_ACCESS_HOST_READ_BIT or
    /// VK_ACCESS_HOST_WRITE_BIT, then the dependency includes a memory
    /// domain operation from device domain to host domain."
    pub fn device_to_host(&self) -> bool {
        self.dst_access & (access::HOST_READ | access::HOST_WRITE) != 0
            || (self.dst_access & (access::MEMORY_READ | access::MEMORY_WRITE) != 0
                && self.dst_stages & stage::HOST != 0)
    }
    /// Whether the command `op` (a dispatch or transfer command) before the
    /// barrier is in its first synchronization scope: the source stages
    /// name the command's stage, `ALL_COMMANDS`, or `BOTTOM_OF_PIPE`
    /// (every stage in a first scope).
    pub fn src_covers(&self, op: &ApiOp) -> bool {
        command_stages(op).is_some_and(|s| {
            self.src_stages & (s | stage::ALL_COMMANDS | stage::BOTTOM_OF_PIPE) != 0
        })
    }
    /// Whether the command `op` after the barrier is in its second
    /// synchronization scope (`TOP_OF_PIPE`: every stage in a second scope).
    pub fn dst_covers(&self, op: &ApiOp) -> bool {
        command_stages(op)
            .is_some_and(|s| self.dst_stages & (s | stage::ALL_COMMANDS | stage::TOP_OF_PIPE) != 0)
    }
    /// Whether the writes of the command `op` before the barrier are in
    /// its first access scope: the command is in the first synchronization
    /// scope and the source access mask names its writes.
    pub fn src_writes_of(&self, op: &ApiOp) -> bool {
        self.src_covers(op) && self.src_access & command_access(op, true) != 0
    }
    /// Whether the reads (`write` false) or writes of the command `op`
    /// after the barrier are in its second access scope.
    pub fn dst_accesses_of(&self, op: &ApiOp, write: bool) -> bool {
        self.dst_covers(op) && self.dst_access & command_access(op, write) != 0
    }
}

/// An API operation: a host call or a command of a submission.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ApiOp {
    /// `vkQueueSubmit` of the submission thread `submission` (host).
    Submit { submission: usize },
    /// `vkFlushMappedMemoryRanges` of the ranges of these references (host).
    Flush { references: Vec<usize> },
    /// `vkInvalidateMappedMemoryRanges` (host).
    Invalidate { references: Vec<usize> },
    /// Signal (fence, semaphore: by a submission; timeline: both; event:
    /// `vkCmdSetEvent` / `vkSetEvent`). `value`: a timeline's value.
    Signal {
        kind: SyncKind,
        object: String,
        value: Option<i64>,
        /// A fence's or binary semaphore's use: the signals of one object
        /// are numbered 0, 1, ... in the order the front end establishes
        /// (docs/host.md, "Reuse"), and a wait is answered by the signal of
        /// its number. 0 for every other object.
        #[serde(skip_serializing_if = "is_zero")]
        epoch: usize,
    },
    /// Wait (fence: `vkWaitForFences` on the host; semaphore: a
    /// submission's wait; timeline: both, `vkWaitSemaphores` on the host;
    /// event: `vkCmdWaitEvents` or the host polling `vkGetEventStatus`).
    Wait {
        kind: SyncKind,
        object: String,
        value: Option<i64>,
        /// The number of the signal that answers it (see `Signal`).
        #[serde(skip_serializing_if = "is_zero")]
        epoch: usize,
    },
    /// `vkResetFences` of a fence (host): "When vkResetFences is executed on
    /// the host, it defines a fence unsignal operation for each fence,
    /// which resets the fence to the unsignaled state."; `vkResetEvent`
    /// (host) or `vkCmdResetEvent` (submission) of an event: "it defines an
    /// event unsignal operation which resets the event to the unsignaled
    /// state". It orders no memory access (the front end numbers the
    /// object's signals by it; docs/host.md, "Reuse").
    Reset {
        #[serde(skip_serializing_if = "SyncKind::is_fence")]
        kind: SyncKind,
        object: String,
    },
    /// `vkCmdPipelineBarrier` with a global memory barrier (submission).
    Barrier(Dependency),
    /// `vkCmdDispatch` of these invocation threads (submission).
    Dispatch { threads: Vec<usize> },
    /// A transfer command of a submission (`vkCmdCopyBuffer`,
    /// `vkCmdFillBuffer`, `vkCmdUpdateBuffer`): its memory accesses (the
    /// copy's read of the source and write of the destination, the fill's
    /// or update's write) are the thread `thread`, a transfer thread the
    /// front end adds after the test's threads, on the submission's queue
    /// (docs/host.md, "Transfer commands").
    Transfer { kind: TransferKind, thread: usize },
    /// OpenCL: the host API call that enqueues the command whose events are
    /// the thread `command` (an OpenCL command thread: its start and its
    /// completion). 3.6.4: "We also distinguish between the API function
    /// call that enqueues a command C and creates the synchronizing object
    /// S, the execution of C, and the completion of C".
    ClEnqueue { command: usize, call: &'static str },
    /// OpenCL: the execution of a command (the first event of its command
    /// thread), after the completion of every command in `waits` (its
    /// event wait list, and what its queue's order adds).
    ClStart {
        kind: ClCommandKind,
        waits: Vec<usize>,
        call: &'static str,
        /// The event the enqueue returns (`&e` as its last argument), and
        /// the events of its wait list, by name (pictures).
        event: Option<String>,
        wait_events: Vec<String>,
    },
    /// OpenCL: the completion of the command of its thread: its signalling
    /// entity S (the second event of the command thread).
    ClComplete { call: &'static str },
    /// OpenCL: a host call that returns after the completion of the
    /// commands `commands` (`clWaitForEvents`, `clFinish`, the wait of a
    /// blocking map).
    ClWait {
        commands: Vec<usize>,
        call: &'static str,
    },
}

impl ApiOp {
    /// The API call's name, for reports.
    pub fn call(&self) -> &'static str {
        match self {
            ApiOp::Submit { .. } => "vkQueueSubmit",
            ApiOp::Flush { .. } => "vkFlushMappedMemoryRanges",
            ApiOp::Invalidate { .. } => "vkInvalidateMappedMemoryRanges",
            ApiOp::Signal { kind, .. } => match kind {
                SyncKind::Fence => "fence signal operation",
                SyncKind::Semaphore | SyncKind::Timeline => "semaphore signal operation",
                SyncKind::Event => "vkCmdSetEvent/vkSetEvent",
            },
            ApiOp::Wait { kind, .. } => match kind {
                SyncKind::Fence => "vkWaitForFences",
                SyncKind::Semaphore => "semaphore wait operation",
                SyncKind::Timeline => "semaphore wait operation / vkWaitSemaphores",
                SyncKind::Event => "vkCmdWaitEvents/vkGetEventStatus",
            },
            ApiOp::Reset { kind, .. } => match kind {
                SyncKind::Event => "vkResetEvent/vkCmdResetEvent",
                _ => "vkResetFences",
            },
            ApiOp::Barrier(_) => "vkCmdPipelineBarrier",
            ApiOp::Dispatch { .. } => "vkCmdDispatch",
            ApiOp::Transfer { kind, .. } => kind.call(),
            ApiOp::ClEnqueue { call, .. }
            | ApiOp::ClStart { call, .. }
            | ApiOp::ClComplete { call }
            | ApiOp::ClWait { call, .. } => call,
        }
    }

    /// The host API the operation belongs to (model profiles declare which
    /// they have rules for: `host API`).
    pub fn api(&self) -> HostApi {
        match self {
            ApiOp::ClEnqueue { .. }
            | ApiOp::ClStart { .. }
            | ApiOp::ClComplete { .. }
            | ApiOp::ClWait { .. } => HostApi::OpenCl,
            _ => HostApi::Vulkan,
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A host API whose operations a program may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum HostApi {
    Vulkan,
    OpenCl,
}

impl HostApi {
    pub const ALL: &[HostApi] = &[HostApi::Vulkan, HostApi::OpenCl];
    /// Its word in a model profile's `host` declaration.
    pub fn word(self) -> &'static str {
        match self {
            HostApi::Vulkan => "vulkan",
            HostApi::OpenCl => "opencl",
        }
    }
    /// Its name in messages.
    pub fn title(self) -> &'static str {
        match self {
            HostApi::Vulkan => "Vulkan",
            HostApi::OpenCl => "OpenCL",
        }
    }
    pub fn from_word(w: &str) -> Option<HostApi> {
        Self::ALL.iter().copied().find(|a| a.word() == w)
    }
}
