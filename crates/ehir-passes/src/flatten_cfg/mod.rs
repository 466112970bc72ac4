//! `flatten-cfg`: turns every structured function into one region of blocks (phase flat),
//! routing cleanups and exceptions through explicit, ABI-agnostic blocks the way Clang's
//! own codegen does.
//!
//! Rewrites:
//! - `cir.scope`, `cir.if`, `cir.ternary`, `cir.while`/`cir.do`/`cir.for`, `cir.switch` with
//!   its `cir.case`s → blocks, `cir.br`/`cir.brcond`/`cir.switch.flat` (a switch gets a block
//!   of its own; a list of cases falls through from one case's end to the next one's
//!   entry); region results become parameters of the continuation block; `cir.label`s
//!   disappear and `cir.goto` becomes a branch.
//! - Normal cleanups (`cir.cleanup.scope` `normal`/`all`, and the `cir.end_catch` of a catch
//!   handler), as upstream lowers them: when every exit of the scope goes to one
//!   destination, one cleanup block that all exits branch to and that goes on to it; with
//!   several destinations (`yield`, `break`, `continue`, `return`, `goto` out of the scope)
//!   one shared cleanup block, the scope's own number of each exit (0 for the scope's end,
//!   then 1, 2, ... in the order met) stored in `__cleanup_dest_slot` (an alloca marked
//!   `cleanup_dest_slot`) before it, and a `cir.switch.flat` on the slot to one block per
//!   destination, which goes on to it (storing the next scope's number of that exit when it
//!   leaves that scope too), with an `unreachable` default. `eh`-only cleanups are skipped
//!   on normal exits; a `goto` that stays inside a scope runs nothing. A `cir.return` that
//!   runs cleanups is made again where it lands, its value a constant made again there or
//!   loaded from `__ret_operand_tmp`, where it was stored before leaving. A shared cleanup
//!   whose own code holds cleanup scopes or trys reads the slot before running (Clang's
//!   `cleanup.dest.saved`), since those may overwrite it.
//! - Exceptions: a may-throw `cir.call` (and `cir.throw`) inside a try body, an EH cleanup
//!   scope or a catch handler becomes `cir.try_call` (gets an unwind successor). Each such
//!   scope has one landing pad (`cir.eh.initiate [cleanup]`, `cleanup` when a cleanup runs
//!   before a catch-all or terminate handler would make it moot) shared by the calls whose
//!   innermost scope it is. EH cleanups are `cir.begin_cleanup … cir.end_cleanup` blocks that
//!   branch to the enclosing scope's EH block, the try's `cir.eh.dispatch`, or `cir.resume`.
//!   One dispatch block per try; handlers start with `cir.begin_catch` (whose second result
//!   replaces `cir.catch_param`; a `cir.copy_catch_param` of it stays right after it) and
//!   leave through `cir.end_catch` on every path, including
//!   exceptions raised inside them. `filter`/`terminate` handlers become dispatch keys. A
//!   may-throw call inside an EH cleanup unwinds to `cir.eh.initiate` + `cir.eh.terminate`.
//! - Allocas move to the entry block. The block structure the flattening creates is kept
//!   as it is (as upstream ClangIR's `cir-flatten-cfg` does): unreachable blocks (the
//!   continuation of a scope every path of which returns), empty forwarding blocks and
//!   straight-line block pairs stay for `simplify-cfg` ([`crate::simplify_cfg`]), which the
//!   pipelines run next.
//!
//! Nothing here recurses on the host stack per nesting level: structured ops are entered
//! and left through an explicit stack of frames, and every lookup of an enclosing construct
//! is a link stored in the frame. Cost is linear in the size of the function: the ops after
//! a structured op move to its continuation block only as they are processed.
//!
//! Block order (upstream's): a structured op's blocks follow the block it was in, then its
//! normal cleanup blocks, then its continuation. The landing pad and EH cleanup blocks of a
//! cleanup scope follow its normal cleanup blocks, before its continuation; those of a
//! `try`, and its dispatch block, follow its body (in the order they were needed), then
//! its handlers; the others (a catch handler's) go to the end of the function.
//!
//! Files: this one drives the walk and dispatches each op; `frames.rs` holds the frame
//! stack and the links to enclosing constructs; `control_flow.rs` the structured control
//! flow and region exits; `cleanups.rs` normal cleanups and their destination switch;
//! `eh.rs` landing pads, EH cleanups and the dispatch and handlers of a `try`. Every op is
//! made through the cursor's typed inserters (`ehir_core::FuncCursor`).

