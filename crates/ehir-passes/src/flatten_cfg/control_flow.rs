//! Control flow: entering `cir.scope`, `cir.if`/`cir.ternary`, the loops and
//! `cir.switch` (region blocks move into the function body, entry branches and the
//! `cir.switch.flat` of the cases are built), and leaving regions through `cir.yield`,
//! `cir.break`, `cir.continue`, `cir.condition`, `cir.return` and `cir.goto` (labels,
//! the return slot and block).

use super::frames::{ContainerData, Level, Links, ReturnValue, Role};
use super::{Flattener, FrameIdx, NO_PRE};
use crate::region_utils::move_region_after;
use ehir_core::{
    AttrData, Block, CaseKind, CmpPredicate, CursorPosition, Diagnostic, ExtraData, FuncCursor,
    Function, Loc, Op, OpKind, Region, Symbol, Value, ValueDef,
};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Labels of the function: their blocks and what encloses them.
pub(super) struct LabelInfo {
    pub(super) block: Block,
    pub(super) pre: u32,
    /// The innermost cleanup-scope body, try body or handler region around the label.
    pub(super) protected: Option<Region>,
}

/// A terminator that leaves its region (`cir.yield`, `cir.break`, `cir.continue`,
/// `cir.condition`, `cir.return`, `cir.goto`, `cir.resume`), as it is lowered.
#[derive(Clone, Copy)]
pub(super) struct LeavingTerminator {
    /// The block the terminator ends.
    pub(super) block: Block,
    /// The terminator.
    pub(super) op: Op,
    /// What encloses the terminator.
    pub(super) links: Links,
    /// Where the terminator stands in the source.
    pub(super) loc: Loc,
}

impl LeavingTerminator {
    /// Fails with `message` where the terminator stands in a cleanup or handler region.
    pub(super) fn refuse_in_cleanup_region(&self, message: &str) -> Result<(), Diagnostic> {
        if self.links.in_cleanup_region {
            return Err(Diagnostic::error(self.loc, message));
        }
        Ok(())
    }
}

