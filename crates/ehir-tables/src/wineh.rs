//! WinEH state numbering and the `__CxxFrameHandler3` tables of an MSVC-phase function:
//! the UnwindMap (state → parent state, cleanup action), the TryBlockMap (try low/high,
//! catch high, handlers) and the state of every may-throw call.
//!
//! The numbering is the WinEH RFC's DFS over the unwind tree, in the form LLVM's
//! `calculateWinCXXEHStateNumbers` implements it (so that the tables agree with the ones
//! `llc` writes for the same IR, up to the order of siblings):
//! - Top-level pads (a catchswitch `within none` that unwinds to the caller, a cleanuppad
//!   `within none` whose `cir.cleanupret` unwinds to the caller or that has none) are
//!   numbered in block order with parent state -1.
//! - A catchswitch gets a TryLow state (parent: the parent state); then every pad with
//!   the same parent that unwinds into it is numbered with parent TryLow (these are the
//!   try body's cleanups and nested trys); then a CatchLow state (parent: the parent
//!   state) shared by all its handlers; TryHigh = CatchLow - 1. Pads nested in a handler
//!   (`within` its catchpad) that unwind to the caller or to where the catchswitch unwinds
//!   are numbered with parent CatchLow; CatchHigh is the last state then. TryBlockMap
//!   entries are recorded in pre-order (outer try first), as x64 `__CxxFrameHandler3`
//!   expects.
//! - A cleanuppad gets one state whose action is the cleanup (parent: the parent state),
//!   then the pads with the same parent that unwind into it are numbered below it. A
//!   cleanuppad may not contain EH pads (Microsoft C++ cleanup funclets cannot).
//! - An invoke (`cir.try_call`, `cir.throw` with an unwind destination) is in the state
//!   of the pad it unwinds to, except that an invoke in a catch handler that unwinds where
//!   the handler's catchswitch unwinds is in the handler's CatchLow state. A may-throw
//!   plain call is in its funclet's base state: -1 in the function's own code, CatchLow
//!   in a catch handler, none in a cleanup (LLVM writes no IP-to-state entries there).
//!
//! Predecessors and pad users are visited in block order, which makes the numbering
//! deterministic; LLVM visits them in use-list order, so its state numbers can differ by a
//! permutation of siblings ([`crate::structure`] compares the two up to that).

use crate::TablesError;
use ehir_core::analysis::{funclet_colors, is_pad, pad_of_token, pad_parent};
use ehir_core::{Block, Diagnostic, Function, ModuleCtx, Op, OpKind, Value};
use std::collections::{BTreeMap, BTreeSet};

/// One UnwindMap entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnwindEntry {
    /// The state unwinding continues in (-1: leave the function).
    pub to_state: i32,
    /// The cleanup funclet this state runs (its cleanuppad block), if any.
    pub cleanup: Option<Block>,
}

/// One handler of a TryBlockMap entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handler {
    /// The TypeDescriptor symbol (`??_R0H@8`), `None` for catch-all.
    pub type_descriptor: Option<String>,
    pub adjectives: u32,
    /// The catch object slot.
    pub catch_object: Option<Value>,
    /// The catchpad block.
    pub block: Block,
}

/// One TryBlockMap entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TryBlock {
    pub try_low: i32,
    pub try_high: i32,
    pub catch_high: i32,
    pub handlers: Vec<Handler>,
    /// The catchswitch block.
    pub block: Block,
}

/// The state of one may-throw call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallState {
    pub op: Op,
    /// `None` inside a cleanup funclet (no IP-to-state entry).
    pub state: Option<i32>,
}

/// The `__CxxFrameHandler3` tables of one function.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct WinEhTables {
    pub unwind_map: Vec<UnwindEntry>,
    pub try_map: Vec<TryBlock>,
    pub calls: Vec<CallState>,
    /// The state of each pad op (catchswitch: TryLow; catchpad: CatchLow; cleanuppad: its
    /// state).
    pub pad_states: BTreeMap<Op, i32>,
}

impl WinEhTables {
    /// The number of states (`MaxState`).
    pub fn num_states(&self) -> usize {
        self.unwind_map.len()
    }
}

