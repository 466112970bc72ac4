//! The `ehir` command line: `opt`, `run`, `emit-llvm`, `build` and `tables` over `.cir`
//! and `.cpp` inputs. Exit status 0 on success, 1 on bad input (diagnostics on stderr,
//! no partial output file), 2 when `run --phase all` finds diverging phases. `-j N`
//! (every command) sets the threads that verify, transform and print functions.

mod build;
mod input;
mod opt;
mod output;
mod run;
mod tables;
mod verify_diagnostics;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "ehir", version, about = "C++ exception-handling IR toolkit")]
struct Cli {
    /// Stop printing diagnostics of one input after this many (0: no limit).
    #[arg(long, global = true, value_name = "N", default_value_t = input::DEFAULT_ERROR_LIMIT)]
    error_limit: usize,
    /// Threads for verifying, transforming and printing functions in parallel (default:
    /// the number of cores; 1: single-threaded). The output is the same for every N.
    #[arg(short = 'j', long = "jobs", global = true, value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse, verify, run passes and print CIR.
    Opt(opt::OptArgs),
    /// Interpret a program at one or every phase of the pipeline.
    Run(run::RunArgs),
    /// Lower to an EH ABI and print LLVM IR.
    EmitLlvm(build::EmitLlvmArgs),
    /// Compile and link an executable (or an object with `-c`).
    Build(build::BuildArgs),
    /// Print the exception tables (Itanium LSDA, WinEH state tables, CLR clauses).
    Tables(tables::TablesArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    input::set_error_limit(cli.error_limit);
    let jobs = cli.jobs.map(usize::from).unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    if let Err(err) = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build_global()
    {
        eprintln!("ehir: error: cannot start {jobs} threads: {err}");
        return ExitCode::from(1);
    }
    let result = match &cli.command {
        Command::Opt(args) => opt::opt_command(args),
        Command::Run(args) => run::run_command(args),
        Command::EmitLlvm(args) => build::emit_llvm_command(args),
        Command::Build(args) => build::build_command(args),
        Command::Tables(args) => tables::tables_command(args),
    };
    match result {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err(err) => {
            if let Some(input::Reported) = err.downcast_ref::<input::Reported>() {
                return ExitCode::from(1);
            }
            eprintln!("ehir: error: {err:#}");
            ExitCode::from(1)
        }
    }
}
