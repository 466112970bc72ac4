//! Cleanup scopes and normal cleanups: entering a `cir.cleanup.scope`; every normal exit
//! is a destination; an exit that leaves a cleanup scope branches to the scope's normal
//! cleanup block, and when a scope's exits go to several destinations the shared cleanup
//! ends in a `cir.switch.flat` on the function's `__cleanup_dest_slot`, set before each
//! exit.

use super::control_flow::LeavingTerminator;
use super::frames::{
    CleanupSource, CleanupState, Container, ContainerData, Dest, DestId, EhScope, EhState,
    ExitEdge, Frame, Level, Links, RegionFrame, Role, Stage,
};
use super::{Flattener, FrameIdx};
use crate::region_utils::{clone_region, move_region_after};
use ehir_core::{AttrData, Block, CleanupKind, Diagnostic, Loc, Region, Value};

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
        let v = self.new_alloca(s32, "__cleanup_dest_slot");
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
        self.dests.push(Dest { target, level });
        self.dest_of_block.insert(target, d);
        d
    }

    fn dest_index(&mut self, dest: DestId) -> i128 {
        if let Some(&i) = self.dest_index.get(&dest) {
            return i;
        }
        let i = self.next_dest_index;
        self.next_dest_index += 1;
        self.dest_index.insert(dest, i);
        i
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
        self.route_br(block, links, dest, false, args, loc)
    }

    /// Ends `block` with a branch towards `dest`, through the normal cleanup of the
    /// innermost container the exit leaves (if any).
    pub(super) fn route_br(
        &mut self,
        block: Block,
        links: Links,
        dest: DestId,
        slot_set: bool,
        args: &[Value],
        loc: Loc,
    ) -> Result<(), Diagnostic> {
        let level = self.dests[dest].level;
        let target = self.dests[dest].target;
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
                self.cleanup_state(nc).exits.push(ExitEdge {
                    store_before: (!slot_set).then_some(br),
                    dest,
                });
            }
            None => {
                self.at_end(block, loc).br(target, args);
            }
        }
        Ok(())
    }

    /// The body of a cleanup container is done: emit its normal cleanup (if any exit needs
    /// it) and decide which copy of the cleanup region the EH cleanup uses.
    pub(super) fn finish_cleanup_body(&mut self, idx: FrameIdx) -> Result<(), Diagnostic> {
        let parent_links = self.container(idx).parent_links;
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
        // Distinct destinations, in the order their exits were seen.
        let mut dests: Vec<DestId> = Vec::new();
        for e in &exits {
            if !dests.contains(&e.dest) {
                dests.push(e.dest);
            }
        }
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
            let slot_set = !clobbers && exits.iter().all(|e| e.store_before.is_none());
            return self.route_br(after, parent_links, dest, slot_set, &[], Loc::NONE);
        }
        let slot = self.dest_slot();
        let s32 = self.types().s32;
        for e in &exits {
            if let Some(br) = e.store_before {
                let index = self.dest_index(e.dest);
                let index = self.ctx.attrs.intern(AttrData::Int {
                    value: index,
                    ty: s32,
                });
                let mut cursor = self.before(br);
                let index = cursor.constant(index, s32);
                cursor.store(index, slot);
            }
        }
        let v = match saved {
            Some(v) => v,
            None => self.load_dest_slot(after),
        };
        let unreachable = self.new_block();
        self.place_before(unreachable, anchor);
        self.at_end(unreachable, Loc::NONE).unreachable();
        let mut cases = Vec::new();
        let mut targets: Vec<(Option<FrameIdx>, DestId)> = Vec::new();
        for &d in &dests {
            let index = self.dest_index(d);
            let (level, target) = (self.dests[d].level, self.dests[d].target);
            match self.crossing(parent_links, level) {
                Some(nc) => {
                    let ne = self.normal_entry(nc);
                    cases.push((index, ne));
                    targets.push((Some(nc), d));
                }
                None => {
                    cases.push((index, target));
                    targets.push((None, d));
                }
            }
        }
        self.at_end(after, Loc::NONE)
            .switch_flat(v, unreachable, &cases);
        for &(nc, dest) in &targets {
            if let Some(nc) = nc {
                self.cleanup_state(nc).exits.push(ExitEdge {
                    store_before: None,
                    dest,
                });
            }
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
