#version 450
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_arithmetic : enable
#extension GL_KHR_shader_subgroup_ballot : enable
// The decoupled look-back step of a prefix sum: two workgroups of one
// two-invocation subgroup each. Workgroup 0 reduces its values (1 + 2 =
// 3) with subgroupAdd, its elected invocation stores the aggregate and
// publishes a flag with a release store. Workgroup 1's elected invocation
// reads the flag (acquire) and, when it is set, the aggregate; the value
// is broadcast from it after the branch (the subgroup reconverges at the
// branch's merge block) and added to workgroup 1's inclusive prefix of
// its own values 5, 6 (subgroupExclusiveAdd + own: 5, 11).
// By hand: either the flag is seen, and then the aggregate read is 3
// (the release/acquire pair makes the write visible: no race), giving
// 8, 14; or it is not, giving 5, 11. Nothing else: the look-back never
// reads a stale aggregate.
// @Config: 2, 1, 2
// @Output: forall ((%buf[2][0] == 8 and %buf[2][1] == 14) or (%buf[2][0] == 5 and %buf[2][1] == 11))
layout(local_size_x = 2) in;
layout(set = 0, binding = 0) coherent buffer Buf { uint agg; uint flag; uint prefix[2]; } buf;
void main() {
    uint wg = gl_WorkGroupID.x;
    uint id = gl_SubgroupInvocationID;
    uint v = wg * 4 + id + 1;
    uint total = subgroupAdd(v);
    if (wg == 0) {
        if (subgroupElect()) {
            buf.agg = total;
            atomicStore(buf.flag, 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
        }
    } else {
        uint look = 0;
        if (subgroupElect()) {
            if (atomicLoad(buf.flag, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsAcquire) == 1) {
                look = buf.agg;
            }
        }
        look = subgroupBroadcastFirst(look);
        buf.prefix[id] = look + subgroupExclusiveAdd(v) + v;
    }
}
