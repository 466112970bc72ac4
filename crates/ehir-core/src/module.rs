//! A module: the interned symbols, types and attributes shared by its functions, record
//! declarations, typeinfo declarations, globals and functions, in source order.

use crate::attrs::{AttrData, AttrStore, ConstArrayElements};
use crate::entities::{Attr, FuncId, GlobalId, Loc, Symbol, Type};
use crate::function::{Function, Linkage};
use crate::symbols::SymbolTable;
use crate::types::TypeStore;
use cranelift_entity::{EntityRef, PrimaryMap};
use rustc_hash::FxHashMap as HashMap;

/// `struct`, `class` or `union`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum RecordKind {
    /// `struct`.
    Struct,
    /// `class`.
    Class,
    /// `union`: every field at offset 0.
    Union,
}

impl RecordKind {
    /// The keyword as printed.
    pub fn name(self) -> &'static str {
        match self {
            RecordKind::Struct => "struct",
            RecordKind::Class => "class",
            RecordKind::Union => "union",
        }
    }
}

/// `!rec_X = !cir.record<struct "X" {T, U}>` (or `incomplete`).
#[derive(Clone, Debug)]
pub struct RecordDecl {
    /// The alias without `!` (`rec_X`).
    pub alias: Symbol,
    /// `struct`, `class` or `union`.
    pub kind: RecordKind,
    /// The source-level name (`X`).
    pub name: Symbol,
    /// Field types; `None` for an incomplete (opaque) record.
    pub fields: Option<Vec<Type>>,
    /// Where the declaration is.
    pub loc: Loc,
}

/// `cir.typeinfo @_ZTI1D : !rec_D bases [@_ZTI1B at 0, @_ZTI1V at -24 virtual]`: a class
/// typeinfo object and its direct base classes, which is what catch-by-base matching
/// needs.
#[derive(Clone, Debug)]
pub struct TypeInfoDecl {
    /// The typeinfo object's symbol (`_ZTI1D`).
    pub symbol: Symbol,
    /// The class type the typeinfo describes.
    pub ty: Type,
    /// The direct base classes, in declaration order.
    pub bases: Vec<TypeInfoBase>,
    /// Where the declaration is.
    pub loc: Loc,
}

/// A direct base class of a `cir.typeinfo` (an Itanium `__base_class_type_info`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeInfoBase {
    /// The base class's typeinfo symbol.
    pub symbol: Symbol,
    /// A non-virtual base: the byte offset of the base subobject. A virtual base: the
    /// byte offset, from the vtable's address point, of the slot that holds the base's
    /// offset in the object (negative, `-24` for the first virtual base).
    pub offset: i64,
    /// A public base (`private`/`protected` bases are written `private`).
    pub public: bool,
    /// A virtual base (written `virtual`).
    pub is_virtual: bool,
    /// A virtual base on the Microsoft ABI (written `virtual vbptr N`): the offset of the
    /// class's vbtable pointer; `offset` is then the byte offset, in the vbtable, of the
    /// entry that holds the base's offset from that pointer.
    pub vbptr_offset: Option<u64>,
}

impl TypeInfoBase {
    /// A public, non-virtual base at `offset`.
    pub fn public(symbol: Symbol, offset: u64) -> TypeInfoBase {
        TypeInfoBase {
            symbol,
            offset: offset as i64,
            public: true,
            is_virtual: false,
            vbptr_offset: None,
        }
    }
}

/// `cir.global [constant] [linkage] @name = INIT : T` or `cir.global @name : T`.
#[derive(Clone, Debug)]
pub struct Global {
    /// The global's symbol (without `@`).
    pub name: Symbol,
    /// The type of its storage (its address is a `!cir.ptr` to it).
    pub ty: Type,
    /// The initializer; `None` for a declaration defined elsewhere.
    pub init: Option<Attr>,
    /// Read-only storage.
    pub constant: bool,
    /// Its linkage.
    pub linkage: Linkage,
    /// MLIR's `sym_visibility = "private"` (`cir.global "private" ...` upstream).
    pub private_visibility: bool,
    /// Alignment in bytes, if given; else the type's.
    pub align: Option<u32>,
    /// Where the global is in the source.
    pub loc: Loc,
}

