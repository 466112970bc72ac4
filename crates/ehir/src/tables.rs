//! `ehir tables IN --abi itanium|msvc|clr`: lowers the input to the phase the ABI's tables
//! are computed from (Itanium for the LSDA, MSVC for the WinEH state tables and the CLR
//! clauses) and prints the tables of every function (format: the `ehir_tables` crate docs).
//! With `--compare-llc ASM` (msvc only) it instead checks that the state tables equal,
//! up to the order of sibling states, the ones `llc -mtriple=x86_64-pc-windows-msvc
//! -filetype=asm` wrote in ASM for the same functions. With `--abi itanium --compare-llc
//! ASM` it compares each function's LSDA with the `GCC_except_table` of `llc
//! -relocation-model=pic` ([`ehir_tables::structure::LsdaShape`]). `--bytes` (itanium)
//! adds ehir's encoding of the action and type tables to the printed model. A C++ input
//! is compiled for the target of the ABI whose phase the tables come from
//! (`x86_64-linux-gnu` for itanium, `x86_64-pc-windows-msvc` for msvc and clr).

use crate::input::{Reported, Source};
use crate::output::write_output;
use anyhow::{Context, Result, bail};
use ehir_core::{Module, Phase};
use ehir_tables::TableFormat;
use ehir_tables::structure::{StateTables, canonical};
use std::path::PathBuf;

/// The tables to print.
#[derive(Copy, Clone, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum TablesAbi {
    /// The Itanium LSDA: call sites, actions, types.
    Itanium,
    /// The `__CxxFrameHandler3` state tables: UnwindMap, TryBlockMap, call states.
    Msvc,
    /// CLR EH clauses over a funclet layout, with the CLR's rules checked.
    Clr,
}

impl TablesAbi {
    fn format(self) -> TableFormat {
        match self {
            TablesAbi::Itanium => TableFormat::Itanium,
            TablesAbi::Msvc => TableFormat::Msvc,
            TablesAbi::Clr => TableFormat::Clr,
        }
    }
}

#[derive(clap::Args)]
pub struct TablesArgs {
    /// Input file (`.cir`, at any phase that can be lowered to the ABI's phase, or `.cpp`,
    /// compiled for the target of that phase's ABI).
    pub input: PathBuf,
    /// Which tables.
    #[arg(long, value_enum)]
    pub abi: TablesAbi,
    /// Output file (default: stdout).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Compare the tables (msvc state tables, itanium LSDA) with those in this llc
    /// assembly listing instead of printing them; exit status 1 when a function's differ.
    #[arg(long, value_name = "ASM")]
    pub compare_llc: Option<PathBuf>,
    /// Itanium: also print ehir's encoding of the action and type tables (LEB128 bytes).
    #[arg(long)]
    pub bytes: bool,
}

/// Loads the input and lowers every function to `phase` (a C++ input is compiled for the
/// target of the phase's ABI: the CLR clauses come from the msvc phase, so from C++
/// compiled for Windows), reporting diagnostics.
fn load_lowered(source: &Source, phase: Phase) -> Result<Module> {
    let abi = crate::build::front_end_abi(None, Some(phase))?;
    crate::build::load_lowered(source, abi, phase)
}

pub fn tables_command(args: &TablesArgs) -> Result<i32> {
    let source = Source::read(&args.input)?;
    let abi = args.abi.format();
    let module = load_lowered(&source, abi.phase())?;
    if let Some(asm_path) = &args.compare_llc {
        if abi == TableFormat::Clr {
            bail!(
                "--compare-llc compares msvc state tables or the itanium LSDA; llc writes no CLR clauses"
            );
        }
        let asm = std::fs::read_to_string(asm_path)
            .with_context(|| format!("cannot read '{}'", asm_path.display()))?;
        if abi == TableFormat::Itanium {
            return crate::tables_itanium::compare_with_llc(&source, &module, &asm, args);
        }
        return compare_with_llc(&source, &module, &asm, args);
    }
    if args.bytes && abi != TableFormat::Itanium {
        bail!("--bytes prints the encoding of the itanium LSDA; use it with --abi itanium");
    }
    let options = ehir_tables::RenderOptions { bytes: args.bytes };
    let text = match ehir_tables::module_tables_with(&module, abi, options) {
        Ok(text) => text,
        Err(errors) => {
            let diags = ehir_core::Diagnostics(errors.iter().map(|e| e.diagnostic()).collect());
            source.report(&diags);
            return Err(Reported.into());
        }
    };
    write_output(args.output.as_deref(), |w| {
        w.write_all(text.as_bytes())?;
        Ok(())
    })?;
    Ok(0)
}

/// Compares ehir's state tables of every function with llc's; prints one line per function
/// and the two canonical forms of each mismatch.
/// Writes the report of a comparison with llc's tables where `args` says; the exit
/// status is 1 when `mismatches` is not zero.
pub(crate) fn report_comparison(args: &TablesArgs, report: &str, mismatches: usize) -> Result<i32> {
    write_output(args.output.as_deref(), |w| {
        w.write_all(report.as_bytes())?;
        Ok(())
    })?;
    Ok(if mismatches == 0 { 0 } else { 1 })
}

fn compare_with_llc(source: &Source, module: &Module, asm: &str, args: &TablesArgs) -> Result<i32> {
    let llc = ehir_tables::llc_asm::parse(asm)
        .map_err(|e| anyhow::anyhow!("cannot read the llc tables: {e}"))?;
    let mut report = String::new();
    let mut mismatches = 0;
    let mut seen = std::collections::BTreeSet::new();
    for func in module.functions.values() {
        let name = module.ctx.name(func.name).to_string();
        let ours = match ehir_tables::wineh::function_tables(&module.ctx, func) {
            Ok(t) => t,
            Err(e) => {
                source.report(&ehir_core::Diagnostics(vec![e.diagnostic()]));
                return Err(Reported.into());
            }
        };
        let theirs = llc.get(&name);
        seen.insert(name.clone());
        let ours = ours.map(|t| canonical(&StateTables::from_wineh(&t)));
        let theirs = theirs.map(|t| canonical(&t.shape()));
        match (ours, theirs) {
            (None, None) => continue,
            (Some(Ok(a)), Some(Ok(b))) if a == b => {
                report.push_str(&format!("function @{name}: tables match\n"));
            }
            (a, b) => {
                mismatches += 1;
                let show = |x: Option<Result<String, String>>| match x {
                    None => "no tables".to_string(),
                    Some(Ok(s)) => s,
                    Some(Err(e)) => format!("inconsistent tables: {e}"),
                };
                report.push_str(&format!(
                    "function @{name}: tables differ\n  ehir: {}\n  llc:  {}\n",
                    show(a),
                    show(b)
                ));
            }
        }
    }
    for name in llc.keys().filter(|n| !seen.contains(*n)) {
        mismatches += 1;
        report.push_str(&format!(
            "function @{name}: llc wrote tables for a function the input does not define\n"
        ));
    }
    report_comparison(args, &report, mismatches)
}
