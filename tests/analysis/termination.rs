//! Termination under progress models: verdicts derived by hand from the
//! definitions (Sorensen, Evrard and Donaldson, "GPU Schedulers: How Fair Is
//! Fair Enough?", CONCUR 2018, as Dat3M encodes them; see the module doc of
//! `vkmm::analysis::termination`), one test per rule.

use vkmm::Checked;
use vkmm::analysis::termination::{Progress, TerminationOutcome, Verdict};

fn check(text: &str, progress: &str) -> TerminationOutcome {
    check_unroll(text, progress, 2)
}

fn check_unroll(text: &str, progress: &str, unroll: usize) -> TerminationOutcome {
    let session = vkmm::Session::new()
        .unroll(unroll)
        .termination(Some(progress.parse::<Progress>().unwrap()));
    match session.check_text("t.litmus", text) {
        Ok(Checked::Termination(o)) => *o,
        other => panic!("{other:?}"),
    }
}

/// P0 spins until it reads 1 from `x`; P1 writes 1 (P0 has the lower id).
const WAIT_LOW: &str = "VULKAN wait-low\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n LC00: | st.atom.wg.sc0 x, 1 ;\n ld.atom.wg.sc0 r0, x | ;\n beq r0, 0, LC00 | ;\nexists (0==0)\n";

/// The same with the roles swapped: P1 spins, P0 writes.
const WAIT_HIGH: &str = "VULKAN wait-high\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n st.atom.wg.sc0 x, 1 | LC10: ;\n | ld.atom.wg.sc0 r0, x ;\n | beq r0, 0, LC10 ;\nexists (0==0)\n";

/// A look-back loop: P0 spins on `f` while it reads 0, copies P1's first
/// value (1) into r5 and looks again, leaves on 2; r9 counts the
/// iterations and nothing reads it. No iteration of the loop is an await
/// as a whole (r5 is written in the body and read after it, r9 carries a
/// value round), but an iteration that reads what the one before it read
/// leaves every register that matters as it found them.
const LOOK_BACK: &str = "VULKAN look-back\n{ f=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n LC00: | st.atom.rel.dv.sc0.semsc0 f, 1 ;\n ld.atom.acq.dv.sc0.semsc0 r0, f | st.atom.rel.dv.sc0.semsc0 f, 2 ;\n add r9, r9, 1 | ;\n beq r0, 2, LC01 | ;\n beq r0, 0, LC00 | ;\n add r5, r0, 0 | ;\n goto LC00 | ;\n LC01: | ;\nexists (P0:r5 == 1)\n";

fn verdict(text: &str, progress: &str) -> Verdict {
    check(text, progress).verdict
}

#[test]
fn fair_scheduling_runs_the_writer() {
    // FAIR: every unfinished invocation is scheduled again, so P1 writes
    // and P0's spin reads it (memory fairness: a loop spinning forever
    // would read the final, coherence-maximal, value 1 and leave).
    let o = check(WAIT_LOW, "FAIR");
    assert_eq!(o.verdict, Verdict::Terminates);
    assert!(o.complete(), "spin loops are awaits: no path is cut");
    assert_eq!(verdict(WAIT_HIGH, "FAIR"), Verdict::Terminates);
}

#[test]
fn hsa_guarantees_only_the_lowest_unfinished_id() {
    // HSA: "only the unfinished thread with the lowest id is guaranteed to
    // be scheduled fairly". P0 spinning is the lowest: P1 may never run.
    let o = check(WAIT_LOW, "HSA");
    assert_eq!(o.verdict, Verdict::NonTerminating);
    let w = o.witness.unwrap();
    assert_eq!(w.threads[0].fate, "stuck");
    assert_eq!(w.threads[1].fate, "never started");
    assert!(!w.threads[1].fair);
    assert!(
        w.loops[0].reads[0].contains("reads 0 from the initial value"),
        "{:?}",
        w.loops
    );
    // P0 writes and finishes first; then P1 is the lowest unfinished.
    assert_eq!(verdict(WAIT_HIGH, "HSA"), Verdict::Terminates);
}

#[test]
fn obe_needs_the_writer_to_have_started() {
    // OBE: only threads that took a step are scheduled fairly; P1 may never start.
    assert_eq!(verdict(WAIT_LOW, "OBE"), Verdict::NonTerminating);
    assert_eq!(verdict(WAIT_HIGH, "OBE"), Verdict::NonTerminating);
    // HSA_OBE: either guarantee. HSA rescues WAIT_HIGH (P0 is lowest and
    // finishes, then P1 is), nothing rescues WAIT_LOW.
    assert_eq!(verdict(WAIT_LOW, "HSA_OBE"), Verdict::NonTerminating);
    assert_eq!(verdict(WAIT_HIGH, "HSA_OBE"), Verdict::Terminates);
}

#[test]
fn lobe_grants_lower_ids_once_a_higher_one_started() {
    // LOBE: once P1 (spinning) started, P0 (lower id) is scheduled fairly.
    assert_eq!(verdict(WAIT_HIGH, "LOBE"), Verdict::Terminates);
    // P0 spinning does not make the higher P1 start.
    assert_eq!(verdict(WAIT_LOW, "LOBE"), Verdict::NonTerminating);
}

