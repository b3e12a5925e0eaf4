#version 450
// The declared workgroup size (2) runs when no dispatch is given: both
// invocations add 1 to `count`; the one that sees 1 before its add is the
// last and stores what it reads back. With one invocation `done` would stay 0.
layout(local_size_x = 2) in;
layout(std430, binding = 0) buffer Buf { uint count; uint done; } b;
void main() {
    uint before = atomicAdd(b.count, 1);
    if (before == 1) {
        b.done = atomicAdd(b.count, 0);
    }
}
