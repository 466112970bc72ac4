//! LLVM IR for ehir: a small text model of LLVM IR ([`ir`]) and its writer ([`writer`]),
//! the lowering of Itanium-phase and MSVC-phase CIR into it ([`emit`], with the Itanium
//! typeinfo objects of [`typeinfo`], the x86-64 System V classification of classes passed
//! by value of [`sysv`] and the Microsoft RTTI and throw tables of [`msvc_rtti`]), and the
//! toolchain drivers: `llc` + `g++` for the native Itanium build
//! ([`toolchain`]), `llc` + `llvm-dlltool` + `lld-link` for the Microsoft ABI
//! ([`msvc_toolchain`]).

pub mod emit;
pub mod ir;
pub mod layout;
pub mod msvc_rtti;
pub mod msvc_toolchain;
pub mod sysv;
pub mod toolchain;
pub mod typeinfo;
pub mod writer;

pub use emit::{EhAbi, EmitOptions, emit_module};
pub use msvc_toolchain::MsvcToolchain;
pub use toolchain::{Tool, ToolError, Toolchain, find_tool};

/// Emits a module as LLVM IR text.
pub fn module_to_llvm_text(
    module: &ehir_core::Module,
    source_name: &str,
    options: &EmitOptions,
) -> Result<String, ehir_core::Diagnostics> {
    let m = emit_module(module, source_name, options)?;
    Ok(writer::module_to_string(&m))
}