mod cleanups;
mod control_flow;
mod eh;
mod frames;

use crate::pass::FunctionStep;
use control_flow::{LabelInfo, LeavingTerminator};
use ehir_core::{
    Block, CursorPosition, Diagnostic, Diagnostics, FuncCursor, Function, Loc, Module, ModuleCtx,
    Op, OpKind, PackedOption, Phase, Region, SecondaryMap, Symbol, Type, Value, ValueDef,
};
use frames::{CleanupState, ContainerData, Dest, DestId, Frame, Links, RegionFrame, Role, Stage};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Flattens every structured function definition of the module.
pub fn flatten_module(module: &mut Module) -> Result<(), Diagnostics> {
    crate::pass::run_step(module, &flatten_step(module))
}

/// `flatten-cfg` as a step on one function: [`flatten_function`] on each structured
/// definition, with the `nothrow` callees of `module`.
pub fn flatten_step(module: &Module) -> FunctionStep<'static> {
    let nothrow = nothrow_callees(module);
    FunctionStep::on_definitions_in(Phase::Structured, move |ctx, func| {
        flatten_function(ctx, &nothrow, func)
    })
}

/// The set of callees whose calls cannot throw.
pub type NothrowCallees = HashSet<Symbol>;

/// The functions declared `nothrow`: calls to them stay plain calls.
pub fn nothrow_callees(module: &Module) -> NothrowCallees {
    module
        .functions
        .values()
        .filter(|f| f.nothrow)
        .map(|f| f.name)
        .collect()
}

/// Flattens one structured function and sets its phase to flat.
pub fn flatten_function(
    ctx: &mut ModuleCtx,
    nothrow: &NothrowCallees,
    func: &mut Function,
) -> Result<(), Diagnostic> {
    let Some(body) = func.body else {
        return Ok(());
    };
    let Some(entry) = func.entry_block() else {
        return Err(Diagnostic::error(
            func.loc,
            "function body has no entry block",
        ));
    };
    let mut f = Flattener::new(ctx, nothrow, func, body, entry);
    f.prepare()?;
    f.run()?;
    f.finish();
    func.phase = Phase::Flat;
    Ok(())
}

/// The index of a frame on the flattener's stack (`frames.rs`).
type FrameIdx = usize;

struct Flattener<'a> {
    ctx: &'a mut ModuleCtx,
    nothrow: &'a NothrowCallees,
    func: &'a mut Function,
    body: Region,
    entry: Block,
    frames: Vec<Frame>,
    /// Marks the end of normal code in the body region; function-level EH blocks follow it.
    fn_marker: Option<Block>,
    /// Allocas taken out of the body, to go to the front of the entry block.
    hoisted: Vec<Op>,
    /// Slots made by the flattening (`__cleanup_dest_slot`, `__ret_operand_tmp`), unplaced
    /// allocas that follow the hoisted ones.
    synthesized: Vec<Value>,
    dest_slot: Option<Value>,
    /// The `__ret_operand_tmp` slots of returns that leave cleanups, by value type.
    ret_slots: Vec<(Type, Value)>,
    dests: Vec<Dest>,
    dest_of_block: HashMap<Block, DestId>,
    alias: SecondaryMap<Value, PackedOption<Value>>,
    has_aliases: bool,
    terminate_lp: Option<Block>,
    terminate_entry: Option<Block>,
    resume_block: Option<Block>,
    labels: HashMap<Symbol, LabelInfo>,
    pre: SecondaryMap<Op, u32>,
    region_range: HashMap<Region, (u32, u32)>,
    /// Regions that hold a cleanup scope or a try at any depth: running them as a normal
    /// cleanup may overwrite the destination slot.
    regions_with_cleanups: SecondaryMap<Region, bool>,
    /// Blocks whose ops are still at the end of another block: `(source, first op)`. They
    /// move when processed, so every op moves at most once (splitting eagerly at every
    /// structured op would be quadratic in the length of a block).
    tails: HashMap<Block, (Block, Op)>,
    /// Where the entry branch of the structured op being entered goes, when the rest of
    /// its block has not moved yet.
    entry_point: Option<Op>,
}

