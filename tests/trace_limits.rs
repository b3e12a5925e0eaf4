//! The time limit (`--timeout`) is read while a thread's paths are
//! enumerated (`engine::trace`), not only between candidate executions: a
//! path-heavy thread stops at the limit and the answer is undecided,
//! "stopped at the time limit". No timing is asserted: the limit is zero,
//! so the first reading of the clock (after 1024 steps of the walk) stops
//! the walk, whatever the machine's speed.

mod common;

use std::time::Duration;
use vkmm::Session;
use vkmm::analysis::Checked;
use vkmm::engine::{LimitKind, Limits};

/// P0 reads `n` locations and branches on each value; P1 writes 1 to each,
/// so every read can return 0 or 1 and P0 has 2^n paths.
fn branchy(n: usize) -> String {
    let init: String = (0..n).map(|i| format!("x{i}=0; ")).collect();
    let mut p0 = Vec::new();
    let mut p1 = Vec::new();
    for i in 0..n {
        p0.push(format!("ld.atom.dv.sc0 r{i}, x{i}"));
        p0.push(format!("beq r{i}, 0, L{i}"));
        p0.push(format!("L{i}:"));
        p1.push(format!("st.atom.dv.sc0 x{i}, 1"));
    }
    common::vulkan_litmus(
        &init,
        &[
            "P0@sg 0, wg 0, qf 0".to_string(),
            "P1@sg 0, wg 1, qf 0".to_string(),
        ],
        &[p0, p1],
        "exists (P0:r0 == 1)",
    )
}

#[test]
fn path_enumeration_stops_at_the_time_limit() {
    let text = branchy(14);
    let session = Session::new().max_paths(usize::MAX);
    let program = session.load_text("gen.litmus", &text).unwrap();
    // The walk itself: the limit's error, naming the time limit.
    let limits = Limits {
        timeout: Some(Duration::ZERO),
        max_paths: usize::MAX,
        ..Limits::default()
    };
    let err = vkmm::engine::trace::explore(&program, &limits).unwrap_err();
    assert_eq!(err.limit, Some(LimitKind::Timeout), "{err}");
    assert!(err.to_string().contains("time limit"), "{err}");
    assert!(err.to_string().contains("paths of thread P0"), "{err}");
    // Without the limit the same walk finishes: 2^14 paths for P0.
    let limits = Limits {
        max_paths: usize::MAX,
        ..Limits::default()
    };
    let paths = vkmm::engine::trace::explore(&program, &limits).unwrap();
    assert_eq!(paths[0].paths.len(), 1 << 14);
    // The whole check: undecided, stopped by the time limit, nothing run.
    let Ok(Checked::Litmus(o)) = session
        .timeout(Some(Duration::ZERO))
        .check_text("gen.litmus", &text)
    else {
        panic!("the test checks")
    };
    assert_eq!(o.stopped_by, Some(LimitKind::Timeout));
    assert_eq!(o.condition_holds, None);
    assert_eq!(o.executions, 0);
    let report = vkmm::report::text::litmus(&o);
    assert!(report.contains("time limit"), "{report}");
}

#[test]
fn the_value_domain_rounds_read_the_clock() {
    // Fewer than 1024 steps: the walk of the paths never reads the clock,
    // but the end of each round of the value-domain fixpoint does.
    let text = branchy(2);
    let program = Session::new().load_text("gen.litmus", &text).unwrap();
    let limits = Limits {
        timeout: Some(Duration::ZERO),
        ..Limits::default()
    };
    let err = vkmm::engine::trace::explore(&program, &limits).unwrap_err();
    assert_eq!(err.limit, Some(LimitKind::Timeout), "{err}");
    assert!(err.to_string().contains("value domains"), "{err}");
    let paths = vkmm::engine::trace::explore(&program, &Limits::default()).unwrap();
    assert_eq!(paths[0].paths.len(), 4);
}
