#version 450
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : enable
// Invocation 0 of each workgroup reads `cfg.mode` and takes a branch:
// in mode 1 it writes the shared cell without synchronisation (a race with
// the other workgroup); otherwise it only reads it.
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer Cfg { uint mode; uint pad; } cfg;
layout(std430, set = 0, binding = 1) buffer Data { uint cell; uint seen[]; };
void main() {
    if (cfg.mode == 1) {
        cell = gl_WorkGroupID.x;
    } else {
        seen[gl_WorkGroupID.x] = cell;
    }
}
