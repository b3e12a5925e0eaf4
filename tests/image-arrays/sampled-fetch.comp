#version 450
// Sampled images as read-only inputs: an array of two combined image
// samplers, read by texelFetch (OpImage of the sampled image, then
// OpImageFetch at an integer coordinate and Lod 0: no filtering). The
// inputs give tex[1] the float texels {1.0, 2.5} (bits 0x3f800000,
// 0x40200000; format Unknown: one channel). Invocation i fetches texel
// (i, 0) of tex[1] (a constant index) and texel (1, 0) of tex[i] (a
// runtime index); tex[0] is all 0. By hand: a = {2, 5} (doubled), c =
// {0, 5}: always a = {2, 5}, c = {0, 5}; reads only, no race.
// @Output: forall (%b[0][0] == 2 and %b[0][1] == 5 and %b[1][0] == 0 and %b[1][1] == 5)
layout(local_size_x = 2) in;
layout(set = 0, binding = 0) uniform sampler2D tex[2];
layout(set = 0, binding = 1) buffer B { uint a[2]; uint c[2]; } b;
void main() {
    uint i = gl_LocalInvocationIndex;
    b.a[i] = uint(texelFetch(tex[1], ivec2(int(i), 0), 0).x * 2.0);
    b.c[i] = uint(texelFetch(tex[i], ivec2(1, 0), 0).x * 2.0);
}
