#version 450
// Reads only: invocation i reads texel (1, 0) of imgs[i] (a runtime
// index: gl_LocalInvocationIndex through a variable) and texel (0, 0) of
// imgs[1] (a constant index). The inputs give imgs[0] = {5, 6} and
// imgs[1] = {8, 9}, so seen = {6, 9} and both read 8: always
// seen = {6, 9, 8, 8}; no writes to images, so no race.
// @Output: forall (%b[0][0] == 6 and %b[0][1] == 9 and %b[0][2] == 8 and %b[0][3] == 8)
layout(local_size_x = 2) in;
layout(set = 0, binding = 0, r32ui) uniform readonly uimage2D imgs[2];
layout(set = 0, binding = 1) buffer B { uint seen[4]; } b;
uint pick(uint k) { return imageLoad(imgs[k], ivec2(1, 0)).x; }
void main() {
    uint i = gl_LocalInvocationIndex;
    b.seen[i] = pick(i);
    b.seen[2 + i] = imageLoad(imgs[1], ivec2(0, 0)).x;
}
