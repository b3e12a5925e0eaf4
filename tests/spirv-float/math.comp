#version 450
layout(local_size_x = 1) in;
// Float arithmetic, conversions, OpAll/OpAny, packHalf2x16, a spec
// constant array size (OpSpecConstantOp IAdd) and OpArrayLength, each
// result stored as its bits (values derived in tests/spirv_float.rs).
// @Config: 1, 1, 1
// @Input: %buf = {1036831949, 0, 0, 0, 0, 0, 0, 0}
// @Input: %rt = {0, {0, 0, 0}}
// @Output: forall (%buf[1] == 1050253722 and %buf[2] == 1077936128 and %buf[3] == 0 and %buf[4] == 2 and %buf[5] == 1006644838 and %buf[6] == 1057803469 and %buf[7] == 4 and %rt[0] == 3)
layout(constant_id = 0) const int MAX_LOD_LEVEL = 3;
layout(set = 0, binding = 0) buffer Buf {
    float x;
    float sum;
    uint bits;
    uint u;
    int all_any;
    uint packed;
    float mixed;
    uint len;
} buf;
layout(set = 0, binding = 1) buffer Rt {
    uint n;
    float tail[];
} rt;
void main() {
    float x = buf.x;
    float arr[MAX_LOD_LEVEL + 1];
    buf.sum = x + 0.2;
    buf.bits = floatBitsToUint(floor(x * 10.0) + sqrt(4.0));
    buf.u = uint(-x);
    bvec2 b = bvec2(x > 0.0, isnan(x));
    buf.all_any = (all(b) ? 1 : 0) + (any(b) ? 2 : 0);
    buf.packed = packHalf2x16(vec2(x, 1.0));
    arr[MAX_LOD_LEVEL] = clamp(mix(x, 1.0, 0.5), 0.0, 1.0);
    buf.mixed = arr[MAX_LOD_LEVEL];
    buf.len = uint(arr.length());
    rt.n = uint(rt.tail.length());
}
