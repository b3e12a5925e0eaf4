#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// Subgroup elect, ballot and votes over one subgroup of 4, v = 1, 2, 3, 4.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Out { uint r[4][3]; } o;

void main() {
    uint i = gl_SubgroupInvocationID;
    uint v = i + 1u;
    o.r[i][0] = subgroupElect() ? 1u : 0u;                // 1 at invocation 0 only
    o.r[i][1] = subgroupBallot(i % 2u == 0u).x;           // bits 0 and 2: 5
    o.r[i][2] = (subgroupAll(v > 0u) ? 2u : 0u) + (subgroupAny(v == 4u) ? 1u : 0u);  // 3
}