#[test]
fn unfair_scheduling_only_runs_someone() {
    assert_eq!(verdict(WAIT_LOW, "UNFAIR"), Verdict::NonTerminating);
    assert_eq!(verdict(WAIT_HIGH, "UNFAIR"), Verdict::NonTerminating);
}

#[test]
fn a_spin_loop_cannot_spin_on_a_stale_value() {
    // P1 writes 1 then 0: the final value is 0, and P0 (waiting for 0 to
    // go away) can spin forever reading it, even under FAIR.
    let back_to_zero = "VULKAN back\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n LC00: | st.atom.wg.sc0 x, 1 ;\n ld.atom.wg.sc0 r0, x | st.atom.wg.sc0 x, 0 ;\n beq r0, 0, LC00 | ;\nexists (0==0)\n";
    let o = check(back_to_zero, "FAIR");
    assert_eq!(o.verdict, Verdict::NonTerminating);
    let w = o.witness.unwrap();
    assert!(
        w.loops[0].reads[0].contains("reads 0 from P1 line 5"),
        "{:?}",
        w.loops
    );
    // Writing 0 then 1: the final value 1 ends the spin.
    let ends_at_one = back_to_zero.replace(
        "x, 1 ;\n ld.atom.wg.sc0 r0, x | st.atom.wg.sc0 x, 0",
        "x, 0 ;\n ld.atom.wg.sc0 r0, x | st.atom.wg.sc0 x, 1",
    );
    assert_eq!(verdict(&ends_at_one, "FAIR"), Verdict::Terminates);
}

/// Two exchanges that keep undoing each other (CADP `0_simple`).
const PING_PONG: &str = "VULKAN ping-pong\n{ m=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n LC00: | LC10: ;\n rmw.atom.wg.sc0 r0, m, 0 | rmw.atom.wg.sc0 r1, m, 1 ;\n bne r0, 1, LC01 | bne r1, 0, LC11 ;\n goto LC00 | goto LC10 ;\n LC01: | LC11: ;\nexists (0==0)\n";

#[test]
fn a_livelock_repeats_matching_iterations() {
    // P0 leaves when it reads something other than 1, P1 when it reads
    // something other than 0. Alternating, P1 reads P0's 0 and P0 reads
    // P1's 1 forever: each thread's last iteration matches the one before.
    let o = check(PING_PONG, "FAIR");
    assert_eq!(o.verdict, Verdict::NonTerminating);
    let w = o.witness.unwrap();
    assert_eq!(w.loops.len(), 2, "both threads spin: {w:?}");
    assert!(w.loops.iter().all(|l| l.infix >= 1 && l.suffix >= 1));
    // One iteration per thread cannot show a repetition (an exchange
    // loop has side effects: the infix must not be empty).
    let o = check_unroll(PING_PONG, "FAIR", 0);
    assert_eq!(o.verdict, Verdict::Terminates);
    assert!(
        o.bounded() && !o.complete(),
        "the bound cut paths: within the bound only"
    );
}

#[test]
fn straight_line_programs_terminate_completely() {
    let mp = "VULKAN mp\n{ x=0; y=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n st.atom.dv.sc0 x, 1 | ld.atom.dv.sc0 r0, y ;\n st.atom.dv.sc0 y, 1 | ld.atom.dv.sc0 r1, x ;\nexists (0==0)\n";
    for p in ["FAIR", "UNFAIR", "HSA"] {
        let o = check(mp, p);
        assert_eq!(o.verdict, Verdict::Terminates, "{p}");
        assert!(o.complete());
    }
}

#[test]
fn a_model_per_level_schedules_each_level() {
    // P0 (workgroup 0) waits for P1 (workgroup 1). The queue family's model
    // schedules its workgroups; a workgroup's model schedules its subgroups.
    let text = WAIT_LOW.replace("P1@sg 0, wg 0", "P1@sg 0, wg 1");
    assert_eq!(verdict(&text, "FAIR"), Verdict::Terminates);
    // Workgroups scheduled OBE: workgroup 1 may never start.
    assert_eq!(verdict(&text, "queuefamily=OBE"), Verdict::NonTerminating);
    // Subgroups within a workgroup OBE, workgroups FAIR: workgroup 1 runs,
    // and its only subgroup must (someone in a scheduled group runs).
    assert_eq!(
        verdict(&text, "workgroup=OBE,subgroup=OBE"),
        Verdict::Terminates
    );
}

#[test]
fn bad_progress_models_are_refused() {
    for (bad, why) in [
        ("SOMETIMES", "unknown progress model `SOMETIMES`"),
        ("cta=FAIR", "unknown level `cta`"),
    ] {
        let e = bad.parse::<Progress>().unwrap_err();
        assert!(e.contains(why), "{e}");
    }
    // A level the test does not use: OpenCL work-items have no subgroups
    // (each is its own), so a subgroup model would schedule nothing.
    let opencl = "OPENCL t\n{ [x]=0; }\nP0@wg 0, dev 0 (global int* x) { *x = 1; }\nexists (x=1)\n";
    let session = vkmm::Session::new().termination(Some("subgroup=OBE".parse().unwrap()));
    let e = session
        .check_text("t.litmus", opencl)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("t.litmus")
            && e.contains("names the subgroup level, which an OpenCL test does not use"),
        "{e}"
    );
    let session = vkmm::Session::new().termination(Some("workgroup=OBE".parse().unwrap()));
    assert!(session.check_text("t.litmus", opencl).is_ok());
}