/// A top-level item, in source order.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Item {
    /// A record declaration: an index into [`ModuleCtx::records`].
    Record(usize),
    /// A typeinfo declaration: an index into [`ModuleCtx::typeinfos`].
    TypeInfo(usize),
    /// A global of [`Module::globals`].
    Global(GlobalId),
    /// A function of [`Module::functions`].
    Function(FuncId),
}

/// How `cir.alloca` is printed. Upstream changed its printer: files of both versions
/// exist, and each round-trips in its own ([`ModuleCtx::alloca_spelling`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum AllocaSpelling {
    /// Upstream's newest: `cir.alloca "x" align(4) init : !cir.ptr<!s32i>`.
    #[default]
    Named,
    /// Upstream's older: `cir.alloca !s32i, !cir.ptr<!s32i>, ["x", init] {alignment = 4 :
    /// i64}`.
    Typed,
}

/// The interned tables every function of a module shares.
#[derive(Clone, Debug, Default)]
pub struct ModuleCtx {
    /// The spelling of the first `cir.alloca` of the module's text (`None`: it had none,
    /// or the module was built); the printer keeps it, else prints upstream's newest
    /// ([`ModuleCtx::printed_alloca_spelling`]).
    pub alloca_spelling: Option<AllocaSpelling>,
    /// The symbol interner (function, global, record and label names).
    pub symbols: SymbolTable,
    /// The type interner.
    pub types: TypeStore,
    /// The attribute interner.
    pub attrs: AttrStore,
    /// Record declarations, in declaration order ([`ModuleCtx::record`] finds one).
    pub records: Vec<RecordDecl>,
    /// Class typeinfo declarations ([`ModuleCtx::typeinfo`] finds one).
    pub typeinfos: Vec<TypeInfoDecl>,
    record_index: HashMap<Symbol, usize>,
    /// Record aliases declared `packed` / `padded` (upstream's layout keywords,
    /// `!cir.record<struct "X" packed padded {...}>`); kept and printed back.
    pub packed_records: std::collections::HashSet<Symbol>,
    /// Record aliases declared `padded` (see `packed_records`); kept and printed back.
    pub padded_records: std::collections::HashSet<Symbol>,
    typeinfo_index: HashMap<Symbol, usize>,
}

impl ModuleCtx {
    /// The spelling the printer gives `cir.alloca`: the text's, else upstream's newest.
    pub fn printed_alloca_spelling(&self) -> AllocaSpelling {
        self.alloca_spelling.unwrap_or_default()
    }

    /// The declaration of a record alias, if it was declared.
    pub fn record(&self, alias: Symbol) -> Option<&RecordDecl> {
        self.record_index.get(&alias).map(|&i| &self.records[i])
    }

    /// Declares (or completes) a record; returns its index in `records`.
    pub fn declare_record(&mut self, decl: RecordDecl) -> usize {
        let alias = decl.alias;
        replace_or_push(&mut self.records, &mut self.record_index, alias, decl).0
    }

    /// The declaration of the typeinfo object `symbol`, if declared.
    pub fn typeinfo(&self, symbol: Symbol) -> Option<&TypeInfoDecl> {
        self.typeinfo_index
            .get(&symbol)
            .map(|&i| &self.typeinfos[i])
    }

    /// Declares (or redeclares) a typeinfo object; returns its index in `typeinfos`.
    pub fn declare_typeinfo(&mut self, decl: TypeInfoDecl) -> usize {
        let symbol = decl.symbol;
        replace_or_push(&mut self.typeinfos, &mut self.typeinfo_index, symbol, decl).0
    }

