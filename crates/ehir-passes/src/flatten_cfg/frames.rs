//! The flattener's explicit stack of frames: a region frame per region being processed
//! (its blocks still to do, how its terminators are rewritten), a container per
//! structured op being flattened (its continuation and, for cleanup scopes and trys, the
//! state of its normal and EH paths), and the links through which an op finds its
//! enclosing loop, cleanup and EH scope without walking the IR.

use super::{Flattener, FrameIdx};
use ehir_core::{Block, HandlerKey, Loc, Op, Region, Value};

/// Where an exception raised at some point goes first.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum EhScope {
    /// Nowhere in this function: it leaves the function without running anything here.
    None,
    /// The landing pad of a cleanup scope, catch handler or try container.
    Frame(FrameIdx),
    /// `std::terminate` (inside an EH cleanup or an unwind handler).
    Terminate,
}

/// What `cir.resume` means where it appears.
#[derive(Copy, Clone, Debug)]
pub(super) enum ResumeTo {
    Invalid,
    /// The end of an `eh` cleanup region: like `cir.yield` of the region.
    CleanupEnd {
        after: Block,
        level: FrameIdx,
    },
    /// Inside a try's `unwind` handler: continue unwinding with this token.
    Unwind {
        token: Value,
        next: Option<Block>,
    },
}

/// The enclosing constructs an op of a region refers to, as frame indices.
#[derive(Copy, Clone, Debug)]
pub(super) struct Links {
    /// The innermost container whose normal cleanup runs when control leaves it.
    pub(super) normal_cleanup: Option<FrameIdx>,
    /// The innermost EH scope.
    pub(super) eh: EhScope,
    /// The try container whose EH area receives new landing pads and EH blocks (`None`:
    /// the end of the function).
    pub(super) area: Option<FrameIdx>,
    pub(super) break_to: Option<FrameIdx>,
    pub(super) continue_to: Option<FrameIdx>,
    /// Inside a cleanup or handler region that control may leave only at its end.
    pub(super) in_cleanup_region: bool,
    pub(super) resume_to: ResumeTo,
}

impl Links {
    pub(super) fn function() -> Links {
        Links {
            normal_cleanup: None,
            eh: EhScope::None,
            area: None,
            break_to: None,
            continue_to: None,
            in_cleanup_region: false,
            resume_to: ResumeTo::Invalid,
        }
    }

    /// Links for a cleanup region processed in the context `self`.
    pub(super) fn for_cleanup_region(self) -> Links {
        Links {
            break_to: None,
            continue_to: None,
            in_cleanup_region: true,
            resume_to: ResumeTo::Invalid,
            ..self
        }
    }

    /// Links for an EH cleanup or handler region entered from the context `parent`: an
    /// exception inside it terminates, and `resume_to` says where its end goes.
    pub(super) fn for_eh_region(parent: Links, resume_to: ResumeTo) -> Links {
        Links {
            normal_cleanup: None,
            eh: EhScope::Terminate,
            area: parent.area,
            break_to: None,
            continue_to: None,
            in_cleanup_region: true,
            resume_to,
        }
    }
}

/// Which normal-cleanup containers an exit leaves.
#[derive(Copy, Clone, Debug)]
pub(super) enum Level {
    /// Every container with index `>= n`.
    Frames(FrameIdx),
    /// Every container whose region does not contain the op with this pre-order number.
    Label(u32),
}

/// A destination of normal exits.
pub(super) struct Dest {
    /// Where the exit lands once it has run its cleanups.
    pub(super) target: DestTarget,
    pub(super) level: Level,
}

/// Where an exit lands.
#[derive(Copy, Clone, Debug)]
pub(super) enum DestTarget {
    /// A block of the function.
    Block(Block),
    /// A `cir.return` that left cleanups: it is made again where the exit lands, after
    /// them, as upstream does.
    Return(ReturnValue),
}

/// The value a `cir.return` that left cleanups returns where it lands.
#[derive(Copy, Clone, Debug)]
pub(super) enum ReturnValue {
    /// `cir.return` without a value.
    Nothing,
    /// The value of this `cir.const`, made again there.
    Const(Op),
    /// The value stored in this `__ret_operand_tmp` slot before leaving.
    Slot(Value),
}
pub(super) type DestId = usize;

