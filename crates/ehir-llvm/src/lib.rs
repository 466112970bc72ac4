//! LLVM IR for ehir: a small text model of LLVM IR ([`ir`]) and its writer ([`writer`]),
//! the lowering of Itanium-phase CIR into it ([`emit`], [`typeinfo`]), and the native
//! toolchain driver that compiles the text with `llc` and links it with `g++`
//! ([`toolchain`]).

pub mod emit;
pub mod ir;
pub mod layout;
pub mod toolchain;
pub mod typeinfo;
pub mod writer;

pub use emit::{EmitOptions, GXX_PERSONALITY, emit_module};
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
