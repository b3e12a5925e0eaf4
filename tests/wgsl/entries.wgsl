@group(0) @binding(0) var<storage, read_write> out: array<u32, 2>;

@compute @workgroup_size(2)
fn first(@builtin(local_invocation_index) i: u32) {
    out[i] = 1u;
}

@compute @workgroup_size(2)
fn second(@builtin(local_invocation_index) i: u32) {
    out[0] = i;
}
// @Config: 2, 1, 1