/// Computes the tables of an MSVC-phase function.
pub struct Numbering<'a> {
    func: &'a Function,
    blocks: Vec<Block>,
    tables: WinEhTables,
    /// The catchpad → CatchLow map (`FuncletBaseStateMap`).
    base_states: BTreeMap<Op, i32>,
    /// Each block's predecessors, in block order, without repeats.
    preds: BTreeMap<Block, Vec<Block>>,
    /// The unwind destination of each cleanuppad's first `cir.cleanupret`.
    cleanupret_dests: BTreeMap<Op, Option<Block>>,
    /// The pads nested in each pad (`within` its token), in block order.
    children: BTreeMap<Op, Vec<Op>>,
}

impl<'a> Numbering<'a> {
    fn new(func: &'a Function) -> Self {
        let blocks: Vec<Block> = match func.body {
            Some(body) => func.layout.blocks(body).collect(),
            None => Vec::new(),
        };
        let mut preds: BTreeMap<Block, Vec<Block>> = BTreeMap::new();
        let mut cleanupret_dests: BTreeMap<Op, Option<Block>> = BTreeMap::new();
        let mut children: BTreeMap<Op, Vec<Op>> = BTreeMap::new();
        for &b in &blocks {
            if let Some(first) = func.layout.first_op(b)
                && is_pad(func.dfg.kind(first))
                && let Some(parent) = pad_parent(func, first)
            {
                children.entry(parent).or_default().push(first);
            }
            let Some(term) = func.layout.last_op(b) else {
                continue;
            };
            for s in func.dfg.successor_blocks(term) {
                // Blocks are visited in order, so a repeat of `b` can only be the last
                // entry (a scan of the list would cost the number of predecessors).
                let list = preds.entry(s).or_default();
                if list.last() != Some(&b) {
                    list.push(b);
                }
            }
            if matches!(func.dfg.kind(term), OpKind::CleanupRet)
                && let Some(pad) = func
                    .dfg
                    .operands(term)
                    .first()
                    .and_then(|&v| pad_of_token(func, v))
            {
                cleanupret_dests
                    .entry(pad)
                    .or_insert_with(|| func.dfg.successor_blocks(term).next());
            }
        }
        Numbering {
            func,
            blocks,
            tables: WinEhTables::default(),
            base_states: BTreeMap::new(),
            preds,
            cleanupret_dests,
            children,
        }
    }

    fn error(&self, op: Op, message: impl Into<String>) -> TablesError {
        let loc = self.func.dfg.loc(op);
        let loc = if loc == ehir_core::Loc::NONE {
            self.func.loc
        } else {
            loc
        };
        TablesError::Ir(Diagnostic::error(loc, message))
    }

    fn first_op(&self, block: Block) -> Option<Op> {
        self.func.layout.first_op(block)
    }

    fn pad_of_block(&self, block: Block) -> Option<Op> {
        self.first_op(block)
            .filter(|&op| is_pad(self.func.dfg.kind(op)))
    }

    /// Every op of the body in block order.
    fn ops(&self) -> Vec<Op> {
        self.blocks
            .iter()
            .flat_map(|&b| self.func.layout.ops(b))
            .collect()
    }

    /// The unwind destination of a catchswitch (`None`: the caller).
    fn switch_unwind_dest(&self, switch: Op) -> Option<Block> {
        match self.func.dfg.kind(switch) {
            OpKind::CatchSwitch {
                unwind_to_caller: false,
            } => self.func.dfg.successor_blocks(switch).last(),
            _ => None,
        }
    }

    /// The unwind destination of the first `cir.cleanupret` of a cleanuppad (LLVM's
    /// `getCleanupRetUnwindDest`).
    fn cleanupret_dest(&self, pad: Op) -> Option<Block> {
        self.cleanupret_dests.get(&pad).copied().flatten()
    }

    /// The pads whose parent is `pad`, in block order.
    fn children(&self, pad: Op) -> Vec<Op> {
        self.children.get(&pad).cloned().unwrap_or_default()
    }

    /// The predecessors of `block`, in block order, without repeats.
    fn predecessors(&self, block: Block) -> Vec<Block> {
        self.preds.get(&block).cloned().unwrap_or_default()
    }

