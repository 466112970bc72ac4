//! The module builder: owns a module under construction, hands out function builders
//! (several may be under construction at once through [`SuspendedFunction`]), declares
//! callees on their first call, makes string literals and names builtin typeinfo.

use crate::error::{BuildErrors, BuilderError, BuilderErrorKind};
use crate::function::{FunctionBuilder, FunctionState};
use ehir_core::{Function, Item, Loc, Module, ModuleCtx, Symbol, Type};
use std::collections::{BTreeSet, HashMap};

/// A builtin type whose Itanium typeinfo object the runtime provides (`_ZTIi`, ...), for
/// throwing and catching values of that type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BuiltinType {
    /// `bool` (`_ZTIb`)
    Bool,
    /// `char` (`_ZTIc`)
    Char,
    /// `int` (`_ZTIi`)
    Int,
    /// `unsigned int` (`_ZTIj`)
    UInt,
    /// `long` (`_ZTIl`)
    Long,
    /// `unsigned long` (`_ZTIm`)
    ULong,
    /// `long long` (`_ZTIx`)
    LongLong,
    /// `float` (`_ZTIf`)
    Float,
    /// `double` (`_ZTId`)
    Double,
    /// `const char*` (`_ZTIPKc`)
    ConstCharPtr,
}

impl BuiltinType {
    /// The typeinfo object's symbol name.
    pub fn typeinfo_name(self) -> &'static str {
        match self {
            BuiltinType::Bool => "_ZTIb",
            BuiltinType::Char => "_ZTIc",
            BuiltinType::Int => "_ZTIi",
            BuiltinType::UInt => "_ZTIj",
            BuiltinType::Long => "_ZTIl",
            BuiltinType::ULong => "_ZTIm",
            BuiltinType::LongLong => "_ZTIx",
            BuiltinType::Float => "_ZTIf",
            BuiltinType::Double => "_ZTId",
            BuiltinType::ConstCharPtr => "_ZTIPKc",
        }
    }
}

/// A callee declared by [`FunctionBuilder::call_named`] or
/// [`ModuleBuilder::declare_function`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct CalleeDecl {
    /// The callee.
    pub name: Symbol,
    /// Its `!cir.func` signature.
    pub sig: Type,
    /// Whether it never throws.
    pub nothrow: bool,
}

/// What functions add to their module besides themselves: callee declarations, string
/// literal globals and (for a [`ModuleBuilder`]) finished definitions, in the order they
/// were made.
#[derive(Clone, Debug, Default)]
pub struct ModuleItems {
    callees: Vec<CalleeDecl>,
    callee_index: HashMap<Symbol, usize>,
    strings: Vec<(Symbol, Type, Vec<u8>)>,
    string_index: HashMap<Vec<u8>, usize>,
    string_prefix: String,
    pub(crate) definitions: Vec<Function>,
}

impl ModuleItems {
    pub(crate) fn new(string_prefix: String) -> Self {
        ModuleItems {
            string_prefix,
            ..ModuleItems::default()
        }
    }

    /// Declares `name` with `sig` unless it is declared already; a different signature is
    /// an error (the message names both).
    pub(crate) fn declare(
        &mut self,
        ctx: &ModuleCtx,
        name: Symbol,
        sig: Type,
        nothrow: bool,
    ) -> Result<(), String> {
        if let Some(&i) = self.callee_index.get(&name) {
            let decl = &mut self.callees[i];
            if decl.sig != sig {
                return Err(format!(
                    "@{} was declared with another signature",
                    ctx.name(name)
                ));
            }
            decl.nothrow &= nothrow;
            return Ok(());
        }
        self.callee_index.insert(name, self.callees.len());
        self.callees.push(CalleeDecl { name, sig, nothrow });
        Ok(())
    }

    /// The global holding `bytes` and a NUL (made on first use): its symbol and array type.
    pub(crate) fn string(&mut self, ctx: &mut ModuleCtx, bytes: &[u8]) -> (Symbol, Type) {
        if let Some(&i) = self.string_index.get(bytes) {
            let (symbol, ty, _) = &self.strings[i];
            return (*symbol, *ty);
        }
        let name = match self.strings.len() {
            0 => self.string_prefix.clone(),
            n => format!("{}.{n}", self.string_prefix),
        };
        let symbol = ctx.sym(&name);
        let mut data = bytes.to_vec();
        data.push(0);
        let s8 = ctx.types.common().s8;
        let ty = ctx.types.array(s8, data.len() as u64);
        self.string_index.insert(bytes.to_vec(), self.strings.len());
        self.strings.push((symbol, ty, data));
        (symbol, ty)
    }

