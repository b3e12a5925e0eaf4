#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// Subgroup min/max and broadcasts over one subgroup of 4, v = 1, 2, 3, 4.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Out { uint r[4][2]; } o;

void main() {
    uint i = gl_SubgroupInvocationID;
    uint v = i + 1u;
    o.r[i][0] = subgroupMax(v) * 10u + subgroupMin(v);                   // 41
    o.r[i][1] = subgroupBroadcast(v, 2u) * 10u + subgroupBroadcastFirst(v);  // 31
}
