//! The ehir IR core: entities, types, attributes, ops, functions and modules, the
//! builder cursor, the printer, the verifier and diagnostics, and the C++ ABI vocabulary
//! ([`abi`]).
//!
//! See `docs/architecture.md` for the invariants and `docs/syntax.md` for the text form.

pub mod abi;
pub mod analysis;
pub mod attrs;
pub mod cursor;
pub mod dfg;
pub mod diagnostics;
pub mod entities;
pub mod function;
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
pub use function::{Function, Linkage, Phase, Visit};
pub use layout::Layout;
pub use module::{
    Global, Item, Module, ModuleAttribute, ModuleCtx, RecordDecl, RecordKind, TypeInfoDecl,
};
pub use ops::{
    BinaryOp, CallFlags, CaseKind, CastKind, CleanupKind, CmpPredicate, ExtraData, HandlerKey,
    LandingPadClause, OpKind, PhaseSet, UnaryOp,
};
pub use symbols::SymbolTable;
pub use types::{CommonTypes, ParamAbi, TypeData, TypeStore};

pub use cranelift_entity::packed_option::PackedOption;
pub use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};
