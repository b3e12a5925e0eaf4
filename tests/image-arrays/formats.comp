#version 450
// Storage images of a float, a normalised and an integer format, each an
// array of two descriptors, element 1 written and read back by one
// invocation (program order, so the read sees the write):
// - rgba16f: 2.5 is exact in binary16, read back 2.5; 2.5 * 4 = 10.
// - rgba8 (unorm): 0.5 is stored as round(0.5 * 255) = 128 (Vulkan's
//   "round(clamp(c, 0, 1) * (2^b - 1))", round half to even would give
//   128 as well: 127.5 -> 128), read back 128 / 255; * 255 + 0.5 = 128.5,
//   truncated 128.
// - r32i: -3 stored and read back as -3; + 10 = 7.
// So seen = {10, 128, 7}.
// @Output: forall (%b[0][0] == 10 and %b[0][1] == 128 and %b[0][2] == 7)
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, rgba16f) uniform image2D hf[2];
layout(set = 0, binding = 1, rgba8) uniform image2D un[2];
layout(set = 0, binding = 2, r32i) uniform iimage2D si[2];
layout(set = 0, binding = 3) buffer B { uint seen[3]; } b;
void main() {
    imageStore(hf[1], ivec2(0, 0), vec4(2.5, 0.0, 0.0, 1.0));
    imageStore(un[1], ivec2(0, 0), vec4(0.5, 0.0, 0.0, 1.0));
    imageStore(si[1], ivec2(0, 0), ivec4(-3));
    b.seen[0] = uint(imageLoad(hf[1], ivec2(0, 0)).x * 4.0);
    b.seen[1] = uint(imageLoad(un[1], ivec2(0, 0)).x * 255.0 + 0.5);
    b.seen[2] = uint(imageLoad(si[1], ivec2(0, 0)).x + 10);
}
