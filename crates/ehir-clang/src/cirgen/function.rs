//! Functions: CIR signatures (class results through a leading pointer, `this`, class
//! arguments by address), the per-function generator [`FnGen`], bodies of defined
//! functions and implicitly defined special members, and the globals code refers to.

use super::{Pending, R, State, error, loc_of, unsupported};
use crate::ast::Node;
use crate::types::CType;
use ehir_builder::{FunctionBuilder, ModuleBuilder, Value};
use ehir_core::abi::EhAbi;
use ehir_core::{
    AttrData, BinaryOp, CastKind, CleanupKind, Diagnostic, Global, Linkage, Loc, Type,
};
use std::collections::HashMap;

/// A function's CIR signature and what generating calls and bodies needs of it.
#[derive(Clone, Debug)]
pub struct Signature {
    /// The CIR function type.
    pub cir: Type,
    /// The C++ result type.
    pub result: CType,
    /// The C++ parameter types (without `this`).
    pub params: Vec<CType>,
    /// The class of `this`, for non-static member functions.
    pub this_class: Option<String>,
    /// Returns through a leading pointer parameter.
    pub indirect_result: bool,
    /// Calls cannot throw.
    pub nothrow: bool,
    /// Takes `...`.
    pub variadic: bool,
}

/// The function kinds that have `this` (a class's allocation and deallocation
/// functions are static members without being declared so).
fn has_this(decl: &Node) -> bool {
    let allocation = matches!(
        decl.name.as_deref(),
        Some("operator new" | "operator new[]" | "operator delete" | "operator delete[]")
    );
    matches!(
        decl.kind.as_str(),
        "CXXConstructorDecl" | "CXXDestructorDecl" | "CXXConversionDecl"
    ) || (decl.kind == "CXXMethodDecl"
        && decl.storage_class.as_deref() != Some("static")
        && !allocation)
}

/// Whether a definition in the main file is emitted even when nothing here uses it:
/// functions at namespace scope that are not inline, and out-of-line member definitions.
pub fn emitted_without_use(state: &State<'_>, decl: &Node) -> bool {
    let in_class_body = state.index.parent_class.contains_key(decl.id.as_str());
    !in_class_body && !decl.is_inline() && decl.storage_class.as_deref() != Some("static")
        || decl.name.as_deref() == Some("main")
}

/// The linkage of a function definition, as Clang gives it: internal for a `static`
/// function outside a class or one in an anonymous namespace; linkonce_odr (one copy kept at link time) for an inline one
/// (declared `inline` or `constexpr`, defined in its class's body, a template instantiation or an
/// implicitly defined special member); else external.
fn definition_linkage(state: &State<'_>, decl: &Node, pending: Pending<'_>) -> Linkage {
    let in_class_body = state.index.parent_class.contains_key(decl.id.as_str());
    let member = decl.kind != "FunctionDecl";
    if (!member && decl.storage_class.as_deref() == Some("static"))
        || state.index.in_anonymous_namespace(decl)
    {
        Linkage::Internal
    } else if matches!(pending, Pending::Implicit(_))
        || decl.is_inline()
        || in_class_body
        || decl.template_instantiation_pattern.is_some()
    {
        Linkage::LinkOnceOdr
    } else {
        Linkage::External
    }
}

impl<'ast> State<'ast> {
    /// The class a member function belongs to (through its redeclarations).
    pub fn class_of(&self, decl: &Node) -> Option<String> {
        let mut id = Some(decl.id.as_str());
        while let Some(current) = id {
            if let Some(class) = self.index.parent_class.get(current) {
                return Some(class.clone());
            }
            id = self
                .index
                .by_id
                .get(current)
                .and_then(|d| d.previous_decl.as_deref());
        }
        None
    }

    /// The signature of a function declaration.
    pub fn signature(&mut self, ctx: &mut ehir_core::ModuleCtx, decl: &Node) -> R<Signature> {
        let ty = self.node_type(decl)?;
        let Some(function) = ty.function().cloned() else {
            return error(decl, "a function declaration without a function type");
        };
        let this_class = if has_this(decl) {
            match self.class_of(decl) {
                Some(class) => Some(class),
                None => return unsupported(decl, "member function of an unknown class"),
            }
        } else {
            None
        };
        let mut cir = self.function_cir_type(ctx, decl, &function, this_class.as_deref())?;
        if decl.kind == "CXXConstructorDecl"
            && let Some(class) = &this_class
            && self.takes_most_derived_flag(ctx, decl, class)?
        {
            // Microsoft: the "most derived" flag follows the parameters.
            if let Some((mut params, result, variadic)) =
                ctx.types.func_info(cir).map(|(p, r, v)| (p.to_vec(), r, v))
            {
                let mut abi = ctx.types.func_abi(cir).to_vec();
                params.push(ctx.types.common().s32);
                if !abi.is_empty() {
                    abi.push(ehir_core::ParamAbi::Default);
                }
                cir = ctx.types.func_with_abi(params, abi, result, variadic);
            }
        }
        let indirect_result = self.is_class(&function.result);
        let nothrow = function.noexcept;
        Ok(Signature {
            cir,
            result: function.result,
            params: function.params,
            this_class,
            indirect_result,
            nothrow,
            variadic: function.variadic,
        })
    }
}

/// Where a local variable lives.
#[derive(Clone, Copy, Debug)]
pub enum Local {
    /// At this address.
    Address(Value),
    /// A reference: this slot holds the address of the referenced object.
    Reference(Value),
}

