//! `eh-abi-lowering=msvc`: lowers a flat function's ABI-agnostic EH ops to the Microsoft
//! C++ funclet model (`__CxxFrameHandler3`), the one LLVM's `catchswitch`, `catchpad`,
//! `cleanuppad` and their `ret`s express.
//!
//! Rewrites:
//! - `cir.eh.initiate` is dropped: an unwind edge (of `cir.try_call`, or of a `cir.throw`
//!   with an unwind destination) goes straight to the first EH action its exception meets,
//!   following the token through branches. Blocks left on the way become unreachable and
//!   are removed.
//! - An EH cleanup, `cir.begin_cleanup … cir.end_cleanup`, becomes `cir.cleanuppad within
//!   P … cir.cleanupret from %pad unwind to ^next | caller`. Code that runs on the unwind
//!   path outside any `begin_cleanup` (a `cir.try` `unwind` handler with code) becomes a
//!   cleanuppad too; its `cir.resume`s and its branches into the next EH action become
//!   `cir.cleanupret`. A cleanup whose only work is `cir.end_catch` (how flat CIR ends a
//!   catch when an exception leaves it) disappears: on this ABI the runtime ends the catch
//!   when the exception unwinds out of the catch funclet.
//! - `cir.eh.dispatch` becomes `cir.catchswitch within P [handlers] unwind to ^next |
//!   caller`, with one handler block per `catch`/`catch_all` key. Each handler's
//!   `cir.begin_catch` becomes `cir.catchpad within %cs [@desc, ADJ, %slot]`: `@desc` is
//!   the Microsoft RTTI TypeDescriptor of the caught type
//!   ([`ehir_core::abi::type_names::type_descriptor_name`]: `_ZTIi` → `??_R0H@8`); a
//!   catch-all is `[null, 64, null]`; a typed catch whose exception pointer is used
//!   catches by reference (adjectives 8) into a fresh `!cir.ptr<T>` slot that the
//!   handler loads the pointer from (the pointer `cir.begin_catch` yielded, as
//!   Itanium's `__cxa_begin_catch` does); otherwise `[@desc, 0, null]`. A caught
//!   pointer is caught by value (the runtime copies the pointer into the slot), and its
//!   pointee's qualifiers are adjectives (1 const, 2 volatile) rather than part of the
//!   TypeDescriptor ([`catch_type_descriptor`]), as MSVC encodes them. The normal-path
//!   `cir.end_catch` becomes `cir.catchret from %pad to ^continuation`.
//! - Dispatch keys: a `filter` (dynamic exception specification) is ignored, as MSVC and
//!   clang for the Microsoft ABI do: the exception keeps unwinding through the `unwind`
//!   key. A dispatch with no catch key is not a catchswitch: its exception goes on to what
//!   its `unwind`/`terminate` key names.
//! - `noexcept` boundaries (a dispatch's `terminate` key, `cir.eh.terminate`) reproduce
//!   g++, as the Itanium lowering does. When the boundary is the first handler an
//!   exception meets, its unwind edge goes straight to a terminate handler: `cir.catchswitch
//!   within P [^h] unwind to caller` and `^h: cir.catchpad [null, 64, null]` +
//!   `cir.eh.terminate`; the runtime's search stops there and none of this frame's
//!   cleanups run (the Itanium lowering's catch-all landing pad). When a catch comes first
//!   and does not match, the boundary is a terminate funclet, `cir.cleanuppad within P` +
//!   `cir.eh.terminate` (clang's form): the search goes on, and the cleanups inside the try
//!   run only if an outer frame catches. A catchswitch whose unmatched exceptions would
//!   meet only cleanups before the boundary unwinds straight to that terminate funclet, so
//!   the cleanups between the try and the boundary never run (g++ calls `std::terminate`
//!   right after the failed match). One of each per parent funclet; the LLVM emitter calls
//!   `std::terminate` (`?terminate@@YAXXZ` / `__std_terminate`) there.
//! - Parent tokens: a pad reached by an exception raised inside a catch handler is `within`
//!   that handler's catchpad, unless the path ends the catch first (then it is within the
//!   catch's own parent). A `catch_all` catchswitch never unwinds; it is given the unwind
//!   destination of its handlers' exits (so all exits of its pads agree), else the caller.
//! - A may-throw call inside a cleanup funclet whose exception would terminate the program
//!   becomes a plain `cir.call`: the Microsoft runtime itself terminates when an exception
//!   escapes a destructor during unwinding (clang emits no terminate scope in MSVC cleanups,
//!   and LLVM rejects EH pads nested in a C++ cleanup funclet; wine's msvcrt re-enters the
//!   cleanup instead, but C++ destructors are `noexcept`, so C++ code never gets there).
//!   An unwind edge whose exception leaves the function becomes a plain call (or a
//!   `cir.throw` without unwind destination).
//! - Funclet hygiene: a block reached from two funclets is duplicated (LLVM's
//!   `cloneCommonBlocks`); a value defined in one funclet and used in another goes through
//!   memory (an entry-block alloca, a store after the definition, a load before the use),
//!   except allocas (frame addresses are valid in every funclet), EH tokens, and constants
//!   and global addresses, which are re-materialized.
//! - The function gets the personality `__CxxFrameHandler3` (when it has a pad) and the
//!   phase `msvc`.
//!
//! Not expressible (reported as errors): an exception raised inside a cleanup funclet that
//! is handled in the same function (`cir.try` inside a cleanup region), a catch handler
//! whose exits unwind somewhere other than its dispatch's unmatched exceptions (a `cir.try`
//! `unwind` handler with code next to handlers that can throw), and a pad reached from two
//! different funclets.

use super::At;
use crate::simplify_cfg::{merge_straight_line_blocks, remove_unreachable_blocks};
use ehir_core::abi::EhAbi;
use ehir_core::abi::type_names::{
    ADJECTIVE_ELLIPSIS, ADJECTIVE_REFERENCE, catch_type_descriptor, msvc_type_code,
};
use ehir_core::analysis::funclet_colors;
use ehir_core::{
    Block, Diagnostic, Function, HandlerKey, Loc, Module, ModuleCtx, Op, OpKind, Phase, Successor,
    Symbol, Type, TypeData, Value, ValueDef,
};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// Lowers one function from the flat phase to the MSVC phase. Functions already in the
/// MSVC phase are left alone; declarations only change phase.
pub fn lower_function(ctx: &mut ModuleCtx, func: &mut Function) -> Result<(), Diagnostic> {
    if !super::needs_lowering(ctx, func, EhAbi::Msvc)? {
        return Ok(());
    }
    let mut lowering = Lowering::new(ctx, func);
    lowering.run()
}

/// The first function of `module` (in module order) with a dynamic exception
/// specification — a `filter` handler of a structured `cir.try` or a flat
/// `cir.eh.dispatch` — which this lowering ignores, as MSVC does: at the MSVC phase such a
/// program behaves differently from the Itanium phases by design (an exception the
/// specification forbids passes through instead of calling `std::unexpected`).
pub fn ignored_exception_specification(module: &Module) -> Option<Symbol> {
    module.functions.values().find_map(|func| {
        func.walk_ops()
            .into_iter()
            .any(|op| match *func.dfg.kind(op) {
                OpKind::Try { handlers: keys } | OpKind::EhDispatch { keys } => func
                    .dfg
                    .handlers(keys)
                    .iter()
                    .any(|k| matches!(k, HandlerKey::Filter(_))),
                _ => false,
            })
            .then_some(func.name)
    })
}

// ---- the lowering ------------------------------------------------------------------------

/// The funclet a block belongs to, or an exception is raised in.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Funclet {
    /// The function's own code.
    Function,
    /// The catch handler begun by this `cir.begin_catch`.
    Catch(Op),
    /// The cleanup that starts at this block.
    Cleanup(Block),
}

/// The first thing an exception meets on an unwind path.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Action {
    /// A cleanup starting at this block (with `cir.begin_cleanup`, or code on the unwind
    /// path outside any cleanup marker).
    Cleanup(Block),
    /// A `cir.eh.dispatch`.
    Dispatch(Op),
    /// `std::terminate` (`cir.eh.terminate` or a dispatch's `terminate` key).
    Terminate,
    /// `cir.resume`: the exception leaves the function.
    Caller,
}

/// Where an unwind edge goes after lowering.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Target {
    Caller,
    /// The block of a cleanuppad or catchswitch.
    Pad(Block),
    /// A terminate funclet (`cir.cleanuppad` + `cir.eh.terminate`) nested in this funclet:
    /// reached after a dispatch found no handler.
    Terminate(Funclet),
    /// A terminate handler (a catch-all catchswitch whose handler terminates) nested in this
    /// funclet: for an exception whose first handler is the `noexcept` boundary.
    DirectTerminate(Funclet),
}

/// How control leaves a cleanup towards the next EH action.
#[derive(Copy, Clone, Debug)]
enum ExitKind {
    /// `cir.end_cleanup` (followed by the block's terminator).
    EndCleanup(Op),
    /// Successor `n` of the block's terminator enters an EH action block.
    Edge(usize),
    /// A `cir.resume`.
    Resume(Op),
}

