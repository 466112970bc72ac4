//! The `ehir` command line: `opt`, `run`, `emit-llvm`, `build` and `tables` over `.cir`
//! and `.cpp` inputs. Exit status 0 on success, 1 on bad input (diagnostics on stderr,
//! no partial output file), 2 when `run --phase all` finds diverging phases.

mod input;
mod opt;
mod output;
mod verify_diagnostics;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "ehir", version, about = "C++ exception-handling IR toolkit")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse, verify, run passes and print CIR.
    Opt(opt::OptArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Opt(args) => opt::opt_command(args),
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
