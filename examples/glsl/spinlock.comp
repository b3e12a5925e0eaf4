#version 450
// A spin lock: each of two invocations (in two workgroups) takes the lock
// with atomicCompSwap (acquire on success), increments a plain counter in
// `coherent` buffer memory, and releases the lock with a release store.
// The critical sections are ordered by the lock: the counter ends at 2
// and no access to it races.
//
// @Config: 1, 1, 2
// @Output: forall (buf.counter == 2)
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) coherent buffer Buf {
  uint lock;     // buf.lock
  uint counter;  // buf.counter
} buf;
void main() {
  while (atomicCompSwap(buf.lock, 0u, 1u, gl_ScopeDevice,
                        gl_StorageSemanticsBuffer,
                        gl_SemanticsAcquire | gl_SemanticsMakeVisible,
                        gl_StorageSemanticsBuffer, gl_SemanticsRelaxed) != 0u) {
  }
  buf.counter = buf.counter + 1u;
  atomicStore(buf.lock, 0u, gl_ScopeDevice, gl_StorageSemanticsBuffer,
              gl_SemanticsRelease | gl_SemanticsMakeAvailable);
}
