//! Benchmark: the Dat3M OpenCL litmus corpus (both expected-verdict CSVs,
//! 181 rows, parsing included, one core) under the `opencl` model, and under
//! the `opencl-totalsc` variant (which enumerates SC orders).

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;
use vkmm::Limits;
use vkmm::analysis::{Property, check_litmus, expected};
use vkmm::frontend::{LocalMemory, Options};

const CSVS: &[(&str, Property)] = &[
    ("OPENCL-expected.csv", Property::Condition),
    ("OPENCL-DR-expected.csv", Property::Races),
];

fn corpus() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/dat3m-opencl");
    d.is_dir().then_some(d)
}

fn bench(c: &mut Criterion) {
    let Some(dir) = corpus() else {
        eprintln!("../shared/corpus/dat3m-opencl is missing: nothing to benchmark");
        return;
    };
    let mut rows = Vec::new();
    for (csv, property) in CSVS {
        let text = std::fs::read_to_string(dir.join(csv)).unwrap();
        for row in expected::parse(csv, &text, &dir).unwrap() {
            rows.push((row.path, *property));
        }
    }
    let model = vkmm::model::load("opencl").unwrap();
    let options = Options {
        local_memory: LocalMemory::Shared,
        ..Options::default()
    };
    let mut group = c.benchmark_group("dat3m-opencl");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    // Parses and checks every row under `model`; `decide` stops each search
    // once the row's property is decided.
    let run_all = |model: &vkmm::model::LoadedModel, decide: bool| {
        for (path, prop) in &rows {
            let p = vkmm::frontend::load_with(path, options.clone()).unwrap();
            let file = path.display().to_string();
            let decide = decide.then_some(*prop);
            black_box(check_litmus(&file, &p, model, Limits::default(), decide).unwrap());
        }
    };
    group.bench_function("both CSVs (181 rows, parse + check, one core)", |b| {
        b.iter(|| run_all(&model, true))
    });
    group.bench_function("both CSVs, every execution (no early stop)", |b| {
        b.iter(|| run_all(&model, false))
    });
    let totalsc = vkmm::model::load("opencl-totalsc").unwrap();
    group.bench_function(
        "both CSVs under opencl-totalsc (SC orders enumerated)",
        |b| b.iter(|| run_all(&totalsc, true)),
    );
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