/// A branch into a container's normal cleanup, remembered until the container knows all
/// of its exits.
#[derive(Copy, Clone, Debug)]
pub(super) struct ExitEdge {
    /// The `cir.br` into the cleanup, before which the destination slot is set when the
    /// cleanup has several destinations.
    pub(super) branch: Op,
    pub(super) dest: DestId,
}

/// How the terminators of a region frame are rewritten.
#[derive(Copy, Clone, Debug)]
pub(super) enum Role {
    FunctionBody,
    /// `cir.yield` continues at `target` (leaving containers `>= level`).
    Yield {
        target: Block,
        level: FrameIdx,
    },
    /// A loop condition region: `cir.condition` becomes a `cir.brcond`.
    LoopCond {
        body: Block,
        exit: Block,
        level: FrameIdx,
    },
    /// A cleanup region: `cir.yield` continues at `after`.
    CleanupRegion {
        after: Block,
        level: FrameIdx,
    },
    /// `filter`, `terminate` and `unwind` handler regions: no `cir.yield`.
    NoExit,
}

pub(super) struct RegionFrame {
    /// Blocks still to process, the next one last.
    pub(super) worklist: Vec<Block>,
    pub(super) links: Links,
    pub(super) role: Role,
    /// Set for the region of a `cir.switch`, where `cir.case` ops live.
    pub(super) switch_owner: Option<FrameIdx>,
}

/// EH state of a container that is an EH scope.
#[derive(Clone, Debug)]
pub(super) struct EhState {
    pub(super) landing_pad: Option<Block>,
    /// The EH cleanup block or dispatch block (parameter: the token).
    pub(super) entry: Option<Block>,
    pub(super) token: Option<Value>,
    /// Whether a cleanup runs before the exception reaches a stopping handler.
    pub(super) has_cleanup: bool,
    /// Whether the stopping handler catches everything (catch-all or terminate).
    pub(super) catch_all: bool,
    pub(super) area: Option<FrameIdx>,
}

impl EhState {
    pub(super) fn new(has_cleanup: bool, catch_all: bool, area: Option<FrameIdx>) -> EhState {
        EhState {
            landing_pad: None,
            entry: None,
            token: None,
            has_cleanup,
            catch_all,
            area,
        }
    }
}

#[derive(Copy, Clone, Debug)]
pub(super) enum CleanupSource {
    Region(Region),
    EndCatch(Value),
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Stage {
    Body,
    Normal,
    Eh,
    Done,
}

pub(super) struct CleanupState {
    pub(super) source: CleanupSource,
    /// The pre-order range of the scope's region, for `cir.goto` (absent without labels).
    pub(super) range: Option<(u32, u32)>,
    /// Normal cleanup blocks are placed before this block (or before the first EH block
    /// of the scope's own EH area, which follows them).
    pub(super) anchor: Block,
    /// For a `cir.cleanup.scope`: the placeholder block ending the scope's own EH area
    /// (its landing pad and EH cleanup go after its normal cleanup, before its
    /// continuation, as upstream places them), removed when the scope is done; and the
    /// first block placed in that area.
    pub(super) eh_area: Option<(Block, Option<Block>)>,
    pub(super) normal_entry: Option<Block>,
    pub(super) exits: Vec<ExitEdge>,
    pub(super) eh: EhState,
    pub(super) stage: Stage,
    /// The region copy used for the EH cleanup.
    pub(super) eh_region: Option<Region>,
}

/// A handler of a try still to be lowered: its entry block, the token it receives and its
/// region.
#[derive(Clone, Copy, Debug)]
pub(super) enum HandlerJob {
    Catch {
        entry: Block,
        token: Value,
        region: Region,
    },
    /// `unwind` (when not just `cir.resume`), `filter` and `terminate` handlers.
    Plain {
        entry: Block,
        token: Value,
        region: Region,
        unwind: bool,
    },
}

pub(super) struct TryState {
    /// Where the `cir.try` was (for its dispatch).
    pub(super) loc: Loc,
    pub(super) handlers: Vec<HandlerKey>,
    pub(super) regions: Vec<Region>,
    /// Placeholder block ending the try's EH area; removed when the try is done.
    pub(super) marker: Block,
    pub(super) eh: EhState,
    pub(super) stage: Stage,
    pub(super) jobs: Vec<HandlerJob>,
    pub(super) next_job: usize,
}

pub(super) enum ContainerData {
    /// Scopes, ifs, ternaries, loops, switches, cases: region frames, then done.
    Simple,
    Cleanup(CleanupState),
    Try(TryState),
}

pub(super) struct Container {
    /// The continuation block (where the op's normal exit continues).
    pub(super) cont: Block,
    /// `cir.continue` target of a loop.
    pub(super) continue_target: Option<Block>,
    pub(super) parent_links: Links,
    /// Region frames still to push, the next one last.
    pub(super) pending: Vec<RegionFrame>,
    pub(super) data: ContainerData,
}

pub(super) enum Frame {
    Region(RegionFrame),
    Container(Container),
}

impl Flattener<'_> {
    pub(super) fn container(&mut self, idx: FrameIdx) -> &mut Container {
        match &mut self.frames[idx] {
            Frame::Container(c) => c,
            Frame::Region(_) => unreachable!("frame {idx} is not a container"),
        }
    }