    /// LLVM's `getEHPadFromPredecessor`: the pad whose unwind edge from `pred` enters a pad
    /// with parent `parent`, if `pred` ends in such an edge.
    fn pad_from_predecessor(&self, pred: Block, parent: Option<Op>) -> Option<Op> {
        let term = self.func.layout.last_op(pred)?;
        match self.func.dfg.kind(term) {
            OpKind::CatchSwitch { .. } => (pad_parent(self.func, term) == parent).then_some(term),
            OpKind::CleanupRet => {
                let pad = self
                    .func
                    .dfg
                    .operands(term)
                    .first()
                    .and_then(|&v| pad_of_token(self.func, v))?;
                (pad_parent(self.func, pad) == parent).then_some(pad)
            }
            _ => None,
        }
    }

    fn is_top_level(&self, pad: Op) -> bool {
        match self.func.dfg.kind(pad) {
            OpKind::CatchSwitch { unwind_to_caller } => {
                pad_parent(self.func, pad).is_none() && *unwind_to_caller
            }
            OpKind::CleanupPad => {
                pad_parent(self.func, pad).is_none() && self.cleanupret_dest(pad).is_none()
            }
            _ => false,
        }
    }

    fn add_state(&mut self, to_state: i32, cleanup: Option<Block>) -> i32 {
        self.tables
            .unwind_map
            .push(UnwindEntry { to_state, cleanup });
        self.tables.unwind_map.len() as i32 - 1
    }

    fn run(mut self, ctx: &ModuleCtx) -> Result<WinEhTables, TablesError> {
        let tops: Vec<Op> = self
            .blocks
            .iter()
            .filter_map(|&b| self.pad_of_block(b))
            .filter(|&p| self.is_top_level(p))
            .collect();
        // Explicit stack instead of recursion: deep nesting must not grow the host stack.
        for top in tops {
            self.number(top, -1, ctx)?;
        }
        self.invoke_states()?;
        Ok(self.tables)
    }

    /// The pads whose unwind edges enter `pad` (which begins `block`), in the order of
    /// their blocks.
    fn pads_unwinding_into(&self, pad: Op, block: Block) -> Vec<Op> {
        let parent = pad_parent(self.func, pad);
        self.predecessors(block)
            .into_iter()
            .filter_map(|p| self.pad_from_predecessor(p, parent))
            .collect()
    }