/// An exit of a cleanup pad and where it unwinds.
type CleanupExit = (Block, ExitKind, Target);

#[derive(Clone, Debug)]
struct CleanupInfo {
    /// `Some(begin_cleanup)` for an explicit cleanup.
    begin: Option<Op>,
    blocks: Vec<Block>,
    /// Only `cir.end_catch`es: no pad is needed.
    transparent: bool,
    /// The catches this cleanup ends (`cir.begin_catch` ops).
    pops: Vec<Op>,
    exits: Vec<(Block, ExitKind)>,
}

struct Lowering<'a> {
    ctx: &'a mut ModuleCtx,
    func: &'a mut Function,
    /// The funclet each cleanup and dispatch was entered from (its parent).
    arrival: BTreeMap<Action, Funclet>,
    /// The dispatch whose handler each `cir.begin_catch` begins.
    catch_dispatch: BTreeMap<Op, Op>,
    cleanups: BTreeMap<Block, Rc<CleanupInfo>>,
    /// Memoized [`Lowering::chain_end`] results.
    chain_ends: BTreeMap<Action, Action>,
    /// Values with at least one use, before rewriting.
    used: BTreeSet<Value>,
    /// Replacements of values, applied after rewriting.
    replace: BTreeMap<Value, Value>,
    colors: BTreeMap<Block, BTreeSet<Funclet>>,
    /// Every raise point, the funclet it is in and where its exception goes.
    raises: Vec<(Op, Funclet, Target)>,
    /// The exits of each cleanup pad and where they go.
    cleanup_exits: BTreeMap<Block, Vec<CleanupExit>>,
    /// The unwind destination of each catchswitch (`None`: catch-all, decided from exits).
    dispatch_unwind: BTreeMap<Op, Option<Target>>,
    /// Where exceptions leaving each dispatch's handlers go, and the op that leaves.
    dispatch_exits: BTreeMap<Op, Vec<(Target, Op)>>,
    action_queue: Vec<Action>,
    block_queue: Vec<(Block, Funclet)>,
}

impl<'a> Lowering<'a> {
    fn new(ctx: &'a mut ModuleCtx, func: &'a mut Function) -> Self {
        Lowering {
            ctx,
            func,
            arrival: BTreeMap::new(),
            catch_dispatch: BTreeMap::new(),
            cleanups: BTreeMap::new(),
            chain_ends: BTreeMap::new(),
            used: BTreeSet::new(),
            replace: BTreeMap::new(),
            colors: BTreeMap::new(),
            raises: Vec::new(),
            cleanup_exits: BTreeMap::new(),
            dispatch_unwind: BTreeMap::new(),
            dispatch_exits: BTreeMap::new(),
            action_queue: Vec::new(),
            block_queue: Vec::new(),
        }
    }

    fn error_at(&self, loc: Loc, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error(if loc == Loc::NONE { self.func.loc } else { loc }, message)
    }

    fn error(&self, op: Op, message: impl Into<String>) -> Diagnostic {
        self.error_at(self.func.dfg.loc(op), message)
    }

    fn block_error(&self, block: Block, message: impl Into<String>) -> Diagnostic {
        let loc = self.func.dfg.blocks[block].loc;
        let loc = if loc != Loc::NONE {
            loc
        } else {
            self.func
                .layout
                .first_op(block)
                .map(|op| self.func.dfg.loc(op))
                .unwrap_or(Loc::NONE)
        };
        self.error_at(loc, message)
    }

    fn blocks(&self) -> Vec<Block> {
        match self.func.body {
            Some(body) => self.func.layout.blocks(body).collect(),
            None => Vec::new(),
        }
    }

    fn kind(&self, op: Op) -> OpKind {
        *self.func.dfg.kind(op)
    }

    fn is_type(&self, v: Value, want: fn(&TypeData) -> bool) -> bool {
        want(self.ctx.types.get(self.func.dfg.value_type(v)))
    }

    fn is_eh_token(&self, v: Value) -> bool {
        self.is_type(v, |t| matches!(t, TypeData::EhToken))
    }

    fn run(&mut self) -> Result<(), Diagnostic> {
        self.split_blocks();
        let entry = self
            .func
            .entry_block()
            .ok_or_else(|| self.error_at(self.func.loc, "function body has no entry block"))?;
        self.block_queue.push((entry, Funclet::Function));
        loop {
            if let Some((block, funclet)) = self.block_queue.pop() {
                self.visit_block(block, funclet)?;
            } else if let Some(action) = self.action_queue.pop() {
                self.visit_action(action)?;
            } else {
                break;
            }
        }
        self.decide_catch_all_unwinds()?;
        self.rewrite()?;
        self.remove_token_params()?;
        if let Some(body) = self.func.body {
            remove_unreachable_blocks(self.func, body);
            merge_straight_line_blocks(self.func, body);
        }
        self.check_no_flat_ops()?;
        self.clone_shared_blocks()?;
        self.demote_cross_funclet_values()?;
        let has_pad = self.func.walk_ops().into_iter().any(|op| {
            matches!(
                self.func.dfg.kind(op),
                OpKind::CatchSwitch { .. } | OpKind::CleanupPad
            )
        });
        if has_pad {
            self.func.personality = Some(self.ctx.sym(EhAbi::Msvc.personality()));
        }
        self.func.phase = Phase::Msvc;
        Ok(())
    }

    // ---- preparation ---------------------------------------------------------------------

    /// Splits blocks so that every `cir.begin_cleanup` and `cir.eh.dispatch` begins its
    /// block and every `cir.eh.initiate`, `cir.end_cleanup` and `cir.end_catch` is directly
    /// followed by its block's terminator.
    fn split_blocks(&mut self) {
        let mut work: Vec<Block> = self.blocks();
        work.reverse();
        while let Some(block) = work.pop() {
            let ops: Vec<Op> = self.func.layout.ops(block).collect();
            for (i, &op) in ops.iter().enumerate() {
                let kind = self.kind(op);
                let split_before = match kind {
                    OpKind::BeginCleanup | OpKind::EhDispatch { .. } => i > 0,
                    _ => false,
                };
                let split_after = matches!(
                    kind,
                    OpKind::EhInitiate { .. } | OpKind::EndCleanup | OpKind::EndCatch
                ) && ops
                    .get(i + 1)
                    .is_some_and(|&next| !self.func.dfg.kind(next).is_terminator());
                let at = if split_before {
                    Some(op)
                } else if split_after {
                    ops.get(i + 1).copied()
                } else {
                    None
                };
                if let Some(at) = at {
                    let new = self.split_before(block, at);
                    work.push(new);
                    break;
                }
            }
        }
    }

    /// Moves `at` and the ops after it to a new block placed after `block`, which now
    /// branches there.
    fn split_before(&mut self, block: Block, at: Op) -> Block {
        let loc = self.func.dfg.loc(at);
        let new = self.func.dfg.make_block();
        self.func.layout.insert_block_after(new, block);
        self.func.layout.split_ops_to(at, new);
        let br = self
            .func
            .dfg
            .make_op(OpKind::Br, &[], &[], &[(new, &[])], 0, loc);
        self.func.layout.append_op(br, block);
        new
    }

    // ---- analysis ------------------------------------------------------------------------

    /// The unwind successor of a raise point, if it is one.
    fn unwind_successor(&self, op: Op) -> Option<Successor> {
        match self.kind(op) {
            OpKind::TryCall { .. } => self.func.dfg.successors(op).get(1).copied(),
            OpKind::Throw { .. } => self.func.dfg.successors(op).first().copied(),
            _ => None,
        }
    }

    /// The successors of a terminator that normal control flow takes (all but unwind edges).
    fn normal_successors(&self, op: Op) -> Vec<Block> {
        let dfg = &self.func.dfg;
        match self.kind(op) {
            OpKind::TryCall { .. } => dfg.successor_blocks(op).take(1).collect(),
            OpKind::Throw { .. } => Vec::new(),
            _ => dfg.successor_blocks(op).collect(),
        }
    }

    /// Whether a block starts an EH action that a branch may enter (a cleanup with its
    /// `cir.begin_cleanup`, or a dispatch).
    fn is_action_block(&self, block: Block) -> bool {
        self.func.layout.first_op(block).is_some_and(|op| {
            matches!(
                self.func.dfg.kind(op),
                OpKind::BeginCleanup | OpKind::EhDispatch { .. }
            )
        })
    }

