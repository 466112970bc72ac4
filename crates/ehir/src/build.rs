//! `ehir emit-llvm` and `ehir build`: the command-line face of [`ehir_pipeline`], which
//! lowers to the phase of the EH ABI, emits LLVM IR and builds, one path for both ABIs.
//!
//! - `--abi itanium` (default): compile with `llc -relocation-model=pic` (optionally after
//!   `opt`) and link with `g++` together with any further objects or C/C++ sources given
//!   on the command line.
//! - `--abi msvc`: compile with `llc -mtriple=x86_64-pc-windows-msvc` and link a PE
//!   executable with `lld-link` against msvcrt.dll through import libraries made by
//!   `llvm-dlltool` (see `ehir_llvm::msvc_toolchain`). Every input is compiled by ehir
//!   (`.cir`, or C++ through ehir's front end): g++'s objects have the other ABI.
//!
//! Outputs appear only when everything succeeded.

use crate::input::{Reported, Source};
use crate::output::write_output;
use anyhow::{Context, Result, bail};
use ehir_core::abi::EhAbi;
use ehir_core::{Module, Phase};
use ehir_llvm::toolchain::{Tool, ToolError};
use ehir_pipeline::{BuildOptions, LlvmUnit, PipelineError, Product, ToolPaths};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The EH ABI of the emitted code: the command-line spelling of `ehir_core::abi::EhAbi`.
#[derive(Copy, Clone, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum AbiArg {
    Itanium,
    Msvc,
}

#[derive(clap::Args)]
pub struct EmitLlvmArgs {
    /// Input file (`.cir`, or `.cpp` for the C++ front end), at any phase: structured and
    /// flat functions are lowered to the phase of the ABI first.
    pub input: PathBuf,
    /// The EH ABI to emit.
    #[arg(long, value_enum, default_value = "itanium")]
    pub abi: AbiArg,
    /// Output file (default: stdout).
    #[arg(short = 'o', long = "output", value_name = "OUT.ll")]
    pub output: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct BuildArgs {
    /// The ehir input (`.cir`, or `.cpp` for the C++ front end), then further inputs for
    /// the link: objects, libraries, C or C++ sources (compiled by the C++ driver), or more
    /// `.cir` files (compiled by ehir). With `--abi msvc` every input is compiled by ehir,
    /// `.cpp` files included, and other inputs are refused.
    #[arg(required = true, value_name = "IN")]
    pub inputs: Vec<PathBuf>,
    /// The executable (or, with `-c`, the object file) to write.
    #[arg(short = 'o', long = "output", value_name = "EXE", required = true)]
    pub output: PathBuf,
    /// Compile the ehir input to an object file; do not link.
    #[arg(short = 'c')]
    pub compile_only: bool,
    /// The EH ABI to emit.
    #[arg(long, value_enum, default_value = "itanium")]
    pub abi: AbiArg,
    /// Optimization level given to `llc` (and to `opt` with `--run-opt`).
    #[arg(short = 'O', long = "opt-level", value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u8).range(0..=3))]
    pub opt_level: u8,
    /// Run `opt -passes=default<ON>` before `llc`.
    #[arg(long)]
    pub run_opt: bool,
    /// `llc` to use (default: `$EHIR_LLC`, else `llc-19` or `llc` on PATH).
    #[arg(long, value_name = "PATH")]
    pub llc: Option<PathBuf>,
    /// `opt` to use with `--run-opt` (default: `$EHIR_OPT`, else `opt-19` or `opt`).
    #[arg(long, value_name = "PATH")]
    pub opt: Option<PathBuf>,
    /// The C++ compiler driver that links (default: `$EHIR_CXX`, else `g++`). Itanium only.
    #[arg(long, value_name = "PATH")]
    pub cxx: Option<PathBuf>,
    /// `llvm-dlltool` to use with `--abi msvc` (default: `$EHIR_DLLTOOL`, else
    /// `llvm-dlltool-19` or `llvm-dlltool` on PATH).
    #[arg(long, value_name = "PATH")]
    pub dlltool: Option<PathBuf>,
    /// `lld-link` to use with `--abi msvc` (default: `$EHIR_LLD_LINK`, else `lld-link-19`
    /// or `lld-link` on PATH).
    #[arg(long = "lld-link", value_name = "PATH")]
    pub lld_link: Option<PathBuf>,
    /// Also write the emitted LLVM IR of the ehir input here.
    #[arg(long = "emit-ll", value_name = "OUT.ll")]
    pub emit_ll: Option<PathBuf>,
    /// An extra argument for the link step (repeatable), e.g. `--link-arg=-lm`.
    #[arg(long = "link-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub link_args: Vec<String>,
}

impl AbiArg {
    /// The EH ABI this spelling names.
    pub fn eh_abi(self) -> EhAbi {
        match self {
            AbiArg::Itanium => EhAbi::Itanium,
            AbiArg::Msvc => EhAbi::Msvc,
        }
    }
}

/// The EH ABI a command compiles a C++ input for (Clang parses for its target,
/// `x86_64-linux-gnu` or `x86_64-pc-windows-msvc`) when it brings the input to `phase`:
/// the ABI whose phase that is (`itanium`, `msvc`), which `--abi` may repeat but not
/// contradict; for the structured and flat phases, or no phase, `--abi`, else Itanium.
pub(crate) fn front_end_abi(abi: Option<AbiArg>, phase: Option<Phase>) -> Result<EhAbi> {
    let chosen = abi.map(AbiArg::eh_abi);
    match (chosen, phase.and_then(EhAbi::of_phase)) {
        (Some(chosen), Some(of_phase)) if chosen != of_phase => bail!(
            "--abi {} contradicts --phase {}, the phase of the {} ABI",
            chosen.name(),
            of_phase.phase().name(),
            of_phase.name()
        ),
        (Some(abi), _) | (None, Some(abi)) => Ok(abi),
        (None, None) => Ok(EhAbi::Itanium),
    }
}

/// The command-line flag that names a tool's path.
fn tool_flag(tool: Tool) -> &'static str {
    match tool {
        Tool::Llc => "--llc",
        Tool::Opt => "--opt",
        Tool::Cxx => "--cxx",
        Tool::DllTool => "--dlltool",
        Tool::LldLink => "--lld-link",
    }
}