#[test]
fn barriers_inside_loops() {
    // "if a work-group function occurs within a loop, the Invocations must
    // encounter the same work-group function in the same loop iterations"
    // (SPIR-V memory model for OpenCL, 3.5). P0 spins on x (nobody writes
    // it) around a barrier P1 passes once: P0's second pass waits forever.
    let in_loop = "VULKAN bar\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n LC00: | cbar.acq_rel.wg.semsc0 0 ;\n cbar.acq_rel.wg.semsc0 0 | ;\n ld.atom.wg.sc0 r0, x | ;\n beq r0, 0, LC00 | ;\nexists (0==0)\n";
    let o = check(in_loop, "FAIR");
    assert_eq!(o.verdict, Verdict::NonTerminating);
    let w = o.witness.unwrap();
    assert_eq!(w.threads[0].fate, "blocked at a barrier");
    // Both count to 2 around the barrier: they meet twice and finish.
    let both = "VULKAN loop2\n{ P0:r1=0; P1:r1=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;\n LC00: | LC10: ;\n cbar.wg 0 | cbar.wg 0 ;\n add r1, r1, 1 | add r1, r1, 1 ;\n bne r1, 2, LC00 | bne r1, 2, LC10 ;\nexists (0==0)\n";
    let o = check(both, "FAIR");
    assert_eq!(o.verdict, Verdict::Terminates);
    assert!(o.complete());
    // P0 counts to 2, P1 to 1: P0's second pass waits for P1 forever.
    let uneven = both.replace("bne r1, 2, LC10", "bne r1, 1, LC10");
    let o = check(&uneven, "FAIR");
    assert_eq!(o.verdict, Verdict::NonTerminating);
    assert_eq!(o.witness.unwrap().threads[0].fate, "blocked at a barrier");
    // P0 loops forever around the barrier, P1 passes it twice and ends:
    // P0's repeating pass cannot meet P1's last one (P1 does not repeat
    // it); P0 waits at its third pass.
    let mix = "VULKAN mix\n{ P1:r1=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;\n LC00: | LC10: ;\n cbar.wg 0 | cbar.wg 0 ;\n goto LC00 | add r1, r1, 1 ;\n | bne r1, 2, LC10 ;\nexists (0==0)\n";
    let w = check(mix, "FAIR").witness.unwrap();
    assert_eq!(
        (w.threads[0].fate.as_str(), w.threads[1].fate.as_str()),
        ("blocked at a barrier", "finished")
    );
    // Both loop forever around the barrier: they meet at every pass, the
    // suffix (one pass each) repeats forever.
    let forever = "VULKAN spin\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;\n LC00: | LC10: ;\n cbar.wg 0 | cbar.wg 0 ;\n goto LC00 | goto LC10 ;\nexists (0==0)\n";
    let o = check(forever, "FAIR");
    assert_eq!(o.verdict, Verdict::NonTerminating);
    let w = o.witness.unwrap();
    assert!(
        w.threads.iter().all(|t| t.fate == "stuck"),
        "{:?}",
        w.threads
    );
}

#[test]
fn a_counting_loop_does_not_repeat() {
    // A suffix repeats forever only if it leaves the invocation's state as
    // it found it: this loop's counter grows (r1 = 1, 2, 3), so its last
    // iterations, alike in events and values read, cannot be appended
    // again. (vkmm reported NON-TERMINATING here before registers were
    // compared.)
    let count = "VULKAN count\n{ P0:r1=0; x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;\n LC00: | st.atom.wg.sc0 x, 1 ;\n ld.atom.wg.sc0 r2, x | ;\n add r1, r1, 1 | ;\n bne r1, 3, LC00 | ;\nexists (0==0)\n";
    let o = check(count, "FAIR");
    assert_eq!(o.verdict, Verdict::Terminates);
    assert!(o.complete());
    // Adding 0 instead: r1 stays 0, the loop never leaves.
    let keeps = count.replace("add r1, r1, 1", "add r1, r1, 0");
    assert_eq!(verdict(&keeps, "FAIR"), Verdict::NonTerminating);
}