/// Generates one function.
pub struct FnGen<'s, 'ast, 'm> {
    /// The generator's state.
    pub st: &'s mut State<'ast>,
    /// The builder of the function.
    pub b: FunctionBuilder<'m>,
    /// Local variables and parameters by declaration id.
    pub locals: HashMap<String, Local>,
    /// The size in bytes (`size_t`) of each variable-length array variable, by
    /// declaration id (`vla.rs`).
    pub variable_arrays: HashMap<String, Value>,
    /// `this`.
    pub this: Option<Value>,
    /// The class of `this`.
    pub this_class: Option<String>,
    /// The result pointer of a function returning a class.
    pub result_ptr: Option<Value>,
    /// The result type.
    pub result: CType,
    /// The function being generated.
    pub decl: &'ast Node,
    /// Lifetime-extended temporaries of the current declaration: address, type.
    pub extended: Vec<(Value, CType)>,
    /// The CIR names of the labels met so far, by declaration id.
    pub labels: HashMap<String, String>,
    /// The base-object variant (C2/D2) of a constructor or destructor of a class with
    /// virtual bases is being generated: it leaves the virtual bases alone.
    pub base_variant: bool,
    /// The VTT the base-object variant received.
    pub vtt: Option<Value>,
    /// The VTT to pass to the base-object constructor of the base subobject being
    /// initialized (set by the constructor's initializers, taken by the construction).
    pub pending_sub_vtt: Option<Value>,
    /// Microsoft: the virtual bases (class, offset) a constructor has built while its
    /// "most derived" flag was tested, whose destruction if what follows throws is
    /// pushed after that test ([`FnGen::complete_object_part`]); `None` outside it.
    pub deferred_virtual_bases: Option<Vec<(String, u64)>>,
}

/// Generates a queued function.
pub fn generate_function<'ast>(
    state: &mut State<'ast>,
    mb: &mut ModuleBuilder,
    pending: Pending<'ast>,
) -> R<()> {
    let (decl, base_variant) = match pending {
        Pending::Defined(decl) | Pending::Implicit(decl) => (decl, false),
        Pending::BaseVariant { decl, .. } => (decl, true),
        Pending::DeletingDestructor(decl) => {
            return super::vtable::generate_deleting_destructor(state, mb, decl);
        }
        Pending::Thunk {
            decl,
            kind,
            adjustment,
        } => {
            return super::vtable::generate_thunk(state, mb, decl, kind, adjustment);
        }
        Pending::GlobalInit(decl) => return generate_global_init(state, mb, decl),
    };
    if decl.kind.contains("Template") {
        return unsupported(decl, "templates");
    }
    let mangled = state.function_symbol(mb.ctx(), decl)?;
    let mut signature = state.signature(mb.ctx(), decl)?;
    let linkage = definition_linkage(state, decl, pending);
    if !base_variant
        && decl.kind == "CXXDestructorDecl"
        && let Some(class) = &signature.this_class
        && state.takes_virtual_base_destructor(mb.ctx(), decl, class)?
    {
        return super::vbtable_msvc::generate_vbase_destructor(state, mb, decl, linkage);
    }
    let mangled = if base_variant {
        signature.cir = state.base_variant_signature(mb.ctx(), signature.cir);
        state.base_variant_name(mb.ctx(), decl, &mangled)?
    } else {
        mangled
    };
    let mut b = mb.function_of_type(&mangled, signature.cir);
    b.func_mut().linkage = linkage;
    // Clang's `nounwind`: the function cannot throw (`noexcept`, `throw()`).
    b.func_mut().nothrow = signature.nothrow;
    let mut generator = FnGen {
        st: state,
        b,
        locals: HashMap::new(),
        variable_arrays: HashMap::new(),
        this: None,
        this_class: signature.this_class.clone(),
        result_ptr: None,
        result: signature.result.clone(),
        decl,
        extended: Vec::new(),
        labels: HashMap::new(),
        base_variant,
        vtt: None,
        pending_sub_vtt: None,
        deferred_virtual_bases: None,
    };
    generator.b.set_loc(loc_of(decl));
    // The parameters' cleanups (by-value class parameters on the Microsoft ABI).
    let parameters = generator.b.cleanup_depth();
    generator.prologue(&signature)?;
    let spec = generator.begin_exception_spec()?;
    match pending {
        Pending::Defined(_)
        | Pending::BaseVariant {
            implicit: false, ..
        } => generator.body()?,
        _ => generator.implicit_body()?,
    }
    generator.end_exception_spec(&spec)?;
    generator.b.pop_cleanups_to(parameters);
    if !generator.b.is_terminated() {
        if generator.result.is_void() || decl.kind == "CXXConstructorDecl" {
            generator.b.emit_return(None);
        } else if decl.name.as_deref() == Some("main") {
            let s32 = generator.b.ctx.types.common().s32;
            let zero = generator.b.const_int(s32, 0);
            generator.b.emit_return(Some(zero));
        } else {
            generator.b.emit_unreachable();
        }
    }
    define_function(generator.b, decl)?;
    define_exit_stubs(state, mb, decl)
}

/// Checks and defines the function `b` builds for `decl`; its first error, if any, is
/// reported (at `decl` when it has no location).
pub(super) fn define_function(b: ehir_builder::FunctionBuilder<'_>, decl: &Node) -> R<()> {
    define_built(b).map_err(|d| relocate(d, decl))
}

/// Checks and defines the function `b` builds; its first error, if any.
fn define_built(mut b: ehir_builder::FunctionBuilder<'_>) -> R<()> {
    b.check().map_err(|e| e.to_diagnostic())?;
    b.define().map_err(|errors| {
        let first = errors.to_diagnostics().0.into_iter().next();
        first.unwrap_or_else(|| Diagnostic::error(Loc::NONE, "the function was not defined"))
    })?;
    Ok(())
}

/// A builder error without a location is reported at the function.
fn relocate(mut d: Diagnostic, decl: &Node) -> Diagnostic {
    if d.loc == Loc::NONE {
        d.loc = loc_of(decl);
    }
    d
}

