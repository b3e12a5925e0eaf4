#version 450
// A bump allocator behind 65536 buckets (tests/shader_dispatch.rs): each
// invocation takes two slots past the buckets with an atomic add and
// writes its id there. With -D RACY the slot comes from a plain read of a
// word nobody writes, so both invocations write the same slot.
layout(local_size_x = 2) in;
layout(set = 0, binding = 0) buffer Mem {
    uint mem[];
};
#define BUCKETS 65536
void main() {
    uint id = gl_GlobalInvocationID.x;
    for (uint i = 0; i < 2; i++) {
#ifdef RACY
        uint slot = mem[1] + BUCKETS;
#else
        uint slot = atomicAdd(mem[0], 1) + BUCKETS;
#endif
        mem[slot] = id;
    }
}
