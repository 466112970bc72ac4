//! `ehir emit-llvm` and `ehir build`: run the pipeline to the phase of the EH ABI and
//! emit LLVM IR; then build.
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
use ehir_core::{Module, Phase};
use ehir_llvm::MsvcToolchain;
use ehir_llvm::toolchain::{Tool, Toolchain, find_tool};
use ehir_passes::eh_abi::itanium;
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

/// Loads an input and brings it to the Itanium phase; diagnostics are reported.
///
/// Structured functions go through `lowering-prepare,flatten-cfg,simplify-cfg`; flat ones then through
/// the Itanium lowering, whose runtime functions are declared (which the lowering of one
/// function cannot do itself); Itanium ones are used as they are. The result is verified.
pub(crate) fn load_itanium(source: &Source) -> Result<Module> {
    let mut module = source.load()?;
    let structured = module
        .functions
        .values()
        .any(|f| !f.is_declaration() && f.phase == Phase::Structured);
    if structured {
        let mut pm =
            ehir_passes::PassManager::from_pipeline("lowering-prepare,flatten-cfg,simplify-cfg")
                .map_err(|e| anyhow::anyhow!("{e}"))?;
        if let Err(err) = pm.run(&mut module) {
            source.report(&err.diagnostics());
            if let Some(pass) = err.pass() {
                eprintln!("ehir: error: pass '{pass}' failed");
            }
            return Err(Reported.into());
        }
    }
    lower_itanium_module(source, &mut module)?;
    Ok(module)
}

/// `eh-abi-lowering=itanium` on a whole module (which also declares the runtime functions
/// it calls), then the verifier; diagnostics are reported.
pub(crate) fn lower_itanium_module(source: &Source, module: &mut Module) -> Result<()> {
    if let Err(d) = itanium::lower_module(module) {
        source.report(&d);
        eprintln!("ehir: error: pass 'eh-abi-lowering=itanium' failed");
        return Err(Reported.into());
    }
    if let Err(d) = ehir_core::verifier::verify_module(module) {
        source.report(&d);
        eprintln!("ehir: error: the IR after 'eh-abi-lowering=itanium' does not verify");
        return Err(Reported.into());
    }
    Ok(())
}

/// Loads an input and brings every function to the MSVC phase (`lowering-prepare`,
/// `flatten-cfg`, `simplify-cfg`, `eh-abi-lowering=msvc` as needed, verifying after each pass);
/// diagnostics are reported.
pub(crate) fn load_msvc(source: &Source) -> Result<Module> {
    let mut module = source.load()?;
    if let Err(err) = ehir_passes::lower_to(&mut module, Phase::Msvc) {
        source.report(&err.diagnostics());
        if let Some(pass) = err.pass() {
            eprintln!("ehir: error: pass '{pass}' failed");
        }
        return Err(Reported.into());
    }
    Ok(module)
}

/// Parses, lowers and emits one input as LLVM IR text.
fn llvm_text(path: &Path, abi: AbiArg) -> Result<String> {
    let source = Source::read(path)?;
    let (module, options) = match abi {
        AbiArg::Itanium => (load_itanium(&source)?, ehir_llvm::EmitOptions::default()),
        AbiArg::Msvc => (load_msvc(&source)?, ehir_llvm::EmitOptions::msvc()),
    };
    ehir_llvm::module_to_llvm_text(&module, &source.name, &options).map_err(|d| {
        source.report(&d);
        Reported.into()
    })
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
    let mut ehir_inputs: Vec<(&Path, String)> =
        vec![(first.as_path(), llvm_text(first, args.abi)?)];
    for p in rest.iter().filter(|p| is_ehir_input(p, args.abi)) {
        ehir_inputs.push((p.as_path(), llvm_text(p, args.abi)?));
    }
    if args.abi == AbiArg::Msvc {
        return build_msvc(args, &ehir_inputs);
    }
    let toolchain = Toolchain {
        llc: find_tool(Tool::Llc, args.llc.as_deref())?,
        opt: opt_tool(args)?,
        cxx: link_tool(args, Tool::Cxx, args.cxx.as_deref())?,
        opt_level: args.opt_level,
    };
    compile_and_link(
        args,
        &ehir_inputs,
        "o",
        |ll, object, scratch| toolchain.compile(ll, object, scratch),
        |objects, extra, product, _| {
            let mut link_inputs = objects.to_vec();
            link_inputs.extend(rest.iter().filter(|p| !is_cir(p)).cloned());
            toolchain.link(&link_inputs, extra, product)
        },
    )
}