    /// The symbol for `s`, interned if new.
    pub fn sym(&mut self, s: &str) -> Symbol {
        self.symbols.intern(s)
    }

    /// The text of a symbol.
    pub fn name(&self, s: Symbol) -> &str {
        self.symbols.name(s)
    }
}

/// One entry of `module attributes {name = value, ...}`: the name and the value's text as
/// written (`cir.triple = "x86_64-pc-windows-msvc"` has the value `"x86_64-pc-windows-msvc"`
/// with its quotes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleAttribute {
    /// The attribute's name (`cir.triple`).
    pub name: String,
    /// Its value's text as written, quotes included.
    pub value: String,
}

/// A CIR module.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// `module attributes {...}` of the input, in source order; printed back.
    pub attributes: Vec<ModuleAttribute>,
    /// Whether the input wrapped its items in `module { ... }` (printed back so).
    pub wrapped: bool,
    /// The interners and declarations its functions share.
    pub ctx: ModuleCtx,
    /// Its globals ([`Module::add_global`] adds one).
    pub globals: PrimaryMap<GlobalId, Global>,
    /// Its functions, definitions and declarations ([`Module::add_function`]).
    pub functions: PrimaryMap<FuncId, Function>,
    /// Top-level items in source order (the printer's order).
    pub items: Vec<Item>,
    function_index: HashMap<Symbol, FuncId>,
    global_index: HashMap<Symbol, GlobalId>,
}

impl Module {
    /// An empty module.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a function; a later definition replaces an earlier declaration of the same name.
    pub fn add_function(&mut self, func: Function) -> FuncId {
        let name = func.name;
        let (id, new) = replace_or_push(&mut self.functions, &mut self.function_index, name, func);
        if new {
            self.items.push(Item::Function(id));
        }
        id
    }

    /// Adds a global; a later one replaces an earlier one of the same name.
    pub fn add_global(&mut self, global: Global) -> GlobalId {
        let name = global.name;
        let (id, new) = replace_or_push(&mut self.globals, &mut self.global_index, name, global);
        if new {
            self.items.push(Item::Global(id));
        }
        id
    }

    /// Adds a private constant string-literal global `name` holding `bytes` (the
    /// terminating NUL included) as a `!cir.array<!s8i x N>`.
    pub fn add_string_literal(&mut self, name: Symbol, bytes: Vec<u8>) -> GlobalId {
        let ch = self.ctx.types.common().s8;
        let ty = self.ctx.types.array(ch, bytes.len() as u64);
        let init = self.ctx.attrs.intern(AttrData::ConstArray {
            elements: ConstArrayElements::Bytes(bytes),
            ty,
            trailing_zeros: false,
        });
        self.add_global(Global {
            name,
            ty,
            init: Some(init),
            constant: true,
            linkage: Linkage::Private,
            private_visibility: false,
            align: None,
            loc: Loc::NONE,
        })
    }

    /// Declares a record (a redeclaration completes or replaces the first one and keeps
    /// its place in [`Module::items`]).
    pub fn add_record(&mut self, decl: RecordDecl) {
        let known = self.ctx.record(decl.alias).is_some();
        let i = self.ctx.declare_record(decl);
        if !known {
            self.items.push(Item::Record(i));
        }
    }

    /// Declares a typeinfo object (a redeclaration replaces the first one in place).
    pub fn add_typeinfo(&mut self, decl: TypeInfoDecl) {
        let known = self.ctx.typeinfo(decl.symbol).is_some();
        let i = self.ctx.declare_typeinfo(decl);
        if !known {
            self.items.push(Item::TypeInfo(i));
        }
    }

    /// The function called `name`.
    pub fn function_by_name(&self, name: Symbol) -> Option<FuncId> {
        self.function_index.get(&name).copied()
    }

    /// The global called `name`.
    pub fn global_by_name(&self, name: Symbol) -> Option<GlobalId> {
        self.global_index.get(&name).copied()
    }

