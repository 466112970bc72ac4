//! `ehir opt`: parse, verify, run passes, print — the `mlir-opt` of ehir. It also takes
//! upstream `cir-opt`'s spellings (`-cir-flatten-cfg`, `-cir-eh-abi-lowering`,
//! `-split-input-file`, `-verify-diagnostics`, `--verify-roundtrip`; see
//! [`normalize_cir_opt_args`]).

use crate::input::{MappedSource, Reported, Source};
use crate::output::write_output;
use crate::verify_diagnostics;
use anyhow::Result;
use ehir_core::verifier::Rules;
use ehir_core::{Diagnostics, Module};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct OptArgs {
    /// Input file (`.cir`, or `.cpp` for the C++ front end).
    pub input: PathBuf,
    /// The EH ABI whose target a `.cpp` input is compiled for: itanium (x86-64 Linux, the
    /// default) or msvc (x86-64 Windows).
    #[arg(long, value_enum)]
    pub abi: Option<crate::build::AbiArg>,
    /// Comma-separated passes to run, e.g. `lowering-prepare,flatten-cfg`.
    #[arg(short = 'p', long = "passes", value_name = "PASS[,PASS...]")]
    pub passes: Option<String>,
    /// Output file (default: stdout; `-` is stdout too).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Check the errors against `// expected-error {{...}}` annotations in the input
    /// instead of printing; exit 0 when they match exactly.
    #[arg(long)]
    pub verify_diagnostics: bool,
    /// Print the IR after every pass (on stderr).
    #[arg(long)]
    pub print_after_all: bool,
    /// Print, parse the printed text again and check that it prints the same (after the
    /// passes), as `cir-opt --verify-roundtrip`.
    #[arg(long)]
    pub verify_roundtrip: bool,
    /// Treat each part of the input between `// -----` lines as its own module; outputs
    /// are joined by `// -----` and diagnostics keep the line numbers of the whole file.
    #[arg(long)]
    pub split_input_file: bool,
    /// Verify the whole-function EH shapes that the passes and the interpreter rely on
    /// even when no pass runs (without a pass, `opt` checks only what each op states
    /// about itself, as `cir-opt` does).
    #[arg(long)]
    pub executable: bool,
    /// `cir-opt` pass flags in command-line order (`-cir-flatten-cfg` is
    /// `--cir-pass=flatten-cfg`, `-cir-eh-abi-lowering` is `--cir-pass=eh-abi-lowering`,
    /// whose ABI comes from the module's `cir.triple`); they run after `--passes`.
    #[arg(long = "cir-pass", value_name = "PASS", hide = true)]
    pub cir_passes: Vec<String>,
}

/// Upstream `cir-opt` flags and the `--cir-pass` they stand for.
const CIR_OPT_PASS_FLAGS: [(&str, &str); 3] = [
    ("cir-flatten-cfg", "flatten-cfg"),
    ("cir-eh-abi-lowering", "eh-abi-lowering"),
    ("cir-canonicalize", "canonicalize"),
];

/// Long options of `opt` that upstream tools spell with one dash.
const SINGLE_DASH_LONG: [&str; 7] = [
    "split-input-file",
    "verify-diagnostics",
    "verify-roundtrip",
    "print-after-all",
    "passes",
    "output",
    "error-limit",
];

/// Rewrites `cir-opt`'s spellings among the arguments after `opt` into ehir's: the pass
/// flags into `--cir-pass=P` (order kept) and single-dash long options into `--name`.
pub fn normalize_cir_opt_args(args: Vec<String>) -> Vec<String> {
    let Some(opt_at) = args.iter().skip(1).position(|a| a == "opt").map(|i| i + 1) else {
        return args;
    };
    let mut out: Vec<String> = args[..=opt_at].to_vec();
    for arg in &args[opt_at + 1..] {
        let bare = arg
            .strip_prefix("--")
            .or_else(|| arg.strip_prefix('-'))
            .filter(|_| arg.len() > 2);
        let Some(bare) = bare else {
            out.push(arg.clone());
            continue;
        };
        let name = bare.split('=').next().unwrap_or(bare);
        if let Some((_, pass)) = CIR_OPT_PASS_FLAGS.iter().find(|(flag, _)| *flag == bare) {
            out.push(format!("--cir-pass={pass}"));
        } else if !arg.starts_with("--") && SINGLE_DASH_LONG.contains(&name) {
            out.push(format!("-{arg}"));
        } else {
            out.push(arg.clone());
        }
    }
    out
}

/// The rules the input is verified under: with no pass, what each op states about
/// itself, as `cir-opt` does; passes also need the whole-function EH shapes.
pub fn input_rules(args: &OptArgs) -> Rules {
    if args.passes.is_none() && args.cir_passes.is_empty() && !args.executable {
        Rules::Ops
    } else {
        Rules::Executable
    }
}

