//! One pipeline from an ehir module to artefacts, for front ends and for the `ehir` command
//! line alike: verify the module, lower it to a phase ([`lower`]), emit LLVM IR for an EH
//! ABI ([`llvm_ir`]), and build an object file or an executable with the toolchain found
//! on the machine ([`build`], [`build_module`]). Both EH ABIs take the same path; only the
//! toolchain differs ([`NativeToolchain`]): `llc` + the C++ driver (`g++`, which brings
//! libstdc++'s Itanium runtime) for [`EhAbi::Itanium`], `llc` + `llvm-dlltool` +
//! `lld-link` (a PE executable against msvcrt.dll) for [`EhAbi::Msvc`].
//!
//! The module is verified once, on entry to the lowering ([`ehir_passes::lower_to`]);
//! a module that does not verify is [`PipelineError::Lower`] with
//! [`ehir_passes::PassError::Input`] ("input does not verify: …").
//!
//! ```
//! use ehir_pipeline::{EhAbi, llvm_ir};
//!
//! let text = "cir.func @f()\n\
//!             cir.func @g() {\n\
//!               cir.cleanup.scope {\n\
//!                 cir.call @f() : () -> ()\n\
//!                 cir.yield\n\
//!               } cleanup eh {\n\
//!                 cir.call @f() : () -> ()\n\
//!                 cir.yield\n\
//!               }\n\
//!               cir.return\n\
//!             }\n";
//! let mut module = ehir_reader::parse_module("g.cir", text).unwrap();
//! let ll = llvm_ir(&mut module, EhAbi::Itanium, "g.cir").unwrap();
//! assert!(ll.contains("landingpad"));
//! // `@g` and the `__clang_call_terminate` its throwing EH cleanup calls.
//! assert!(module.functions.values().filter(|f| !f.is_declaration())
//!     .all(|f| f.phase == ehir_core::Phase::Itanium));
//! ```

#![warn(missing_docs)]

pub use ehir_core::abi::EhAbi;
use ehir_core::{Diagnostic, Diagnostics, Loc, Module, Phase};
use ehir_llvm::toolchain::{Tool, ToolError, find_tool};
use ehir_llvm::{EmitOptions, MsvcToolchain, Toolchain};
use ehir_passes::PassError;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Why a step of the pipeline failed.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// The module does not verify ([`PassError::Input`]), has functions that cannot be
    /// lowered to the target phase, or a pass failed.
    #[error(transparent)]
    Lower(#[from] PassError),
    /// The emitter refused the lowered module (a type without a layout, an unsupported
    /// construct); located diagnostics.
    #[error("cannot emit LLVM IR: {0}")]
    Emit(Diagnostics),
    /// A tool of the toolchain is missing or failed.
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// A file or directory of the build could not be written.
    #[error("cannot {action} '{}': {error}", .path.display())]
    Io {
        /// What was being done (`write`, `create a directory in`).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The system's error.
        error: std::io::Error,
    },
    /// [`build`] was given no LLVM IR.
    #[error("nothing to build: no LLVM IR unit was given")]
    NoUnits,
    /// An object file is asked for several units; an object holds one.
    #[error("an object file holds one unit, but {0} were given")]
    SeveralUnitsForObject(usize),
    /// A link input made by another compiler, for the Microsoft ABI: objects and sources
    /// of other compilers use the Itanium C++ ABI.
    #[error(
        "'{}' cannot be linked for the msvc EH ABI: every unit must come from ehir; objects and sources of other compilers use the Itanium C++ ABI",
        .0.display()
    )]
    ForeignLinkInput(PathBuf),
}

impl PipelineError {
    /// The error as located diagnostics, for `file:line:col: error:` rendering against
    /// the module's source: the pass manager's or the emitter's own diagnostics, else one
    /// unlocated diagnostic with the message.
    pub fn diagnostics(&self) -> Diagnostics {
        match self {
            PipelineError::Lower(err) => err.diagnostics(),
            PipelineError::Emit(diagnostics) => diagnostics.clone(),
            other => Diagnostics(vec![Diagnostic::error(Loc::NONE, other.to_string())]),
        }
    }

    /// The pass that failed, if the error comes from one.
    pub fn pass(&self) -> Option<&'static str> {
        match self {
            PipelineError::Lower(err) => err.pass(),
            _ => None,
        }
    }
}

/// Verifies the module and brings every function definition to `target`
/// ([`ehir_passes::lower_to`]: structured functions through `lowering-prepare`,
/// `flatten-cfg`, `simplify-cfg`; flat ones through the EH ABI lowering of `target`,
/// which also declares the runtime functions it calls). The module is verified on entry
/// and after every pass.
pub fn lower(module: &mut Module, target: Phase) -> Result<(), PipelineError> {
    ehir_passes::lower_to(module, target)?;
    Ok(())
}