    /// `calculateCXXStateNumbers` with an explicit work stack.
    fn number(&mut self, root: Op, root_parent: i32, ctx: &ModuleCtx) -> Result<(), TablesError> {
        enum Work {
            Visit(Op, i32),
            /// After the try body of a catchswitch: add CatchLow and visit the handlers.
            Catches {
                switch: Op,
                parent_state: i32,
                try_low: i32,
            },
            /// After the handlers' children: fix CatchHigh.
            CatchHigh {
                entry: usize,
            },
        }
        let mut stack = vec![Work::Visit(root, root_parent)];
        while let Some(work) = stack.pop() {
            match work {
                Work::Visit(pad, parent_state) => {
                    let block = self.func.layout.op_block(pad).expect("placed");
                    match self.func.dfg.kind(pad) {
                        OpKind::CatchSwitch { .. } => {
                            if self.tables.pad_states.contains_key(&pad) {
                                return Err(self.error(
                                    pad,
                                    "this catchswitch is reached twice by the state numbering (its unwind edges do not form a tree)",
                                ));
                            }
                            let try_low = self.add_state(parent_state, None);
                            self.tables.pad_states.insert(pad, try_low);
                            stack.push(Work::Catches {
                                switch: pad,
                                parent_state,
                                try_low,
                            });
                            for p in self.pads_unwinding_into(pad, block).into_iter().rev() {
                                stack.push(Work::Visit(p, try_low));
                            }
                        }
                        OpKind::CleanupPad => {
                            if self.tables.pad_states.contains_key(&pad) {
                                continue;
                            }
                            if let Some(&child) = self.children(pad).first() {
                                return Err(self.error(
                                    child,
                                    "Microsoft C++ cleanup funclets cannot contain EH pads",
                                ));
                            }
                            let state = self.add_state(parent_state, Some(block));
                            self.tables.pad_states.insert(pad, state);
                            for p in self.pads_unwinding_into(pad, block).into_iter().rev() {
                                stack.push(Work::Visit(p, state));
                            }
                        }
                        _ => return Err(self.error(pad, "not a funclet pad")),
                    }
                }
                Work::Catches {
                    switch,
                    parent_state,
                    try_low,
                } => {
                    let catch_low = self.add_state(parent_state, None);
                    let switch_block = self.func.layout.op_block(switch).expect("placed");
                    let unwind = self.switch_unwind_dest(switch);
                    let handler_blocks: Vec<Block> = {
                        let succs: Vec<Block> = self.func.dfg.successor_blocks(switch).collect();
                        let n = if unwind.is_some() {
                            succs.len().saturating_sub(1)
                        } else {
                            succs.len()
                        };
                        succs[..n].to_vec()
                    };
                    let mut handlers = Vec::new();
                    let mut pads = Vec::new();
                    for h in handler_blocks {
                        let Some(pad) = self.first_op(h) else {
                            return Err(self.error(switch, "a catchswitch handler is empty"));
                        };
                        let OpKind::CatchPad {
                            type_desc,
                            adjectives,
                            has_slot,
                        } = *self.func.dfg.kind(pad)
                        else {
                            return Err(self.error(
                                switch,
                                "a catchswitch handler must begin with cir.catchpad",
                            ));
                        };
                        handlers.push(Handler {
                            type_descriptor: type_desc.expand().map(|s| ctx.name(s).to_string()),
                            adjectives,
                            catch_object: if has_slot {
                                self.func.dfg.operands(pad).get(1).copied()
                            } else {
                                None
                            },
                            block: h,
                        });
                        pads.push(pad);
                    }
                    let entry = self.tables.try_map.len();
                    self.tables.try_map.push(TryBlock {
                        try_low,
                        try_high: catch_low - 1,
                        catch_high: catch_low,
                        handlers,
                        block: switch_block,
                    });
                    stack.push(Work::CatchHigh { entry });
                    let mut nested = Vec::new();
                    for &pad in &pads {
                        self.base_states.insert(pad, catch_low);
                        self.tables.pad_states.insert(pad, catch_low);
                        for child in self.children(pad) {
                            let dest = match self.func.dfg.kind(child) {
                                OpKind::CatchSwitch { .. } => self.switch_unwind_dest(child),
                                OpKind::CleanupPad => self.cleanupret_dest(child),
                                _ => continue,
                            };
                            if dest.is_none() || dest == unwind {
                                nested.push(child);
                            }
                        }
                    }
                    for child in nested.into_iter().rev() {
                        stack.push(Work::Visit(child, catch_low));
                    }
                }
                Work::CatchHigh { entry } => {
                    let last = self.tables.unwind_map.len() as i32 - 1;
                    self.tables.try_map[entry].catch_high = last;
                }
            }
        }
        Ok(())
    }

    /// The state of every may-throw call (`calculateStateNumbersForInvokes`).
    fn invoke_states(&mut self) -> Result<(), TablesError> {
        let colors = funclet_colors(self.func);
        for op in self.ops() {
            let kind = *self.func.dfg.kind(op);
            let invoke_dest = match kind {
                OpKind::TryCall { .. } => self.func.dfg.successor_blocks(op).nth(1),
                OpKind::Throw { .. } => self.func.dfg.successor_blocks(op).next(),
                OpKind::Call { .. } => None,
                _ => continue,
            };
            if !kind.may_throw() {
                continue;
            }
            let block = self.func.layout.op_block(op).expect("placed");
            let funclet = colors[block].first().copied().flatten();
            let funclet_pad = funclet.filter(|&p| {
                matches!(
                    self.func.dfg.kind(p),
                    OpKind::CatchPad { .. } | OpKind::CleanupPad
                )
            });
            let state = match invoke_dest {
                None => match funclet_pad {
                    None => Some(-1),
                    Some(p) => self.base_states.get(&p).copied(),
                },
                Some(dest) => {
                    let funclet_dest = match funclet_pad {
                        None => None,
                        Some(p) => match self.func.dfg.kind(p) {
                            OpKind::CatchPad { .. } => {
                                pad_parent(self.func, p).and_then(|s| self.switch_unwind_dest(s))
                            }
                            _ => self.cleanupret_dest(p),
                        },
                    };
                    let base = funclet_pad
                        .filter(|_| funclet_dest == Some(dest))
                        .and_then(|p| self.base_states.get(&p).copied());
                    match base {
                        Some(s) => Some(s),
                        None => {
                            let pad = self.pad_of_block(dest).ok_or_else(|| {
                                self.error(
                                    op,
                                    "the unwind destination of this call is not an EH pad",
                                )
                            })?;
                            let state = self.tables.pad_states.get(&pad).copied().ok_or_else(|| {
                                self.error(
                                    op,
                                    "the EH pad this call unwinds to has no state (it is not reachable from a top-level pad)",
                                )
                            })?;
                            Some(state)
                        }
                    }
                }
            };
            self.tables.calls.push(CallState { op, state });
        }
        Ok(())
    }
}

