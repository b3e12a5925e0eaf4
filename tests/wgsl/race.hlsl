// Each invocation writes its own cell; with -D SAME both write cell 0.
struct Cells { uint a[2]; };
RWStructuredBuffer<Cells> buf : register(u0);

[numthreads(2, 1, 1)]
void cs(uint3 id : SV_GroupThreadID) {
#ifdef SAME
    buf[0].a[0] = id.x + 1;
#else
    buf[0].a[id.x] = 1;
#endif
}
// @Config: 2, 1, 1
