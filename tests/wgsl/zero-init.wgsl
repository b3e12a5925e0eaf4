// Workgroup memory the shader never initialises: WGSL zero-initialises
// it, and naga does so with a store by local invocation 0 and a barrier.
var<workgroup> w: u32;
@group(0) @binding(0) var<storage, read_write> out: array<u32, 2>;

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) i: u32) {
    out[i] = w;
}
// @Config: 2, 1, 1
// @Output: forall (%out[0][0] == 0 and %out[0][1] == 0)