/// The `__CxxFrameHandler3` tables of an MSVC-phase function (`None` for a declaration or
/// a function without EH pads). The function is verified first ([`TablesError::Input`]).
pub fn function_tables(
    ctx: &ModuleCtx,
    func: &Function,
) -> Result<Option<WinEhTables>, TablesError> {
    crate::verify_then(ctx, func, || verified_function_tables(ctx, func))
}

/// [`function_tables`] of a function already verified.
pub(crate) fn verified_function_tables(
    ctx: &ModuleCtx,
    func: &Function,
) -> Result<Option<WinEhTables>, TablesError> {
    if func.is_declaration() {
        return Ok(None);
    }
    let numbering = Numbering::new(func);
    let has_pad = numbering
        .blocks
        .iter()
        .any(|&b| numbering.pad_of_block(b).is_some());
    if !has_pad {
        return Ok(None);
    }
    numbering.run(ctx).map(Some)
}

/// Renders the tables of one function as text (see the crate docs for the format).
pub fn render(ctx: &ModuleCtx, func: &Function, tables: &WinEhTables) -> String {
    use std::fmt::Write;
    let summary = format!(
        "{} states, {} try blocks",
        tables.num_states(),
        tables.try_map.len()
    );
    crate::render_function_table(ctx, func, &summary, |names, out| {
        out.push_str("  unwind map:\n");
        for (i, e) in tables.unwind_map.iter().enumerate() {
            let _ = write!(out, "    state {i}: to {}", e.to_state);
            match e.cleanup {
                Some(b) => {
                    let _ = writeln!(out, ", cleanup {}", names.block(b));
                }
                None => out.push('\n'),
            }
        }
        out.push_str("  try map:\n");
        for (i, t) in tables.try_map.iter().enumerate() {
            let _ = writeln!(
                out,
                "    try {i} at {}: states {}..{}, catch high {}",
                names.block(t.block),
                t.try_low,
                t.try_high,
                t.catch_high
            );
            for h in &t.handlers {
                let _ = write!(
                    out,
                    "      catch {} adjectives {}",
                    h.type_descriptor.as_deref().unwrap_or("..."),
                    h.adjectives
                );
                if let Some(slot) = h.catch_object {
                    let _ = write!(out, " object {}", names.value(slot));
                }
                let _ = writeln!(out, " -> {}", names.block(h.block));
            }
        }
        out.push_str("  call states:\n");
        let mut seen_blocks = BTreeSet::new();
        for c in &tables.calls {
            let block = func.layout.op_block(c.op).expect("placed");
            seen_blocks.insert(block);
            let callee = match func.dfg.kind(c.op).callee() {
                Some(s) => format!(" @{}", ctx.name(s)),
                None if matches!(func.dfg.kind(c.op), OpKind::Throw { .. }) => {
                    if func.dfg.operands(c.op).is_empty() {
                        " (rethrow)".to_string()
                    } else {
                        String::new()
                    }
                }
                None => " (indirect)".to_string(),
            };
            let state = match c.state {
                Some(s) => s.to_string(),
                None => "none (cleanup funclet)".to_string(),
            };
            let _ = writeln!(
                out,
                "    {} {}{}: state {}",
                names.block(block),
                func.dfg.kind(c.op).name(),
                callee,
                state
            );
        }
    })
}