pub fn opt_command(args: &OptArgs) -> Result<i32> {
    let plain = !args.verify_diagnostics && !args.split_input_file && !args.verify_roundtrip;
    let rules = input_rules(args);
    if plain && let Some(source) = MappedSource::open(&args.input)? {
        let load = || source.load_with(rules);
        return plain_opt(args, &load, &|d| source.report(d));
    }
    let source = Source::read(&args.input)?;
    let abi = crate::build::front_end_abi(args.abi, None)?;
    if plain {
        let load = || source.load_for_with(abi, rules);
        return plain_opt(args, &load, &|d| source.report(d));
    }
    let chunks: Vec<Source> = if args.split_input_file {
        split_input(&source)
    } else {
        vec![source]
    };
    if args.verify_diagnostics {
        let mut status = 0;
        for chunk in &chunks {
            let pipeline = |m: &Module| pipeline_for(args, m);
            status = status.max(verify_diagnostics::check(chunk, rules, &pipeline)?);
        }
        return Ok(status);
    }
    let mut outputs = Vec::with_capacity(chunks.len());
    let mut failed = false;
    for chunk in &chunks {
        let result = chunk
            .load_for_with(abi, rules)
            .and_then(|mut module| process(args, &mut module, &|d| chunk.report(d)));
        match result {
            Ok(text) => outputs.push(text),
            Err(e) if e.downcast_ref::<Reported>().is_some() && chunks.len() > 1 => {
                failed = true;
            }
            Err(e) => return Err(e),
        }
    }
    if failed {
        return Err(Reported.into());
    }
    write_output(args.output.as_deref(), |w| {
        for (i, text) in outputs.iter().enumerate() {
            if i > 0 {
                w.write_all(b"// -----\n")?;
            }
            w.write_all(text.as_bytes())?;
        }
        Ok(())
    })?;
    Ok(0)
}

/// `ehir opt` of one module without `--split-input-file`, `--verify-diagnostics` or
/// `--verify-roundtrip`: loads it (`load` parses, verifies and reports), runs the passes
/// and prints it. The passes run function by function where they can
/// ([`stream_passes`]); when that stops, the module is loaded again and run pass by pass
/// over the whole module, which reports the errors as usual.
fn plain_opt(
    args: &OptArgs,
    load: &dyn Fn() -> Result<Module>,
    report: &dyn Fn(&Diagnostics),
) -> Result<i32> {
    let mut module = load()?;
    if !args.print_after_all
        && let Ok(Some(passes)) = pipeline_for(args, &module)
        && let Ok(manager) = pipeline_manager(&mut module, &passes)
    {
        let output = args.output.as_deref();
        let streamed = if crate::output::discards_partial_output(output) {
            write_output(output, |w| stream_passes(&manager, module, w))
        } else {
            // Written only once complete: a terminal or a pipe cannot take output back.
            let mut text = Vec::new();
            stream_passes(&manager, module, &mut text)
                .and_then(|()| write_output(output, |w| Ok(w.write_all(&text)?)))
        };
        match streamed {
            Err(e) if e.is::<WholeModuleRunNeeded>() => module = load()?,
            other => return other.map(|()| 0),
        }
    }
    run_passes_of(args, &mut module, report)?;
    write_output(args.output.as_deref(), |w| {
        ehir_core::printer::print_module(w, &module)?;
        Ok(())
    })?;
    Ok(0)
}

/// The function-by-function run stopped: the whole-module run reports why.
#[derive(Debug)]
struct WholeModuleRunNeeded;

impl std::fmt::Display for WholeModuleRunNeeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the passes must run over the whole module")
    }
}

impl std::error::Error for WholeModuleRunNeeded {}

/// Runs `manager`'s passes on `module` one function at a time and prints each function
/// as soon as it is through ([`ehir_passes::function_by_function::print_function_by_function`]).
/// Fails with [`WholeModuleRunNeeded`] when the whole-module run must report something;
/// what was written must then be discarded.
fn stream_passes(
    manager: &ehir_passes::PassManager,
    mut module: Module,
    w: &mut dyn std::io::Write,
) -> Result<()> {
    use ehir_passes::FunctionByFunctionError;
    match ehir_passes::function_by_function::print_function_by_function(manager, &mut module, w) {
        Ok(()) => Ok(()),
        Err(FunctionByFunctionError::WholeModuleRunNeeded) => Err(WholeModuleRunNeeded.into()),
        Err(FunctionByFunctionError::Consumer(e)) => Err(e.into()),
    }
}

/// Splits `source` at its `// -----` lines. Each part keeps the whole file's line numbers:
/// the lines before it are left empty.
pub fn split_input(source: &Source) -> Vec<Source> {
    let mut chunks = Vec::new();
    let mut start = 0usize;
    let mut lines_before = 0usize;
    let mut line_no = 0usize;
    let mut offset = 0usize;
    let text = &source.text;
    let mut push = |from: usize, to: usize, blank_lines: usize| {
        let mut chunk = "\n".repeat(blank_lines);
        chunk.push_str(&text[from..to]);
        chunks.push(Source {
            name: source.name.clone(),
            text: chunk,
        });
    };
    for line in text.split_inclusive('\n') {
        line_no += 1;
        if line.trim() == "// -----" {
            push(start, offset, lines_before);
            start = offset + line.len();
            lines_before = line_no;
        }
        offset += line.len();
    }
    push(start, text.len(), lines_before);
    chunks
}

