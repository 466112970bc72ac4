//! Op parsing: one function per op syntax (canonical form first, then the accepted
//! variants of `docs/syntax.md`), and the continuation of region ops after each of their
//! regions closes (`else`, `do`, `cleanup KIND`, `catch [...]`, ...).

use crate::lexer::{Token, TokenKind};
use crate::parser::{Names, PResult, Parser};
use ehir_core::ops::OpCode;
use ehir_core::{
    AllocaSpelling, Attr, AttrData, BinaryOp, Block, CallFlags, CaseKind, CastKind, CleanupKind,
    CmpPredicate, Diagnostic, ExtraData, HandlerKey, LandingPadClause, Loc, Op, OpKind,
    PackedOption, ParamAbi, Symbol, Type, UnaryOp, Value,
};
use smallvec::SmallVec;

type Values = SmallVec<[Value; 4]>;

/// What a `cir.alloca` says: the allocated type, the result type, the variable's name,
/// whether it is `init` and the alignment.
/// Type, address type, name, `init`, alignment, `cleanup_dest_slot`.
type AllocaParts = (Type, Type, Symbol, bool, u16, bool);

/// A parsed successor: target block and arguments.
struct Succ {
    block: Block,
    args: Values,
}

impl<'s> Parser<'s> {
    /// Parses one op (with its result names) and appends it to the current block. Region
    /// ops open their first region; `parse_regions` continues from there.
    pub(crate) fn parse_op(&mut self) -> PResult<()> {
        let loc = self.loc();
        let mut names: Names<'s> = SmallVec::new();
        if self.at(TokenKind::ValueId) {
            loop {
                let t = self.tok;
                names.push((&self.text_of(t)[1..], Loc(t.start)));
                self.bump();
                if !self.eat(TokenKind::Comma) {
                    break;
                }
                if !self.at(TokenKind::ValueId) {
                    return Err(self.unexpected("a result name ('%name')"));
                }
            }
            self.expect(TokenKind::Equal, "'=' after the result names")?;
        }
        if self.tok.kind == TokenKind::String {
            return Err(self.generic_op());
        }
        if self.tok.kind != TokenKind::Ident {
            return Err(self.unexpected("an op name"));
        }
        let op_tok = self.tok;
        let name = self.text_of(op_tok);
        if matches!(name, "cir.func" | "cir.global" | "cir.typeinfo") {
            // A missing '}': leave the item for the module level to parse.
            let open = self.innermost_open_loc();
            self.diags.push(
                Diagnostic::error(
                    Loc(op_tok.start),
                    format!("expected '}}' to close the region before '{name}'"),
                )
                .with_note(open, "the region opened here"),
            );
            return Err(crate::parser::Abort);
        }
        self.bump();
        let n = &names;
        match OpCode::from_name(name) {
            Some(OpCode::Return) => self.parse_value_terminator(OpKind::Return, n, loc),
            Some(OpCode::Yield) => self.parse_value_terminator(OpKind::Yield, n, loc),
            Some(OpCode::Alloca) => self.parse_alloca(n, loc),
            Some(OpCode::Load) => self.parse_load(n, loc),
            Some(OpCode::Store) => self.parse_store(n, loc),
            Some(OpCode::Const) => self.parse_const(n, loc),
            Some(OpCode::Call) => self.parse_call(false, n, loc),
            Some(OpCode::TryCall) => self.parse_call(true, n, loc),
            Some(OpCode::TryThrow) => self.parse_try_throw(n, loc),
            Some(OpCode::Binary) => self.parse_binop(name, n, loc),
            Some(OpCode::Unary) if name == "cir.not" => self.parse_not(n, loc),
            Some(OpCode::Unary) => self.parse_unary(n, loc),
            Some(OpCode::Cmp) => self.parse_cmp(n, loc),
            Some(OpCode::Cast) => self.parse_cast(n, loc),
            Some(OpCode::Select) => self.parse_select(n, loc),
            Some(OpCode::PtrStride) => self.parse_ptr_stride(n, loc),
            Some(OpCode::GetMember) => self.parse_get_member(n, loc),
            Some(OpCode::BaseClassAddr) => self.parse_class_addr(true, n, loc),
            Some(OpCode::DerivedClassAddr) => self.parse_class_addr(false, n, loc),
            Some(OpCode::GetGlobal) => {
                let (symbol, _) = self.expect_symbol("the global's symbol")?;
                self.expect(TokenKind::Colon, "':' and the result type")?;
                let ty = self.parse_type()?;
                self.emit(OpKind::GetGlobal { symbol }, &[], &[ty], n, loc);
                Ok(())
            }
            Some(OpCode::AllocException) => {
                let size = self.expect_uint("the exception object's size", u64::MAX)?;
                self.expect(TokenKind::Arrow, "'->' and the result type")?;
                let ty = self.parse_type()?;
                self.emit(OpKind::AllocException { size }, &[], &[ty], n, loc);
                Ok(())
            }
            Some(OpCode::FreeException) => self.parse_end(OpKind::FreeException, n, loc),
            Some(OpCode::LifetimeStart) => self.parse_end(OpKind::LifetimeStart, n, loc),
            Some(OpCode::LifetimeEnd) => self.parse_end(OpKind::LifetimeEnd, n, loc),
            Some(OpCode::Throw) => self.parse_throw(n, loc),
            Some(OpCode::Resume) => self.parse_optional_token_terminator(OpKind::Resume, n, loc),
            Some(OpCode::EhTerminate) => {
                self.parse_optional_token_terminator(OpKind::EhTerminate, n, loc)
            }
            Some(OpCode::EhUnexpected) => {
                self.parse_optional_token_terminator(OpKind::EhUnexpected, n, loc)
            }
            Some(OpCode::Unreachable) => {
                // Upstream's `cir.throw` is no terminator and is followed by
                // `cir.unreachable`; ehir's `cir.throw` ends its block by itself.
                let after_throw = self
                    .func
                    .open_block()
                    .and_then(|b| self.func.func.layout.last_op(b))
                    .is_some_and(|op| matches!(self.func.func.dfg.kind(op), OpKind::Throw { .. }));
                if after_throw && n.is_empty() {
                    return Ok(());
                }
                self.simple(OpKind::Unreachable, n, loc)
            }
            Some(OpCode::Break) => self.simple(OpKind::Break, n, loc),
            Some(OpCode::Continue) => self.simple(OpKind::Continue, n, loc),
            Some(OpCode::Br) => {
                let s = self.parse_successor()?;
                let op = self.emit(OpKind::Br, &[], &[], n, loc);
                self.attach(op, [s]);
                Ok(())
            }
            Some(OpCode::BrCond) => {
                let c = self.expect_value_use(None)?;
                let t = self.parse_successor()?;
                self.eat(TokenKind::Comma);
                let f = self.parse_successor()?;
                let op = self.emit(OpKind::BrCond, &[c], &[], n, loc);
                self.attach(op, [t, f]);
                Ok(())
            }
            Some(OpCode::SwitchFlat) => self.parse_switch_flat(n, loc),
            Some(OpCode::IndirectBr) => self.parse_indirect_br(n, loc),
            Some(OpCode::BlockAddress) => self.parse_block_address(n, loc),
            Some(OpCode::Scope) => self.region_op(OpKind::Scope, &[], n, loc),
            Some(OpCode::If) => {
                let c = self.expect_value_use(None)?;
                self.region_op(OpKind::If, &[c], n, loc)
            }
            Some(OpCode::While) => self.region_op(OpKind::While, &[], n, loc),
            Some(OpCode::DoWhile) => self.region_op(OpKind::DoWhile, &[], n, loc),
            Some(OpCode::For) => {
                self.expect(TokenKind::Colon, "':'")?;
                self.expect_ident("cond", "'cond'")?;
                self.region_op(OpKind::For, &[], n, loc)
            }
            Some(OpCode::Condition) => {
                self.expect(TokenKind::LParen, "'('")?;
                let c = self.expect_value_use(None)?;
                self.expect(TokenKind::RParen, "')'")?;
                self.emit(OpKind::Condition, &[c], &[], n, loc);
                Ok(())
            }
            Some(OpCode::Goto) => {
                let label = self.expect_string_symbol("the label (a string)")?;
                self.simple(OpKind::Goto { label }, n, loc)
            }
            Some(OpCode::Label) => {
                let label = self.expect_string_symbol("the label (a string)")?;
                self.simple(OpKind::Label { name: label }, n, loc)
            }
            Some(OpCode::Switch) => {
                self.expect(TokenKind::LParen, "'('")?;
                let (v, _) = self.expect_typed_value()?;
                self.expect(TokenKind::RParen, "')'")?;
                self.region_op(OpKind::Switch, &[v], n, loc)
            }
            Some(OpCode::Case) => self.parse_case(n, loc),
            Some(OpCode::Ternary) => {
                self.expect(TokenKind::LParen, "'('")?;
                let c = self.expect_value_use(None)?;
                self.expect(TokenKind::Comma, "','")?;
                self.expect_ident("true", "'true' and the true region")?;
                let op = self.emit(OpKind::Ternary, &[c], &[], &[], loc);
                self.push_pending_results(op, names.clone());
                self.open_region(op, 0, &[])
            }
            Some(OpCode::CleanupScope) => {
                let kind = OpKind::CleanupScope {
                    kind: CleanupKind::All,
                };
                self.region_op(kind, &[], n, loc)
            }
            Some(OpCode::Try) => {
                let handlers = self
                    .func
                    .func
                    .dfg
                    .make_extra(ExtraData::Handlers(Vec::new()));
                self.region_op(OpKind::Try { handlers }, &[], n, loc)
            }
            Some(OpCode::ConstructCatchParam) => {
                let kind = self.catch_init_kind()?;
                let token = self.expect(TokenKind::ValueId, "the token ('%name')")?;
                let (dest, thunk, ty) = self.catch_param_copy("the copy function ('@name')")?;
                let eh_token = self.module.ctx.types.common().eh_token;
                let token = self.use_value(token, Some(eh_token));
                let dest = self.use_value(dest, Some(ty));
                let kind = OpKind::ConstructCatchParam {
                    kind,
                    thunk: thunk.into(),
                };
                self.emit(kind, &[token, dest], &[], n, loc);
                Ok(())
            }
            Some(OpCode::InitCatchParam) => {
                let kind = self.catch_init_kind()?;
                let exn = self.expect(TokenKind::ValueId, "the exception pointer ('%name')")?;
                self.expect_ident("to", "'to' and the catch parameter's address")?;
                let dest = self.expect(
                    TokenKind::ValueId,
                    "the catch parameter's address ('%name')",
                )?;
                self.expect(
                    TokenKind::Colon,
                    "':' and the types of the exception pointer and the parameter's address",
                )?;
                let exn_ty = self.parse_type()?;
                self.expect(TokenKind::Comma, "',' and the parameter's address type")?;
                let dest_ty = self.parse_type()?;
                let exn = self.use_value(exn, Some(exn_ty));
                let dest = self.use_value(dest, Some(dest_ty));
                self.emit(OpKind::InitCatchParam { kind }, &[exn, dest], &[], n, loc);
                Ok(())
            }
            Some(OpCode::CopyCatchParam) => {
                let exn = self.expect(TokenKind::ValueId, "the exception object ('%name')")?;
                let (dest, ctor, ty) = self.catch_param_copy("the copy constructor ('@name')")?;
                let exn = self.use_value(exn, Some(ty));
                let dest = self.use_value(dest, Some(ty));
                let kind = OpKind::CopyCatchParam { ctor: ctor.into() };
                self.emit(kind, &[exn, dest], &[], n, loc);
                Ok(())
            }
            Some(OpCode::CatchParam) => {
                self.expect(TokenKind::Colon, "':' and the parameter's type")?;
                let ty = self.parse_type()?;
                self.emit(OpKind::CatchParam, &[], &[ty], n, loc);
                Ok(())
            }
            Some(code @ (OpCode::ArrayCtor | OpCode::ArrayDtor)) => {
                // Upstream's `%a : T`, or ehir's older `(%a : T)`.
                let paren = self.eat(TokenKind::LParen);
                let (v, _) = self.expect_typed_value()?;
                if paren {
                    self.expect(TokenKind::RParen, "')'")?;
                }
                let kind = if code == OpCode::ArrayCtor {
                    OpKind::ArrayCtor
                } else {
                    OpKind::ArrayDtor
                };
                self.region_op(kind, &[v], n, loc)
            }
            Some(OpCode::EhInitiate) => {
                let cleanup = self.eat_ident("cleanup");
                let ty = if self.eat(TokenKind::Colon) {
                    self.parse_type()?
                } else {
                    self.module.ctx.types.common().eh_token
                };
                self.emit(OpKind::EhInitiate { cleanup }, &[], &[ty], n, loc);
                Ok(())
            }
            Some(OpCode::EhDispatch) => self.parse_eh_dispatch(n, loc),
            Some(OpCode::BeginCleanup) => self.parse_begin(OpKind::BeginCleanup, n, loc),
            Some(OpCode::BeginCatch) => self.parse_begin(OpKind::BeginCatch, n, loc),
            Some(OpCode::EndCleanup) => self.parse_end(OpKind::EndCleanup, n, loc),
            Some(OpCode::EndCatch) => self.parse_end(OpKind::EndCatch, n, loc),
            Some(OpCode::EhLandingPad) => self.parse_landingpad(n, loc),
            Some(OpCode::EhTypeId) => {
                let (type_info, _) = self.expect_symbol("the typeinfo symbol")?;
                // Upstream leaves the type out: the selector type, `!u32i`.
                let ty = if self.eat(TokenKind::Colon) {
                    self.parse_type()?
                } else {
                    self.module.ctx.types.common().u32
                };
                self.emit(OpKind::EhTypeId { type_info }, &[], &[ty], n, loc);
                Ok(())
            }
            Some(OpCode::ResumeFlat) => {
                let operands = self.parse_typed_values()?;
                self.emit(OpKind::ResumeFlat, &operands, &[], n, loc);
                Ok(())
            }
            Some(OpCode::CatchSwitch) => self.parse_catchswitch(n, loc),
            Some(OpCode::CatchPad) => self.parse_catchpad(n, loc),
            Some(OpCode::CatchRet) => {
                if !self.eat_ident("from") {
                    self.expect_ident("within", "'from' and the catchpad token")?;
                }
                let c = self.expect_value_use(None)?;
                self.expect_ident("to", "'to' and the continuation block")?;
                let s = self.parse_successor()?;
                let op = self.emit(OpKind::CatchRet, &[c], &[], n, loc);
                self.attach(op, [s]);
                Ok(())
            }
            Some(OpCode::CleanupPad) => {
                self.expect_ident("within", "'within'")?;
                let parent = self.parse_parent_token()?;
                if self.eat(TokenKind::LBracket) {
                    self.expect(TokenKind::RBracket, "']' (cleanup pads take no arguments)")?;
                }
                let ty = if self.eat(TokenKind::Colon) {
                    self.parse_type()?
                } else {
                    self.module.ctx.types.common().cleanup_token
                };
                let operands: Values = parent.into_iter().collect();
                self.emit(OpKind::CleanupPad, &operands, &[ty], n, loc);
                Ok(())
            }
            Some(OpCode::CleanupRet) => {
                self.expect_ident("from", "'from' and the cleanuppad token")?;
                let c = self.expect_value_use(None)?;
                self.expect_ident("unwind", "'unwind to'")?;
                self.expect_ident("to", "'to'")?;
                let dest = if self.eat_ident("caller") {
                    None
                } else {
                    Some(self.parse_successor()?)
                };
                let op = self.emit(OpKind::CleanupRet, &[c], &[], n, loc);
                self.attach(op, dest);
                Ok(())
            }
            None => Err(self.error(Loc(op_tok.start), format!("unknown op '{name}'"))),
        }
    }

