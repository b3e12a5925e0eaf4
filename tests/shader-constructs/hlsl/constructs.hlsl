// HLSL constructs: RWStructuredBuffer, RWByteAddressBuffer, groupshared,
// InterlockedAdd, InterlockedCompareExchange,
// GroupMemoryBarrierWithGroupSync, DeviceMemoryBarrier, WaveActiveSum,
// WavePrefixSum. Two invocations in one wave (--subgroup-size 2); the
// final state by hand in tests/shader_constructs.rs.
RWStructuredBuffer<uint> outb : register(u0);
RWByteAddressBuffer raw : register(u1);
groupshared uint counter;

[numthreads(2, 1, 1)]
void main(uint3 id : SV_GroupThreadID) {
    if (id.x == 0) { counter = 0; }
    GroupMemoryBarrierWithGroupSync();
    uint before;
    InterlockedAdd(counter, 1, before);
    GroupMemoryBarrierWithGroupSync();
    uint v = id.x + 1;
    outb[2 + id.x] = WaveActiveSum(v) * 10 + WavePrefixSum(v);   // 30, 31
    if (id.x == 0) {
        uint orig;
        InterlockedCompareExchange(outb[0], 0, counter, orig);  // 0 -> 2
        raw.Store(4, orig + 7);                                 // word 1 = 7
        DeviceMemoryBarrier();
    }
}
