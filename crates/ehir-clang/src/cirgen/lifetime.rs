//! Object lifetime: destruction as cleanups (variables, temporaries, subobjects, array
//! elements), constructor initializer lists, implicitly defined copy constructors and
//! assignments, `new` and `delete`.

use super::class::{ClassLayout, FieldLayout, call_function};
use super::function::{FnGen, Local};
use super::{R, error, unsupported};
use crate::ast::Node;
use crate::types::CType;
use ehir_builder::Value;
use ehir_core::{CastKind, CleanupKind};

impl<'ast> FnGen<'_, 'ast, '_> {
    /// Pushes a cleanup that destroys the object of type `ty` at `address` (nothing for
    /// types with trivial destruction). Arrays are destroyed last element first.
    pub fn push_destroy(&mut self, kind: CleanupKind, ty: &CType, address: Value) -> R<()> {
        self.push_destroy_handle(kind, ty, address).map(|_| ())
    }

    /// As [`Self::push_destroy`], returning the cleanup (`None` for a type without a
    /// destructor) so that it can be deactivated.
    pub fn push_destroy_handle(
        &mut self,
        kind: CleanupKind,
        ty: &CType,
        address: Value,
    ) -> R<Option<ehir_builder::CleanupHandle>> {
        let Some((callee, count, element_cir)) = self.destruction(ty)? else {
            return Ok(None);
        };
        Ok(Some(self.b.push_cleanup(kind, move |b| {
            destroy_elements(b, callee, address, count, element_cir);
        })))
    }

    /// Registers the destruction of a temporary at the end of its full expression.
    pub fn push_destroy_temporary(&mut self, e: &Node, ty: &CType, address: Value) -> R<()> {
        let _ = e;
        let Some((callee, count, element_cir)) = self.destruction(ty)? else {
            return Ok(());
        };
        self.b.push_temporary_cleanup(CleanupKind::All, move |b| {
            destroy_elements(b, callee, address, count, element_cir);
        });
        Ok(())
    }

