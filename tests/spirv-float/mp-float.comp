#version 450
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 2) in;
// @Config: 2, 1, 1
// @Output: exists (%buf[2] == 1069547520)
layout(set = 0, binding = 0) coherent buffer Buf { float data; uint flag; float seen; } buf;
void main() {
    if (gl_LocalInvocationID.x == 0) {
        buf.data = 0.5 * 3.0;
        atomicStore(buf.flag, 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
    } else {
        uint f = atomicLoad(buf.flag, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
        if (f == 1u) {
            buf.seen = buf.data;
        }
    }
}
