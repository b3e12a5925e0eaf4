//! Benchmarks: fragment shader interlock tests (tests/fixtures/litmus-interlock),
//! the full outcome listing under `vulkan`. The target: six
//! overlapping invocations over two pixels (`two-pixels-six`, unordered
//! mode: 36 interlock orders) under 100 ms.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;
use vkmm::Limits;
use vkmm::analysis::check_litmus;

const FILES: &[&str] = &[
    "two-pixels-six",
    "oit-blend-unordered",
    "oit-blend",
    "linked-list-append",
];

fn bench(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-interlock");
    let model = vkmm::model::load("vulkan").unwrap();
    let mut group = c.benchmark_group("interlock");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for name in FILES {
        let program = vkmm::frontend::load(&dir.join(format!("{name}.litmus"))).unwrap();
        let o = check_litmus(name, &program, &model, Limits::default(), None).unwrap();
        eprintln!(
            "{name}: {} candidate executions evaluated, {} partial, {} consistent",
            o.executions, o.partial_evaluations, o.consistent
        );
        group.bench_function(*name, |b| {
            b.iter(|| {
                black_box(check_litmus(name, &program, &model, Limits::default(), None).unwrap())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
