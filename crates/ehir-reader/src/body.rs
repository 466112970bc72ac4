//! Function bodies: regions and blocks parsed with an explicit stack of open regions (so
//! 10,000 nested `cir.scope`s never grow the host stack), value and block name scopes,
//! forward references and the implicit `cir.yield` of unterminated nested regions.
//!
//! Name rules (MLIR's): a value name is visible in the region that defines it and in the
//! regions nested in it, and may not be defined again while it is visible; sibling regions
//! may reuse names. A use before the definition in text order is a forward reference,
//! resolved when the name is defined and reported at the first use if it never is. Block
//! names are local to their region; successors name blocks of the same region.

use crate::lexer::TokenKind;
use crate::parser::{Abort, FuncHeader, Names, PResult, Params, Parser};
use ehir_core::function::PhaseEvidence;
use ehir_core::{
    Block, Diagnostic, EntityRef, Function, Loc, Op, OpKind, PackedOption, Region, Type, Value,
};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// Forward references are placed in operand lists as values with this bit set (an index
/// into [`FuncState::forward`]) and patched when the function is complete.
const FORWARD_BIT: u32 = 1 << 31;

#[derive(Copy, Clone)]
enum ValueSlot {
    Defined { value: Value, loc: Loc },
    Forward(u32),
}

struct ForwardRef<'s> {
    name: &'s str,
    /// The first use.
    loc: Loc,
    /// The type the first typed use stated.
    ty: Option<Type>,
    resolved: PackedOption<Value>,
}

struct BlockEntry<'s> {
    name: &'s str,
    block: Block,
    defined: bool,
    /// The definition, or the first use while undefined.
    loc: Loc,
    /// The first use as a successor ([`Loc::NONE`] if none).
    use_loc: Loc,
}

/// The block names of one open region, in order of first mention.
#[derive(Default)]
struct BlockScope<'s> {
    index: FxHashMap<&'s str, u32>,
    entries: Vec<BlockEntry<'s>>,
}

impl<'s> BlockScope<'s> {
    /// Adds the entry of a name not in the scope yet; returns its block.
    fn add(&mut self, entry: BlockEntry<'s>) -> Block {
        self.index.insert(entry.name, self.entries.len() as u32);
        let block = entry.block;
        self.entries.push(entry);
        block
    }
}

/// One open region.
struct Frame {
    /// The op owning the region; `None` for the function body.
    op: PackedOption<Op>,
    region: Region,
    /// Which region of `op` this is.
    index: u32,
    /// The block ops are appended to.
    block: PackedOption<Block>,
    /// Length of `scope_defs` when the region opened.
    value_mark: usize,
    open_loc: Loc,
    /// The function body's entry block exists already; a first label names it.
    entry_label_allowed: bool,
}

/// Per-function parser state, reused from one function to the next.
pub(crate) struct FuncState<'s> {
    pub func: Function,
    values: FxHashMap<&'s str, ValueSlot>,
    /// Names defined in the open regions, innermost last.
    scope_defs: Vec<&'s str>,
    forward: Vec<ForwardRef<'s>>,
    frames: Vec<Frame>,
    /// One per open region (parallel to `frames`); kept allocated for reuse.
    block_scopes: Vec<BlockScope<'s>>,
    /// Result names of region ops whose results are defined after their regions
    /// (`cir.ternary`), innermost last.
    pending_results: Vec<(Op, Names<'s>)>,
    /// Parsing ops found at module level: only syntax is checked.
    fragment: bool,
    /// What the ops emitted so far say about the function's phase.
    pub evidence: PhaseEvidence,
}

impl Default for FuncState<'_> {
    fn default() -> Self {
        FuncState {
            func: Function::new_declaration(ehir_core::Symbol::new(0), Type::new(0)),
            values: FxHashMap::default(),
            scope_defs: Vec::new(),
            forward: Vec::new(),
            frames: Vec::new(),
            block_scopes: Vec::new(),
            pending_results: Vec::new(),
            fragment: false,
            evidence: PhaseEvidence::default(),
        }
    }
}

