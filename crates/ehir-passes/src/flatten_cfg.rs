//! `flatten-cfg`: turns every structured function into one region of blocks (phase flat),
//! routing cleanups and exceptions through explicit, ABI-agnostic blocks the way Clang's
//! own codegen does.
//!
//! Rewrites:
//! - `cir.scope`, `cir.if`, `cir.ternary`, `cir.while`/`cir.do`/`cir.for`, `cir.switch` with
//!   its `cir.case`s → blocks, `cir.br`/`cir.brcond`/`cir.switch.flat`; region results become
//!   parameters of the continuation block; `cir.label`s disappear and `cir.goto` becomes a
//!   branch.
//! - Normal cleanups (`cir.cleanup.scope` `normal`/`all`, and the `cir.end_catch` of a catch
//!   handler): when every exit of the scope goes to one destination, one cleanup block that
//!   all exits branch to and that branches on; with several destinations (`yield`, `break`,
//!   `continue`, `return`, `goto` out of the scope) one shared cleanup block, a function-wide
//!   `__cleanup_dest_slot` set before each exit, and a `cir.switch.flat` on it with an
//!   `unreachable` default. Exits through nested scopes chain innermost first; `eh`-only
//!   cleanups are skipped on normal exits; a `goto` that stays inside a scope runs nothing.
//!   `cir.return %v` that runs cleanups stores `%v` to a `__ret_slot` and branches through
//!   them to one return block. A shared cleanup whose own code holds cleanup scopes or
//!   trys reads the slot before running (Clang's `cleanup.dest.saved`), since those may
//!   overwrite it.
//! - Exceptions: a may-throw `cir.call` (and `cir.throw`) inside a try body, an EH cleanup
//!   scope or a catch handler becomes `cir.try_call` (gets an unwind successor). Each such
//!   scope has one landing pad (`cir.eh.initiate [cleanup]`, `cleanup` when a cleanup runs
//!   before a catch-all or terminate handler would make it moot) shared by the calls whose
//!   innermost scope it is. EH cleanups are `cir.begin_cleanup … cir.end_cleanup` blocks that
//!   branch to the enclosing scope's EH block, the try's `cir.eh.dispatch`, or `cir.resume`.
//!   One dispatch block per try; handlers start with `cir.begin_catch` (whose second result
//!   replaces `cir.catch_param`) and leave through `cir.end_catch` on every path, including
//!   exceptions raised inside them. `filter`/`terminate` handlers become dispatch keys. A
//!   may-throw call inside an EH cleanup unwinds to `cir.eh.initiate` + `cir.eh.terminate`.
//! - Allocas move to the entry block; unreachable blocks, empty forwarding blocks and
//!   straight-line block pairs are cleaned up.
//!
//! Nothing here recurses on the host stack per nesting level: structured ops are entered
//! and left through an explicit stack of frames, and every lookup of an enclosing construct
//! is a link stored in the frame. Cost is linear in the size of the function: the ops after
//! a structured op move to its continuation block only as they are processed, and the
//! clean-up walks (forwarding chains, block merging) visit every block and op once.
//!
//! Block order: a structured op's blocks follow the block it was in, then its normal
//! cleanup blocks, then its continuation. Landing pads, EH cleanup blocks and the dispatch
//! block of a `try` follow its body (in the order they were needed), then its handlers;
//! outside any `try` they go to the end of the function.