    // ---- building ------------------------------------------------------------------------

    /// Creates an op, appends it to the current block and binds its result names.
    pub(crate) fn emit(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        results: &[Type],
        names: &[(&'s str, Loc)],
        loc: Loc,
    ) -> Op {
        let block = self.current_block();
        let op = self
            .func
            .func
            .dfg
            .make_op(kind, operands, results, &[], 0, loc);
        self.func.func.layout.append_op(op, block);
        self.func.evidence.note(&kind);
        if !(names.is_empty() && results.is_empty()) {
            self.bind_results(op, names, loc);
        }
        op
    }

    fn simple(&mut self, kind: OpKind, names: &[(&'s str, Loc)], loc: Loc) -> PResult<()> {
        self.emit(kind, &[], &[], names, loc);
        Ok(())
    }

    /// Attaches the successors `succs` (in order) to `op`.
    fn attach(&mut self, op: Op, succs: impl IntoIterator<Item = Succ>) {
        for s in succs {
            let dfg = &mut self.func.func.dfg;
            let succ = dfg.make_successor(s.block, &s.args);
            dfg.attach_successor(op, succ);
        }
    }

    /// Emits a region op (no results) and opens its first region.
    fn region_op(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        names: &[(&'s str, Loc)],
        loc: Loc,
    ) -> PResult<()> {
        let op = self.emit(kind, operands, &[], names, loc);
        self.open_region(op, 0, &[])
    }

    /// Continues a region op after region `index` closed: parses the text up to the next
    /// region and opens it, or the op's tail.
    pub(crate) fn continue_region_op(&mut self, op: Op, index: u32) -> PResult<()> {
        let kind = *self.func.func.dfg.kind(op);
        match kind {
            OpKind::If if index == 0 && self.eat_ident("else") => self.open_region(op, 1, &[]),
            OpKind::While if index == 0 => {
                self.expect_ident("do", "'do' and the body region of 'cir.while'")?;
                self.open_region(op, 1, &[])
            }
            OpKind::DoWhile if index == 0 => {
                self.expect_ident("while", "'while' and the condition region of 'cir.do'")?;
                self.open_region(op, 1, &[])
            }
            OpKind::For if index < 2 => {
                let (word, what) = if index == 0 {
                    ("body", "'body' and the body region of 'cir.for'")
                } else {
                    ("step", "'step' and the step region of 'cir.for'")
                };
                self.expect_ident(word, what)?;
                self.open_region(op, index + 1, &[])
            }
            OpKind::Ternary if index == 0 => {
                self.expect(TokenKind::Comma, "',' and the false region")?;
                self.expect_ident("false", "'false' and the false region")?;
                self.open_region(op, 1, &[])
            }
            OpKind::Ternary => {
                self.expect(TokenKind::RParen, "')'")?;
                self.expect(TokenKind::Colon, "':'")?;
                self.expect(TokenKind::LParen, "'('")?;
                let cond_ty_loc = self.loc();
                let cond_ty = self.parse_type()?;
                self.expect(TokenKind::RParen, "')'")?;
                self.expect(TokenKind::Arrow, "'->' and the result type")?;
                let ty = self.parse_type()?;
                let cond = self.func.func.dfg.operands(op).first().copied();
                if let Some(actual) = cond.and_then(|c| self.value_type(c))
                    && actual != cond_ty
                {
                    let message = format!(
                        "the condition has type {} but is declared as {}",
                        self.type_name(actual),
                        self.type_name(cond_ty)
                    );
                    self.report(cond_ty_loc, message);
                }
                self.func.func.dfg.append_result(op, ty);
                let names = self.pop_pending_results(op);
                let loc = self.func.func.dfg.loc(op);
                self.bind_results(op, &names, loc);
                Ok(())
            }
            OpKind::CleanupScope { .. } if index == 0 => {
                self.expect_ident("cleanup", "'cleanup' and the cleanup region")?;
                let cleanup = match self.tok_text() {
                    "normal" => CleanupKind::Normal,
                    "eh" | "eh_only" => CleanupKind::Eh,
                    "all" => CleanupKind::All,
                    _ => return Err(self.unexpected("'normal', 'eh' or 'all'")),
                };
                if !self.at(TokenKind::Ident) {
                    return Err(self.unexpected("'normal', 'eh' or 'all'"));
                }
                self.bump();
                self.func.func.dfg.ops[op].kind = OpKind::CleanupScope { kind: cleanup };
                self.open_region(op, 1, &[])
            }
            OpKind::Try { handlers } => {
                let key_loc = self.loc();
                let key = match self.tok_text() {
                    _ if self.tok.kind != TokenKind::Ident => return Ok(()),
                    "catch" => {
                        self.bump();
                        if self.eat_ident("all") {
                            HandlerKey::CatchAll
                        } else {
                            self.expect(TokenKind::LBracket, "'[type ...]' or 'all'")?;
                            HandlerKey::Catch(self.parse_catch_type(op)?)
                        }
                    }
                    "unwind" => {
                        self.bump();
                        HandlerKey::Unwind
                    }
                    "filter" => {
                        self.bump();
                        HandlerKey::Filter(self.parse_filter_list()?)
                    }
                    "terminate" => {
                        self.bump();
                        HandlerKey::Terminate
                    }
                    _ => return Ok(()),
                };
                // Upstream's parser rejects a second catch-all, and an unwind after one.
                if let ExtraData::Handlers(keys) = &self.func.func.dfg.extras[handlers]
                    && keys.contains(&HandlerKey::CatchAll)
                {
                    match key {
                        HandlerKey::CatchAll => {
                            return Err(self.error(
                                key_loc,
                                "op 'cir.try' can't have more than one catch all",
                            ));
                        }
                        HandlerKey::Unwind => {
                            return Err(self.error(
                                key_loc,
                                "op 'cir.try' unwind can't be used with catch all",
                            ));
                        }
                        _ => {}
                    }
                }
                let params = if self.at(TokenKind::LParen) {
                    self.parse_param_list()?
                } else {
                    SmallVec::new()
                };
                if let ExtraData::Handlers(keys) = &mut self.func.func.dfg.extras[handlers] {
                    keys.push(key);
                }
                self.open_region(op, index + 1, &params)
            }
            OpKind::ArrayCtor if index == 0 && self.eat_ident("cleanup") => {
                self.open_region(op, 1, &[])
            }
            _ => Ok(()),
        }
    }

    /// `type ATTR]` after `catch [`: the caught type, a `#cir.global_view` of a typeinfo
    /// (upstream's diagnostics for anything else).
    fn parse_catch_type(&mut self, try_op: Op) -> PResult<Attr> {
        if self.eat_ident("all") {
            return Err(self.error(
                self.loc(),
                "op 'cir.try' catch all dosen't need RTTI info attribute",
            ));
        }
        if !self.eat_ident("type") {
            return Err(self.error(self.loc(), "'cir.try' expected 'all' or 'type' keyword"));
        }
        if self.at(TokenKind::RBracket) {
            let loc = self.loc();
            self.report(loc, "expected attribute value".to_string());
            return Err(self.error(loc, "op 'cir.try' expected valid RTTI info attribute"));
        }
        if self.at(TokenKind::AttrId)
            && self.tok_text().starts_with("#cir.")
            && self.tok_text() != "#cir.global_view"
        {
            return Err(self.error(
                self.func.func.dfg.loc(try_op),
                "'cir.try' op attribute 'handler_types' failed to satisfy constraint: catch all or unwind or global view array attribute",
            ));
        }
        let a = self.parse_attr()?;
        self.expect(TokenKind::RBracket, "']'")?;
        Ok(a)
    }

    /// `[ATTR, ...]`: the type list of a filter (an exception specification).
    fn parse_filter_list(&mut self) -> PResult<Attr> {
        let loc = self.loc();
        let a = self.parse_attr()?;
        match self.module.ctx.attrs.get(a) {
            AttrData::List(_) => Ok(a),
            _ => Err(self.error(loc, "expected a list of typeinfo attributes ('[...]')")),
        }
    }

    // ---- operand helpers -------------------------------------------------------------------

    /// Expects `%name`.
    fn expect_value_id(&mut self) -> PResult<Token> {
        self.expect(TokenKind::ValueId, "a value ('%name')")
    }

    /// Expects `%name` and resolves it.
    pub(crate) fn expect_value_use(&mut self, stated: Option<Type>) -> PResult<Value> {
        let t = self.expect_value_id()?;
        Ok(self.use_value(t, stated))
    }

    /// `%v : T`
    fn expect_typed_value(&mut self) -> PResult<(Value, Type)> {
        let t = self.expect_value_id()?;
        self.expect(TokenKind::Colon, "':' and the value's type")?;
        let ty = self.parse_type()?;
        Ok((self.use_value(t, Some(ty)), ty))
    }

    /// `%a, %b : T, U` — as many types as values.
    fn parse_typed_values(&mut self) -> PResult<Values> {
        let mut toks: SmallVec<[Token; 4]> = SmallVec::new();
        loop {
            toks.push(self.expect_value_id()?);
            if !self.eat(TokenKind::Comma) {
                break;
            }
        }
        self.expect(TokenKind::Colon, "':' and the values' types")?;
        let mut out = Values::new();
        for (i, &t) in toks.iter().enumerate() {
            if i > 0 {
                self.expect(TokenKind::Comma, "',' and one type per value")?;
            }
            let ty = self.parse_type()?;
            out.push(self.use_value(t, Some(ty)));
        }
        Ok(out)
    }

    /// Whether `%a[, %b...] :` follows (the optional operands of a terminator, as opposed
    /// to the result names of the next op).
    fn typed_values_follow(&self) -> bool {
        if self.tok.kind != TokenKind::ValueId {
            return false;
        }
        let mut l = self.lookahead();
        loop {
            match l.next_token().kind {
                TokenKind::Colon => return true,
                TokenKind::Comma => {
                    if l.next_token().kind != TokenKind::ValueId {
                        return false;
                    }
                }
                _ => return false,
            }
        }
    }

    /// `^bb` or `^bb(%a, %b : T, U)`
    /// `^a, ^b]` (the `[` already read): a possibly empty list of successors.
    fn parse_successors_to_bracket(&mut self) -> PResult<Vec<Succ>> {
        let mut succs = Vec::new();
        self.parse_comma_separated(TokenKind::RBracket, "',' or ']'", |p| {
            succs.push(p.parse_successor()?);
            Ok(())
        })?;
        Ok(succs)
    }

    /// The `[@a, @b]` after a landing pad's `filter` keyword.
    fn parse_filter_types(&mut self) -> PResult<Vec<Symbol>> {
        self.expect(TokenKind::LBracket, "'[' and the filter's typeinfos")?;
        let mut types = Vec::new();
        if !self.eat(TokenKind::RBracket) {
            loop {
                types.push(self.expect_symbol("a typeinfo symbol")?.0);
                if self.eat(TokenKind::RBracket) {
                    break;
                }
                self.expect(TokenKind::Comma, "',' or ']'")?;
            }
        }
        Ok(types)
    }

    /// `cir.try_throw %obj, %typeinfo, %dtor : T, U, V ^normal, ^unwind`
    fn parse_try_throw(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let mut toks = Vec::new();
        for i in 0..3 {
            if i > 0 {
                self.expect(TokenKind::Comma, "','")?;
            }
            toks.push(self.expect(TokenKind::ValueId, "a value ('%name')")?);
        }
        self.expect(TokenKind::Colon, "':' and the operand types")?;
        let mut operands = Values::new();
        for (i, t) in toks.into_iter().enumerate() {
            if i > 0 {
                self.expect(TokenKind::Comma, "','")?;
            }
            let ty = self.parse_type()?;
            operands.push(self.use_value(t, Some(ty)));
        }
        let normal = self.parse_successor()?;
        self.expect(TokenKind::Comma, "',' and the unwind destination")?;
        let unwind = self.parse_successor()?;
        let op = self.emit(OpKind::TryThrow, &operands, &[], n, loc);
        self.attach(op, [normal, unwind]);
        Ok(())
    }

    fn parse_successor(&mut self) -> PResult<Succ> {
        let t = self.expect(TokenKind::BlockId, "a block ('^name')")?;
        let block = self.use_block(&self.text_of(t)[1..], Loc(t.start));
        let args = if self.eat(TokenKind::LParen) {
            let args = self.parse_typed_values()?;
            self.expect(TokenKind::RParen, "')'")?;
            args
        } else {
            Values::new()
        };
        Ok(Succ { block, args })
    }

    /// `none` or `%token`
    fn parse_parent_token(&mut self) -> PResult<Option<Value>> {
        if self.eat_ident("none") {
            return Ok(None);
        }
        if !self.at(TokenKind::ValueId) {
            return Err(self.unexpected("'none' or a parent token ('%name')"));
        }
        Ok(Some(self.expect_value_use(None)?))
    }

    /// A list of types after `:`: `(T, U)` or `T, U`.
    fn parse_result_types(&mut self) -> PResult<SmallVec<[Type; 2]>> {
        let mut types = SmallVec::new();
        if self.eat(TokenKind::LParen) {
            if self.eat(TokenKind::RParen) {
                return Ok(types);
            }
            loop {
                types.push(self.parse_type()?);
                if self.eat(TokenKind::RParen) {
                    return Ok(types);
                }
                self.expect(TokenKind::Comma, "',' or ')'")?;
            }
        }
        types.push(self.parse_type()?);
        while self.at(TokenKind::Comma) && self.peek().kind == TokenKind::TypeId {
            self.bump();
            types.push(self.parse_type()?);
        }
        Ok(types)
    }

    // ---- individual ops ----------------------------------------------------------------------

    /// `cir.return [%v : T]`, `cir.yield [%v : T]`
    fn parse_value_terminator(&mut self, kind: OpKind, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let operands = if self.typed_values_follow() {
            self.parse_typed_values()?
        } else {
            Values::new()
        };
        self.emit(kind, &operands, &[], n, loc);
        Ok(())
    }

    /// `cir.resume [%t [: T]]`, `cir.eh.terminate [%t [: T]]`
    fn parse_optional_token_terminator(
        &mut self,
        kind: OpKind,
        n: &Names<'s>,
        loc: Loc,
    ) -> PResult<()> {
        let mut operands = Values::new();
        if self.at(TokenKind::ValueId)
            && !matches!(self.peek().kind, TokenKind::Equal | TokenKind::Comma)
        {
            let t = self.tok;
            self.bump();
            let stated = if self.eat(TokenKind::Colon) {
                Some(self.parse_type()?)
            } else {
                None
            };
            operands.push(self.use_value(t, stated));
        }
        self.emit(kind, &operands, &[], n, loc);
        Ok(())
    }

    /// `align(N)`
    fn parse_align_paren(&mut self) -> PResult<u16> {
        self.expect_ident("align", "'align'")?;
        self.expect(TokenKind::LParen, "'('")?;
        let a = self.expect_uint("an alignment", u16::MAX as u64)? as u16;
        self.expect(TokenKind::RParen, "')'")?;
        Ok(a)
    }

    /// `[volatile] [align(N)]` in either order.
    fn parse_memory_flags(&mut self) -> PResult<(u16, bool)> {
        let mut align = 0;
        let mut volatile = false;
        loop {
            if self.eat_ident("volatile") {
                volatile = true;
            } else if self.at_ident("align") && self.peek().kind == TokenKind::LParen {
                align = self.parse_align_paren()?;
            } else {
                return Ok((align, volatile));
            }
        }
    }

    /// `cir.alloca`, in either spelling.
    fn parse_alloca(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let mut count = Vec::new();
        let spelling = if self.at(TokenKind::String) {
            AllocaSpelling::Named
        } else {
            AllocaSpelling::Typed
        };
        let (alloc_ty, ty, name, init, align, dest_slot) = match spelling {
            AllocaSpelling::Named => self.parse_named_alloca()?,
            AllocaSpelling::Typed => self.parse_typed_alloca(&mut count)?,
        };
        // The module prints back in the spelling of its first alloca.
        self.module.ctx.alloca_spelling.get_or_insert(spelling);
        let kind = OpKind::Alloca {
            alloc_ty,
            name,
            init,
            align,
            dest_slot,
        };
        self.emit(kind, &count, &[ty], n, loc);
        Ok(())
    }

    /// `cir.alloca T, !cir.ptr<T>, [%n : I,] ["name"(, init)] [{alignment = N : i64} |
    /// align(N)]`; the element count of a dynamic allocation goes to `count`.
    fn parse_typed_alloca(&mut self, count: &mut Vec<Value>) -> PResult<AllocaParts> {
        let alloc_ty = self.parse_type()?;
        self.expect(TokenKind::Comma, "',' and the result type")?;
        let ty = self.parse_type()?;
        if self.at(TokenKind::Comma) && self.peek().kind == TokenKind::ValueId {
            self.bump();
            let n = self.expect(TokenKind::ValueId, "the element count ('%name')")?;
            self.expect(TokenKind::Colon, "':' and the count's type")?;
            let count_ty = self.parse_type()?;
            count.push(self.use_value(n, Some(count_ty)));
        }
        let mut name = None;
        let mut init = false;
        let mut dest_slot = false;
        if self.at(TokenKind::Comma) && self.peek().kind == TokenKind::LBracket {
            self.bump();
            self.bump();
            name = Some(self.expect_string_symbol("the variable's name (a string)")?);
            while self.eat(TokenKind::Comma) {
                if self.eat_ident("cleanup_dest_slot") {
                    dest_slot = true;
                } else {
                    self.expect_ident("init", "'init' or 'cleanup_dest_slot'")?;
                    init = true;
                }
            }
            self.expect(TokenKind::RBracket, "']'")?;
        }
        let align = if self.at(TokenKind::LBrace) {
            self.parse_alignment_dict(u16::MAX as u64)? as u16
        } else if self.at_ident("align") && self.peek().kind == TokenKind::LParen {
            self.parse_align_paren()?
        } else {
            0
        };
        let name = match name {
            Some(s) => s,
            None => self.module.ctx.sym(""),
        };
        Ok((alloc_ty, ty, name, init, align, dest_slot))
    }

    /// Upstream's newer spelling `cir.alloca "name" [align(N)] [init] : !cir.ptr<T>`.
    fn parse_named_alloca(&mut self) -> PResult<AllocaParts> {
        let name = self.expect_string_symbol("the variable's name (a string)")?;
        let mut align = 0;
        let mut init = false;
        let mut dest_slot = false;
        loop {
            if self.at_ident("align") && self.peek().kind == TokenKind::LParen {
                align = self.parse_align_paren()?;
            } else if self.eat_ident("init") {
                init = true;
            } else if self.eat_ident("cleanup_dest_slot") {
                dest_slot = true;
            } else {
                break;
            }
        }
        self.expect(TokenKind::Colon, "':' and the address type")?;
        let at = self.loc();
        let ty = self.parse_type()?;
        let Some(alloc_ty) = self.module.ctx.types.pointee(ty) else {
            return Err(self.error(at, "the type of 'cir.alloca' must be a pointer"));
        };
        Ok((alloc_ty, ty, name, init, align, dest_slot))
    }

    /// `cir.load [volatile] [align(N)] %p : !cir.ptr<T>, T`
    fn parse_load(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let (align, volatile) = self.parse_memory_flags()?;
        let p = self.expect(TokenKind::ValueId, "the address ('%name')")?;
        self.expect(TokenKind::Colon, "':' and the address type")?;
        let ptr_ty = self.parse_type()?;
        self.expect(TokenKind::Comma, "',' and the loaded type")?;
        let ty = self.parse_type()?;
        let p = self.use_value(p, Some(ptr_ty));
        self.emit(OpKind::Load { align, volatile }, &[p], &[ty], n, loc);
        Ok(())
    }

    /// `cir.store [volatile] [align(N)] %v, %p : T, !cir.ptr<T>`
    fn parse_store(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let (align, volatile) = self.parse_memory_flags()?;
        let operands = self.parse_typed_values()?;
        if operands.len() != 2 {
            return Err(self.error(loc, "'cir.store' takes a value and an address"));
        }
        self.emit(OpKind::Store { align, volatile }, &operands, &[], n, loc);
        Ok(())
    }

    /// `cir.const ATTR [: T]`
    fn parse_const(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let value = self.parse_attr()?;
        let bool_ty = self.module.ctx.types.common().bool;
        let ty = match self.module.ctx.attrs.get(value).ty(bool_ty) {
            Some(t) => {
                if self.at(TokenKind::Colon) && self.peek().kind == TokenKind::TypeId {
                    let at = self.loc();
                    self.bump();
                    let stated = self.parse_type()?;
                    if stated != t {
                        return Err(self.error(at, "the constant's type does not match its value"));
                    }
                }
                t
            }
            None => {
                self.expect(TokenKind::Colon, "':' and the constant's type")?;
                self.parse_type()?
            }
        };
        self.emit(OpKind::Const { value }, &[], &[ty], n, loc);
        Ok(())
    }

    /// `cir.call` / `cir.try_call`, with or without a signature.
    fn parse_call(&mut self, is_try: bool, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let mut flags = CallFlags::default();
        loop {
            if self.eat_ident("exception") {
                flags.exception = true;
            } else if self.eat_ident("nothrow") {
                flags.nothrow = true;
            } else {
                break;
            }
        }
        let callee_tok = self.tok;
        let callee: Option<Symbol> = match self.tok.kind {
            TokenKind::SymbolRef => {
                self.bump();
                Some(self.symbol_of(callee_tok)?)
            }
            TokenKind::ValueId => {
                self.bump();
                None
            }
            _ => return Err(self.unexpected("the callee ('@name' or '%pointer')")),
        };
        self.expect(TokenKind::LParen, "'(' and the arguments")?;
        let mut args: SmallVec<[(Token, Option<Type>); 4]> = SmallVec::new();
        if !self.eat(TokenKind::RParen) {
            loop {
                let t = self.expect(TokenKind::ValueId, "an argument ('%name')")?;
                let inline = if self.eat(TokenKind::Colon) {
                    Some(self.parse_type()?)
                } else {
                    None
                };
                args.push((t, inline));
                if self.eat(TokenKind::RParen) {
                    break;
                }
                self.expect(TokenKind::Comma, "',' or ')'")?;
            }
        }
        let mut succs: SmallVec<[Succ; 2]> = SmallVec::new();
        if is_try {
            succs.push(self.parse_successor()?);
            self.eat(TokenKind::Comma);
            succs.push(self.parse_successor()?);
        }
        if self.eat_ident("nothrow") {
            flags.nothrow = true;
        }
        if self.eat(TokenKind::LBrace) {
            // Upstream's attribute dictionary of a call: `{noreturn}`.
            if !self.eat_ident("noreturn") {
                return Err(self.unexpected("'noreturn' (the only attribute a call takes)"));
            }
            self.expect(TokenKind::RBrace, "'}'")?;
            flags.noreturn = true;
        }
        let indirect = callee.is_none() as usize;
        let mut operands = Values::new();
        let sig;
        let ret;
        if self.at(TokenKind::Colon) {
            // Explicit signature: the types of all operands (callee pointer first).
            let sig_loc = self.loc();
            self.bump();
            self.expect(TokenKind::LParen, "'(' and the argument types")?;
            let mut types: SmallVec<[Type; 4]> = SmallVec::new();
            let mut abi: SmallVec<[ParamAbi; 4]> = SmallVec::new();
            if !self.eat(TokenKind::RParen) {
                loop {
                    types.push(self.parse_type()?);
                    let mark_loc = self.loc();
                    let mark = self.parse_param_abi();
                    if mark != ParamAbi::Default && types.len() <= indirect {
                        return Err(self.error(
                            mark_loc,
                            format!("the callee operand cannot be marked '{}'", mark.keyword()),
                        ));
                    }
                    abi.push(mark);
                    if self.eat(TokenKind::RParen) {
                        break;
                    }
                    self.expect(TokenKind::Comma, "',' or ')'")?;
                }
            }
            self.expect(TokenKind::Arrow, "'->' and the result type")?;
            ret = self.parse_call_result()?;
            if types.len() != args.len() + indirect {
                return Err(self.error(
                    sig_loc,
                    format!(
                        "the signature lists {} operand type(s) but the call has {} operand(s)",
                        types.len(),
                        args.len() + indirect
                    ),
                ));
            }
            if indirect == 1 {
                operands.push(self.use_value(callee_tok, Some(types[0])));
            }
            for (i, &(t, inline)) in args.iter().enumerate() {
                let ty = types[i + indirect];
                if let Some(inline) = inline.filter(|&x| x != ty) {
                    let message = format!(
                        "the argument is written as {} but the signature says {}",
                        self.type_name(inline),
                        self.type_name(ty)
                    );
                    self.report(Loc(t.start), message);
                }
                operands.push(self.use_value(t, Some(ty)));
            }
            sig = self.call_signature(callee, &types[indirect..], &abi[indirect..], ret);
        } else {
            // No signature: from the callee's declaration, a known runtime function, or the
            // arguments (void result).
            let known = match callee {
                Some(sym) => self.callee_signature(sym),
                None => None,
            };
            if indirect == 1 {
                operands.push(self.use_value(callee_tok, None));
            }
            let declared = match (known, callee) {
                (Some(s), _) => Some(s),
                (None, None) => operands
                    .first()
                    .and_then(|&c| self.value_type(c))
                    .and_then(|t| self.module.ctx.types.pointee(t))
                    .filter(|&t| self.module.ctx.types.func_info(t).is_some()),
                (None, Some(_)) => None,
            };
            match declared {
                Some(s) => {
                    let (params, r, _) = self
                        .module
                        .ctx
                        .types
                        .func_info(s)
                        .map(|(p, r, v)| (p.to_vec(), r, v))
                        .unwrap_or_default();
                    for (i, &(t, inline)) in args.iter().enumerate() {
                        let stated = inline.or_else(|| params.get(i).copied());
                        operands.push(self.use_value(t, stated));
                    }
                    ret = r;
                    sig = s;
                }
                None => {
                    let mut arg_types = Vec::with_capacity(args.len());
                    for &(t, inline) in &args {
                        let v = self.use_value(t, inline);
                        match inline.or_else(|| self.value_type(v)) {
                            Some(ty) => arg_types.push(ty),
                            None => {
                                return Err(self.error(
                                    Loc(t.start),
                                    "cannot infer the argument's type: write '%arg : T' or the call's signature",
                                ));
                            }
                        }
                        operands.push(v);
                    }
                    if !n.is_empty() {
                        return Err(self.error(
                            Loc(callee_tok.start),
                            "cannot infer the result type of the call: the callee is not declared; write its signature (': (T...) -> R')",
                        ));
                    }
                    ret = None;
                    sig = self.func_type(&arg_types, None, false);
                }
            }
        }
        let results: SmallVec<[Type; 1]> = ret.into_iter().collect();
        let callee_packed: PackedOption<Symbol> = callee.into();
        let kind = if is_try {
            OpKind::TryCall {
                callee: callee_packed,
                sig,
                flags,
            }
        } else {
            OpKind::Call {
                callee: callee_packed,
                sig,
                flags,
            }
        };
        let op = self.emit(kind, &operands, &results, n, loc);
        self.attach(op, succs);
        if let Some(sym) = callee {
            self.declare_callee(sym, sig, Loc(callee_tok.start));
        }
        Ok(())
    }

    /// `()` (void), `T` or `(T)` after a call signature's `->`.
    fn parse_call_result(&mut self) -> PResult<Option<Type>> {
        if !self.eat(TokenKind::LParen) {
            return Ok(Some(self.parse_type()?));
        }
        if self.eat(TokenKind::RParen) {
            return Ok(None);
        }
        let t = self.parse_type()?;
        if !self.at(TokenKind::RParen) {
            return Err(self.unexpected("')' (a call returns at most one value)"));
        }
        self.bump();
        Ok(Some(t))
    }

    /// The `sig` payload of a call with an explicit signature: a variadic callee's own type
    /// when the call passes extra arguments after the fixed ones, else the written types.
    fn call_signature(
        &mut self,
        callee: Option<Symbol>,
        args: &[Type],
        abi: &[ParamAbi],
        ret: Option<Type>,
    ) -> Type {
        if let Some(&declared) = callee.and_then(|c| self.function_sigs.get(&c))
            && let Some((params, r, true)) = self.module.ctx.types.func_info(declared)
            && r == ret
            && args.len() >= params.len()
            && args[..params.len()] == *params
            && (0..abi.len()).all(|i| {
                let want = if i < params.len() {
                    self.module.ctx.types.param_abi(declared, i)
                } else {
                    ParamAbi::Default
                };
                abi[i] == want
            })
        {
            return declared;
        }
        self.func_type_abi(args, abi, ret, false)
    }

    /// The signature of a callee named in a call without a signature.
    fn callee_signature(&mut self, callee: Symbol) -> Option<Type> {
        if let Some(&sig) = self.function_sigs.get(&callee) {
            return Some(sig);
        }
        if let Some(sig) = self.declared_later(callee) {
            return Some(sig);
        }
        let name = self.module.ctx.name(callee).to_string();
        ehir_core::abi::runtime::implicit_signature(&name, &mut self.module.ctx.types)
    }

    /// Declares an undeclared direct callee as an external function with the call's
    /// signature (first use wins). A `cir.func` further down replaces the declaration and
    /// takes its own place in source order (`Parser::move_to_explicit_place`), so every
    /// function printed is read back at the place it was printed (a fixed point).
    fn declare_callee(&mut self, callee: Symbol, sig: Type, loc: Loc) {
        if self.is_fragment() || self.function_sigs.contains_key(&callee) {
            return;
        }
        let mut func = ehir_core::Function::new_declaration(callee, sig);
        func.loc = loc;
        let id = self.add_function(func);
        let item = self.module.items.len() - 1;
        self.origins
            .insert(id, crate::parser::FuncOrigin::Implicit { item });
    }

    /// `(KIND, %a` of `cir.binop`, `cir.unary` and `cir.cmp`: the kind, one of `all` (by
    /// `name`), and the first operand.
    fn parse_kind_and_operand<K: Copy>(
        &mut self,
        all: impl IntoIterator<Item = K>,
        name: fn(K) -> &'static str,
        what: &str,
    ) -> PResult<(K, Token)> {
        self.expect(TokenKind::LParen, "'('")?;
        let kind = self.keyword(all, name, what)?;
        self.expect(TokenKind::Comma, "','")?;
        let a = self.expect_value_id()?;
        Ok((kind, a))
    }

    /// `: T, U` of `cir.unary` and `cir.cmp`: the operand type and the result type.
    fn parse_operand_and_result_types(&mut self) -> PResult<(Type, Type)> {
        self.expect(TokenKind::Colon, "':' and the operand type")?;
        let operand_ty = self.parse_type()?;
        self.expect(TokenKind::Comma, "',' and the result type")?;
        let ty = self.parse_type()?;
        Ok((operand_ty, ty))
    }

    /// Upstream's `cir.add [nsw|nuw] %a, %b : T` (and `cir.sub`, `cir.mul`, `cir.div`,
    /// `cir.rem`, `cir.and`, `cir.or`, `cir.xor`), `cir.shift(left|right, %a : T, %b : T)
    /// -> T`, or the older `cir.binop(kind, %a, %b) : T`. The overflow flags are read and
    /// dropped: ehir's integer arithmetic wraps.
    fn parse_binop(&mut self, name: &str, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let (kind, a, b, ty) = match name {
            "cir.binop" => {
                let (kind, a) =
                    self.parse_kind_and_operand(BinaryOp::ALL, BinaryOp::name, "binary operation")?;
                self.expect(TokenKind::Comma, "','")?;
                let b = self.expect_value_id()?;
                self.expect(TokenKind::RParen, "')'")?;
                self.expect(TokenKind::Colon, "':' and the result type")?;
                (kind, a, b, self.parse_type()?)
            }
            "cir.shift" => {
                self.expect(TokenKind::LParen, "'('")?;
                let kind = self.keyword(
                    [BinaryOp::Shl, BinaryOp::Shr],
                    |k| if k == BinaryOp::Shl { "left" } else { "right" },
                    "shift direction",
                )?;
                self.expect(TokenKind::Comma, "','")?;
                let a = self.expect_value_id()?;
                self.expect(TokenKind::Colon, "':' and the shifted value's type")?;
                self.parse_type()?;
                self.expect(TokenKind::Comma, "','")?;
                let b = self.expect_value_id()?;
                self.expect(TokenKind::Colon, "':' and the shift amount's type")?;
                self.parse_type()?;
                self.expect(TokenKind::RParen, "')'")?;
                self.expect(TokenKind::Arrow, "'->' and the result type")?;
                (kind, a, b, self.parse_type()?)
            }
            _ => {
                let kind = BinaryOp::ALL
                    .into_iter()
                    .find(|k| k.op_name() == name)
                    .unwrap_or(BinaryOp::Add);
                while self.eat_ident("nsw") || self.eat_ident("nuw") {}
                let a = self.expect_value_id()?;
                self.expect(TokenKind::Comma, "','")?;
                let b = self.expect_value_id()?;
                self.expect(TokenKind::Colon, "':' and the type")?;
                (kind, a, b, self.parse_type()?)
            }
        };
        let a = self.use_value(a, None);
        let b = self.use_value(b, None);
        self.emit(OpKind::Binary(kind), &[a, b], &[ty], n, loc);
        Ok(())
    }

    /// `cir.unary(kind, %a) : T, T`
    fn parse_unary(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let (kind, a) =
            self.parse_kind_and_operand(UnaryOp::ALL, UnaryOp::name, "unary operation")?;
        self.expect(TokenKind::RParen, "')'")?;
        let (operand_ty, ty) = self.parse_operand_and_result_types()?;
        let a = self.use_value(a, Some(operand_ty));
        self.emit(OpKind::Unary(kind), &[a], &[ty], n, loc);
        Ok(())
    }

    /// Upstream's `%r = cir.not %a : T`: `cir.unary(not, %a) : T, T`.
    fn parse_not(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let a = self.expect(TokenKind::ValueId, "the operand ('%name')")?;
        self.expect(TokenKind::Colon, "':' and the operand type")?;
        let ty = self.parse_type()?;
        let a = self.use_value(a, Some(ty));
        self.emit(OpKind::Unary(UnaryOp::Not), &[a], &[ty], n, loc);
        Ok(())
    }

    /// `cir.cmp pred %a, %b : T` (upstream's form, the result is `!cir.bool`) or
    /// `cir.cmp(pred, %a, %b) : T, !cir.bool`.
    fn parse_cmp(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        if !self.at(TokenKind::LParen) {
            let kind = self.keyword(CmpPredicate::ALL, CmpPredicate::name, "comparison")?;
            let a = self.expect_value_id()?;
            self.expect(TokenKind::Comma, "','")?;
            let b = self.expect_value_id()?;
            self.expect(TokenKind::Colon, "':' and the operand type")?;
            let operand_ty = self.parse_type()?;
            let ty = self.module.ctx.types.common().bool;
            let a = self.use_value(a, Some(operand_ty));
            let b = self.use_value(b, None);
            self.emit(OpKind::Cmp(kind), &[a, b], &[ty], n, loc);
            return Ok(());
        }
        let (kind, a) =
            self.parse_kind_and_operand(CmpPredicate::ALL, CmpPredicate::name, "comparison")?;
        self.expect(TokenKind::Comma, "','")?;
        let b = self.expect_value_id()?;
        self.expect(TokenKind::RParen, "')'")?;
        let (operand_ty, ty) = self.parse_operand_and_result_types()?;
        let a = self.use_value(a, Some(operand_ty));
        let b = self.use_value(b, None);
        self.emit(OpKind::Cmp(kind), &[a, b], &[ty], n, loc);
        Ok(())
    }

    fn cast_kind(&mut self) -> PResult<CastKind> {
        self.keyword(CastKind::ALL, CastKind::name, "cast kind")
    }

    /// Consumes an identifier naming one of `all` (by `name`), or reports
    /// "unknown WHAT 'word'" at it.
    fn keyword<K: Copy>(
        &mut self,
        all: impl IntoIterator<Item = K>,
        name: fn(K) -> &'static str,
        what: &str,
    ) -> PResult<K> {
        let loc = self.loc();
        let word = self.tok_text();
        let kind = all.into_iter().find(|&k| name(k) == word);
        match kind.filter(|_| self.at(TokenKind::Ident)) {
            Some(k) => {
                self.bump();
                Ok(k)
            }
            None => Err(self.error(loc, format!("unknown {what} '{word}'"))),
        }
    }

    /// `cir.cast KIND %v : T -> U` or `cir.cast(KIND, %v : T), U`
    fn parse_cast(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let (kind, v, ty) = if self.eat(TokenKind::LParen) {
            let kind = self.cast_kind()?;
            self.expect(TokenKind::Comma, "','")?;
            let (v, _) = self.expect_typed_value()?;
            self.expect(TokenKind::RParen, "')'")?;
            self.expect(TokenKind::Comma, "',' and the result type")?;
            (kind, v, self.parse_type()?)
        } else {
            let kind = self.cast_kind()?;
            let (v, _) = self.expect_typed_value()?;
            self.expect(TokenKind::Arrow, "'->' and the result type")?;
            (kind, v, self.parse_type()?)
        };
        self.emit(OpKind::Cast(kind), &[v], &[ty], n, loc);
        Ok(())
    }

    /// `cir.select if %c then %a else %b : (!cir.bool, T, T) -> T`
    fn parse_select(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        self.expect_ident("if", "'if'")?;
        let c = self.expect(TokenKind::ValueId, "the condition ('%name')")?;
        self.expect_ident("then", "'then'")?;
        let a = self.expect_value_id()?;
        self.expect_ident("else", "'else'")?;
        let b = self.expect_value_id()?;
        self.expect(TokenKind::Colon, "':'")?;
        self.expect(TokenKind::LParen, "'('")?;
        let tc = self.parse_type()?;
        self.expect(TokenKind::Comma, "','")?;
        let ta = self.parse_type()?;
        self.expect(TokenKind::Comma, "','")?;
        let tb = self.parse_type()?;
        self.expect(TokenKind::RParen, "')'")?;
        self.expect(TokenKind::Arrow, "'->' and the result type")?;
        let ty = self.parse_type()?;
        let operands = [
            self.use_value(c, Some(tc)),
            self.use_value(a, Some(ta)),
            self.use_value(b, Some(tb)),
        ];
        self.emit(OpKind::Select, &operands, &[ty], n, loc);
        Ok(())
    }

    /// `cir.ptr_stride %p, %n : (!cir.ptr<T>, I) -> !cir.ptr<T>`
    fn parse_ptr_stride(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let p = self.expect(TokenKind::ValueId, "the base pointer ('%name')")?;
        self.expect(TokenKind::Comma, "','")?;
        let i = self.expect(TokenKind::ValueId, "the stride ('%name')")?;
        self.expect(TokenKind::Colon, "':'")?;
        self.expect(TokenKind::LParen, "'('")?;
        let tp = self.parse_type()?;
        self.expect(TokenKind::Comma, "','")?;
        let ti = self.parse_type()?;
        self.expect(TokenKind::RParen, "')'")?;
        self.expect(TokenKind::Arrow, "'->' and the result type")?;
        let ty = self.parse_type()?;
        let operands = [self.use_value(p, Some(tp)), self.use_value(i, Some(ti))];
        self.emit(OpKind::PtrStride, &operands, &[ty], n, loc);
        Ok(())
    }

    /// `cir.get_member %p[N] {name = "f"} : !cir.ptr<R> -> !cir.ptr<T>`
    fn parse_get_member(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let p = self.expect(TokenKind::ValueId, "the record address ('%name')")?;
        self.expect(TokenKind::LBracket, "'[' and the member index")?;
        let index = self.expect_uint("a member index", u32::MAX as u64)? as u32;
        self.expect(TokenKind::RBracket, "']'")?;
        let name = if self.eat(TokenKind::LBrace) {
            self.expect_ident("name", "'name'")?;
            self.expect(TokenKind::Equal, "'='")?;
            let s = self.expect_string_symbol("the member's name (a string)")?;
            self.expect(TokenKind::RBrace, "'}'")?;
            s
        } else {
            self.module.ctx.sym("")
        };
        self.expect(TokenKind::Colon, "':' and the address type")?;
        let tp = self.parse_type()?;
        self.expect(TokenKind::Arrow, "'->' and the result type")?;
        let ty = self.parse_type()?;
        let p = self.use_value(p, Some(tp));
        self.emit(OpKind::GetMember { index, name }, &[p], &[ty], n, loc);
        Ok(())
    }

    /// `cir.base_class_addr %p : !cir.ptr<D> [nonnull] [OFFSET] -> !cir.ptr<B>` (and derived)
    fn parse_class_addr(&mut self, base: bool, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let (p, _) = self.expect_typed_value()?;
        let nonnull = self.eat_ident("nonnull");
        let offset = if self.eat(TokenKind::LBracket) {
            let o = self.expect_uint("an offset", u32::MAX as u64)? as u32;
            self.expect(TokenKind::RBracket, "']'")?;
            o
        } else {
            0
        };
        self.expect(TokenKind::Arrow, "'->' and the result type")?;
        let ty = self.parse_type()?;
        let kind = if base {
            OpKind::BaseClassAddr { offset, nonnull }
        } else {
            OpKind::DerivedClassAddr { offset, nonnull }
        };
        self.emit(kind, &[p], &[ty], n, loc);
        Ok(())
    }

    /// `cir.throw [%obj : !cir.ptr<T>[, @typeinfo[, @dtor]]] [unwind ^bb]`
    fn parse_throw(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let mut operands = Values::new();
        let mut type_info = None;
        let mut dtor = None;
        if self.typed_values_follow() {
            operands = self.parse_typed_values()?;
            if self.at(TokenKind::Comma) && self.peek().kind == TokenKind::SymbolRef {
                self.bump();
                type_info = Some(self.expect_symbol("the typeinfo symbol")?.0);
                if self.at(TokenKind::Comma) && self.peek().kind == TokenKind::SymbolRef {
                    self.bump();
                    dtor = Some(self.expect_symbol("the destructor symbol")?.0);
                }
            }
        }
        let unwind = if self.eat_ident("unwind") {
            Some(self.parse_successor()?)
        } else {
            None
        };
        let kind = OpKind::Throw {
            type_info: type_info.into(),
            dtor: dtor.into(),
        };
        let op = self.emit(kind, &operands, &[], n, loc);
        self.attach(op, unwind);
        Ok(())
    }

    /// `cir.switch.flat %v : T, ^default [ N: ^bb, ... ]` (entries separated by commas or
    /// newlines).
    fn parse_switch_flat(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let (v, _) = self.expect_typed_value()?;
        self.expect(TokenKind::Comma, "',' and the default destination")?;
        let default = self.parse_successor()?;
        self.expect(TokenKind::LBracket, "'[' and the cases")?;
        let mut values = Vec::new();
        let mut succs = vec![default];
        while !self.eat(TokenKind::RBracket) {
            let (value, _) = self.expect_int("a case value or ']'")?;
            self.expect(TokenKind::Colon, "':' and the case's destination")?;
            succs.push(self.parse_successor()?);
            values.push(value);
            self.eat(TokenKind::Comma);
        }
        let cases = self.func.func.dfg.make_extra(ExtraData::Cases(values));
        let op = self.emit(OpKind::SwitchFlat { cases }, &[v], &[], n, loc);
        self.attach(op, succs);
        Ok(())
    }

    /// `cir.indirect_br %a : !cir.ptr<!void>, [^bb1, ^bb2]`
    fn parse_indirect_br(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let (v, _) = self.expect_typed_value()?;
        self.expect(TokenKind::Comma, "',' and the destinations")?;
        self.expect(TokenKind::LBracket, "'['")?;
        let succs = self.parse_successors_to_bracket()?;
        let op = self.emit(OpKind::IndirectBr, &[v], &[], n, loc);
        self.attach(op, succs);
        Ok(())
    }

    /// `cir.block_address <@fn, "label"> : !cir.ptr<!void>`
    fn parse_block_address(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        self.expect(TokenKind::Less, "'<'")?;
        let (func, func_loc) = self.expect_symbol("the enclosing function's symbol")?;
        if func != self.function_name() && !self.is_fragment() {
            return Err(self.error(
                func_loc,
                "'cir.block_address' must name the function that contains it",
            ));
        }
        self.expect(TokenKind::Comma, "','")?;
        let label = self.expect_string_symbol("the label (a string)")?;
        self.expect(TokenKind::Greater, "'>'")?;
        self.expect(TokenKind::Colon, "':' and the result type")?;
        let ty = self.parse_type()?;
        self.emit(OpKind::BlockAddress { label }, &[], &[ty], n, loc);
        Ok(())
    }

    /// `cir.case (equal|anyof|range|default, [ATTR, ...]) { ... }`
    fn parse_case(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        self.expect(TokenKind::LParen, "'('")?;
        let kind = match self.tok_text() {
            "equal" => CaseKind::Equal,
            "anyof" => CaseKind::AnyOf,
            "range" => CaseKind::Range,
            "default" => CaseKind::Default,
            _ => return Err(self.unexpected("'equal', 'anyof', 'range' or 'default'")),
        };
        if !self.at(TokenKind::Ident) {
            return Err(self.unexpected("'equal', 'anyof', 'range' or 'default'"));
        }
        self.bump();
        let mut values = Vec::new();
        if self.eat(TokenKind::Comma) {
            self.expect(TokenKind::LBracket, "'['")?;
            if !self.eat(TokenKind::RBracket) {
                loop {
                    values.push(self.parse_attr()?);
                    if self.eat(TokenKind::RBracket) {
                        break;
                    }
                    self.expect(TokenKind::Comma, "',' or ']'")?;
                }
            }
        }
        self.expect(TokenKind::RParen, "')'")?;
        let values = self.func.func.dfg.make_extra(ExtraData::CaseValues(values));
        self.region_op(OpKind::Case { kind, values }, &[], n, loc)
    }

    /// `cir.eh.dispatch %t : !cir.eh_token [ KEY : ^bb ... ]`
    fn parse_eh_dispatch(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let t = self.expect(TokenKind::ValueId, "the exception token ('%name')")?;
        let stated = if self.eat(TokenKind::Colon) {
            Some(self.parse_type()?)
        } else {
            None
        };
        let token = self.use_value(t, stated);
        self.expect(TokenKind::LBracket, "'[' and the handler list")?;
        let mut keys = Vec::new();
        let mut succs = Vec::new();
        while !self.eat(TokenKind::RBracket) {
            let key = match self.tok_text() {
                _ if self.tok.kind != TokenKind::Ident => {
                    return Err(self.unexpected(
                        "'catch (...)', 'catch_all', 'unwind', 'filter (...)', 'terminate' or ']'",
                    ));
                }
                "catch" => {
                    self.bump();
                    self.expect(TokenKind::LParen, "'(' and the caught type")?;
                    let a = self.parse_attr()?;
                    self.expect(TokenKind::RParen, "')'")?;
                    HandlerKey::Catch(a)
                }
                "catch_all" => {
                    self.bump();
                    HandlerKey::CatchAll
                }
                "unwind" => {
                    self.bump();
                    HandlerKey::Unwind
                }
                "filter" => {
                    self.bump();
                    self.expect(TokenKind::LParen, "'(' and the filter's type list")?;
                    let a = if self.tok.kind == TokenKind::LBracket {
                        let a = self.parse_filter_list()?;
                        self.expect(TokenKind::RParen, "')'")?;
                        a
                    } else {
                        // Upstream's `filter(#a, #b)` and `filter()`.
                        let mut items = Vec::new();
                        if !self.eat(TokenKind::RParen) {
                            loop {
                                items.push(self.parse_attr()?);
                                if self.eat(TokenKind::RParen) {
                                    break;
                                }
                                self.expect(TokenKind::Comma, "',' or ')'")?;
                            }
                        }
                        self.module.ctx.attrs.intern(AttrData::List(items))
                    };
                    HandlerKey::Filter(a)
                }
                "terminate" => {
                    self.bump();
                    HandlerKey::Terminate
                }
                _ => {
                    return Err(self.unexpected(
                        "'catch (...)', 'catch_all', 'unwind', 'filter (...)', 'terminate' or ']'",
                    ));
                }
            };
            // Upstream's parser rejects a second default handler where it reads it.
            let conflict = match key {
                HandlerKey::CatchAll if keys.contains(&HandlerKey::CatchAll) => {
                    Some("duplicate 'catch_all' handler")
                }
                HandlerKey::Unwind if keys.contains(&HandlerKey::Unwind) => {
                    Some("duplicate 'unwind' handler")
                }
                HandlerKey::CatchAll | HandlerKey::Unwind
                    if keys
                        .iter()
                        .any(|k| matches!(k, HandlerKey::CatchAll | HandlerKey::Unwind)) =>
                {
                    Some("cannot have both 'catch_all' and 'unwind'")
                }
                _ => None,
            };
            if let Some(conflict) = conflict {
                return Err(self.error(self.loc(), format!("'cir.eh.dispatch' {conflict}")));
            }
            self.expect(TokenKind::Colon, "':' and the handler block")?;
            succs.push(self.parse_successor()?);
            keys.push(key);
            self.eat(TokenKind::Comma);
        }
        // Upstream's parser checks the default handler of the list (the verifier checks
        // the rest of the key grammar), where it finds it missing: after the list.
        let has_default = keys.iter().any(|k| {
            matches!(
                k,
                HandlerKey::CatchAll | HandlerKey::Unwind | HandlerKey::Terminate
            )
        });
        if !has_default {
            return Err(self.error(
                self.loc(),
                "'cir.eh.dispatch' must have either 'catch_all' or 'unwind' handler (or 'terminate')",
            ));
        }
        let keys = self.func.func.dfg.make_extra(ExtraData::Handlers(keys));
        let op = self.emit(OpKind::EhDispatch { keys }, &[token], &[], n, loc);
        self.attach(op, succs);
        Ok(())
    }

    /// `cir.begin_cleanup %t : !cir.eh_token -> !cir.cleanup_token`,
    /// `cir.begin_catch %t : !cir.eh_token -> (!cir.catch_token, !cir.ptr<T>)` and the
    /// variants `cir.begin_X(%t : T) : R[, R2]` and `cir.begin_catch %t -> (...)`.
    /// `to %dest [using @copy] : !cir.ptr<T>`, the tail of `cir.copy_catch_param` and
    /// `cir.construct_catch_param`: the destination's token, the copy function (`copy`
    /// says what it is) and the type.
    /// MLIR's generic op form (`"cir.x"(%a, %b) <{...}> : (T, U) -> ()`), which ehir
    /// does not read: an operand count that the op's row rules out is reported as MLIR's
    /// verifier words it (`'cir.x' op expected 2 operands, but found 1`), anything else
    /// as not supported yet.
    fn generic_op(&mut self) -> crate::parser::Abort {
        let name_tok = self.tok;
        let loc = Loc(name_tok.start);
        let quoted = self.text_of(name_tok);
        let name = quoted.trim_matches('"').to_string();
        self.bump();
        let Some(code) = OpCode::from_name(&name) else {
            return self.error(loc, format!("unknown op '{name}'"));
        };
        let mut operands = 0usize;
        if self.eat(TokenKind::LParen) {
            while self.eat(TokenKind::ValueId) {
                operands += 1;
                if !self.eat(TokenKind::Comma) {
                    break;
                }
            }
        }
        let info = code.info();
        let name = info.name;
        match info.operands {
            ehir_core::ops::Count::Exactly(count) if count as usize != operands => self.error(
                loc,
                format!("'{name}' op expected {count} operands, but found {operands}"),
            ),
            _ => self.error(
                loc,
                format!("not supported yet: the generic op form (\"{name}\"(...)); write '{name}' in its custom form"),
            ),
        }
    }

    /// The kind of a catch parameter's initialization (`trivial_copy`, `reference`, ...).
    fn catch_init_kind(&mut self) -> PResult<Symbol> {
        let kind_tok = self.expect(
            TokenKind::Ident,
            "the kind of initialization ('reference', 'trivial_copy', ...)",
        )?;
        Ok(self.module.ctx.sym(self.text_of(kind_tok)))
    }

    fn catch_param_copy(&mut self, copy: &str) -> PResult<(Token, Option<Symbol>, Type)> {
        self.expect_ident("to", "'to' and the catch parameter's address")?;
        let dest = self.expect(
            TokenKind::ValueId,
            "the catch parameter's address ('%name')",
        )?;
        // Upstream may write `using` without a function (`... to %p using : T`).
        let function = if self.eat_ident("using") && !self.at(TokenKind::Colon) {
            Some(self.expect_symbol(copy)?.0)
        } else {
            None
        };
        self.expect(
            TokenKind::Colon,
            "':' and the catch parameter's address type",
        )?;
        Ok((dest, function, self.parse_type()?))
    }

    fn parse_begin(&mut self, kind: OpKind, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let paren = self.eat(TokenKind::LParen);
        let t = self.expect(TokenKind::ValueId, "the exception token ('%name')")?;
        let stated = if self.eat(TokenKind::Colon) {
            Some(self.parse_type()?)
        } else {
            None
        };
        if paren {
            self.expect(TokenKind::RParen, "')'")?;
        }
        if !self.eat(TokenKind::Arrow) && !self.eat(TokenKind::Colon) {
            return Err(self.unexpected("'->' and the result type"));
        }
        let results_loc = self.loc();
        let results = self.parse_result_types()?;
        let max = if kind == OpKind::BeginCatch { 2 } else { 1 };
        if results.is_empty() || results.len() > max {
            return Err(self.error(
                results_loc,
                format!(
                    "'{}' has 1 to {max} result type(s), not {}",
                    kind.name(),
                    results.len()
                ),
            ));
        }
        let token = self.use_value(t, stated);
        self.emit(kind, &[token], &results, n, loc);
        Ok(())
    }

    /// `cir.end_cleanup %c : !cir.cleanup_token`, `cir.end_catch(%c : !cir.catch_token)`
    fn parse_end(&mut self, kind: OpKind, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let paren = self.eat(TokenKind::LParen);
        let t = self.expect(TokenKind::ValueId, "the token ('%name')")?;
        let stated = if self.at(TokenKind::Colon) && self.peek().kind == TokenKind::TypeId {
            self.bump();
            Some(self.parse_type()?)
        } else {
            None
        };
        if paren {
            self.expect(TokenKind::RParen, "')'")?;
        }
        let token = self.use_value(t, stated);
        self.emit(kind, &[token], &[], n, loc);
        Ok(())
    }

    /// `cir.eh.landingpad [cleanup] [@ti, null, filter [@a]] : (!cir.ptr<!void>, !u32i)`
    fn parse_landingpad(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        let cleanup = self.eat_ident("cleanup");
        // Upstream's `cir.eh.inflight_exception [cleanup] [catch_all] [@ti, ...]`: the
        // catch-all clause is `null` after the typed ones.
        let catch_all = self.eat_ident("catch_all");
        let mut clauses = Vec::new();
        if self.eat(TokenKind::LBracket) && !self.eat(TokenKind::RBracket) {
            loop {
                if self.eat_ident("null") {
                    clauses.push(LandingPadClause::Catch(None));
                } else if self.eat_ident("filter") {
                    clauses.push(LandingPadClause::Filter(self.parse_filter_types()?));
                } else {
                    let (s, _) =
                        self.expect_symbol("a typeinfo symbol, 'null' or 'filter [...]'")?;
                    clauses.push(LandingPadClause::Catch(Some(s)));
                }
                if self.eat(TokenKind::RBracket) {
                    break;
                }
                self.expect(TokenKind::Comma, "',' or ']'")?;
            }
        }
        if catch_all {
            clauses.push(LandingPadClause::Catch(None));
        }
        // Upstream's filters after the typed catches: `filter [@a]`, `filter []`.
        while self.eat_ident("filter") {
            clauses.push(LandingPadClause::Filter(self.parse_filter_types()?));
        }
        let results = if self.eat(TokenKind::Colon) {
            self.parse_result_types()?
        } else {
            let common = self.module.ctx.types.common();
            SmallVec::from_slice(&[common.void_ptr, common.u32])
        };
        let clauses = self
            .func
            .func
            .dfg
            .make_extra(ExtraData::LandingPadClauses(clauses));
        self.emit(
            OpKind::EhLandingPad { cleanup, clauses },
            &[],
            &results,
            n,
            loc,
        );
        Ok(())
    }

    /// `cir.catchswitch within none|%p [^h...] unwind to caller|^bb`
    fn parse_catchswitch(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        self.expect_ident("within", "'within'")?;
        let parent = self.parse_parent_token()?;
        self.expect(TokenKind::LBracket, "'[' and the handler blocks")?;
        let mut succs = self.parse_successors_to_bracket()?;
        self.expect_ident("unwind", "'unwind to'")?;
        self.expect_ident("to", "'to'")?;
        let unwind_to_caller = self.eat_ident("caller");
        if !unwind_to_caller {
            succs.push(self.parse_successor()?);
        }
        let operands: Values = parent.into_iter().collect();
        let eh_token = self.module.ctx.types.common().eh_token;
        let op = self.emit(
            OpKind::CatchSwitch { unwind_to_caller },
            &operands,
            &[eh_token],
            n,
            loc,
        );
        self.attach(op, succs);
        Ok(())
    }

    /// `cir.catchpad within %cs [@desc|null, ADJ, %slot : T|null] : !cir.catch_token`, also
    /// `[eh.typeid @desc, 0, %x : (T1, T2, T3)]` and `[null : !cir.ptr<!void>]`.
    fn parse_catchpad(&mut self, n: &Names<'s>, loc: Loc) -> PResult<()> {
        enum Item {
            Null,
            Symbol(Symbol),
            Int(i128, Loc),
            Value(Token),
        }
        self.expect_ident("within", "'within' and the catchswitch token")?;
        let cs = self.expect_value_use(None)?;
        let list_loc = self.loc();
        self.expect(TokenKind::LBracket, "'[' and the catch arguments")?;
        let mut items: SmallVec<[Item; 3]> = SmallVec::new();
        let mut slot_type: Option<Type> = None;
        let mut trailing: SmallVec<[(Type, Loc); 3]> = SmallVec::new();
        if !self.eat(TokenKind::RBracket) {
            loop {
                if self.eat_ident("null") {
                    items.push(Item::Null);
                } else if self.eat_ident("eh.typeid") || self.at(TokenKind::SymbolRef) {
                    items.push(Item::Symbol(
                        self.expect_symbol("a type descriptor symbol")?.0,
                    ));
                } else if self.at(TokenKind::Integer) {
                    let (v, l) = self.expect_int("the catch adjectives")?;
                    items.push(Item::Int(v, l));
                } else if self.at(TokenKind::ValueId) {
                    items.push(Item::Value(self.tok));
                    self.bump();
                } else {
                    return Err(self.unexpected("a type descriptor, 'null', an integer or a value"));
                }
                if self.eat(TokenKind::Colon) {
                    // A trailing type list: one type per argument, or the slot's type.
                    if self.eat(TokenKind::LParen) {
                        loop {
                            let l = self.loc();
                            trailing.push((self.parse_type()?, l));
                            if self.eat(TokenKind::RParen) {
                                break;
                            }
                            self.expect(TokenKind::Comma, "',' or ')'")?;
                        }
                    } else {
                        let l = self.loc();
                        trailing.push((self.parse_type()?, l));
                    }
                    self.expect(TokenKind::RBracket, "']' after the argument types")?;
                    break;
                }
                if self.eat(TokenKind::RBracket) {
                    break;
                }
                self.expect(TokenKind::Comma, "',' or ']'")?;
            }
        }
        if items.len() > 3 {
            return Err(self.error(list_loc, "a catchpad takes at most 3 arguments"));
        }
        if !trailing.is_empty() {
            if trailing.len() == items.len() {
                if let Some(&(t, _)) = trailing.get(2) {
                    slot_type = Some(t);
                }
            } else if trailing.len() == 1 && matches!(items.last(), Some(Item::Value(_))) {
                slot_type = Some(trailing[0].0);
            } else if !(trailing.len() == 1 && items.len() == 1) {
                return Err(self.error(
                    trailing[0].1,
                    format!(
                        "{} argument type(s) for {} catchpad argument(s)",
                        trailing.len(),
                        items.len()
                    ),
                ));
            }
        }
        let mut type_desc = None;
        match items.first() {
            Some(Item::Null) | None => {}
            Some(Item::Symbol(s)) => type_desc = Some(*s),
            _ => {
                return Err(self.error(
                    list_loc,
                    "the first catchpad argument is a type descriptor ('@sym') or 'null'",
                ));
            }
        }
        let adjectives = match items.get(1) {
            None => {
                if type_desc.is_none() {
                    64
                } else {
                    0
                }
            }
            Some(Item::Int(v, l)) => {
                if *v < 0 || *v > u32::MAX as i128 {
                    return Err(self.error(*l, "catch adjectives must fit in 32 bits"));
                }
                *v as u32
            }
            _ => {
                return Err(self.error(
                    list_loc,
                    "the second catchpad argument is the adjectives (an integer)",
                ));
            }
        };
        let mut operands: Values = SmallVec::new();
        operands.push(cs);
        let has_slot = match items.get(2) {
            None | Some(Item::Null) => false,
            Some(Item::Value(t)) => {
                let t = *t;
                operands.push(self.use_value(t, slot_type));
                true
            }
            _ => {
                return Err(self.error(
                    list_loc,
                    "the third catchpad argument is the catch object's address or 'null'",
                ));
            }
        };
        let ty = if self.eat(TokenKind::Colon) {
            self.parse_type()?
        } else {
            self.module.ctx.types.common().catch_token
        };
        let kind = OpKind::CatchPad {
            type_desc: type_desc.into(),
            adjectives,
            has_slot,
        };
        self.emit(kind, &operands, &[ty], n, loc);
        Ok(())
    }
}