impl<'s> FuncState<'s> {
    /// The block ops are being appended to, if one is open.
    pub(crate) fn open_block(&self) -> Option<Block> {
        self.frames.last().and_then(|frame| frame.block.expand())
    }

    fn reset(&mut self, func: Function, fragment: bool) {
        self.func = func;
        self.values.clear();
        self.scope_defs.clear();
        self.forward.clear();
        // Regions left open by an error still hold block names.
        for scope in &mut self.block_scopes[..self.frames.len()] {
            scope.index.clear();
            scope.entries.clear();
        }
        self.frames.clear();
        self.pending_results.clear();
        self.fragment = fragment;
        self.evidence = PhaseEvidence::default();
    }
}

impl<'s> Parser<'s> {
    /// Parses `{ ... }` after a definition's header and returns the finished function.
    pub(crate) fn parse_function_body(
        &mut self,
        header: &FuncHeader<'s>,
        loc: Loc,
    ) -> PResult<Function> {
        let param_types: SmallVec<[Type; 4]> = header.params.iter().map(|p| p.1).collect();
        let mut func = Function::new_definition(header.name, header.sig, &param_types);
        // Functions of a file tend to be alike: room for one as large as the previous one
        // avoids growing the tables op by op (the spare room is released below).
        func.reserve(self.body_size_hint);
        header.apply_to(&mut func, loc);
        let body = func.body.expect("a definition has a body");
        let entry = func.entry_block().expect("a definition has an entry block");
        func.dfg.blocks[entry].loc = loc;
        self.func.reset(func, false);
        let open = self.expect(TokenKind::LBrace, "'{'")?;
        self.push_frame(None, body, 0, Loc(open.start));
        let frame = self.func.frames.last_mut().expect("frame just pushed");
        frame.block = entry.into();
        frame.entry_label_allowed = true;
        for (i, (name, _)) in header.params.iter().enumerate() {
            if let Some((name, name_loc)) = *name {
                let v = self.func.func.dfg.block_params(entry)[i];
                self.define_value(name, name_loc, v);
            }
        }
        self.parse_regions()?;
        self.finish_function();
        let mut func = std::mem::replace(
            &mut self.func.func,
            Function::new_declaration(header.name, header.sig),
        );
        func.shrink_to_fit();
        let dfg = &func.dfg;
        self.body_size_hint = ehir_core::dfg::DfgSize {
            ops: dfg.ops.len(),
            values: dfg.values.len(),
            blocks: dfg.blocks.len(),
            regions: dfg.regions.len(),
            successors: dfg.successors.len(),
            // The pools grow geometrically; their room is not worth reserving.
            ..ehir_core::dfg::DfgSize::default()
        };
        let personality = func
            .personality
            .map(|p| self.module.ctx.name(p).to_string());
        func.phase = match header.phase {
            Some(p) => p,
            // Every op the parser makes is placed in the body, so the ops it noted on the
            // way are the ops `Function::inferred_phase` would walk.
            None => {
                let phase = self.func.evidence.phase(&func, personality.as_deref());
                debug_assert_eq!(phase, func.inferred_phase(personality.as_deref()));
                phase
            }
        };
        Ok(func)
    }

    /// Ops and blocks written at module level (a listing fragment): parsed to report their
    /// syntax errors, then dropped. The caller has reported that they are misplaced.
    pub(crate) fn parse_fragment(&mut self) -> PResult<()> {
        let name = self.module.ctx.sym("");
        let void_sig = self.module.ctx.types.func(Vec::new(), None, false);
        let mut func = Function::new_declaration(name, void_sig);
        let body = func.dfg.make_region(None);
        func.body = Some(body);
        self.func.reset(func, true);
        self.push_frame(None, body, 0, self.loc());
        self.parse_regions()?;
        self.finish_function();
        Ok(())
    }

    fn push_frame(&mut self, op: Option<Op>, region: Region, index: u32, open_loc: Loc) {
        let depth = self.func.frames.len();
        if self.func.block_scopes.len() <= depth {
            self.func.block_scopes.push(BlockScope::default());
        }
        self.func.frames.push(Frame {
            op: op.into(),
            region,
            index,
            block: None.into(),
            value_mark: self.func.scope_defs.len(),
            open_loc,
            entry_label_allowed: false,
        });
    }

