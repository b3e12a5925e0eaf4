// Every invocation of a workgroup counts itself; after the barrier,
// invocation 0 publishes the count. Checked at two invocations:
//   vkmm check --local-size 2 --length out=1 examples/shaders/counter.wgsl
// Race-free, and out[0] is 2 in every execution. Without the barrier,
// invocation 0 may publish 1.
var<workgroup> count: atomic<u32>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
    atomicAdd(&count, 1u);
    workgroupBarrier();
    if (lid.x == 0u) {
        out[0] = atomicLoad(&count);
    }
}
