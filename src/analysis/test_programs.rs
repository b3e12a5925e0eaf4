//! Litmus programs the unit tests of several modules share.

/// `n` independent locations `x0..`: `P0` stores 1 to each with `store`
/// (an instruction without its operands, e.g. `st.av.dv.sc0`), `P1`, in
/// another workgroup, loads each into `r0..` with `load`. The locations
/// are independent, so every combination of `P1`'s reads (the initial 0
/// or `P0`'s 1) is consistent: 2^n final states, one execution each.
/// The text ends before the final condition, which the caller writes
/// (see [`every_register`]).
pub(crate) fn independent_reads(name: &str, n: usize, store: &str, load: &str) -> String {
    let mut s = format!("VULKAN {name}\n{{\n");
    s.extend((0..n).map(|j| format!("x{j}=0; ")));
    s.push_str("\n}\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n");
    for j in 0..n {
        s.push_str(&format!(" {store} x{j}, 1 | {load} r{j}, x{j} ;\n"));
    }
    s
}

/// `P1:r0 == v /\ P1:r1 == v /\ ...` over the `n` registers of
/// [`independent_reads`].
pub(crate) fn every_register(n: usize, v: i64) -> String {
    let all: Vec<String> = (0..n).map(|j| format!("P1:r{j} == {v}")).collect();
    all.join(" /\\ ")
}