    /// The main loop: ops, labels and closing braces until the function body closes.
    fn parse_regions(&mut self) -> PResult<()> {
        loop {
            match self.tok.kind {
                TokenKind::RBrace => {
                    if self.func.fragment && self.func.frames.len() == 1 {
                        return Err(self.unexpected("an op"));
                    }
                    let close = self.loc();
                    self.bump();
                    let (op, index) = self.close_region(close);
                    match op {
                        None => return Ok(()),
                        Some(op) => self.continue_region_op(op, index)?,
                    }
                }
                TokenKind::BlockId => self.parse_block_label()?,
                TokenKind::Eof => {
                    if self.func.fragment && self.func.frames.len() == 1 {
                        self.close_region(self.loc());
                        return Ok(());
                    }
                    let open = self.func.frames.last().map_or(Loc::NONE, |f| f.open_loc);
                    let d = Diagnostic::error(
                        self.loc(),
                        "unexpected end of file: expected '}' to close a region",
                    )
                    .with_note(open, "the region opened here");
                    self.diags.push(d);
                    return Err(Abort);
                }
                _ if self.func.fragment && self.func.frames.len() == 1 && self.at_item_start() => {
                    self.close_region(self.loc());
                    return Ok(());
                }
                _ => self.parse_op()?,
            }
        }
    }

    /// Closes the innermost region: reports its undefined blocks, forgets its names and
    /// terminates an unterminated nested region with `cir.yield`. Returns the owning op and
    /// the region's index.
    fn close_region(&mut self, close: Loc) -> (Option<Op>, u32) {
        let frame = self.func.frames.pop().expect("a region is open");
        let depth = self.func.frames.len();
        let scope = &mut self.func.block_scopes[depth];
        let entry = self.func.func.layout.entry_block(frame.region);
        if !self.func.fragment {
            for e in &scope.entries {
                if !e.defined {
                    self.diags.push(Diagnostic::error(
                        e.loc,
                        format!("use of undefined block '^{}'", e.name),
                    ));
                } else if Some(e.block) == entry && e.use_loc != Loc::NONE {
                    self.diags.push(
                        Diagnostic::error(
                            e.use_loc,
                            format!(
                                "'^{}' is the entry block of its region and cannot be a branch target",
                                e.name
                            ),
                        )
                        .with_note(e.loc, "the entry block"),
                    );
                }
            }
        }
        if !scope.entries.is_empty() {
            scope.index.clear();
            scope.entries.clear();
        }
        for name in self.func.scope_defs.drain(frame.value_mark..) {
            if let std::collections::hash_map::Entry::Occupied(e) = self.func.values.entry(name)
                && let ValueSlot::Defined { .. } = e.get()
            {
                e.remove();
            }
        }
        if let Some(op) = frame.op.expand()
            && frame.index >= 1
            && matches!(self.func.func.dfg.kind(op), OpKind::Try { .. })
        {
            // Upstream's rules for the handler regions of `cir.try`: none is empty, each
            // ends in its own terminator.
            let func = &self.func.func;
            let ops = func
                .layout
                .blocks(frame.region)
                .flat_map(|b| func.layout.ops(b));
            let last = func
                .layout
                .last_block(frame.region)
                .and_then(|b| func.layout.last_op(b));
            if ops.count() == 0 {
                self.diags.push(Diagnostic::error(
                    func.dfg.loc(op),
                    "'cir.try' op region #1 ('handler_regions') failed to verify constraint: region with at least 1 blocks",
                ));
            } else if !last.is_some_and(|l| func.dfg.kind(l).is_terminator()) {
                self.diags.push(Diagnostic::error(
                    frame.open_loc,
                    "'cir.try' blocks are expected to be explicitly terminated",
                ));
            }
        }
        if frame.op.is_some() {
            let func = &mut self.func.func;
            let block = match func.layout.last_block(frame.region) {
                Some(b) => b,
                None => {
                    let b = func.dfg.make_block();
                    func.dfg.blocks[b].loc = close;
                    func.layout.append_block(frame.region, b);
                    b
                }
            };
            let terminated = func
                .layout
                .last_op(block)
                .is_some_and(|op| func.dfg.kind(op).is_terminator());
            if !terminated {
                let y = func.dfg.make_op(OpKind::Yield, &[], &[], &[], 0, close);
                func.layout.append_op(y, block);
                self.func.evidence.note(&OpKind::Yield);
            }
        }
        (frame.op.expand(), frame.index)
    }

