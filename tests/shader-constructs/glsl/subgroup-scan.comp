#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// Subgroup reduce and scans over one subgroup of 4 (--subgroup-size 4),
// every invocation active, v = 1, 2, 3, 4: the sums by hand in
// tests/shader_constructs.rs.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Out { uint r[4][3]; } o;

void main() {
    uint i = gl_SubgroupInvocationID;
    uint v = i + 1u;
    o.r[i][0] = subgroupAdd(v);              // 10
    o.r[i][1] = subgroupInclusiveAdd(v);     // 1, 3, 6, 10
    o.r[i][2] = subgroupExclusiveAdd(v);     // 0, 1, 3, 6
}
