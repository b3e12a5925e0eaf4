// WGSL constructs: loop/continuing/break if, switch, atomics with
// atomicCompareExchangeWeak, arrayLength, pointer parameters,
// workgroupUniformLoad, workgroupBarrier/storageBarrier, signed % and /.
// Two invocations; the final state by hand in tests/shader_constructs.rs.
struct Out { r: array<i32, 6>, c: atomic<u32>, }
@group(0) @binding(0) var<storage, read_write> o: Out;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
var<workgroup> w: u32;

fn bump(p: ptr<function, i32>, by: i32) { *p = *p + by; }

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) i: u32) {
    if (i == 0u) {
        // loop with continuing and break if: k = 0, 1, 2, 3 -> 6.
        var k: i32 = 0;
        var s: i32 = 0;
        loop {
            s += k;
            continuing {
                k += 1;
                break if k > 3;
            }
        }
        o.r[0] = s;
        var t: i32 = 0;
        for (var j: i32 = 0; j < 4; j++) {
            switch (j) {
                case 0, 1: { t += 1; }
                case 2: { t += 10; }
                default: { t += 100; }
            }
        }
        o.r[1] = t;                    // 1 + 1 + 10 + 100 = 112
        var p: i32 = 5;
        bump(&p, 4);
        o.r[2] = p;                    // 9
        let m = -7;
        o.r[3] = m % 2 * 10 + m / 2;   // -1 * 10 + -3 = -13 (truncating)
        o.r[4] = i32(arrayLength(&data));   // 3 (--length data=3)
        w = 42u;
    }
    workgroupBarrier();
    // Both add 1; exactly one compare-exchange from 2 to 5 succeeds.
    atomicAdd(&o.c, 1u);
    storageBarrier();
    let seen = workgroupUniformLoad(&w);    // 42: the barrier it implies orders the store
    if (i == 1u) { o.r[5] = i32(seen); }
    workgroupBarrier();
    let x = atomicCompareExchangeWeak(&o.c, 2u, 5u);
    if (x.exchanged) { data[0] = x.old_value; }
}
