// A spin lock on a storage buffer (no workgroup memory): each invocation
// takes it with atomicExchange, adds 1 to `total` and releases it.
@group(0) @binding(0) var<storage, read_write> lock: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> total: atomic<u32>;

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