impl Flattener<'_> {
    /// `cir.yield` of a region frame with role `role`: a branch to where the region
    /// continues, through the cleanups it leaves.
    pub(super) fn lower_yield(
        &mut self,
        terminator: LeavingTerminator,
        role: Role,
    ) -> Result<(), Diagnostic> {
        let args = self.func.dfg.operands(terminator.op).to_vec();
        self.func.layout.remove_op(terminator.op);
        match role {
            Role::Yield { target, level } => self.exit_to(terminator, target, level, &args),
            Role::CleanupRegion { after, level } => self.exit_to(terminator, after, level, &[]),
            _ => Err(Diagnostic::error(
                terminator.loc,
                "cir.yield has no enclosing region to leave",
            )),
        }
    }

    /// `cir.break` or `cir.continue`: a branch to the continuation (or the continue target)
    /// of the innermost loop or switch, through the cleanups it leaves.
    pub(super) fn lower_break_or_continue(
        &mut self,
        terminator: LeavingTerminator,
    ) -> Result<(), Diagnostic> {
        let kind = *self.func.dfg.kind(terminator.op);
        let is_break = matches!(kind, OpKind::Break);
        let to = if is_break {
            terminator.links.break_to
        } else {
            terminator.links.continue_to
        };
        let Some(t) = to else {
            return Err(Diagnostic::error(
                terminator.loc,
                format!(
                    "{} has no enclosing loop{} to leave",
                    kind.name(),
                    if is_break { " or switch" } else { "" }
                ),
            ));
        };
        let c = self.container(t);
        let target = if is_break {
            Some(c.cont)
        } else {
            c.continue_target
        };
        let Some(target) = target else {
            return Err(Diagnostic::error(
                terminator.loc,
                "cir.continue outside a loop",
            ));
        };
        self.func.layout.remove_op(terminator.op);
        self.exit_to(terminator, target, t, &[])
    }

    /// `cir.condition(%c)` of a loop condition region: a `cir.brcond` to the loop body or
    /// out of the loop.
    pub(super) fn lower_condition(
        &mut self,
        terminator: LeavingTerminator,
        role: Role,
    ) -> Result<(), Diagnostic> {
        let Role::LoopCond { body, exit, level } = role else {
            return Err(Diagnostic::error(
                terminator.loc,
                "cir.condition outside a loop condition region",
            ));
        };
        if self
            .crossing(terminator.links, Level::Frames(level))
            .is_some()
        {
            return Err(Diagnostic::error(
                terminator.loc,
                "cir.condition inside a cleanup scope of the condition region is not supported",
            ));
        }
        let &[cond] = self.func.dfg.operands(terminator.op) else {
            return Err(Diagnostic::error(
                terminator.loc,
                "cir.condition takes one operand",
            ));
        };
        self.func.layout.remove_op(terminator.op);
        self.at_end(terminator.block, terminator.loc)
            .brcond(cond, (body, &[]), (exit, &[]));
        Ok(())
    }

    /// `cir.return [%v]`: stays where it leaves no cleanup; otherwise the exit branches
    /// through the cleanups and the `cir.return` is made again where it lands, as
    /// upstream does: a constant `%v` is made again there, any other value goes through
    /// the function's `__ret_operand_tmp` slot.
    pub(super) fn lower_return(&mut self, terminator: LeavingTerminator) -> Result<(), Diagnostic> {
        terminator
            .refuse_in_cleanup_region("cir.return cannot leave a cleanup or handler region here")?;
        if self.crossing(terminator.links, Level::Frames(0)).is_none() {
            return Ok(());
        }
        let value = self.func.dfg.operands(terminator.op).first().copied();
        self.func.layout.remove_op(terminator.op);
        let returned = match value {
            None => ReturnValue::Nothing,
            Some(v) => match self.func.dfg.value_def(v) {
                ValueDef::Result(op, _)
                    if matches!(self.func.dfg.kind(op), OpKind::Const { .. }) =>
                {
                    ReturnValue::Const(op)
                }
                _ => {
                    let slot = self.ret_operand_slot(v);
                    self.at_end(terminator.block, terminator.loc).store(v, slot);
                    ReturnValue::Slot(slot)
                }
            },
        };
        let dest = self.return_dest(returned);
        let LeavingTerminator {
            block, links, loc, ..
        } = terminator;
        self.route_br(block, links, dest, &[], loc)
    }

    pub(super) fn find_labels(&mut self, ops: &[Op]) -> Result<(), Diagnostic> {
        for &op in ops {
            let OpKind::Label { name } = *self.func.dfg.kind(op) else {
                continue;
            };
            let loc = self.func.dfg.loc(op);
            if self.labels.contains_key(&name) {
                return Err(Diagnostic::error(
                    loc,
                    format!("label '{}' is defined twice", self.ctx.name(name)),
                ));
            }
            let Some(mut block) = self.func.layout.op_block(op) else {
                continue;
            };
            // The label must start a block that is not the function's entry block.
            if self.func.layout.first_op(block) != Some(op) || block == self.entry {
                let target = self.func.dfg.make_block();
                self.func.layout.insert_block_after(target, block);
                self.func.layout.split_ops_to(op, target);
                self.at_end(block, loc).br(target, &[]);
                block = target;
            }
            // What encloses the label.
            let mut protected = None;
            let mut cur_block = block;
            while let Some(region) = self.func.layout.block_region(cur_block) {
                let Some(parent) = self.func.dfg.region_parent(region) else {
                    break;
                };
                let regions = self.func.dfg.regions(parent);
                let is_cleanup = matches!(self.func.dfg.kind(parent), OpKind::CleanupScope { .. });
                if is_cleanup && regions.get(1) == Some(&region) {
                    return Err(Diagnostic::error(
                        loc,
                        "cir.label inside a cleanup region is not supported",
                    ));
                }
                let protects =
                    is_cleanup || matches!(self.func.dfg.kind(parent), OpKind::Try { .. });
                if protects && protected.is_none() {
                    protected = Some(region);
                }
                let Some(pb) = self.func.layout.op_block(parent) else {
                    break;
                };
                cur_block = pb;
            }
            self.labels.insert(
                name,
                LabelInfo {
                    block,
                    pre: self.pre[op],
                    protected,
                },
            );
        }
        Ok(())
    }

    pub(super) fn lower_goto(
        &mut self,
        terminator: LeavingTerminator,
        label: Symbol,
    ) -> Result<(), Diagnostic> {
        terminator.refuse_in_cleanup_region(
            "cir.goto inside a cleanup or handler region is not supported",
        )?;
        let Some(info) = self.labels.get(&label) else {
            return Err(Diagnostic::error(
                terminator.loc,
                format!("cir.goto to unknown label '{}'", self.ctx.name(label)),
            ));
        };
        let (target, pre, protected) = (info.block, info.pre, info.protected);
        if let Some(region) = protected {
            let here = self.pre[terminator.op];
            let inside = self
                .region_range
                .get(&region)
                .is_some_and(|&(lo, hi)| here != NO_PRE && lo <= here && here <= hi);
            if !inside {
                return Err(Diagnostic::error(
                    terminator.loc,
                    "cir.goto into a cleanup scope, try body or handler is not allowed",
                ));
            }
        }
        self.func.layout.remove_op(terminator.op);
        let d = self.dest_id(target, Level::Label(pre));
        self.route_br(terminator.block, terminator.links, d, &[], terminator.loc)
    }

    /// The function's `__ret_operand_tmp` slot for a returned value of type `ty` (one per
    /// type).
    fn ret_operand_slot(&mut self, v: Value) -> Value {
        let ty = self.func.dfg.value_type(v);
        if let Some(&(_, s)) = self.ret_slots.iter().find(|&&(t, _)| t == ty) {
            return s;
        }
        let s = self.new_alloca(ty, "__ret_operand_tmp");
        self.ret_slots.push((ty, s));
        s
    }

    /// Enters the structured op `op` of `block`; `tail` is where the ops after it are.
    pub(super) fn enter_structured(
        &mut self,
        fi: FrameIdx,
        block: Block,
        op: Op,
        tail: Option<(Block, Op)>,
        links: Links,
        switch_owner: Option<FrameIdx>,
    ) -> Result<(), Diagnostic> {
        let kind = *self.func.dfg.kind(op);
        let loc = self.func.dfg.loc(op);
        self.check_regions(op, kind, loc)?;
        // Split: the ops after `op` continue in a new block, processed by this frame after
        // the structured op is done. They move there when they are processed; until then
        // the entry branch goes in front of them.
        let cont = self.new_block();
        self.func.layout.insert_block_after(cont, block);
        self.entry_point = match tail {
            Some((src, first)) if src == block => Some(first),
            _ => None,
        };
        if let Some(t) = tail {
            self.tails.insert(cont, t);
        }
        self.func.layout.remove_op(op);
        self.region_frame(fi).worklist.push(cont);
        // Region results become parameters of the continuation.
        let results = self.func.dfg.results(op).to_vec();
        for r in results {
            let ty = self.func.dfg.value_type(r);
            let p = self.func.dfg.append_block_param(cont, ty);
            self.set_alias(r, p);
        }
        let my = self.frames.len();
        let regions = self.func.dfg.regions(op).to_vec();
        let operands = self.func.dfg.operands(op).to_vec();
        let entry_of = |f: &Function, r: Region| f.layout.entry_block(r);
        match kind {
            OpKind::Scope | OpKind::Case { .. } => {
                if matches!(kind, OpKind::Case { .. }) && switch_owner.is_none() {
                    return Err(Diagnostic::error(
                        loc,
                        "cir.case must be directly inside a cir.switch region",
                    ));
                }
                let blocks = self.enter_first_region(block, regions[0], cont, loc);
                self.push_one_region(cont, links, blocks, links, my, ContainerData::Simple);
            }
            OpKind::If | OpKind::Ternary => {
                let Some(&cond) = operands.first() else {
                    return Err(Diagnostic::error(
                        loc,
                        format!("{} has no condition", kind.name()),
                    ));
                };
                let then_blocks = move_region_after(self.func, regions[0], block);
                let after_then = then_blocks.last().copied().unwrap_or(block);
                let else_blocks = match regions.get(1) {
                    Some(&r) => move_region_after(self.func, r, after_then),
                    None => Vec::new(),
                };
                let t = then_blocks.first().copied().unwrap_or(cont);
                let e = else_blocks.first().copied().unwrap_or(cont);
                self.entry_cursor(block, loc)
                    .brcond(cond, (t, &[]), (e, &[]));
                let mut all = then_blocks;
                all.extend(else_blocks);
                self.push_one_region(cont, links, all, links, my, ContainerData::Simple);
            }
            OpKind::While | OpKind::DoWhile | OpKind::For => {
                let (cond_r, body_r, step_r) = match kind {
                    OpKind::While => (regions[0], regions[1], None),
                    OpKind::DoWhile => (regions[1], regions[0], None),
                    _ => (regions[0], regions[1], Some(regions[2])),
                };
                let order: Vec<Region> = match kind {
                    OpKind::DoWhile => vec![body_r, cond_r],
                    OpKind::While => vec![cond_r, body_r],
                    _ => vec![cond_r, body_r, step_r.expect("for has a step region")],
                };
                let cond_entry = entry_of(self.func, cond_r);
                let body_entry = entry_of(self.func, body_r);
                let step_entry = step_r.and_then(|r| entry_of(self.func, r));
                let (Some(cond_entry), Some(body_entry)) = (cond_entry, body_entry) else {
                    return Err(Diagnostic::error(
                        loc,
                        format!("{} has an empty region", kind.name()),
                    ));
                };
                let continue_target = step_entry.unwrap_or(cond_entry);
                let mut after = block;
                let mut per_region = HashMap::default();
                for r in order.iter().copied() {
                    let blocks = move_region_after(self.func, r, after);
                    after = blocks.last().copied().unwrap_or(after);
                    per_region.insert(r, blocks);
                }
                let first = if matches!(kind, OpKind::DoWhile) {
                    body_entry
                } else {
                    cond_entry
                };
                self.entry_cursor(block, loc).br(first, &[]);
                let body_links = Links {
                    break_to: Some(my),
                    continue_to: Some(my),
                    ..links
                };
                let other_links = Links {
                    break_to: None,
                    continue_to: None,
                    ..links
                };
                let mut frames = Vec::new();
                for r in order {
                    let blocks = per_region.remove(&r).unwrap_or_default();
                    if r == cond_r {
                        frames.push((
                            blocks,
                            other_links,
                            Role::LoopCond {
                                body: body_entry,
                                exit: cont,
                                level: my,
                            },
                            None,
                        ));
                    } else if r == body_r {
                        frames.push((
                            blocks,
                            body_links,
                            Role::Yield {
                                target: continue_target,
                                level: my,
                            },
                            None,
                        ));
                    } else {
                        frames.push((
                            blocks,
                            other_links,
                            Role::Yield {
                                target: cond_entry,
                                level: my,
                            },
                            None,
                        ));
                    }
                }
                self.push_simple(cont, links, frames, Some(continue_target));
            }
            OpKind::Switch => self.enter_switch(block, op, cont, links, my, loc)?,
            OpKind::CleanupScope { kind: ck } => {
                self.enter_cleanup_scope(block, ck, &regions, cont, links, my, loc);
            }
            OpKind::Try { handlers } => {
                self.enter_try(block, handlers, &regions, cont, links, my, loc);
            }
            _ => unreachable!("not a structured op"),
        }
        Ok(())
    }

    /// The passes may run on IR that was not verified: an op without the regions of its
    /// kind is reported instead of indexed.
    fn check_regions(&self, op: Op, kind: OpKind, loc: Loc) -> Result<(), Diagnostic> {
        let n = self.func.dfg.regions(op).len();
        let ok = match kind {
            OpKind::Scope | OpKind::Case { .. } | OpKind::Switch => n == 1,
            OpKind::If => n == 1 || n == 2,
            OpKind::Ternary | OpKind::While | OpKind::DoWhile | OpKind::CleanupScope { .. } => {
                n == 2
            }
            OpKind::For => n == 3,
            OpKind::Try { handlers } => n >= 1 && self.func.dfg.handlers(handlers).len() == n - 1,
            _ => true,
        };
        let non_empty = self
            .func
            .dfg
            .regions(op)
            .iter()
            .all(|&r| self.func.layout.entry_block(r).is_some());
        if ok && non_empty {
            Ok(())
        } else {
            Err(Diagnostic::error(
                loc,
                format!(
                    "{} has the wrong number of regions or an empty region",
                    kind.name()
                ),
            ))
        }
    }

    /// A cursor for the branch into a structured op that is being entered: at the end of
    /// `block`, or in front of the ops after it that have not moved yet.
    fn entry_cursor(&mut self, block: Block, loc: Loc) -> FuncCursor<'_> {
        let position = match self.entry_point.take() {
            Some(before) if self.func.layout.op_block(before) == Some(block) => {
                CursorPosition::Before(before)
            }
            _ => CursorPosition::End(block),
        };
        FuncCursor::at(self.func, self.ctx.types.common(), position).with_loc(loc)
    }

    /// Moves the blocks of `region` after `block` and branches from `block` to the first
    /// of them (to `cont` when the region is empty); returns the moved blocks.
    pub(super) fn enter_first_region(
        &mut self,
        block: Block,
        region: Region,
        cont: Block,
        loc: Loc,
    ) -> Vec<Block> {
        let blocks = move_region_after(self.func, region, block);
        let first = blocks.first().copied().unwrap_or(cont);
        self.entry_cursor(block, loc).br(first, &[]);
        blocks
    }

    fn enter_switch(
        &mut self,
        block: Block,
        op: Op,
        cont: Block,
        links: Links,
        my: FrameIdx,
        loc: Loc,
    ) -> Result<(), Diagnostic> {
        let Some(&value) = self.func.dfg.operands(op).first() else {
            return Err(Diagnostic::error(loc, "cir.switch has no operand"));
        };
        let region = self.func.dfg.regions(op)[0];
        let value_ty = self.func.dfg.value_type(value);
        // The cases, in order, with their entry blocks.
        let mut values: Vec<(i128, Block)> = Vec::new();
        let mut seen: HashSet<i128> = HashSet::default();
        let mut ranges: Vec<(i128, i128, Block)> = Vec::new();
        let mut default = None;
        let blocks: Vec<Block> = self.func.layout.blocks(region).collect();
        for &b in &blocks {
            for case in self.func.layout.ops(b) {
                let OpKind::Case { kind, values: vs } = *self.func.dfg.kind(case) else {
                    continue;
                };
                let case_loc = self.func.dfg.loc(case);
                let Some(&case_region) = self.func.dfg.regions(case).first() else {
                    return Err(Diagnostic::error(case_loc, "cir.case has no region"));
                };
                let Some(entry) = self.func.layout.entry_block(case_region) else {
                    return Err(Diagnostic::error(case_loc, "cir.case has an empty region"));
                };
                let attrs: Vec<_> = match self.func.dfg.extra(vs) {
                    ExtraData::CaseValues(a) => a.clone(),
                    _ => Vec::new(),
                };
                let mut ints = Vec::new();
                for a in attrs {
                    match self.ctx.attrs.get(a) {
                        AttrData::Int { value, .. } => ints.push(*value),
                        AttrData::Bool(b) => ints.push(*b as i128),
                        _ => {
                            return Err(Diagnostic::error(
                                case_loc,
                                "cir.case values must be integer constants",
                            ));
                        }
                    }
                }
                match kind {
                    CaseKind::Default => {
                        if default.is_none() {
                            default = Some(entry);
                        }
                    }
                    CaseKind::Equal | CaseKind::AnyOf => {
                        for v in ints {
                            if seen.insert(v) {
                                values.push((v, entry));
                            }
                        }
                    }
                    CaseKind::Range => {
                        let [lo, hi] = ints[..] else {
                            return Err(Diagnostic::error(case_loc, "a range case has two values"));
                        };
                        if hi >= lo && hi - lo < 256 {
                            for v in lo..=hi {
                                if seen.insert(v) {
                                    values.push((v, entry));
                                }
                            }
                        } else if hi >= lo {
                            ranges.push((lo, hi, entry));
                        }
                    }
                }
            }
        }
        // The switch gets a block of its own, entered by a branch (as upstream's).
        let switch_block = self.new_block();
        self.func.layout.insert_block_after(switch_block, block);
        self.entry_cursor(block, loc).br(switch_block, &[]);
        let block = switch_block;
        // Large ranges are tested on the default path, in order.
        let mut fallback = default.unwrap_or(cont);
        let mut after = block;
        let mut chain_blocks = Vec::new();
        for _ in &ranges {
            let b = self.new_block();
            self.func.layout.insert_block_after(b, after);
            after = b;
            chain_blocks.push(b);
        }
        for (i, &(lo, hi, entry)) in ranges.iter().enumerate().rev() {
            let b = chain_blocks[i];
            let lo_attr = self.ctx.attrs.intern(AttrData::Int {
                value: lo,
                ty: value_ty,
            });
            let hi_attr = self.ctx.attrs.intern(AttrData::Int {
                value: hi,
                ty: value_ty,
            });
            let mut cursor = self.at_end(b, loc);
            let lo_v = cursor.constant(lo_attr, value_ty);
            let ge_v = cursor.cmp(CmpPredicate::Ge, value, lo_v);
            let hi_b = self.new_block();
            self.func.layout.insert_block_after(hi_b, b);
            if after == b {
                after = hi_b;
            }
            self.at_end(b, loc)
                .brcond(ge_v, (hi_b, &[]), (fallback, &[]));
            let mut cursor = self.at_end(hi_b, loc);
            let hi_v = cursor.constant(hi_attr, value_ty);
            let le_v = cursor.cmp(CmpPredicate::Le, value, hi_v);
            cursor.brcond(le_v, (entry, &[]), (fallback, &[]));
            fallback = b;
        }
        self.at_end(block, loc)
            .switch_flat(value, fallback, &values);
        let body_links = Links {
            break_to: Some(my),
            ..links
        };
        // The usual shape, a list of cases and the `cir.yield` after them, lowers as
        // upstream's does: the region's entry block branches to the first case, each
        // case falls through to the next one's entry, the last to the continuation.
        let case_list: Option<Vec<Op>> = match blocks[..] {
            [only] => {
                let ops: Vec<Op> = self.func.layout.ops(only).collect();
                match ops.split_last() {
                    Some((&last, cases))
                        if matches!(self.func.dfg.kind(last), OpKind::Yield)
                            && self.func.dfg.operands(last).is_empty()
                            && cases
                                .iter()
                                .all(|&c| matches!(self.func.dfg.kind(c), OpKind::Case { .. })) =>
                    {
                        self.func.layout.remove_op(last);
                        Some(cases.to_vec())
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(cases) = case_list {
            let region_blocks = move_region_after(self.func, region, after);
            let entry = region_blocks[0];
            let mut last = entry;
            let mut placed: Vec<Vec<Block>> = Vec::new();
            for &case in &cases {
                self.func.layout.remove_op(case);
                let case_region = self.func.dfg.regions(case)[0];
                let case_blocks = move_region_after(self.func, case_region, last);
                last = *case_blocks.last().unwrap_or(&last);
                placed.push(case_blocks);
            }
            let first = placed
                .first()
                .and_then(|b| b.first().copied())
                .unwrap_or(cont);
            self.at_end(entry, loc).br(first, &[]);
            let mut frames = Vec::new();
            for (i, case_blocks) in placed.iter().enumerate() {
                let next = placed
                    .get(i + 1)
                    .and_then(|b| b.first().copied())
                    .unwrap_or(cont);
                frames.push((
                    case_blocks.clone(),
                    body_links,
                    Role::Yield {
                        target: next,
                        level: my,
                    },
                    None,
                ));
            }
            self.push_simple(cont, links, frames, None);
            return Ok(());
        }
        let region_blocks = move_region_after(self.func, region, after);
        self.push_simple(
            cont,
            links,
            vec![(
                region_blocks,
                body_links,
                Role::Yield {
                    target: cont,
                    level: my,
                },
                Some(my),
            )],
            None,
        );
        Ok(())
    }
}