    /// The callees declared so far, in order.
    pub fn callees(&self) -> &[CalleeDecl] {
        &self.callees
    }

    /// Adds the string globals and the declarations of callees `module` does not define or
    /// declare yet (and the definitions a module builder collected) to `module`.
    pub fn add_to(self, module: &mut Module) {
        for (name, _, data) in self.strings {
            module.add_string_literal(name, data);
        }
        let defined: Vec<Symbol> = self.definitions.iter().map(|f| f.name).collect();
        for decl in self.callees {
            if defined.contains(&decl.name) || module.function_by_name(decl.name).is_some() {
                continue;
            }
            let mut func = Function::new_declaration(decl.name, decl.sig);
            func.nothrow = decl.nothrow;
            module.add_function(func);
        }
        for func in self.definitions {
            module.add_function(func);
        }
    }
}

/// Where a function builder puts its module items.
pub(crate) enum ItemsRef<'m> {
    /// Its own (a builder made by [`FunctionBuilder::new`]).
    Own(ModuleItems),
    /// Its module builder's.
    Module(&'m mut ModuleItems),
}

impl ItemsRef<'_> {
    pub(crate) fn get(&mut self) -> &mut ModuleItems {
        match self {
            ItemsRef::Own(items) => items,
            ItemsRef::Module(items) => items,
        }
    }
}

/// A function builder detached from its module context ([`FunctionBuilder::suspend`]):
/// keeps everything built so far, its open scopes and its identity (handles stay valid).
pub struct SuspendedFunction {
    pub(crate) state: FunctionState,
    pub(crate) own_items: Option<ModuleItems>,
}

impl SuspendedFunction {
    /// Continues a builder made by [`FunctionBuilder::new`] with the same context. (One
    /// made by a [`ModuleBuilder`] continues with [`ModuleBuilder::resume`]; resuming it
    /// here keeps its declarations in the builder, see
    /// [`FunctionBuilder::finish_with_items`].)
    pub fn resume(self, ctx: &mut ModuleCtx) -> FunctionBuilder<'_> {
        let items = self
            .own_items
            .unwrap_or_else(|| ModuleItems::new(".str.resumed".into()));
        FunctionBuilder {
            ctx,
            items: crate::module::ItemsRef::Own(items),
            state: self.state,
        }
    }
}

/// Builds a module: its context (types, symbols, attributes), records, globals, string
/// literals, callee declarations and function definitions.
///
/// ```
/// use ehir_core::CallFlags;
/// use ehir_builder::ModuleBuilder;
///
/// let mut mb = ModuleBuilder::new();
/// let s32 = mb.ctx().types.common().s32;
/// let puts_sig = { let p = mb.ctx().types.common().s8; let p = mb.ctx().types.ptr(p);
///                  mb.ctx().types.func(vec![p], Some(s32), false) };
/// let main_sig = mb.ctx().types.func(vec![], Some(s32), false);
/// // Two functions under construction at once.
/// let mut main = mb.function("main", main_sig, &[]);
/// let text = main.string_literal(b"hello");
/// main.call_named("puts", puts_sig, &[text], CallFlags::default());
/// let main = main.suspend();
/// let mut helper = mb.function("helper", main_sig, &[]);
/// let one = helper.const_int(s32, 1);
/// helper.emit_return(Some(one));
/// helper.define().unwrap();
/// let mut main = mb.resume(main);
/// let zero = main.const_int(s32, 0);
/// main.emit_return(Some(zero));
/// main.define().unwrap();
/// let module = mb.finish().unwrap();
/// ehir_core::verifier::verify_module(&module).unwrap();
/// let text = ehir_core::printer::module_to_string(&module);
/// assert!(text.contains("cir.global constant private @.str = #cir.const_array<\"hello\\00\""), "{text}");
/// assert!(text.contains("cir.func @puts(!cir.ptr<!s8i>) -> !s32i"), "{text}");
/// ```
#[derive(Default)]
pub struct ModuleBuilder {
    module: Module,
    items: ModuleItems,
    errors: Vec<BuilderError>,
}

impl ModuleBuilder {
    /// An empty module.
    pub fn new() -> Self {
        ModuleBuilder {
            module: Module::new(),
            items: ModuleItems::new(".str".into()),
            errors: Vec::new(),
        }
    }

    /// The module's context: make types, symbols and attributes here.
    pub fn ctx(&mut self) -> &mut ModuleCtx {
        &mut self.module.ctx
    }