/// A build error in the command line's terms: a tool's explicit path is its flag.
fn cli_wording(err: PipelineError) -> anyhow::Error {
    match err {
        PipelineError::Tool(ToolError::NotFound {
            tool,
            looked_for,
            package,
            which,
            env,
        }) => anyhow::anyhow!(
            "{tool} not found (looked for {looked_for} on PATH); install the Debian package `{package}` (apt-get install {package}), or pass {} PATH or set {env}",
            tool_flag(which)
        ),
        PipelineError::Tool(ToolError::BadPath {
            which,
            path,
            from_env,
        }) => anyhow::anyhow!(
            "{path} (from {}) does not exist or is not executable",
            from_env.unwrap_or(tool_flag(which))
        ),
        other => other.into(),
    }
}

/// Reports a pipeline error against the source: its diagnostics, then the pass that
/// failed, if one did.
pub(crate) fn report_pipeline_error(source: &Source, err: &PipelineError) -> anyhow::Error {
    source.report(&err.diagnostics());
    if let Some(pass) = err.pass() {
        eprintln!("ehir: error: pass '{pass}' failed");
    }
    Reported.into()
}

/// Loads an input (C++ compiled for `abi`) and brings every function definition to
/// `phase` with [`ehir_pipeline::lower`]; diagnostics are reported.
pub(crate) fn load_lowered(source: &Source, abi: EhAbi, phase: Phase) -> Result<Module> {
    let mut module = source.load_for(abi)?;
    ehir_pipeline::lower(&mut module, phase).map_err(|e| report_pipeline_error(source, &e))?;
    Ok(module)
}

/// Parses, lowers and emits one input as LLVM IR text ([`ehir_pipeline::llvm_ir`]).
fn llvm_text(path: &Path, abi: AbiArg) -> Result<String> {
    let source = Source::read(path)?;
    let mut module = source.load_for(abi.eh_abi())?;
    ehir_pipeline::llvm_ir(&mut module, abi.eh_abi(), &source.name)
        .map_err(|e| report_pipeline_error(&source, &e))
}

pub fn emit_llvm_command(args: &EmitLlvmArgs) -> Result<i32> {
    let text = llvm_text(&args.input, args.abi)?;
    write_output(args.output.as_deref(), |w| {
        w.write_all(text.as_bytes())?;
        Ok(())
    })?;
    Ok(0)
}

fn is_cir(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "cir")
}

/// Whether ehir compiles this further input itself for `abi`: `.cir` always, C++ sources
/// with `--abi msvc` (through ehir's front end).
fn is_ehir_input(p: &Path, abi: AbiArg) -> bool {
    is_cir(p)
        || (abi == AbiArg::Msvc
            && Source {
                name: p.display().to_string(),
                text: String::new(),
            }
            .is_cpp())
}

pub fn build_command(args: &BuildArgs) -> Result<i32> {
    let (first, rest) = args.inputs.split_first().context("no input file given")?;
    if args.compile_only && !rest.is_empty() {
        bail!("-c compiles one input; further inputs are only for linking");
    }
    if args.abi == AbiArg::Msvc {
        if let Some(p) = rest.iter().find(|p| !is_ehir_input(p, args.abi)) {
            bail!(
                "'{}' cannot be linked with --abi msvc: every input must be compiled by ehir (.cir, or C++ through ehir's front end); objects and sources built by other compilers use the Itanium C++ ABI",
                p.display()
            );
        }
        if args.cxx.is_some() {
            bail!("--cxx does not apply to --abi msvc (the link uses lld-link)");
        }
    }
    // Everything fallible about the inputs first, so a bad input costs no tool lookups.
    let mut units = Vec::new();
    for p in std::iter::once(first).chain(rest.iter().filter(|p| is_ehir_input(p, args.abi))) {
        units.push(LlvmUnit {
            name: ehir_pipeline::unit_name(p),
            llvm_ir: llvm_text(p, args.abi)?,
        });
    }
    let options = BuildOptions {
        abi: args.abi.eh_abi(),
        product: if args.compile_only {
            Product::Object
        } else {
            Product::Executable
        },
        opt_level: args.opt_level,
        run_opt: args.run_opt,
        tools: ToolPaths {
            llc: args.llc.clone(),
            opt: args.opt.clone(),
            cxx: args.cxx.clone(),
            dlltool: args.dlltool.clone(),
            lld_link: args.lld_link.clone(),
        },
        link_inputs: rest
            .iter()
            .filter(|p| !is_ehir_input(p, args.abi))
            .cloned()
            .collect(),
        link_args: args.link_args.iter().map(OsString::from).collect(),
    };
    ehir_pipeline::build(&units, &options, &args.output).map_err(cli_wording)?;
    if let Some(ll_out) = &args.emit_ll {
        let text = &units[0].llvm_ir;
        write_output(Some(ll_out), |w| {
            w.write_all(text.as_bytes())?;
            Ok(())
        })?;
    }
    Ok(0)
}