/// The emitter's options for `abi`: the x86-64 Linux triple and data layout for Itanium,
/// `x86_64-pc-windows-msvc` for MSVC.
pub fn emit_options(abi: EhAbi) -> EmitOptions {
    match abi {
        EhAbi::Itanium => EmitOptions::default(),
        EhAbi::Msvc => EmitOptions::msvc(),
    }
}

/// Lowers the module to the phase of `abi` ([`lower`]) and emits it as LLVM IR text for
/// that ABI. `source_name` becomes the IR's `source_filename`. The module is left
/// lowered.
pub fn llvm_ir(
    module: &mut Module,
    abi: EhAbi,
    source_name: &str,
) -> Result<String, PipelineError> {
    lower(module, abi.phase())?;
    // `lower` verified the module (on entry, and after each pass it ran): emit without
    // verifying it again.
    ehir_llvm::emit::emit_module_text(module, source_name, &emit_options(abi))
        .map_err(PipelineError::Emit)
}

/// What [`build`] produces.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Product {
    /// The object file of one unit (ELF for Itanium, COFF for MSVC); nothing is linked.
    Object,
    /// A linked executable (ELF linked by the C++ driver for Itanium, a PE console
    /// program linked by `lld-link` against msvcrt.dll for MSVC).
    Executable,
}

/// Explicit paths of the tools; a tool left `None` is looked up as
/// [`ehir_llvm::toolchain::find_tool`] does: its environment variable (`EHIR_LLC`, ...),
/// then its names on `PATH` (`llc-19`, `llc`).
#[derive(Clone, Debug, Default)]
pub struct ToolPaths {
    /// `llc`.
    pub llc: Option<PathBuf>,
    /// `opt` (used only with [`BuildOptions::run_opt`]).
    pub opt: Option<PathBuf>,
    /// The C++ compiler driver that links for Itanium (`g++`).
    pub cxx: Option<PathBuf>,
    /// `llvm-dlltool`, which makes the import libraries for MSVC.
    pub dlltool: Option<PathBuf>,
    /// `lld-link`, the linker for MSVC.
    pub lld_link: Option<PathBuf>,
}

/// How [`build`] builds.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// The EH ABI the units were emitted for ([`llvm_ir`]); it picks the toolchain.
    pub abi: EhAbi,
    /// An object file or an executable.
    pub product: Product,
    /// `-O` level of `llc` (and `opt`), 0 to 3 (larger values count as 3).
    pub opt_level: u8,
    /// Run `opt -passes=default<ON>` before `llc`.
    pub run_opt: bool,
    /// Explicit tool paths.
    pub tools: ToolPaths,
    /// Further link inputs besides the units: objects, libraries, C or C++ sources
    /// (compiled by the C++ driver). Itanium only; for MSVC any is
    /// [`PipelineError::ForeignLinkInput`].
    pub link_inputs: Vec<PathBuf>,
    /// Extra arguments of the link step (`-lm`, `/verbose`).
    pub link_args: Vec<OsString>,
}

impl BuildOptions {
    /// An executable for `abi` at `-O0`, with the tools found on the machine.
    pub fn new(abi: EhAbi) -> Self {
        BuildOptions {
            abi,
            product: Product::Executable,
            opt_level: 0,
            run_opt: false,
            tools: ToolPaths::default(),
            link_inputs: Vec::new(),
            link_args: Vec::new(),
        }
    }
}

/// One unit of a build: the LLVM IR text of one module ([`llvm_ir`]) and a name for its
/// scratch files (a file stem, such as the source's).
#[derive(Clone, Debug)]
pub struct LlvmUnit {
    /// A name for the unit's scratch files (`main` gives `0-main.ll`, `0-main.o`).
    pub name: String,
    /// LLVM IR text for [`BuildOptions::abi`].
    pub llvm_ir: String,
}

/// The toolchain of one EH ABI, with every tool found.
#[derive(Clone, Debug)]
pub enum NativeToolchain {
    /// `llc -relocation-model=pic`, linked by the C++ driver.
    Itanium(Toolchain),
    /// `llc -mtriple=x86_64-pc-windows-msvc`, `llvm-dlltool` and `lld-link`.
    Msvc(MsvcToolchain),
}

impl NativeToolchain {
    /// Finds the tools `options` need: `llc`; `opt` with [`BuildOptions::run_opt`]; the
    /// link tools only for an executable. The first tool missing is the error.
    pub fn find(options: &BuildOptions) -> Result<Self, PipelineError> {
        let tools = &options.tools;
        let llc = find_tool(Tool::Llc, tools.llc.as_deref())?;
        let opt = if options.run_opt {
            Some(find_tool(Tool::Opt, tools.opt.as_deref())?)
        } else {
            None
        };
        let link_tool = |tool: Tool, given: &Option<PathBuf>| -> Result<PathBuf, ToolError> {
            match options.product {
                Product::Object => Ok(PathBuf::new()),
                Product::Executable => find_tool(tool, given.as_deref()),
            }
        };
        Ok(match options.abi {
            EhAbi::Itanium => NativeToolchain::Itanium(Toolchain {
                llc,
                opt,
                cxx: link_tool(Tool::Cxx, &tools.cxx)?,
                opt_level: options.opt_level,
            }),
            EhAbi::Msvc => NativeToolchain::Msvc(MsvcToolchain {
                llc,
                opt,
                dlltool: link_tool(Tool::DllTool, &tools.dlltool)?,
                lld_link: link_tool(Tool::LldLink, &tools.lld_link)?,
                opt_level: options.opt_level,
            }),
        })
    }