    /// Follows an unwind path from the start of `start` to the first EH action.
    fn walk(&self, start: Block) -> Result<Action, Diagnostic> {
        let mut block = start;
        let mut seen = BTreeSet::new();
        loop {
            if !seen.insert(block) {
                return Err(self.block_error(
                    start,
                    "this unwind path loops without reaching an EH action",
                ));
            }
            let mut op = self
                .func
                .layout
                .first_op(block)
                .ok_or_else(|| self.block_error(block, "empty block on an unwind path"))?;
            if matches!(self.kind(op), OpKind::EhInitiate { .. }) {
                op =
                    self.func.layout.next_op(op).ok_or_else(|| {
                        self.error(op, "cir.eh.initiate must be followed by code")
                    })?;
            }
            match self.kind(op) {
                OpKind::BeginCleanup => return Ok(Action::Cleanup(block)),
                OpKind::EhDispatch { .. } => return Ok(Action::Dispatch(op)),
                OpKind::Resume => return Ok(Action::Caller),
                OpKind::EhTerminate => return Ok(Action::Terminate),
                OpKind::Br => {
                    block = self
                        .func
                        .dfg
                        .successor_blocks(op)
                        .next()
                        .ok_or_else(|| self.error(op, "cir.br without a destination"))?;
                }
                _ => {
                    if self.func.layout.first_op(block) != Some(op) {
                        return Err(self.error(
                            op,
                            "eh-abi-lowering=msvc: unexpected op right after cir.eh.initiate",
                        ));
                    }
                    return Ok(Action::Cleanup(block));
                }
            }
        }
    }

    /// The blocks, exits and nature of the cleanup starting at `start` (computed once).
    fn cleanup_info(&mut self, start: Block) -> Result<Rc<CleanupInfo>, Diagnostic> {
        if let Some(info) = self.cleanups.get(&start) {
            return Ok(Rc::clone(info));
        }
        let first = self.func.layout.first_op(start);
        let begin = first.filter(|&op| matches!(self.kind(op), OpKind::BeginCleanup));
        let token = begin.and_then(|op| self.func.dfg.results(op).first().copied());
        let mut blocks = Vec::new();
        let mut seen = BTreeSet::new();
        let mut stack = vec![start];
        let mut exits = Vec::new();
        let mut pops = Vec::new();
        let mut transparent = begin.is_some();
        seen.insert(start);
        while let Some(block) = stack.pop() {
            blocks.push(block);
            let mut ended = false;
            for op in self.func.layout.ops(block) {
                if ended {
                    // The terminator after `cir.end_cleanup` leads to the next action.
                    continue;
                }
                match self.kind(op) {
                    OpKind::BeginCleanup if Some(op) == begin => {}
                    OpKind::EndCleanup
                        if begin.is_some()
                            && self.func.dfg.operands(op).first().copied() == token =>
                    {
                        exits.push((block, ExitKind::EndCleanup(op)));
                        ended = true;
                    }
                    OpKind::EndCatch => {
                        let catch = self
                            .func
                            .dfg
                            .operands(op)
                            .first()
                            .and_then(|&t| match self.func.dfg.value_def(t) {
                                ValueDef::Result(c, 0)
                                    if matches!(self.kind(c), OpKind::BeginCatch) =>
                                {
                                    Some(c)
                                }
                                _ => None,
                            })
                            .ok_or_else(|| {
                                self.error(op, "cir.end_catch must take a cir.begin_catch token")
                            })?;
                        pops.push(catch);
                    }
                    OpKind::Br => {}
                    OpKind::Resume => {
                        if begin.is_some() {
                            return Err(self.error(
                                op,
                                "cir.resume inside a cleanup before its cir.end_cleanup",
                            ));
                        }
                        exits.push((block, ExitKind::Resume(op)));
                        transparent = false;
                    }
                    _ => transparent = false,
                }
            }
            if ended {
                continue;
            }
            let Some(term) = self.func.layout.last_op(block) else {
                continue;
            };
            if matches!(self.kind(term), OpKind::Resume) {
                continue;
            }
            for (i, succ) in self.normal_successors(term).into_iter().enumerate() {
                if self.is_action_block(succ) {
                    exits.push((block, ExitKind::Edge(i)));
                    continue;
                }
                if seen.insert(succ) {
                    stack.push(succ);
                }
            }
        }
        let info = Rc::new(CleanupInfo {
            begin,
            blocks,
            transparent,
            pops,
            exits,
        });
        self.cleanups.insert(start, Rc::clone(&info));
        Ok(info)
    }

    /// The action an exit of a cleanup leads to.
    fn exit_action(&self, block: Block, exit: ExitKind) -> Result<Action, Diagnostic> {
        match exit {
            ExitKind::Resume(_) => Ok(Action::Caller),
            ExitKind::Edge(i) => {
                let term = self
                    .func
                    .layout
                    .last_op(block)
                    .ok_or_else(|| self.block_error(block, "block without terminator"))?;
                let succ = self.normal_successors(term)[i];
                self.walk(succ)
            }
            ExitKind::EndCleanup(op) => {
                let term =
                    self.func.layout.next_op(op).ok_or_else(|| {
                        self.error(op, "cir.end_cleanup must be followed by code")
                    })?;
                match self.kind(term) {
                    OpKind::Br => {
                        let succ = self
                            .func
                            .dfg
                            .successor_blocks(term)
                            .next()
                            .ok_or_else(|| self.error(term, "cir.br without a destination"))?;
                        self.walk(succ)
                    }
                    OpKind::Resume => Ok(Action::Caller),
                    OpKind::EhTerminate => Ok(Action::Terminate),
                    _ => Err(self.error(
                        term,
                        format!(
                            "eh-abi-lowering=msvc: {} after cir.end_cleanup is not supported (expected cir.br, cir.resume or cir.eh.terminate)",
                            self.kind(term).name()
                        ),
                    )),
                }
            }
        }
    }

    /// The funclet around `funclet`.
    fn parent(&self, funclet: Funclet) -> Option<Funclet> {
        match funclet {
            Funclet::Function => None,
            Funclet::Catch(c) => {
                let dispatch = self.catch_dispatch.get(&c)?;
                self.arrival.get(&Action::Dispatch(*dispatch)).copied()
            }
            Funclet::Cleanup(b) => self.arrival.get(&Action::Cleanup(b)).copied(),
        }
    }

    /// The innermost funclet left after ending catch `catch` from inside `stack`.
    fn pop(&self, stack: Funclet, catch: Op, site: Op) -> Result<Funclet, Diagnostic> {
        let mut cur = stack;
        for _ in 0..=self.catch_dispatch.len() + self.arrival.len() {
            if cur == Funclet::Catch(catch) {
                return self
                    .parent(cur)
                    .ok_or_else(|| self.error(site, "catch handler without a dispatch"));
            }
            match self.parent(cur) {
                Some(p) => cur = p,
                None => break,
            }
        }
        Err(self.error(
            site,
            "eh-abi-lowering=msvc: this cir.end_catch ends a catch that is not active on this unwind path",
        ))
    }

    fn dispatch_keys(&self, dispatch: Op) -> Vec<HandlerKey> {
        match self.kind(dispatch) {
            OpKind::EhDispatch { keys } => self.func.dfg.handlers(keys).to_vec(),
            _ => Vec::new(),
        }
    }

    fn has_catch_keys(&self, dispatch: Op) -> bool {
        self.dispatch_keys(dispatch)
            .iter()
            .any(|k| matches!(k, HandlerKey::Catch(_) | HandlerKey::CatchAll))
    }

    /// Where a dispatch sends exceptions no catch key takes: `Some(action)` for `unwind`
    /// and `terminate` keys (a `filter` is ignored on this ABI), `None` after a catch-all.
    fn dispatch_next(&self, dispatch: Op) -> Result<Option<Action>, Diagnostic> {
        let keys = self.dispatch_keys(dispatch);
        let succs: Vec<Block> = self.func.dfg.successor_blocks(dispatch).collect();
        if keys.len() != succs.len() {
            return Err(self.error(dispatch, "cir.eh.dispatch needs one destination per key"));
        }
        for (key, &succ) in keys.iter().zip(&succs) {
            match key {
                HandlerKey::Unwind => return Ok(Some(self.walk(succ)?)),
                HandlerKey::Terminate => return Ok(Some(Action::Terminate)),
                HandlerKey::CatchAll => return Ok(None),
                HandlerKey::Catch(_) | HandlerKey::Filter(_) => {}
            }
        }
        Ok(Some(Action::Caller))
    }

    /// Follows `action` from an exception raised in `stack` to the pad it enters (skipping
    /// cleanups that only end catches and dispatches without catch keys). Returns the target
    /// and the innermost funclet still active there.
    fn resolve(
        &mut self,
        mut action: Action,
        mut stack: Funclet,
        site: Op,
    ) -> Result<(Target, Funclet), Diagnostic> {
        let mut seen = BTreeSet::new();
        loop {
            if !seen.insert(action) {
                return Err(self.error(site, "this unwind path loops without reaching a handler"));
            }
            match action {
                Action::Caller => return Ok((Target::Caller, stack)),
                Action::Terminate => return Ok((Target::Terminate(stack), stack)),
                Action::Cleanup(block) => {
                    let info = self.cleanup_info(block)?;
                    if info.transparent {
                        for &catch in &info.pops {
                            stack = self.pop(stack, catch, site)?;
                        }
                        let (exit_block, exit) = *info.exits.first().ok_or_else(|| {
                            self.block_error(block, "this cleanup never ends (no cir.end_cleanup)")
                        })?;
                        action = self.exit_action(exit_block, exit)?;
                        continue;
                    }
                    self.arrive(action, stack, site)?;
                    return Ok((Target::Pad(block), stack));
                }
                Action::Dispatch(dispatch) => {
                    if !self.has_catch_keys(dispatch) {
                        action = self.dispatch_next(dispatch)?.unwrap_or(Action::Caller);
                        continue;
                    }
                    self.arrive(action, stack, site)?;
                    let block = self
                        .func
                        .layout
                        .op_block(dispatch)
                        .ok_or_else(|| self.error(dispatch, "dispatch is not placed"))?;
                    return Ok((Target::Pad(block), stack));
                }
            }
        }
    }

