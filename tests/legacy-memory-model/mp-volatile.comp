#version 450
// mp-coherent.comp with a `volatile` buffer: GLSL, Memory Qualifiers,
// "variables declared as volatile are automatically treated as coherent";
// glslang decorates each member both Volatile and Coherent, so the verdicts
// are mp-coherent's. Message passing between two workgroups,
// as GLSL code without the Vulkan memory model writes it: the data is a
// plain write, memoryBarrierBuffer() fences it, an atomic sets the flag;
// the reader reads the flag atomically, fences, and reads the data only
// when it saw the flag.
//
// glslang (GLSL450 memory model): the members are decorated Coherent;
// memoryBarrierBuffer() is OpMemoryBarrier Device AcquireRelease|
// UniformMemory; atomicExchange / atomicAdd(.., 0) are relaxed atomics at
// Device scope.
//
// Coherent reading (default), race-free, the reader never sees the flag
// without the data: the data write carries MakePointerAvailable at Device
// scope, the read MakePointerVisible at Device scope. The writer's fence
// (release, UniformMemory) is followed by the atomic write of the flag;
// the reader's atomic read of the flag reads it and is followed by its
// fence (acquire): the appendix's fence-fence synchronization, so the
// writer's fence synchronizes-with the reader's, the data write
// happens-before the data read, is made available to the device domain
// and visible from it: location-ordered, and the read takes 1.
//
// Strict reading: the data accesses are private; happens-before alone
// does not order a private write and a read of another invocation, so
// they race (and the read may see 0).
//
// @Config: 1, 1, 2
// @Output: forall (%buf[2] == 0 or %buf[3] == 1)
layout(local_size_x = 1) in;
layout(binding = 0) volatile buffer Buf {
  uint data;      // %buf[0]
  uint flag;      // %buf[1]
  uint seen_flag; // %buf[2]
  uint seen_data; // %buf[3]
} buf;
void main() {
  if (gl_WorkGroupID.x == 0) {
    buf.data = 1;
    memoryBarrierBuffer();
    atomicExchange(buf.flag, 1);
  } else {
    uint f = atomicAdd(buf.flag, 0);
    memoryBarrierBuffer();
    buf.seen_flag = f;
    if (f == 1) {
      buf.seen_data = buf.data;
    }
  }
}