use crate::manager::for_each_definition_in;
use crate::region_utils::{clone_region, move_region_after};
use ehir_core::{
    AttrData, Block, CaseKind, CmpPredicate, Diagnostic, Diagnostics, ExtraData, Function,
    HandlerKey, Loc, Module, ModuleCtx, Op, OpKind, PackedOption, Phase, Region, SecondaryMap,
    Successor, Symbol, Type, Value, ValueDef,
};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Flattens every structured function definition of the module.
pub fn flatten_module(module: &mut Module) -> Result<(), Diagnostics> {
    let nothrow = nothrow_callees(module);
    for_each_definition_in(module, Phase::Structured, |ctx, func| {
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

type FrameIdx = usize;

/// Where an exception raised at some point goes first.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum EhScope {
    /// Nowhere in this function: it leaves the function without running anything here.
    None,
    /// The landing pad of a cleanup scope, catch handler or try container.
    Frame(FrameIdx),
    /// `std::terminate` (inside an EH cleanup or an unwind handler).
    Terminate,
}

/// What `cir.resume` means where it appears.
#[derive(Copy, Clone, Debug)]
enum ResumeTo {
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
struct Links {
    /// The innermost container whose normal cleanup runs when control leaves it.
    normal_cleanup: Option<FrameIdx>,
    /// The innermost EH scope.
    eh: EhScope,
    /// The try container whose EH area receives new landing pads and EH blocks (`None`:
    /// the end of the function).
    area: Option<FrameIdx>,
    break_to: Option<FrameIdx>,
    continue_to: Option<FrameIdx>,
    /// Inside a cleanup or handler region that control may leave only at its end.
    in_cleanup_region: bool,
    resume_to: ResumeTo,
}

impl Links {
    fn function() -> Links {
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
    fn for_cleanup_region(self) -> Links {
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
    fn for_eh_region(parent: Links, resume_to: ResumeTo) -> Links {
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
enum Level {
    /// Every container with index `>= n`.
    Frames(FrameIdx),
    /// Every container whose region does not contain the op with this pre-order number.
    Label(u32),
}

/// A destination of normal exits.
struct Dest {
    target: Block,
    level: Level,
}
type DestId = usize;

/// A branch into a container's normal cleanup, remembered until the container knows all
/// of its exits.
#[derive(Copy, Clone, Debug)]
struct ExitEdge {
    /// The `cir.br` before which the destination slot must be set, or `None` when the
    /// path already set it.
    store_before: Option<Op>,
    dest: DestId,
}

/// How the terminators of a region frame are rewritten.
#[derive(Copy, Clone, Debug)]
enum Role {
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

struct RegionFrame {
    /// Blocks still to process, the next one last.
    worklist: Vec<Block>,
    links: Links,
    role: Role,
    /// Set for the region of a `cir.switch`, where `cir.case` ops live.
    switch_owner: Option<FrameIdx>,
}

/// EH state of a container that is an EH scope.
#[derive(Clone, Debug)]
struct EhState {
    landing_pad: Option<Block>,
    /// The EH cleanup block or dispatch block (parameter: the token).
    entry: Option<Block>,
    token: Option<Value>,
    /// Whether a cleanup runs before the exception reaches a stopping handler.
    has_cleanup: bool,
    /// Whether the stopping handler catches everything (catch-all or terminate).
    catch_all: bool,
    area: Option<FrameIdx>,
}

impl EhState {
    fn new(has_cleanup: bool, catch_all: bool, area: Option<FrameIdx>) -> EhState {
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
enum CleanupSource {
    Region(Region),
    EndCatch(Value),
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Stage {
    Body,
    Normal,
    Eh,
    Done,
}

struct CleanupState {
    source: CleanupSource,
    /// The pre-order range of the scope's region, for `cir.goto` (absent without labels).
    range: Option<(u32, u32)>,
    /// Normal cleanup blocks are placed before this block.
    anchor: Block,
    normal_entry: Option<Block>,
    exits: Vec<ExitEdge>,
    eh: EhState,
    stage: Stage,
    /// The region copy used for the EH cleanup.
    eh_region: Option<Region>,
}

enum HandlerJob {
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

struct TryState {
    /// Where the `cir.try` was (for its dispatch).
    loc: Loc,
    handlers: Vec<HandlerKey>,
    regions: Vec<Region>,
    /// Placeholder block ending the try's EH area; removed when the try is done.
    marker: Block,
    eh: EhState,
    stage: Stage,
    jobs: Vec<HandlerJob>,
    next_job: usize,
}

enum ContainerData {
    /// Scopes, ifs, ternaries, loops, switches, cases: region frames, then done.
    Simple,
    Cleanup(CleanupState),
    Try(TryState),
}

struct Container {
    /// The continuation block (where the op's normal exit continues).
    cont: Block,
    /// `cir.continue` target of a loop.
    continue_target: Option<Block>,
    parent_links: Links,
    /// Region frames still to push, the next one last.
    pending: Vec<RegionFrame>,
    data: ContainerData,
}

enum Frame {
    Region(RegionFrame),
    Container(Container),
}

/// Labels of the function: their blocks and what encloses them.
struct LabelInfo {
    block: Block,
    pre: u32,
    /// The innermost cleanup-scope body, try body or handler region around the label.
    protected: Option<Region>,
}

struct Flattener<'a> {
    ctx: &'a mut ModuleCtx,
    nothrow: &'a NothrowCallees,
    func: &'a mut Function,
    body: Region,
    entry: Block,
    frames: Vec<Frame>,
    /// Marks the end of normal code in the body region; function-level EH blocks follow it.
    fn_marker: Option<Block>,
    hoisted: Vec<Op>,
    synthesized: Vec<Op>,
    dest_slot: Option<Value>,
    ret_slot: Option<Value>,
    ret_block: Option<Block>,
    dests: Vec<Dest>,
    dest_of_block: HashMap<Block, DestId>,
    dest_index: HashMap<DestId, i128>,
    next_dest_index: i128,
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
            ret_slot: None,
            ret_block: None,
            dests: Vec::new(),
            dest_of_block: HashMap::default(),
            dest_index: HashMap::default(),
            next_dest_index: 0,
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

    // ---- preparation -------------------------------------------------------------------

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
        // follow a structured op (flattening would move them out of it).
        let mut seen_structured = false;
        for &op in &ops {
            let block = self.func.layout.op_block(op);
            let in_entry = block == Some(self.entry);
            let kind = *self.func.dfg.kind(op);
            if in_entry && !self.func.dfg.regions(op).is_empty() {
                seen_structured = true;
            }
            if let OpKind::Alloca { .. } = kind
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

    fn find_labels(&mut self, ops: &[Op]) -> Result<(), Diagnostic> {
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
                let br = self
                    .func
                    .dfg
                    .make_op(OpKind::Br, &[], &[], &[(target, &[])], 0, loc);
                self.func.layout.append_op(br, block);
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

    // ---- small builders ------------------------------------------------------------------

    fn types(&self) -> ehir_core::CommonTypes {
        *self.ctx.types.common()
    }

    /// Appends a load of `__cleanup_dest_slot` to `block`; returns the loaded value.
    fn load_dest_slot(&mut self, block: Block) -> Value {
        let slot = self.dest_slot();
        let s32 = self.types().s32;
        let load = self.append(
            block,
            OpKind::Load {
                align: 0,
                volatile: false,
            },
            &[slot],
            &[s32],
            &[],
            Loc::NONE,
        );
        self.func.dfg.result(load)
    }

    fn make_op(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        results: &[Type],
        succs: &[(Block, &[Value])],
        loc: Loc,
    ) -> Op {
        self.func
            .dfg
            .make_op(kind, operands, results, succs, 0, loc)
    }

    fn append(
        &mut self,
        block: Block,
        kind: OpKind,
        operands: &[Value],
        results: &[Type],
        succs: &[(Block, &[Value])],
        loc: Loc,
    ) -> Op {
        let op = self.make_op(kind, operands, results, succs, loc);
        self.func.layout.append_op(op, block);
        op
    }

    fn insert_before(
        &mut self,
        before: Op,
        kind: OpKind,
        operands: &[Value],
        results: &[Type],
        loc: Loc,
    ) -> Op {
        let op = self.make_op(kind, operands, results, &[], loc);
        self.func.layout.insert_op_before(op, before);
        op
    }

    fn br(&mut self, block: Block, target: Block, args: &[Value], loc: Loc) -> Op {
        self.append(block, OpKind::Br, &[], &[], &[(target, args)], loc)
    }

    fn const_s32(&mut self, value: i128) -> OpKind {
        let s32 = self.types().s32;
        let attr = self.ctx.attrs.intern(AttrData::Int { value, ty: s32 });
        OpKind::Const { value: attr }
    }

    fn new_alloca(&mut self, ty: Type, name: &str) -> Value {
        let ptr = self.ctx.types.ptr(ty);
        let name = self.ctx.sym(name);
        let op = self.func.dfg.make_op(
            OpKind::Alloca {
                alloc_ty: ty,
                name,
                init: false,
                align: 0,
            },
            &[],
            &[ptr],
            &[],
            0,
            Loc::NONE,
        );
        self.synthesized.push(op);
        self.func.dfg.result(op)
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

    fn new_block(&mut self) -> Block {
        self.func.dfg.make_block()
    }

    fn new_token_block(&mut self) -> (Block, Value) {
        let b = self.new_block();
        let t = self.types().eh_token;
        let v = self.func.dfg.append_block_param(b, t);
        (b, v)
    }

    /// Places an unplaced block right before `anchor`.
    fn place_before(&mut self, block: Block, anchor: Block) {
        match self.func.layout.prev_block(anchor) {
            Some(prev) => self.func.layout.insert_block_after(block, prev),
            None => self.func.layout.append_block(self.body, block),
        }
    }

    fn fn_marker(&self) -> Block {
        self.fn_marker
            .expect("function marker exists while running")
    }

    /// Places a new EH block in the EH area of a try container, or at the function's end.
    fn place_in_area(&mut self, area: Option<FrameIdx>, block: Block) {
        match area {
            Some(t) => {
                let marker = match &self.container(t).data {
                    ContainerData::Try(state) => state.marker,
                    _ => unreachable!("EH areas belong to try containers"),
                };
                self.place_before(block, marker);
            }
            None => self.func.layout.append_block(self.body, block),
        }
    }

    fn container(&mut self, idx: FrameIdx) -> &mut Container {
        match &mut self.frames[idx] {
            Frame::Container(c) => c,
            Frame::Region(_) => unreachable!("frame {idx} is not a container"),
        }
    }

    fn region_frame(&mut self, idx: FrameIdx) -> &mut RegionFrame {
        match &mut self.frames[idx] {
            Frame::Region(r) => r,
            Frame::Container(_) => unreachable!("frame {idx} is not a region frame"),
        }
    }

    fn eh_state(&mut self, idx: FrameIdx) -> &mut EhState {
        match &mut self.container(idx).data {
            ContainerData::Cleanup(s) => &mut s.eh,
            ContainerData::Try(s) => &mut s.eh,
            ContainerData::Simple => unreachable!("frame {idx} is not an EH scope"),
        }
    }

    fn cleanup_state(&mut self, idx: FrameIdx) -> &mut CleanupState {
        match &mut self.container(idx).data {
            ContainerData::Cleanup(s) => s,
            _ => unreachable!("frame {idx} is not a cleanup container"),
        }
    }

    /// `(has_cleanup, catch_all)` of the EH chain starting at `eh`.
    fn eh_flags(&mut self, eh: EhScope) -> (bool, bool) {
        match eh {
            EhScope::None => (false, false),
            EhScope::Terminate => (false, true),
            EhScope::Frame(i) => {
                let s = self.eh_state(i);
                (s.has_cleanup, s.catch_all)
            }
        }
    }

    // ---- EH blocks ---------------------------------------------------------------------

    /// The EH block of an EH scope: its EH cleanup block or its dispatch block.
    fn eh_entry(&mut self, idx: FrameIdx) -> Block {
        if let Some(b) = self.eh_state(idx).entry {
            return b;
        }
        let (b, t) = self.new_token_block();
        let is_try = matches!(self.container(idx).data, ContainerData::Try(_));
        let s = self.eh_state(idx);
        s.entry = Some(b);
        s.token = Some(t);
        let area = s.area;
        // A dispatch block is placed after everything else of its try's EH area.
        if !is_try {
            self.place_in_area(area, b);
        }
        b
    }

    /// Where unwinding continues after an EH block of a scope whose parent context has
    /// `eh`: a block taking the token, or `None` to resume out of the function.
    fn next_eh_entry(&mut self, eh: EhScope) -> Option<Block> {
        match eh {
            EhScope::None => None,
            EhScope::Terminate => Some(self.terminate_entry()),
            EhScope::Frame(i) => Some(self.eh_entry(i)),
        }
    }

    /// The unwind destination for a may-throw op whose innermost EH scope is `eh`.
    fn landing_pad(&mut self, eh: EhScope) -> Option<Block> {
        match eh {
            EhScope::None => None,
            EhScope::Terminate => Some(self.terminate_lp()),
            EhScope::Frame(i) => {
                if let Some(lp) = self.eh_state(i).landing_pad {
                    return Some(lp);
                }
                let lp = self.new_block();
                let s = self.eh_state(i);
                s.landing_pad = Some(lp);
                let cleanup = s.has_cleanup && !s.catch_all;
                let area = s.area;
                self.place_in_area(area, lp);
                let tok = self.types().eh_token;
                let init = self.append(
                    lp,
                    OpKind::EhInitiate { cleanup },
                    &[],
                    &[tok],
                    &[],
                    Loc::NONE,
                );
                let t = self.func.dfg.result(init);
                let entry = self.eh_entry(i);
                self.br(lp, entry, &[t], Loc::NONE);
                Some(lp)
            }
        }
    }

    fn terminate_lp(&mut self) -> Block {
        if let Some(b) = self.terminate_lp {
            return b;
        }
        let b = self.new_block();
        self.func.layout.append_block(self.body, b);
        let tok = self.types().eh_token;
        let init = self.append(
            b,
            OpKind::EhInitiate { cleanup: false },
            &[],
            &[tok],
            &[],
            Loc::NONE,
        );
        let t = self.func.dfg.result(init);
        self.append(b, OpKind::EhTerminate, &[t], &[], &[], Loc::NONE);
        self.terminate_lp = Some(b);
        b
    }

    fn terminate_entry(&mut self) -> Block {
        if let Some(b) = self.terminate_entry {
            return b;
        }
        let (b, t) = self.new_token_block();
        self.func.layout.append_block(self.body, b);
        self.append(b, OpKind::EhTerminate, &[t], &[], &[], Loc::NONE);
        self.terminate_entry = Some(b);
        b
    }

    fn resume_block(&mut self) -> Block {
        if let Some(b) = self.resume_block {
            return b;
        }
        let (b, t) = self.new_token_block();
        self.func.layout.append_block(self.body, b);
        self.append(b, OpKind::Resume, &[t], &[], &[], Loc::NONE);
        self.resume_block = Some(b);
        b
    }

    /// Ends `block` by continuing to unwind `token` at `next` (or out of the function).
    fn continue_unwind(&mut self, block: Block, token: Value, next: Option<Block>, loc: Loc) {
        match next {
            Some(n) => {
                self.br(block, n, &[token], loc);
            }
            None => {
                self.append(block, OpKind::Resume, &[token], &[], &[], loc);
            }
        }
    }

    // ---- normal exits ----------------------------------------------------------------------

    fn dest_id(&mut self, target: Block, level: Level) -> DestId {
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
    fn crossing(&self, links: Links, level: Level) -> Option<FrameIdx> {
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

    /// Ends `block` with a branch towards `dest`, through the normal cleanup of the
    /// innermost container the exit leaves (if any).
    fn route_br(
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
                let br = self.br(block, ne, &[], loc);
                self.cleanup_state(nc).exits.push(ExitEdge {
                    store_before: (!slot_set).then_some(br),
                    dest,
                });
            }
            None => {
                self.br(block, target, args, loc);
            }
        }
        Ok(())
    }

    // ---- the driver ------------------------------------------------------------------------

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
                Stage::Eh | Stage::Done => Next::Pop,
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
            Next::TryDone(marker) => {
                self.func.layout.remove_block(marker);
                self.frames.pop();
            }
        }
        Ok(())
    }

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
            match kind {
                OpKind::Label { .. } => self.func.layout.remove_op(op),
                OpKind::Call { callee, sig, flags } => {
                    let may_throw = !flags.nothrow
                        && !callee.expand().is_some_and(|s| self.nothrow.contains(&s));
                    if may_throw && let Some(lp) = self.landing_pad(links.eh) {
                        if next.is_none() {
                            return Err(Diagnostic::error(
                                loc,
                                "block does not end with a terminator",
                            ));
                        }
                        self.func.dfg.ops[op].kind = OpKind::TryCall { callee, sig, flags };
                        // The ops after the call continue in the normal successor.
                        let normal = self.new_block();
                        self.func.layout.insert_block_after(normal, block);
                        let s1 = self.func.dfg.make_successor(normal, &[]);
                        let s2 = self.func.dfg.make_successor(lp, &[]);
                        self.func.dfg.attach_successor(op, s1);
                        self.func.dfg.attach_successor(op, s2);
                        block = normal;
                        cur = next;
                        continue;
                    }
                }
                OpKind::Throw { .. } => {
                    if let Some(lp) = self.landing_pad(links.eh) {
                        let s = self.func.dfg.make_successor(lp, &[]);
                        self.func.dfg.attach_successor(op, s);
                    }
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
                    let args = self.func.dfg.operands(op).to_vec();
                    self.func.layout.remove_op(op);
                    match role {
                        Role::Yield { target, level } => {
                            let d = self.dest_id(target, Level::Frames(level));
                            self.route_br(block, links, d, false, &args, loc)?;
                        }
                        Role::CleanupRegion { after, level } => {
                            let d = self.dest_id(after, Level::Frames(level));
                            self.route_br(block, links, d, false, &[], loc)?;
                        }
                        _ => {
                            return Err(Diagnostic::error(
                                loc,
                                "cir.yield has no enclosing region to leave",
                            ));
                        }
                    }
                    terminated = true;
                }
                OpKind::Break | OpKind::Continue => {
                    let is_break = matches!(kind, OpKind::Break);
                    let to = if is_break {
                        links.break_to
                    } else {
                        links.continue_to
                    };
                    let Some(t) = to else {
                        return Err(Diagnostic::error(
                            loc,
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
                        return Err(Diagnostic::error(loc, "cir.continue outside a loop"));
                    };
                    self.func.layout.remove_op(op);
                    let d = self.dest_id(target, Level::Frames(t));
                    self.route_br(block, links, d, false, &[], loc)?;
                    terminated = true;
                }
                OpKind::Condition => {
                    let Role::LoopCond { body, exit, level } = role else {
                        return Err(Diagnostic::error(
                            loc,
                            "cir.condition outside a loop condition region",
                        ));
                    };
                    if self.crossing(links, Level::Frames(level)).is_some() {
                        return Err(Diagnostic::error(
                            loc,
                            "cir.condition inside a cleanup scope of the condition region is not supported",
                        ));
                    }
                    let operands = self.func.dfg.operands(op).to_vec();
                    self.func.layout.remove_op(op);
                    self.append(
                        block,
                        OpKind::BrCond,
                        &operands,
                        &[],
                        &[(body, &[]), (exit, &[])],
                        loc,
                    );
                    terminated = true;
                }
                OpKind::Return => {
                    if links.in_cleanup_region {
                        return Err(Diagnostic::error(
                            loc,
                            "cir.return cannot leave a cleanup or handler region here",
                        ));
                    }
                    if self.crossing(links, Level::Frames(0)).is_some() {
                        let operands = self.func.dfg.operands(op).to_vec();
                        self.func.layout.remove_op(op);
                        if let Some(&v) = operands.first() {
                            let slot = self.ret_slot(v);
                            self.append(
                                block,
                                OpKind::Store {
                                    align: 0,
                                    volatile: false,
                                },
                                &[v, slot],
                                &[],
                                &[],
                                loc,
                            );
                        }
                        let ret = self.ret_block();
                        let d = self.dest_id(ret, Level::Frames(0));
                        self.route_br(block, links, d, false, &[], loc)?;
                    }
                    terminated = true;
                }
                OpKind::Goto { label } => {
                    self.lower_goto(block, op, label, links, loc)?;
                    terminated = true;
                }
                OpKind::Resume => {
                    // Only the structured (operand-less) form is rewritten here.
                    match links.resume_to {
                        ResumeTo::CleanupEnd { after, level } => {
                            self.func.layout.remove_op(op);
                            let d = self.dest_id(after, Level::Frames(level));
                            self.route_br(block, links, d, false, &[], loc)?;
                        }
                        ResumeTo::Unwind { token, next } => {
                            self.func.layout.remove_op(op);
                            self.continue_unwind(block, token, next, loc);
                        }
                        ResumeTo::Invalid => {
                            return Err(Diagnostic::error(
                                loc,
                                "cir.resume must be in a try's unwind handler or at the end of an eh cleanup",
                            ));
                        }
                    }
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

    fn ret_slot(&mut self, v: Value) -> Value {
        if let Some(s) = self.ret_slot {
            return s;
        }
        let ty = self.func.dfg.value_type(v);
        let s = self.new_alloca(ty, "__ret_slot");
        self.ret_slot = Some(s);
        s
    }

    fn ret_block(&mut self) -> Block {
        if let Some(b) = self.ret_block {
            return b;
        }
        let b = self.new_block();
        match self.ret_slot {
            Some(slot) => {
                let ty = self
                    .ctx
                    .types
                    .pointee(self.func.dfg.value_type(slot))
                    .unwrap_or(self.types().s32);
                let load = self.append(
                    b,
                    OpKind::Load {
                        align: 0,
                        volatile: false,
                    },
                    &[slot],
                    &[ty],
                    &[],
                    Loc::NONE,
                );
                let v = self.func.dfg.result(load);
                self.append(b, OpKind::Return, &[v], &[], &[], Loc::NONE);
            }
            None => {
                self.append(b, OpKind::Return, &[], &[], &[], Loc::NONE);
            }
        }
        self.ret_block = Some(b);
        b
    }

    fn lower_goto(
        &mut self,
        block: Block,
        op: Op,
        label: Symbol,
        links: Links,
        loc: Loc,
    ) -> Result<(), Diagnostic> {
        if links.in_cleanup_region {
            return Err(Diagnostic::error(
                loc,
                "cir.goto inside a cleanup or handler region is not supported",
            ));
        }
        let Some(info) = self.labels.get(&label) else {
            return Err(Diagnostic::error(
                loc,
                format!("cir.goto to unknown label '{}'", self.ctx.name(label)),
            ));
        };
        let (target, pre, protected) = (info.block, info.pre, info.protected);
        if let Some(region) = protected {
            let here = self.pre[op];
            let inside = self
                .region_range
                .get(&region)
                .is_some_and(|&(lo, hi)| here != NO_PRE && lo <= here && here <= hi);
            if !inside {
                return Err(Diagnostic::error(
                    loc,
                    "cir.goto into a cleanup scope, try body or handler is not allowed",
                ));
            }
        }
        self.func.layout.remove_op(op);
        let d = self.dest_id(target, Level::Label(pre));
        self.route_br(block, links, d, false, &[], loc)
    }

    // ---- entering structured ops -------------------------------------------------------

    /// Enters the structured op `op` of `block`; `tail` is where the ops after it are.
    fn enter_structured(
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
                self.emit_entry(block, OpKind::BrCond, &[cond], &[(t, &[]), (e, &[])], loc);
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
                self.emit_entry(block, OpKind::Br, &[], &[(first, &[])], loc);
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
                let blocks = self.enter_first_region(block, regions[0], cont, loc);
                let (_, parent_catch_all) = self.eh_flags(links.eh);
                let state = CleanupState {
                    source: CleanupSource::Region(regions[1]),
                    range: self.region_range.get(&regions[0]).copied(),
                    anchor: cont,
                    normal_entry: None,
                    exits: Vec::new(),
                    eh: EhState::new(true, parent_catch_all, links.area),
                    stage: Stage::Body,
                    eh_region: None,
                };
                let body_links = Links {
                    normal_cleanup: if ck.runs_on_normal_exit() {
                        Some(my)
                    } else {
                        links.normal_cleanup
                    },
                    eh: if ck.runs_on_eh_exit() {
                        EhScope::Frame(my)
                    } else {
                        links.eh
                    },
                    ..links
                };
                let data = ContainerData::Cleanup(state);
                self.push_one_region(cont, links, blocks, body_links, my, data);
            }
            OpKind::Try { handlers } => {
                let handlers = self.func.dfg.handlers(handlers).to_vec();
                let handler_regions = regions[1..].to_vec();
                let blocks = self.enter_first_region(block, regions[0], cont, loc);
                let interesting = handlers
                    .iter()
                    .zip(&handler_regions)
                    .any(|(h, &r)| !(*h == HandlerKey::Unwind && self.is_trivial_resume(r)));
                if !interesting {
                    self.push_one_region(cont, links, blocks, links, my, ContainerData::Simple);
                    return Ok(());
                }
                let marker = self.new_block();
                self.place_before(marker, cont);
                let flags = if handlers
                    .iter()
                    .any(|h| matches!(h, HandlerKey::CatchAll | HandlerKey::Terminate))
                {
                    (false, true)
                } else if handlers.iter().any(|h| matches!(h, HandlerKey::Filter(_))) {
                    (false, false)
                } else {
                    self.eh_flags(links.eh)
                };
                let state = TryState {
                    loc,
                    handlers,
                    regions: handler_regions,
                    marker,
                    eh: EhState::new(flags.0, flags.1, Some(my)),
                    stage: Stage::Body,
                    jobs: Vec::new(),
                    next_job: 0,
                };
                let body_links = Links {
                    eh: EhScope::Frame(my),
                    area: Some(my),
                    ..links
                };
                let data = ContainerData::Try(state);
                self.push_one_region(cont, links, blocks, body_links, my, data);
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

    /// Emits the branch into a structured op that is being entered, at the end of `block`
    /// or in front of the ops after it that have not moved yet.
    fn emit_entry(
        &mut self,
        block: Block,
        kind: OpKind,
        operands: &[Value],
        succs: &[(Block, &[Value])],
        loc: Loc,
    ) {
        let op = self.make_op(kind, operands, &[], succs, loc);
        match self.entry_point.take() {
            Some(before) if self.func.layout.op_block(before) == Some(block) => {
                self.func.layout.insert_op_before(op, before)
            }
            _ => self.func.layout.append_op(op, block),
        }
    }

    /// Moves the blocks of `region` after `block` and branches from `block` to the first
    /// of them (to `cont` when the region is empty); returns the moved blocks.
    fn enter_first_region(
        &mut self,
        block: Block,
        region: Region,
        cont: Block,
        loc: Loc,
    ) -> Vec<Block> {
        let blocks = move_region_after(self.func, region, block);
        let first = blocks.first().copied().unwrap_or(cont);
        self.emit_entry(block, OpKind::Br, &[], &[(first, &[])], loc);
        blocks
    }

    /// Pushes a container whose region frames are all known now (given in processing order).
    fn push_simple(
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
    fn push_one_region(
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

    /// Whether a handler region is just `cir.resume` (or empty).
    fn is_trivial_resume(&self, region: Region) -> bool {
        let mut blocks = self.func.layout.blocks(region);
        let Some(b) = blocks.next() else { return true };
        if blocks.next().is_some() {
            return false;
        }
        let mut ops = self.func.layout.ops(b);
        match (ops.next(), ops.next()) {
            (Some(op), None) => {
                matches!(self.func.dfg.kind(op), OpKind::Resume)
                    && self.func.dfg.operands(op).is_empty()
            }
            (None, _) => true,
            _ => false,
        }
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
            let bool_ty = self.types().bool;
            let lo_attr = self.ctx.attrs.intern(AttrData::Int {
                value: lo,
                ty: value_ty,
            });
            let hi_attr = self.ctx.attrs.intern(AttrData::Int {
                value: hi,
                ty: value_ty,
            });
            let lo_c = self.append(
                b,
                OpKind::Const { value: lo_attr },
                &[],
                &[value_ty],
                &[],
                loc,
            );
            let lo_v = self.func.dfg.result(lo_c);
            let ge = self.append(
                b,
                OpKind::Cmp(CmpPredicate::Ge),
                &[value, lo_v],
                &[bool_ty],
                &[],
                loc,
            );
            let ge_v = self.func.dfg.result(ge);
            let hi_b = self.new_block();
            self.func.layout.insert_block_after(hi_b, b);
            if after == b {
                after = hi_b;
            }
            self.append(
                b,
                OpKind::BrCond,
                &[ge_v],
                &[],
                &[(hi_b, &[]), (fallback, &[])],
                loc,
            );
            let hi_c = self.append(
                hi_b,
                OpKind::Const { value: hi_attr },
                &[],
                &[value_ty],
                &[],
                loc,
            );
            let hi_v = self.func.dfg.result(hi_c);
            let le = self.append(
                hi_b,
                OpKind::Cmp(CmpPredicate::Le),
                &[value, hi_v],
                &[bool_ty],
                &[],
                loc,
            );
            let le_v = self.func.dfg.result(le);
            self.append(
                hi_b,
                OpKind::BrCond,
                &[le_v],
                &[],
                &[(entry, &[]), (fallback, &[])],
                loc,
            );
            fallback = b;
        }
        let cases = self
            .func
            .dfg
            .make_extra(ExtraData::Cases(values.iter().map(|&(v, _)| v).collect()));
        let mut succs: Vec<(Block, &[Value])> = vec![(fallback, &[])];
        succs.extend(values.iter().map(|&(_, b)| (b, &[] as &[Value])));
        self.emit_entry(block, OpKind::SwitchFlat { cases }, &[value], &succs, loc);
        let region_blocks = move_region_after(self.func, region, after);
        let body_links = Links {
            break_to: Some(my),
            ..links
        };
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

    // ---- leaving cleanup scopes ---------------------------------------------------------

    /// The body of a cleanup container is done: emit its normal cleanup (if any exit needs
    /// it) and decide which copy of the cleanup region the EH cleanup uses.
    fn finish_cleanup_body(&mut self, idx: FrameIdx) -> Result<(), Diagnostic> {
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
        let anchor = s.anchor;
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
        match source {
            CleanupSource::Region(r) => {
                let blocks = move_region_after(self.func, r, ne);
                self.br(ne, blocks.first().copied().unwrap_or(after), &[], Loc::NONE);
                let mut worklist = blocks;
                worklist.reverse();
                self.container(idx).pending.push(RegionFrame {
                    worklist,
                    links: parent_links.for_cleanup_region(),
                    role: Role::CleanupRegion { after, level: idx },
                    switch_owner: None,
                });
            }
            CleanupSource::EndCatch(c) => {
                self.append(ne, OpKind::EndCatch, &[c], &[], &[], Loc::NONE);
                self.br(ne, after, &[], Loc::NONE);
            }
        }
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
                let k = self.const_s32(index);
                let c = self.insert_before(br, k, &[], &[s32], Loc::NONE);
                let cv = self.func.dfg.result(c);
                self.insert_before(
                    br,
                    OpKind::Store {
                        align: 0,
                        volatile: false,
                    },
                    &[cv, slot],
                    &[],
                    Loc::NONE,
                );
            }
        }
        let v = match saved {
            Some(v) => v,
            None => self.load_dest_slot(after),
        };
        let unreachable = self.new_block();
        self.place_before(unreachable, anchor);
        self.append(unreachable, OpKind::Unreachable, &[], &[], &[], Loc::NONE);
        let mut case_values = Vec::new();
        let mut targets: Vec<(Block, Option<FrameIdx>, DestId)> = Vec::new();
        for &d in &dests {
            case_values.push(self.dest_index(d));
            let (level, target) = (self.dests[d].level, self.dests[d].target);
            match self.crossing(parent_links, level) {
                Some(nc) => {
                    let ne = self.normal_entry(nc);
                    targets.push((ne, Some(nc), d));
                }
                None => targets.push((target, None, d)),
            }
        }
        let cases = self.func.dfg.make_extra(ExtraData::Cases(case_values));
        let mut succs: Vec<(Block, &[Value])> = vec![(unreachable, &[])];
        succs.extend(targets.iter().map(|&(b, _, _)| (b, &[] as &[Value])));
        self.append(
            after,
            OpKind::SwitchFlat { cases },
            &[v],
            &[],
            &succs,
            Loc::NONE,
        );
        for &(_, nc, dest) in &targets {
            if let Some(nc) = nc {
                self.cleanup_state(nc).exits.push(ExitEdge {
                    store_before: None,
                    dest,
                });
            }
        }
        Ok(())
    }

    /// Fills the EH cleanup block of a cleanup container, if any landing pad needs it.
    fn start_eh_cleanup(&mut self, idx: FrameIdx) -> Result<(), Diagnostic> {
        let parent_links = self.container(idx).parent_links;
        let s = self.cleanup_state(idx);
        let (Some(ehc), Some(token)) = (s.eh.entry, s.eh.token) else {
            return Ok(());
        };
        let source = match (&s.source, s.eh_region) {
            (CleanupSource::EndCatch(c), _) => CleanupSource::EndCatch(*c),
            (CleanupSource::Region(_), Some(r)) => CleanupSource::Region(r),
            (CleanupSource::Region(r), None) => CleanupSource::Region(*r),
        };
        let after = self.new_block();
        self.func.layout.insert_block_after(after, ehc);
        let ct_ty = self.types().cleanup_token;
        let begin = self.append(
            ehc,
            OpKind::BeginCleanup,
            &[token],
            &[ct_ty],
            &[],
            Loc::NONE,
        );
        let ct = self.func.dfg.result(begin);
        match source {
            CleanupSource::Region(r) => {
                let blocks = move_region_after(self.func, r, ehc);
                self.br(
                    ehc,
                    blocks.first().copied().unwrap_or(after),
                    &[],
                    Loc::NONE,
                );
                let mut worklist = blocks;
                worklist.reverse();
                let links =
                    Links::for_eh_region(parent_links, ResumeTo::CleanupEnd { after, level: idx });
                self.container(idx).pending.push(RegionFrame {
                    worklist,
                    links,
                    role: Role::CleanupRegion { after, level: idx },
                    switch_owner: None,
                });
            }
            CleanupSource::EndCatch(c) => {
                self.append(ehc, OpKind::EndCatch, &[c], &[], &[], Loc::NONE);
                self.br(ehc, after, &[], Loc::NONE);
            }
        }
        self.append(after, OpKind::EndCleanup, &[ct], &[], &[], Loc::NONE);
        let next = self.next_eh_entry(parent_links.eh);
        self.continue_unwind(after, token, next, Loc::NONE);
        Ok(())
    }

    // ---- leaving try bodies -------------------------------------------------------------

    /// The try body is done: if anything unwinds to the try, emit its dispatch block and
    /// queue its handlers.
    fn finish_try_body(&mut self, idx: FrameIdx) -> Result<(), Diagnostic> {
        let parent_links = self.container(idx).parent_links;
        let ContainerData::Try(s) = &mut self.container(idx).data else {
            unreachable!()
        };
        let (Some(dispatch), Some(token)) = (s.eh.entry, s.eh.token) else {
            s.stage = Stage::Done;
            return Ok(());
        };
        let marker = s.marker;
        let try_loc = s.loc;
        let handlers = s.handlers.clone();
        let regions = s.regions.clone();
        self.place_before(dispatch, marker);
        let mut keys = Vec::new();
        let mut targets = Vec::new();
        let mut jobs = Vec::new();
        for (h, &r) in handlers.iter().zip(&regions) {
            match h {
                HandlerKey::Catch(_) | HandlerKey::CatchAll => {
                    let (entry, t) = self.new_token_block();
                    jobs.push(HandlerJob::Catch {
                        entry,
                        token: t,
                        region: r,
                    });
                    targets.push(entry);
                }
                HandlerKey::Unwind => {
                    if self.is_trivial_resume(r) {
                        let next = self.next_eh_entry(parent_links.eh);
                        let t = match next {
                            Some(n) => n,
                            None => self.resume_block(),
                        };
                        targets.push(t);
                    } else {
                        let (entry, t) = self.new_token_block();
                        jobs.push(HandlerJob::Plain {
                            entry,
                            token: t,
                            region: r,
                            unwind: true,
                        });
                        targets.push(entry);
                    }
                }
                HandlerKey::Filter(_) | HandlerKey::Terminate => {
                    let (entry, t) = self.new_token_block();
                    jobs.push(HandlerJob::Plain {
                        entry,
                        token: t,
                        region: r,
                        unwind: false,
                    });
                    targets.push(entry);
                }
            }
            keys.push(*h);
        }
        let terminal = keys.last().is_some_and(|k| {
            matches!(
                k,
                HandlerKey::CatchAll | HandlerKey::Unwind | HandlerKey::Terminate
            )
        });
        if !terminal {
            let t = match self.next_eh_entry(parent_links.eh) {
                Some(n) => n,
                None => self.resume_block(),
            };
            keys.push(HandlerKey::Unwind);
            targets.push(t);
        }
        let extra = self.func.dfg.make_extra(ExtraData::Handlers(keys));
        let succs: Vec<(Block, &[Value])> = targets.iter().map(|&b| (b, &[] as &[Value])).collect();
        self.append(
            dispatch,
            OpKind::EhDispatch { keys: extra },
            &[token],
            &[],
            &succs,
            try_loc,
        );
        let ContainerData::Try(s) = &mut self.container(idx).data else {
            unreachable!()
        };
        s.jobs = jobs;
        s.next_job = 0;
        Ok(())
    }

    /// Starts the next handler of a try (or finishes the try).
    fn next_handler(&mut self, idx: FrameIdx) -> Result<(), Diagnostic> {
        let c = self.container(idx);
        let cont = c.cont;
        let parent_links = c.parent_links;
        let ContainerData::Try(s) = &mut c.data else {
            unreachable!()
        };
        let marker = s.marker;
        if s.next_job >= s.jobs.len() {
            s.stage = Stage::Done;
            return Ok(());
        }
        let job = match &s.jobs[s.next_job] {
            HandlerJob::Catch {
                entry,
                token,
                region,
            } => HandlerJob::Catch {
                entry: *entry,
                token: *token,
                region: *region,
            },
            HandlerJob::Plain {
                entry,
                token,
                region,
                unwind,
            } => HandlerJob::Plain {
                entry: *entry,
                token: *token,
                region: *region,
                unwind: *unwind,
            },
        };
        s.next_job += 1;
        match job {
            HandlerJob::Catch {
                entry,
                token,
                region,
            } => {
                self.place_before(entry, marker);
                let Some(r0) = self.func.layout.entry_block(region) else {
                    return Err(Diagnostic::error(
                        Loc::NONE,
                        "catch handler region is empty",
                    ));
                };
                self.take_handler_token(r0, token);
                let ct = self.types().catch_token;
                let first = self.func.layout.first_op(r0);
                let catch_param =
                    first.filter(|&op| matches!(self.func.dfg.kind(op), OpKind::CatchParam));
                let begin = match catch_param {
                    Some(cp) => {
                        let param = self.func.dfg.result(cp);
                        let ty = self.func.dfg.value_type(param);
                        let cp_loc = self.func.dfg.loc(cp);
                        self.func.layout.remove_op(cp);
                        let begin = self.append(
                            entry,
                            OpKind::BeginCatch,
                            &[token],
                            &[ct, ty],
                            &[],
                            cp_loc,
                        );
                        let exn = self.func.dfg.results(begin)[1];
                        self.set_alias(param, exn);
                        begin
                    }
                    None => self.append(entry, OpKind::BeginCatch, &[token], &[ct], &[], Loc::NONE),
                };
                let catch_token = self.func.dfg.results(begin)[0];
                let range = self.region_range.get(&region).copied();
                let blocks = move_region_after(self.func, region, entry);
                self.br(
                    entry,
                    blocks.first().copied().unwrap_or(cont),
                    &[],
                    Loc::NONE,
                );
                let my = self.frames.len();
                let (_, parent_catch_all) = self.eh_flags(parent_links.eh);
                let state = CleanupState {
                    source: CleanupSource::EndCatch(catch_token),
                    range,
                    anchor: marker,
                    normal_entry: None,
                    exits: Vec::new(),
                    eh: EhState::new(true, parent_catch_all, parent_links.area),
                    stage: Stage::Body,
                    eh_region: None,
                };
                let links = Links {
                    normal_cleanup: Some(my),
                    eh: EhScope::Frame(my),
                    ..parent_links
                };
                let data = ContainerData::Cleanup(state);
                self.push_one_region(cont, parent_links, blocks, links, my, data);
            }
            HandlerJob::Plain {
                entry,
                token,
                region,
                unwind,
            } => {
                self.place_before(entry, marker);
                let Some(r0) = self.func.layout.entry_block(region) else {
                    return Err(Diagnostic::error(Loc::NONE, "handler region is empty"));
                };
                self.take_handler_token(r0, token);
                let blocks = move_region_after(self.func, region, entry);
                self.br(entry, r0, &[], Loc::NONE);
                let resume_to = if unwind {
                    let next = self.next_eh_entry(parent_links.eh);
                    ResumeTo::Unwind { token, next }
                } else {
                    ResumeTo::Invalid
                };
                let links = Links::for_eh_region(parent_links, resume_to);
                let mut worklist = blocks;
                worklist.reverse();
                self.frames.push(Frame::Region(RegionFrame {
                    worklist,
                    links,
                    role: Role::NoExit,
                    switch_owner: None,
                }));
            }
        }
        Ok(())
    }

    /// A handler region may declare the token as its entry block's parameter; it becomes
    /// the token of the new handler entry block.
    fn take_handler_token(&mut self, r0: Block, token: Value) {
        let params = self.func.dfg.block_params(r0).to_vec();
        for p in params {
            self.set_alias(p, token);
        }
        self.func.dfg.clear_block_params(r0);
    }

    // ---- finishing -----------------------------------------------------------------------

    fn finish(&mut self) {
        let marker = self.fn_marker();
        if let Some(ret) = self.ret_block {
            self.place_before(ret, marker);
        }
        self.func.layout.remove_block(marker);
        self.resolve_aliases();
        self.remove_unreachable_blocks();
        self.skip_forwarding_blocks();
        self.remove_unreachable_blocks();
        self.merge_straight_line_blocks();
        // Allocas first: hoisted ones in program order, then the synthesized slots.
        let front: Vec<Op> = self
            .hoisted
            .iter()
            .chain(self.synthesized.iter())
            .copied()
            .collect();
        let first = self.func.layout.first_op(self.entry);
        for op in front {
            match first {
                Some(f) => self.func.layout.insert_op_before(op, f),
                None => self.func.layout.append_op(op, self.entry),
            }
        }
    }

    fn body_blocks(&self) -> Vec<Block> {
        self.func.layout.blocks(self.body).collect()
    }

    fn set_alias(&mut self, from: Value, to: Value) {
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

    fn terminator(&self, b: Block) -> Option<Op> {
        self.func.layout.last_op(b)
    }

    fn remove_unreachable_blocks(&mut self) {
        // Sized once: growing the map block by block was most of this walk's cost.
        let mut reachable: SecondaryMap<Block, bool> =
            SecondaryMap::with_capacity(self.func.dfg.blocks.len());
        let mut stack = vec![self.entry];
        reachable[self.entry] = true;
        while let Some(b) = stack.pop() {
            let Some(term) = self.terminator(b) else {
                continue;
            };
            for s in self.func.dfg.successor_blocks(term) {
                if !reachable[s] {
                    reachable[s] = true;
                    stack.push(s);
                }
            }
        }
        for b in self.body_blocks() {
            if !reachable[b] {
                self.func.layout.remove_block(b);
            }
        }
    }

    /// Redirects edges to blocks that only branch on (no parameters, one `cir.br`).
    fn skip_forwarding_blocks(&mut self) {
        let blocks = self.body_blocks();
        let mut forward: HashMap<Block, Successor> = HashMap::default();
        for &b in &blocks {
            if b == self.entry || !self.func.dfg.block_params(b).is_empty() {
                continue;
            }
            let (Some(first), Some(last)) =
                (self.func.layout.first_op(b), self.func.layout.last_op(b))
            else {
                continue;
            };
            if first == last
                && matches!(self.func.dfg.kind(first), OpKind::Br)
                && let Some(&s) = self.func.dfg.successors(first).first()
            {
                forward.insert(b, s);
            }
        }
        if forward.is_empty() {
            return;
        }
        // The final (block, args) of each forwarding chain, memoized so that long chains
        // cost linear time; blocks on a cycle of forwarders stay as they are.
        let mut resolved: HashMap<Block, Option<(Block, Vec<Value>)>> = HashMap::default();
        let starts: Vec<Block> = blocks
            .iter()
            .copied()
            .filter(|b| forward.contains_key(b))
            .collect();
        // The walk that last visited each block, to detect cycles without a set per walk.
        let mut visited_by: SecondaryMap<Block, u32> = SecondaryMap::new();
        let mut path = Vec::new();
        for (walk, start) in starts.into_iter().enumerate() {
            let walk = walk as u32 + 1;
            if resolved.contains_key(&start) {
                continue;
            }
            path.clear();
            let mut cur = start;
            let result = loop {
                if let Some(r) = resolved.get(&cur) {
                    break r.clone();
                }
                let Some(&s) = forward.get(&cur) else {
                    unreachable!("only forwarders are walked");
                };
                if visited_by[cur] == walk {
                    break None;
                }
                visited_by[cur] = walk;
                path.push(cur);
                let next = self.func.dfg.successor_block(s);
                if !forward.contains_key(&next) {
                    break Some((next, self.func.dfg.successor_args(s).to_vec()));
                }
                cur = next;
            };
            for &b in &path {
                resolved.insert(b, result.clone());
            }
        }
        let resolved: HashMap<Block, (Block, Vec<Value>)> = resolved
            .into_iter()
            .filter_map(|(b, r)| r.map(|r| (b, r)))
            .collect();
        for &b in &blocks {
            let Some(term) = self.terminator(b) else {
                continue;
            };
            let is_dispatch = matches!(self.func.dfg.kind(term), OpKind::EhDispatch { .. });
            let succs = self.func.dfg.successors(term).to_vec();
            for s in succs {
                let target = self.func.dfg.successor_block(s);
                if !self.func.dfg.successor_args(s).is_empty() {
                    continue;
                }
                if let Some((t, args)) = resolved.get(&target) {
                    if is_dispatch
                        && (!args.is_empty() || !self.func.dfg.block_params(*t).is_empty())
                    {
                        continue;
                    }
                    // A `cir.try_call`'s results exist only past its edge: they cannot be
                    // arguments of the edge itself.
                    let own_result = args.iter().any(|&a| {
                        matches!(self.func.dfg.value_def(a), ValueDef::Result(op, _) if op == term)
                    });
                    if own_result {
                        continue;
                    }
                    let (t, args) = (*t, args.clone());
                    self.func.dfg.set_successor(s, t, &args);
                }
            }
        }
    }

    /// Appends a block to its only predecessor when that predecessor ends with a plain
    /// `cir.br` to it. Chains are appended to their first block, so every op moves once.
    fn merge_straight_line_blocks(&mut self) {
        let blocks = self.body_blocks();
        let mut preds: SecondaryMap<Block, u32> = SecondaryMap::new();
        for &b in &blocks {
            if let Some(term) = self.terminator(b) {
                for s in self.func.dfg.successor_blocks(term) {
                    preds[s] += 1;
                }
            }
        }
        // The block `b`'s terminator would merge into it, if any.
        let merge_target = |f: &Function, b: Block| -> Option<Block> {
            let term = f.layout.last_op(b)?;
            if !matches!(f.dfg.kind(term), OpKind::Br) {
                return None;
            }
            let &s = f.dfg.successors(term).first()?;
            let t = f.dfg.successor_block(s);
            let ok = t != b
                && t != self.entry
                && preds[t] == 1
                && f.dfg.block_params(t).is_empty()
                && f.dfg.successor_args(s).is_empty();
            ok.then_some(t)
        };
        let mut absorbed: SecondaryMap<Block, bool> = SecondaryMap::new();
        for &b in &blocks {
            if let Some(t) = merge_target(self.func, b) {
                absorbed[t] = true;
            }
        }
        for &head in &blocks {
            if absorbed[head] {
                continue;
            }
            while let Some(t) = merge_target(self.func, head) {
                let term = self
                    .terminator(head)
                    .expect("merge target implies a terminator");
                self.func.layout.remove_op(term);
                if let Some(first) = self.func.layout.first_op(t) {
                    self.func.layout.split_ops_to(first, head);
                }
                self.func.layout.remove_block(t);
            }
        }
    }
}