    /// Where an exception that meets `action` ends up if every cleanup on its way just
    /// runs: a dispatch with catch keys, `std::terminate` or the caller.
    fn chain_end(&mut self, start: Action, site: Op) -> Result<Action, Diagnostic> {
        let mut action = start;
        let mut seen = BTreeSet::new();
        let end = loop {
            if let Some(&end) = self.chain_ends.get(&action) {
                break end;
            }
            if !seen.insert(action) {
                return Err(self.error(site, "this unwind path loops without reaching a handler"));
            }
            match action {
                Action::Caller | Action::Terminate => break action,
                Action::Cleanup(block) => {
                    let info = self.cleanup_info(block)?;
                    let Some(&(exit_block, exit)) = info.exits.first() else {
                        // A cleanup that never ends (it terminates or is unreachable).
                        break Action::Terminate;
                    };
                    action = self.exit_action(exit_block, exit)?;
                }
                Action::Dispatch(dispatch) => {
                    if self.has_catch_keys(dispatch) {
                        break action;
                    }
                    action = self.dispatch_next(dispatch)?.unwrap_or(Action::Caller);
                }
            }
        };
        for a in seen {
            self.chain_ends.insert(a, end);
        }
        self.chain_ends.insert(start, end);
        Ok(end)
    }

    /// Records that an exception from `stack` enters `action`'s pad.
    fn arrive(&mut self, action: Action, stack: Funclet, site: Op) -> Result<(), Diagnostic> {
        if let Funclet::Cleanup(_) = stack {
            return Err(self.error(
                site,
                "eh-abi-lowering=msvc: an exception raised inside a cleanup cannot be handled in the same function (Microsoft C++ cleanup funclets contain no EH pads)",
            ));
        }
        match self.arrival.get(&action) {
            Some(&prev) if prev != stack => Err(self.error(
                site,
                "eh-abi-lowering=msvc: this unwind path enters an EH action that is also entered from another funclet; funclet pads have one parent",
            )),
            Some(_) => Ok(()),
            None => {
                self.arrival.insert(action, stack);
                self.action_queue.push(action);
                Ok(())
            }
        }
    }

    /// Records, for each catch handler that an exception from `from` leaves before reaching
    /// `target` (with `to` still active), that its dispatch's handlers exit to `target`.
    fn record_exits(&mut self, from: Funclet, to: Funclet, target: Target, site: Op) {
        let mut cur = from;
        for _ in 0..=self.catch_dispatch.len() + self.arrival.len() {
            if cur == to {
                return;
            }
            if let Funclet::Catch(c) = cur
                && let Some(&d) = self.catch_dispatch.get(&c)
            {
                self.dispatch_exits
                    .entry(d)
                    .or_default()
                    .push((target, site));
            }
            match self.parent(cur) {
                Some(p) => cur = p,
                None => return,
            }
        }
    }

    fn visit_block(&mut self, block: Block, funclet: Funclet) -> Result<(), Diagnostic> {
        let colors = self.colors.entry(block).or_default();
        if !colors.insert(funclet) {
            return Ok(());
        }
        let shared = colors.len() > 1;
        let ops: Vec<Op> = self.func.layout.ops(block).collect();
        let mut next_funclet = funclet;
        for &op in &ops {
            if let Some(succ) = self.unwind_successor(op) {
                if shared {
                    return Err(self.error(
                        op,
                        "eh-abi-lowering=msvc: this block is reached from two funclets and may throw; it cannot be duplicated",
                    ));
                }
                let dest = self.func.dfg.successor_block(succ);
                let action = self.walk(dest)?;
                if let Funclet::Cleanup(_) = funclet {
                    // The runtime terminates when an exception escapes a cleanup funclet;
                    // cleanups between here and that termination never run (as in g++,
                    // where the noexcept destructor's frame terminates in the search phase).
                    match self.chain_end(action, op)? {
                        Action::Terminate | Action::Caller => {
                            self.raises.push((op, funclet, Target::Caller));
                        }
                        _ => {
                            return Err(self.error(
                                op,
                                "eh-abi-lowering=msvc: an exception raised inside a cleanup cannot be caught in the same function (Microsoft C++ cleanup funclets contain no EH pads)",
                            ));
                        }
                    }
                    continue;
                }
                if self.chain_end(action, op)? == Action::Terminate {
                    // The noexcept boundary is the first handler this exception meets: it
                    // terminates at once, without this frame's cleanups (as g++ does, and as
                    // the Itanium lowering's catch-all landing pad does).
                    self.raises
                        .push((op, funclet, Target::DirectTerminate(funclet)));
                    continue;
                }
                let (target, after) = self.resolve(action, funclet, op)?;
                self.record_exits(funclet, after, target, op);
                self.raises.push((op, funclet, target));
            }
            match self.kind(op) {
                OpKind::EndCatch if !matches!(funclet, Funclet::Cleanup(_)) => {
                    let token = self.func.dfg.operands(op).first().copied();
                    let catch = token.and_then(|t| match self.func.dfg.value_def(t) {
                        ValueDef::Result(c, 0) if matches!(self.kind(c), OpKind::BeginCatch) => {
                            Some(c)
                        }
                        _ => None,
                    });
                    let catch = catch.ok_or_else(|| {
                        self.error(op, "cir.end_catch must take a cir.begin_catch token")
                    })?;
                    if funclet != Funclet::Catch(catch) {
                        return Err(self.error(
                            op,
                            "eh-abi-lowering=msvc: this cir.end_catch ends a catch other than the innermost one",
                        ));
                    }
                    next_funclet = self.pop(funclet, catch, op)?;
                }
                OpKind::EhInitiate { .. }
                | OpKind::EhDispatch { .. }
                | OpKind::BeginCleanup
                | OpKind::EndCleanup
                    if !matches!(funclet, Funclet::Cleanup(_)) =>
                {
                    return Err(self.error(
                        op,
                        format!(
                            "eh-abi-lowering=msvc: {} is reachable without an exception",
                            self.kind(op).name()
                        ),
                    ));
                }
                _ => {}
            }
        }
        // A cleanup's blocks were all queued when it was entered.
        if let Funclet::Cleanup(_) = funclet {
            return Ok(());
        }
        if let Some(term) = self.func.layout.last_op(block) {
            if matches!(self.kind(term), OpKind::Resume) {
                return Err(self.error(
                    term,
                    "eh-abi-lowering=msvc: cir.resume is reachable without an exception",
                ));
            }
            for succ in self.normal_successors(term).into_iter().rev() {
                self.block_queue.push((succ, next_funclet));
            }
        }
        Ok(())
    }

