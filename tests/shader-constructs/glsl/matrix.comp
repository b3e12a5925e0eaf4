#version 450
// A matrix: refused with its source line and the reason
// (tests/shader_constructs.rs).
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Out { uint m; } o;

void main() {
    mat2 mm = mat2(1.0, 2.0, 3.0, 4.0);
    vec2 r = mm * vec2(1.0, 1.0);
    o.m = uint(r.x * 10.0 + r.y);
}
