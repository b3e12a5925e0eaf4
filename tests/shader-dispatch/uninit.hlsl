// Reads a buffer nobody initialises (tests/shader_dispatch.rs): at 0 no
// invocation stores; with any other value both store to outb[0], a race.
RWStructuredBuffer<uint> flag : register(u0);
RWStructuredBuffer<uint> outb : register(u1);

[numthreads(2, 1, 1)]
void main(uint3 id : SV_GroupThreadID) {
    if (flag[0] != 0) {
        outb[0] = id.x;
    }
}
