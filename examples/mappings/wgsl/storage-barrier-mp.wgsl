// Message passing of a plain storage write through storageBarrier, in one
// workgroup. The WGSL specification (14.5, Memory Model) maps it to the
// Vulkan memory model as: the plain write and read "correspond to ...
// operations with NonPrivatePointer | MakePointerAvailable [Visible] memory
// operands with the Workgroup scope", and "storageBarrier uses
// AcquireRelease memory semantics and UniformMemory semantics" on a control
// barrier whose "execution and memory scopes are Workgroup". So the write
// happens before the read and is made visible to it: out[0] is always 1,
// and there is no data race: what `vkmm check` answers, reading WGSL by
// that mapping (docs/format-wgsl.md). naga writes the module with the
// GLSL450 memory model and no NonPrivatePointer or Coherent on storage
// buffers: read by itself (`--legacy-memory-model strict`, or naga's .spv
// checked as SPIR-V) its plain accesses are private, and the outcome 0 and
// a race appear (docs/mappings.md, "WGSL -> Vulkan").
@group(0) @binding(0) var<storage, read_write> data: array<u32, 1>;
@group(0) @binding(1) var<storage, read_write> out: array<u32, 1>;

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) i: u32) {
    if i == 0u {
        data[0] = 1u;
    }
    storageBarrier();
    if i == 1u {
        out[0] = data[0];
    }
}
// @Config: 2, 1, 1
// @Output: forall (%out[0][0] == 1)