    /// Opens region `index` of `op` at the current `{`; `params` become the parameters of
    /// its entry block.
    pub(crate) fn open_region(
        &mut self,
        op: Op,
        index: u32,
        params: &[(&'s str, Loc, Type)],
    ) -> PResult<()> {
        let open = self.expect(TokenKind::LBrace, "'{' to open a region")?;
        let region = self.func.func.dfg.make_region(Some(op));
        self.func.func.dfg.attach_region(op, region);
        self.push_frame(Some(op), region, index, Loc(open.start));
        if !params.is_empty() {
            let b = self.func.func.dfg.make_block();
            self.func.func.dfg.blocks[b].loc = params[0].1;
            self.func.func.layout.append_block(region, b);
            for &(name, loc, ty) in params {
                let v = self.func.func.dfg.append_block_param(b, ty);
                self.define_value(name, loc, v);
            }
            self.func.frames.last_mut().expect("frame").block = b.into();
        }
        Ok(())
    }

    /// `(%a : T, %b : U)`: parameters of a handler region or a block label.
    pub(crate) fn parse_param_list(&mut self) -> PResult<Params<'s>> {
        self.expect(TokenKind::LParen, "'('")?;
        let mut params = SmallVec::new();
        self.parse_comma_separated(TokenKind::RParen, "',' or ')'", |p| {
            let t = p.expect(TokenKind::ValueId, "a parameter name ('%name')")?;
            p.expect(TokenKind::Colon, "':' and the parameter's type")?;
            let ty = p.parse_type()?;
            params.push((&p.text_of(t)[1..], Loc(t.start), ty));
            Ok(())
        })?;
        Ok(params)
    }

    /// `^name[(params)][:]` starts a new block of the current region.
    fn parse_block_label(&mut self) -> PResult<()> {
        let t = self.tok;
        let loc = Loc(t.start);
        let name = &self.text_of(t)[1..];
        self.bump();
        let frame = self.func.frames.last_mut().expect("a region is open");
        if frame.entry_label_allowed {
            frame.entry_label_allowed = false;
            let entry = frame.block.expand().expect("the body has an entry block");
            if self.at(TokenKind::LParen) {
                return Err(self.error(
                    self.loc(),
                    "the entry block of a function takes its parameters from the signature",
                ));
            }
            let scope = self.func.block_scopes.last_mut().expect("scope");
            scope.index.insert(name, scope.entries.len() as u32);
            scope.entries.push(BlockEntry {
                name,
                block: entry,
                defined: true,
                loc,
                use_loc: Loc::NONE,
            });
            self.eat(TokenKind::Colon);
            return Ok(());
        }
        let region = frame.region;
        if let Some(previous) = frame.block.expand()
            && self.func.func.layout.first_op(previous).is_none()
        {
            // An empty block ends without a terminator; an empty unlabeled entry block
            // could not even be printed.
            let at = self.func.func.dfg.blocks[previous].loc;
            self.report(
                at,
                "this block is empty: every block ends with a terminator",
            );
        }
        let block = self.define_block(name, loc);
        self.func.func.layout.append_block(region, block);
        self.func.func.dfg.blocks[block].loc = loc;
        self.func.frames.last_mut().expect("frame").block = block.into();
        if self.at(TokenKind::LParen) {
            for (pname, ploc, ty) in self.parse_param_list()? {
                let v = self.func.func.dfg.append_block_param(block, ty);
                self.define_value(pname, ploc, v);
            }
        }
        self.eat(TokenKind::Colon);
        Ok(())
    }

    fn define_block(&mut self, name: &'s str, loc: Loc) -> Block {
        let depth = self.func.frames.len() - 1;
        let scope = &mut self.func.block_scopes[depth];
        if let Some(&i) = scope.index.get(name) {
            let e = &mut scope.entries[i as usize];
            if !e.defined {
                e.defined = true;
                e.loc = loc;
                return e.block;
            }
            let previous = e.loc;
            self.report_redefinition(loc, &format!("block '^{name}'"), previous);
            return self.func.func.dfg.make_block();
        }
        let block = self.func.func.dfg.make_block();
        scope.add(BlockEntry {
            name,
            block,
            defined: true,
            loc,
            use_loc: Loc::NONE,
        })
    }

    /// The block a successor `^name` refers to in the current region.
    pub(crate) fn use_block(&mut self, name: &'s str, loc: Loc) -> Block {
        let depth = self.func.frames.len() - 1;
        let scope = &mut self.func.block_scopes[depth];
        if let Some(&i) = scope.index.get(name) {
            let e = &mut scope.entries[i as usize];
            if e.use_loc == Loc::NONE {
                e.use_loc = loc;
            }
            return e.block;
        }
        let block = self.func.func.dfg.make_block();
        scope.add(BlockEntry {
            name,
            block,
            defined: false,
            loc,
            use_loc: loc,
        })
    }

    /// The block ops go to; creates the entry block of a region that has no label.
    pub(crate) fn current_block(&mut self) -> Block {
        let frame = self.func.frames.last_mut().expect("a region is open");
        frame.entry_label_allowed = false;
        if let Some(b) = frame.block.expand() {
            return b;
        }
        let region = frame.region;
        let b = self.func.func.dfg.make_block();
        self.func.func.dfg.blocks[b].loc = Loc(self.tok.start);
        self.func.func.layout.append_block(region, b);
        self.func.frames.last_mut().expect("frame").block = b.into();
        b
    }

    /// The name of the function being parsed (for `cir.block_address`).
    pub(crate) fn function_name(&self) -> ehir_core::Symbol {
        self.func.func.name
    }

    /// Where the innermost open region began (for "unterminated" notes).
    pub(crate) fn innermost_open_loc(&self) -> Loc {
        self.func.frames.last().map_or(Loc::NONE, |f| f.open_loc)
    }

    pub(crate) fn is_fragment(&self) -> bool {
        self.func.fragment
    }

    pub(crate) fn push_pending_results(&mut self, op: Op, names: Names<'s>) {
        self.func.pending_results.push((op, names));
    }

    pub(crate) fn pop_pending_results(&mut self, op: Op) -> Names<'s> {
        match self.func.pending_results.last() {
            Some((o, _)) if *o == op => self
                .func
                .pending_results
                .pop()
                .map(|p| p.1)
                .unwrap_or_default(),
            _ => SmallVec::new(),
        }
    }