#[test]
fn a_barrier_some_invocation_never_reaches_blocks_forever() {
    // An invocation passes OpControlBarrier only when every invocation of
    // its execution-scope instance has reached it; P1 skips the barrier
    // when it reads 1, so P0 can wait forever.
    let divergent = "VULKAN div\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n st.atom.wg.sc0 x, 1 | ld.atom.wg.sc0 r0, x ;\n cbar.acq_rel.wg.semsc0 0 | beq r0, 1, LC11 ;\n | cbar.acq_rel.wg.semsc0 0 ;\n | LC11: ;\nexists (0==0)\n";
    let o = check(divergent, "FAIR");
    assert_eq!(o.verdict, Verdict::NonTerminating);
    let w = o.witness.unwrap();
    assert_eq!(w.threads[0].fate, "blocked at a barrier");
    assert_eq!(w.threads[1].fate, "finished");
    // Both always reach it: the barrier completes.
    let uniform = "VULKAN uni\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n st.atom.wg.sc0 x, 1 | cbar.acq_rel.wg.semsc0 0 ;\n cbar.acq_rel.wg.semsc0 0 | ld.atom.wg.sc0 r0, x ;\nexists (0==0)\n";
    let o = check(uniform, "FAIR");
    assert_eq!(o.verdict, Verdict::Terminates);
    assert!(o.complete());
    // In different workgroups the barriers are different instances: each
    // completes alone.
    let apart = divergent.replace("P1@sg 0, wg 0", "P1@sg 0, wg 1");
    assert_eq!(verdict(&apart, "FAIR"), Verdict::Terminates);
}

#[test]
fn check_diagnoses_barrier_divergence() {
    // "A work-group function must occur within a converged control flow;
    // i.e. all work-items in the work-group must encounter precisely the
    // same work-group function" (SPIR-V memory model for OpenCL, glossary).
    // P1 skips the barrier when it reads 1: in those executions P0 passes a
    // barrier P1 never reaches.
    let divergent = "VULKAN div\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n st.atom.wg.sc0 x, 1 | ld.atom.wg.sc0 r0, x ;\n cbar.acq_rel.wg.semsc0 0 | beq r0, 1, LC11 ;\n | cbar.acq_rel.wg.semsc0 0 ;\n | LC11: ;\nexists (P1:r0 == 1)\n";
    let Checked::Litmus(o) = vkmm::Session::new()
        .check_text("div.litmus", divergent)
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(
        o.barrier_divergence,
        ["P0 line 5: cbar.acq_rel.wg.semsc0 0 (P1 never reaches it)"]
    );
    // Converged: no diagnosis; in different workgroups: different instances.
    let uniform = "VULKAN uni\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n st.atom.wg.sc0 x, 1 | cbar.acq_rel.wg.semsc0 0 ;\n cbar.acq_rel.wg.semsc0 0 | ld.atom.wg.sc0 r0, x ;\nexists (P1:r0 == 1)\n";
    let apart = divergent.replace("P1@sg 0, wg 0", "P1@sg 0, wg 1");
    for text in [uniform, apart.as_str()] {
        let Checked::Litmus(o) = vkmm::Session::new().check_text("u.litmus", text).unwrap() else {
            panic!()
        };
        assert!(
            o.barrier_divergence.is_empty(),
            "{:?}",
            o.barrier_divergence
        );
    }
}

/// `explain`/`show` of a termination witness: the execution drawn, the
/// repeating iterations named by event id. Two exchange loops feeding each
/// other (each `rmw` reads the other's value, so neither leaves) under FAIR:
/// P0 leaves when it reads 1, P1 when it reads 0; P0 swaps in 0, P1 swaps
/// in 1, so each reads the other's last write forever. The witness's
/// infix/suffix split (one iteration each) must be visible in the drawing.
#[test]
fn explained_witness_marks_the_repeating_iterations() {
    const SWAP: &str = "VULKAN swap\n{ m=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n LC00: | LC10: ;\n rmw.atom.wg.sc0 r0, m, 0 | rmw.atom.wg.sc0 r1, m, 1 ;\n bne r0, 1, LC01 | bne r1, 0, LC11 ;\n goto LC00 | goto LC10 ;\n LC01: | LC11: ;\nexists (0==0)\n";
    let session = vkmm::Session::new().termination(Some("FAIR".parse::<Progress>().unwrap()));
    let program = session.load_text("swap.litmus", SWAP).unwrap();
    let x = session.explain_termination(&program, None).unwrap();
    assert_eq!(x.outcome.verdict, Verdict::NonTerminating);
    let w = x.outcome.witness.as_ref().unwrap();
    let drawn = w.execution.as_ref().expect("explain draws the execution");
    assert_eq!(w.loops.len(), 2, "both invocations spin");
    for l in &w.loops {
        assert!(
            !l.suffix_events.is_empty() && !l.infix_events.is_empty(),
            "{l:?}"
        );
        // Every marked event is an rmw of the spinning thread.
        for &e in l.suffix_events.iter().chain(&l.infix_events) {
            assert!(
                drawn.events[e].contains(&format!("{} line", l.thread)),
                "{}",
                drawn.events[e]
            );
            assert!(drawn.events[e].contains("rmw"), "{}", drawn.events[e]);
        }
    }
    // The repeating rmw of each thread reads the other thread's write.
    assert!(drawn.edges.iter().any(|e| e.relation == "rf"
        && w.loops[1].suffix_events.contains(&e.to_id)
        && drawn.graph_events[e.from_id].thread == 0));
    let text = vkmm::report::text::termination_explanation(&x);
    assert_eq!(text.matches("<- repeats forever").count(), 2, "{text}");
    assert_eq!(
        text.matches("<- matches the repetition").count(),
        2,
        "{text}"
    );
    let dot = vkmm::report::dot::termination(&x, &[]).unwrap();
    assert!(
        dot.contains("P0 (stuck, fair)") && dot.contains("P1 (stuck, fair)"),
        "{dot}"
    );
    assert_eq!(dot.matches("fillcolor=lightpink").count(), 2, "{dot}");
    assert_eq!(dot.matches("fillcolor=mistyrose").count(), 2, "{dot}");
    assert!(dot.contains("repeats forever") && dot.contains("matches the repetition"));
    // `check` does not draw it.
    let Ok(vkmm::Checked::Termination(o)) = session.check_program("swap.litmus", &program) else {
        panic!()
    };
    assert!(o.witness.unwrap().execution.is_none());
}