/// The pass pipeline of `args` for `module`: `--passes`, then the `cir-opt` pass flags,
/// with `eh-abi-lowering` resolved from the module's target triple.
pub fn pipeline_for(args: &OptArgs, module: &Module) -> Result<Option<String>, Diagnostics> {
    let mut passes: Vec<String> = args.passes.iter().cloned().collect();
    for pass in &args.cir_passes {
        match pass.as_str() {
            "eh-abi-lowering" => {
                let abi = if module.is_msvc_target() {
                    "msvc"
                } else {
                    "itanium"
                };
                passes.push(format!("eh-abi-lowering={abi}"));
            }
            other => passes.push(other.to_string()),
        }
    }
    Ok((!passes.is_empty()).then(|| passes.join(",")))
}

/// Runs the passes of `args` on `module` and returns the printed result (checked to
/// print the same after parsing it again with `--verify-roundtrip`).
fn process(args: &OptArgs, module: &mut Module, report: &dyn Fn(&Diagnostics)) -> Result<String> {
    run_passes_of(args, module, report)?;
    let text = ehir_core::printer::module_to_string(module);
    if args.verify_roundtrip {
        check_roundtrip(&text)?;
    }
    Ok(text)
}

/// Runs the passes of `args` on `module`; diagnostics go to `report`.
fn run_passes_of(args: &OptArgs, module: &mut Module, report: &dyn Fn(&Diagnostics)) -> Result<()> {
    let pipeline = pipeline_for(args, module).map_err(|d| {
        report(&d);
        anyhow::Error::from(Reported)
    })?;
    if let Some(passes) = &pipeline {
        run_pipeline(module, passes, args.print_after_all).map_err(|d| {
            report(&d);
            anyhow::Error::from(Reported)
        })?;
    }
    Ok(())
}

/// Parses the printed `text` again and checks that it prints the same.
fn check_roundtrip(text: &str) -> Result<()> {
    let reparsed = ehir_reader::parse_module("<printed>", text).map_err(|d| {
        let file = ehir_core::SourceFile::new("<printed>", text);
        let mut rendered = String::new();
        for diag in &d.0 {
            rendered.push_str(&file.render(diag));
        }
        anyhow::anyhow!("--verify-roundtrip: the printed module does not parse:\n{rendered}")
    })?;
    let again = ehir_core::printer::module_to_string(&reparsed);
    if again != text {
        let line = text
            .lines()
            .zip(again.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(text.lines().count().min(again.lines().count()));
        anyhow::bail!(
            "--verify-roundtrip: printing the reparsed module differs from the first print at line {}",
            line + 1
        );
    }
    Ok(())
}

/// Gives the flat phase to structured functions without regions: their one block is
/// flat code as it stands. Upstream's `-cir-eh-abi-lowering` takes functions without EH
/// as they are; ehir's lowering wants every function flat.
fn promote_region_free_functions(module: &mut Module) {
    for func in module.functions.values_mut() {
        if !func.is_declaration()
            && func.phase == ehir_core::Phase::Structured
            && !func.has_nested_regions()
        {
            func.phase = ehir_core::Phase::Flat;
        }
    }
}

/// The pass manager of a pipeline for a module that was verified when it was loaded,
/// with the module prepared for it.
fn pipeline_manager(
    module: &mut Module,
    passes: &str,
) -> Result<ehir_passes::PassManager, ehir_passes::PassError> {
    if passes.starts_with("eh-abi-lowering") {
        promote_region_free_functions(module);
    }
    let mut manager = ehir_passes::PassManager::from_pipeline(passes)?;
    // Every caller verified the module when it loaded it; verify it once.
    manager.set_verify_input(false);
    Ok(manager)
}

/// Runs a pipeline; the diagnostics of a failing pass name the pass.
pub fn run_pipeline(
    module: &mut Module,
    passes: &str,
    print_after_all: bool,
) -> Result<(), Diagnostics> {
    let fail = |err: ehir_passes::PassError| {
        let mut diagnostics = err.diagnostics();
        if let Some(pass) = err.pass() {
            for d in &mut diagnostics.0 {
                d.message = format!("{} (in pass '{pass}')", d.message);
            }
        }
        diagnostics
    };
    let mut manager = pipeline_manager(module, passes).map_err(fail)?;
    if print_after_all {
        manager.set_print_after_each(|pass, module| {
            eprintln!("// -----// IR after {pass} //----- //");
            eprint!("{}", ehir_core::printer::module_to_string(module));
        });
    }
    manager.run(module).map_err(fail)
}