impl<'ast> FnGen<'_, 'ast, '_> {
    /// Binds `this`, the result pointer and the parameters.
    fn prologue(&mut self, signature: &Signature) -> R<()> {
        let values = self.b.params();
        let mut next = 0;
        let decl_takes_flag = self.decl.kind == "CXXConstructorDecl"
            && match &signature.this_class {
                Some(class) => self
                    .st
                    .takes_most_derived_flag(self.b.ctx, self.decl, class)?,
                None => false,
            };
        if signature.indirect_result {
            self.result_ptr = values.first().copied();
            next += 1;
        }
        if signature.this_class.is_some() {
            self.this = values.get(next).copied();
            next += 1;
            if self.st.abi == ehir_core::abi::EhAbi::Msvc
                && let Some(this) = self.this
            {
                // Microsoft ABI: a virtual function's `this` points to a vftable pointer
                // in the object (`State::msvc_this_offset`).
                let offset = self.st.msvc_this_offset(self.b.ctx, self.decl)?;
                self.this = Some(self.byte_offset(this, -(offset as i64)));
            }
        }
        if self.base_variant && self.st.abi != ehir_core::abi::EhAbi::Msvc {
            self.vtt = values.get(next).copied();
            next += 1;
        }
        if decl_takes_flag {
            // Microsoft: the "most derived" flag, last.
            self.vtt = values.last().copied();
        }
        let decl = self.decl;
        let params: Vec<&Node> = decl
            .children()
            .filter(|c| c.kind == "ParmVarDecl")
            .collect();
        // Microsoft ABI: the callee destroys its by-value class parameters, left to right
        // (their cleanups pushed last to first).
        let mut destroyed_here = Vec::new();
        for (param, ty) in params.iter().zip(&signature.params) {
            let Some(&value) = values.get(next) else {
                return error(param, "parameter count mismatch");
            };
            next += 1;
            let local = if self.st.is_class(ty) {
                if self.st.abi == ehir_core::abi::EhAbi::Msvc {
                    destroyed_here.push((ty, value));
                }
                Local::Address(value)
            } else {
                let cir = self.b.value_type(value);
                let name = param.name.clone().unwrap_or_default();
                let (_, align) = self.st.size_align(self.b.ctx, param, ty)?;
                let slot = self.b.alloca(cir, &name, true, align as u16);
                self.b.store(value, slot, align as u16);
                if ty.is_reference() {
                    Local::Reference(slot)
                } else {
                    Local::Address(slot)
                }
            };
            self.locals.insert(param.id.clone(), local);
        }
        for (ty, address) in destroyed_here.into_iter().rev() {
            self.push_destroy(CleanupKind::All, ty, address)?;
        }
        Ok(())
    }

    /// The body of a function with a definition.
    fn body(&mut self) -> R<()> {
        let decl = self.decl;
        let Some(body) = decl
            .children()
            .find(|c| c.kind == "CompoundStmt" || c.kind == "CXXTryStmt")
        else {
            return error(decl, "a function without a body");
        };
        let is_ctor = decl.kind == "CXXConstructorDecl";
        let is_dtor = decl.kind == "CXXDestructorDecl";
        if body.kind == "CXXTryStmt" {
            // A function-try-block: the initializers are inside the try.
            return self.function_try_block(body, is_ctor, is_dtor);
        }
        let depth = self.b.cleanup_depth();
        if is_ctor {
            self.constructor_initializers()?;
        }
        if is_dtor {
            self.push_member_destruction()?;
        }
        self.stmt(body)?;
        self.b.pop_cleanups_to(depth);
        Ok(())
    }

    /// The body of an implicitly defined special member.
    fn implicit_body(&mut self) -> R<()> {
        let decl = self.decl;
        let depth = self.b.cleanup_depth();
        match decl.kind.as_str() {
            "CXXDestructorDecl" => {
                self.push_member_destruction()?;
            }
            "CXXConstructorDecl" => {
                let params: Vec<&Node> = decl
                    .children()
                    .filter(|c| c.kind == "ParmVarDecl")
                    .collect();
                match params.as_slice() {
                    [] => self.constructor_initializers()?,
                    [source] => self.memberwise_copy(source, false)?,
                    _ => return unsupported(decl, "implicit constructor with parameters"),
                }
            }
            "CXXMethodDecl" if decl.name.as_deref() == Some("operator=") => {
                let params: Vec<&Node> = decl
                    .children()
                    .filter(|c| c.kind == "ParmVarDecl")
                    .collect();
                let [source] = params.as_slice() else {
                    return unsupported(decl, "implicit assignment operator");
                };
                self.memberwise_copy(source, true)?;
                let this = self.this_value(decl)?;
                self.b.pop_cleanups_to(depth);
                self.b.emit_return(Some(this));
                return Ok(());
            }
            _ => return unsupported(decl, format!("implicit '{}'", decl.kind)),
        }
        self.b.pop_cleanups_to(depth);
        Ok(())
    }

    /// `this`, or an error at `node`.
    pub fn this_value(&self, node: &Node) -> R<Value> {
        match self.this {
            Some(this) => Ok(this),
            None => error(node, "'this' outside a member function"),
        }
    }