/// A program that terminates has no witness to draw: the picture says why.
#[test]
fn terminating_program_has_nothing_to_draw() {
    let session = vkmm::Session::new().termination(Some("FAIR".parse::<Progress>().unwrap()));
    let program = session.load_text("w.litmus", WAIT_LOW).unwrap();
    let x = session.explain_termination(&program, None).unwrap();
    assert_eq!(x.outcome.verdict, Verdict::Terminates);
    let e = vkmm::report::dot::termination(&x, &[]).unwrap_err();
    assert!(
        e.contains("terminates under progress FAIR") && e.contains("nothing to draw"),
        "{e}"
    );
    // A relation the wording does not label is refused by name.
    let hsa = vkmm::Session::new().termination(Some("HSA".parse::<Progress>().unwrap()));
    let x = hsa.explain_termination(&program, None).unwrap();
    let e = vkmm::report::dot::termination(&x, &["nosuch".into()]).unwrap_err();
    assert!(e.contains("unknown relation `nosuch`"), "{e}");
}

/// A spin whose cycle jumps back twice, to two heads (`goto LC01` from the
/// third block, `goto LC00` from the second), so that it leaves the
/// statement range of either loop: P0 reads `x` in three places and leaves
/// when one read returns 1; P1 writes 1 once. The cycle LC00 -> LC02 ->
/// LC01 -> LC00 is a loop of the control flow all the same. Under HSA, P0
/// (the lowest id) spinning, P1 may never run: it can run forever, reading
/// the initial 0 in each of the three places. Under FAIR P1 runs, and a
/// read repeating forever reads the coherence-last value 1 (memory
/// fairness): it terminates.
#[test]
fn a_cycle_through_two_back_jumps_is_a_loop() {
    const TEXT: &str = "VULKAN cycle\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n LC00: | st.atom.wg.sc0 x, 1 ;\n ld.atom.wg.sc0 r0, x | ;\n bne r0, 0, LC03 | ;\n goto LC02 | ;\n LC01: | ;\n ld.atom.wg.sc0 r1, x | ;\n bne r1, 0, LC03 | ;\n goto LC00 | ;\n LC02: | ;\n ld.atom.wg.sc0 r2, x | ;\n bne r2, 0, LC03 | ;\n goto LC01 | ;\n LC03: | ;\nexists (0==0)\n";
    let o = check_unroll(TEXT, "HSA", 1);
    assert_eq!(o.verdict, Verdict::NonTerminating);
    let w = o.witness.unwrap();
    assert_eq!(w.threads[1].fate, "never started");
    // The repeating iteration reads x three times, each the initial 0.
    let reads = &w.loops[0].reads;
    assert_eq!(reads.len(), 3, "{reads:?}");
    assert!(
        reads
            .iter()
            .all(|r| r.contains("reads 0 from the initial value")),
        "{reads:?}"
    );
    assert_eq!(check_unroll(TEXT, "FAIR", 2).verdict, Verdict::Terminates);
}

/// The suffix of a repetition must leave the registers as it found them,
/// also those holding a read's value that nothing on the path made
/// concrete (it is the candidate's value then, not a wildcard). Here the
/// first iteration resets r1 by an `add` (no event) after loading it, the
/// second loads x = 5 into r1 and the third leaves: the program always
/// ends. A split whose suffix is the second iteration would "repeat" only
/// if r1 = 0 at its start equalled r1 = 5 at its end.
#[test]
fn a_register_holding_a_read_value_must_match_too() {
    const TEXT: &str = "VULKAN regs\n{ x=5; P0:r0=0; P0:r1=0; P0:r2=0; }\n P0@sg 0, wg 0, qf 0 ;\n LC00: ;\n bne r1, 0, LC01 ;\n ld.atom.wg.sc0 r1, x ;\n bne r2, 0, LC02 ;\n add r1, r0, 0 ;\n add r2, r0, 1 ;\n LC02: ;\n goto LC00 ;\n LC01: ;\nexists (0==0)\n";
    let o = check_unroll(TEXT, "FAIR", 2);
    assert_eq!(o.verdict, Verdict::Terminates, "{:?}", o.witness);
    assert!(o.complete());
}

/// A test-and-set lock: each invocation exchanges 1 into `l` until it reads
/// 0, then releases with a store of 0. An iteration that reads 1 writes 1
/// back: memory is as it was, so the loop is an await and its iterations
/// are dropped (no path cut, the verdicts are complete).
const TAS_LOCK: &str = "VULKAN tas\n{ l=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n LC00: | LC10: ;\n rmw.atom.wg.sc0 r0, l, 1 | rmw.atom.wg.sc0 r1, l, 1 ;\n bne r0, 0, LC00 | bne r1, 0, LC10 ;\n st.atom.wg.sc0 l, 0 | st.atom.wg.sc0 l, 0 ;\nexists (0==0)\n";

