//! Benchmarks: the whole Khronos Alloy suite, and its largest test, checked
//! against the built-in Vulkan models on one core.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use vkmm::Limits;
use vkmm::analysis::{Models, check_program};
use vkmm::ir::Program;

fn corpus() -> Option<Vec<(String, Program)>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/khronos-alloy");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "test"))
        .collect();
    files.sort();
    Some(
        files
            .iter()
            .map(|f| {
                (
                    f.display().to_string(),
                    vkmm::frontend::load(f).expect("corpus parses"),
                )
            })
            .collect(),
    )
}

fn models() -> Models {
    Models::builtin("vulkan").unwrap()
}

fn bench(c: &mut Criterion) {
    let Some(programs) = corpus() else {
        eprintln!("../shared/corpus/khronos-alloy is missing: nothing to benchmark");
        return;
    };
    let models = models();
    c.bench_function(
        "khronos-alloy suite (89 files, 172 queries, parse excluded)",
        |b| {
            b.iter(|| {
                for (file, p) in &programs {
                    black_box(check_program(file, p, &models, Limits::default()).unwrap());
                }
            })
        },
    );
    // The largest test: most candidate executions.
    let (file, largest) = programs
        .iter()
        .max_by_key(|(file, p)| {
            let o = check_program(file, p, &models, Limits::default()).unwrap();
            (o.candidates, o.events)
        })
        .unwrap();
    let name = format!(
        "largest test ({})",
        Path::new(file).file_name().unwrap().to_string_lossy()
    );
    c.bench_function(&name, |b| {
        b.iter(|| black_box(check_program(file, largest, &models, Limits::default()).unwrap()))
    });
    c.bench_function("khronos-alloy suite including parsing", |b| {
        b.iter(|| {
            for (file, _) in &programs {
                let p = vkmm::frontend::load(Path::new(file)).unwrap();
                black_box(check_program(file, &p, &models, Limits::default()).unwrap());
            }
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