    // ---- values --------------------------------------------------------------------------

    /// Binds `name` to `value` in the innermost region.
    pub(crate) fn define_value(&mut self, name: &'s str, loc: Loc, value: Value) {
        use std::collections::hash_map::Entry;
        let slot = ValueSlot::Defined { value, loc };
        self.func.scope_defs.push(name);
        let previous = match self.func.values.entry(name) {
            Entry::Vacant(e) => {
                e.insert(slot);
                return;
            }
            Entry::Occupied(mut e) => e.insert(slot),
        };
        match previous {
            ValueSlot::Defined { loc: previous, .. } => {
                self.report_redefinition(loc, &format!("value '%{name}'"), previous);
            }
            ValueSlot::Forward(i) => {
                let fr = &mut self.func.forward[i as usize];
                fr.resolved = value.into();
                let value_ty = self.func.func.dfg.value_type(value);
                if let Some(used) = fr.ty.filter(|&t| t != value_ty) {
                    let use_loc = fr.loc;
                    let message = format!(
                        "'%{name}' is defined with type {} but was used as {}",
                        self.type_name(value_ty),
                        self.type_name(used)
                    );
                    self.diags.push(
                        Diagnostic::error(loc, message).with_note(use_loc, "first use is here"),
                    );
                }
            }
        }
    }

