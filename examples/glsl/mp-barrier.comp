#version 450
// Message passing through a workgroup control barrier: invocation 0
// writes the data, both invocations meet at a barrier whose semantics
// order buffer memory (acquire-release, with availability and
// visibility), then invocation 1 reads it. The barrier synchronises the
// two: the reader must see 1.
//
// @Config: 2, 1, 1
// @Output: forall (buf.got == 1)
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 2) in;
layout(set = 0, binding = 0) coherent buffer Buf {
  uint data;  // buf.data
  uint got;   // buf.got: the data invocation 1 saw
} buf;
void main() {
  if (gl_LocalInvocationID.x == 0) {
    buf.data = 1;
  }
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer,
                 gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable |
                 gl_SemanticsMakeVisible);
  if (gl_LocalInvocationID.x == 1) {
    buf.got = buf.data;
  }
}