    /// The value of the `cir.triple` module attribute without its quotes.
    pub fn triple(&self) -> Option<&str> {
        self.attributes
            .iter()
            .find(|a| a.name == "cir.triple")
            .map(|a| a.value.trim_matches('"'))
    }

    /// Whether the target triple names the Microsoft C++ ABI (`x86_64-pc-windows-msvc`).
    pub fn is_msvc_target(&self) -> bool {
        self.triple().is_some_and(|t| t.contains("msvc"))
    }

    /// Rewrites upstream's structured catch handlers (`cir.begin_catch` in a `cir.try`
    /// handler) of every function into ehir's `cir.catch_param` form; see
    /// [`crate::upstream_catch`].
    pub fn rewrite_structured_catches(&mut self) -> Result<bool, crate::Diagnostics> {
        let expanded = self.expand_catch_param_constructions()?;
        let rewritten = self.change_each_function(|func, ctx| {
            let void_ptr = ctx.types.common().void_ptr;
            crate::upstream_catch::rewrite_structured_catches(func, void_ptr)
        })?;
        Ok(expanded || rewritten)
    }

    /// Expands upstream's `cir.construct_catch_param` of every structured function into
    /// the ops that build the catch parameter; see
    /// [`crate::upstream_catch::expand_construct_catch_params`].
    pub fn expand_catch_param_constructions(&mut self) -> Result<bool, crate::Diagnostics> {
        self.change_each_function(|func, ctx| {
            crate::upstream_catch::expand_construct_catch_params(func, &ctx.symbols, &mut ctx.types)
        })
    }

    /// Runs `change` on every function; whether any changed, or the diagnostics of all.
    fn change_each_function(
        &mut self,
        mut change: impl FnMut(&mut Function, &mut ModuleCtx) -> Result<bool, crate::Diagnostics>,
    ) -> Result<bool, crate::Diagnostics> {
        let mut changed = false;
        let mut errors = Vec::new();
        for func in self.functions.values_mut() {
            match change(func, &mut self.ctx) {
                Ok(c) => changed |= c,
                Err(d) => errors.extend(d.0),
            }
        }
        if errors.is_empty() {
            Ok(changed)
        } else {
            Err(crate::Diagnostics(errors))
        }
    }

    /// Looks a function up by its text name.
    pub fn function_named(&self, name: &str) -> Option<FuncId> {
        self.ctx
            .symbols
            .lookup(name)
            .and_then(|s| self.function_by_name(s))
    }
}

/// Storage whose slots are named by `K`: a `Vec` (by position) or a `PrimaryMap`.
trait Slots<K, T> {
    /// Stores `value` in a new slot.
    fn push_slot(&mut self, value: T) -> K;
    /// Replaces the value of slot `key`.
    fn replace_slot(&mut self, key: K, value: T);
}

impl<T> Slots<usize, T> for Vec<T> {
    fn push_slot(&mut self, value: T) -> usize {
        self.push(value);
        self.len() - 1
    }

    fn replace_slot(&mut self, key: usize, value: T) {
        self[key] = value;
    }
}

impl<K: EntityRef, T> Slots<K, T> for PrimaryMap<K, T> {
    fn push_slot(&mut self, value: T) -> K {
        self.push(value)
    }

    fn replace_slot(&mut self, key: K, value: T) {
        self[key] = value;
    }
}

/// Stores `value`, named `name`, in place of the earlier value of that name, or in a new
/// slot recorded in `index`; returns its slot and whether the slot is new.
fn replace_or_push<K: Copy, T>(
    slots: &mut impl Slots<K, T>,
    index: &mut HashMap<Symbol, K>,
    name: Symbol,
    value: T,
) -> (K, bool) {
    if let Some(&key) = index.get(&name) {
        slots.replace_slot(key, value);
        return (key, false);
    }
    let key = slots.push_slot(value);
    index.insert(name, key);
    (key, true)
}
