//! Statements: blocks, declarations (with their destruction as cleanups and
//! lifetime-extended temporaries), `return`, `if`, loops (`while`, `do`, `for`,
//! range-`for`), `switch`, `break`/`continue`, `goto` and labels.

use super::expr::strip_parens;
use super::function::{FnGen, Local};
use super::vla::split_variable_array;
use super::{R, error, loc_of, unsupported};
use crate::ast::Node;
use crate::types::CType;
use ehir_core::{AttrData, CaseKind, CleanupKind, OpKind};

impl<'ast> FnGen<'_, 'ast, '_> {
    /// Emits a statement.
    pub fn stmt(&mut self, s: &'ast Node) -> R<()> {
        self.b.set_loc(loc_of(s));
        self.nested(s, |generator| generator.stmt_inner(s))
    }

    fn stmt_inner(&mut self, s: &'ast Node) -> R<()> {
        match s.kind.as_str() {
            "CompoundStmt" => {
                self.b.enter_scope();
                self.statements(s.children())?;
                self.b.exit_scope();
                Ok(())
            }
            "NullStmt" => Ok(()),
            "DeclStmt" => {
                for decl in s.children() {
                    match decl.kind.as_str() {
                        "VarDecl" => self.local_variable(decl)?,
                        "TypedefDecl" | "TypeAliasDecl" | "CXXRecordDecl" | "EnumDecl"
                        | "UsingDecl" | "UsingDirectiveDecl" | "StaticAssertDecl" => {}
                        other => return unsupported(decl, format!("local {other}")),
                    }
                }
                Ok(())
            }
            "ReturnStmt" => self.return_stmt(s),
            "IfStmt" => self.if_stmt(s),
            "WhileStmt" => {
                if s.has_var {
                    return unsupported(s, "a variable declared in a while condition");
                }
                let (cond, body) = (self.operand(s, 0)?, self.operand(s, 1)?);
                let lp = self.b.begin_while();
                let c = self.scalar(cond)?;
                lp.condition(&mut self.b, c);
                self.scoped(body)?;
                lp.end_body(&mut self.b);
                Ok(())
            }
            "DoStmt" => {
                let (body, cond) = (self.operand(s, 0)?, self.operand(s, 1)?);
                let lp = self.b.begin_do_while();
                self.scoped(body)?;
                lp.end_body(&mut self.b);
                let c = self.scalar(cond)?;
                lp.condition(&mut self.b, c);
                Ok(())
            }
            "ForStmt" => {
                if s.inner.get(1).is_some_and(|n| !n.kind.is_empty()) {
                    return unsupported(s, "a variable declared in a for condition");
                }
                self.b.enter_scope();
                if let Some(init) = s.child(0) {
                    self.stmt(init)?;
                }
                self.for_loop(s.child(2), s.child(3), s.child(4), None)?;
                self.b.exit_scope();
                Ok(())
            }
            "CXXForRangeStmt" => {
                // init, range, begin, end, cond, inc, loop variable, body
                self.b.enter_scope();
                for index in 0..4 {
                    if let Some(decl) = s.child(index) {
                        self.stmt(decl)?;
                    }
                }
                self.for_loop(s.child(4), s.child(5), s.child(7), s.child(6))?;
                self.b.exit_scope();
                Ok(())
            }
            "BreakStmt" => {
                self.b.emit_break();
                Ok(())
            }
            "ContinueStmt" => {
                self.b.emit_continue();
                Ok(())
            }
            "GotoStmt" => {
                let Some(label) = &s.target_label_decl_id else {
                    return error(s, "goto without a label");
                };
                let name = self.label_name(s, label)?;
                self.b.emit_goto(&name);
                Ok(())
            }
            "LabelStmt" => {
                let Some(label) = &s.decl_id else {
                    return error(s, "label without a declaration");
                };
                let name = self.label_name(s, label)?;
                self.b.emit_label(&name);
                match s.children().next() {
                    Some(inner) => self.stmt(inner),
                    None => Ok(()),
                }
            }
            "SwitchStmt" => self.switch_stmt(s),
            "CXXTryStmt" => self.try_stmt(s),
            "AttributedStmt" => match s.children().last() {
                Some(inner) => self.stmt(inner),
                None => Ok(()),
            },
            "CaseStmt" | "DefaultStmt" => {
                unsupported(s, "case labels nested inside statements of a switch body")
            }
            _ if s.value_category.is_some() => self.ignored(s),
            other => unsupported(s, other),
        }
    }

