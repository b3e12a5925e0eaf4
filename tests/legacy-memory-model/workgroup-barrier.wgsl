// WGSL message passing through workgroup memory: invocation 0 writes the
// workgroup variable, both meet at workgroupBarrier(), invocation 1 copies
// it to the storage buffer. Compiled by naga (`naga -g
// workgroup-barrier.wgsl workgroup-barrier.spv`) to a module declaring
// `OpMemoryModel Logical GLSL450`; workgroupBarrier() is OpControlBarrier
// Workgroup Workgroup AcquireRelease|WorkgroupMemory, storageBarrier()
// OpControlBarrier Workgroup Device AcquireRelease|UniformMemory. naga
// zero-initialises `x` with a plain store by invocation 0 and a barrier
// of the same kind at the top of the entry point.
//
// Coherent reading (default): race-free, invocation 1 reads 1. Both stores
// to `x` are invocation 0's, each with MakePointerAvailable at Workgroup
// scope; the barrier after the second synchronizes the two invocations
// (release by 0, acquire by 1, WorkgroupMemory, Workgroup scope), so both
// stores happen-before invocation 1's load, which has MakePointerVisible
// at Workgroup scope: location-ordered, and the load takes the later
// store (1). The out[1] store is invocation 1's alone.
//
// Strict reading: every access to `x` is private, the barrier does not
// make the stores visible to invocation 1, and they race with its load.
@group(0) @binding(0) var<storage, read_write> out: array<u32, 2>;
var<workgroup> x: u32;

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) lid: u32) {
    if (lid == 0u) {
        x = 1u;
    }
    workgroupBarrier();
    if (lid == 1u) {
        out[1] = x;
    }
    storageBarrier();
}
