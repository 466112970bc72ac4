//! `ehir opt`: parse, verify, run passes, print — the `mlir-opt` of ehir.

use crate::input::{MappedSource, Reported, Source};
use crate::output::write_output;
use crate::verify_diagnostics;
use anyhow::Result;
use ehir_core::Diagnostics;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct OptArgs {
    /// Input file (`.cir`, or `.cpp` for the C++ front end).
    pub input: PathBuf,
    /// Comma-separated passes to run, e.g. `lowering-prepare,flatten-cfg`.
    #[arg(short = 'p', long = "passes", value_name = "PASS[,PASS...]")]
    pub passes: Option<String>,
    /// Output file (default: stdout).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Check the errors against `// expected-error {{...}}` annotations in the input
    /// instead of printing; exit 0 when they match exactly.
    #[arg(long)]
    pub verify_diagnostics: bool,
    /// Print the IR after every pass (on stderr).
    #[arg(long)]
    pub print_after_all: bool,
}

pub fn opt_command(args: &OptArgs) -> Result<i32> {
    if !args.verify_diagnostics
        && let Some(source) = MappedSource::open(&args.input)?
    {
        let mut module = source.load()?;
        return finish(args, &mut module, &|d| source.report(d));
    }
    let source = Source::read(&args.input)?;
    if args.verify_diagnostics {
        return verify_diagnostics::check(&source, args.passes.as_deref());
    }
    let mut module = source.load()?;
    finish(args, &mut module, &|d| source.report(d))
}

/// Runs the passes and prints the module.
fn finish(
    args: &OptArgs,
    module: &mut ehir_core::Module,
    report: &dyn Fn(&Diagnostics),
) -> Result<i32> {
    if let Some(passes) = &args.passes {
        run_pipeline(report, module, passes, args.print_after_all)?;
    }
    write_output(args.output.as_deref(), |w| {
        ehir_core::printer::print_module(w, module)?;
        Ok(())
    })?;
    Ok(0)
}

/// Runs a pipeline; diagnostics are printed and turned into [`Reported`].
pub fn run_passes(
    source: &Source,
    module: &mut ehir_core::Module,
    passes: &str,
    print_after_all: bool,
) -> Result<()> {
    run_pipeline(&|d| source.report(d), module, passes, print_after_all)
}

/// [`run_passes`] with diagnostics going to `report`.
fn run_pipeline(
    report: &dyn Fn(&Diagnostics),
    module: &mut ehir_core::Module,
    passes: &str,
    print_after_all: bool,
) -> Result<()> {
    let fail = |err: ehir_passes::PassError| {
        let mut diagnostics = err.diagnostics();
        if let Some(pass) = err.pass() {
            for d in &mut diagnostics.0 {
                d.message = format!("{} (in pass '{pass}')", d.message);
            }
        }
        report(&diagnostics);
        anyhow::Error::from(Reported)
    };
    let mut manager = ehir_passes::PassManager::from_pipeline(passes).map_err(fail)?;
    // Every caller verified the module when it loaded it; verify it once.
    manager.set_verify_input(false);
    if print_after_all {
        manager.set_print_after_each(|pass, module| {
            eprintln!("// -----// IR after {pass} //----- //");
            eprint!("{}", ehir_core::printer::module_to_string(module));
        });
    }
    manager.run(module).map_err(fail)
}