#[test]
fn a_lock_spinning_on_an_exchange_is_an_await() {
    // OBE: the holder took a step (its exchange), so it is scheduled
    // fairly, releases, and the spinner's exchanges read the final 0: a
    // spin forever would read a stale 1 (the release is coherence-later).
    let o = check(TAS_LOCK, "OBE");
    assert_eq!(o.verdict, Verdict::Terminates);
    assert!(
        o.complete(),
        "the exchange loop is an await: nothing is cut"
    );
    assert_eq!(verdict(TAS_LOCK, "FAIR"), Verdict::Terminates);
    // HSA: P1 holds the lock and P0, the lowest id, spins: only P0 is
    // scheduled fairly, so P1 may never release. The repeating iteration
    // reads 1 and writes 1 back (the coherence-latest write is its own
    // earlier exchange's or P1's).
    let o = check(TAS_LOCK, "HSA");
    assert_eq!(o.verdict, Verdict::NonTerminating);
    let w = o.witness.unwrap();
    assert_eq!(w.threads[0].fate, "stuck");
    assert!(w.loops[0].reads[0].contains("reads 1"), "{:?}", w.loops);
}

/// TAS_LOCK written as a structured loop (`loop { if (exchange(l, 1) != 0)
/// { continue; } l = 0; break; }`): the release lies inside the loop's
/// statements but cannot reach the jump back, so the loop is an await all
/// the same and the verdicts are those of TAS_LOCK, complete.
const TAS_CONTINUE: &str = "VULKAN tas-continue\n{ l=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n LC00: | LC10: ;\n rmw.atom.wg.sc0 r0, l, 1 | rmw.atom.wg.sc0 r1, l, 1 ;\n beq r0, 0, LC01 | beq r1, 0, LC11 ;\n goto LC02 | goto LC12 ;\n LC01: | LC11: ;\n st.atom.wg.sc0 l, 0 | st.atom.wg.sc0 l, 0 ;\n goto LC03 | goto LC13 ;\n LC02: | LC12: ;\n goto LC00 | goto LC10 ;\n LC03: | LC13: ;\nexists (0==0)\n";

#[test]
fn a_lock_loop_releasing_inside_its_body_is_an_await() {
    let o = check(TAS_CONTINUE, "OBE");
    assert_eq!(o.verdict, Verdict::Terminates);
    assert!(o.complete(), "{o:?}");
    assert_eq!(verdict(TAS_CONTINUE, "HSA"), Verdict::NonTerminating);
}

#[test]
fn a_look_back_loop_repeats_only_what_matters() {
    // HSA: P0 is the lowest unfinished id and spins reading 0; P1 need
    // never run. Its iterations differ in r9, which nothing reads: were
    // the repetition judged on every register, no iteration would repeat
    // and the spinning execution would be missed (Terminates).
    let o = check(LOOK_BACK, "HSA");
    assert_eq!(o.verdict, Verdict::NonTerminating);
    assert!(o.complete(), "the repeated iterations are dropped, not cut");
    // FAIR: P1 runs and writes 2, which P0 reads in the end (memory
    // fairness: a read repeated forever reads the coherence-last write).
    let o = check(LOOK_BACK, "FAIR");
    assert_eq!(o.verdict, Verdict::Terminates);
    assert!(o.complete());
}

/// P0 writes `x` on each pass of its loop and leaves it once it reads P1's
/// write of `y`: each unrolled pass adds a write to `x`, so the order limit
/// stops the deeper bounds of the deepening search.
const DEEPER_STOPPED: &str = "VULKAN deeper-stopped\n{ x=0; y=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n LC00: | st.atom.wg.sc0 y, 1 ;\n st.atom.wg.sc0 x, 1 | st.atom.wg.sc0 x, 2 ;\n ld.atom.wg.sc0 r0, y | ;\n beq r0, 0, LC00 | ;\nexists (0==0)\n";

/// "Terminates within the bound" answers the bound asked for only: a limit
/// stopping a shallower bound of the deepening leaves the answer undecided,
/// naming the bound it stopped at and the deepest one searched to the end.
#[test]
fn a_limit_below_the_bound_asked_for_leaves_the_answer_undecided() {
    let run = |writes: usize| {
        let session = vkmm::Session::new()
            .unroll(3)
            .max_writes(writes)
            .termination(Some("FAIR".parse::<Progress>().unwrap()));
        match session.check_text("t.litmus", DEEPER_STOPPED) {
            Ok(Checked::Termination(o)) => *o,
            other => panic!("{other:?}"),
        }
    };
    for (writes, stopped_at) in [(2, 1), (3, 2)] {
        let o = run(writes);
        assert_eq!(o.verdict, Verdict::Undecided, "--max-writes {writes}");
        assert_eq!(o.unroll, stopped_at);
        assert_eq!(o.searched_within, Some(stopped_at - 1));
        assert_eq!(o.stopped_by, Some(vkmm::LimitKind::MaxWrites));
        let text = vkmm::report::text::termination(&o);
        assert!(
            text.contains(&format!(
                "UNDECIDED: the search at unroll {stopped_at} stopped"
            )) && text.contains(&format!("within unroll {}", stopped_at - 1)),
            "{text}"
        );
    }
    // With the order limit out of the way every bound is searched to the end.
    let o = run(4);
    assert_eq!(o.verdict, Verdict::Terminates);
    assert_eq!((o.unroll, o.searched_within), (3, None));
}

