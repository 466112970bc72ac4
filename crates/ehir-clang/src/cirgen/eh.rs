//! Exceptions: `throw` (the exception object built in its storage, which is released if
//! building it throws), `throw;`, `try`/`catch` with every kind of handler parameter,
//! function-try-blocks, and exception specifications (`noexcept`: terminate; dynamic
//! `throw(T...)`: a filter).

use super::class::call_function;
use super::function::{FnGen, Local};
use super::{R, error, unsupported};
use crate::ast::Node;
use crate::types::{CType, parse_type};
use ehir_builder::CatchKind;
use ehir_core::CleanupKind;

/// The exception specification of a function.
#[derive(Clone, Debug, PartialEq)]
pub enum ExceptionSpec {
    /// Anything may propagate.
    None,
    /// `noexcept` (also implicit, as on destructors): an escaping exception terminates.
    Noexcept,
    /// `throw(T...)`: anything else calls `std::unexpected`.
    Dynamic(Vec<CType>),
}

/// The exception specification of a function type as Clang prints it.
pub fn exception_spec(type_text: &str) -> Option<ExceptionSpec> {
    if let Some(at) = type_text.rfind(" throw(") {
        let list = type_text[at + " throw(".len()..].strip_suffix(')')?;
        let mut types = Vec::new();
        let mut depth = 0usize;
        let mut start = 0;
        for (i, c) in list.char_indices() {
            match c {
                '(' | '<' => depth += 1,
                ')' | '>' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    types.push(parse_type(list[start..i].trim())?);
                    start = i + 1;
                }
                _ => {}
            }
        }
        if !list[start..].trim().is_empty() {
            types.push(parse_type(list[start..].trim())?);
        }
        return Some(ExceptionSpec::Dynamic(types));
    }
    let function = parse_type(type_text)?;
    Some(if function.function()?.noexcept {
        ExceptionSpec::Noexcept
    } else {
        ExceptionSpec::None
    })
}

impl<'ast> FnGen<'_, 'ast, '_> {
    /// `throw x` and `throw`.
    pub fn throw_expr(&mut self, e: &'ast Node) -> R<()> {
        let Some(operand) = e.children().next() else {
            self.b.emit_rethrow();
            return self.checked(e);
        };
        let ty = self.ty(operand)?;
        let ty = ty.unqualified().clone();
        let (size, _) = self.st.size_align(self.b.ctx, e, &ty)?;
        let cir = self.cir(e, &ty)?;
        let storage = self.b.alloc_exception(cir, size);
        // If building the object throws, that exception propagates and the storage is
        // released; once built, the object no longer needs that (the cleanup is
        // deactivated, while temporaries of the operand live until the throw).
        let guard = self
            .b
            .push_cleanup(CleanupKind::Eh, move |b| b.free_exception(storage));
        self.init_into(operand, storage, true)?;
        self.b.deactivate_cleanup(guard);
        let typeinfo = self.st.typeinfo(self.b.ctx, e, &ty)?;
        let dtor = match ty.name() {
            Some(class) => self
                .st
                .destructor(self.b.ctx, e, class)?
                .map(|callee| callee.symbol),
            None => None,
        };
        self.b.emit_throw(storage, typeinfo, dtor);
        self.checked(e)
    }

    /// `try { } catch (...) { }`.
    pub fn try_stmt(&mut self, s: &'ast Node) -> R<()> {
        self.try_with(s, false, |_| Ok(()))
    }

    /// A try statement; `before_body` runs first inside the try (a constructor's
    /// initializers); `rethrow_at_end`: handlers of a constructor's or destructor's
    /// function-try-block rethrow when they fall off their end.
    fn try_with(
        &mut self,
        s: &'ast Node,
        rethrow_at_end: bool,
        before_body: impl FnOnce(&mut Self) -> R<()>,
    ) -> R<()> {
        let children: Vec<&'ast Node> = s.children().collect();
        let Some((&body, handlers)) = children.split_first() else {
            return error(s, "try without a body");
        };
        self.b.enter_try();
        let depth = self.b.cleanup_depth();
        before_body(self)?;
        self.stmt(body)?;
        self.b.pop_cleanups_to(depth);
        let mut caught = std::collections::BTreeSet::new();
        for handler in handlers {
            if handler.kind != "CXXCatchStmt" {
                return unsupported(handler, handler.kind.as_str());
            }
            if !self.handler(handler, &mut caught)? {
                continue;
            }
            if rethrow_at_end && !self.b.is_terminated() {
                self.b.emit_rethrow();
            }
        }
        self.b.exit_try();
        self.checked(s)
    }

