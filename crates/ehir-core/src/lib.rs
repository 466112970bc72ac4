//! The ehir IR core: entities, types, attributes, ops, functions and modules, the
//! builder cursor, the printer, the verifier and diagnostics, and the C++ ABI vocabulary
//! ([`abi`]).
//!
//! See `docs/architecture.md` for the invariants and `docs/syntax.md` for the text form.
//!
//! Building a function without the text parser: a [`Module`] owns the interners
//! ([`ModuleCtx`]: types, attributes, symbols), a [`Function`] owns its ops, and a
//! [`FuncCursor`] creates ops and places them. The [verifier] checks the result
//! and the [printer] writes the text form:
//!
//! ```
//! use ehir_core::{AttrData, FuncCursor, Function, Module};
//!
//! let mut module = Module::new();
//! let s32 = module.ctx.types.common().s32;
//! let sig = module.ctx.types.func(vec![], Some(s32), false);
//! let name = module.ctx.sym("answer");
//! let forty_two = module.ctx.attrs.intern(AttrData::Int { value: 42, ty: s32 });
//!
//! let mut func = Function::new_definition(name, sig, &[]);
//! let entry = func.entry_block().expect("a definition has an entry block");
//! let mut cursor = FuncCursor::new(&mut func, module.ctx.types.common());
//! cursor.goto_end(entry);
//! let value = cursor.constant(forty_two, s32);
//! cursor.ret(Some(value));
//! module.add_function(func);
//!
//! ehir_core::verifier::verify_module(&module).expect("verifies");
//! assert_eq!(
//!     ehir_core::printer::module_to_string(&module),
//!     "cir.func @answer() -> !s32i {\n  %0 = cir.const #cir.int<42> : !s32i\n  cir.return %0 : !s32i\n}\n",
//! );
//! ```

#![warn(missing_docs)]

pub mod abi;
pub mod analysis;
pub mod attrs;
mod compact;
pub mod cursor;
pub mod dfg;
pub mod diagnostics;
pub mod entities;
pub mod function;
pub mod interner;
pub mod layout;
pub mod module;
pub mod ops;
pub mod printer;
pub mod symbols;
pub mod types;
pub mod upstream_catch;
pub mod verifier;

pub use attrs::{AttrData, AttrStore, ConstArrayElements};
pub use cursor::{CursorPosition, FuncCursor};
pub use dfg::{DataFlowGraph, OpData, SuccessorData, Use, ValueDef};
pub use diagnostics::{Diagnostic, Diagnostics, Severity, SourceFile};
pub use entities::{
    Attr, Block, Extra, FuncId, GlobalId, Loc, Op, Region, Successor, Symbol, Type, Value,
};
pub use function::{Function, InlineKind, Linkage, Phase, Visit};
pub use layout::Layout;
pub use module::{
    AllocaSpelling, Global, Item, Module, ModuleAttribute, ModuleCtx, RecordDecl, RecordKind,
    TypeInfoBase, TypeInfoDecl,
};
pub use ops::{
    BinaryOp, CallFlags, CaseKind, CastKind, CleanupKind, CmpPredicate, ExtraData, HandlerKey,
    LandingPadClause, OpKind, PhaseSet, UnaryOp,
};
pub use symbols::SymbolTable;
pub use types::{CommonTypes, ParamAbi, TypeData, TypeStore, int_range, wrap_int};

pub use cranelift_entity::packed_option::PackedOption;
pub use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};
