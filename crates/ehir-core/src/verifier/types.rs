//! Type rules: operand and result types of every op, block arguments on every edge, where
//! tokens may flow, signatures, and the module-level symbol rules (callees, globals,
//! record fields).

use super::{FuncVerifier, OpView};
use crate::attrs::AttrData;
use crate::diagnostics::Diagnostic;
use crate::entities::{Attr, Op, Symbol, Type, Value};
use crate::function::Phase;
use crate::module::Module;
use crate::ops::{
    BinaryOp, CastKind, ExtraData, LandingPadClause, OpInfo, OpKind, TokenSlot, TokenType, UnaryOp,
};
use crate::types::TypeData;
use cranelift_entity::EntityRef;
use std::collections::BTreeSet;

/// Module items other than functions: global initialisers match the global's type.
pub(crate) fn check_module_items(module: &Module) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let ctx = &module.ctx;
    let bool_ty = ctx.types.common().bool;
    for (_, global) in module.globals.iter() {
        let Some(init) = global.init else {
            continue;
        };
        if init.index() >= ctx.attrs.len() {
            diags.push(Diagnostic::error(
                global.loc,
                "the initialiser of this global does not exist",
            ));
            continue;
        }
        let data = ctx.attrs.get(init);
        let typed_scalar = matches!(
            data,
            AttrData::Int { .. }
                | AttrData::Float { .. }
                | AttrData::Bool(_)
                | AttrData::Null(_)
                | AttrData::IntPtr { .. }
                | AttrData::Zero(_)
                | AttrData::Undef(_)
                | AttrData::ConstArray { .. }
                | AttrData::ConstRecord { .. }
        );
        if typed_scalar
            && let Some(t) = data.ty(bool_ty)
            && t != global.ty
        {
            let mut a = Vec::new();
            let mut b = Vec::new();
            let _ = crate::printer::write_type(&mut a, ctx, t);
            let _ = crate::printer::write_type(&mut b, ctx, global.ty);
            diags.push(Diagnostic::error(
                global.loc,
                format!(
                    "the initialiser has type {}, but the global has type {}",
                    String::from_utf8_lossy(&a),
                    String::from_utf8_lossy(&b)
                ),
            ));
        } else if global.ty.index() < ctx.types.len()
            && let Some(why) = super::constants::constant_misfit(ctx, Some(module), init, global.ty)
        {
            diags.push(Diagnostic::error(
                global.loc,
                format!("the initialiser of @{}: {why}", ctx.name(global.name)),
            ));
        }
    }
    diags
}

/// Checks of one op.
struct OpCheck<'v, 'a> {
    verifier: &'v FuncVerifier<'a>,
    op: Op,
    kind: OpKind,
    /// The op's row of the op table.
    info: &'static OpInfo,
    operands: &'v [Value],
    results: &'v [Value],
}

impl OpCheck<'_, '_> {
    /// The op's name, for messages.
    fn name(&self) -> &'static str {
        self.kind.name()
    }

    fn err(&self, message: impl Into<String>) {
        self.verifier.op_error(self.op, message);
    }

    fn operands(&self) -> &[Value] {
        self.operands
    }

    fn operand(&self, i: usize) -> Option<Type> {
        let v = *self.operands.get(i)?;
        self.verifier.valid_type(v)
    }

    fn result(&self, i: usize) -> Option<Type> {
        let v = *self.results.get(i)?;
        self.verifier.valid_type(v)
    }

    fn data(&self, t: Option<Type>) -> Option<&TypeData> {
        self.verifier.type_data(t?)
    }

    fn ty(&self, t: Type) -> String {
        self.verifier.type_str(t)
    }

    /// The generic shape check from the op table: operand and result counts, then the
    /// type of every token slot. Reports and returns false when a count is off (the
    /// token slots are then not checked).
    fn arity_and_tokens(&self) -> bool {
        let operands = self.kind.operand_count();
        let results = self.kind.result_count();
        let n = self.operands.len();
        let r = self.results.len();
        let mut ok = true;
        if !operands.contains(n) {
            self.err(format!(
                "'{}' takes {} operand(s), but has {n}",
                self.name(),
                operands.describe()
            ));
            ok = false;
        }
        if !results.contains(r) {
            self.err(format!(
                "'{}' has {} result(s), but has {r}",
                self.name(),
                results.describe()
            ));
            ok = false;
        }
        if !ok {
            return false;
        }
        let info = self.info;
        for slot in info.operand_tokens {
            self.expect_token(slot, self.operand(slot.index as usize));
        }
        for slot in info.result_tokens {
            self.expect_token(slot, self.result(slot.index as usize));
        }
        true
    }

    /// A token slot holds its token type (nothing to check when the slot is empty).
    fn expect_token(&self, slot: &TokenSlot, actual: Option<Type>) {
        let common = self.verifier.ctx.types.common();
        let expected = match slot.token {
            TokenType::Eh => common.eh_token,
            TokenType::Catch => common.catch_token,
            TokenType::Cleanup => common.cleanup_token,
            TokenType::CatchOrCleanup => {
                self.expect(
                    slot.role,
                    actual,
                    "a !cir.catch_token or !cir.cleanup_token",
                    |d| matches!(d, TypeData::CatchToken | TypeData::CleanupToken),
                );
                return;
            }
        };
        self.expect_eq(slot.role, actual, expected);
    }

    /// `actual` must be `expected`.
    fn expect_eq(&self, what: &str, actual: Option<Type>, expected: Type) {
        if let Some(a) = actual
            && a != expected
        {
            self.err(format!(
                "{what} of '{}' has type {}, but must be {}",
                self.name(),
                self.ty(a),
                self.ty(expected)
            ));
        }
    }

    /// `actual` must satisfy `pred` (described as `desc`).
    fn expect(
        &self,
        what: &str,
        actual: Option<Type>,
        desc: &str,
        pred: impl Fn(&TypeData) -> bool,
    ) {
        if let Some(a) = actual
            && let Some(d) = self.verifier.type_data(a)
            && !pred(d)
        {
            self.err(format!(
                "{what} of '{}' must be {desc}, but has type {}",
                self.name(),
                self.ty(a)
            ));
        }
    }

    fn pointee(&self, t: Option<Type>) -> Option<Type> {
        match self.data(t)? {
            TypeData::Ptr(p, _) => Some(*p),
            _ => None,
        }
    }
}

