// Message passing of a plain workgroup-memory write through
// workgroupBarrier, in one workgroup. The WGSL specification (14.5):
// plain workgroup accesses are "NonPrivatePointer | MakePointerAvailable
// [Visible] ... with the Workgroup scope", and "workgroupBarrier uses
// AcquireRelease memory semantics and WorkgroupMemory semantics": out[0]
// is always 1, race-free. naga's GLSL450 module keeps this only under the
// reading where Workgroup variables are coherent (vkmm's default
// `--legacy-memory-model coherent`); read literally (`strict`), the
// accesses are private and the outcome 0 appears.
var<workgroup> data: array<u32, 1>;
@group(0) @binding(0) var<storage, read_write> out: array<u32, 1>;

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) i: u32) {
    if i == 0u {
        data[0] = 1u;
    }
    workgroupBarrier();
    if i == 1u {
        out[0] = data[0];
    }
}
// @Config: 2, 1, 1
// @Output: forall (%out[0][0] == 1)
