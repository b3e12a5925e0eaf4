// Reads a buffer nobody initialises (tests/shader_dispatch.rs): at 0 no
// invocation stores; with any other value both store to out, a race.
@group(0) @binding(0) var<storage, read> flag: u32;
@group(0) @binding(1) var<storage, read_write> out: u32;

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) i: u32) {
    if (flag != 0u) {
        out = i;
    }
}
