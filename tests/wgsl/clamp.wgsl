// An index past the end: `out` has one element and invocation 1 writes
// out[1]. naga's Restrict policy clamps it to out[0].
@group(0) @binding(0) var<storage, read_write> out: array<u32, 1>;

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) i: u32) {
    out[i] = i + 1u;
}
// @Config: 2, 1, 1
// @Output: exists (%out[0][0] == 2)