    fn visit_action(&mut self, action: Action) -> Result<(), Diagnostic> {
        let stack = *self
            .arrival
            .get(&action)
            .expect("queued actions have arrived");
        match action {
            Action::Cleanup(block) => {
                let info = self.cleanup_info(block)?;
                for &b in info.blocks.iter().rev() {
                    self.block_queue.push((b, Funclet::Cleanup(block)));
                }
                let site = info
                    .begin
                    .or_else(|| self.func.layout.first_op(block))
                    .ok_or_else(|| self.block_error(block, "empty cleanup block"))?;
                let mut after = stack;
                for &catch in &info.pops {
                    after = self.pop(after, catch, site)?;
                }
                let mut exits = Vec::new();
                for &(exit_block, exit) in &info.exits {
                    let next = self.exit_action(exit_block, exit)?;
                    let (target, end) = self.resolve(next, after, site)?;
                    self.record_exits(stack, end, target, site);
                    exits.push((exit_block, exit, target));
                }
                if let Some(&(b, _, first)) = exits.first()
                    && let Some(&(_, _, other)) = exits.iter().find(|e| e.2 != first)
                {
                    return Err(self.block_error(
                        b,
                        format!(
                            "eh-abi-lowering=msvc: this cleanup continues unwinding to two places ({} and {}); a cleanup funclet has one unwind destination",
                            self.target_name(first),
                            self.target_name(other)
                        ),
                    ));
                }
                self.cleanup_exits.insert(block, exits);
            }
            Action::Dispatch(dispatch) => {
                let keys = self.dispatch_keys(dispatch);
                let succs: Vec<Block> = self.func.dfg.successor_blocks(dispatch).collect();
                for (key, &succ) in keys.iter().zip(&succs) {
                    if !matches!(key, HandlerKey::Catch(_) | HandlerKey::CatchAll) {
                        continue;
                    }
                    let begin = self
                        .func
                        .layout
                        .first_op(succ)
                        .filter(|&op| matches!(self.kind(op), OpKind::BeginCatch))
                        .ok_or_else(|| {
                            self.error(
                                dispatch,
                                "a catch key's destination must begin with cir.begin_catch",
                            )
                        })?;
                    if let Some(&other) = self.catch_dispatch.get(&begin)
                        && other != dispatch
                    {
                        return Err(self.error(
                            dispatch,
                            "eh-abi-lowering=msvc: a catch handler shared by two dispatches",
                        ));
                    }
                    self.catch_dispatch.insert(begin, dispatch);
                }
                for (key, &succ) in keys.iter().zip(&succs).rev() {
                    if !matches!(key, HandlerKey::Catch(_) | HandlerKey::CatchAll) {
                        continue;
                    }
                    if let Some(begin) = self.func.layout.first_op(succ) {
                        self.block_queue.push((succ, Funclet::Catch(begin)));
                    }
                }
                let unwind = match self.dispatch_next(dispatch)? {
                    // An exception no catch takes meets only cleanups before a noexcept
                    // boundary: g++ calls std::terminate right after the failed match,
                    // without those cleanups; so does the terminate funclet here.
                    Some(next) if self.chain_end(next, dispatch)? == Action::Terminate => {
                        Some(Target::Terminate(stack))
                    }
                    Some(next) => {
                        let (target, end) = self.resolve(next, stack, dispatch)?;
                        // Leaving the catchswitch may also leave catches around it.
                        self.record_exits(stack, end, target, dispatch);
                        Some(target)
                    }
                    None => None,
                };
                self.dispatch_unwind.insert(dispatch, unwind);
            }
            Action::Terminate | Action::Caller => {}
        }
        Ok(())
    }

    fn target_name(&self, target: Target) -> String {
        match target {
            Target::Caller => "the caller".to_string(),
            Target::Pad(b) => match self.func.layout.first_op(b).map(|op| self.kind(op)) {
                Some(OpKind::EhDispatch { .. }) => "a catch dispatch of this function".to_string(),
                _ => "a cleanup of this function".to_string(),
            },
            Target::Terminate(_) | Target::DirectTerminate(_) => "std::terminate".to_string(),
        }
    }

    /// A catch-all catchswitch never unwinds; give it the destination its handlers' exits
    /// use. Then check that every catchswitch and the exits of its handlers agree.
    fn decide_catch_all_unwinds(&mut self) -> Result<(), Diagnostic> {
        let dispatches: Vec<Op> = self.dispatch_unwind.keys().copied().collect();
        for d in dispatches {
            let exits = self.dispatch_exits.get(&d).cloned().unwrap_or_default();
            let unwind = match self.dispatch_unwind[&d] {
                Some(t) => t,
                None => exits.first().map(|e| e.0).unwrap_or(Target::Caller),
            };
            self.dispatch_unwind.insert(d, Some(unwind));
            if let Some(&(target, site)) = exits.iter().find(|e| e.0 != unwind) {
                return Err(self
                    .error(
                        site,
                        format!(
                            "eh-abi-lowering=msvc: an exception leaving this catch handler unwinds to {}, but exceptions its dispatch does not catch unwind to {}; on this ABI both must unwind to the same place",
                            self.target_name(target),
                            self.target_name(unwind)
                        ),
                    )
                    .with_note(self.func.dfg.loc(d), "dispatch here"));
            }
        }
        Ok(())
    }

    // ---- rewriting -----------------------------------------------------------------------

    fn build(
        &mut self,
        at: At,
        kind: OpKind,
        operands: &[Value],
        results: &[Type],
        successors: &[(Block, &[Value])],
        loc: Loc,
    ) -> Op {
        at.build(self.func, kind, operands, results, successors, loc)
    }

    /// The token a pad nested in `funclet` names as its parent (`None` for `within none`).
    fn parent_token(&self, funclet: Funclet) -> Result<Option<Value>, Diagnostic> {
        match funclet {
            Funclet::Function => Ok(None),
            Funclet::Catch(c) => Ok(self.func.dfg.results(c).first().copied()),
            Funclet::Cleanup(b) => Err(self.block_error(
                b,
                "eh-abi-lowering=msvc: Microsoft C++ cleanup funclets cannot contain EH pads",
            )),
        }
    }

    /// Appends a new block to the function body.
    fn append_new_block(&mut self) -> Block {
        let body = self.func.body.expect("checked");
        let block = self.func.dfg.make_block();
        self.func.layout.append_block(body, block);
        block
    }

    fn run_rewrite_targets(
        &mut self,
        terminate_pads: &mut BTreeMap<Target, Block>,
        target: Target,
    ) -> Result<Option<Block>, Diagnostic> {
        let funclet = match target {
            Target::Caller => return Ok(None),
            Target::Pad(b) => return Ok(Some(b)),
            Target::Terminate(funclet) | Target::DirectTerminate(funclet) => funclet,
        };
        if let Some(&b) = terminate_pads.get(&target) {
            return Ok(Some(b));
        }
        let parent = self.parent_token(funclet)?;
        let common = *self.ctx.types.common();
        let operands: Vec<Value> = parent.into_iter().collect();
        let loc = self.func.loc;
        let pad = if let Target::Terminate(_) = target {
            // `cir.cleanuppad within P` + `cir.eh.terminate`, the form clang emits: the
            // runtime's search phase does not stop here, so an exception no outer frame
            // catches terminates without unwinding, and one that an outer frame catches
            // runs this frame's cleanups first (g++'s behaviour after a catch that did
            // not match).
            let block = self.append_new_block();
            self.build(
                At::End(block),
                OpKind::CleanupPad,
                &operands,
                &[common.cleanup_token],
                &[],
                loc,
            );
            self.build(At::End(block), OpKind::EhTerminate, &[], &[], &[], loc);
            block
        } else {
            // `catchswitch within P [^h] unwind to caller`, `^h: catchpad [null, 64,
            // null]` + `cir.eh.terminate`: the search phase stops here, nothing of this
            // frame runs, and std::terminate is called with the exception caught (the
            // Itanium lowering's catch-all landing pad + `__cxa_begin_catch`).
            let switch_block = self.append_new_block();
            let handler = self.append_new_block();
            let switch = self.build(
                At::End(switch_block),
                OpKind::CatchSwitch {
                    unwind_to_caller: true,
                },
                &operands,
                &[common.eh_token],
                &[(handler, &[])],
                loc,
            );
            let switch_token = self.func.dfg.results(switch)[0];
            self.build(
                At::End(handler),
                OpKind::CatchPad {
                    type_desc: None.into(),
                    adjectives: ADJECTIVE_ELLIPSIS,
                    has_slot: false,
                },
                &[switch_token],
                &[common.catch_token],
                &[],
                loc,
            );
            self.build(At::End(handler), OpKind::EhTerminate, &[], &[], &[], loc);
            switch_block
        };
        terminate_pads.insert(target, pad);
        Ok(Some(pad))
    }

    fn rewrite(&mut self) -> Result<(), Diagnostic> {
        for block in self.blocks() {
            for op in self.func.layout.ops(block) {
                self.used.extend(self.func.dfg.operands(op).iter().copied());
                for &s in self.func.dfg.successors(op) {
                    self.used
                        .extend(self.func.dfg.successor_args(s).iter().copied());
                }
            }
        }
        let mut terminate_pads: BTreeMap<Target, Block> = BTreeMap::new();
        // Catchswitches and catchpads first: cleanups nested in catches name the catchpad
        // tokens, which are the begin_catch results kept in place.
        let dispatches: Vec<(Op, Target)> = self
            .dispatch_unwind
            .iter()
            .map(|(&d, &t)| (d, t.unwrap_or(Target::Caller)))
            .collect();
        for (dispatch, unwind) in dispatches {
            let stack = self.arrival[&Action::Dispatch(dispatch)];
            let parent = self.parent_token(stack)?;
            let unwind_block = self.run_rewrite_targets(&mut terminate_pads, unwind)?;
            self.rewrite_dispatch(dispatch, parent, unwind_block)?;
        }
        // Cleanups.
        let cleanups: Vec<(Block, Vec<CleanupExit>)> = self
            .cleanup_exits
            .iter()
            .map(|(&b, e)| (b, e.clone()))
            .collect();
        for (start, exits) in cleanups {
            let stack = self.arrival[&Action::Cleanup(start)];
            let parent = self.parent_token(stack)?;
            let mut resolved = Vec::new();
            for (block, exit, target) in exits {
                resolved.push((
                    block,
                    exit,
                    self.run_rewrite_targets(&mut terminate_pads, target)?,
                ));
            }
            self.rewrite_cleanup(start, parent, &resolved)?;
        }
        // Raise points.
        let raises = self.raises.clone();
        for (op, funclet, target) in raises {
            let in_cleanup = matches!(funclet, Funclet::Cleanup(_));
            let dest = match target {
                Target::Terminate(Funclet::Cleanup(_)) | Target::Caller => None,
                _ if in_cleanup => {
                    return Err(self.error(
                        op,
                        "eh-abi-lowering=msvc: an exception raised inside a cleanup cannot be handled in the same function",
                    ));
                }
                t => self.run_rewrite_targets(&mut terminate_pads, t)?,
            };
            self.rewrite_raise(op, dest);
        }
        // Normal-path end_catch → catchret.
        let ends: Vec<(Block, Op, Op)> = self
            .colors
            .iter()
            .filter_map(|(&b, colors)| match colors.first() {
                Some(&Funclet::Catch(c)) => Some((b, c)),
                _ => None,
            })
            .flat_map(|(b, c)| {
                self.func
                    .layout
                    .ops(b)
                    .filter(|&op| matches!(self.kind(op), OpKind::EndCatch))
                    .map(move |op| (b, op, c))
                    .collect::<Vec<_>>()
            })
            .collect();
        for (block, end, _) in ends {
            self.rewrite_end_catch(block, end)?;
        }
        self.apply_replacements();
        Ok(())
    }