    /// The extension of its object files (`o`, `obj`).
    pub fn object_extension(&self) -> &'static str {
        match self {
            NativeToolchain::Itanium(_) => "o",
            NativeToolchain::Msvc(_) => "obj",
        }
    }

    /// Compiles LLVM IR text in `ll` to an object file, with scratch files in `scratch`.
    pub fn compile(&self, ll: &Path, object: &Path, scratch: &Path) -> Result<(), ToolError> {
        match self {
            NativeToolchain::Itanium(t) => t.compile(ll, object, scratch),
            NativeToolchain::Msvc(t) => t.compile(ll, object, scratch),
        }
    }

    /// Links objects (and, for Itanium, the further `link_inputs`) into `executable`.
    pub fn link(
        &self,
        objects: &[PathBuf],
        link_inputs: &[PathBuf],
        link_args: &[OsString],
        executable: &Path,
        scratch: &Path,
    ) -> Result<(), ToolError> {
        match self {
            NativeToolchain::Itanium(t) => {
                let mut inputs = objects.to_vec();
                inputs.extend(link_inputs.iter().cloned());
                t.link(&inputs, link_args, executable)
            }
            NativeToolchain::Msvc(t) => t.link(objects, link_args, executable, scratch),
        }
    }
}

/// Builds LLVM IR units into `output`: each unit is written to a scratch directory beside
/// `output` and compiled to an object; then the objects are linked (or, for
/// [`Product::Object`], the one unit's object is kept). `output` appears only when every
/// step succeeded (it is renamed into place), and the scratch directory is removed.
pub fn build(
    units: &[LlvmUnit],
    options: &BuildOptions,
    output: &Path,
) -> Result<(), PipelineError> {
    if units.is_empty() {
        return Err(PipelineError::NoUnits);
    }
    if options.product == Product::Object && units.len() > 1 {
        return Err(PipelineError::SeveralUnitsForObject(units.len()));
    }
    if options.abi == EhAbi::Msvc
        && let Some(foreign) = options.link_inputs.first()
    {
        return Err(PipelineError::ForeignLinkInput(foreign.clone()));
    }
    let toolchain = NativeToolchain::find(options)?;
    let scratch = scratch_dir(output)?;
    let mut objects = Vec::new();
    for (i, unit) in units.iter().enumerate() {
        let ll = scratch.path().join(format!("{i}-{}.ll", unit.name));
        write(&ll, &unit.llvm_ir)?;
        let object = scratch.path().join(format!(
            "{i}-{}.{}",
            unit.name,
            toolchain.object_extension()
        ));
        toolchain.compile(&ll, &object, scratch.path())?;
        objects.push(object);
    }
    let product = scratch.path().join("product");
    match options.product {
        Product::Object => rename(&objects[0], &product)?,
        Product::Executable => toolchain.link(
            &objects,
            &options.link_inputs,
            &options.link_args,
            &product,
            scratch.path(),
        )?,
    }
    rename(&product, output)
}

/// Lowers, emits and builds one module: [`llvm_ir`] then [`build`]. The unit's name is
/// the file stem of `source_name`.
pub fn build_module(
    module: &mut Module,
    source_name: &str,
    options: &BuildOptions,
    output: &Path,
) -> Result<(), PipelineError> {
    let llvm_ir = llvm_ir(module, options.abi, source_name)?;
    let unit = LlvmUnit {
        name: unit_name(Path::new(source_name)),
        llvm_ir,
    };
    build(&[unit], options, output)
}

/// The name of a unit made from `path`: its file stem, or `input`.
pub fn unit_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "input".into())
}

/// A scratch directory beside `output`, so that the final rename stays on one file
/// system.
fn scratch_dir(output: &Path) -> Result<tempfile::TempDir, PipelineError> {
    let out_dir = output
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    tempfile::Builder::new()
        .prefix(".ehir-build-")
        .tempdir_in(out_dir)
        .map_err(|error| PipelineError::Io {
            action: "create a directory in",
            path: out_dir.to_path_buf(),
            error,
        })
}

fn write(path: &Path, text: &str) -> Result<(), PipelineError> {
    std::fs::write(path, text).map_err(|error| PipelineError::Io {
        action: "write",
        path: path.to_path_buf(),
        error,
    })
}

fn rename(from: &Path, to: &Path) -> Result<(), PipelineError> {
    std::fs::rename(from, to).map_err(|error| PipelineError::Io {
        action: "write",
        path: to.to_path_buf(),
        error,
    })
}