    /// The module built so far (globals added, functions defined with
    /// [`FunctionBuilder::define`] not yet: they are added by [`ModuleBuilder::finish`]).
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The module itself, for adding records, typeinfo and globals.
    pub fn module_mut(&mut self) -> &mut Module {
        &mut self.module
    }

    /// Starts a definition of `name` (see [`FunctionBuilder::new`]) whose callee
    /// declarations and string literals go into this module. Finish it with
    /// [`FunctionBuilder::define`], or [`FunctionBuilder::suspend`] it to build another
    /// function meanwhile.
    pub fn function(&mut self, name: &str, sig: Type, params: &[Type]) -> FunctionBuilder<'_> {
        let items = crate::module::ItemsRef::Module(&mut self.items);
        FunctionBuilder::with_items(&mut self.module.ctx, items, name, sig, params)
    }

    /// [`ModuleBuilder::function`] with the parameters of `sig` (a function type) as the
    /// entry block's.
    pub fn function_of_type(&mut self, name: &str, sig: Type) -> FunctionBuilder<'_> {
        let params = self
            .module
            .ctx
            .types
            .func_info(sig)
            .map(|(params, _, _)| params.to_vec())
            .unwrap_or_default();
        self.function(name, sig, &params)
    }

    /// Continues a suspended builder with this module's context.
    pub fn resume(&mut self, suspended: SuspendedFunction) -> FunctionBuilder<'_> {
        FunctionBuilder {
            ctx: &mut self.module.ctx,
            items: crate::module::ItemsRef::Module(&mut self.items),
            state: suspended.state,
        }
    }

    /// Declares an external function (for `nothrow` callees, or to declare before use).
    /// Declaring it again with another signature is an error.
    pub fn declare_function(
        &mut self,
        name: &str,
        sig: Type,
        nothrow: bool,
    ) -> Result<Symbol, BuilderError> {
        let symbol = self.module.ctx.sym(name);
        self.items
            .declare(&self.module.ctx, symbol, sig, nothrow)
            .map_err(|message| {
                BuilderError::new(BuilderErrorKind::SignatureMismatch, Loc::NONE, message)
            })?;
        Ok(symbol)
    }

    /// A private constant global holding `bytes` and a NUL (one per distinct string): its
    /// symbol and `!cir.array<!s8i x N>` type. Inside a function,
    /// [`FunctionBuilder::string_literal`] gives a pointer directly.
    pub fn string_literal(&mut self, bytes: &[u8]) -> (Symbol, Type) {
        self.items.string(&mut self.module.ctx, bytes)
    }

    /// The symbol of a builtin type's typeinfo object (`_ZTIi` for `int`).
    pub fn builtin_typeinfo(&mut self, ty: BuiltinType) -> Symbol {
        self.module.ctx.sym(ty.typeinfo_name())
    }

    /// Adds a function made elsewhere (e.g. by [`FunctionBuilder::finish`]).
    pub fn add_function(&mut self, func: Function) {
        self.items.definitions.push(func);
    }

    /// The module: record items first, then strings, declarations of the callees that
    /// are not defined here, and the definitions in the order they were finished. Errors:
    /// a function defined twice, or defined with another signature than its calls use.
    pub fn finish(mut self) -> Result<Module, BuildErrors> {
        let definitions: Vec<(String, Symbol, Type)> = self
            .items
            .definitions
            .iter()
            .map(|f| (self.module.ctx.name(f.name).to_string(), f.name, f.sig))
            .collect();
        let mut seen = BTreeSet::new();
        for (name, symbol, sig) in &definitions {
            if !seen.insert(*symbol) {
                self.errors.push(BuilderError::new(
                    BuilderErrorKind::SignatureMismatch,
                    Loc::NONE,
                    format!("@{name} is defined twice"),
                ));
            }
            if let Some(decl) = self.items.callees.iter().find(|d| d.name == *symbol)
                && decl.sig != *sig
            {
                self.errors.push(BuilderError::new(
                    BuilderErrorKind::SignatureMismatch,
                    Loc::NONE,
                    format!("@{name} is called with another signature than it is defined with"),
                ));
            }
        }
        if !self.errors.is_empty() {
            return Err(BuildErrors {
                errors: self.errors,
            });
        }
        let mut module = self.module;
        for i in 0..module.ctx.records.len() {
            if !module.items.contains(&Item::Record(i)) {
                module.items.push(Item::Record(i));
            }
        }
        self.items.add_to(&mut module);
        Ok(module)
    }
}
