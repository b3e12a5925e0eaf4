//! The `vkmm` command line: argument parsing, dispatch to the library's
//! [`vkmm::Session`], the reporters, and what only a terminal program does
//! (a thread pool for suites, a progress bar, running Graphviz). Each
//! command's body is in its own module.

mod args;
mod check;
mod compare;
mod diff;
mod explain;
mod generate;
mod output;
mod suite;

use args::{Cli, Command, OutputFormat, started};
use clap::Parser;
use output::{emit, out};
use std::process::ExitCode;
use vkmm::report::json;

/// Counts the memory the process holds, for `--max-memory`.
#[global_allocator]
static ALLOCATOR: vkmm::memory::CountingAllocator = vkmm::memory::CountingAllocator;

fn run(cli: Cli) -> Result<i32, String> {
    if let Some(t) = cli.timeout() {
        output::set_deadline(started() + t);
    }
    match cli.command {
        Command::Devices { format } => {
            let list = vkmm::device::vk::devices().map_err(|e| e.to_string())?;
            emit(
                format,
                "devices",
                &serde_json::json!({ "devices": list }),
                || vkmm::device::devices_text(&list),
            );
            Ok(0)
        }
        Command::Run {
            files,
            device,
            args,
        } => {
            let gpu =
                vkmm::device::vk::Gpu::open(device.device.as_deref()).map_err(|e| e.to_string())?;
            let session = args.session();
            let batch = vkmm::device::classify::run_files(
                &session,
                &gpu,
                &files,
                &device.params(),
                args.model.is_some(),
                device.spirv.as_deref(),
            )
            .map_err(|e| e.to_string())?;
            if args.format != OutputFormat::Json {
                batch.errors.iter().for_each(|e| eprintln!("error: {e}"));
            }
            emit(args.format, "run", &batch, || {
                vkmm::device::classify::batch_text(&batch)
            });
            Ok(batch.exit_code())
        }
        Command::Check {
            files,
            args,
            property,
            threads,
        } => check::command(&files, &args, property, threads),
        Command::Explain {
            file,
            outcome,
            explain_spec,
            args,
            property,
        } => explain::explain_command(&file, outcome, explain_spec, &args, property),
        Command::Show {
            file,
            outcome,
            explain_spec,
            dot,
            svg,
            png,
            relations,
            args,
            property,
        } => {
            let drawing = explain::Drawing {
                dot,
                svg,
                png,
                relations,
            };
            explain::show_command(&file, outcome, explain_spec, drawing, &args, property)
        }
        Command::Refines {
            files,
            mapping,
            threads,
            events,
            locations,
            implementation,
            spec,
            limits,
            format,
        } => match mapping {
            Some(m) => generate::mapping_command(
                &m,
                &implementation,
                &spec,
                vkmm::analysis::mapping::MappingBounds {
                    threads,
                    events,
                    locations,
                    deadline: None,
                    engine: if limits.engine == args::Engine::Reference {
                        vkmm::analysis::mapping::DiffEngine::Enumerate
                    } else {
                        vkmm::analysis::mapping::DiffEngine::Symbolic
                    },
                },
                &limits.session(),
                format,
            ),
            None => compare::refines(&files, &implementation, &spec, &limits.session(), format),
        },
        Command::Gen {
            cycles,
            family,
            mutants,
            threads,
            events,
            locations,
            vocabulary,
            scopes,
            classes,
            outcomes,
            models,
            out,
            limits,
            format,
        } => {
            if family {
                let search = diff::Search {
                    threads,
                    events,
                    locations,
                    vocabulary,
                    scopes,
                    classes,
                    max_tests: 0,
                    enumerate: false,
                };
                generate::family_command(
                    &models,
                    search,
                    outcomes,
                    out.as_deref(),
                    &limits.session(),
                    format,
                )
            } else if let Some(path) = mutants {
                generate::mutants_command(&models, &path, out.as_deref(), &limits.session(), format)
            } else {
                diff::gen_command(&cycles, &models, out.as_deref(), &limits.session(), format)
            }
        }
        Command::Diff {
            models,
            threads,
            events,
            locations,
            vocabulary,
            scopes,
            classes,
            max_tests,
            out,
            limits,
            format,
        } => diff::diff_command(
            &models,
            diff::Search {
                threads,
                events,
                locations,
                vocabulary,
                scopes,
                classes,
                max_tests,
                enumerate: limits.engine == args::Engine::Reference,
            },
            out.as_deref(),
            &limits.session(),
            format,
        ),
        Command::Compare {
            files,
            models,
            limits,
            format,
            fail_on_difference,
        } => compare::compare_command(
            &files,
            &models,
            &limits.session(),
            format,
            fail_on_difference,
        ),
        Command::Suite {
            dir,
            args,
            expected,
            manifest,
            inputs,
            property,
            jobs,
            junit,
            shard,
            undecided,
        } => {
            let a = suite::SuiteArgs {
                dir,
                manifest,
                inputs,
                expected,
                property,
                jobs,
                junit,
                shard,
                undecided,
            };
            suite::suite_command(a, &args)
        }
        Command::Merge {
            files,
            format,
            junit,
            undecided,
        } => suite::merge_command(&files, format, junit.as_deref(), &undecided),
    }
}

fn main() -> ExitCode {
    started();
    vkmm::memory::return_freed_memory_promptly();
    let cli = Cli::parse_from(args::with_reduction_aliases(std::env::args_os()));
    let (format, command) = cli.format();
    match run(cli) {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => {
            if format == OutputFormat::Json {
                let doc = serde_json::json!({ "error": e });
                out(&(json::document(command, &doc) + "\n"));
            }
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