    /// The destructor to run for a type, how many elements (arrays), and the element's
    /// CIR type for arrays.
    fn destruction(&mut self, ty: &CType) -> R<Option<Destruction>> {
        let decl = self.decl;
        let (class, count, element) = match ty.unqualified() {
            CType::Named(class) => (class.clone(), None, None),
            CType::Array(element, n) => {
                let mut inner = element.as_ref();
                let mut total = n.unwrap_or(0);
                while let CType::Array(e, m) = inner.unqualified() {
                    inner = e;
                    total *= m.unwrap_or(0);
                }
                match inner.unqualified() {
                    CType::Named(class) => {
                        let cir = self.cir(decl, inner)?;
                        (class.clone(), Some(total), Some(cir))
                    }
                    _ => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        let Some(callee) = self.st.destructor(self.b.ctx, decl, &class)? else {
            return Ok(None);
        };
        Ok(Some((callee, count, element)))
    }

    /// Runs the member initializers of the constructor being generated (virtual bases in
    /// the complete-object variant, then bases, then members), each subobject destroyed
    /// if a later one throws; a delegating constructor runs its target instead.
    pub fn constructor_initializers(&mut self) -> R<()> {
        let decl = self.decl;
        let Some(class) = self.this_class.clone() else {
            return error(decl, "a constructor outside a class");
        };
        let this = self.this_value(decl)?;
        let layout = self.st.layout(self.b.ctx, decl, &class)?;
        let initializers: Vec<&'ast Node> = decl
            .children()
            .filter(|c| c.kind == "CXXCtorInitializer")
            .collect();
        if initializers.is_empty() && decl.is_implicit {
            return self.implicit_default_construction(&class);
        }
        if let [init] = initializers.as_slice()
            && init.base_init.is_none()
            && init.any_init.is_none()
        {
            return self.delegating_construction(init, &class, this);
        }
        // The base class an initializer names, and whether it is a virtual base.
        let base_of = |this_gen: &mut Self, init: &'ast Node| -> R<Option<(String, bool)>> {
            let Some(base) = &init.base_init else {
                return Ok(None);
            };
            let base_ty = this_gen.st.parse(init, base.canonical())?;
            let Some(base_name) = base_ty.name().map(str::to_string) else {
                return unsupported(init, "initializer of a non-class base");
            };
            let name = this_gen
                .st
                .layout(this_gen.b.ctx, init, &base_name)?
                .name
                .clone();
            let is_virtual = layout.virtual_bases.iter().any(|v| v.name == name)
                && !layout.bases.iter().any(|b| b.name == name);
            Ok(Some((name, is_virtual)))
        };
        let mut virtual_bases = Vec::new();
        for virtual_base in &layout.virtual_bases {
            let mut written = None;
            for &init in &initializers {
                if base_of(self, init)?.is_some_and(|(n, v)| v && n == virtual_base.name) {
                    written = Some(init);
                }
            }
            virtual_bases.push((virtual_base, written.and_then(|i| i.children().next())));
        }
        self.complete_object_part(decl, &class, |this_gen| {
            for (virtual_base, initializer) in virtual_bases {
                this_gen.construct_base(
                    decl,
                    &virtual_base.name,
                    virtual_base.offset,
                    initializer,
                )?;
            }
            Ok(())
        })?;
        let mut vptr_stored = false;
        for init in initializers {
            let Some(value) = init.children().next() else {
                continue;
            };
            if init.base_init.is_none() && !vptr_stored {
                // The bases are constructed: the object is now of this class.
                self.store_vptr(decl, &class, this)?;
                vptr_stored = true;
            }
            if let Some((base_name, is_virtual)) = base_of(self, init)? {
                if is_virtual {
                    continue;
                }
                let Some(base_layout) = layout.bases.iter().find(|b| b.name == base_name) else {
                    return unsupported(init, format!("initializer of base '{base_name}'"));
                };
                self.construct_base(init, &base_name, base_layout.offset, Some(value))?;
            } else if let Some(member) = &init.any_init {
                let Some(path) = self.member_path(init, &layout, &member.id)? else {
                    return unsupported(init, "initializer of an unknown member");
                };
                let mut address = this;
                for field in &path {
                    let cir = self.cir(init, &field.ty)?;
                    address = self.b.get_member(address, field.index, &field.name, cir);
                }
                let field = path.last().expect("a member path is never empty").clone();
                if field.ty.is_reference() {
                    let target = self.lvalue(value)?;
                    self.b.store(target, address, 8);
                    continue;
                }
                self.init_into(value, address, true)?;
                self.push_destroy(CleanupKind::Eh, &field.ty, address)?;
            } else {
                return unsupported(init, "a constructor initializer of this kind");
            }
        }
        if !vptr_stored {
            self.store_vptr(decl, &class, this)?;
        }
        Ok(())
    }

    /// The fields from `layout` down to the member with `FieldDecl` id `id`: the member
    /// itself, or a member of an anonymous union or struct (`: code(c)` for
    /// `union { int code; … };`) after the anonymous members that hold it.
    fn member_path(
        &mut self,
        node: &'ast Node,
        layout: &ClassLayout,
        id: &str,
    ) -> R<Option<Vec<FieldLayout>>> {
        if let Some(field) = layout.fields.iter().find(|f| f.id == id) {
            return Ok(Some(vec![field.clone()]));
        }
        for field in &layout.fields {
            let Some(name) = field.ty.name() else {
                continue;
            };
            if !name.contains("(anonymous ") {
                continue;
            }
            let inner = self.st.layout(self.b.ctx, node, name)?;
            if let Some(mut path) = self.member_path(node, &inner, id)? {
                path.insert(0, field.clone());
                return Ok(Some(path));
            }
        }
        Ok(None)
    }

    /// Constructs the base subobject of class `base` at `offset` in `this` (by
    /// `initializer`, or its default constructor), to be destroyed if what follows
    /// throws. A base with virtual bases is built by its base-object constructor with its
    /// sub-VTT.
    fn construct_base(
        &mut self,
        node: &'ast Node,
        base: &str,
        offset: u64,
        initializer: Option<&'ast Node>,
    ) -> R<()> {
        let this = self.this_value(node)?;
        let base_layout = self.st.layout(self.b.ctx, node, base)?;
        let address = self
            .b
            .base_class_addr(this, base_layout.cir, offset as u32, true);
        let sub_vtt = if base_layout.virtual_bases.is_empty() {
            None
        } else {
            Some(self.sub_vtt(node, base, offset)?)
        };
        let base_ty = CType::Named(base_layout.name.clone());
        match initializer {
            Some(value) => {
                self.pending_sub_vtt = sub_vtt;
                self.init_into(value, address, true)?;
                self.pending_sub_vtt = None;
            }
            None => self.default_construct(&base_ty, address, sub_vtt)?,
        }
        if self.defer_virtual_base(base, offset) {
            return Ok(());
        }
        self.push_base_destroy(CleanupKind::Eh, base, address, sub_vtt)
    }

    /// Whether the destruction of the virtual base `base` at `offset` just built is left
    /// to [`FnGen::complete_object_part`] (Microsoft: it is pushed after the test of the
    /// "most derived" flag, conditional on it).
    fn defer_virtual_base(&mut self, base: &str, offset: u64) -> bool {
        match &mut self.deferred_virtual_bases {
            Some(deferred) => {
                deferred.push((base.to_string(), offset));
                true
            }
            None => false,
        }
    }

    /// Pushes the destruction of the base subobject of class `base` at `address`: by its
    /// base-object destructor with `sub_vtt` when it has virtual bases.
    pub fn push_base_destroy(
        &mut self,
        kind: CleanupKind,
        base: &str,
        address: Value,
        sub_vtt: Option<Value>,
    ) -> R<()> {
        let decl = self.decl;
        let base_ty = CType::Named(base.to_string());
        if self.st.abi == ehir_core::abi::EhAbi::Msvc {
            // Microsoft: `??1`, without the virtual bases, its `this` where it wants it.
            let Some((callee, offset)) = self.st.msvc_base_destructor(self.b.ctx, decl, base)?
            else {
                return Ok(());
            };
            self.b.push_cleanup(kind, move |b| {
                super::vbtable_msvc::call_at(b, callee, address, offset);
            });
            return Ok(());
        }
        let Some(vtt) = sub_vtt else {
            return self.push_destroy(kind, &base_ty, address);
        };
        let Some(dtor) = self.st.nontrivial_destructor_decl(self.b.ctx, decl, base)? else {
            return Ok(());
        };
        let callee = self.st.base_variant_callee(self.b.ctx, dtor)?;
        self.b.push_cleanup(kind, move |b| {
            call_function(b, callee, &[address, vtt]);
        });
        Ok(())
    }

    /// A delegating constructor: the target constructor (of the same variant) builds the
    /// object, which is then complete: if the body throws, it is destroyed.
    fn delegating_construction(&mut self, init: &'ast Node, class: &str, this: Value) -> R<()> {
        let decl = self.decl;
        let Some(value) = init.children().next() else {
            return error(init, "a delegating constructor without its target");
        };
        self.pending_sub_vtt = self.vtt;
        self.init_into(value, this, true)?;
        self.pending_sub_vtt = None;
        if self.base_variant {
            let vtt = self.vtt;
            let class_node = self.st.class_node(decl, class)?;
            if let Some(dtor) = class_node
                .children()
                .find(|c| c.kind == "CXXDestructorDecl")
                && self.st.destructor(self.b.ctx, decl, class)?.is_some()
                && let Some(vtt) = vtt
            {
                let callee = self.st.base_variant_callee(self.b.ctx, dtor)?;
                self.b.push_cleanup(CleanupKind::Eh, move |b| {
                    call_function(b, callee, &[this, vtt]);
                });
            }
            return Ok(());
        }
        self.push_destroy(CleanupKind::Eh, &CType::Named(class.to_string()), this)
    }

    /// An implicit default constructor Clang gave no initializers for: default
    /// constructors of class bases (virtual ones first, in the complete-object variant)
    /// and members, default member initializers.
    fn implicit_default_construction(&mut self, class: &str) -> R<()> {
        let decl = self.decl;
        let this = self.this_value(decl)?;
        let layout = self.st.layout(self.b.ctx, decl, class)?;
        self.complete_object_part(decl, class, |this_gen| {
            for virtual_base in &layout.virtual_bases {
                this_gen.construct_base(decl, &virtual_base.name, virtual_base.offset, None)?;
            }
            Ok(())
        })?;
        for base in &layout.bases {
            self.construct_base(decl, &base.name, base.offset, None)?;
        }
        self.store_vptr(decl, class, this)?;
        let class_node = self.st.class_node(decl, class)?;
        for field in &layout.fields {
            let cir = self.cir(decl, &field.ty)?;
            let address = self.b.get_member(this, field.index, &field.name, cir);
            let default_init = class_node
                .children()
                .find(|c| c.id == field.id)
                .and_then(|f| f.children().next());
            match default_init {
                Some(init) => self.init_into(init, address, true)?,
                None => self.default_construct(&field.ty, address, None)?,
            }
            self.push_destroy(CleanupKind::Eh, &field.ty, address)?;
        }
        Ok(())
    }

    /// Runs the default constructor of a class object (nothing for other types); the
    /// base-object variant with `sub_vtt` when given.
    fn default_construct(&mut self, ty: &CType, address: Value, sub_vtt: Option<Value>) -> R<()> {
        let decl = self.decl;
        let Some(class) = ty.name().map(str::to_string) else {
            return Ok(());
        };
        let trivial = self
            .st
            .class_node(decl, &class)?
            .definition_data
            .as_ref()
            .is_some_and(|d| d.default_ctor.trivial);
        if trivial && sub_vtt.is_none() {
            return Ok(());
        }
        let ctor = self.st.constructor(decl, &class, "void ()")?;
        if self.is_trivial_special_member(decl, &class, ctor)? {
            return Ok(());
        }
        let flagged = self.st.takes_most_derived_flag(self.b.ctx, decl, &class)?;
        match sub_vtt {
            _ if flagged => {
                // Microsoft: the "most derived" flag last.
                let flag = sub_vtt.unwrap_or_else(|| self.most_derived_flag(true));
                let callee = self.st.callee(self.b.ctx, ctor)?;
                call_function(&mut self.b, callee, &[address, flag]);
            }
            Some(vtt) => {
                let callee = self.st.base_variant_callee(self.b.ctx, ctor)?;
                call_function(&mut self.b, callee, &[address, vtt]);
            }
            None => {
                let callee = self.st.callee(self.b.ctx, ctor)?;
                call_function(&mut self.b, callee, &[address]);
            }
        }
        Ok(())
    }

    /// The body of an implicit copy/move constructor (`assign`: assignment operator):
    /// bases and members copied in order.
    pub fn memberwise_copy(&mut self, source_param: &'ast Node, assign: bool) -> R<()> {
        let decl = self.decl;
        let Some(class) = self.this_class.clone() else {
            return error(decl, "a special member outside a class");
        };
        let this = self.this_value(decl)?;
        let source = match self.locals.get(&source_param.id) {
            Some(Local::Reference(slot)) => self.b.load(*slot, 8),
            Some(Local::Address(address)) => *address,
            None => return error(decl, "copy source not bound"),
        };
        let is_move = decl.ty.as_ref().is_some_and(|t| t.qual_type.contains("&&"));
        let layout = self.st.layout(self.b.ctx, decl, &class)?;
        // The virtual bases: copied by the complete-object copy constructor (the source's
        // found through its vtable: it may be of a more derived class), assigned by each
        // assignment that names them.
        if assign {
            let virtual_bases = layout
                .declared_bases
                .iter()
                .filter(|b| b.is_virtual)
                .map(|b| (b.name.clone(), None))
                .collect();
            self.copy_virtual_bases(&class, virtual_bases, source, assign, is_move)?;
        } else {
            let virtual_bases = layout
                .virtual_bases
                .iter()
                .map(|v| (v.name.clone(), Some(v.offset)))
                .collect();
            self.complete_object_part(decl, &class, |this_gen| {
                this_gen.copy_virtual_bases(&class, virtual_bases, source, assign, is_move)
            })?;
        }
        for base in &layout.bases {
            let base_ty = CType::Named(base.name.clone());
            let base_cir = self.st.layout(self.b.ctx, decl, &base.name)?.cir;
            let to = self
                .b
                .base_class_addr(this, base_cir, base.offset as u32, true);
            let from = self
                .b
                .base_class_addr(source, base_cir, base.offset as u32, true);
            let sub_vtt = if !assign && self.st.has_virtual_bases(self.b.ctx, decl, &base.name)? {
                Some(self.sub_vtt(decl, &base.name, base.offset)?)
            } else {
                None
            };
            self.copy_object(&base_ty, to, from, assign, is_move, sub_vtt)?;
            if !assign {
                self.push_base_destroy(CleanupKind::Eh, &base.name, to, sub_vtt)?;
            }
        }
        if !assign {
            self.store_vptr(decl, &class, this)?;
        }
        for field in &layout.fields {
            let cir = self.cir(decl, &field.ty)?;
            let to = self.b.get_member(this, field.index, &field.name, cir);
            let from = self.b.get_member(source, field.index, &field.name, cir);
            self.copy_object(&field.ty, to, from, assign, is_move, None)?;
            if !assign {
                self.push_destroy(CleanupKind::Eh, &field.ty, to)?;
            }
        }
        Ok(())
    }

    /// Copies (or assigns) the virtual bases of this function's class (`offset`: where
    /// each is in the complete object, `None` to find it through `this`'s table), each
    /// found in `source` through its table (it may be of a more derived class).
    fn copy_virtual_bases(
        &mut self,
        class: &str,
        virtual_bases: Vec<(String, Option<u64>)>,
        source: Value,
        assign: bool,
        is_move: bool,
    ) -> R<()> {
        let decl = self.decl;
        let this = self.this_value(decl)?;
        for (base, offset) in virtual_bases {
            let base_ty = CType::Named(base.clone());
            let base_cir = self.st.layout(self.b.ctx, decl, &base)?.cir;
            let from = self.virtual_base_address(decl, source, class, &base)?;
            let (to, sub_vtt) = match offset {
                Some(offset) => {
                    let to = self.b.base_class_addr(this, base_cir, offset as u32, true);
                    let sub_vtt = if self.st.has_virtual_bases(self.b.ctx, decl, &base)? {
                        Some(self.sub_vtt(decl, &base, offset)?)
                    } else {
                        None
                    };
                    (to, sub_vtt)
                }
                None => (self.virtual_base_address(decl, this, class, &base)?, None),
            };
            self.copy_object(&base_ty, to, from, assign, is_move, sub_vtt)?;
            if !assign && !offset.is_some_and(|offset| self.defer_virtual_base(&base, offset)) {
                self.push_base_destroy(CleanupKind::Eh, &base, to, sub_vtt)?;
            }
        }
        Ok(())
    }

    /// Copies (or assigns) one subobject; a base with virtual bases by its base-object
    /// copy constructor with `sub_vtt`.
    fn copy_object(
        &mut self,
        ty: &CType,
        to: Value,
        from: Value,
        assign: bool,
        is_move: bool,
        sub_vtt: Option<Value>,
    ) -> R<()> {
        let decl = self.decl;
        if let Some(class) = ty.name().map(str::to_string) {
            let class_node = self.st.class_node(decl, &class)?;
            let wanted_kind = if assign {
                "CXXMethodDecl"
            } else {
                "CXXConstructorDecl"
            };
            let candidates: Vec<&'ast Node> = class_node
                .children()
                .filter(|c| {
                    c.kind == wanted_kind
                        && (!assign || c.name.as_deref() == Some("operator="))
                        && c.children().filter(|p| p.kind == "ParmVarDecl").count() == 1
                })
                .collect();
            let pick = candidates
                .iter()
                .find(|c| {
                    let text = c.ty.as_ref().map(|t| t.qual_type.as_str()).unwrap_or("");
                    text.contains("&&") == is_move
                })
                .or_else(|| candidates.first())
                .copied();
            match pick {
                Some(member) if !self.is_trivial_special_member(decl, &class, member)? => {
                    let flagged =
                        !assign && self.st.takes_most_derived_flag(self.b.ctx, decl, &class)?;
                    match sub_vtt {
                        _ if flagged => {
                            // Microsoft: the "most derived" flag last.
                            let flag = sub_vtt.unwrap_or_else(|| self.most_derived_flag(true));
                            let callee = self.st.callee(self.b.ctx, member)?;
                            call_function(&mut self.b, callee, &[to, from, flag]);
                        }
                        Some(vtt) => {
                            let callee = self.st.base_variant_callee(self.b.ctx, member)?;
                            call_function(&mut self.b, callee, &[to, vtt, from]);
                        }
                        None => {
                            let callee = self.st.callee(self.b.ctx, member)?;
                            call_function(&mut self.b, callee, &[to, from]);
                        }
                    }
                    return Ok(());
                }
                _ => {}
            }
        } else if ty.is_reference() {
            if assign {
                return unsupported(decl, "assignment of a class with a reference member");
            }
        } else if let CType::Array(element, _) = ty.unqualified()
            && self.st.is_class(element)
        {
            return unsupported(decl, "implicit copy of an array of classes");
        }
        self.copy_bytes(decl, ty, from, to)
    }

    /// `new T(args)` (single objects; arrays of trivially destructible types).
    pub fn new_expr(&mut self, e: &'ast Node) -> R<Value> {
        let result_ty = self.ty(e)?;
        let Some(object_ty) = result_ty.pointee().cloned() else {
            return error(e, "a new-expression without a pointer type");
        };
        let Some(new_decl) = self.st.index.referenced(e.operator_new_decl.as_ref()) else {
            return unsupported(e, "new-expression without a known operator new");
        };
        // The children: the array size (`new T[n]`), the initializer, then the
        // placement arguments (those of operator new after the size).
        let new_signature = self.st.signature(self.b.ctx, new_decl)?;
        if new_signature.variadic || new_signature.params.is_empty() {
            return unsupported(e, "a new-expression with a variadic operator new");
        }
        let placement_types = new_signature.params[1..].to_vec();
        let children: Vec<&'ast Node> = e.children().collect();
        let Some(leading) = children.len().checked_sub(placement_types.len()) else {
            return error(e, "a new-expression without its placement arguments");
        };
        let (leading, placement_exprs) = children.split_at(leading);
        let (size_expr, initializer) = if e.is_array {
            (leading.first().copied(), leading.get(1).copied())
        } else {
            (None, leading.first().copied())
        };
        let placement = self.arguments(e, &placement_types, placement_exprs)?;
        let (size, _) = self.st.size_align(self.b.ctx, e, &object_ty)?;
        let new_callee = self.st.callee(self.b.ctx, new_decl)?;
        let size_t = self.b.ctx.types.common().u64;
        let object_cir = self.cir(e, &object_ty)?;
        let pointer_cir = self.b.ctx.types.ptr(object_cir);
        if let Some(count_expr) = size_expr {
            // The reserved placement form `::operator new[](size_t, void *)` (as in
            // `new (p) T[n]`) leaves no room for a cookie.
            let reserved_placement = new_decl.main_offset.is_none()
                && matches!(
                    placement_types.as_slice(),
                    [CType::Pointer(pointee)] if pointee.is_void()
                );
            let allocation = Allocation {
                callee: new_callee,
                placement: &placement,
                reserved_placement,
            };
            return self.new_array(e, allocation, &object_ty, count_expr, initializer);
        }
        let bytes = self.b.const_int(size_t, size as i128);
        let mut new_args = vec![bytes];
        new_args.extend(&placement);
        let raw = call_function(&mut self.b, new_callee, &new_args);
        let Some(raw) = raw else {
            return error(e, "operator new without a result");
        };
        let object = self.b.cast(CastKind::Bitcast, raw, pointer_cir);
        let Some(initializer) = initializer else {
            return Ok(object);
        };
        // A non-throwing allocation function reports failure by a null pointer: the
        // object is then not initialized.
        let may_be_null = new_callee.nothrow;
        if may_be_null {
            let null = self.b.const_null(pointer_cir);
            let not_null = self.b.cmp(ehir_core::CmpPredicate::Ne, object, null);
            self.b.begin_if(not_null, false);
        }
        // If the initialization throws, the storage is released.
        let delete_callee = match self.st.index.referenced(e.operator_delete_decl.as_ref()) {
            Some(delete_decl) => Some(self.st.callee(self.b.ctx, delete_decl)?),
            None => None,
        };
        let delete_params = delete_callee.map_or(0, |delete| {
            self.b
                .ctx
                .types
                .func_info(delete.sig)
                .map_or(0, |(params, _, _)| params.len())
        });
        let delete_args = match &delete_callee {
            // The placement operator delete matching a placement operator new.
            Some(_) if !placement.is_empty() => {
                let mut args = vec![raw];
                args.extend(&placement);
                args
            }
            Some(delete) if self.takes_size(*delete) => vec![raw, bytes],
            _ => vec![raw],
        };
        let delete_callee = delete_callee.filter(|_| delete_params == delete_args.len());
        let guard = delete_callee.map(|delete| {
            self.b.push_cleanup(CleanupKind::Eh, move |b| {
                call_function(b, delete, &delete_args);
            })
        });
        self.init_into(initializer, object, true)?;
        if let Some(guard) = guard {
            self.b.deactivate_cleanup(guard);
        }
        if may_be_null {
            self.b.end_if();
        }
        Ok(object)
    }

    /// `new T[n]`: for a class with a destructor, a cookie (the element count, 8 bytes)
    /// precedes the elements; elements are constructed in order and, if one throws,
    /// those built are destroyed (last first) and the storage is released.
    fn new_array(
        &mut self,
        e: &'ast Node,
        allocation: Allocation<'_>,
        element_ty: &CType,
        count_expr: &'ast Node,
        initializer: Option<&'ast Node>,
    ) -> R<Value> {
        let size_t = self.b.ctx.types.common().u64;
        let (element_size, _) = self.st.size_align(self.b.ctx, e, element_ty)?;
        let element_cir = self.cir(e, element_ty)?;
        let element_ptr = self.b.ctx.types.ptr(element_cir);
        let Allocation {
            callee: new_callee,
            placement,
            reserved_placement,
        } = allocation;
        let destruction = self.destruction(element_ty)?;
        let cookie = if destruction.is_some() && !reserved_placement {
            8
        } else {
            0
        };
        let count_ty = self.ty(count_expr)?;
        let count = self.scalar(count_expr)?;
        let count = self.convert(
            e,
            count,
            &count_ty,
            &CType::Builtin(crate::types::Builtin::SizeT),
        )?;
        let element_size_value = self.b.const_int(size_t, element_size as i128);
        let bytes = self
            .b
            .binop(ehir_core::BinaryOp::Mul, count, element_size_value);
        let cookie_value = self.b.const_int(size_t, cookie as i128);
        let bytes = self.b.binop(ehir_core::BinaryOp::Add, bytes, cookie_value);
        let mut new_args = vec![bytes];
        new_args.extend(placement);
        let Some(raw) = call_function(&mut self.b, new_callee, &new_args) else {
            return error(e, "operator new[] without a result");
        };
        let parts = NewArray {
            raw,
            bytes,
            count,
            cookie,
        };
        if !new_callee.nothrow {
            return self.new_array_elements(e, parts, element_ty, initializer, destruction);
        }
        // A non-throwing allocation function reports failure by a null pointer: nothing
        // is initialized then.
        let slot = self.b.alloca(element_ptr, "new.array", true, 8);
        let null = self.b.const_null(element_ptr);
        self.b.store(null, slot, 8);
        let void_null = self.b.const_null(self.b.ctx.types.common().void_ptr);
        let raw_void = self
            .b
            .cast(CastKind::Bitcast, raw, self.b.ctx.types.common().void_ptr);
        let not_null = self.b.cmp(ehir_core::CmpPredicate::Ne, raw_void, void_null);
        self.b.begin_if(not_null, false);
        let array = self.new_array_elements(e, parts, element_ty, initializer, destruction)?;
        self.b.store(array, slot, 8);
        self.b.end_if();
        Ok(self.b.load(slot, 8))
    }

    /// The rest of `new T[n]` once the storage is allocated: the cookie, then the
    /// elements constructed (see [`FnGen::new_array`]).
    fn new_array_elements(
        &mut self,
        e: &'ast Node,
        parts: NewArray,
        element_ty: &CType,
        initializer: Option<&'ast Node>,
        destruction: Option<Destruction>,
    ) -> R<Value> {
        let NewArray {
            raw,
            bytes,
            count,
            cookie,
        } = parts;
        let size_t = self.b.ctx.types.common().u64;
        let u8_ty = self.b.ctx.types.common().u8;
        let element_cir = self.cir(e, element_ty)?;
        let element_ptr = self.b.ctx.types.ptr(element_cir);
        let array = if cookie > 0 {
            let size_ptr = self.b.ctx.types.ptr(size_t);
            let count_slot = self.b.cast(CastKind::Bitcast, raw, size_ptr);
            self.b.store(count, count_slot, 8);
            let byte_ptr = self.b.ctx.types.ptr(u8_ty);
            let bytes_at = self.b.cast(CastKind::Bitcast, raw, byte_ptr);
            let long = self.b.ctx.types.common().s64;
            let eight = self.b.const_int(long, cookie as i128);
            let first = self.b.ptr_stride(bytes_at, eight);
            self.b.cast(CastKind::Bitcast, first, element_ptr)
        } else {
            self.b.cast(CastKind::Bitcast, raw, element_ptr)
        };
        // The constructor, with the arguments each element's construction evaluates
        // (default arguments).
        let mut ctor_args: Vec<&'ast Node> = Vec::new();
        let mut ctor_params = Vec::new();
        let constructor = match initializer {
            None => None,
            Some(init) if init.kind == "CXXConstructExpr" => {
                let Some(class) = element_ty.name().map(str::to_string) else {
                    return unsupported(init, "new[] with a constructor of a non-class");
                };
                let ctor = self.st.constructor_called(init, &class)?;
                ctor_args = init.children().collect();
                if self.is_trivial_special_member(init, &class, ctor)? && ctor_args.is_empty() {
                    None
                } else {
                    ctor_params = self.st.signature(self.b.ctx, ctor)?.params;
                    Some(self.st.callee(self.b.ctx, ctor)?)
                }
            }
            Some(init) => {
                return unsupported(init, format!("new[] initialized by '{}'", init.kind));
            }
        };
        let Some(constructor) = constructor else {
            return Ok(array);
        };
        let delete = match self.st.index.referenced(e.operator_delete_decl.as_ref()) {
            Some(decl) => Some(self.st.callee(self.b.ctx, decl)?),
            None => None,
        };
        let release = delete.map(|delete| {
            let args = if self.takes_size(delete) {
                vec![raw, bytes]
            } else {
                vec![raw]
            };
            self.b.push_cleanup(CleanupKind::Eh, move |b| {
                call_function(b, delete, &args);
            })
        });
        // The number of elements constructed so far.
        let built = self.b.alloca(size_t, "arrayinit.built", true, 8);
        let zero = self.b.const_int(size_t, 0);
        self.b.store(zero, built, 8);
        let depth = self.b.cleanup_depth();
        if let Some((dtor, _, _)) = destruction {
            self.b.push_cleanup(CleanupKind::Eh, move |b| {
                destroy_backwards(b, dtor, array, built);
            });
        }
        let lp = self.b.begin_while();
        let done = self.b.load(built, 8);
        let more = self.b.cmp(ehir_core::CmpPredicate::Lt, done, count);
        lp.condition(&mut self.b, more);
        let index = self.b.load(built, 8);
        let element = self.b.ptr_stride(array, index);
        // Each element is its own full expression (the temporaries of its arguments die
        // after it is built, which counts it as built).
        let mark = self.b.begin_full_expression();
        let mut values = vec![element];
        values.extend(self.arguments(e, &ctor_params, &ctor_args)?);
        call_function(&mut self.b, constructor, &values);
        let one = self.b.const_int(size_t, 1);
        let next = self.b.binop(ehir_core::BinaryOp::Add, index, one);
        self.b.store(next, built, 8);
        self.b.end_full_expression(mark);
        lp.end_body(&mut self.b);
        self.b.pop_cleanups_to(depth);
        if let Some(release) = release {
            self.b.deactivate_cleanup(release);
        }
        self.checked(e)?;
        Ok(array)
    }

    /// Whether an `operator delete` takes the size too (sized deallocation).
    fn takes_size(&self, delete: super::class::Callee) -> bool {
        self.b
            .ctx
            .types
            .func_info(delete.sig)
            .is_some_and(|(params, _, _)| params.len() == 2)
    }

    /// `delete p` / `delete[] p` (arrays of trivially destructible types).
    pub fn delete_expr(&mut self, e: &'ast Node) -> R<()> {
        let operand = self.operand(e, 0)?;
        let pointer_ty = self.ty(operand)?;
        let Some(object_ty) = pointer_ty.pointee().cloned() else {
            return error(e, "delete of a non-pointer");
        };
        let Some(delete_decl) = self.st.index.referenced(e.operator_delete_decl.as_ref()) else {
            return unsupported(e, "delete without a known operator delete");
        };
        let destruction = self.destruction(&object_ty)?;
        let pointer = self.scalar(operand)?;
        if !e.is_array
            && let CType::Named(class) = object_ty.unqualified()
            && let Some((dtor, _, _)) = destruction
            && let Some(index) = self.st.slot_of_kind(
                self.b.ctx,
                e,
                class,
                super::vtable::SlotKind::DeletingDestructor,
            )?
        {
            // A virtual destructor: the dynamic type's deleting destructor destroys the
            // object and releases its storage.
            let pointer_cir = self.b.value_type(pointer);
            let null = self.b.const_null(pointer_cir);
            let not_null = self.b.cmp(ehir_core::CmpPredicate::Ne, pointer, null);
            self.b.begin_if(not_null, false);
            if self.st.abi == ehir_core::abi::EhAbi::Msvc {
                // (`::delete` too: the Microsoft scalar deleting destructor is told to
                // release the storage with the global operator.)
                self.delete_through_vftable(e, class, pointer, dtor, e.is_global)?;
                self.b.end_if();
                return self.checked(e);
            }
            if e.is_global {
                // `::delete`: the global operator delete releases the complete object
                // (found by the offset to top), even if the destructor throws.
                let delete = self.st.callee(self.b.ctx, delete_decl)?;
                let common = *self.b.ctx.types.common();
                let raw = self.complete_object(pointer);
                let args = if self.takes_size(delete) {
                    let (size, _) = self.st.size_align(self.b.ctx, e, &object_ty)?;
                    vec![raw, self.b.const_int(common.u64, size as i128)]
                } else {
                    vec![raw]
                };
                self.b.push_cleanup(CleanupKind::All, move |b| {
                    call_function(b, delete, &args);
                });
                let complete_index = self
                    .st
                    .slot_of_kind(
                        self.b.ctx,
                        e,
                        class,
                        super::vtable::SlotKind::CompleteDestructor,
                    )?
                    .unwrap_or(index);
                let function = self.virtual_function(pointer, complete_index);
                let function_ty = self.b.ctx.types.ptr(dtor.sig);
                let function = self.b.cast(CastKind::Bitcast, function, function_ty);
                let flags = super::expr::call_flags(dtor.nothrow);
                self.b.call_indirect(function, dtor.sig, &[pointer], flags);
                self.b.pop_cleanup();
                self.b.end_if();
                return self.checked(e);
            }
            let function = self.virtual_function(pointer, index);
            let function_ty = self.b.ctx.types.ptr(dtor.sig);
            let function = self.b.cast(CastKind::Bitcast, function, function_ty);
            let flags = super::expr::call_flags(dtor.nothrow);
            self.b.call_indirect(function, dtor.sig, &[pointer], flags);
            self.b.end_if();
            return self.checked(e);
        }
        if e.is_array
            && let Some((dtor, _, _)) = destruction
        {
            return self.delete_array(e, delete_decl, &object_ty, dtor, pointer);
        }
        let delete = self.st.callee(self.b.ctx, delete_decl)?;
        let pointer_cir = self.b.value_type(pointer);
        let null = self.b.const_null(pointer_cir);
        let not_null = self.b.cmp(ehir_core::CmpPredicate::Ne, pointer, null);
        self.b.begin_if(not_null, false);
        let void_ptr = self.b.ctx.types.common().void_ptr;
        let raw = self.b.cast(CastKind::Bitcast, pointer, void_ptr);
        let delete_args = if self.takes_size(delete) {
            let (size, _) = self.st.size_align(self.b.ctx, e, &object_ty)?;
            let size_t = self.b.ctx.types.common().u64;
            vec![raw, self.b.const_int(size_t, size as i128)]
        } else {
            vec![raw]
        };
        if let Some((dtor, _, _)) = destruction {
            // The storage is released even if the destructor throws.
            self.b.push_cleanup(CleanupKind::All, move |b| {
                call_function(b, delete, &delete_args);
            });
            call_function(&mut self.b, dtor, &[pointer]);
            self.b.pop_cleanup();
        } else {
            call_function(&mut self.b, delete, &delete_args);
        }
        self.b.end_if();
        self.checked(e)
    }
}

impl<'ast> FnGen<'_, 'ast, '_> {
    /// `delete[] p` of a class with a destructor: the count from the cookie, the
    /// elements destroyed last first, the storage released (even if a destructor throws).
    fn delete_array(
        &mut self,
        e: &'ast Node,
        delete_decl: &'ast Node,
        element_ty: &CType,
        dtor: super::class::Callee,
        pointer: Value,
    ) -> R<()> {
        let delete = self.st.callee(self.b.ctx, delete_decl)?;
        let size_t = self.b.ctx.types.common().u64;
        let u8_ty = self.b.ctx.types.common().u8;
        let (element_size, _) = self.st.size_align(self.b.ctx, e, element_ty)?;
        let pointer_cir = self.b.value_type(pointer);
        let null = self.b.const_null(pointer_cir);
        let not_null = self.b.cmp(ehir_core::CmpPredicate::Ne, pointer, null);
        self.b.begin_if(not_null, false);
        let byte_ptr = self.b.ctx.types.ptr(u8_ty);
        let bytes_at = self.b.cast(CastKind::Bitcast, pointer, byte_ptr);
        let long = self.b.ctx.types.common().s64;
        let back = self.b.const_int(long, -8);
        let cookie = self.b.ptr_stride(bytes_at, back);
        let size_ptr = self.b.ctx.types.ptr(size_t);
        let count_slot = self.b.cast(CastKind::Bitcast, cookie, size_ptr);
        let count = self.b.load(count_slot, 8);
        let void_ptr = self.b.ctx.types.common().void_ptr;
        let raw = self.b.cast(CastKind::Bitcast, cookie, void_ptr);
        let args = if self.takes_size(delete) {
            let element_size = self.b.const_int(size_t, element_size as i128);
            let bytes = self.b.binop(ehir_core::BinaryOp::Mul, count, element_size);
            let eight = self.b.const_int(size_t, 8);
            vec![raw, self.b.binop(ehir_core::BinaryOp::Add, bytes, eight)]
        } else {
            vec![raw]
        };
        let left = self.b.alloca(size_t, "arraydestroy.left", true, 8);
        self.b.store(count, left, 8);
        self.b.push_cleanup(CleanupKind::All, move |b| {
            call_function(b, delete, &args);
        });
        destroy_backwards(&mut self.b, dtor, pointer, left);
        self.b.pop_cleanup();
        self.b.end_if();
        self.checked(e)
    }
}

/// How `new T[n]` allocates: the allocation function, its placement arguments, and
/// whether it is the reserved placement form (no cookie).
struct Allocation<'v> {
    callee: super::class::Callee,
    placement: &'v [Value],
    reserved_placement: bool,
}

/// What the allocation of `new T[n]` gave: the storage, its size, the element count and
/// the cookie's size (0 or 8).
#[derive(Clone, Copy)]
struct NewArray {
    raw: Value,
    bytes: Value,
    count: Value,
    cookie: u64,
}

/// Destroys elements `[0, *left)` of an array, last first, decrementing `*left`. When
/// the destructor may throw, the elements before the one whose destructor threw are
/// destroyed too (a second exception then terminates).
fn destroy_backwards(
    b: &mut ehir_builder::FunctionBuilder<'_>,
    dtor: super::class::Callee,
    array: Value,
    left: Value,
) {
    destroy_backwards_loop(b, dtor, array, left, !dtor.nothrow);
}

/// The loop of [`destroy_backwards`]; `partial`: each destructor call is covered by the
/// destruction of the elements left (which itself is not).
fn destroy_backwards_loop(
    b: &mut ehir_builder::FunctionBuilder<'_>,
    dtor: super::class::Callee,
    array: Value,
    left: Value,
    partial: bool,
) {
    let size_t = b.ctx.types.common().u64;
    let lp = b.begin_while();
    let remaining = b.load(left, 8);
    let zero = b.const_int(size_t, 0);
    let more = b.cmp(ehir_core::CmpPredicate::Gt, remaining, zero);
    lp.condition(b, more);
    let remaining = b.load(left, 8);
    let one = b.const_int(size_t, 1);
    let index = b.binop(ehir_core::BinaryOp::Sub, remaining, one);
    b.store(index, left, 8);
    let element = b.ptr_stride(array, index);
    if partial {
        b.push_cleanup(CleanupKind::Eh, move |b| {
            destroy_backwards_loop(b, dtor, array, left, false);
        });
    }
    call_function(b, dtor, &[element]);
    if partial {
        b.pop_cleanup();
    }
    lp.end_body(b);
}

/// Destroys elements `[0, count)` from `first`, last first; `partial`: each destructor
/// call is covered by the destruction of the elements before it.
fn destroy_first_elements(
    b: &mut ehir_builder::FunctionBuilder<'_>,
    callee: super::class::Callee,
    first: Value,
    count: u64,
    partial: bool,
) {
    let long = b.ctx.types.common().s64;
    for i in (0..count).rev() {
        let index = b.const_int(long, i as i128);
        let at = b.ptr_stride(first, index);
        if partial && i > 0 {
            b.push_cleanup(CleanupKind::Eh, move |b| {
                destroy_first_elements(b, callee, first, i, false);
            });
            call_function(b, callee, &[at]);
            b.pop_cleanup();
        } else {
            call_function(b, callee, &[at]);
        }
    }
}

/// How to destroy an object: its destructor, and for arrays the element count and CIR
/// element type.
type Destruction = (super::class::Callee, Option<u64>, Option<ehir_core::Type>);

/// Calls a destructor on one object, or on `count` array elements, last first (when the
/// destructor may throw, the elements before one whose destructor threw are destroyed
/// too).
fn destroy_elements(
    b: &mut ehir_builder::FunctionBuilder<'_>,
    callee: super::class::Callee,
    address: Value,
    count: Option<u64>,
    element: Option<ehir_core::Type>,
) {
    match (count, element) {
        (Some(count), Some(element)) => {
            let first = {
                let ptr = b.ctx.types.ptr(element);
                b.cast(CastKind::ArrayToPtrDecay, address, ptr)
            };
            destroy_first_elements(b, callee, first, count, !callee.nothrow);
        }
        _ => {
            call_function(b, callee, &[address]);
        }
    }
}
