//! Sizes and alignments of CIR types for the few places the emitter needs them itself:
//! union bodies, by-value classes and typeinfo offsets. The rules live in
//! `ehir_core::abi::layout` (shared with the interpreter); this is the emitter's view of
//! them, a `(size, align)` pair or the reason as a message. Ordinary records are left to
//! LLVM's data layout, which follows the same rules.

use ehir_core::{ModuleCtx, Type};

/// Size and alignment in bytes, or why the type has none.
pub fn size_align(ctx: &ModuleCtx, ty: Type) -> Result<(u64, u64), String> {
    ehir_core::abi::size_align(ctx, ty)
        .map(|layout| (layout.size, layout.align))
        .map_err(|error| error.to_string())
}