/// The steps both ABIs share: writes each input's LLVM text to the scratch directory and
/// compiles it to an object (`.<object_ext>`) with `compile`; links the objects with `link`
/// (or, with `-c`, keeps the object of the first input); writes `--emit-ll`; moves the
/// product to the output.
fn compile_and_link<E>(
    args: &BuildArgs,
    ehir_inputs: &[(&Path, String)],
    object_ext: &str,
    compile: impl Fn(&Path, &Path, &Path) -> std::result::Result<(), E>,
    link: impl FnOnce(&[PathBuf], &[OsString], &Path, &Path) -> std::result::Result<(), E>,
) -> Result<i32>
where
    E: std::error::Error + Send + Sync + 'static,
{
    let scratch = scratch_dir(&args.output)?;
    let mut objects = Vec::new();
    for (i, (path, text)) in ehir_inputs.iter().enumerate() {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "input".into());
        let ll = scratch.path().join(format!("{i}-{stem}.ll"));
        std::fs::write(&ll, text).with_context(|| format!("cannot write '{}'", ll.display()))?;
        let object = scratch.path().join(format!("{i}-{stem}.{object_ext}"));
        compile(&ll, &object, scratch.path())?;
        objects.push(object);
    }
    let product = scratch.path().join("product");
    if args.compile_only {
        std::fs::rename(&objects[0], &product)
            .with_context(|| format!("cannot write '{}'", product.display()))?;
    } else {
        let extra: Vec<OsString> = args.link_args.iter().map(OsString::from).collect();
        link(&objects, &extra, &product, scratch.path())?;
    }
    if let Some(ll_out) = &args.emit_ll {
        let text = &ehir_inputs[0].1;
        write_output(Some(ll_out), |w| {
            w.write_all(text.as_bytes())?;
            Ok(())
        })?;
    }
    std::fs::rename(&product, &args.output)
        .with_context(|| format!("cannot write '{}'", args.output.display()))?;
    Ok(0)
}

/// `opt` when `--run-opt` asks for it.
fn opt_tool(args: &BuildArgs) -> Result<Option<PathBuf>> {
    Ok(if args.run_opt {
        Some(find_tool(Tool::Opt, args.opt.as_deref())?)
    } else {
        None
    })
}

/// A tool only the link step needs (an empty path with `-c`).
fn link_tool(args: &BuildArgs, tool: Tool, given: Option<&Path>) -> Result<PathBuf> {
    Ok(if args.compile_only {
        PathBuf::new()
    } else {
        find_tool(tool, given)?
    })
}

/// Where `ehir build` puts its scratch files: beside the output, so the final rename
/// stays on one file system.
fn scratch_dir(output: &Path) -> Result<tempfile::TempDir> {
    let out_dir = output
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    tempfile::Builder::new()
        .prefix(".ehir-build-")
        .tempdir_in(out_dir)
        .with_context(|| format!("cannot create a directory in '{}'", out_dir.display()))
}

/// `ehir build --abi msvc`: COFF objects by `llc`, then a PE executable by `lld-link`
/// (or, with `-c`, the object of the first input).
fn build_msvc(args: &BuildArgs, ehir_inputs: &[(&Path, String)]) -> Result<i32> {
    let toolchain = MsvcToolchain {
        llc: find_tool(Tool::Llc, args.llc.as_deref())?,
        opt: opt_tool(args)?,
        dlltool: link_tool(args, Tool::DllTool, args.dlltool.as_deref())?,
        lld_link: link_tool(args, Tool::LldLink, args.lld_link.as_deref())?,
        opt_level: args.opt_level,
    };
    compile_and_link(
        args,
        ehir_inputs,
        "obj",
        |ll, object, scratch| toolchain.compile(ll, object, scratch),
        |objects, extra, product, scratch| toolchain.link(objects, extra, product, scratch),
    )
}