    /// Pushes the destruction of the members (in reverse order), bases and (in the
    /// complete-object variant) virtual bases of `this` class as cleanups that run when
    /// the destructor's body is left.
    pub fn push_member_destruction(&mut self) -> R<()> {
        let decl = self.decl;
        let Some(class) = self.this_class.clone() else {
            return error(decl, "a destructor outside a class");
        };
        let this = self.this_value(decl)?;
        // The body sees the object as of this class (its virtual calls go here).
        self.store_vptr(decl, &class, this)?;
        let layout = self.st.layout(self.b.ctx, decl, &class)?;
        let mut bases: Vec<(String, u64)> = Vec::new();
        if !self.base_variant {
            bases.extend(
                layout
                    .virtual_bases
                    .iter()
                    .map(|v| (v.name.clone(), v.offset)),
            );
        }
        bases.extend(layout.bases.iter().map(|b| (b.name.clone(), b.offset)));
        for (base, offset) in bases {
            let base_layout = self.st.layout(self.b.ctx, decl, &base)?;
            let address = self
                .b
                .base_class_addr(this, base_layout.cir, offset as u32, true);
            let sub_vtt = if base_layout.virtual_bases.is_empty() {
                None
            } else {
                Some(self.sub_vtt(decl, &base, offset)?)
            };
            self.push_base_destroy(CleanupKind::All, &base, address, sub_vtt)?;
        }
        for field in &layout.fields {
            let field_ty = self.st.cir_type(self.b.ctx, decl, &field.ty)?;
            let address = self.b.get_member(this, field.index, &field.name, field_ty);
            self.push_destroy(CleanupKind::All, &field.ty, address)?;
        }
        Ok(())
    }
}

