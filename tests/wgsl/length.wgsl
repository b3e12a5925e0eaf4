// arrayLength of a runtime-sized array: as many elements as the @Input
// lists (3), so invocation 0 stores 3 into out[0]; invocation 1 writes
// out[7], clamped to the last element out[2].
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) i: u32) {
    if i == 0u {
        out[0] = arrayLength(&out);
    } else {
        out[7] = 5u;
    }
}
// @Input: %out = {{0, 0, 0}}
// @Output: forall (%out[0][0] == 3 and %out[0][1] == 0 and %out[0][2] == 5)