/// P0 takes a ticket from the counter `c` and, only with ticket 2, loops
/// storing `z` until it reads `y` = 1, which nothing writes; P1 takes one
/// ticket. With two increments of 1 from 0, an increment reads 0 or 1 (the
/// value one increment reads is 0 plus one per other increment before it),
/// so P0 never loops: every execution ends, and no path is cut.
const COUNTER_TOP: &str = "VULKAN counter-top\n{ c=0; y=0; z=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n rmw.atom.dv.sc0.add r0, c, 1 | rmw.atom.dv.sc0.add r0, c, 1 ;\n bne r0, 2, LC01 | ;\n LC00: | ;\n st.atom.dv.sc0 z, 1 | ;\n ld.atom.dv.sc0 r1, y | ;\n beq r1, 0, LC00 | ;\n LC01: | ;\nexists (0==0)\n";

/// An increment never reads the value only the last increment writes
/// (`counters` in the engine): the path taking ticket 2 is not walked, so
/// the answer is complete. With a third increment (P1 takes two tickets)
/// or with P1's increment inside a loop, ticket 2 is possible and P0 loops
/// forever (nothing writes `y`): non-terminating under every model.
#[test]
fn an_increment_never_reads_the_counters_last_value() {
    let o = check(COUNTER_TOP, "FAIR");
    assert_eq!(o.verdict, Verdict::Terminates);
    assert_eq!(o.cut_paths, 0, "the ticket-2 path is not walked");
    assert!(o.complete());
    let twice = COUNTER_TOP.replace(
        " bne r0, 2, LC01 | ;",
        " bne r0, 2, LC01 | rmw.atom.dv.sc0.add r1, c, 1 ;",
    );
    assert_eq!(verdict(&twice, "FAIR"), Verdict::NonTerminating);
    let looped = COUNTER_TOP
        .replace(
            " rmw.atom.dv.sc0.add r0, c, 1 | rmw.atom.dv.sc0.add r0, c, 1 ;",
            " rmw.atom.dv.sc0.add r0, c, 1 | LC10: ;\n | rmw.atom.dv.sc0.add r0, c, 1 ;\n | add r2, r2, 1 ;\n | bne r2, 2, LC10 ;",
        );
    assert_eq!(verdict(&looped, "FAIR"), Verdict::NonTerminating);
}

