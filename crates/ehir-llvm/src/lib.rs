//! LLVM IR for ehir: a small text model of LLVM IR ([`ir`]) and its writer ([`writer`]),
//! the lowering of Itanium-phase and MSVC-phase CIR into it ([`emit`], with the Itanium
//! typeinfo objects of [`typeinfo`], the x86-64 System V classification of classes passed
//! by value of [`sysv`] and the Microsoft RTTI and throw tables of [`msvc_rtti`]), and the
//! toolchain drivers: `llc` + `g++` for the native Itanium build
//! ([`toolchain`]), `llc` + `llvm-dlltool` + `lld-link` for the Microsoft ABI
//! ([`msvc_toolchain`]).
//!
//! Emitting LLVM IR text for a small Itanium-phase module ([`module_to_llvm_text`]; the
//! module is verified first):
//!
//! ```
//! use ehir_llvm::{EmitOptions, module_to_llvm_text};
//!
//! let text = "cir.func @answer() -> !s32i phase(itanium) {\n\
//!               %0 = cir.const #cir.int<42> : !s32i\n\
//!               cir.return %0 : !s32i\n\
//!             }\n";
//! let module = ehir_reader::parse_module("answer.cir", text).expect("parses");
//! let ll = module_to_llvm_text(&module, "answer.cir", &EmitOptions::default())
//!     .expect("emits");
//! assert!(ll.contains("define i32 @answer()"), "{ll}");
//! assert!(ll.contains("ret i32 42"), "{ll}");
//! ```

#![warn(missing_docs)]

pub mod emit;
pub mod ir;
pub mod layout;
pub mod msvc_rtti;
pub mod msvc_toolchain;
pub mod sysv;
pub mod toolchain;
pub mod typeinfo;
pub mod writer;

pub use emit::{EhAbi, EmitOptions};
pub use msvc_toolchain::MsvcToolchain;
pub use toolchain::{Tool, ToolError, Toolchain, find_tool};

/// Emits a module as the LLVM IR model ([`ir::Module`]) for `options.abi`: every function
/// definition must be in that ABI's phase. The module is verified first; one that does
/// not verify gives the verifier's diagnostics, each message starting with `input does
/// not verify: `, and nothing is emitted. `source_name` becomes the `source_filename`.
///
/// ```
/// use ehir_llvm::{EmitOptions, emit_module};
///
/// let text = "cir.func @f() phase(itanium) {\n  cir.return\n}\n";
/// let module = ehir_reader::parse_module("f.cir", text).unwrap();
/// let ir = emit_module(&module, "f.cir", &EmitOptions::default()).unwrap();
/// assert_eq!(ir.source_filename, "f.cir");
/// assert_eq!(ir.functions.len(), 1);
/// assert_eq!(ir.functions[0].name, "f");
///
/// let bad = "cir.func @g() -> !s32i phase(itanium) {\n  cir.return\n}\n";
/// let module = ehir_reader::parse_module("g.cir", bad).unwrap();
/// let errors = emit_module(&module, "g.cir", &EmitOptions::default()).unwrap_err();
/// assert!(errors.0[0].message.starts_with("input does not verify: "));
/// ```
pub fn emit_module(
    module: &ehir_core::Module,
    source_name: &str,
    options: &EmitOptions,
) -> Result<ir::Module, ehir_core::Diagnostics> {
    ehir_core::verifier::verify_input(module)?;
    emit::emit_module(module, source_name, options)
}

/// [`emit_module`], written as LLVM IR text (what `llc` reads).
pub fn module_to_llvm_text(
    module: &ehir_core::Module,
    source_name: &str,
    options: &EmitOptions,
) -> Result<String, ehir_core::Diagnostics> {
    ehir_core::verifier::verify_input(module)?;
    emit::emit_module_text(module, source_name, options)
}
