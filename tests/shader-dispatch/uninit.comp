#version 450
// Reads a buffer nobody initialises (tests/shader_dispatch.rs): at 0 no
// invocation stores; with any other value both store to outb.v, a race.
layout(local_size_x = 2) in;
layout(set = 0, binding = 0) buffer In { uint flag; } inb;
layout(set = 0, binding = 1) buffer Out { uint v; } outb;
void main() {
    if (inb.flag != 0u) {
        outb.v = gl_LocalInvocationID.x;
    }
}
