// Message passing through a storage buffer, ordered by storageBarrier:
// invocation 0 stores 1 to `flag` (atomic, relaxed); after the barrier
// invocation 1 loads it and records it in out[0]. Atomics only, and no
// workgroup memory (so no zero-initialisation store either).
@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32, 1>;

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) i: u32) {
    if i == 0u {
        atomicStore(&flag, 1u);
    }
    storageBarrier();
    if i == 1u {
        out[0] = atomicLoad(&flag);
    }
}
// @Config: 2, 1, 1
// @Output: forall (%out[0][0] == 1)