    /// One catch handler; `false` when an earlier handler catches the same type (the
    /// handler is never entered and is left out).
    fn handler(
        &mut self,
        handler: &'ast Node,
        caught: &mut std::collections::BTreeSet<String>,
    ) -> R<bool> {
        let param = handler.children().find(|c| c.kind == "VarDecl");
        let Some(body) = handler.children().find(|c| c.kind == "CompoundStmt") else {
            return error(handler, "catch without a body");
        };
        let depth = self.b.cleanup_depth();
        match param {
            None => {
                let void_ptr = self.b.ctx.types.common().void_ptr;
                self.b.emit_catch(CatchKind::All, void_ptr);
            }
            Some(var) => {
                let ty = self.st.node_type(var)?;
                let by_reference = ty.is_reference();
                let object_ty = ty.non_reference().clone();
                let catch_ty = match object_ty.unqualified() {
                    CType::Array(element, _) => CType::Pointer(element.clone()),
                    CType::Function(_) => CType::Pointer(Box::new(object_ty.clone())),
                    other => other.clone(),
                };
                let typeinfo = self.st.typeinfo(self.b.ctx, handler, &catch_ty)?;
                if !caught.insert(self.b.ctx.name(typeinfo).to_string()) {
                    return Ok(false);
                }
                let catch_cir = self.cir(handler, &catch_ty)?;
                // The handler receives the adjusted pointer: the address of the
                // exception object, or for a pointer type the pointer itself.
                let is_pointer = catch_ty.pointee().is_some()
                    || catch_ty == CType::Builtin(crate::types::Builtin::Nullptr);
                // Microsoft ABI: `catch (T *&)` binds to the exception object itself (the
                // reference adjective); the handler receives the address of the pointer.
                let pointer_by_reference =
                    is_pointer && by_reference && self.st.abi == ehir_core::abi::EhAbi::Msvc;
                let param_ty = if is_pointer && !pointer_by_reference {
                    catch_cir
                } else {
                    self.b.ctx.types.ptr(catch_cir)
                };
                let adjusted = self.b.emit_catch(CatchKind::Type(typeinfo), param_ty);
                let name = var.name.clone().unwrap_or_default();
                let align = self.align(handler, &catch_ty)?;
                if pointer_by_reference {
                    self.locals.insert(var.id.clone(), Local::Address(adjusted));
                } else if is_pointer {
                    // By value or by reference: the variable (or what the reference
                    // binds to) holds the adjusted pointer.
                    let slot = self.b.alloca(catch_cir, &name, true, align);
                    self.b.store(adjusted, slot, align);
                    self.locals.insert(var.id.clone(), Local::Address(slot));
                } else if by_reference {
                    self.locals.insert(var.id.clone(), Local::Address(adjusted));
                } else if self.st.abi == ehir_core::abi::EhAbi::Msvc
                    && var.name.as_deref().is_none_or(str::is_empty)
                {
                    // Microsoft ABI: an unnamed by-value parameter gets no copy (the
                    // runtime builds no catch object; nothing can name it).
                } else if self.st.is_class(&catch_ty) {
                    let copy = self.b.alloca(catch_cir, &name, true, align);
                    self.locals.insert(var.id.clone(), Local::Address(copy));
                    self.copy_catch_parameter(handler, var, &catch_ty, copy, adjusted)?;
                    self.push_destroy(CleanupKind::All, &catch_ty, copy)?;
                } else {
                    let copy = self.b.alloca(catch_cir, &name, true, align);
                    let value = self.b.load(adjusted, align);
                    self.b.store(value, copy, align);
                    self.locals.insert(var.id.clone(), Local::Address(copy));
                }
            }
        }
        self.stmt(body)?;
        self.b.pop_cleanups_to(depth);
        Ok(true)
    }

