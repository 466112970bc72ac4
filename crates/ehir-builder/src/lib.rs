//! ehir-builder: build structured CIR with C++-grade cleanups and exceptions from any
//! front end, the way Clang's `CodeGenFunction` drives its `EHScopeStack`.
//!
//! A front end says *when* things happen — an object's construction completed
//! ([`FunctionBuilder::push_cleanup`]), a scope ends ([`FunctionBuilder::exit_scope`]), a
//! `try` begins ([`FunctionBuilder::enter_try`]), a value is thrown
//! ([`FunctionBuilder::emit_throw`]) — and the builder makes the structured ops
//! (`cir.cleanup.scope`, `cir.try`, loops, `cir.scope`) and records which cleanups each
//! `break`/`continue`/`return`/`goto` leaves. `ehir-passes` lowers the result to the flat,
//! Itanium and MSVC phases, `ehir-interp` runs it at every phase and `ehir-llvm` emits
//! LLVM IR.
//!
//! * [`ModuleBuilder`] owns a module: it hands out [`FunctionBuilder`]s (several may be
//!   under construction at once: [`FunctionBuilder::suspend`] /
//!   [`ModuleBuilder::resume`]), declares callees on their first call
//!   ([`FunctionBuilder::call_named`]), makes string literals
//!   ([`FunctionBuilder::string_literal`]) and names builtin typeinfo
//!   ([`BuiltinType`]).
//! * [`FunctionBuilder`] builds one function (see [`function`] for the model).
//! * Errors: misuse never panics. Each failing call records a [`BuilderError`] (kind,
//!   the front end's location, message), observable at the call and all returned by
//!   [`FunctionBuilder::finish`]. Values, ops and blocks are [`handles`] tagged with
//!   their builder, so an entity of another function is an error, never an alias.
//!
//! `examples/toylang.rs` is a complete small front end (a language with `defer`,
//! `errdefer`, integer exceptions, loops) built on this crate.
//!
//! # Example
//!
//! `int main() { defer puts("bye"); try { work(); } catch (int e) { return e; } return 0; }`
//!
//! ```
//! use ehir_builder::{BuiltinType, CatchKind, ModuleBuilder};
//! use ehir_core::{CallFlags, CleanupKind};
//!
//! let mut mb = ModuleBuilder::new();
//! let s32 = mb.ctx().types.common().s32;
//! let s32_ptr = mb.ctx().types.ptr(s32);
//! let s8_ptr = { let s8 = mb.ctx().types.common().s8; mb.ctx().types.ptr(s8) };
//! let puts_sig = mb.ctx().types.func(vec![s8_ptr], Some(s32), false);
//! let work_sig = mb.ctx().types.func(vec![], None, false);
//! let main_sig = mb.ctx().types.func(vec![], Some(s32), false);
//! let int_typeinfo = mb.builtin_typeinfo(BuiltinType::Int);
//!
//! let mut b = mb.function("main", main_sig, &[]);
//! b.push_cleanup(CleanupKind::All, |b| {
//!     let bye = b.string_literal(b"bye");
//!     b.call_named("puts", puts_sig, &[bye], CallFlags::default());
//! });
//! b.enter_try();
//! b.call_named("work", work_sig, &[], CallFlags::default());
//! let e = b.emit_catch(CatchKind::Type(int_typeinfo), s32_ptr);
//! let code = b.load(e, 4);
//! b.emit_return(Some(code));
//! b.exit_try();
//! let zero = b.const_int(s32, 0);
//! b.emit_return(Some(zero));
//! b.pop_cleanup();
//! b.emit_unreachable(); // every path returned inside the cleanup scope
//! b.define().expect("well formed");
//! let module = mb.finish().expect("complete");
//! ehir_core::verifier::verify_module(&module).expect("verifies");
//!
//! // A misuse is an error at the call, not a panic:
//! let mut mb = ModuleBuilder::new();
//! let sig = mb.ctx().types.func(vec![], None, false);
//! let mut b = mb.function("f", sig, &[]);
//! b.pop_cleanup();
//! let err = b.check().unwrap_err();
//! assert_eq!(err.kind, ehir_builder::BuilderErrorKind::Unbalanced);
//! ```

#![warn(missing_docs)]

mod branches;
mod cleanups;
pub mod error;
mod exceptions;
pub mod function;
pub mod handles;
mod loops;
pub mod module;

pub use error::{BuildErrors, BuilderError, BuilderErrorKind};
pub use function::{
    BranchExit, BranchKind, CatchKind, CleanupDepth, CleanupHandle, FullExpressionMark,
    FunctionBuilder,
};
pub use handles::{Block, BuilderId, Op, Value};
pub use loops::{LoopBuilder, LoopKind};
pub use module::{BuiltinType, CalleeDecl, ModuleBuilder, ModuleItems, SuspendedFunction};