    /// The CIR name of the label whose declaration is `decl_id`: its name in the source
    /// (labels are unique per function), found in the function's body the first time.
    fn label_name(&mut self, at: &Node, decl_id: &str) -> R<String> {
        if let Some(name) = self.labels.get(decl_id) {
            return Ok(name.clone());
        }
        let Some(name) = find_label(self.decl, decl_id).and_then(|l| l.name.clone()) else {
            return error(at, "a label the function does not declare");
        };
        self.labels.insert(decl_id.to_string(), name.clone());
        Ok(name)
    }

    /// Statements of a block; after a jump only labelled statements are reachable.
    fn statements(&mut self, statements: impl Iterator<Item = &'ast Node>) -> R<()> {
        for s in statements {
            if self.b.is_terminated() && !contains_label(s) {
                continue;
            }
            self.stmt(s)?;
        }
        Ok(())
    }

    /// A sub-statement in a scope of its own.
    fn scoped(&mut self, s: &'ast Node) -> R<()> {
        if s.kind == "CompoundStmt" {
            return self.stmt(s);
        }
        self.b.enter_scope();
        self.stmt(s)?;
        self.b.exit_scope();
        Ok(())
    }

    fn for_loop(
        &mut self,
        cond: Option<&'ast Node>,
        step: Option<&'ast Node>,
        body: Option<&'ast Node>,
        loop_variable: Option<&'ast Node>,
    ) -> R<()> {
        let lp = self.b.begin_for();
        let c = match cond {
            Some(cond) => self.scalar(cond)?,
            None => self.b.const_bool(true),
        };
        lp.condition(&mut self.b, c);
        self.b.enter_scope();
        if let Some(variable) = loop_variable {
            self.stmt(variable)?;
        }
        if let Some(body) = body {
            self.scoped(body)?;
        }
        self.b.exit_scope();
        lp.end_body(&mut self.b);
        if let Some(step) = step {
            self.ignored(step)?;
        }
        lp.end_step(&mut self.b);
        Ok(())
    }

    fn if_stmt(&mut self, s: &'ast Node) -> R<()> {
        let children: Vec<&'ast Node> = s.children().collect();
        let mut next = children.iter().copied();
        self.b.enter_scope();
        if s.has_init
            && let Some(init) = next.next()
        {
            self.stmt(init)?;
        }
        if s.has_var
            && let Some(var) = next.next()
        {
            self.stmt(var)?;
        }
        let (Some(cond), Some(then)) = (next.next(), next.next()) else {
            return error(s, "if without condition or body");
        };
        let otherwise = if s.has_else { next.next() } else { None };
        let c = self.scalar(cond)?;
        let if_op = self.b.begin_if(c, otherwise.is_some());
        self.scoped(then)?;
        if let Some(otherwise) = otherwise {
            self.b.begin_else(if_op);
            self.scoped(otherwise)?;
        }
        self.b.end_if();
        self.b.exit_scope();
        Ok(())
    }

