#version 450
// An array of image descriptors of different extents, indexed by a
// runtime value (a function parameter: `mip + 1`) and by a constant.
// Invocation i writes 7 to imgs[i + 1] at (i, 0): invocation 0 to
// imgs[1] (0, 0), invocation 1 to imgs[2] (1, 0) (imgs[2] is 2 x 1, so in
// bounds; imgs[1] is 1 x 1). Both then read imgs[1] (0, 0): invocation 0
// after its own write (program order: 7), invocation 1 with nothing
// ordering it against invocation 0's write (the images are not coherent,
// no barrier): a race on imgs[1] (0, 0), and invocation 1 reads 0 (the
// input) or 7.
// @Output: exists (%b[0][0] == 7 and %b[0][1] == 0)
layout(local_size_x = 2) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D imgs[3];
layout(set = 0, binding = 1) buffer B { uint seen[2]; } b;
void put(uint mip, ivec2 p, uint v) { imageStore(imgs[mip + 1], p, uvec4(v)); }
void main() {
    uint i = gl_LocalInvocationIndex;
    put(i, ivec2(int(i), 0), 7u);
    b.seen[i] = imageLoad(imgs[1], ivec2(0, 0)).x;
}
