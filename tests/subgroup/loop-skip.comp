#version 450
#extension GL_KHR_shader_subgroup_arithmetic : enable
// Divergence inside a loop: in iteration 0 only ids 0 and 1 reach the
// subgroupAdd (ids 2 and 3 skip it), in iteration 1 all four do. The
// invocations that take part in a dynamic instance are the tangle ("the
// set of invocations that execute the same dynamic instance of an
// instruction"), and loop iterations are different dynamic instances
// ("Different loop iterations ... yield different dynamic instances").
// By hand, contributing 1 << id: iteration 0 sums ids 0, 1: 3; iteration
// 1 sums all four: 15. Ids 2 and 3 reach the instruction once each (in
// iteration 1) and see 15, not 3: pairing arrivals by how often each
// invocation reached the instruction would give them 3.
// @Config: 4, 1, 1
// @Output: forall (%buf[0][0] == 3 and %buf[0][1] == 3 and %buf[0][4] == 15 and %buf[0][5] == 15 and %buf[0][6] == 15 and %buf[0][7] == 15 and %buf[0][2] == 0 and %buf[0][3] == 0)
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Buf { uint r[8]; } buf;
void main() {
    uint id = gl_SubgroupInvocationID;
    for (uint i = 0; i < 2; i++) {
        if (i > 0 || id < 2) {
            buf.r[i * 4 + id] = subgroupAdd(1u << id);
        }
    }
}