    /// A local variable: storage, initialization, and its destruction as a cleanup.
    pub fn local_variable(&mut self, var: &'ast Node) -> R<()> {
        if let Some((element, bound)) = var.type_text().and_then(split_variable_array) {
            return self.variable_array(var, &element, &bound);
        }
        let ty = self.st.node_type(var)?;
        let name = var.name.clone().unwrap_or_default();
        if matches!(var.storage_class.as_deref(), Some("static" | "extern")) {
            return self.static_local(var, &ty);
        }
        let init = var.initializer();
        if ty.is_reference() {
            let pointer_ty = self.cir(var, &ty)?;
            let slot = self.b.alloca(pointer_ty, &name, true, 8);
            let Some(init) = init else {
                return error(var, "a reference without an initializer");
            };
            let target = self.lvalue(init)?;
            self.b.store(target, slot, 8);
            self.locals.insert(var.id.clone(), Local::Reference(slot));
            return self.push_extended();
        }
        let cir = self.cir(var, &ty)?;
        let align = self.align(var, &ty)?;
        let nrvo = var.nrvo && self.result_ptr.is_some();
        let address = match (nrvo, self.result_ptr) {
            (true, Some(result)) => result,
            _ => self.b.alloca(cir, &name, init.is_some(), align),
        };
        self.locals.insert(var.id.clone(), Local::Address(address));
        if let Some(init) = init {
            self.init_into(init, address, true)?;
        }
        self.push_extended()?;
        let kind = if nrvo {
            CleanupKind::Eh
        } else {
            CleanupKind::All
        };
        self.push_destroy(kind, &ty, address)
    }

    /// Lifetime-extended temporaries of the declaration just emitted live until the end
    /// of the enclosing scope.
    fn push_extended(&mut self) -> R<()> {
        for (address, ty) in std::mem::take(&mut self.extended) {
            self.push_destroy(CleanupKind::All, &ty, address)?;
        }
        Ok(())
    }

    /// A `static` local: an internal global, initialized by its constant initializer or
    /// on the first pass through its declaration (guarded).
    fn static_local(&mut self, var: &'ast Node, ty: &CType) -> R<()> {
        let Some(symbol) = var.mangled_name.clone() else {
            return error(var, "a static local without a mangled name");
        };
        if var.storage_class.as_deref() == Some("static") {
            if !self.st.static_locals.iter().any(|(s, _)| *s == symbol) {
                self.st.static_locals.push((symbol.clone(), var));
            }
        } else if !self.st.globals.contains_key(&symbol) {
            self.st.globals.insert(symbol.clone(), var);
            self.st.global_order.push(symbol.clone());
        }
        let cir = self.cir(var, ty)?;
        let sym = self.b.ctx.sym(&symbol);
        let address = self.b.get_global(sym, cir);
        self.locals.insert(var.id.clone(), Local::Address(address));
        if var.storage_class.as_deref() == Some("static")
            && let Some(init) = var.initializer()
            && !super::function::is_constant_initializer(self.st, init)
        {
            if ty.is_reference() {
                return unsupported(var, "a static local reference with a dynamic initializer");
            }
            self.guarded_static_init(var, &symbol, ty, address, init)?;
        }
        Ok(())
    }

    fn return_stmt(&mut self, s: &'ast Node) -> R<()> {
        let Some(value) = s.children().next() else {
            self.b.emit_return(None);
            return Ok(());
        };
        let result = self.result.clone();
        if result.is_void() {
            self.ignored(value)?;
            self.b.emit_return(None);
            return Ok(());
        }
        if result.is_reference() {
            let address = self.lvalue(value)?;
            self.b.emit_return(Some(address));
            return Ok(());
        }
        if let Some(result_ptr) = self.result_ptr {
            if !self.returns_nrvo_variable(value) {
                self.init_into(value, result_ptr, true)?;
            }
            self.b.emit_return(None);
            return Ok(());
        }
        let v = self.scalar(value)?;
        self.b.emit_return(Some(v));
        Ok(())
    }

