//! CIR generation from Clang's AST, the way Clang's CodeGen does it, through the
//! EHScopeStack-style builder of `ehir-builder`.
//!
//! Split by story: [`class`] (layout, records, special members, destruction),
//! [`function`] (signatures, bodies, the queue of what is used), [`expr`] (scalars,
//! lvalues, initialization of objects, calls), [`stmt`] (statements and control flow),
//! [`eh`] (try/catch, throw, exception specifications; [`eh_msvc`] what a throw needs on
//! the Microsoft ABI), [`vtable`] and [`vtable_msvc`]
//! (virtual functions and RTTI on each ABI). Only what the program uses is
//! generated: the functions defined in the main file, and what they call, transitively.

pub mod class;
pub mod constant;
pub mod eh;
pub mod eh_msvc;
pub mod expr;
pub mod function;
pub mod lifetime;
pub mod member_pointer;
pub mod stmt;
pub mod subobjects;
pub mod vbtable_msvc;
pub mod vla;
pub mod vtable;
pub mod vtable_msvc;

use crate::ast::{DeclIndex, Node};
use crate::types::{Builtin, CType, parse_type};
use class::ClassLayout;
use ehir_builder::ModuleBuilder;
use ehir_core::abi::EhAbi;
use ehir_core::{Diagnostic, Loc, Module, ModuleCtx, Type, TypeInfoDecl};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

/// Results of the generator: a diagnostic at a location on failure.
pub type R<T> = Result<T, Diagnostic>;

/// An `unsupported: <what>` diagnostic at a node.
pub fn unsupported<T>(node: &Node, what: impl std::fmt::Display) -> R<T> {
    Err(Diagnostic::error(
        loc_of(node),
        format!("unsupported: {what}"),
    ))
}

/// An error at a node.
pub fn error<T>(node: &Node, message: impl Into<String>) -> R<T> {
    Err(Diagnostic::error(loc_of(node), message))
}

/// The location of a node in the main file, or `Loc::NONE`.
pub fn loc_of(node: &Node) -> Loc {
    node.main_offset.map_or(Loc::NONE, Loc)
}

