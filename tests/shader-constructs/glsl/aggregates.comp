#version 450
// Vectors, swizzles, floats, struct arrays in a buffer and an array of
// structs in shared memory: one invocation, values by hand.
layout(local_size_x = 1) in;
struct Pair { uint a; uint b; };
layout(set = 0, binding = 0) buffer Out { Pair p[2]; uvec4 v; } o;
shared Pair sp[2];

void main() {
    uvec4 v = uvec4(1u, 2u, 3u, 4u);
    o.v = v.wzyx + uvec4(v.xy, 0u, 0u);          // (5, 5, 2, 1)
    sp[0].a = 3u; sp[0].b = 4u;
    sp[1] = Pair(sp[0].b, sp[0].a + 10u);        // (4, 13)
    o.p[0] = sp[1];
    o.p[1].a = sp[0].a * sp[1].b;                // 39
    o.p[1].b = uint(dot(vec2(1.0, 2.0), vec2(3.0, 4.0)));  // 11
}