    /// Binds the result names of `op`.
    pub(crate) fn bind_results(&mut self, op: Op, names: &[(&'s str, Loc)], loc: Loc) {
        let results: SmallVec<[Value; 2]> = self.func.func.dfg.results(op).into();
        if results.len() != names.len() {
            let at = names.first().map_or(loc, |n| n.1);
            let kind = self.func.func.dfg.kind(op).name();
            self.report(
                at,
                format!(
                    "'{kind}' produces {} result(s) but {} name(s) are bound to it",
                    results.len(),
                    names.len()
                ),
            );
        }
        for (&(name, nloc), &v) in names.iter().zip(results.iter()) {
            self.define_value(name, nloc, v);
        }
    }

    /// Resolves a use of the `%name` token `t`. `stated` is the type the text gives the use
    /// (checked against the definition).
    pub(crate) fn use_value(&mut self, t: crate::lexer::Token, stated: Option<Type>) -> Value {
        let name = &self.text_of(t)[1..];
        let loc = Loc(t.start);
        match self.func.values.get(name).copied() {
            Some(ValueSlot::Defined { value, .. }) => {
                if let Some(stated) = stated {
                    let actual = self.func.func.dfg.value_type(value);
                    if actual != stated {
                        let message = format!(
                            "'%{name}' has type {} but is used as {}",
                            self.type_name(actual),
                            self.type_name(stated)
                        );
                        self.report(loc, message);
                    }
                }
                value
            }
            Some(ValueSlot::Forward(i)) => {
                let fr = &mut self.func.forward[i as usize];
                match (fr.ty, stated) {
                    (None, Some(_)) => fr.ty = stated,
                    (Some(first), Some(now)) if first != now => {
                        let message = format!(
                            "'%{name}' is used as {} here but as {} before",
                            self.type_name(now),
                            self.type_name(first)
                        );
                        self.report(loc, message);
                    }
                    _ => {}
                }
                Value::from_u32(FORWARD_BIT | i)
            }
            None => {
                let i = self.func.forward.len() as u32;
                self.func.forward.push(ForwardRef {
                    name,
                    loc,
                    ty: stated,
                    resolved: None.into(),
                });
                self.func.values.insert(name, ValueSlot::Forward(i));
                Value::from_u32(FORWARD_BIT | i)
            }
        }
    }

    /// The type of a value as far as it is known while parsing (a forward reference has the
    /// type its first typed use stated).
    pub(crate) fn value_type(&self, v: Value) -> Option<Type> {
        let raw = v.as_u32();
        if raw & FORWARD_BIT != 0 {
            let fr = &self.func.forward[(raw & !FORWARD_BIT) as usize];
            return fr
                .resolved
                .expand()
                .map(|r| self.func.func.dfg.value_type(r))
                .or(fr.ty);
        }
        Some(self.func.func.dfg.value_type(v))
    }

    /// Resolves forward references and reports the undefined ones.
    fn finish_function(&mut self) {
        if self.func.forward.is_empty() {
            return;
        }
        let mut unresolved = false;
        for fr in &self.func.forward {
            if fr.resolved.is_none() {
                unresolved = true;
                if !self.func.fragment {
                    self.diags.push(Diagnostic::error(
                        fr.loc,
                        format!("use of undefined value '%{}'", fr.name),
                    ));
                }
            }
        }
        if unresolved {
            // The function is dropped with the diagnostics; nothing to patch.
            return;
        }
        let forward = &self.func.forward;
        let patch = |v: &mut Value| {
            let raw = v.as_u32();
            if raw & FORWARD_BIT != 0
                && let Some(r) = forward[(raw & !FORWARD_BIT) as usize].resolved.expand()
            {
                *v = r;
            }
        };
        let dfg = &mut self.func.func.dfg;
        let ops: Vec<Op> = dfg.ops.keys().collect();
        for op in ops {
            dfg.operands_mut(op).iter_mut().for_each(patch);
        }
        for data in dfg.successors.values_mut() {
            data.args
                .as_mut_slice(&mut dfg.value_lists)
                .iter_mut()
                .for_each(patch);
        }
    }

    /// A type as text, for messages.
    pub(crate) fn type_name(&self, t: Type) -> String {
        let mut out = Vec::new();
        let _ = ehir_core::printer::write_type(&mut out, &self.module.ctx, t);
        String::from_utf8(out).unwrap_or_default()
    }
}