    /// Copies the exception object into a by-value class handler parameter; an
    /// exception from the copy constructor calls `std::terminate`.
    fn copy_catch_parameter(
        &mut self,
        handler: &Node,
        var: &Node,
        ty: &CType,
        copy: ehir_builder::Value,
        exception: ehir_builder::Value,
    ) -> R<()> {
        let Some(class) = ty.name().map(str::to_string) else {
            return error(handler, "a class handler without a class");
        };
        let ctor_type = var
            .children()
            .find(|c| c.kind == "CXXConstructExpr")
            .and_then(|c| c.ctor_type.as_ref())
            .map(|q| q.qual_type.clone());
        let ctor = match ctor_type {
            Some(text) => self.st.constructor(handler, &class, &text)?,
            None => {
                let class_node = self.st.class_node(handler, &class)?;
                match class_node.children().find(|c| {
                    c.kind == "CXXConstructorDecl"
                        && c.ty.as_ref().is_some_and(|t| {
                            t.qual_type.contains('&') && !t.qual_type.contains("&&")
                        })
                }) {
                    Some(ctor) => ctor,
                    None => return self.copy_bytes(handler, ty, exception, copy),
                }
            }
        };
        if self.is_trivial_special_member(handler, &class, ctor)? {
            return self.copy_bytes(handler, ty, exception, copy);
        }
        let callee = self.st.callee(self.b.ctx, ctor)?;
        self.b.enter_try();
        call_function(&mut self.b, callee, &[copy, exception]);
        self.b.emit_terminate();
        self.b.exit_try();
        Ok(())
    }

    /// A function-try-block: constructor initializers and destructor member cleanups
    /// are inside the try.
    pub fn function_try_block(&mut self, body: &'ast Node, is_ctor: bool, is_dtor: bool) -> R<()> {
        self.try_with(body, is_ctor || is_dtor, |generator| {
            if is_ctor {
                generator.constructor_initializers()?;
            }
            if is_dtor {
                generator.push_member_destruction()?;
            }
            Ok(())
        })
    }

    /// Opens the scope of a function's exception specification (returns it, to close
    /// with [`FnGen::end_exception_spec`]).
    pub fn begin_exception_spec(&mut self) -> R<ExceptionSpec> {
        let decl = self.decl;
        let text = decl.ty.as_ref().map(|q| q.qual_type.as_str()).unwrap_or("");
        let mut spec = exception_spec(text).unwrap_or(ExceptionSpec::None);
        if spec == ExceptionSpec::Dynamic(Vec::new()) && self.st.dialect.empty_throw_is_noexcept {
            // C++17: `throw()` is `noexcept`.
            spec = ExceptionSpec::Noexcept;
        }
        if spec != ExceptionSpec::None {
            self.b.enter_try();
        }
        Ok(spec)
    }

    /// Closes the scope of an exception specification: a terminate or filter handler.
    pub fn end_exception_spec(&mut self, spec: &ExceptionSpec) -> R<()> {
        let decl = self.decl;
        match spec {
            ExceptionSpec::None => return Ok(()),
            ExceptionSpec::Noexcept => self.b.emit_terminate(),
            ExceptionSpec::Dynamic(types) => {
                let mut typeinfos = Vec::new();
                for ty in types {
                    typeinfos.push(self.st.typeinfo(self.b.ctx, decl, ty.unqualified())?);
                }
                self.b.emit_filter(&typeinfos);
            }
        }
        self.b.exit_try();
        self.checked(decl)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Builtin;

    #[test]
    fn exception_specifications_come_from_the_type() {
        assert_eq!(
            exception_spec("void () noexcept"),
            Some(ExceptionSpec::Noexcept)
        );
        assert_eq!(exception_spec("int (int)"), Some(ExceptionSpec::None));
        assert_eq!(
            exception_spec("void () throw(int, A *)"),
            Some(ExceptionSpec::Dynamic(vec![
                CType::Builtin(Builtin::Int),
                CType::Pointer(Box::new(CType::Named("A".into())))
            ]))
        );
        assert_eq!(
            exception_spec("void () throw()"),
            Some(ExceptionSpec::Dynamic(vec![]))
        );
    }
}
