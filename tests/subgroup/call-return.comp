#version 450
#extension GL_KHR_shader_subgroup_arithmetic : enable
// Invocation 0 returns early from a function that the others leave at
// its end; all four then call subgroupAdd(1 << id). Without maximal
// reconvergence SPIR-V promises no reconvergence after the call ("Unless
// otherwise indicated, the only reconvergence conditions are those
// described in the definition of uniform control flow", which speaks of
// merge blocks only), so id 0 may add alone (1) and the others 2+4+8 = 14:
// `forall (all 15)` does not hold. call-return-maximal.comp is the same
// shader under MaximallyReconvergesKHR, where it holds.
// @Config: 4, 1, 1
// @Output: forall (%buf[0][0] == 15 and %buf[0][1] == 15 and %buf[0][2] == 15 and %buf[0][3] == 15)
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Buf { uint r[4]; } buf;
uint f(uint id) {
    if (id == 0) {
        return 1;
    }
    return 2;
}
void main() {
    uint id = gl_SubgroupInvocationID;
    uint k = f(id);
    buf.r[id] = subgroupAdd(1u << id);
}