fn is_int(d: &TypeData) -> bool {
    matches!(d, TypeData::Int { .. })
}
fn is_float(d: &TypeData) -> bool {
    matches!(d, TypeData::Float | TypeData::Double)
}
fn is_ptr(d: &TypeData) -> bool {
    matches!(d, TypeData::Ptr(..))
}
fn is_bool(d: &TypeData) -> bool {
    matches!(d, TypeData::Bool)
}

impl FuncVerifier<'_> {
    /// The copy thunk `@thunk` of a `cir.construct_catch_param` whose parameter's address
    /// has type `dest`: a function `(dest, dest) -> ()` (the parameter, then the caught
    /// object), in upstream's words.
    fn check_copy_thunk(&self, op: Op, thunk: Symbol, dest: Type) {
        let Some(module) = self.module else {
            return;
        };
        let Some(id) = self.function_by_name(module, thunk) else {
            self.op_error(
                op,
                format!(
                    "'cir.construct_catch_param' op '{}' does not reference a valid cir.func",
                    self.sym_str(thunk)
                ),
            );
            return;
        };
        let Some((params, ret, _)) = self.ctx.types.func_info(module.functions[id].sig) else {
            return;
        };
        let is_ptr = |t: Type| matches!(self.type_data(t), Some(TypeData::Ptr(..)));
        if params.len() != 2 || !params.iter().all(|&p| is_ptr(p)) || self.non_void(ret).is_some() {
            self.op_error(
                op,
                "'cir.construct_catch_param' op catch-init copy_fn must take two pointer arguments and return void",
            );
        } else if params[0] != dest {
            self.op_error(
                op,
                "'cir.construct_catch_param' op first argument of catch-init copy_fn must match the type of 'param_addr'",
            );
        } else if params[1] != dest {
            self.op_error(
                op,
                "'cir.construct_catch_param' op second argument of catch-init copy_fn must be a pointer to the catch type",
            );
        }
    }

    /// Upstream's rules of `cir.init_catch_param KIND %exn to %dest`: the two
    /// reference-to-pointer kinds want `%dest` to be the address of a reference to a
    /// pointer (`!cir.ptr<!cir.ptr<!cir.ptr<T>>>`); a `cir.construct_catch_param` on the
    /// same `%dest` before it (in its block or, going out, before an op that encloses it)
    /// must have the same kind; `reference_to_pointer` and `non_trivial_copy` need one.
    fn check_init_catch_param(&self, op: Op, kind: Symbol) {
        let kind_name = self.sym_str(kind);
        let Some(&dest) = self.dfg.operands(op).get(1) else {
            return;
        };
        if matches!(
            kind_name.as_str(),
            "reference_to_pointer" | "reference_to_record_pointer"
        ) {
            let pointee = |t: Type| match self.type_data(t) {
                Some(TypeData::Ptr(p, _)) => Some(*p),
                _ => None,
            };
            let reference = pointee(self.dfg.value_type(dest)).and_then(pointee);
            if reference.and_then(pointee).is_none() {
                self.op_error(
                    op,
                    format!(
                        "'cir.init_catch_param' op '{kind_name}' requires 'param_addr' to be the address of a reference to a pointer"
                    ),
                );
                return;
            }
        }
        match self.preceding_construct_catch_param(op, dest) {
            Some(construct_kind) if construct_kind != kind => self.op_error(
                op,
                format!(
                    "'cir.init_catch_param' op kind '{kind_name}' does not match the kind '{}' of the preceding 'cir.construct_catch_param'",
                    self.sym_str(construct_kind)
                ),
            ),
            None if matches!(
                kind_name.as_str(),
                "reference_to_pointer" | "non_trivial_copy"
            ) =>
            {
                self.op_error(
                    op,
                    format!(
                        "'cir.init_catch_param' op '{kind_name}' requires a preceding 'cir.construct_catch_param' of the same kind on the same parameter"
                    ),
                )
            }
            _ => {}
        }
    }

    /// The kind of the nearest `cir.construct_catch_param` on `dest` before `op`: in its
    /// block, then before the op whose region holds that block, and so on outwards.
    fn preceding_construct_catch_param(&self, op: Op, dest: Value) -> Option<Symbol> {
        let layout = &self.func.layout;
        let mut at = op;
        loop {
            let mut prev = layout.prev_op(at);
            while let Some(p) = prev {
                if let OpKind::ConstructCatchParam { kind, .. } = *self.dfg.kind(p)
                    && self.dfg.operands(p).get(1) == Some(&dest)
                {
                    return Some(kind);
                }
                prev = layout.prev_op(p);
            }
            let region = layout.block_region(layout.op_block(at)?)?;
            at = self.dfg.region_parent(region)?;
        }
    }

    /// The type of a value if the value and its type exist.
    pub(crate) fn valid_type(&self, v: Value) -> Option<Type> {
        let t = self.dfg.values.get(v)?.ty;
        self.type_data(t).map(|_| t)
    }

    /// The function's signature is a function type that mentions no token.
    pub(crate) fn check_signature(&self) {
        let name = self.func_name();
        let Some((params, ret, _)) = self.signature() else {
            self.error(Diagnostic::error(
                self.func.loc,
                format!("the signature of @{name} is not a function type"),
            ));
            return;
        };
        if self.executable() && params.iter().chain(ret.iter()).any(|&t| self.is_token(t)) {
            self.error(Diagnostic::error(
                self.func.loc,
                format!("the signature of @{name} cannot mention a token type"),
            ));
        }
        if let Some(msg) = self.ctx.types.func_abi_error(self.func.sig) {
            self.error(Diagnostic::error(
                self.func.loc,
                format!("the signature of @{name}: {msg}"),
            ));
        }
    }

    /// Token flow, operand and result types, and block arguments of one op.
    pub(crate) fn check_op_type_rules(&self, view: &OpView) {
        let token_misuse = self.check_token_flow(view);
        if !token_misuse {
            self.check_op_types(view);
        }
        self.check_edge_arguments(view);
    }

    /// Tokens are used and produced only by the EH ops that take and make them. Returns
    /// whether the op misuses one (its other type checks are then skipped).
    fn check_token_flow(&self, view: &OpView) -> bool {
        let op = view.op;
        let kind = view.kind;
        let token_slot =
            |slots: &[TokenSlot], i: usize| slots.iter().any(|s| s.index as usize == i);
        let mut misuse = false;
        for (i, &v) in view.operands.iter().enumerate() {
            // Token types exist, so a token is a valid type.
            if let Some(t) = self.dfg.values.get(v).map(|d| d.ty)
                && self.is_token(t)
                && !token_slot(view.info.operand_tokens, i)
            {
                self.op_error(
                    op,
                    format!(
                        "operand #{i} of '{}' is a token ({}); tokens only flow into the EH ops that take them",
                        kind.name(),
                        self.type_str(t)
                    ),
                );
                misuse = true;
            }
        }
        for (i, &v) in view.results.iter().enumerate() {
            if let Some(t) = self.dfg.values.get(v).map(|d| d.ty)
                && self.is_token(t)
                && !token_slot(view.info.result_tokens, i)
            {
                self.op_error(
                    op,
                    format!(
                        "result #{i} of '{}' is a token ({}); only EH ops produce tokens",
                        kind.name(),
                        self.type_str(t)
                    ),
                );
                misuse = true;
            }
        }
        misuse
    }

    /// Token block parameters exist only in flat functions (and as a structured
    /// handler region's token, checked with the region shapes).
    pub(crate) fn check_block_param_tokens(&self) {
        if self.func.phase == Phase::Flat {
            return;
        }
        for &block in &self.index.blocks {
            let region = self.index.block_region[block].expect("placed");
            if self.index.entry_block(region) == Some(block) {
                continue;
            }
            for (i, &p) in self.dfg.block_params(block).iter().enumerate() {
                if let Some(t) = self.valid_type(p)
                    && self.is_token(t)
                {
                    let why = match self.func.phase {
                        Phase::Structured => "only a 'cir.try' handler region receives one",
                        _ => "LLVM has no token phis",
                    };
                    self.error(Diagnostic::error(
                        self.block_loc(block),
                        format!(
                            "parameter #{i} of {} cannot be a token in a{} {} function ({why})",
                            self.index.block_name(block),
                            if matches!(self.func.phase, Phase::Itanium | Phase::Msvc) {
                                "n"
                            } else {
                                ""
                            },
                            self.func.phase.name()
                        ),
                    ));
                }
            }
        }
    }

    /// Arguments passed along every edge match the target block's parameters.
    fn check_edge_arguments(&self, view: &OpView) {
        let op = view.op;
        let succs = view.successors;
        if succs.is_empty() {
            return;
        }
        let kind = view.kind;
        let name = kind.name();
        for (i, &s) in succs.iter().enumerate() {
            let Some(data) = self.dfg.successors.get(s) else {
                continue;
            };
            let target = data.block;
            if !self.index.has_block(target) {
                continue;
            }
            let args = data.args.as_slice(&self.dfg.value_lists);
            let params = self.dfg.block_params(target);
            // Named only when reporting: formatting it for every edge costs more than the
            // checks themselves.
            let block = || self.index.block_name(target);
            if let OpKind::EhDispatch { .. } = kind {
                if !args.is_empty() {
                    self.op_error(
                        op,
                        format!(
                            "'cir.eh.dispatch' passes its token implicitly; successor {} cannot be given arguments",
                            block()
                        ),
                    );
                }
                let eh_token = self.ctx.types.common().eh_token;
                let ok = match params {
                    [] => true,
                    [p] => self.valid_type(*p) == Some(eh_token),
                    _ => false,
                };
                if !ok {
                    self.error_with_note(
                        self.dfg.loc(op),
                        format!(
                            "successor {} of 'cir.eh.dispatch' must declare no parameter or one !cir.eh_token parameter",
                            block()
                        ),
                        self.block_loc(target),
                        "block defined here",
                    );
                }
                continue;
            }
            if args.len() != params.len() {
                self.error_with_note(
                    self.dfg.loc(op),
                    format!(
                        "successor {} of '{name}' takes {} argument(s), but is given {}",
                        block(),
                        params.len(),
                        args.len()
                    ),
                    self.block_loc(target),
                    "block defined here",
                );
                let _ = i;
                continue;
            }
            for (j, (&a, &p)) in args.iter().zip(params).enumerate() {
                if let (Some(ta), Some(tp)) = (self.valid_type(a), self.valid_type(p))
                    && ta != tp
                {
                    self.error_with_note(
                        self.dfg.loc(op),
                        format!(
                            "argument #{j} to successor {} of '{name}' has type {}, but the block parameter has type {}",
                            block(),
                            self.type_str(ta),
                            self.type_str(tp)
                        ),
                        self.block_loc(target),
                        "block defined here",
                    );
                }
            }
        }
    }

    fn check_op_types(&self, view: &OpView) {
        let op = view.op;
        let c = OpCheck {
            verifier: self,
            op,
            kind: view.kind,
            info: view.info,
            operands: view.operands,
            results: view.results,
        };
        let common = self.ctx.types.common();
        let shape_ok = c.arity_and_tokens();
        // Per-op type rules; the counts and token slots are checked above, from the op
        // table.
        match view.kind {
            OpKind::Return => {
                if !shape_ok {
                    return;
                }
                let Some((_, ret, _)) = self.signature() else {
                    return;
                };
                match (ret, c.operands().len()) {
                    (None, 1) => c.err(format!(
                        "@{} returns nothing, but 'cir.return' has a value",
                        self.func_name()
                    )),
                    (Some(r), 0) => c.err(format!(
                        "@{} returns {}, but 'cir.return' has no value",
                        self.func_name(),
                        self.type_str(r)
                    )),
                    (Some(r), _) => c.expect_eq("the returned value", c.operand(0), r),
                    (None, _) => {}
                }
            }
            OpKind::Alloca { alloc_ty, .. } => {
                if !shape_ok {
                    return;
                }
                match self.type_data(alloc_ty) {
                    None => c.err("the allocated type of 'cir.alloca' does not exist"),
                    Some(TypeData::Void | TypeData::Func { .. }) => c.err(format!(
                        "'cir.alloca' cannot allocate {}",
                        self.type_str(alloc_ty)
                    )),
                    Some(_) if self.is_token(alloc_ty) => c.err(format!(
                        "'cir.alloca' cannot allocate a token ({})",
                        self.type_str(alloc_ty)
                    )),
                    Some(_) => {
                        if let Some(r) = c.result(0)
                            && c.pointee(Some(r)) != Some(alloc_ty)
                        {
                            c.err(format!(
                                "the result of 'cir.alloca' has type {}, but must be !cir.ptr<{}>",
                                self.type_str(r),
                                self.type_str(alloc_ty)
                            ));
                        }
                    }
                }
                if c.operands().len() == 1 {
                    let count = c.operand(0);
                    c.expect("the element count", count, "an integer", is_int);
                }
            }
            OpKind::Load { .. } => {
                if !shape_ok {
                    return;
                }
                let addr = c.operand(0);
                c.expect("the address", addr, "a pointer", is_ptr);
                if let (Some(p), Some(r)) = (c.pointee(addr), c.result(0))
                    && p != r
                {
                    c.err(format!(
                        "'cir.load' yields {}, but its address points to {}",
                        self.type_str(r),
                        self.type_str(p)
                    ));
                }
            }
            OpKind::Store { .. } => {
                if !shape_ok {
                    return;
                }
                let addr = c.operand(1);
                c.expect("the address", addr, "a pointer", is_ptr);
                if let (Some(p), Some(v)) = (c.pointee(addr), c.operand(0))
                    && p != v
                {
                    c.err(format!(
                        "'cir.store' stores {}, but its address points to {}",
                        self.type_str(v),
                        self.type_str(p)
                    ));
                }
            }
            OpKind::Const { value } => {
                if !shape_ok {
                    return;
                }
                self.check_const(&c, value);
            }
            OpKind::Call { callee, sig, .. } | OpKind::TryCall { callee, sig, .. } => {
                if shape_ok {
                    self.check_call(&c, callee.expand(), sig);
                }
            }
            OpKind::Binary(kind) => {
                if !shape_ok {
                    return;
                }
                let (a, b, r) = (c.operand(0), c.operand(1), c.result(0));
                if let (Some(a), Some(b)) = (a, b)
                    && a != b
                {
                    c.err(format!(
                        "the operands of '{}' have different types {} and {}",
                        kind.op_name(),
                        self.type_str(a),
                        self.type_str(b)
                    ));
                    return;
                }
                if let Some(a) = a {
                    c.expect_eq("the result", r, a);
                }
                let (desc, pred): (&str, fn(&TypeData) -> bool) = match kind {
                    BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div => {
                        ("an integer or floating-point value", |d| {
                            is_int(d) || is_float(d)
                        })
                    }
                    BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => {
                        ("an integer or !cir.bool", |d| is_int(d) || is_bool(d))
                    }
                    BinaryOp::Rem | BinaryOp::Shl | BinaryOp::Shr => ("an integer", is_int),
                };
                c.expect("operand #0", a, desc, pred);
            }
            OpKind::Unary(kind) => {
                if !shape_ok {
                    return;
                }
                let a = c.operand(0);
                if let Some(a) = a {
                    c.expect_eq("the result", c.result(0), a);
                }
                let (desc, pred): (&str, fn(&TypeData) -> bool) = match kind {
                    UnaryOp::Not => ("an integer or !cir.bool", |d| is_int(d) || is_bool(d)),
                    _ => ("an integer or floating-point value", |d| {
                        is_int(d) || is_float(d)
                    }),
                };
                c.expect("the operand", a, desc, pred);
            }
            OpKind::Cmp(pred) => {
                if !shape_ok {
                    return;
                }
                let (a, b) = (c.operand(0), c.operand(1));
                if let (Some(a), Some(b)) = (a, b)
                    && a != b
                {
                    c.err(format!(
                        "the operands of 'cir.cmp({})' have different types {} and {}",
                        pred.name(),
                        self.type_str(a),
                        self.type_str(b)
                    ));
                }
                c.expect(
                    "operand #0",
                    a,
                    "an integer, floating-point, pointer or !cir.bool value",
                    |d| is_int(d) || is_float(d) || is_ptr(d) || is_bool(d),
                );
                c.expect_eq("the result", c.result(0), common.bool);
            }
            OpKind::Cast(kind) => {
                if !shape_ok {
                    return;
                }
                self.check_cast(&c, kind);
            }
            OpKind::Select => {
                if !shape_ok {
                    return;
                }
                c.expect_eq("the condition", c.operand(0), common.bool);
                let (a, b, r) = (c.operand(1), c.operand(2), c.result(0));
                if let (Some(a), Some(b)) = (a, b)
                    && a != b
                {
                    c.err(format!(
                        "the alternatives of 'cir.select' have different types {} and {}",
                        self.type_str(a),
                        self.type_str(b)
                    ));
                } else if let Some(a) = a {
                    c.expect_eq("the result", r, a);
                }
            }
            OpKind::PtrStride => {
                if !shape_ok {
                    return;
                }
                let p = c.operand(0);
                c.expect("the base", p, "a pointer", is_ptr);
                c.expect("the stride", c.operand(1), "an integer", is_int);
                if let Some(p) = p {
                    c.expect_eq("the result", c.result(0), p);
                }
            }
            OpKind::GetMember { index, .. } => {
                if !shape_ok {
                    return;
                }
                self.check_get_member(&c, index);
            }
            OpKind::BaseClassAddr { .. } | OpKind::DerivedClassAddr { .. } => {
                if !shape_ok {
                    return;
                }
                c.expect("the operand", c.operand(0), "a pointer", is_ptr);
                c.expect("the result", c.result(0), "a pointer", is_ptr);
            }
            OpKind::GetGlobal { symbol } => {
                if !shape_ok {
                    return;
                }
                let r = c.result(0);
                c.expect("the result", r, "a pointer", is_ptr);
                self.check_global_ref(&c, symbol, c.pointee(r));
            }
            OpKind::AllocException { .. } => {
                if shape_ok {
                    c.expect("the result", c.result(0), "a pointer", is_ptr);
                }
            }
            OpKind::FreeException => {
                if shape_ok {
                    c.expect("the exception object", c.operand(0), "a pointer", is_ptr);
                }
            }
            OpKind::LifetimeStart | OpKind::LifetimeEnd => {
                if shape_ok {
                    c.expect("the object", c.operand(0), "a pointer", is_ptr);
                }
            }
            OpKind::TryThrow => {
                if shape_ok {
                    c.expect("the thrown object", c.operand(0), "a pointer", is_ptr);
                    c.expect("the typeinfo", c.operand(1), "a pointer", is_ptr);
                    c.expect("the destructor", c.operand(2), "a pointer", is_ptr);
                }
            }
            OpKind::Throw { type_info, dtor } => {
                if !shape_ok {
                    return;
                }
                if c.operands().is_empty() {
                    if type_info.is_some() || dtor.is_some() {
                        c.err("a rethrow ('cir.throw' without an object) cannot name a typeinfo or destructor");
                    }
                } else {
                    c.expect("the thrown object", c.operand(0), "a pointer", is_ptr);
                    if type_info.is_none() {
                        c.err("'cir.throw' op 'type_info' symbol attribute missing: a throw of an object must name its typeinfo");
                    }
                }
            }
            OpKind::Resume
            | OpKind::EhTerminate
            | OpKind::EhUnexpected
            | OpKind::EhInitiate { .. }
            | OpKind::EhDispatch { .. }
            | OpKind::BeginCleanup
            | OpKind::EndCleanup
            | OpKind::EndCatch
            | OpKind::CatchSwitch { .. }
            | OpKind::CleanupPad
            | OpKind::CatchRet
            | OpKind::CleanupRet
            | OpKind::Scope
            | OpKind::Yield
            | OpKind::Unreachable
            | OpKind::Br
            | OpKind::While
            | OpKind::DoWhile
            | OpKind::For
            | OpKind::Break
            | OpKind::Continue
            | OpKind::Goto { .. }
            | OpKind::Label { .. }
            | OpKind::Case { .. }
            | OpKind::CleanupScope { .. }
            | OpKind::Try { .. } => {}
            OpKind::BrCond | OpKind::Condition | OpKind::If => {
                if shape_ok {
                    c.expect_eq("the condition", c.operand(0), common.bool);
                }
            }
            OpKind::SwitchFlat { cases } => {
                if shape_ok {
                    c.expect("the condition", c.operand(0), "an integer", is_int);
                }
                if let Some(ExtraData::Cases(values)) = self.dfg.extras.get(cases) {
                    let mut seen = BTreeSet::new();
                    for v in values {
                        if !seen.insert(*v) {
                            c.err(format!("'cir.switch.flat' lists case {v} twice"));
                        }
                    }
                }
            }
            OpKind::IndirectBr => {
                if shape_ok {
                    c.expect("the address", c.operand(0), "a pointer", is_ptr);
                }
            }
            OpKind::BlockAddress { .. } => {
                if shape_ok {
                    c.expect("the result", c.result(0), "a pointer", is_ptr);
                }
            }
            OpKind::Switch => {
                if shape_ok {
                    c.expect("the condition", c.operand(0), "an integer", is_int);
                }
            }
            OpKind::Ternary => {
                if shape_ok {
                    c.expect_eq("the condition", c.operand(0), common.bool);
                }
            }
            OpKind::ConstructCatchParam { thunk, .. } => {
                if shape_ok {
                    c.expect(
                        "the catch parameter's address",
                        c.operand(1),
                        "a pointer",
                        is_ptr,
                    );
                    if let (Some(thunk), Some(dest)) = (thunk.expand(), c.operand(1)) {
                        self.check_copy_thunk(c.op, thunk, dest);
                    }
                }
            }
            OpKind::InitCatchParam { kind } => {
                if shape_ok {
                    c.expect("the exception pointer", c.operand(0), "a pointer", is_ptr);
                    c.expect(
                        "the catch parameter's address",
                        c.operand(1),
                        "a pointer",
                        is_ptr,
                    );
                    self.check_init_catch_param(op, kind);
                }
            }
            OpKind::CatchParam => {
                if shape_ok {
                    c.expect("the result", c.result(0), "a pointer", is_ptr);
                }
            }
            OpKind::CopyCatchParam { .. } => {
                if shape_ok {
                    self.check_copy_catch_param(&c);
                }
            }
            OpKind::ArrayCtor | OpKind::ArrayDtor => {
                if shape_ok {
                    self.check_array_regions(&c);
                }
            }
            OpKind::BeginCatch => {
                if shape_ok {
                    c.expect("result #1", c.result(1), "a pointer", is_ptr);
                }
            }
            OpKind::EhLandingPad { cleanup, clauses } => {
                if shape_ok {
                    c.expect_eq("the exception pointer", c.result(0), common.void_ptr);
                    c.expect_eq("the selector", c.result(1), common.u32);
                }
                match self.dfg.extras.get(clauses) {
                    Some(ExtraData::LandingPadClauses(list)) => {
                        if list.is_empty() && !cleanup && self.executable() {
                            c.err("'cir.eh.inflight_exception' needs a clause or 'cleanup'");
                        }
                        for clause in list {
                            match clause {
                                LandingPadClause::Catch(Some(sym)) => self.check_not_a_function(
                                    op,
                                    *sym,
                                    "'cir.eh.inflight_exception'",
                                ),
                                LandingPadClause::Catch(None) => {}
                                LandingPadClause::Filter(syms) => {
                                    for &sym in syms {
                                        self.check_not_a_function(
                                            op,
                                            sym,
                                            "'cir.eh.inflight_exception'",
                                        );
                                    }
                                }
                            }
                        }
                    }
                    _ => c.err("'cir.eh.inflight_exception' has no clause list"),
                }
            }
            OpKind::EhTypeId { type_info } => {
                if shape_ok {
                    c.expect_eq("the result", c.result(0), common.u32);
                }
                if let Some(module) = self.module
                    && self.function_by_name(module, type_info).is_some()
                {
                    c.err(format!(
                        "'cir.eh.typeid' names @{}, which is a function, not a typeinfo",
                        self.sym_str(type_info)
                    ));
                }
            }
            OpKind::ResumeFlat => {
                if shape_ok {
                    c.expect_eq("the exception pointer", c.operand(0), common.void_ptr);
                    c.expect_eq("the selector", c.operand(1), common.u32);
                }
            }
            OpKind::CatchPad {
                has_slot,
                type_desc,
                ..
            } => {
                if let Some(sym) = type_desc.expand() {
                    self.check_not_a_function(op, sym, "'cir.catchpad'");
                }
                if shape_ok && has_slot {
                    c.expect("the catch object slot", c.operand(1), "a pointer", is_ptr);
                }
            }
        }
    }

    fn check_const(&self, c: &OpCheck, value: Attr) {
        if value.index() >= self.ctx.attrs.len() {
            c.err("the attribute of 'cir.const' does not exist");
            return;
        }
        let data = self.ctx.attrs.get(value);
        let r = c.result(0);
        let (desc, pred): (&str, fn(&TypeData) -> bool) = match data {
            AttrData::Int { .. } => ("an integer type", is_int),
            AttrData::Float { .. } => ("a floating-point type", is_float),
            AttrData::Null(_) | AttrData::IntPtr { .. } | AttrData::GlobalView { .. } => {
                ("a pointer type", is_ptr)
            }
            AttrData::List(_) => {
                c.err("'cir.const' cannot hold a list attribute");
                return;
            }
            _ => ("any type", |_| true),
        };
        if let Some(t) = data.ty(self.ctx.types.common().bool) {
            if let Some(d) = self.type_data(t)
                && !pred(d)
            {
                c.err(format!(
                    "the attribute of 'cir.const' has type {}, which is not {desc}",
                    self.type_str(t)
                ));
                return;
            }
            c.expect_eq("the result", r, t);
        } else {
            c.expect("the result", r, desc, pred);
        }
        if let Some(r) = r
            && let Some(why) = super::constants::constant_misfit(self.ctx, self.module, value, r)
        {
            c.err(format!("the attribute of 'cir.const': {why}"));
        }
    }

    fn check_cast(&self, c: &OpCheck, kind: CastKind) {
        let (a, r) = (c.operand(0), c.result(0));
        let (Some(da), Some(dr)) = (c.data(a), c.data(r)) else {
            return;
        };
        use CastKind::*;
        let (ok, want) = match kind {
            IntToBool => (is_int(da) && is_bool(dr), "an integer to !cir.bool"),
            BoolToInt => (is_bool(da) && is_int(dr), "!cir.bool to an integer"),
            Integral => (is_int(da) && is_int(dr), "an integer to an integer"),
            FloatToInt => (
                is_float(da) && is_int(dr),
                "a floating-point value to an integer",
            ),
            IntToFloat => (
                is_int(da) && is_float(dr),
                "an integer to a floating-point value",
            ),
            Floating => (
                is_float(da) && is_float(dr),
                "a floating-point value to a floating-point value",
            ),
            FloatToBool => (
                is_float(da) && is_bool(dr),
                "a floating-point value to !cir.bool",
            ),
            BoolToFloat => (
                is_bool(da) && is_float(dr),
                "!cir.bool to a floating-point value",
            ),
            PtrToBool => (is_ptr(da) && is_bool(dr), "a pointer to !cir.bool"),
            PtrToInt => (is_ptr(da) && is_int(dr), "a pointer to an integer"),
            IntToPtr => (is_int(da) && is_ptr(dr), "an integer to a pointer"),
            Bitcast => (
                (is_ptr(da) && is_ptr(dr))
                    || ((is_int(da) || is_float(da)) && (is_int(dr) || is_float(dr))),
                "a pointer to a pointer, or a scalar to a scalar",
            ),
            ArrayToPtrDecay => {
                let ok = match (c.pointee(a).and_then(|p| self.type_data(p)), c.pointee(r)) {
                    (Some(TypeData::Array(element, _)), Some(to)) => *element == to,
                    _ => false,
                };
                (ok, "!cir.ptr<!cir.array<T x N>> to !cir.ptr<T>")
            }
            NullToPtr => (
                (is_int(da) || is_ptr(da)) && is_ptr(dr),
                "a null value to a pointer",
            ),
        };
        if !ok {
            c.err(format!(
                "'cir.cast {}' converts {want}, but has {} -> {}",
                kind.name(),
                self.type_str(a.expect("checked")),
                self.type_str(r.expect("checked"))
            ));
        }
    }

    fn check_call(&self, c: &OpCheck, callee: Option<crate::entities::Symbol>, sig: Type) {
        let name = c.name();
        let Some((params, ret, vararg)) = self
            .type_data(sig)
            .and_then(|_| self.ctx.types.func_info(sig))
            .map(|(p, r, v)| (p, self.non_void(r), v))
        else {
            c.err(format!("the signature of '{name}' is not a function type"));
            return;
        };
        if let Some(msg) = self.ctx.types.func_abi_error(sig) {
            c.err(format!("the signature of '{name}': {msg}"));
        }
        let operands = c.operands();
        let first_arg = if callee.is_some() { 0 } else { 1 };
        if callee.is_none() {
            let Some(&f) = operands.first() else {
                c.err(format!("indirect '{name}' has no callee operand"));
                return;
            };
            if let Some(t) = self.valid_type(f)
                && c.pointee(Some(t)) != Some(sig)
            {
                c.err(format!(
                    "the callee of indirect '{name}' has type {}, but must be !cir.ptr<{}>",
                    self.type_str(t),
                    self.type_str(sig)
                ));
            }
        }
        let args = &operands[first_arg.min(operands.len())..];
        let arity_ok = if vararg {
            args.len() >= params.len()
        } else {
            args.len() == params.len()
        };
        if !arity_ok {
            c.err(format!(
                "'{name}' passes {} argument(s), but its signature {} takes {}{}",
                args.len(),
                self.type_str(sig),
                if vararg { "at least " } else { "" },
                params.len()
            ));
        } else {
            for (i, (&a, &p)) in args.iter().zip(params).enumerate() {
                if let Some(t) = self.valid_type(a)
                    && t != p
                {
                    c.err(format!(
                        "argument #{i} of '{name}' has type {}, but the signature takes {}",
                        self.type_str(t),
                        self.type_str(p)
                    ));
                }
            }
        }
        let results = self.dfg.results(c.op);
        match ret {
            None if !results.is_empty() => c.err(format!(
                "'{name}' has {} result(s), but its signature returns nothing",
                results.len()
            )),
            Some(r) if results.len() != 1 => c.err(format!(
                "'{name}' has {} result(s), but its signature returns {}",
                results.len(),
                self.type_str(r)
            )),
            Some(r) => c.expect_eq("the result", c.result(0), r),
            None => {}
        }
        let (Some(module), Some(callee)) = (self.module, callee) else {
            return;
        };
        match self.function_by_name(module, callee) {
            Some(id) => {
                let decl = &module.functions[id];
                if decl.sig != sig {
                    self.error_with_note(
                        self.dfg.loc(c.op),
                        format!(
                            "'{name}' uses signature {}, but @{} is declared as {}",
                            self.type_str(sig),
                            self.sym_str(callee),
                            self.type_str(decl.sig)
                        ),
                        decl.loc,
                        "declared here",
                    );
                }
            }
            None if module.global_by_name(callee).is_some() => c.err(format!(
                "'{name}' calls @{}, which is a global, not a function",
                self.sym_str(callee)
            )),
            None => c.err(format!(
                "'{name}' calls @{}, which is not declared in this module",
                self.sym_str(callee)
            )),
        }
    }

    fn check_get_member(&self, c: &OpCheck, index: u32) {
        let base = c.operand(0);
        c.expect("the base", base, "a pointer to a record", is_ptr);
        let Some(pointee) = c.pointee(base) else {
            return;
        };
        let Some(TypeData::Record(alias)) = self.type_data(pointee) else {
            c.err(format!(
                "the base of 'cir.get_member' must point to a record, but points to {}",
                self.type_str(pointee)
            ));
            return;
        };
        let record = self.type_str(pointee);
        let Some(fields) = self.ctx.record(*alias).and_then(|r| r.fields.as_ref()) else {
            c.err(format!(
                "'cir.get_member' needs the fields of {record}, which is not declared with a body"
            ));
            return;
        };
        let Some(&field) = fields.get(index as usize) else {
            c.err(format!(
                "'cir.get_member' selects field {index} of {record}, which has {} field(s)",
                fields.len()
            ));
            return;
        };
        if let Some(r) = c.result(0)
            && c.pointee(Some(r)) != Some(field)
        {
            c.err(format!(
                "the result of 'cir.get_member' has type {}, but field {index} of {record} has type {}",
                self.type_str(r),
                self.type_str(field)
            ));
        }
    }

    fn check_global_ref(
        &self,
        c: &OpCheck,
        symbol: crate::entities::Symbol,
        pointee: Option<Type>,
    ) {
        let Some(module) = self.module else {
            return;
        };
        let (declared, what) = if let Some(g) = module.global_by_name(symbol) {
            (module.globals[g].ty, "global")
        } else if let Some(f) = self.function_by_name(module, symbol) {
            (module.functions[f].sig, "function")
        } else {
            c.err(format!(
                "'cir.get_global' names @{}, which is not a global of this module",
                self.sym_str(symbol)
            ));
            return;
        };
        if let Some(p) = pointee
            && p != declared
        {
            c.err(format!(
                "'cir.get_global' yields !cir.ptr<{}>, but {what} @{} has type {}",
                self.type_str(p),
                self.sym_str(symbol),
                self.type_str(declared)
            ));
        }
    }

    /// `cir.copy_catch_param %exn to %dest`: two pointers of one type; `%exn` is the
    /// exception pointer of the op right before it (`cir.catch_param`, or result #1 of
    /// `cir.begin_catch`).
    fn check_copy_catch_param(&self, c: &OpCheck) {
        c.expect("the exception object", c.operand(0), "a pointer", is_ptr);
        c.expect("the catch parameter", c.operand(1), "a pointer", is_ptr);
        if let (Some(exn), Some(dest)) = (c.operand(0), c.operand(1))
            && exn != dest
        {
            c.err(format!(
                "the exception object ({}) and the catch parameter ({}) of 'cir.copy_catch_param' must have one type",
                self.type_str(exn),
                self.type_str(dest)
            ));
        }
        let op = c.op;
        let previous = self.index.op_block[op].expand().and_then(|block| {
            let position = self.index.op_pos[op] as usize;
            position
                .checked_sub(1)
                .and_then(|p| self.index.block_ops(block).get(p).copied())
        });
        let exn = c.operands.first().copied();
        let follows = previous.is_some_and(|p| {
            let index = match self.dfg.kind(p) {
                OpKind::CatchParam => 0,
                OpKind::BeginCatch => 1,
                _ => return false,
            };
            self.dfg.results(p).get(index).copied() == exn
        });
        if !follows {
            c.err(
                "'cir.copy_catch_param' must follow the 'cir.catch_param' or 'cir.begin_catch' whose exception pointer it copies",
            );
        }
    }

    /// `cir.array.ctor`/`cir.array.dtor`: a pointer to an array, and each region's entry
    /// block takes one pointer to an element.
    fn check_array_regions(&self, c: &OpCheck) {
        let a = c.operand(0);
        let element = match c.pointee(a).and_then(|p| self.type_data(p)) {
            Some(TypeData::Array(element, _)) => *element,
            _ => {
                if let Some(a) = a {
                    c.err(format!(
                        "the operand of '{}' must be a pointer to an array, but has type {}",
                        c.name(),
                        self.type_str(a)
                    ));
                }
                return;
            }
        };
        for (i, &region) in self.dfg.regions(c.op).iter().enumerate() {
            let Some(entry) = self.index.region_blocks(region).first().copied() else {
                continue;
            };
            let params = self.dfg.block_params(entry);
            let ok = match params {
                [p] => self
                    .valid_type(*p)
                    .is_some_and(|t| c.pointee(Some(t)) == Some(element)),
                _ => false,
            };
            if !ok {
                self.error(Diagnostic::error(
                    self.block_loc(entry),
                    format!(
                        "region #{i} of '{}' must take one !cir.ptr<{}> parameter",
                        c.name(),
                        self.type_str(element)
                    ),
                ));
            }
        }
    }
}