/// The same program without the counters reduction (`--no counters`):
/// P0's path taking ticket 2 is walked, its loop (waiting for a `y` = 1
/// nothing writes) is cut at the bound, and no execution of the walk
/// repeats forever within it, so the verdict is terminates within the
/// bound only: not complete, one path cut, undecided at the command line
/// (exit 3) where the reduction gives a complete TERMINATES (exit 0).
#[test]
fn without_counters_the_ticket_past_the_last_is_cut_at_the_bound() {
    let session = vkmm::Session::new()
        .unroll(2)
        .termination(Some("FAIR".parse::<Progress>().unwrap()))
        .reduction(vkmm::Reduction::Counters, false);
    let Ok(Checked::Termination(o)) = session.check_text("t.litmus", COUNTER_TOP) else {
        panic!()
    };
    assert_eq!(o.verdict, Verdict::Terminates);
    assert_eq!(o.cut_paths, 1);
    assert!(!o.complete());
    let dir = std::env::temp_dir().join(format!("vkmm-counters-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("counter-top.litmus");
    std::fs::write(&file, COUNTER_TOP).unwrap();
    let file = file.to_str().unwrap();
    let args = [
        "check",
        file,
        "--property",
        "termination",
        "--progress",
        "FAIR",
        "--unroll",
        "2",
    ];
    let (code, out, _) = crate::common::vkmm(&args);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("TERMINATES: every execution"), "{out}");
    let (code, out, err) = crate::common::vkmm(&[&args[..], &["--no", "counters"]].concat());
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("TERMINATES WITHIN THE BOUND"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// COUNTER_TOP with a store to the counter after P0's loop, behind a test
/// of P0's ticket against 7, and a loop that changes `z` on every pass
/// (so no pass repeats the one before and the bound cuts the path taking
/// ticket 2). Hand derivation: the store to `c` runs only with ticket 7;
/// the tickets are 0 and 1 (two increments of 1 from 0, and an increment
/// never reads what the last one writes), so no execution stores to `c`
/// and `c` is a counter. Then P0 never takes ticket 2, never enters the
/// loop, and every execution ends: terminating, with no path cut. A
/// thread running on from where the bound cut the ticket-2 path holds
/// ticket 2 there, so the store behind the test against 7 is not among
/// the writes it may make (counting every statement after the cut as
/// reachable would make `c` an ordinary location and walk ticket 2).
/// With the test against 2 instead the store is reachable from that cut:
/// `c` is not a counter, ticket 2 is walked and P0 may loop forever
/// (nothing writes `y`).
const COUNTER_STORE_AFTER_LOOP: &str = "VULKAN counter-store-after-loop\n{ c=0; y=0; z=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n rmw.atom.dv.sc0.add r0, c, 1 | rmw.atom.dv.sc0.add r0, c, 1 ;\n bne r0, 2, LC02 | ;\n LC00: | ;\n add r9, r9, 1 | ;\n st.atom.dv.sc0 z, r9 | ;\n ld.atom.dv.sc0 r1, y | ;\n beq r1, 0, LC00 | ;\n bne r0, 7, LC02 | ;\n st.atom.dv.sc0 c, 5 | ;\n LC02: | ;\nexists (0==0)\n";

/// Where the bound cut a path, the writes a thread running on may make
/// follow the registers the path holds there.
#[test]
fn the_writes_after_a_cut_follow_the_cut_paths_registers() {
    let o = check(COUNTER_STORE_AFTER_LOOP, "FAIR");
    assert_eq!(o.verdict, Verdict::Terminates);
    assert_eq!(o.cut_paths, 0, "the ticket-2 path is not walked");
    assert!(o.complete());
    let reachable = COUNTER_STORE_AFTER_LOOP.replace("bne r0, 7, LC02", "bne r0, 2, LC02");
    let o = check(&reachable, "FAIR");
    assert!(o.cut_paths > 0 && !o.complete(), "{o:?}");
}

/// P0 takes a ticket from the counter `c` and publishes it in `s`; P1 takes
/// one too, reads `s` and, only if it reads 2, loops changing `z` until it
/// reads `y` = 1, which nothing writes. Hand derivation: the tickets are 0
/// and 1 (two increments of 1 from 0), so `s` holds 0 (its initial value)
/// or P0's ticket, 0 or 1: P1 never reads 2, never loops, and every
/// execution ends, with no path cut. The value 2 reaches `s` only through
/// the ticket no increment reads, so the domains computed again with the
/// counter applied leave it out of `s` as well (with `s` holding 2 P1's
/// loop would be walked and cut by the bound).
const COUNTER_PUBLISHED: &str = "VULKAN counter-published\n{ c=0; s=0; y=0; z=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n rmw.atom.dv.sc0.add r0, c, 1 | rmw.atom.dv.sc0.add r0, c, 1 ;\n st.atom.dv.sc0 s, r0 | ld.atom.dv.sc0 r2, s ;\n | bne r2, 2, LC12 ;\n | LC10: ;\n | add r9, r9, 1 ;\n | st.atom.dv.sc0 z, r9 ;\n | ld.atom.dv.sc0 r1, y ;\n | beq r1, 0, LC10 ;\n | LC12: ;\nexists (0==0)\n";

/// A value only a counter's last value leads to is in no location's
/// domain.
#[test]
fn a_value_only_the_counters_last_value_leads_to_is_not_read() {
    let o = check(COUNTER_PUBLISHED, "FAIR");
    assert_eq!(o.verdict, Verdict::Terminates);
    assert_eq!(o.cut_paths, 0, "P1 reading 2 from s is not walked");
    assert!(o.complete());
    // P0 publishing its ticket plus one: 2 is in `s` and P1 loops forever.
    let plus_one = COUNTER_PUBLISHED.replace(
        " st.atom.dv.sc0 s, r0 |",
        " add r3, r0, 1 | ;\n st.atom.dv.sc0 s, r3 |",
    );
    assert_ne!(check(&plus_one, "FAIR").cut_paths, 0);
}

/// The deepening over the unrolling bound searches each skeleton once:
/// a skeleton a shallower bound searched without a witness comes again
/// at a deeper bound (made of the paths no bound cut), and is skipped.
/// CADP 116_simple (P0 exchanges 1 into Mem0 and, having read 0, stores 0
/// and loops while it then reads 1; P1 exchanges 1 in until it reads
/// something else), under FAIR with `--unroll 2`: the bound-0 search
/// wants no skeleton; the bound-1 search evaluates the two candidates of
/// the one skeleton it searches under some coherence order (P1 looping on
/// its exchange), none a witness, and cuts a path of P0's loop; the
/// bound-2 search lists that skeleton again (none of its paths was cut)
/// and skips it, and reaches no candidate in the one new skeleton it
/// searches. So 2 evaluations in all, where searching each bound afresh
/// counts those two candidates again (4). The verdict: terminates within
/// the bound (P0's loop is still cut at bound 2), as before the skip.
#[test]
fn the_deepening_searches_each_skeleton_once() {
    let Some(dir) = crate::common::corpus_or_skip("dat3m-vulkan-liveness") else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("CADP/2_threads_4_instructions/116_simple.litmus"))
        .unwrap();
    let o = check_unroll(&text, "FAIR", 2);
    assert_eq!(o.verdict, Verdict::Terminates);
    assert!(o.bounded());
    assert_eq!(o.executions, 2);
}