    /// Replaces every use of the values recorded in `replace`.
    fn apply_replacements(&mut self) {
        if self.replace.is_empty() {
            return;
        }
        for block in self.blocks() {
            let ops: Vec<Op> = self.func.layout.ops(block).collect();
            for op in ops {
                for v in self.func.dfg.operands_mut(op) {
                    if let Some(&n) = self.replace.get(v) {
                        *v = n;
                    }
                }
                let succs: Vec<Successor> = self.func.dfg.successors(op).to_vec();
                for s in succs {
                    let args: Vec<Value> = self.func.dfg.successor_args(s).to_vec();
                    if args.iter().any(|a| self.replace.contains_key(a)) {
                        let args: Vec<Value> = args
                            .iter()
                            .map(|a| self.replace.get(a).copied().unwrap_or(*a))
                            .collect();
                        let target = self.func.dfg.successor_block(s);
                        self.func.dfg.set_successor(s, target, &args);
                    }
                }
            }
        }
    }

    fn rewrite_dispatch(
        &mut self,
        dispatch: Op,
        parent: Option<Value>,
        unwind: Option<Block>,
    ) -> Result<(), Diagnostic> {
        let keys = self.dispatch_keys(dispatch);
        let succs: Vec<Block> = self.func.dfg.successor_blocks(dispatch).collect();
        let loc = self.func.dfg.loc(dispatch);
        let common = *self.ctx.types.common();
        // The catchswitch replaces the dispatch in place and yields the switch token.
        {
            let dfg = &mut self.func.dfg;
            dfg.ops[dispatch].kind = OpKind::CatchSwitch {
                unwind_to_caller: unwind.is_none(),
            };
            let operands: Vec<Value> = parent.into_iter().collect();
            dfg.set_operands(dispatch, &operands);
            dfg.clear_successors(dispatch);
        }
        let switch_token = self.func.dfg.append_result(dispatch, common.eh_token);
        let mut handlers = Vec::new();
        for (key, &succ) in keys.iter().zip(&succs) {
            let mut caught_pointer = false;
            let mut qualifiers = 0;
            let type_desc = match key {
                HandlerKey::Catch(attr) => {
                    let typeinfo = match self.ctx.attrs.get(*attr) {
                        ehir_core::AttrData::GlobalView { symbol, .. } => *symbol,
                        _ => {
                            return Err(self.error(
                                dispatch,
                                "a catch key must name a typeinfo with #cir.global_view<@T>",
                            ));
                        }
                    };
                    let typeinfo = self.ctx.name(typeinfo).to_string();
                    caught_pointer = msvc_type_code(self.ctx, &typeinfo).starts_with("PE");
                    let (name, adjectives) = catch_type_descriptor(self.ctx, &typeinfo);
                    qualifiers = adjectives;
                    Some(self.ctx.sym(&name))
                }
                HandlerKey::CatchAll => None,
                _ => continue,
            };
            handlers.push(succ);
            self.rewrite_begin_catch(
                succ,
                switch_token,
                type_desc,
                caught_pointer,
                qualifiers,
                loc,
            )?;
        }
        for h in handlers {
            let s = self.func.dfg.make_successor(h, &[]);
            self.func.dfg.attach_successor(dispatch, s);
        }
        if let Some(u) = unwind {
            let s = self.func.dfg.make_successor(u, &[]);
            self.func.dfg.attach_successor(dispatch, s);
        }
        Ok(())
    }

    fn rewrite_begin_catch(
        &mut self,
        handler: Block,
        switch_token: Value,
        type_desc: Option<Symbol>,
        caught_pointer: bool,
        qualifiers: u32,
        loc: Loc,
    ) -> Result<(), Diagnostic> {
        let begin = self
            .func
            .layout
            .first_op(handler)
            .filter(|&op| matches!(self.kind(op), OpKind::BeginCatch))
            .ok_or_else(|| self.block_error(handler, "catch handler without cir.begin_catch"))?;
        let results: Vec<Value> = self.func.dfg.results(begin).to_vec();
        let exn = results.get(1).copied();
        let exn_used = exn.is_some_and(|v| self.used.contains(&v));
        let (adjectives, slot) = match (type_desc, exn.filter(|_| exn_used)) {
            (None, _) => (ADJECTIVE_ELLIPSIS, None),
            (Some(_), None) => (qualifiers, None),
            (Some(_), Some(v)) => {
                // The slot holds what `cir.begin_catch` yielded: a pointer to the object
                // (catch by reference), or for a caught pointer type the pointer itself
                // (catch by value: the runtime copies the thrown pointer).
                let ptr_ty = self.func.dfg.value_type(v);
                let adjectives = qualifiers
                    | if caught_pointer {
                        0
                    } else {
                        ADJECTIVE_REFERENCE
                    };
                (
                    adjectives,
                    Some(self.entry_alloca(ptr_ty, "__catch_obj", 8, loc)?),
                )
            }
        };
        {
            let dfg = &mut self.func.dfg;
            dfg.ops[begin].kind = OpKind::CatchPad {
                type_desc: type_desc.into(),
                adjectives,
                has_slot: slot.is_some(),
            };
            let mut operands = vec![switch_token];
            operands.extend(slot);
            dfg.set_operands(begin, &operands);
            let mut list = std::mem::take(&mut dfg.ops[begin].results);
            list.truncate(1, &mut dfg.value_lists);
            dfg.ops[begin].results = list;
        }
        if let Some(exn) = exn
            && exn_used
        {
            let ty = self.func.dfg.value_type(exn);
            let new =
                match slot {
                    Some(slot) => {
                        let after =
                            self.func.layout.next_op(begin).ok_or_else(|| {
                                self.error(begin, "catch handler without terminator")
                            })?;
                        let load = self.build(
                            At::Before(after),
                            OpKind::Load {
                                align: 8,
                                volatile: false,
                            },
                            &[slot],
                            &[ty],
                            &[],
                            loc,
                        );
                        self.func.dfg.results(load)[0]
                    }
                    None => {
                        // catch (...) has no object: the pointer is null.
                        let null = self.ctx.attrs.intern(ehir_core::AttrData::Null(ty));
                        let after =
                            self.func.layout.next_op(begin).ok_or_else(|| {
                                self.error(begin, "catch handler without terminator")
                            })?;
                        let c = self.build(
                            At::Before(after),
                            OpKind::Const { value: null },
                            &[],
                            &[ty],
                            &[],
                            loc,
                        );
                        self.func.dfg.results(c)[0]
                    }
                };
            self.replace.insert(exn, new);
        }
        Ok(())
    }

