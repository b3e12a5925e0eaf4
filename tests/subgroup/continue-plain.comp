#version 450
#extension GL_KHR_shader_subgroup_arithmetic : enable
// No reconvergence at a loop's continue target without maximal reconvergence
// (SPV_KHR_maximal_reconvergence: "at the beginning of each iteration of
// the loop, invocations that entered the loop together and are continuing
// to the execute the loop will be converged", and "'T(L)' will include all
// non-escaping invocations in 'T(M)'" for the continue target L of loop
// M). Invocation 0 takes `continue` from inside an `if`, the others reach
// the end of the body; all four meet at the continue target (the loop's
// increment), where subgroupAdd(1 << id) runs: 1 + 2 + 4 + 8 = 15 for each.
// continue-plain.comp is the same loop without the attribute: there SPIR-V
// promises no reconvergence at the continue target and vkmm keeps the two
// paths apart (invocation 0 adds alone: 1; the others 2 + 4 + 8 = 14).
// @Config: 4, 1, 1
// @Output: forall (%buf[0][0] == 1 and %buf[0][1] == 14 and %buf[0][2] == 14 and %buf[0][3] == 14)
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Buf { uint sum[4]; uint seen[4]; } buf;
void main() {
    uint id = gl_SubgroupInvocationID;
    for (uint k = 0; k < 1; k++, buf.sum[id] = subgroupAdd(1u << id)) {
        if (id == 0) {
            continue;
        }
        buf.seen[id] = 1;
    }
}
