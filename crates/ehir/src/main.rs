//! The `ehir` command line: `opt`, `run`, `emit-llvm`, `build`, `tables` and `dot` over `.cir`
//! and `.cpp` inputs. Exit status 0 on success, 1 on bad input or flags (diagnostics on
//! stderr, no partial output file); `ehir run` exits with the program's status or one of
//! its own verdicts (`run::EXIT_STATUSES`). `-j N`
//! (every command) sets the threads that verify, transform and print functions.

mod build;
mod dot;
mod dot_graph;
mod input;
mod opt;
mod output;
mod run;
mod tables;
mod tables_itanium;
mod verify_diagnostics;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The heap: mimalloc, not glibc's malloc. The IR is many small allocations made and freed
/// function by function; on the EH pipeline benchmark mimalloc takes about a fifth less
/// CPU time (`bench/compare-eh-pipeline.sh`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's defaults trade memory for speed where ehir does not gain: it asks for
/// transparent huge pages, so that touching a few bytes of a fresh 2 MiB region makes all
/// of it resident, and it gives freed memory back to the system only after a delay. With
/// huge pages off for the process and memory given back at once, a run's resident set is
/// what it holds (5 MB without input instead of 11 MB; the interpreter's memory budget
/// then bounds the process) at no measurable cost in time. (The option number is
/// mimalloc's `mi_option_purge_delay`, the same in its versions 2 and 3.)
extern "C" fn configure_heap() {
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // Where the kernel has no such switch, huge pages stay as they are.
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    // SAFETY: runs before `main`, when no other thread exists (mimalloc's options are
    // not thread-safe).
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 0) };
}

/// [`configure_heap`] runs with the program's other initializers, before `main`: most of
/// what the runtime allocates before `main` would otherwise already sit in huge pages.
#[used]
#[unsafe(link_section = ".init_array")]
static CONFIGURE_HEAP: extern "C" fn() = configure_heap;

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
    /// An include directory passed to Clang, the C++ front end of `.cpp` inputs.
    #[arg(short = 'I', global = true, value_name = "DIR")]
    include_dirs: Vec<String>,
    /// A macro definition (`NAME` or `NAME=VALUE`) passed to Clang.
    #[arg(short = 'D', global = true, value_name = "MACRO")]
    defines: Vec<String>,
    /// The C++ standard passed to Clang (`--std c++17`; default: Clang's).
    #[arg(long = "std", global = true, value_name = "STD")]
    std: Option<String>,
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
    /// Draw the control flow of each function as a Graphviz graph (`.dot`, `.svg`, `.png`).
    Dot(dot::DotArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(opt::normalize_cir_opt_args(std::env::args().collect())) {
        Ok(cli) => cli,
        Err(err) => {
            // `--help` and `--version` print to stdout and succeed; a usage error is bad
            // input like any other (status 1, not clap's 2, which a program run by
            // `ehir run` could also exit with).
            let _ = err.print();
            return ExitCode::from(if err.use_stderr() { 1 } else { 0 });
        }
    };
    input::set_error_limit(cli.error_limit);
    input::set_clang_options(ehir_clang::ClangOptions {
        include_dirs: cli.include_dirs.clone(),
        defines: cli.defines.clone(),
        std: cli.std.clone(),
        ..Default::default()
    });
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
        Command::Dot(args) => dot::dot_command(args),
    };
    // The Windows headers the Clang front end wrote for --abi msvc, if it did.
    ehir_clang::headers::remove_msvc_headers();
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
