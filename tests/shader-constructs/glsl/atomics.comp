#version 450
#extension GL_KHR_memory_scope_semantics : require
// Every atomic function on buffer and shared memory, and the
// GL_KHR_memory_scope_semantics forms. One invocation: each result by hand
// in tests/shader_constructs.rs.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Buf { uint b[8]; int s; uint ret[8]; } o;
shared uint sh;

void main() {
    o.b[0] = 5u; o.b[1] = 5u; o.b[2] = 5u; o.b[3] = 12u;
    o.b[4] = 12u; o.b[5] = 12u; o.b[6] = 7u; o.b[7] = 7u;
    o.s = -3;
    o.ret[0] = atomicAdd(o.b[0], 3u);                 // returns 5, b0 = 8
    o.ret[1] = atomicMin(o.b[1], 2u);                 // returns 5, b1 = 2
    o.ret[2] = atomicMax(o.b[2], 9u);                 // returns 5, b2 = 9
    o.ret[3] = atomicAnd(o.b[3], 10u);                // returns 12, b3 = 8
    o.ret[4] = atomicOr(o.b[4], 3u);                  // returns 12, b4 = 15
    o.ret[5] = atomicXor(o.b[5], 10u);                // returns 12, b5 = 6
    o.ret[6] = atomicExchange(o.b[6], 1u);            // returns 7, b6 = 1
    o.ret[7] = atomicCompSwap(o.b[7], 7u, 4u);        // returns 7, b7 = 4
    atomicMin(o.s, -5);                               // signed: s = -5
    sh = 0u;
    atomicAdd(sh, 2u, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelaxed);
    atomicStore(sh, atomicLoad(sh, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsAcquire) + 1u,
                gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelease);
    uint seen = atomicCompSwap(sh, 3u, 10u, gl_ScopeWorkgroup, gl_StorageSemanticsShared,
                               gl_SemanticsAcquireRelease, gl_StorageSemanticsShared, gl_SemanticsAcquire);
    memoryBarrierShared();
    groupMemoryBarrier();
    memoryBarrier();
    memoryBarrierBuffer();
    barrier();
    o.b[0] += seen * 100u + sh;                       // 8 + 300 + 10 = 318
}
