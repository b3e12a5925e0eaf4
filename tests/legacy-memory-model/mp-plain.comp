#version 450
// mp-coherent.comp with a buffer that is not `coherent`: the same fences
// and atomics, racy under both readings.
//
// glslang emits no Coherent decoration, so even the coherent reading
// gives the data write and read no availability or visibility operation
// and leaves them private. The fence-fence synchronization still makes
// the write happen-before the read, but a write is location-ordered
// before a read of another invocation only through an availability and
// visibility chain; the appendix, Private vs. Non-Private: "for private
// memory operations to be Location-Ordered between distinct agents
// requires using system-synchronizes-with rather than shader-based
// synchronization". The two race, and the read may see 0. GLSL says the
// same: without `coherent`, another invocation's writes need not be
// visible.
//
// @Config: 1, 1, 2
// @Output: forall (%buf[2] == 0 or %buf[3] == 1)
layout(local_size_x = 1) in;
layout(binding = 0) buffer Buf {
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
