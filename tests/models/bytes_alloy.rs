//! Memory locations as bytes in the Alloy `.test` format (issue 16, item
//! 6; docs/format-alloy-test.md, "Memory locations as bytes"): `SIZE x N`
//! and byte ranges `x[a..b]`, lowered by src/ir/bytes.rs like the Vulkan
//! litmus dialect. The files in tests/fixtures/alloy-bytes quote the sentence each
//! expectation is derived from; here they are checked, a mutation of the
//! lowering's input shows the expectations can fail, and bad input gives
//! located errors.

use crate::common;

use std::path::Path;

#[test]
fn byte_tests_give_their_hand_derived_answers() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/alloy-bytes");
    let files = common::files_with_ext(&dir, "test");
    assert!(files.len() >= 3);
    let (total, failures) = common::check_queries(&files, &common::models());
    assert!(total >= 6, "{total} queries");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn without_sizes_the_halves_are_one_location_and_the_answers_change() {
    // The same message passing with x unsized and whole-variable stores:
    // the second store overwrites the first, so the read of 8589934593 (a
    // value nobody writes) has no execution. The byte version's answer
    // depends on the per-chunk locations.
    let text = "NEWWG\nNEWSG\nNEWTHREAD\nst.av.scopedev.sc0 x = 1\nst.av.scopedev.sc0 x = 2\nst.atom.rel.scopedev.sc0.semsc0 y = 1\nNEWWG\nNEWSG\nNEWTHREAD\nld.atom.acq.scopedev.sc0.semsc0 y = 1\nld.vis.scopedev.sc0 x = 8589934593\nNOSOLUTION consistent[X]\n";
    let o = common::check_text("whole.test", text, &common::models());
    assert!(o.queries.iter().all(|q| q.passed), "{:?}", o.queries);
}

#[test]
fn aliased_sized_variables_and_pieces() {
    // SLOC: both names are one 8-byte variable; an access of y covering
    // both chunks is two pieces. x and y are two references, so program
    // order alone does not location-order the write through y and the
    // reads through x (Location-Ordered: "A_X == A_Y and R_X == R_Y and
    // X->Y"): the reads may see the values written and the accesses race.
    let text = "SIZE x 8\nNEWWG\nNEWSG\nNEWTHREAD\nst.sc0 x[0..4] = 1\nst.sc0 y = 4294967298\nld.sc0 x[0..4] = 2\nld.sc0 x = 4294967298\nSLOC x y\nSATISFIABLE consistent[X] && #dr>0\nNOSOLUTION consistent[X] && #dr=0\n";
    let p = vkmm::frontend::alloy_test::parse("t.test", text).unwrap();
    let locs: Vec<&str> = p.locations.iter().map(String::as_str).collect();
    assert_eq!(locs, ["x[0..4]", "x[4..8]"]);
    let pieces = p.threads[0]
        .instructions()
        .filter(|i| i.reference.is_some())
        .count();
    assert_eq!(pieces, 1 + 2 + 1 + 2);
    let o = common::check_text("t.test", text, &common::models());
    assert!(o.queries.iter().all(|q| q.passed), "{:?}", o.queries);
}

#[test]
fn bad_sizes_and_ranges_are_located_errors() {
    let t = |pre: &str, ins: &str| {
        format!("{pre}NEWWG\nNEWSG\nNEWTHREAD\n{ins}\nSATISFIABLE consistent[X]\n")
    };
    let cases: &[(String, &str)] = &[
        (
            t("SIZE x 0\n", "st.sc0 x = 1"),
            "t.test:1:8: a variable has 1 to 64 bytes, found 0",
        ),
        (
            t("SIZE x\n", "st.sc0 x = 1"),
            "t.test:1:1: SIZE takes a variable name and its size in bytes",
        ),
        (
            t("SIZE x 8\nSIZE x 4\n", "st.sc0 x = 1"),
            "t.test:2:6: `x` already has a size",
        ),
        (
            t("SIZE z 8\n", "st.sc0 x = 1"),
            "t.test:1:6: SIZE names `z`, which no instruction accesses",
        ),
        (
            t("SIZE x 8\n", "st.sc0 x[4..12] = 1"),
            "t.test:5:8: `x[4..12]` is out of bounds: `x` has 8 bytes",
        ),
        (
            t("", "st.sc0 x[0..4] = 1"),
            "t.test:4:8: `x[0..4]` names bytes of `x`, which has no size: declare it with `SIZE x N`",
        ),
        (
            t("SIZE x 8\n", "st.sc0 x[4..4] = 1"),
            "t.test:5:9: the byte range is empty in `x[4..4]`",
        ),
        (
            t("SIZE x 8\n", "st.sc0 x[0..4 = 1"),
            "t.test:5:9: expected `]` to close the byte range in `x[0..4`",
        ),
        (
            t("SIZE x 8\n", "st.sc0 x[0-4] = 1"),
            "t.test:5:9: expected `..` between the bounds",
        ),
        (
            t(
                "SIZE x 8\n",
                "st.sc0 x[0..4] = 1\nst.atom.scopedev.sc0 x = 1",
            ),
            "t.test:6:22: this atomic access of 8 bytes overlaps accesses of fewer bytes",
        ),
    ];
    for (text, want) in cases {
        let e = vkmm::frontend::alloy_test::parse("t.test", text)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(want), "{text}\ngot {e}");
    }
}