    pub(super) fn region_frame(&mut self, idx: FrameIdx) -> &mut RegionFrame {
        match &mut self.frames[idx] {
            Frame::Region(r) => r,
            Frame::Container(_) => unreachable!("frame {idx} is not a region frame"),
        }
    }

    pub(super) fn eh_state(&mut self, idx: FrameIdx) -> &mut EhState {
        match &mut self.container(idx).data {
            ContainerData::Cleanup(s) => &mut s.eh,
            ContainerData::Try(s) => &mut s.eh,
            ContainerData::Simple => unreachable!("frame {idx} is not an EH scope"),
        }
    }

    pub(super) fn cleanup_state(&mut self, idx: FrameIdx) -> &mut CleanupState {
        match &mut self.container(idx).data {
            ContainerData::Cleanup(s) => s,
            _ => unreachable!("frame {idx} is not a cleanup container"),
        }
    }

    /// `(has_cleanup, catch_all)` of the EH chain starting at `eh`.
    pub(super) fn eh_flags(&mut self, eh: EhScope) -> (bool, bool) {
        match eh {
            EhScope::None => (false, false),
            EhScope::Terminate => (false, true),
            EhScope::Frame(i) => {
                let s = self.eh_state(i);
                (s.has_cleanup, s.catch_all)
            }
        }
    }

    /// Pushes a container whose region frames are all known now (given in processing order).
    pub(super) fn push_simple(
        &mut self,
        cont: Block,
        parent_links: Links,
        frames: Vec<(Vec<Block>, Links, Role, Option<FrameIdx>)>,
        continue_target: Option<Block>,
    ) {
        self.push_container(
            cont,
            parent_links,
            frames,
            continue_target,
            ContainerData::Simple,
        );
    }

    /// Pushes a container of one region, `blocks`, that yields to `cont`; its ops see
    /// `body_links`.
    pub(super) fn push_one_region(
        &mut self,
        cont: Block,
        parent_links: Links,
        blocks: Vec<Block>,
        body_links: Links,
        level: FrameIdx,
        data: ContainerData,
    ) {
        let role = Role::Yield {
            target: cont,
            level,
        };
        let frames = vec![(blocks, body_links, role, None)];
        self.push_container(cont, parent_links, frames, None, data);
    }

    /// Pushes a container with its region frames (given in processing order).
    fn push_container(
        &mut self,
        cont: Block,
        parent_links: Links,
        frames: Vec<(Vec<Block>, Links, Role, Option<FrameIdx>)>,
        continue_target: Option<Block>,
        data: ContainerData,
    ) {
        let pending = frames
            .into_iter()
            .rev()
            .map(|(mut blocks, links, role, switch_owner)| {
                blocks.reverse();
                RegionFrame {
                    worklist: blocks,
                    links,
                    role,
                    switch_owner,
                }
            })
            .collect();
        self.frames.push(Frame::Container(Container {
            cont,
            continue_target,
            parent_links,
            pending,
            data,
        }));
    }
}
