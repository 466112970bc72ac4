//! Cleanup scopes and normal cleanups: entering a `cir.cleanup.scope`; every normal exit
//! is a destination; an exit that leaves a cleanup scope branches to the scope's normal
//! cleanup block, and when a scope's exits go to several destinations the shared cleanup
//! ends in a `cir.switch.flat` on the function's `__cleanup_dest_slot`, set before each
//! exit.

use super::control_flow::LeavingTerminator;
use super::frames::{
    CleanupSource, CleanupState, Container, ContainerData, Dest, DestId, DestTarget, EhScope,
    EhState, ExitEdge, Frame, Level, Links, RegionFrame, ReturnValue, Role, Stage,
};
use super::{Flattener, FrameIdx};
use crate::region_utils::{clone_region, move_region_after};
use ehir_core::{AttrData, Block, CleanupKind, Diagnostic, Loc, OpKind, Region, Value};

impl Flattener<'_> {
    /// Enters a `cir.cleanup.scope` of kind `kind` (its body and cleanup regions are
    /// `regions`): the body's ops see the scope as their normal cleanup and/or EH scope.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn enter_cleanup_scope(
        &mut self,
        block: Block,
        kind: CleanupKind,
        regions: &[Region],
        cont: Block,
        links: Links,
        my: FrameIdx,
        loc: Loc,
    ) {
        let blocks = self.enter_first_region(block, regions[0], cont, loc);
        let (_, parent_catch_all) = self.eh_flags(links.eh);
        let marker = self.new_block();
        self.place_before(marker, cont);
        let state = CleanupState {
            source: CleanupSource::Region(regions[1]),
            range: self.region_range.get(&regions[0]).copied(),
            anchor: cont,
            eh_area: Some((marker, None)),
            normal_entry: None,
            exits: Vec::new(),
            eh: EhState::new(true, parent_catch_all, Some(my)),
            stage: Stage::Body,
            eh_region: None,
        };
        let body_links = Links {
            normal_cleanup: if kind.runs_on_normal_exit() {
                Some(my)
            } else {
                links.normal_cleanup
            },
            eh: if kind.runs_on_eh_exit() {
                EhScope::Frame(my)
            } else {
                links.eh
            },
            ..links
        };
        let data = ContainerData::Cleanup(state);
        self.push_one_region(cont, links, blocks, body_links, my, data);
    }

    fn dest_slot(&mut self) -> Value {
        if let Some(v) = self.dest_slot {
            return v;
        }
        let s32 = self.types().s32;
        let ptr = self.ctx.types.ptr(s32);
        let name = self.ctx.sym("__cleanup_dest_slot");
        let nowhere = ehir_core::CursorPosition::Nowhere;
        let v = ehir_core::FuncCursor::at(self.func, self.ctx.types.common(), nowhere)
            .dest_slot_alloca(s32, ptr, name);
        self.synthesized.push(v);
        self.dest_slot = Some(v);
        v
    }

    /// Appends a load of `__cleanup_dest_slot` to `block`; returns the loaded value.
    fn load_dest_slot(&mut self, block: Block) -> Value {
        let slot = self.dest_slot();
        let s32 = self.types().s32;
        self.at_end(block, Loc::NONE).load(slot, s32)
    }

    pub(super) fn dest_id(&mut self, target: Block, level: Level) -> DestId {
        if let Some(&d) = self.dest_of_block.get(&target) {
            return d;
        }
        let d = self.dests.len();
        self.dests.push(Dest {
            target: DestTarget::Block(target),
            level,
        });
        self.dest_of_block.insert(target, d);
        d
    }

    /// A destination of its own for one `cir.return` that leaves cleanups.
    pub(super) fn return_dest(&mut self, value: ReturnValue) -> DestId {
        let d = self.dests.len();
        self.dests.push(Dest {
            target: DestTarget::Return(value),
            level: Level::Frames(0),
        });
        d
    }

    /// The innermost normal-cleanup container an exit at `level` leaves, seen from `links`.
    pub(super) fn crossing(&self, links: Links, level: Level) -> Option<FrameIdx> {
        let nc = links.normal_cleanup?;
        let crosses = match level {
            Level::Frames(n) => nc >= n,
            Level::Label(pre) => {
                let range = match &self.frames[nc] {
                    Frame::Container(Container {
                        data: ContainerData::Cleanup(s),
                        ..
                    }) => s.range,
                    _ => None,
                };
                match range {
                    Some((lo, hi)) => !(lo <= pre && pre <= hi),
                    None => true,
                }
            }
        };
        crosses.then_some(nc)
    }

    fn normal_entry(&mut self, nc: FrameIdx) -> Block {
        if let Some(b) = self.cleanup_state(nc).normal_entry {
            return b;
        }
        let b = self.new_block();
        self.cleanup_state(nc).normal_entry = Some(b);
        b
    }

    /// Ends the block of `terminator` with a branch to `target`, where the frame at `level`
    /// continues (the exit leaves every container from `level` on), through the normal
    /// cleanups it leaves.
    pub(super) fn exit_to(
        &mut self,
        terminator: LeavingTerminator,
        target: Block,
        level: FrameIdx,
        args: &[Value],
    ) -> Result<(), Diagnostic> {
        let dest = self.dest_id(target, Level::Frames(level));
        let LeavingTerminator {
            block, links, loc, ..
        } = terminator;
        self.route_br(block, links, dest, args, loc)
    }

    /// Ends `block` with a branch towards `dest`: through the normal cleanup of the
    /// innermost container the exit leaves (if any; the slot is set before the branch when
    /// that cleanup has several destinations), or where the exit lands.
    pub(super) fn route_br(
        &mut self,
        block: Block,
        links: Links,
        dest: DestId,
        args: &[Value],
        loc: Loc,
    ) -> Result<(), Diagnostic> {
        let level = self.dests[dest].level;
        match self.crossing(links, level) {
            Some(nc) => {
                if !args.is_empty() {
                    return Err(Diagnostic::error(
                        loc,
                        "a region result cannot be carried through a cleanup",
                    ));
                }
                let ne = self.normal_entry(nc);
                let br = self.at_end(block, loc).br(ne, &[]);
                self.cleanup_state(nc)
                    .exits
                    .push(ExitEdge { branch: br, dest });
            }
            None => self.land(block, dest, args, loc),
        }
        Ok(())
    }

    /// Ends `block` where the exit to `dest` lands: a branch to its block, or the
    /// `cir.return` made again (its constant made again too, or its value loaded from the
    /// slot it was stored in).
    fn land(&mut self, block: Block, dest: DestId, args: &[Value], loc: Loc) {
        match self.dests[dest].target {
            DestTarget::Block(target) => {
                self.at_end(block, loc).br(target, args);
            }
            DestTarget::Return(ReturnValue::Nothing) => {
                self.at_end(block, loc).ret(None);
            }
            DestTarget::Return(ReturnValue::Const(op)) => {
                let OpKind::Const { value } = *self.func.dfg.kind(op) else {
                    unreachable!("a constant return value comes from cir.const")
                };
                let ty = self.func.dfg.value_type(self.func.dfg.result(op));
                let mut cursor = self.at_end(block, loc);
                let v = cursor.constant(value, ty);
                cursor.ret(Some(v));
            }
            DestTarget::Return(ReturnValue::Slot(slot)) => {
                let ty = self
                    .ctx
                    .types
                    .pointee(self.func.dfg.value_type(slot))
                    .unwrap_or(self.types().s32);
                let mut cursor = self.at_end(block, loc);
                let v = cursor.load(slot, ty);
                cursor.ret(Some(v));
            }
        }
    }

    /// The body of a cleanup container is done: emit its normal cleanup (if any exit needs
    /// it) and decide which copy of the cleanup region the EH cleanup uses.
    ///
    /// As upstream does: with one destination the cleanup goes on to it; with several,
    /// each exit stores its number in the destination slot (0 for the scope's own
    /// continuation, then 1, 2, ... in the order the exits were met), and after the
    /// cleanup a `cir.switch.flat` on the slot leads to one block per destination, which
    /// goes on to it (through the next cleanup out, numbered anew there), then an
    /// `unreachable` default.
    pub(super) fn finish_cleanup_body(&mut self, idx: FrameIdx) -> Result<(), Diagnostic> {
        let parent_links = self.container(idx).parent_links;
        let cont = self.container(idx).cont;
        let s = self.cleanup_state(idx);
        let normal = !s.exits.is_empty();
        let eh = s.eh.entry.is_some();
        if let CleanupSource::Region(r) = s.source {
            if normal && eh {
                let copy = clone_region(self.func, r);
                self.cleanup_state(idx).eh_region = Some(copy);
            } else if eh {
                self.cleanup_state(idx).eh_region = Some(r);
            }
        }
        if !normal {
            return Ok(());
        }
        let s = self.cleanup_state(idx);
        let exits = std::mem::take(&mut s.exits);
        let anchor = match s.eh_area {
            Some((marker, first)) => first.unwrap_or(marker),
            None => s.anchor,
        };
        let ne = s.normal_entry.expect("exits imply a normal entry block");
        let source = s.source;
        self.place_before(ne, anchor);
        let after = self.new_block();
        self.place_before(after, anchor);
        // Distinct destinations: the scope's own continuation first, then in the order
        // their exits were met.
        let falls_through =
            |f: &Self, d: DestId| matches!(f.dests[d].target, DestTarget::Block(b) if b == cont);
        let mut dests: Vec<DestId> = Vec::new();
        if let Some(e) = exits.iter().find(|e| falls_through(self, e.dest)) {
            dests.push(e.dest);
        }
        for e in &exits {
            if !dests.contains(&e.dest) {
                dests.push(e.dest);
            }
        }
        let first_number = match dests.first() {
            Some(&d) if falls_through(self, d) => 0,
            _ => 1,
        };
        let numbers: Vec<(DestId, i128)> = dests
            .iter()
            .enumerate()
            .map(|(i, &d)| (d, first_number + i as i128))
            .collect();
        let number = |d: DestId| {
            numbers
                .iter()
                .find(|&&(x, _)| x == d)
                .map_or(0, |&(_, n)| n)
        };
        // A cleanup region with cleanups of its own may overwrite the destination slot
        // (Clang's `cleanup.dest.saved`): read the slot before running it.
        let clobbers = matches!(source, CleanupSource::Region(r) if self.regions_with_cleanups[r]);
        let saved = if clobbers && dests.len() > 1 {
            Some(self.load_dest_slot(ne))
        } else {
            None
        };
        self.run_cleanup_source(idx, source, ne, after, parent_links.for_cleanup_region());
        // Where the cleanup continues.
        if let [dest] = dests[..] {
            return self.route_br(after, parent_links, dest, &[], Loc::NONE);
        }
        let slot = self.dest_slot();
        let s32 = self.types().s32;
        for e in &exits {
            let index = self.ctx.attrs.intern(AttrData::Int {
                value: number(e.dest),
                ty: s32,
            });
            let mut cursor = self.before(e.branch);
            let index = cursor.constant(index, s32);
            cursor.store(index, slot);
        }
        let v = match saved {
            Some(v) => v,
            None => self.load_dest_slot(after),
        };
        let mut cases = Vec::new();
        let mut landings = Vec::new();
        for &(d, n) in &numbers {
            let landing = self.new_block();
            self.place_before(landing, anchor);
            cases.push((n, landing));
            landings.push((landing, d));
        }
        let unreachable = self.new_block();
        self.place_before(unreachable, anchor);
        self.at_end(unreachable, Loc::NONE).unreachable();
        self.at_end(after, Loc::NONE)
            .switch_flat(v, unreachable, &cases);
        for (landing, d) in landings {
            self.route_br(landing, parent_links, d, &[], Loc::NONE)?;
        }
        Ok(())
    }

    /// Runs the cleanup `source` of the cleanup container `idx` from `entry`, then goes on
    /// to `after`: a cleanup region moves in after `entry` and is queued with `links`; an
    /// end-catch cleanup is a `cir.end_catch`.
    pub(super) fn run_cleanup_source(
        &mut self,
        idx: FrameIdx,
        source: CleanupSource,
        entry: Block,
        after: Block,
        links: Links,
    ) {
        match source {
            CleanupSource::Region(r) => {
                let blocks = move_region_after(self.func, r, entry);
                let first = blocks.first().copied().unwrap_or(after);
                self.at_end(entry, Loc::NONE).br(first, &[]);
                let mut worklist = blocks;
                worklist.reverse();
                self.container(idx).pending.push(RegionFrame {
                    worklist,
                    links,
                    role: Role::CleanupRegion { after, level: idx },
                    switch_owner: None,
                });
            }
            CleanupSource::EndCatch(c) => {
                let mut cursor = self.at_end(entry, Loc::NONE);
                cursor.end_catch(c);
                cursor.br(after, &[]);
            }
        }
    }
}
