// `const N` sizes `out` and is what invocation 1 writes, with `override K`.
// /* const N = 7; */ and the line below are comments, not the declaration:
// const N: u32 = 5u;
const N: u32 = 4u;
override K: u32 = 9u;
@group(0) @binding(0) var<storage, read_write> out: array<u32, N>;

fn helper() -> u32 {
    const N = 100u; // a function's own N, not the module's
    return N;
}

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) i: u32) {
    if i == 1u {
        out[0] = N * 1000u + K;
        out[1] = helper();
    }
}
// @Config: 2, 1, 1
