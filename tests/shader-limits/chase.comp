#version 450
// Every invocation follows a chain of slots through a large buffer: each
// step adds one to the slot it stands on and moves to the slot the value
// the add returned names (one of four, past the buffer's first 4096 words). The cells
// reached depend on the values the adds return, so vkmm finds them by
// walking the paths (docs/checking-your-shader.md, "Large buffers"), and
// the paths multiply with every step.
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Mem { uint mem[]; };

void main() {
    uint i = 0u;
    for (uint k = 0; k < STEPS; k++) {
        uint v = atomicAdd(mem[i], 1u);
        i = 4096u + 1000u * ((v + k) % 4u);
    }
    mem[i] = i;
}
