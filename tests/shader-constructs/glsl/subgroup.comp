#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
// Subgroup operations over one subgroup of 4 (--subgroup-size 4), every
// invocation active: each result by hand in tests/shader_constructs.rs.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Out { uint r[4][8]; } o;

void main() {
    uint i = gl_SubgroupInvocationID;       // 0..3
    uint v = i + 1u;                         // 1..4
    o.r[i][0] = subgroupElect() ? 1u : 0u;  // 1 at invocation 0 only
    o.r[i][1] = subgroupAdd(v);              // 10
    o.r[i][2] = subgroupInclusiveAdd(v);     // 1, 3, 6, 10
    o.r[i][3] = subgroupExclusiveAdd(v);     // 0, 1, 3, 6
    o.r[i][4] = subgroupMax(v) * 10u + subgroupMin(v);   // 41
    o.r[i][5] = subgroupBroadcast(v, 2u) * 10u + subgroupBroadcastFirst(v);  // 31
    o.r[i][6] = subgroupBallot(i % 2u == 0u).x;           // 0b0101 = 5
    o.r[i][7] = (subgroupAll(v > 0u) ? 2u : 0u) + (subgroupAny(v == 4u) ? 1u : 0u);  // 3
}
