#version 450
#extension GL_KHR_shader_subgroup_arithmetic : enable
#extension GL_KHR_shader_subgroup_ballot : enable
// Half the subgroup takes a branch: only those take part in the
// operations inside it. SPIR-V, dynamic instances: "When invocations
// execute a conditional branch and begin following different control
// flow paths, they execute different dynamic instances according to the
// path taken." By hand, ids 0, 1 (id < 2) inside the branch:
// subgroupAdd(1 << id) = 1 + 2 = 3; subgroupExclusiveAdd: 0, 1;
// subgroupBallot(true).x = 0b0011 = 3; subgroupElect is true for id 0
// only. After the branch's merge block the four reconverge (the
// selection was entered by all four and all leave through its merge
// block): subgroupAdd = 15, and subgroupBallot(id is odd).x = 0b1010.
// @Config: 4, 1, 1
// @Output: forall (%buf[0][0] == 3 and %buf[0][1] == 3 and %buf[1][0] == 0 and %buf[1][1] == 1 and %buf[2][0] == 3 and %buf[2][1] == 3 and %buf[3][0] == 1 and %buf[3][1] == 0 and %buf[4][0] == 15 and %buf[4][2] == 15 and %buf[4][3] == 15 and %buf[5][3] == 10)
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Buf { uint sum[4]; uint excl[4]; uint bal[4]; uint elect[4]; uint after[4]; uint odd[4]; } buf;
void main() {
    uint id = gl_SubgroupInvocationID;
    if (id < 2) {
        buf.sum[id] = subgroupAdd(1u << id);
        buf.excl[id] = subgroupExclusiveAdd(1u << id);
        buf.bal[id] = subgroupBallot(true).x;
        if (subgroupElect()) {
            buf.elect[id] = 1;
        }
    }
    buf.after[id] = subgroupAdd(1u << id);
    buf.odd[id] = subgroupBallot((id & 1) == 1).x;
}