    /// Whether a return value is the named return value (constructed in place).
    fn returns_nrvo_variable(&self, value: &Node) -> bool {
        let mut e = value;
        loop {
            e = strip_parens(e);
            match e.kind.as_str() {
                "ExprWithCleanups" | "ImplicitCastExpr" | "CXXConstructExpr"
                    if e.children().count() == 1 =>
                {
                    match e.children().next() {
                        Some(inner) => e = inner,
                        None => return false,
                    }
                }
                "MaterializeTemporaryExpr" | "CXXBindTemporaryExpr" => match e.children().next() {
                    Some(inner) => e = inner,
                    None => return false,
                },
                "DeclRefExpr" => {
                    let Some(decl) = &e.referenced_decl else {
                        return false;
                    };
                    return self
                        .st
                        .index
                        .by_id
                        .get(decl.id.as_str())
                        .is_some_and(|d| d.nrvo)
                        || self.locals.get(decl.id.as_str()).is_some_and(|l| {
                            matches!((l, self.result_ptr), (Local::Address(a), Some(r)) if *a == r)
                        });
                }
                _ => return false,
            }
        }
    }

    fn switch_stmt(&mut self, s: &'ast Node) -> R<()> {
        if s.has_init || s.has_var {
            return unsupported(s, "switch with an init statement or variable");
        }
        let (cond, body) = (self.operand(s, 0)?, self.operand(s, 1)?);
        if body.kind != "CompoundStmt" {
            return unsupported(s, "switch without a compound statement body");
        }
        self.b.enter_scope();
        let cond_ty = self.ty(cond)?;
        let value = self.scalar(cond)?;
        let cir = self.cir(cond, &cond_ty)?;
        let switch = self.b.create_region_op(OpKind::Switch, &[value], &[], 1);
        self.b.enter_region(switch, 0, false);
        let mut in_case = false;
        for statement in body.children() {
            let mut current = statement;
            loop {
                match current.kind.as_str() {
                    "CaseStmt" => {
                        if current.is_gnu_range {
                            return unsupported(current, "case ranges");
                        }
                        let label = self.operand(current, 0)?;
                        let Some(value) =
                            crate::ast::folded_value(label).and_then(|v| v.parse::<i128>().ok())
                        else {
                            return error(current, "case value is not a constant");
                        };
                        if in_case {
                            self.b.exit_region();
                        }
                        let attr = self.b.ctx.attrs.intern(AttrData::Int { value, ty: cir });
                        self.b.enter_case(CaseKind::Equal, vec![attr]);
                        in_case = true;
                        match current.children().nth(1) {
                            Some(inner) => current = inner,
                            None => break,
                        }
                    }
                    "DefaultStmt" => {
                        if in_case {
                            self.b.exit_region();
                        }
                        self.b.enter_case(CaseKind::Default, vec![]);
                        in_case = true;
                        match current.children().next() {
                            Some(inner) => current = inner,
                            None => break,
                        }
                    }
                    _ => {
                        if !in_case {
                            return unsupported(current, "statements before the first case label");
                        }
                        if contains_case(current) {
                            return unsupported(
                                current,
                                "case labels nested inside statements of a switch body",
                            );
                        }
                        self.stmt(current)?;
                        break;
                    }
                }
            }
        }
        if in_case {
            self.b.exit_region();
        }
        self.b.exit_region();
        self.b.exit_scope();
        Ok(())
    }
}

/// The `LabelStmt` declaring `decl_id` within `s`.
fn find_label<'ast>(s: &'ast Node, decl_id: &str) -> Option<&'ast Node> {
    if s.kind == "LabelStmt" && s.decl_id.as_deref() == Some(decl_id) {
        return Some(s);
    }
    if s.kind.ends_with("Expr") {
        return None;
    }
    s.children().find_map(|child| find_label(child, decl_id))
}

/// Whether a statement contains a label (a `goto` may jump to it).
fn contains_label(s: &Node) -> bool {
    s.kind == "LabelStmt" || (!s.kind.ends_with("Expr") && s.children().any(contains_label))
}

/// Whether a statement contains a `case` or `default` label of the enclosing switch.
fn contains_case(s: &Node) -> bool {
    match s.kind.as_str() {
        "CaseStmt" | "DefaultStmt" => true,
        "SwitchStmt" => false,
        kind if kind.ends_with("Expr") => false,
        _ => s.children().any(contains_case),
    }
}