/// A function to generate.
#[derive(Clone, Copy)]
pub enum Pending<'ast> {
    /// A function with a body.
    Defined(&'ast Node),
    /// An implicitly defined special member (`decl` is its implicit declaration).
    Implicit(&'ast Node),
    /// The deleting destructor (D0) of a virtual destructor declaration.
    DeletingDestructor(&'ast Node),
    /// The base-object variant (C2, D2: with a VTT, without the virtual bases) of a
    /// constructor or destructor of a class with virtual bases.
    BaseVariant {
        /// The constructor or destructor.
        decl: &'ast Node,
        /// It is implicitly defined.
        implicit: bool,
    },
    /// The dynamic initialization of a global (`__cxx_global_var_init.N`): constructs
    /// it and registers its destruction at exit.
    GlobalInit(&'ast Node),
    /// A thunk: adjusts `this` by `adjustment` bytes, then calls the function a vtable
    /// slot of kind `kind` holds for `decl`.
    Thunk {
        /// The final overrider.
        decl: &'ast Node,
        /// What the slot holds.
        kind: vtable::SlotKind,
        /// The adjustment of `this`.
        adjustment: vtable::ThisAdjustment,
    },
}

/// What the generator knows besides the module under construction.
pub struct State<'ast> {
    /// The declarations of the translation unit.
    pub index: DeclIndex<'ast>,
    /// The EH ABI of the target.
    pub abi: EhAbi,
    /// The C++ standard compiled for.
    pub standard: crate::Standard,
    /// Class layouts computed so far, by qualified name.
    pub layouts: HashMap<String, Rc<ClassLayout>>,
    /// Functions still to generate.
    pub queue: Vec<Pending<'ast>>,
    /// Symbols queued or generated.
    pub queued: HashSet<String>,
    /// Typeinfo objects the module declares (thrown or caught class types), by symbol.
    pub typeinfos: BTreeMap<String, TypeInfoDecl>,
    /// Globals referenced by generated code: symbol → declaration.
    pub globals: BTreeMap<String, &'ast Node>,
    /// Globals in the order they were first referenced.
    pub global_order: Vec<String>,
    /// Static locals: symbol and declaration.
    pub static_locals: Vec<(String, &'ast Node)>,
    /// How many globals (of `global_order`, then `static_locals`) are defined.
    pub defined_globals: (usize, usize),
    /// Parsed types by their text.
    pub parsed: HashMap<String, CType>,
    /// Classes whose layout is being computed.
    pub laying_out: HashSet<String>,
    /// Typedef names being resolved.
    pub resolving: HashSet<String>,
    /// Functions whose address is taken: name, signature, nothrow (declared in the
    /// module unless defined).
    pub address_taken: Vec<(String, Type, bool)>,
    /// Globals of RTTI the code refers to: vtables of dynamic classes, declarations of
    /// the typeinfo objects of fundamental types (in the C++ runtime).
    pub rtti_globals: Vec<ehir_core::Global>,
    /// Where the functions code calls are declared in the main file, by symbol: the
    /// location of their declarations in the module (diagnostics about a function
    /// defined elsewhere point there).
    pub callee_locs: HashMap<String, Loc>,
    /// The file paths in the names of unnamed entities (`(lambda at /src/f.cpp:3:12)`)
    /// → what output names them by ([`State::output_name`]).
    pub location_files: BTreeMap<String, String>,
    /// Itanium vtable groups built so far, by symbol.
    pub vtable_groups: HashMap<String, Rc<vtable::VTableGroup>>,
    /// Itanium VTTs built so far, by class.
    pub vtts: HashMap<String, Rc<vtable::Vtt>>,
    /// Globals with dynamic initializers and the functions that initialize them.
    pub dynamic_inits: Vec<(&'ast Node, String)>,
    /// The guard variables of static locals with dynamic initializers.
    pub guards: Vec<ehir_core::Global>,
    /// Microsoft ABI: the functions `atexit` is to run (`??__F…`), each destroying one
    /// global: (its name, the global's symbol and CIR type, the destructor).
    pub exit_stubs: Vec<(String, String, Type, class::Callee)>,
}

impl<'ast> State<'ast> {
    /// The parsed type of a node.
    pub fn node_type(&mut self, node: &Node) -> R<CType> {
        let Some(text) = node.type_text() else {
            return error(node, format!("'{}' without a type", node.kind));
        };
        self.parse(node, text)
    }

    /// Parses a type text (cached); unsupported types are diagnosed at `node`.
    pub fn parse(&mut self, node: &Node, text: &str) -> R<CType> {
        if let Some(t) = self.parsed.get(text) {
            return Ok(t.clone());
        }
        let Some(t) = parse_type(text) else {
            return unsupported(node, format!("type '{text}'"));
        };
        let t = self.resolve_names(node, t)?;
        self.parsed.insert(text.to_string(), t.clone());
        Ok(t)
    }

    /// Replaces typedef names by what they name and enum names by their underlying
    /// integer type (Clang desugars only the outermost type); a name written from the
    /// global namespace (`::type_info`, as Clang prints a class named through a
    /// using-declaration) loses its `::`.
    fn resolve_names(&mut self, node: &Node, t: CType) -> R<CType> {
        Ok(match t {
            CType::Named(name) if name.starts_with("::") => {
                let global = name.trim_start_matches("::").to_string();
                self.resolve_names(node, CType::Named(global))?
            }
            CType::Named(name) if self.index.class_aliases.contains_key(&name) => {
                // A class spelled without its inline namespace or defaulted template
                // arguments: the name it is indexed (and mangled) under.
                CType::Named(self.index.class_aliases[&name].clone())
            }
            CType::Named(name) => {
                let enumeration = self.index.enums.get(&name).or_else(|| {
                    // An enum named inside its class or namespace (`Kind` for `S::Kind`),
                    // unless a class has that name.
                    if self.index.classes.contains_key(&name) {
                        return None;
                    }
                    let qualified = self.qualified(&name, &self.index.enums)?;
                    self.index.enums.get(&qualified)
                });
                if let Some(e) = enumeration {
                    let underlying = e
                        .fixed_underlying_type
                        .as_ref()
                        .and_then(|q| parse_type(q.canonical()));
                    underlying.unwrap_or(CType::Builtin(Builtin::Int))
                } else if let Some(typedef) = self
                    .index
                    .typedefs
                    .get(&name)
                    .or_else(|| {
                        let qualified = self.qualified(&name, &self.index.typedefs)?;
                        self.index.typedefs.get(&qualified)
                    })
                    .copied()
                {
                    let Some(text) = typedef.type_text() else {
                        return error(node, format!("typedef '{name}' without a type"));
                    };
                    // `typedef struct X X;` names the class; a cycle of typedefs names
                    // nothing.
                    if parse_type(text).is_some_and(|t| t == CType::Named(name.clone())) {
                        return Ok(CType::Named(name));
                    }
                    if !self.resolving.insert(name.clone()) {
                        return unsupported(node, format!("typedef '{name}' that names itself"));
                    }
                    let resolved = self.parse(node, text);
                    self.resolving.remove(&name);
                    resolved?
                } else if !self.index.classes.contains_key(&name)
                    && let Some(target) = self.index.using_names.get(&name)
                    && target != &name
                {
                    // A class named through a using-declaration (`std::exception`).
                    self.resolve_names(node, CType::Named(target.clone()))?
                } else {
                    CType::Named(name)
                }
            }
            CType::Const(t) => CType::Const(Box::new(self.resolve_names(node, *t)?)),
            CType::Pointer(t) => CType::Pointer(Box::new(self.resolve_names(node, *t)?)),
            CType::Reference(t) => CType::Reference(Box::new(self.resolve_names(node, *t)?)),
            CType::Array(t, n) => CType::Array(Box::new(self.resolve_names(node, *t)?), n),
            CType::Function(mut f) => {
                f.result = self.resolve_names(node, f.result)?;
                let mut params = Vec::new();
                for p in std::mem::take(&mut f.params) {
                    params.push(self.resolve_names(node, p)?);
                }
                f.params = params;
                CType::Function(f)
            }
            CType::MemberPointer(t, class) => {
                CType::MemberPointer(Box::new(self.resolve_names(node, *t)?), class)
            }
            other => other,
        })
    }

    /// The name output gives a C++ type named `name`: each source location Clang writes
    /// into the name of an entity without one (`(lambda at /src/f.cpp:3:12)`) keeps only
    /// the file's name (`(lambda at f.cpp:3:12)`), so that output does not depend on
    /// where the input is; files of one name in different directories are told apart by
    /// a number, in order of first use (`f.cpp#2`).
    pub fn output_name(&mut self, name: &str) -> String {
        let mut out = String::with_capacity(name.len());
        let mut copied = 0;
        for range in crate::types::location_paths(name) {
            out.push_str(&name[copied..range.start]);
            let path = &name[range.clone()];
            let short = match self.location_files.get(path) {
                Some(short) => short.clone(),
                None => {
                    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
                    let taken = self.location_files.values().filter(|s| {
                        s.as_str() == file
                            || s.strip_prefix(file).is_some_and(|n| n.starts_with('#'))
                    });
                    let short = match taken.count() {
                        0 => file.to_string(),
                        n => format!("{file}#{}", n + 1),
                    };
                    self.location_files.insert(path.to_string(), short.clone());
                    short
                }
            };
            out.push_str(&short);
            copied = range.end;
        }
        out.push_str(&name[copied..]);
        out
    }

    /// The symbol a function is defined and called by: the mangled name Clang gives
    /// (`__builtin_strcmp` is the C library's `strcmp`), except for a destructor on the
    /// Microsoft target, which Clang's AST names by its "vbase destructor" variant
    /// (`??_DA@@QEAAXXZ`) while Clang's code uses `??1A@@QEAA@XZ` for a class without
    /// virtual bases ([`ehir_core::abi::type_names::msvc_destructor_symbol`]).
    pub fn function_symbol(&mut self, ctx: &mut ModuleCtx, decl: &Node) -> R<String> {
        let Some(mangled) = decl.mangled_name.as_deref() else {
            return error(decl, "a function without a mangled name");
        };
        let mangled = mangled.strip_prefix("__builtin_").unwrap_or(mangled);
        if self.abi != EhAbi::Msvc || decl.kind != "CXXDestructorDecl" {
            return Ok(mangled.to_string());
        }
        let Some(class) = self.class_of(decl) else {
            return error(decl, "a destructor outside a class");
        };
        let is_virtual = self
            .slot_of_kind(ctx, decl, &class, vtable::SlotKind::DeletingDestructor)?
            .is_some();
        let has_virtual_bases = self.has_virtual_bases(ctx, decl, &class)?;
        match ehir_core::abi::type_names::msvc_destructor_symbol(
            mangled,
            is_virtual,
            has_virtual_bases,
        ) {
            Some(symbol) => Ok(symbol),
            None => error(
                decl,
                format!("'{mangled}' is not a Microsoft destructor name"),
            ),
        }
    }

    /// Defines the internal constant table `name` of `!cir.ptr<!void>` entries (an
    /// Itanium vtable group or VTT, a Microsoft vftable) among the RTTI globals; its type.
    pub fn define_pointer_table(
        &mut self,
        ctx: &mut ModuleCtx,
        name: ehir_core::Symbol,
        elements: Vec<ehir_core::Attr>,
    ) -> Type {
        let void_ptr = ctx.types.common().void_ptr;
        let ty = ctx.types.array(void_ptr, elements.len() as u64);
        let init = ctx.attrs.intern(ehir_core::AttrData::ConstArray {
            elements: ehir_core::ConstArrayElements::Attrs(elements),
            ty,
            trailing_zeros: false,
        });
        self.rtti_globals.push(ehir_core::Global {
            name,
            ty,
            init: Some(init),
            constant: true,
            linkage: ehir_core::Linkage::Internal,
            private_visibility: false,
            align: Some(8),
            loc: Loc::NONE,
        });
        ty
    }

    /// Declares (once) the external constant RTTI object `name` of type `ty`, which the C++
    /// runtime or the emitter defines.
    pub fn declare_rtti_global(&mut self, name: ehir_core::Symbol, ty: Type) {
        if !self.rtti_globals.iter().any(|g| g.name == name) {
            self.rtti_globals.push(ehir_core::Global {
                name,
                ty,
                init: None,
                constant: true,
                linkage: ehir_core::Linkage::External,
                private_visibility: false,
                align: Some(8),
                loc: Loc::NONE,
            });
        }
    }

    /// The alias (`!rec_…`) of the record of the class named `name`.
    pub fn record_alias(&mut self, ctx: &mut ModuleCtx, name: &str) -> ehir_core::Symbol {
        let output = self.output_name(name);
        ctx.sym(&ehir_core::abi::records::record_alias(&output))
    }

    /// The CIR type of a C++ type (references are pointers).
    pub fn cir_type(&mut self, ctx: &mut ModuleCtx, node: &Node, t: &CType) -> R<Type> {
        let common = *ctx.types.common();
        Ok(match t {
            CType::Builtin(b) => match b {
                Builtin::Void => common.void,
                Builtin::Bool => common.bool,
                Builtin::Float => common.float,
                Builtin::Double => common.double,
                Builtin::Nullptr => common.void_ptr,
                other => {
                    let (bits, signed) = other.int_info(self.abi).unwrap_or((32, true));
                    ctx.types.int(bits, signed)
                }
            },
            CType::Const(inner) => self.cir_type(ctx, node, inner)?,
            CType::Pointer(inner) | CType::Reference(inner) => {
                let pointee = match inner.unqualified() {
                    // A class pointing to itself (or to a class whose layout is being
                    // computed): its record by name, declared when its layout is done.
                    CType::Named(name) if self.laying_out.contains(name) => {
                        let alias = self.record_alias(ctx, name);
                        ctx.types.record(alias)
                    }
                    // The same, named partly qualified (`_Callback_list` inside
                    // `std::ios_base`).
                    CType::Named(name)
                        if let Some(qualified) = self.qualified(name, &self.index.classes)
                            && self.laying_out.contains(&qualified) =>
                    {
                        let alias = self.record_alias(ctx, &qualified);
                        ctx.types.record(alias)
                    }
                    _ => self.cir_type(ctx, node, inner)?,
                };
                ctx.types.ptr(pointee)
            }
            CType::Array(element, n) => {
                let element = self.cir_type(ctx, node, element)?;
                ctx.types.array(element, n.unwrap_or(0))
            }
            CType::Function(f) => self.function_cir_type(ctx, node, f, None)?,
            CType::MemberPointer(member, _) => {
                self.check_member_pointer(node, t)?;
                if member.function().is_some() {
                    // `{ptr, adj}`: the function (or 1 + its vtable offset), then the
                    // adjustment of `this`, each a pointer-sized word.
                    ctx.types.array(common.void_ptr, 2)
                } else {
                    common.s64
                }
            }
            CType::Named(name) if self.class_node(node, name).is_err() => {
                // An incomplete class (only pointed to): an opaque record.
                let alias = self.record_alias(ctx, name);
                if ctx.record(alias).is_none() {
                    let output = self.output_name(name);
                    let record_name = ctx.sym(&output);
                    ctx.declare_record(ehir_core::RecordDecl {
                        alias,
                        kind: ehir_core::RecordKind::Struct,
                        name: record_name,
                        fields: None,
                        loc: Loc::NONE,
                    });
                }
                ctx.types.record(alias)
            }
            CType::Named(name) => self.layout(ctx, node, name)?.cir,
        })
    }

    /// The CIR type of a function: a class result through a leading pointer parameter,
    /// then `this` (of `this_class`), then the parameters; classes trivial for calls
    /// are marked to travel by value in the C ABI.
    pub fn function_cir_type(
        &mut self,
        ctx: &mut ModuleCtx,
        node: &Node,
        function: &crate::types::FunctionType,
        this_class: Option<&str>,
    ) -> R<Type> {
        let mut params = Vec::new();
        let mut abi = Vec::new();
        let result = match self.result_cir_type(ctx, node, &function.result)? {
            ResultAbi::Scalar(r) => r,
            ResultAbi::Indirect(ptr) => {
                params.push(ptr);
                let class = function.result.name().unwrap_or_default().to_string();
                let by_value = self.layout(ctx, node, &class)?.by_value;
                abi.push(if by_value {
                    ehir_core::ParamAbi::ByValueResult
                } else {
                    ehir_core::ParamAbi::Default
                });
                None
            }
        };
        if let Some(class) = this_class {
            let record = self.layout(ctx, node, class)?.cir;
            params.push(ctx.types.ptr(record));
            abi.push(ehir_core::ParamAbi::Default);
        }
        for param in &function.params {
            params.push(self.param_cir_type(ctx, node, param)?);
            abi.push(match param.unqualified() {
                CType::Named(class) if self.layout(ctx, node, class)?.by_value => {
                    ehir_core::ParamAbi::ByValue
                }
                _ => ehir_core::ParamAbi::Default,
            });
        }
        Ok(ctx
            .types
            .func_with_abi(params, abi, result, function.variadic))
    }

    /// The CIR type of a parameter: classes are passed by address.
    pub fn param_cir_type(&mut self, ctx: &mut ModuleCtx, node: &Node, t: &CType) -> R<Type> {
        let ty = self.cir_type(ctx, node, t)?;
        Ok(if self.is_class(t) {
            ctx.types.ptr(ty)
        } else {
            ty
        })
    }

    /// How a function returns a value of type `t`.
    pub fn result_cir_type(&mut self, ctx: &mut ModuleCtx, node: &Node, t: &CType) -> R<ResultAbi> {
        if t.is_void() {
            return Ok(ResultAbi::Scalar(None));
        }
        let ty = self.cir_type(ctx, node, t)?;
        Ok(if self.is_class(t) {
            ResultAbi::Indirect(ctx.types.ptr(ty))
        } else {
            ResultAbi::Scalar(Some(ty))
        })
    }

    /// Whether a type is a class type (not a reference to one).
    pub fn is_class(&self, t: &CType) -> bool {
        matches!(t.unqualified(), CType::Named(_))
    }

    /// Pointers to members on the Itanium ABI (to data: a 64-bit offset, -1 for null; to
    /// functions: `{ptr, adj}`) are what this front end models, not the Microsoft
    /// representations.
    fn check_member_pointer(&self, node: &Node, t: &CType) -> R<()> {
        if !matches!(t.unqualified(), CType::MemberPointer(..)) {
            return Ok(());
        }
        if self.abi == EhAbi::Msvc {
            return unsupported(
                node,
                format!("pointer to member '{t}' on the Microsoft ABI"),
            );
        }
        Ok(())
    }

    /// Size and alignment of a type.
    pub fn size_align(&mut self, ctx: &mut ModuleCtx, node: &Node, t: &CType) -> R<(u64, u64)> {
        Ok(match t {
            CType::Builtin(Builtin::Void) => (1, 1),
            CType::Builtin(b) => (b.size(self.abi), b.size(self.abi)),
            CType::Const(inner) => self.size_align(ctx, node, inner)?,
            CType::Pointer(_) | CType::Reference(_) => (8, 8),
            CType::Array(element, n) => {
                let (size, align) = self.size_align(ctx, node, element)?;
                (size * n.unwrap_or(0), align)
            }
            CType::Function(_) => (1, 1),
            CType::MemberPointer(member, _) => {
                self.check_member_pointer(node, t)?;
                if member.function().is_some() {
                    (16, 8)
                } else {
                    (8, 8)
                }
            }
            CType::Named(name) => {
                let layout = self.layout(ctx, node, name)?;
                (layout.size, layout.align)
            }
        })
    }

    /// Queues a function for generation (once).
    pub fn enqueue(&mut self, symbol: &str, pending: Pending<'ast>) {
        if self.queued.insert(symbol.to_string()) {
            self.queue.push(pending);
        }
    }
}

/// How a function returns its result.
pub enum ResultAbi {
    /// In a register (`None`: void).
    Scalar(Option<Type>),
    /// Through a leading pointer parameter of this type.
    Indirect(Type),
}

/// The layouts of the classes defined in the main file, by qualified name (or why a
/// class has none).
pub fn class_layouts(root: &Node, abi: EhAbi) -> BTreeMap<String, R<ClassLayout>> {
    // (The standard changes no layout.)
    let mut state = State::new(root, abi, crate::Standard::Cxx17OrLater);
    let mut mb = ModuleBuilder::new();
    let mut names: Vec<(String, &Node)> = state
        .index
        .classes
        .iter()
        .filter(|(_, node)| node.main_offset.is_some())
        .map(|(name, node)| (name.clone(), *node))
        .collect();
    names.sort_by(|a, b| a.0.cmp(&b.0));
    names
        .into_iter()
        .map(|(name, node)| {
            let layout = state.layout(mb.ctx(), node, &name).map(|l| (*l).clone());
            (name, layout)
        })
        .collect()
}

impl<'ast> State<'ast> {
    /// A generator state for a translation unit.
    pub fn new(root: &'ast Node, abi: EhAbi, standard: crate::Standard) -> Self {
        State {
            index: DeclIndex::build(root),
            abi,
            standard,
            layouts: HashMap::new(),
            queue: Vec::new(),
            queued: HashSet::new(),
            typeinfos: BTreeMap::new(),
            globals: BTreeMap::new(),
            global_order: Vec::new(),
            static_locals: Vec::new(),
            parsed: HashMap::new(),
            laying_out: HashSet::new(),
            resolving: HashSet::new(),
            address_taken: Vec::new(),
            rtti_globals: Vec::new(),
            vtable_groups: HashMap::new(),
            vtts: HashMap::new(),
            dynamic_inits: Vec::new(),
            guards: Vec::new(),
            exit_stubs: Vec::new(),
            defined_globals: (0, 0),
            callee_locs: HashMap::new(),
            location_files: BTreeMap::new(),
        }
    }
}

/// Generates the module of a translation unit.
pub fn generate(
    root: &Node,
    abi: EhAbi,
    standard: crate::Standard,
) -> Result<Module, Vec<Diagnostic>> {
    let mut state = State::new(root, abi, standard);
    let mut mb = ModuleBuilder::new();
    let mut errors = Vec::new();
    let roots: Vec<&Node> = state
        .index
        .main_definitions
        .iter()
        .copied()
        .filter(|d| function::emitted_without_use(&state, d))
        .collect();
    // (A member of a class template defined outside the class is a pattern without a
    // mangled name: its instantiations are generated when used.)
    for decl in roots.into_iter().filter(|d| d.mangled_name.is_some()) {
        match state.function_symbol(mb.ctx(), decl) {
            Ok(symbol) => state.enqueue(&symbol, Pending::Defined(decl)),
            Err(e) => errors.push(e),
        }
    }
    // The main file's variables are defined (and initialized) even when unused, and so
    // are a header's `static` variables with a dynamic initializer (`static
    // ios_base::Init __ioinit;` of libstdc++'s `<iostream>`, which constructs the
    // standard streams), as Clang emits every variable definition of the translation
    // unit.
    let candidates: Vec<&Node> = state.index.globals.to_vec();
    let mut variables = Vec::new();
    for v in candidates {
        if state.index.parent_class.contains_key(v.id.as_str()) {
            continue;
        }
        let emitted = if v.main_offset.is_some() {
            v.storage_class.as_deref() != Some("extern") || v.initializer().is_some()
        } else {
            v.storage_class.as_deref() == Some("static")
                && !v.inline
                && v.initializer()
                    .is_some_and(|init| !function::is_constant_initializer(&mut state, init))
        };
        if emitted {
            variables.push(v);
        }
    }
    for variable in variables {
        if let Some(symbol) = &variable.mangled_name
            && !state.globals.contains_key(symbol)
        {
            state.globals.insert(symbol.clone(), variable);
            state.global_order.push(symbol.clone());
        }
    }
    // Functions, then the globals they use (whose initializers may use functions).
    let mut next = 0;
    loop {
        while next < state.queue.len() {
            let pending = state.queue[next];
            next += 1;
            if let Err(e) = function::generate_function(&mut state, &mut mb, pending) {
                errors.push(e);
            }
        }
        if let Err(mut es) = function::define_globals(&mut state, &mut mb) {
            errors.append(&mut es);
        }
        if next == state.queue.len() {
            break;
        }
    }
    if let Err(e) = function::define_global_constructor(&mut state, &mut mb) {
        errors.push(e);
    }
    vtable::define_vtables(&mut state, &mut mb);
    for guard in std::mem::take(&mut state.guards) {
        mb.module_mut().add_global(guard);
    }
    for (name, sig, nothrow) in std::mem::take(&mut state.address_taken) {
        if let Err(e) = mb.declare_function(&name, sig, nothrow) {
            errors.push(e.to_diagnostic());
        }
    }
    if !errors.is_empty() {
        errors.sort_by_key(|d| d.loc);
        errors.dedup_by(|a, b| a.loc == b.loc && a.message == b.message);
        return Err(errors);
    }
    let mut module = mb.finish().map_err(|e| e.to_diagnostics().0)?;
    for function in module.functions.values_mut() {
        if function.is_declaration()
            && function.loc == Loc::NONE
            && let Some(&loc) = state.callee_locs.get(module.ctx.name(function.name))
        {
            function.loc = loc;
        }
    }
    for (_, decl) in std::mem::take(&mut state.typeinfos) {
        module.add_typeinfo(decl);
    }
    Ok(module)
}