const NO_PRE: u32 = u32::MAX;

impl<'a> Flattener<'a> {
    fn new(
        ctx: &'a mut ModuleCtx,
        nothrow: &'a NothrowCallees,
        func: &'a mut Function,
        body: Region,
        entry: Block,
    ) -> Self {
        Flattener {
            ctx,
            nothrow,
            func,
            body,
            entry,
            frames: Vec::new(),
            fn_marker: None,
            hoisted: Vec::new(),
            synthesized: Vec::new(),
            dest_slot: None,
            ret_slots: Vec::new(),
            dests: Vec::new(),
            dest_of_block: HashMap::default(),
            alias: SecondaryMap::new(),
            has_aliases: false,
            terminate_lp: None,
            terminate_entry: None,
            resume_block: None,
            labels: HashMap::default(),
            pre: SecondaryMap::with_default(NO_PRE),
            region_range: HashMap::default(),
            regions_with_cleanups: SecondaryMap::new(),
            tails: HashMap::default(),
            entry_point: None,
        }
    }

    /// Numbers ops for `cir.goto`, finds labels, and takes allocas out for hoisting.
    fn prepare(&mut self) -> Result<(), Diagnostic> {
        let ops = self.func.walk_ops();
        let has_labels = ops
            .iter()
            .any(|&op| matches!(self.func.dfg.kind(op), OpKind::Label { .. }));
        if has_labels {
            self.number_ops(&ops);
            self.find_labels(&ops)?;
        }
        // Which regions hold cleanup scopes or trys (children before parents).
        for &op in ops.iter().rev() {
            let here = matches!(
                self.func.dfg.kind(op),
                OpKind::CleanupScope { .. } | OpKind::Try { .. }
            ) || self
                .func
                .dfg
                .regions(op)
                .iter()
                .any(|&r| self.regions_with_cleanups[r]);
            if here
                && let Some(b) = self.func.layout.op_block(op)
                && let Some(r) = self.func.layout.block_region(b)
            {
                self.regions_with_cleanups[r] = true;
            }
        }
        // Allocas: every one outside the entry block, and those of the entry block that
        // follow a structured op (flattening would move them out of it); not dynamic ones
        // (their element count is computed where they are).
        let mut seen_structured = false;
        for &op in &ops {
            let block = self.func.layout.op_block(op);
            let in_entry = block == Some(self.entry);
            let kind = *self.func.dfg.kind(op);
            if in_entry && !self.func.dfg.regions(op).is_empty() {
                seen_structured = true;
            }
            if let OpKind::Alloca { .. } = kind
                && self.func.dfg.operands(op).is_empty()
                && (!in_entry || seen_structured)
            {
                self.func.layout.remove_op(op);
                self.hoisted.push(op);
            }
        }
        Ok(())
    }

