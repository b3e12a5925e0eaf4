#version 450
// Message passing between the two invocations of one workgroup, in
// `coherent` buffer memory, synchronised by a release store and an
// acquire load of a flag (GL_KHR_memory_scope_semantics). When the
// reader sees the flag, it must see the data: the outcome
// flag == 1 && data == 0 is forbidden.
//
// @Config: 2, 1, 1
// @Output: forall (buf.seen == 0 or buf.got == 1)
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 2) in;
layout(set = 0, binding = 0) coherent buffer Buf {
  uint data;  // buf.data
  uint flag;  // buf.flag
  uint seen;  // buf.seen: the flag the reader saw
  uint got;   // buf.got: the data the reader saw
} buf;
void main() {
  if (gl_LocalInvocationID.x == 0) {
    buf.data = 1;
    atomicStore(buf.flag, 1u, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer,
                gl_SemanticsRelease | gl_SemanticsMakeAvailable);
  } else {
    uint f = atomicLoad(buf.flag, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer,
                        gl_SemanticsAcquire | gl_SemanticsMakeVisible);
    buf.seen = f;
    if (f == 1u) {
      buf.got = buf.data;
    }
  }
}
