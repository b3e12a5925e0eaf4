#version 450
#extension GL_KHR_shader_subgroup_arithmetic : enable
#extension GL_KHR_shader_subgroup_ballot : enable
#extension GL_KHR_shader_subgroup_shuffle : enable
#extension GL_KHR_shader_subgroup_clustered : enable
#extension GL_KHR_shader_subgroup_quad : enable
// Float subgroup operations over one subgroup of four (the add, its scans and mul in this
// file; the others in float-*.comp), by hand in binary32
// (round to nearest even), with vkmm's order: ascending invocation id, left
// to right (SPIR-V leaves it "implementation defined").
// - subgroupAdd of v = {2^24, 1, -2^24, 1}: (2^24 + 1) rounds to 2^24
//   (16777217 is a tie between 16777216 and 16777218: even 16777216), + -2^24
//   = 0, + 1 = 1. (Another order, (v0 + v2) + v1 + v3, gives 2.)
//   Inclusive scan: 2^24, 2^24, 0, 1; exclusive: 0 (the identity), 2^24,
//   2^24, 0.
// - subgroupMul of {1.5, 2, 0.5, 4} = 6.
// - subgroupMin / Max of {3, NaN, -2, 5}: "if for any two Values one of them
//   is a NaN, the other is chosen": -2 and 5.
// - subgroupBroadcast(id + 0.5, 2) = 2.5, times 2 = 5.
// - subgroupClusteredAdd(id, 2): ids 0, 1: 0 + 1 = 1; ids 2, 3: 2 + 3 = 5.
// - subgroupQuadSwapHorizontal(id): id xor 1.
// - subgroupShuffleXor(id * 0.25, 3) * 4: id xor 3.
// @Config: 4, 1, 1
// @Output: forall (%buf[0][0] == 1 and %buf[0][3] == 1 and %buf[1][0] == 16777216 and %buf[1][1] == 16777216 and %buf[1][2] == 0 and %buf[1][3] == 1 and %buf[2][0] == 0 and %buf[2][1] == 16777216 and %buf[2][2] == 16777216 and %buf[2][3] == 0 and %buf[3][1] == 6)
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Buf { int r[4]; int inc[4]; int exc[4]; int mul[4]; int mn[4]; int mx[4]; int bc[4]; int cl[4]; int qs[4]; int sx[4]; } buf;
void main() {
    uint id = gl_SubgroupInvocationID;
    float big = 16777216.0;
    float v = id == 0 ? big : (id == 2 ? -big : 1.0);
    buf.r[id] = int(subgroupAdd(v));
    buf.inc[id] = int(subgroupInclusiveAdd(v));
    buf.exc[id] = int(subgroupExclusiveAdd(v));
    float m = id == 0 ? 1.5 : (id == 1 ? 2.0 : (id == 2 ? 0.5 : 4.0));
    buf.mul[id] = int(subgroupMul(m));
}