    /// Pre-order numbers of ops and the range of numbers inside each region.
    fn number_ops(&mut self, ops: &[Op]) {
        for (i, &op) in ops.iter().enumerate() {
            self.pre[op] = i as u32;
        }
        // The last number inside each op's subtree, children before parents.
        let mut end: SecondaryMap<Op, u32> = SecondaryMap::with_default(0);
        for &op in ops {
            end[op] = self.pre[op];
        }
        for &op in ops.iter().rev() {
            if let Some(parent) = self.func.parent_op(op) {
                let e = end[op];
                if e > end[parent] {
                    end[parent] = e;
                }
            }
        }
        for &op in ops {
            let Some(block) = self.func.layout.op_block(op) else {
                continue;
            };
            let Some(region) = self.func.layout.block_region(block) else {
                continue;
            };
            let (lo, hi) = (self.pre[op], end[op]);
            let range = self.region_range.entry(region).or_insert((lo, hi));
            range.0 = range.0.min(lo);
            range.1 = range.1.max(hi);
        }
    }

    pub(super) fn types(&self) -> ehir_core::CommonTypes {
        *self.ctx.types.common()
    }

    /// A cursor that builds ops at the end of `block` with the location `loc`.
    #[inline]
    pub(super) fn at_end(&mut self, block: Block, loc: Loc) -> FuncCursor<'_> {
        FuncCursor::at_end(self.func, self.ctx.types.common(), block).with_loc(loc)
    }

    /// A cursor that builds ops right before `op`, without a location.
    #[inline]
    pub(super) fn before(&mut self, op: Op) -> FuncCursor<'_> {
        FuncCursor::before(self.func, self.ctx.types.common(), op)
    }

    /// A new slot of type `ty` named `name`: an alloca made now and placed in the entry
    /// block when the function is done.
    pub(super) fn new_alloca(&mut self, ty: Type, name: &str) -> Value {
        let ptr = self.ctx.types.ptr(ty);
        let name = self.ctx.sym(name);
        let nowhere = CursorPosition::Nowhere;
        let slot = FuncCursor::at(self.func, self.ctx.types.common(), nowhere)
            .alloca(ty, ptr, name, false, 0);
        self.synthesized.push(slot);
        slot
    }

    pub(super) fn new_block(&mut self) -> Block {
        self.func.dfg.make_block()
    }

    pub(super) fn new_token_block(&mut self) -> (Block, Value) {
        let b = self.new_block();
        let t = self.types().eh_token;
        let v = self.func.dfg.append_block_param(b, t);
        (b, v)
    }

    /// Places an unplaced block right before `anchor`.
    pub(super) fn place_before(&mut self, block: Block, anchor: Block) {
        match self.func.layout.prev_block(anchor) {
            Some(prev) => self.func.layout.insert_block_after(block, prev),
            None => self.func.layout.append_block(self.body, block),
        }
    }

    fn fn_marker(&self) -> Block {
        self.fn_marker
            .expect("function marker exists while running")
    }

    /// Places a new EH block in the EH area of a try or cleanup-scope container, or at the
    /// function's end.
    pub(super) fn place_in_area(&mut self, area: Option<FrameIdx>, block: Block) {
        match area {
            Some(t) => {
                let marker = match &mut self.container(t).data {
                    ContainerData::Try(state) => state.marker,
                    ContainerData::Cleanup(CleanupState {
                        eh_area: Some((marker, first)),
                        ..
                    }) => {
                        first.get_or_insert(block);
                        *marker
                    }
                    _ => unreachable!("EH areas belong to try and cleanup-scope containers"),
                };
                self.place_before(block, marker);
            }
            None => self.func.layout.append_block(self.body, block),
        }
    }

    fn run(&mut self) -> Result<(), Diagnostic> {
        let marker = self.new_block();
        self.func.layout.append_block(self.body, marker);
        self.fn_marker = Some(marker);
        let mut blocks: Vec<Block> = self
            .func
            .layout
            .blocks(self.body)
            .filter(|&b| b != marker)
            .collect();
        blocks.reverse();
        self.frames.push(Frame::Region(RegionFrame {
            worklist: blocks,
            links: Links::function(),
            role: Role::FunctionBody,
            switch_owner: None,
        }));
        while let Some(top) = self.frames.len().checked_sub(1) {
            match &mut self.frames[top] {
                Frame::Region(rf) => match rf.worklist.pop() {
                    Some(b) => self.process_block(top, b)?,
                    None => {
                        self.frames.pop();
                    }
                },
                Frame::Container(c) => {
                    if let Some(rf) = c.pending.pop() {
                        self.frames.push(Frame::Region(rf));
                    } else {
                        self.step_container(top)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Called when a container is on top and has no pending region frame.
    fn step_container(&mut self, idx: FrameIdx) -> Result<(), Diagnostic> {
        enum Next {
            Pop,
            CleanupBodyDone,
            CleanupNormalDone,
            TryBodyDone,
            TryHandler,
            TryDone(Block),
        }
        let next = match &mut self.container(idx).data {
            ContainerData::Simple => Next::Pop,
            ContainerData::Cleanup(s) => match s.stage {
                Stage::Body => {
                    s.stage = Stage::Normal;
                    Next::CleanupBodyDone
                }
                Stage::Normal => {
                    s.stage = Stage::Eh;
                    Next::CleanupNormalDone
                }
                Stage::Eh | Stage::Done => match s.eh_area {
                    Some((marker, _)) => Next::TryDone(marker),
                    None => Next::Pop,
                },
            },
            ContainerData::Try(s) => match s.stage {
                Stage::Body => {
                    s.stage = Stage::Normal;
                    Next::TryBodyDone
                }
                Stage::Normal => Next::TryHandler,
                Stage::Eh | Stage::Done => Next::TryDone(s.marker),
            },
        };
        match next {
            Next::Pop => {
                self.frames.pop();
            }
            Next::CleanupBodyDone => self.finish_cleanup_body(idx)?,
            Next::CleanupNormalDone => self.start_eh_cleanup(idx)?,
            Next::TryBodyDone => self.finish_try_body(idx)?,
            Next::TryHandler => self.next_handler(idx)?,
            // A try's or cleanup scope's EH area is complete: its placeholder goes.
            Next::TryDone(marker) => {
                self.func.layout.remove_block(marker);
                self.frames.pop();
            }
        }
        Ok(())
    }

    /// Processes the ops of `block`, a block of the region frame `fi`, in order: labels go,
    /// may-throw calls and throws get their unwind destination, terminators that leave a
    /// region are rewritten, and the first structured op is entered (the ops after it
    /// continue in its continuation block, processed after it).
    fn process_block(&mut self, fi: FrameIdx, block: Block) -> Result<(), Diagnostic> {
        let (links, role, switch_owner) = {
            let rf = self.region_frame(fi);
            (rf.links, rf.role, rf.switch_owner)
        };
        // Ops are taken from `src` and, when `src` is another block, moved to the end of
        // `block` as they are processed.
        let mut block = block;
        let (src, mut cur) = match self.tails.remove(&block) {
            Some((s, first)) => (s, Some(first)),
            None => (block, self.func.layout.first_op(block)),
        };
        let mut terminated = false;
        while let Some(op) = cur {
            let next = self.func.layout.next_op(op);
            if src != block {
                self.func.layout.remove_op(op);
                self.func.layout.append_op(op, block);
            }
            let kind = *self.func.dfg.kind(op);
            let loc = self.func.dfg.loc(op);
            let leaving = move || LeavingTerminator {
                block,
                op,
                links,
                loc,
            };
            match kind {
                OpKind::Label { .. } => self.func.layout.remove_op(op),
                OpKind::Call { .. } => {
                    // The ops after a call that becomes a `cir.try_call` continue in its
                    // normal successor.
                    if let Some(normal) = self.unwinding_call(block, op, links.eh, next)? {
                        block = normal;
                    }
                }
                OpKind::Throw { .. } => {
                    self.unwinding_throw(op, links.eh);
                    terminated = true;
                }
                OpKind::Scope
                | OpKind::If
                | OpKind::Ternary
                | OpKind::While
                | OpKind::DoWhile
                | OpKind::For
                | OpKind::Switch
                | OpKind::Case { .. }
                | OpKind::CleanupScope { .. }
                | OpKind::Try { .. } => {
                    let tail = next.map(|n| (src, n));
                    return self.enter_structured(fi, block, op, tail, links, switch_owner);
                }
                OpKind::ArrayCtor | OpKind::ArrayDtor => {
                    return Err(Diagnostic::error(
                        loc,
                        format!(
                            "{} must be lowered by lowering-prepare before flatten-cfg",
                            kind.name()
                        ),
                    ));
                }
                OpKind::CatchParam => {
                    return Err(Diagnostic::error(
                        loc,
                        "cir.catch_param must be the first op of a catch handler",
                    ));
                }
                OpKind::Yield => {
                    self.lower_yield(leaving(), role)?;
                    terminated = true;
                }
                OpKind::Break | OpKind::Continue => {
                    self.lower_break_or_continue(leaving())?;
                    terminated = true;
                }
                OpKind::Condition => {
                    self.lower_condition(leaving(), role)?;
                    terminated = true;
                }
                OpKind::Return => {
                    self.lower_return(leaving())?;
                    terminated = true;
                }
                OpKind::Goto { label } => {
                    self.lower_goto(leaving(), label)?;
                    terminated = true;
                }
                OpKind::Resume => {
                    self.lower_resume(leaving())?;
                    terminated = true;
                }
                k if k.is_terminator() => terminated = true,
                _ => {}
            }
            cur = next;
        }
        if !terminated {
            return Err(Diagnostic::error(
                self.func.dfg.blocks[block].loc,
                "block does not end with a terminator",
            ));
        }
        Ok(())
    }

    fn finish(&mut self) {
        let marker = self.fn_marker();
        self.func.layout.remove_block(marker);
        self.resolve_aliases();
        // Allocas first: the synthesized slots (as upstream places them), then the hoisted
        // ones in program order.
        let dfg = &self.func.dfg;
        let synthesized = self
            .synthesized
            .iter()
            .filter_map(|&slot| match dfg.value_def(slot) {
                ValueDef::Result(op, _) => Some(op),
                ValueDef::Param(..) => None,
            });
        let front: Vec<Op> = synthesized.chain(self.hoisted.iter().copied()).collect();
        let first = self.func.layout.first_op(self.entry);
        for op in front {
            match first {
                Some(f) => self.func.layout.insert_op_before(op, f),
                None => self.func.layout.append_op(op, self.entry),
            }
        }
    }

    pub(super) fn set_alias(&mut self, from: Value, to: Value) {
        self.alias[from] = to.into();
        self.has_aliases = true;
    }

    /// Replaces uses of replaced values (region results, `cir.catch_param` results, handler
    /// tokens) by what stands for them, in place.
    fn resolve_aliases(&mut self) {
        if !self.has_aliases {
            return;
        }
        // Chains are short (a region result may alias a block parameter that aliases
        // another); the bound only guards against a cycle.
        let alias = &self.alias;
        let resolve = |mut v: Value| {
            for _ in 0..64 {
                match alias.get(v).and_then(|a| a.expand()) {
                    Some(n) => v = n,
                    None => break,
                }
            }
            v
        };
        let ehir_core::DataFlowGraph {
            ops,
            successors,
            value_lists,
            successor_lists,
            ..
        } = &mut self.func.dfg;
        for b in self.func.layout.blocks(self.body) {
            for op in self.func.layout.ops(b) {
                for v in ops[op].operands.as_mut_slice(value_lists) {
                    *v = resolve(*v);
                }
                for &s in ops[op].successors.as_slice(successor_lists) {
                    for v in successors[s].args.as_mut_slice(value_lists) {
                        *v = resolve(*v);
                    }
                }
            }
        }
    }
}
