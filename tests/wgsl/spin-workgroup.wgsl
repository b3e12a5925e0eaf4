// The lock of spin.wgsl on a workgroup variable: naga zero-initialises
// `lock` (invocation 0 stores 0, then a workgroup barrier) before the loop.
var<workgroup> lock: atomic<u32>;
@group(0) @binding(0) var<storage, read_write> total: atomic<u32>;

@compute @workgroup_size(2)
fn main() {
    loop {
        if atomicExchange(&lock, 1u) == 0u {
            break;
        }
    }
    atomicAdd(&total, 1u);
    atomicStore(&lock, 0u);
}
// @Config: 2, 1, 1
