//! Benchmarks: the Dat3M Vulkan litmus corpus (all four expected-verdict
//! CSVs, one core) and its largest looping test, xf-barrier.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;
use vkmm::Limits;
use vkmm::analysis::{Property, check_litmus, expected};
use vkmm::ir::Program;

const CSVS: &[(&str, &str, Property)] = &[
    ("VULKAN-expected.csv", "vulkan", Property::Condition),
    (
        "VULKAN-NOCHAINS-expected.csv",
        "vulkan-nochains",
        Property::Condition,
    ),
    ("VULKAN-DR-expected.csv", "vulkan", Property::Races),
    (
        "VULKAN-DR-NOCHAINS-expected.csv",
        "vulkan-nochains",
        Property::Races,
    ),
];

fn corpus() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/dat3m-vulkan");
    d.is_dir().then_some(d)
}

fn bench(c: &mut Criterion) {
    let Some(dir) = corpus() else {
        eprintln!("../shared/corpus/dat3m-vulkan is missing: nothing to benchmark");
        return;
    };
    // (program, model, property) for every row of the four CSVs
    let mut rows: Vec<(String, Program, vkmm::model::LoadedModel, Property)> = Vec::new();
    for (csv, model, property) in CSVS {
        let text = std::fs::read_to_string(dir.join(csv)).unwrap();
        for row in expected::parse(csv, &text, &dir).unwrap() {
            let p = vkmm::frontend::load(&row.path).unwrap();
            rows.push((
                row.path.display().to_string(),
                p,
                vkmm::model::load(model).unwrap(),
                *property,
            ));
        }
    }
    let mut group = c.benchmark_group("dat3m-vulkan");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("all four CSVs (236 rows, one core)", |b| {
        b.iter(|| {
            for (file, p, m, prop) in &rows {
                black_box(check_litmus(file, p, m, Limits::default(), Some(*prop)).unwrap());
            }
        })
    });
    let xf = dir.join("Manual/xf-barrier.litmus");
    let program = vkmm::frontend::load(&xf).unwrap();
    let model = vkmm::model::load("vulkan").unwrap();
    let o = check_litmus("xf-barrier", &program, &model, Limits::default(), None).unwrap();
    eprintln!(
        "xf-barrier: {} candidate executions explored, {} consistent, {} thread paths cut at unroll {}",
        o.executions, o.consistent, o.cut_paths, o.unroll
    );
    group.bench_function("xf-barrier (forall, full enumeration)", |b| {
        b.iter(|| {
            black_box(
                check_litmus("xf-barrier", &program, &model, Limits::default(), None).unwrap(),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