    fn rewrite_cleanup(
        &mut self,
        start: Block,
        parent: Option<Value>,
        exits: &[(Block, ExitKind, Option<Block>)],
    ) -> Result<(), Diagnostic> {
        let info = Rc::clone(&self.cleanups[&start]);
        let cleanup_token = self.ctx.types.common().cleanup_token;
        let operands: Vec<Value> = parent.into_iter().collect();
        let pad_token = match info.begin {
            Some(begin) => {
                let dfg = &mut self.func.dfg;
                dfg.ops[begin].kind = OpKind::CleanupPad;
                dfg.set_operands(begin, &operands);
                dfg.results(begin)[0]
            }
            None => {
                let first = self
                    .func
                    .layout
                    .first_op(start)
                    .ok_or_else(|| self.block_error(start, "empty cleanup block"))?;
                let loc = self.func.dfg.loc(first);
                let pad = self.build(
                    At::Before(first),
                    OpKind::CleanupPad,
                    &operands,
                    &[cleanup_token],
                    &[],
                    loc,
                );
                self.func.dfg.results(pad)[0]
            }
        };
        for &(block, exit, dest) in exits {
            let succ: Vec<(Block, &[Value])> = dest.iter().map(|&b| (b, &[][..])).collect();
            let cleanup_ret = |this: &mut Self, at: At, loc: Loc| {
                this.build(at, OpKind::CleanupRet, &[pad_token], &[], &succ, loc);
            };
            match exit {
                ExitKind::EndCleanup(end) => {
                    let term = self
                        .func
                        .layout
                        .next_op(end)
                        .ok_or_else(|| self.error(end, "cir.end_cleanup without terminator"))?;
                    let loc = self.func.dfg.loc(end);
                    cleanup_ret(self, At::Before(term), loc);
                    self.func.layout.remove_op(term);
                    self.func.layout.remove_op(end);
                }
                ExitKind::Resume(resume) => {
                    let loc = self.func.dfg.loc(resume);
                    cleanup_ret(self, At::Before(resume), loc);
                    self.func.layout.remove_op(resume);
                }
                ExitKind::Edge(i) => {
                    let term = self
                        .func
                        .layout
                        .last_op(block)
                        .ok_or_else(|| self.block_error(block, "block without terminator"))?;
                    let loc = self.func.dfg.loc(term);
                    if matches!(self.kind(term), OpKind::Br) {
                        cleanup_ret(self, At::Before(term), loc);
                        self.func.layout.remove_op(term);
                    } else {
                        let fwd = self.func.dfg.make_block();
                        self.func.layout.insert_block_after(fwd, block);
                        cleanup_ret(self, At::End(fwd), loc);
                        let s = self.func.dfg.successors(term)[i];
                        self.func.dfg.set_successor(s, fwd, &[]);
                    }
                }
            }
        }
        // Catches end by themselves when the exception unwinds out of their funclet.
        for &b in &info.blocks {
            let ops: Vec<Op> = self.func.layout.ops(b).collect();
            for op in ops {
                match self.kind(op) {
                    OpKind::EndCatch => self.func.layout.remove_op(op),
                    OpKind::EhTerminate => self.func.dfg.set_operands(op, &[]),
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn rewrite_raise(&mut self, op: Op, dest: Option<Block>) {
        let Some(succ) = self.unwind_successor(op) else {
            return;
        };
        if let Some(dest) = dest {
            self.func.dfg.set_successor(succ, dest, &[]);
            return;
        }
        match self.kind(op) {
            OpKind::TryCall { callee, sig, flags } => {
                let normal = self.func.dfg.successors(op)[0];
                let target = self.func.dfg.successor_block(normal);
                let args = self.func.dfg.successor_args(normal).to_vec();
                let loc = self.func.dfg.loc(op);
                self.func.dfg.ops[op].kind = OpKind::Call { callee, sig, flags };
                self.func.dfg.clear_successors(op);
                let block = self.func.layout.op_block(op).expect("placed");
                self.build(
                    At::End(block),
                    OpKind::Br,
                    &[],
                    &[],
                    &[(target, &args)],
                    loc,
                );
            }
            OpKind::Throw { .. } => self.func.dfg.clear_successors(op),
            _ => {}
        }
    }

    fn rewrite_end_catch(&mut self, block: Block, end: Op) -> Result<(), Diagnostic> {
        let token = self
            .func
            .dfg
            .operands(end)
            .first()
            .copied()
            .ok_or_else(|| self.error(end, "cir.end_catch without token"))?;
        let term = self
            .func
            .layout
            .next_op(end)
            .ok_or_else(|| self.error(end, "cir.end_catch without terminator"))?;
        let loc = self.func.dfg.loc(end);
        let direct = matches!(self.kind(term), OpKind::Br) && {
            let s = self.func.dfg.successors(term)[0];
            self.func.dfg.successor_args(s).is_empty()
                && self
                    .func
                    .dfg
                    .block_params(self.func.dfg.successor_block(s))
                    .is_empty()
        };
        let target = if direct {
            let target = self.func.dfg.successor_blocks(term).next().expect("br");
            self.func.layout.remove_op(term);
            target
        } else {
            let cont = self.func.dfg.make_block();
            self.func.layout.insert_block_after(cont, block);
            self.func.layout.remove_op(term);
            self.func.layout.append_op(term, cont);
            cont
        };
        self.build(
            At::Before(end),
            OpKind::CatchRet,
            &[token],
            &[],
            &[(target, &[])],
            loc,
        );
        self.func.layout.remove_op(end);
        Ok(())
    }

    /// Removes `!cir.eh_token` parameters and arguments (their values are gone) and the
    /// token operand of `cir.eh.terminate`.
    fn remove_token_params(&mut self) -> Result<(), Diagnostic> {
        for block in self.blocks() {
            let params: Vec<Value> = self.func.dfg.block_params(block).to_vec();
            if params.iter().any(|&p| self.is_eh_token(p)) {
                let keep: Vec<Value> = params
                    .iter()
                    .copied()
                    .filter(|&p| !self.is_eh_token(p))
                    .collect();
                let dfg = &mut self.func.dfg;
                dfg.clear_block_params(block);
                for (i, &v) in keep.iter().enumerate() {
                    dfg.values[v].def = ValueDef::Param(block, i as u32);
                    dfg.blocks[block].params.push(v, &mut dfg.value_lists);
                }
            }
            let ops: Vec<Op> = self.func.layout.ops(block).collect();
            for op in ops {
                let succs: Vec<Successor> = self.func.dfg.successors(op).to_vec();
                for s in succs {
                    let args = self.func.dfg.successor_args(s).to_vec();
                    if args.iter().any(|&a| self.is_eh_token(a)) {
                        let keep: Vec<Value> =
                            args.into_iter().filter(|&a| !self.is_eh_token(a)).collect();
                        let target = self.func.dfg.successor_block(s);
                        self.func.dfg.set_successor(s, target, &keep);
                    }
                }
                if matches!(self.kind(op), OpKind::EhTerminate) {
                    self.func.dfg.set_operands(op, &[]);
                }
            }
        }
        Ok(())
    }

    /// No ABI-agnostic EH op and no use of a flat `!cir.eh_token` survives.
    fn check_no_flat_ops(&self) -> Result<(), Diagnostic> {
        for block in self.blocks() {
            for op in self.func.layout.ops(block) {
                let kind = self.kind(op);
                let flat_only = matches!(
                    kind,
                    OpKind::EhInitiate { .. }
                        | OpKind::EhDispatch { .. }
                        | OpKind::BeginCleanup
                        | OpKind::EndCleanup
                        | OpKind::BeginCatch
                        | OpKind::EndCatch
                        | OpKind::Resume
                );
                let token_use = !matches!(kind, OpKind::CatchPad { .. })
                    && self
                        .func
                        .dfg
                        .operands(op)
                        .iter()
                        .any(|&v| self.is_eh_token(v));
                if flat_only || token_use {
                    return Err(self.error(
                        op,
                        format!(
                            "eh-abi-lowering=msvc: {} could not be lowered here",
                            kind.name()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// A new `cir.alloca` of `ty` at the top of the entry block.
    fn entry_alloca(
        &mut self,
        ty: Type,
        name: &str,
        align: u16,
        loc: Loc,
    ) -> Result<Value, Diagnostic> {
        let entry = self
            .func
            .entry_block()
            .ok_or_else(|| self.error_at(self.func.loc, "function body has no entry block"))?;
        let first = self
            .func
            .layout
            .first_op(entry)
            .ok_or_else(|| self.block_error(entry, "empty entry block"))?;
        let ptr_ty = self.ctx.types.ptr(ty);
        let name = self.ctx.sym(name);
        let op = self.build(
            At::Before(first),
            OpKind::Alloca {
                alloc_ty: ty,
                name,
                init: false,
                align,
            },
            &[],
            &[ptr_ty],
            &[],
            loc,
        );
        Ok(self.func.dfg.results(op)[0])
    }

    // ---- funclet hygiene -----------------------------------------------------------------

    /// Duplicates every block that two funclets reach, one copy per extra funclet.
    fn clone_shared_blocks(&mut self) -> Result<(), Diagnostic> {
        let colors = funclet_colors(self.func);
        let mut by_color: BTreeMap<Option<Op>, Vec<Block>> = BTreeMap::new();
        let mut shared: Vec<(Block, Vec<Option<Op>>)> = Vec::new();
        for block in self.blocks() {
            let cs = &colors[block];
            for &c in cs {
                by_color.entry(c).or_default().push(block);
            }
            if cs.len() > 1 {
                shared.push((block, cs.clone()));
            }
        }
        if shared.is_empty() {
            return Ok(());
        }
        for (block, cs) in &shared {
            for op in self.func.layout.ops(*block) {
                if self.unwind_successor(op).is_some()
                    || matches!(
                        self.kind(op),
                        OpKind::CatchRet | OpKind::CleanupRet | OpKind::CatchSwitch { .. }
                    )
                {
                    return Err(self.error(
                        op,
                        format!(
                            "eh-abi-lowering=msvc: this block belongs to {} funclets and cannot be duplicated",
                            cs.len()
                        ),
                    ));
                }
            }
        }
        // Every color but the first a shared block has gets its own copy.
        let mut copies: BTreeMap<Option<Op>, BTreeMap<Block, Block>> = BTreeMap::new();
        let mut values: BTreeMap<Option<Op>, BTreeMap<Value, Value>> = BTreeMap::new();
        for (block, cs) in &shared {
            for &c in &cs[1..] {
                let (copy, map) = self.clone_block(*block);
                copies.entry(c).or_default().insert(*block, copy);
                values.entry(c).or_default().extend(map);
            }
        }
        for (color, block_map) in &copies {
            let value_map = values.get(color).cloned().unwrap_or_default();
            let mut members: Vec<Block> = by_color
                .get(color)
                .into_iter()
                .flatten()
                .map(|b| block_map.get(b).copied().unwrap_or(*b))
                .collect();
            members.sort();
            members.dedup();
            for b in members {
                let ops: Vec<Op> = self.func.layout.ops(b).collect();
                for op in ops {
                    for v in self.func.dfg.operands_mut(op) {
                        if let Some(&n) = value_map.get(v) {
                            *v = n;
                        }
                    }
                    let succs: Vec<Successor> = self.func.dfg.successors(op).to_vec();
                    for s in succs {
                        let target = self.func.dfg.successor_block(s);
                        let args: Vec<Value> = self
                            .func
                            .dfg
                            .successor_args(s)
                            .iter()
                            .map(|a| value_map.get(a).copied().unwrap_or(*a))
                            .collect();
                        let target = block_map.get(&target).copied().unwrap_or(target);
                        self.func.dfg.set_successor(s, target, &args);
                    }
                }
            }
        }
        Ok(())
    }

    /// A copy of `block` (placed after it) and the map from its values to the copy's.
    fn clone_block(&mut self, block: Block) -> (Block, BTreeMap<Value, Value>) {
        let mut map = BTreeMap::new();
        let copy = self.func.dfg.make_block();
        self.func.layout.insert_block_after(copy, block);
        for &p in self.func.dfg.block_params(block).to_vec().iter() {
            let ty = self.func.dfg.value_type(p);
            let n = self.func.dfg.append_block_param(copy, ty);
            map.insert(p, n);
        }
        let ops: Vec<Op> = self.func.layout.ops(block).collect();
        for op in ops {
            let kind = self.kind(op);
            let loc = self.func.dfg.loc(op);
            let operands: Vec<Value> = self
                .func
                .dfg
                .operands(op)
                .iter()
                .map(|v| map.get(v).copied().unwrap_or(*v))
                .collect();
            let results: Vec<Type> = self
                .func
                .dfg
                .results(op)
                .iter()
                .map(|&v| self.func.dfg.value_type(v))
                .collect();
            let succs: Vec<(Block, Vec<Value>)> = self
                .func
                .dfg
                .successors(op)
                .iter()
                .map(|&s| {
                    (
                        self.func.dfg.successor_block(s),
                        self.func
                            .dfg
                            .successor_args(s)
                            .iter()
                            .map(|v| map.get(v).copied().unwrap_or(*v))
                            .collect(),
                    )
                })
                .collect();
            let kind = match kind {
                OpKind::SwitchFlat { cases } => {
                    let data = self.func.dfg.extra(cases).clone();
                    OpKind::SwitchFlat {
                        cases: self.func.dfg.make_extra(data),
                    }
                }
                k => k,
            };
            let succ_refs: Vec<(Block, &[Value])> =
                succs.iter().map(|(b, a)| (*b, a.as_slice())).collect();
            let new = self.build(At::End(copy), kind, &operands, &results, &succ_refs, loc);
            let old_results = self.func.dfg.results(op).to_vec();
            let new_results = self.func.dfg.results(new).to_vec();
            for (o, n) in old_results.into_iter().zip(new_results) {
                map.insert(o, n);
            }
        }
        (copy, map)
    }

    /// Values defined in one funclet and used in another go through memory.
    fn demote_cross_funclet_values(&mut self) -> Result<(), Diagnostic> {
        let colors = funclet_colors(self.func);
        let color_of = |b: Block| colors[b].first().copied().flatten();
        let mut spills: BTreeMap<Value, Value> = BTreeMap::new();
        for block in self.blocks() {
            let use_color = color_of(block);
            let ops: Vec<Op> = self.func.layout.ops(block).collect();
            for op in ops {
                let operands: Vec<Value> = self.func.dfg.operands(op).to_vec();
                for (i, v) in operands.into_iter().enumerate() {
                    if let Some(new) = self.demoted(v, use_color, op, &color_of, &mut spills)? {
                        self.func.dfg.operands_mut(op)[i] = new;
                    }
                }
                let succs: Vec<Successor> = self.func.dfg.successors(op).to_vec();
                for s in succs {
                    let args: Vec<Value> = self.func.dfg.successor_args(s).to_vec();
                    let mut changed = false;
                    let mut new_args = Vec::with_capacity(args.len());
                    for v in args {
                        match self.demoted(v, use_color, op, &color_of, &mut spills)? {
                            Some(n) => {
                                new_args.push(n);
                                changed = true;
                            }
                            None => new_args.push(v),
                        }
                    }
                    if changed {
                        let target = self.func.dfg.successor_block(s);
                        self.func.dfg.set_successor(s, target, &new_args);
                    }
                }
            }
        }
        Ok(())
    }

    /// The value to use instead of `v` before `user` (in funclet `use_color`), if `v`
    /// comes from another funclet.
    fn demoted(
        &mut self,
        v: Value,
        use_color: Option<Op>,
        user: Op,
        color_of: &dyn Fn(Block) -> Option<Op>,
        spills: &mut BTreeMap<Value, Value>,
    ) -> Result<Option<Value>, Diagnostic> {
        let ty = self.func.dfg.value_type(v);
        if self.ctx.types.is_token(ty) {
            return Ok(None);
        }
        let (def_block, def_op) = match self.func.dfg.value_def(v) {
            ValueDef::Result(op, _) => match self.func.layout.op_block(op) {
                Some(b) => (b, Some(op)),
                None => return Ok(None),
            },
            ValueDef::Param(b, _) => (b, None),
        };
        if color_of(def_block) == use_color {
            return Ok(None);
        }
        let loc = self.func.dfg.loc(user);
        if let Some(def) = def_op {
            match self.kind(def) {
                OpKind::Alloca { .. } => return Ok(None),
                kind @ (OpKind::Const { .. } | OpKind::GetGlobal { .. }) => {
                    let c = self.build(At::Before(user), kind, &[], &[ty], &[], loc);
                    return Ok(Some(self.func.dfg.results(c)[0]));
                }
                _ => {}
            }
        }
        let slot = match spills.get(&v) {
            Some(&s) => s,
            None => {
                let slot = self.entry_alloca(ty, "__spill", 0, loc)?;
                self.store_after_def(v, slot, def_block, def_op)?;
                spills.insert(v, slot);
                slot
            }
        };
        let load = self.build(
            At::Before(user),
            OpKind::Load {
                align: 0,
                volatile: false,
            },
            &[slot],
            &[ty],
            &[],
            loc,
        );
        Ok(Some(self.func.dfg.results(load)[0]))
    }

    fn store_after_def(
        &mut self,
        v: Value,
        slot: Value,
        def_block: Block,
        def_op: Option<Op>,
    ) -> Result<(), Diagnostic> {
        let store = OpKind::Store {
            align: 0,
            volatile: false,
        };
        match def_op {
            Some(op) if self.func.dfg.kind(op).is_terminator() => {
                // A try_call result exists only on the normal edge: store on that edge.
                let loc = self.func.dfg.loc(op);
                let normal = *self.func.dfg.successors(op).first().ok_or_else(|| {
                    self.error(op, "a value-producing terminator without successor")
                })?;
                let target = self.func.dfg.successor_block(normal);
                let args = self.func.dfg.successor_args(normal).to_vec();
                let edge = self.func.dfg.make_block();
                self.func.layout.insert_block_after(edge, def_block);
                self.build(At::End(edge), store, &[v, slot], &[], &[], loc);
                self.build(At::End(edge), OpKind::Br, &[], &[], &[(target, &args)], loc);
                self.func.dfg.set_successor(normal, edge, &[]);
            }
            Some(op) => {
                let loc = self.func.dfg.loc(op);
                let next = self
                    .func
                    .layout
                    .next_op(op)
                    .ok_or_else(|| self.error(op, "op without a terminator after it"))?;
                self.build(At::Before(next), store, &[v, slot], &[], &[], loc);
            }
            None => {
                let mut at = self
                    .func
                    .layout
                    .first_op(def_block)
                    .ok_or_else(|| self.block_error(def_block, "empty block"))?;
                // After the pad that begins the block, and after the entry block's allocas
                // (the slot itself is one of them).
                while matches!(
                    self.kind(at),
                    OpKind::CleanupPad | OpKind::CatchPad { .. } | OpKind::Alloca { .. }
                ) {
                    at =
                        self.func.layout.next_op(at).ok_or_else(|| {
                            self.block_error(def_block, "block without terminator")
                        })?;
                }
                let loc = self.func.dfg.loc(at);
                self.build(At::Before(at), store, &[v, slot], &[], &[], loc);
            }
        }
        Ok(())
    }
}