/// Defines the globals generated code refers to, and static locals, that are not
/// defined yet.
pub fn define_globals(
    state: &mut State<'_>,
    mb: &mut ModuleBuilder,
) -> Result<(), Vec<Diagnostic>> {
    let mut errors = Vec::new();
    loop {
        let (globals_done, statics_done) = state.defined_globals;
        let next = if globals_done < state.global_order.len() {
            state.defined_globals.0 += 1;
            let symbol = state.global_order[globals_done].clone();
            let decl = state.globals[&symbol];
            (symbol, decl, false)
        } else if statics_done < state.static_locals.len() {
            state.defined_globals.1 += 1;
            let (symbol, decl) = state.static_locals[statics_done].clone();
            (symbol, decl, true)
        } else {
            break;
        };
        let (symbol, decl, internal) = next;
        match global(state, mb, &symbol, decl, internal) {
            Ok(global) => {
                mb.module_mut().add_global(global);
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn global<'ast>(
    state: &mut State<'ast>,
    mb: &mut ModuleBuilder,
    symbol: &str,
    decl: &'ast Node,
    internal: bool,
) -> R<Global> {
    let ty = state.node_type(decl)?;
    let cir = state.cir_type(mb.ctx(), decl, &ty)?;
    let (_, align) = state.size_align(mb.ctx(), decl, &ty)?;
    let external = decl.storage_class.as_deref() == Some("extern") && decl.initializer().is_none();
    let init = if external {
        None
    } else {
        let (value, dynamic) = match decl.initializer() {
            None => (Some(AttrData::Zero(cir)), false),
            // A value known before the program runs (one Clang's constant evaluator
            // folds included), or else a dynamic initialization.
            Some(init) => match constant_initializer(state, mb, init, cir)? {
                Some(value) => (Some(value), false),
                None => (None, !is_constant_initializer(state, init)),
            },
        };
        match value {
            Some(attr) => Some(mb.ctx().attrs.intern(attr)),
            // A static local's code took its initializer for a constant.
            None if internal && !dynamic => {
                return unsupported(decl, "a static local with this initializer");
            }
            None => {
                // Zero until its initialization runs: a static local's on the first pass
                // through its declaration (guarded), a global's before `main`.
                if !internal {
                    let function = format!("__cxx_global_var_init.{}", state.dynamic_inits.len());
                    state.dynamic_inits.push((decl, function.clone()));
                    state.enqueue(&function, Pending::GlobalInit(decl));
                }
                Some(mb.ctx().attrs.intern(AttrData::Zero(cir)))
            }
        }
    };
    let name = mb.ctx().sym(symbol);
    // Internal as C++ gives it: `static` outside a class, a `const` object at namespace
    // scope that is neither `extern` nor `inline` (a static data member is external),
    // anything in an anonymous namespace.
    let member = state.class_of(decl).is_some();
    let mut object = &ty;
    while let CType::Array(element, _) = object {
        object = element;
    }
    let const_object = matches!(object, CType::Const(_))
        && decl.storage_class.as_deref() != Some("extern")
        && !decl.inline;
    let linkage = if internal
        || (!member && (decl.storage_class.as_deref() == Some("static") || const_object))
        || state.index.in_anonymous_namespace(decl)
    {
        Linkage::Internal
    } else {
        Linkage::External
    };
    Ok(Global {
        name,
        ty: cir,
        init,
        constant: false,
        linkage,
        private_visibility: false,
        align: Some(align as u32),
        loc: loc_of(decl),
    })
}

/// Whether an initializer has a value known before the program runs (which
/// [`constant_initializer`] then gives): a literal or a value Clang folded, a string
/// literal, a null pointer, the address of a function or global, an array of those.
/// Anything else is initialized when the program runs.
pub fn is_constant_initializer(state: &mut State<'_>, init: &Node) -> bool {
    if init.kind == "InitListExpr" {
        let is_array = init
            .ty
            .as_ref()
            .and_then(|t| crate::types::parse_type(t.canonical()))
            .is_some_and(|t| matches!(t.unqualified(), CType::Array(..)));
        let (filler, elements) = init.init_list_parts();
        return is_array
            && filler.into_iter().chain(elements).all(|item| {
                item.kind == "ImplicitValueInitExpr" || is_constant_initializer(state, item)
            });
    }
    let mut node = init;
    loop {
        match node.kind.as_str() {
            "ImplicitCastExpr" | "CStyleCastExpr"
                if node.cast_kind.as_deref() == Some("NullToMemberPointer") =>
            {
                return true;
            }
            "ImplicitCastExpr" | "ConstantExpr" | "ParenExpr" | "CStyleCastExpr"
                if node.value.is_none() =>
            {
                match node.children().next() {
                    Some(inner) => node = inner,
                    None => return false,
                }
            }
            "UnaryOperator" if node.opcode.as_deref() == Some("&") => {
                match node.children().next() {
                    Some(inner) => node = inner,
                    None => return false,
                }
            }
            _ => break,
        }
    }
    if node.kind == "DeclRefExpr" {
        return state
            .index
            .referenced(node.referenced_decl.as_ref())
            .is_some_and(|target| {
                target.mangled_name.is_some()
                    && matches!(
                        target.kind.as_str(),
                        "FunctionDecl" | "VarDecl" | "CXXMethodDecl"
                    )
            });
    }
    matches!(
        node.kind.as_str(),
        "StringLiteral" | "CXXNullPtrLiteralExpr" | "GNUNullExpr"
    ) || node.value_text().is_some()
}

/// The function that runs before `main` (`_GLOBAL__sub_I`, a `global_ctor`): the
/// dynamic initializations of the globals, in the order the translation unit declares
/// them.
pub fn define_global_constructor(state: &mut State<'_>, mb: &mut ModuleBuilder) -> R<()> {
    if state.dynamic_inits.is_empty() {
        return Ok(());
    }
    let mut inits = state.dynamic_inits.clone();
    inits.sort_by_key(|(decl, _)| {
        state
            .index
            .globals
            .iter()
            .position(|g| g.id == decl.id)
            .unwrap_or(usize::MAX)
    });
    let sig = mb.ctx().types.func(vec![], None, false);
    let mut b = mb.function("_GLOBAL__sub_I", sig, &[]);
    b.func_mut().linkage = Linkage::Internal;
    b.func_mut().global_ctor = Some(ehir_core::function::DEFAULT_GLOBAL_CTOR_PRIORITY);
    for (_, function) in &inits {
        b.call_named(function, sig, &[], super::expr::call_flags(false));
    }
    b.emit_return(None);
    define_built(b)?;
    Ok(())
}

/// Generates the dynamic initialization of global `decl` (`__cxx_global_var_init.N`).
fn generate_global_init<'ast>(
    state: &mut State<'ast>,
    mb: &mut ModuleBuilder,
    decl: &'ast Node,
) -> R<()> {
    let Some((_, name)) = state
        .dynamic_inits
        .iter()
        .find(|(d, _)| d.id == decl.id)
        .cloned()
    else {
        return error(decl, "a global initializer not registered");
    };
    let Some(symbol) = decl.mangled_name.clone() else {
        return error(decl, "a global without a mangled name");
    };
    let Some(init) = decl.initializer() else {
        return error(decl, "a global initializer without an initializer");
    };
    let sig = mb.ctx().types.func(vec![], None, false);
    let b = mb.function(&name, sig, &[]);
    let mut generator = FnGen {
        st: state,
        b,
        locals: HashMap::new(),
        variable_arrays: HashMap::new(),
        this: None,
        this_class: None,
        result_ptr: None,
        result: CType::Builtin(crate::types::Builtin::Void),
        decl,
        extended: Vec::new(),
        labels: HashMap::new(),
        base_variant: false,
        vtt: None,
        pending_sub_vtt: None,
        deferred_virtual_bases: None,
    };
    generator.b.func_mut().linkage = Linkage::Internal;
    generator.b.set_loc(loc_of(decl));
    let ty = generator.st.node_type(decl)?;
    if ty.is_reference() {
        return unsupported(decl, "a global reference with a dynamic initializer");
    }
    let cir = generator.cir(decl, &ty)?;
    let global = generator.b.ctx.sym(&symbol);
    let address = generator.b.get_global(global, cir);
    generator.init_into(init, address, true)?;
    generator.register_destruction_at_exit(decl, &ty, address)?;
    generator.b.emit_return(None);
    define_function(generator.b, decl)?;
    define_exit_stubs(state, mb, decl)
}

/// Microsoft ABI: defines the functions `atexit` is to run that the function just
/// generated registers (`State::exit_stubs`), located at `decl`.
fn define_exit_stubs(state: &mut State<'_>, mb: &mut ModuleBuilder, decl: &Node) -> R<()> {
    for (name, global, ty, dtor) in std::mem::take(&mut state.exit_stubs) {
        // `void ??__Fg@@YAXXZ()`: destroys global `g`.
        let sig = mb.ctx().types.func(vec![], None, false);
        let mut b = mb.function(&name, sig, &[]);
        b.func_mut().linkage = Linkage::Internal;
        b.set_loc(loc_of(decl));
        let symbol = b.ctx.sym(&global);
        let object = b.get_global(symbol, ty);
        let dtor_name = b.ctx.name(dtor.symbol).to_string();
        b.call_named(
            &dtor_name,
            dtor.sig,
            &[object],
            super::expr::call_flags(dtor.nothrow),
        );
        b.emit_return(None);
        define_function(b, decl)?;
    }
    Ok(())
}

/// The name of the function the Microsoft ABI registers with `atexit` to destroy global
/// `global` (`?g@@3UT@@A` → `??__Fg@@YAXXZ`), as Clang for Windows names it. For a static
/// local, `enclosing` is the symbol of its function, whose mangling ends the static's
/// scope (`?s@?1??f@@YAHXZ@4UT@@A` in `?f@@YAHXZ` → `??__Fs@?1??f@@YAHXZ@YAXXZ`; a
/// function of C linkage, `main`, is scoped as `?main@@9`); a static local whose name
/// does not hold that scope gets a name of ehir's own.
fn msvc_exit_stub_name(global: &str, enclosing: Option<&str>) -> String {
    let name = global.strip_prefix('?').unwrap_or(global);
    let Some(function) = enclosing else {
        let name = name.split("@@").next().unwrap_or(name);
        return format!("??__F{name}@@YAXXZ");
    };
    let scope = match function.strip_prefix('?') {
        Some(_) => format!("{function}@"),
        None => format!("?{function}@@9@"),
    };
    match name.find(&scope) {
        Some(start) => format!("??__F{}YAXXZ", &name[..start + scope.len()]),
        None => format!("ehir.exit.{global}"),
    }
}

impl<'ast> FnGen<'_, 'ast, '_> {
    /// Registers the destruction of the object of static storage of type `ty` at
    /// `address` with `__cxa_atexit` (nothing when its destruction is trivial).
    pub fn register_destruction_at_exit(
        &mut self,
        node: &Node,
        ty: &CType,
        address: Value,
    ) -> R<()> {
        let Some(class) = ty.name().map(str::to_string) else {
            if let CType::Array(..) = ty.unqualified()
                && self.st.is_class(ty.non_reference())
            {
                return unsupported(node, "an array of classes with static storage");
            }
            return Ok(());
        };
        let Some(dtor) = self.st.destructor(self.b.ctx, node, &class)? else {
            return Ok(());
        };
        let common = *self.b.ctx.types.common();
        if self.st.abi == EhAbi::Msvc {
            // `atexit` of a function that destroys the global.
            let Some(global) = node.mangled_name.clone() else {
                return error(node, "a global without a mangled name");
            };
            let is_static_local = self.st.static_locals.iter().any(|(s, _)| *s == global);
            let enclosing = is_static_local.then(|| self.b.ctx.name(self.b.func().name));
            let stub = msvc_exit_stub_name(&global, enclosing);
            let ty = self.cir(node, ty)?;
            self.st.exit_stubs.push((stub.clone(), global, ty, dtor));
            let stub_sig = self.b.ctx.types.func(vec![], None, false);
            let stub_symbol = self.b.ctx.sym(&stub);
            let function = self.b.get_global(stub_symbol, stub_sig);
            let stub_ptr = self.b.ctx.types.ptr(stub_sig);
            let function = self.b.cast(CastKind::Bitcast, function, stub_ptr);
            let sig = self
                .b
                .ctx
                .types
                .func(vec![stub_ptr], Some(common.s32), false);
            self.b
                .call_named("atexit", sig, &[function], super::expr::call_flags(true));
            return Ok(());
        }
        let name = self.b.ctx.name(dtor.symbol).to_string();
        self.st.address_taken.push((name, dtor.sig, dtor.nothrow));
        let function = self.b.get_global(dtor.symbol, dtor.sig);
        let exit_fn = self.b.ctx.types.func(vec![common.void_ptr], None, false);
        let exit_fn_ptr = self.b.ctx.types.ptr(exit_fn);
        let function = self.b.cast(CastKind::Bitcast, function, exit_fn_ptr);
        let object = self.b.cast(CastKind::Bitcast, address, common.void_ptr);
        let dso = self.dso_handle();
        let sig = self.b.ctx.types.func(
            vec![exit_fn_ptr, common.void_ptr, common.void_ptr],
            Some(common.s32),
            false,
        );
        self.b.call_named(
            "__cxa_atexit",
            sig,
            &[function, object, dso],
            super::expr::call_flags(true),
        );
        Ok(())
    }

    /// The address of `__dso_handle`, which identifies this module to `__cxa_atexit`.
    fn dso_handle(&mut self) -> Value {
        let u8_ty = self.b.ctx.types.common().u8;
        let symbol = self.b.ctx.sym("__dso_handle");
        if !self.st.guards.iter().any(|g| g.name == symbol) {
            self.st.guards.push(Global {
                name: symbol,
                ty: u8_ty,
                init: None,
                constant: false,
                linkage: Linkage::External,
                private_visibility: false,
                align: None,
                loc: Loc::NONE,
            });
        }
        let address = self.b.get_global(symbol, u8_ty);
        let void_ptr = self.b.ctx.types.common().void_ptr;
        self.b.cast(CastKind::Bitcast, address, void_ptr)
    }

    /// The guard variable `name` of a static local (internal, zero-initialized, of type
    /// `ty`), defined once; its address.
    fn static_guard(&mut self, name: &str, ty: Type, align: u32) -> Value {
        let guard_symbol = self.b.ctx.sym(name);
        if !self.st.guards.iter().any(|g| g.name == guard_symbol) {
            let zero = self.b.ctx.attrs.intern(AttrData::Zero(ty));
            self.st.guards.push(Global {
                name: guard_symbol,
                ty,
                init: Some(zero),
                constant: false,
                linkage: Linkage::Internal,
                private_visibility: false,
                align: Some(align),
                loc: Loc::NONE,
            });
        }
        self.b.get_global(guard_symbol, ty)
    }

    /// The guarded first initialization of static local `var` at `address`: done
    /// once, unless it throws (then the next pass tries again), its destruction then
    /// registered at exit. How the guard is tested, claimed and given back on a throw
    /// is the ABI's: [`FnGen::itanium_static_guard`], [`FnGen::msvc_static_guard`].
    pub fn guarded_static_init(
        &mut self,
        var: &'ast Node,
        symbol: &str,
        ty: &CType,
        address: Value,
        init: &'ast Node,
    ) -> R<()> {
        let (guard, give_back) = match self.st.abi {
            EhAbi::Msvc => self.msvc_static_guard(symbol),
            EhAbi::Itanium => self.itanium_static_guard(var, symbol)?,
        };
        self.init_into(init, address, true)?;
        self.register_destruction_at_exit(var, ty, address)?;
        self.b.deactivate_cleanup(give_back);
        if let ClaimedGuard::Itanium(guard_ptr) = guard {
            let common = *self.b.ctx.types.common();
            let release_sig = self.b.ctx.types.func(vec![common.void_ptr], None, false);
            let flags = super::expr::call_flags(true);
            self.b
                .call_named("__cxa_guard_release", release_sig, &[guard_ptr], flags);
            self.b.end_if();
        }
        self.b.end_if();
        Ok(())
    }

    /// Itanium: tests the first byte of the 64-bit guard variable (`_ZGV...`) of static
    /// local `symbol`, then claims it with `__cxa_guard_acquire`; inside both `if`s,
    /// with an EH cleanup that gives it back (`__cxa_guard_abort`).
    fn itanium_static_guard(
        &mut self,
        var: &Node,
        symbol: &str,
    ) -> R<(ClaimedGuard, ehir_builder::CleanupHandle)> {
        let Some(encoding) = symbol.strip_prefix("_Z") else {
            return unsupported(var, format!("a guard for '{symbol}'"));
        };
        let common = *self.b.ctx.types.common();
        let guard = self.static_guard(&format!("_ZGV{encoding}"), common.s64, 8);
        let u8_ptr = self.b.ctx.types.ptr(common.u8);
        let first_byte = self.b.cast(CastKind::Bitcast, guard, u8_ptr);
        let done = self.b.load(first_byte, 1);
        let zero = self.b.const_int(common.u8, 0);
        let not_done = self.b.cmp(ehir_core::CmpPredicate::Eq, done, zero);
        self.b.begin_if(not_done, false);
        let guard_ptr = self.b.cast(CastKind::Bitcast, guard, common.void_ptr);
        let acquire_sig = self
            .b
            .ctx
            .types
            .func(vec![common.void_ptr], Some(common.s32), false);
        let flags = super::expr::call_flags(true);
        let acquired = self
            .b
            .call_named("__cxa_guard_acquire", acquire_sig, &[guard_ptr], flags);
        let Some(acquired) = acquired else {
            return error(var, "__cxa_guard_acquire without a result");
        };
        let zero = self.b.const_int(common.s32, 0);
        let ours = self.b.cmp(ehir_core::CmpPredicate::Ne, acquired, zero);
        self.b.begin_if(ours, false);
        let release_sig = self.b.ctx.types.func(vec![common.void_ptr], None, false);
        let abort = self.b.push_cleanup(CleanupKind::Eh, move |b| {
            b.call_named("__cxa_guard_abort", release_sig, &[guard_ptr], flags);
        });
        Ok((ClaimedGuard::Itanium(guard_ptr), abort))
    }

    /// Microsoft: the form of Clang for Windows with `-fno-threadsafe-statics`. Bit 1 of
    /// a 32-bit guard is tested; inside the `if` (clear), it is set, with an EH cleanup
    /// that clears it again, so that the pass after a throwing initializer retries.
    ///
    /// Not Clang's default thread-safe form (`_Init_thread_header`/`_footer`/`_abort`
    /// and the TLS `_Init_thread_epoch`): those live in the static vcruntime, which
    /// msvcrt.dll (Microsoft's and wine's) does not export, and the Clang-for-Windows
    /// oracle builds with `-fno-threadsafe-statics` for that reason; single-threaded,
    /// both behave alike. Clang shares one guard among the statics of a scope (a bit
    /// each, named `?$S1@…`); the guard is internal, so ehir gives each static its own,
    /// `ehir.guard.SYMBOL`.
    fn msvc_static_guard(&mut self, symbol: &str) -> (ClaimedGuard, ehir_builder::CleanupHandle) {
        let u32_ty = self.b.ctx.types.common().u32;
        let guard = self.static_guard(&format!("ehir.guard.{symbol}"), u32_ty, 4);
        let bits = self.b.load(guard, 4);
        let initialized_bit = self.b.const_int(u32_ty, 1);
        let initialized = self.b.binop(BinaryOp::And, bits, initialized_bit);
        let zero = self.b.const_int(u32_ty, 0);
        let not_done = self.b.cmp(ehir_core::CmpPredicate::Eq, initialized, zero);
        self.b.begin_if(not_done, false);
        let set = self.b.binop(BinaryOp::Or, bits, initialized_bit);
        self.b.store(set, guard, 4);
        let reset = self.b.push_cleanup(CleanupKind::Eh, move |b| {
            let bits = b.load(guard, 4);
            let others = b.const_int(u32_ty, i128::from(!1u32));
            let cleared = b.binop(BinaryOp::And, bits, others);
            b.store(cleared, guard, 4);
        });
        (ClaimedGuard::Microsoft, reset)
    }
}

/// A static local's guard, claimed for its initialization (see
/// [`FnGen::guarded_static_init`]).
enum ClaimedGuard {
    /// Itanium: the guard variable (as `void *`), to release with `__cxa_guard_release`
    /// once initialized; two `if`s are open.
    Itanium(Value),
    /// Microsoft: already set; one `if` is open.
    Microsoft,
}

/// The constant value of an initializer: scalars Clang's constant evaluator folds
/// ([`State::fold_constant`]), null pointers, string literals (as pointers or char
/// arrays), addresses of globals and functions, arrays of those.
fn constant_initializer<'ast>(
    state: &mut State<'ast>,
    mb: &mut ModuleBuilder,
    init: &'ast Node,
    ty: Type,
) -> R<Option<AttrData>> {
    if init.kind == "InitListExpr" {
        let (element, length) = match mb.ctx().types.get(ty) {
            ehir_core::TypeData::Array(element, length) => (*element, *length),
            _ => return Ok(None),
        };
        let (filler, elements) = init.init_list_parts();
        let mut items = Vec::new();
        for index in 0..length as usize {
            let value = match elements.get(index).copied().or(filler) {
                Some(item) if item.kind == "ImplicitValueInitExpr" => Some(AttrData::Zero(element)),
                Some(item) => constant_initializer(state, mb, item, element)?,
                None => Some(AttrData::Zero(element)),
            };
            let Some(value) = value else {
                return Ok(None);
            };
            items.push(mb.ctx().attrs.intern(value));
        }
        return Ok(Some(AttrData::ConstArray {
            elements: ehir_core::ConstArrayElements::Attrs(items),
            ty,
            trailing_zeros: false,
        }));
    }
    // A scalar Clang's constant evaluator folds.
    if let Some(value) = state.fold_constant(mb.ctx(), init)? {
        return Ok(value.attr(mb.ctx(), ty));
    }
    let mut node = init;
    loop {
        match node.kind.as_str() {
            // A null pointer to data member is -1.
            "ImplicitCastExpr" | "CStyleCastExpr"
                if node.cast_kind.as_deref() == Some("NullToMemberPointer")
                    && mb.ctx().types.int_info(ty).is_some() =>
            {
                return Ok(Some(AttrData::Int { value: -1, ty }));
            }
            // A load is not an address.
            "ImplicitCastExpr" if node.cast_kind.as_deref() == Some("LValueToRValue") => {
                return Ok(None);
            }
            "ImplicitCastExpr" | "ConstantExpr" | "ParenExpr" | "CStyleCastExpr"
                if node.value.is_none() =>
            {
                match node.children().next() {
                    Some(inner) => node = inner,
                    None => return Ok(None),
                }
            }
            "UnaryOperator" if node.opcode.as_deref() == Some("&") => {
                match node.children().next() {
                    Some(inner) => node = inner,
                    None => return Ok(None),
                }
            }
            _ => break,
        }
    }
    if node.kind == "DeclRefExpr"
        && let Some(target) = state.index.referenced(node.referenced_decl.as_ref())
    {
        // The address of a function or of a global.
        let Some(symbol) = target.mangled_name.clone() else {
            return Ok(None);
        };
        match target.kind.as_str() {
            // `&C::f`: a pointer to member function, `{ptr, 0}`.
            "CXXMethodDecl"
                if matches!(mb.ctx().types.get(ty), ehir_core::TypeData::Array(_, 2)) =>
            {
                let word = state.member_function_word(mb.ctx(), target)?;
                let void_ptr = mb.ctx().types.common().void_ptr;
                let items = vec![
                    mb.ctx().attrs.intern(word),
                    mb.ctx().attrs.intern(AttrData::Null(void_ptr)),
                ];
                return Ok(Some(AttrData::ConstArray {
                    elements: ehir_core::ConstArrayElements::Attrs(items),
                    ty,
                    trailing_zeros: false,
                }));
            }
            "FunctionDecl" | "CXXMethodDecl" => {
                let callee = state.callee(mb.ctx(), target)?;
                state
                    .address_taken
                    .push((symbol.clone(), callee.sig, callee.nothrow));
            }
            "VarDecl" => {
                if !state.globals.contains_key(&symbol) {
                    state.globals.insert(symbol.clone(), target);
                    state.global_order.push(symbol.clone());
                }
            }
            _ => return Ok(None),
        }
        let symbol = mb.ctx().sym(&symbol);
        return Ok(Some(AttrData::GlobalView {
            symbol,
            indices: vec![],
            ty: Some(ty),
        }));
    }
    if node.kind == "StringLiteral" {
        let Some(bytes) = node
            .value_text()
            .and_then(|t| super::expr::unescape_string_literal(&t))
        else {
            return Ok(None);
        };
        if mb.ctx().types.is_ptr(ty) {
            let (symbol, _) = mb.string_literal(&bytes);
            return Ok(Some(AttrData::GlobalView {
                symbol,
                indices: vec![],
                ty: Some(ty),
            }));
        }
        let mut with_nul = bytes;
        if let ehir_core::TypeData::Array(_, n) = mb.ctx().types.get(ty) {
            with_nul.resize(*n as usize, 0);
        }
        return Ok(Some(AttrData::ConstArray {
            elements: ehir_core::ConstArrayElements::Bytes(with_nul),
            ty,
            trailing_zeros: false,
        }));
    }
    if node.kind == "CXXConstructExpr"
        && node.children().next().is_none()
        && trivially_default_constructed(state, node)?
    {
        // A class (or array of them) whose default constructor is trivial: static
        // storage is zero-initialized and no constructor runs.
        return Ok(Some(AttrData::Zero(ty)));
    }
    Ok(None)
}

/// Whether the `CXXConstructExpr` `node` default-constructs a class (or an array of a
/// class) whose default constructor is trivial.
fn trivially_default_constructed(state: &mut State<'_>, node: &Node) -> R<bool> {
    let mut ty = state.node_type(node)?;
    while let CType::Array(element, _) = ty {
        ty = *element;
    }
    let CType::Named(class) = ty.unqualified() else {
        return Ok(false);
    };
    let class_node = state.class_node(node, class)?;
    Ok(class_node
        .definition_data
        .as_ref()
        .is_some_and(|data| data.default_ctor.trivial))
}

#[cfg(test)]
mod tests {
    use super::msvc_exit_stub_name;

    #[test]
    fn exit_stubs_are_named_as_clang_for_windows_names_them() {
        assert_eq!(msvc_exit_stub_name("?g@@3UT@@A", None), "??__Fg@@YAXXZ");
        assert_eq!(
            msvc_exit_stub_name(
                "?config@?1??config_value@@YAHXZ@4UConfig@@A",
                Some("?config_value@@YAHXZ")
            ),
            "??__Fconfig@?1??config_value@@YAHXZ@YAXXZ"
        );
        // Functions of C linkage are scoped as `?NAME@@9`.
        assert_eq!(
            msvc_exit_stub_name("?late@?2??main@@9@4UT@@A", Some("main")),
            "??__Flate@?2??main@@9@YAXXZ"
        );
        // Overloads keep their statics' stubs apart.
        assert_ne!(
            msvc_exit_stub_name("?s@?1??f@@YAHXZ@4UT@@A", Some("?f@@YAHXZ")),
            msvc_exit_stub_name("?s@?1??f@@YAHH@Z@4UT@@A", Some("?f@@YAHH@Z"))
        );
        // A static whose name does not hold the scope gets a name of ehir's own.
        assert_eq!(
            msvc_exit_stub_name("?s@?1??g@@YAHXZ@4UT@@A", Some("?f@@YAHXZ")),
            "ehir.exit.?s@?1??g@@YAHXZ@4UT@@A"
        );
    }
}
