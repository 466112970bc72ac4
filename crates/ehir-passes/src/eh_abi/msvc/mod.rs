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
//!   TypeDescriptor ([`catch_type_descriptor`](ehir_core::abi::type_names::catch_type_descriptor)), as MSVC encodes them. A
//!   `cir.begin_catch` followed by a `cir.copy_catch_param` of its exception pointer to
//!   `%dest` catches by value into `%dest` (`[@desc, 0, %dest]`, the copy op removed): the
//!   runtime copies the exception object there, with the copy constructor of the
//!   thrower's CatchableType, before the try block's objects are destroyed. The normal-path
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
//! - Upstream's `cir.init_catch_param` → casts, loads and stores from the pointer the
//!   catchpad's slot holds (`super::lower_init_catch_params`, shared with Itanium);
//!   upstream's `cir.construct_catch_param` is not taken (reported).
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
//!
//! Files: `mod.rs` holds the entry points, the lowering's state and its order of steps
//! ([`lower_function`]); `unwind_paths.rs` finds where each exception goes and which
//! funclet every pad is nested in; `rewrite.rs` turns the flat EH ops into pads;
//! `prepare.rs` is the WinEHPrepare-style funclet hygiene (cloning shared blocks, demoting
//! values used across funclets).

mod prepare;
mod rewrite;
mod unwind_paths;

use crate::simplify_cfg::{merge_straight_line_blocks, remove_unreachable_blocks};
use ehir_core::abi::EhAbi;
use ehir_core::{
    Block, Diagnostic, FuncCursor, Function, HandlerKey, Loc, Module, ModuleCtx, Op, OpKind, Phase,
    Symbol, Type, TypeData, Value,
};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// Lowers one function from the flat phase to the MSVC phase. Functions already in the
/// MSVC phase are left alone; declarations only change phase.
pub fn lower_function(ctx: &mut ModuleCtx, func: &mut Function) -> Result<(), Diagnostic> {
    if !super::needs_lowering(ctx, func, EhAbi::Msvc)? {
        return Ok(());
    }
    // MSVC does not enforce dynamic exception specifications: an exception that breaks
    // one goes on unwinding, so upstream's `cir.eh.unexpected %t` is `cir.resume %t`.
    let unexpected: Vec<Op> = func.ops_where(|kind| matches!(kind, OpKind::EhUnexpected));
    if !unexpected.is_empty() {
        let types = *ctx.types.common();
        for op in unexpected {
            let token = func.dfg.operands(op).first().copied();
            let loc = func.dfg.loc(op);
            FuncCursor::at(func, &types, ehir_core::CursorPosition::Before(op))
                .with_loc(loc)
                .resume(token);
            func.layout.remove_op(op);
        }
    }
    lower_try_throws(ctx, func)?;
    let mut lowering = Lowering::new(ctx, func);
    lowering.run()
}

/// Upstream's `cir.try_throw %obj, %typeinfo, %dtor ^normal, ^unwind` as ehir's
/// `cir.throw %obj : T, @typeinfo[, @dtor] unwind ^unwind`: the typeinfo and the
/// destructor must be known symbols (a `cir.get_global`, a `cir.const` of a
/// `#cir.global_view`, a null pointer for no destructor), as the throw info the MSVC
/// runtime takes is made at compile time.
fn lower_try_throws(ctx: &mut ModuleCtx, func: &mut Function) -> Result<(), Diagnostic> {
    let throws: Vec<Op> = func.ops_where(|kind| matches!(kind, OpKind::TryThrow));
    let common = *ctx.types.common();
    for op in throws {
        let loc = func.dfg.loc(op);
        let operands = func.dfg.operands(op).to_vec();
        let symbol_of = |v: Value, what: &str| -> Result<Option<Symbol>, Diagnostic> {
            let def = match func.dfg.value_def(v) {
                ehir_core::ValueDef::Result(d, _) => Some(d),
                _ => None,
            };
            let found = def.and_then(|d| match *func.dfg.kind(d) {
                OpKind::GetGlobal { symbol } => Some(Some(symbol)),
                OpKind::Const { value } => match ctx.attrs.get(value) {
                    ehir_core::AttrData::GlobalView { symbol, .. } => Some(Some(*symbol)),
                    ehir_core::AttrData::Null(_) => Some(None),
                    _ => None,
                },
                _ => None,
            });
            found.ok_or_else(|| {
                Diagnostic::error(
                    loc,
                    format!(
                        "eh-abi-lowering=msvc: the {what} of cir.try_throw must be a known symbol (a cir.get_global or a #cir.global_view constant)"
                    ),
                )
            })
        };
        let Some(type_info) = symbol_of(operands[1], "typeinfo")? else {
            return Err(Diagnostic::error(loc, "cir.try_throw of a null typeinfo"));
        };
        let dtor = symbol_of(operands[2], "destructor")?;
        let unwind = func.dfg.successors(op)[1];
        let (block, args) = (
            func.dfg.successor_block(unwind),
            func.dfg.successor_args(unwind).to_vec(),
        );
        let throw = FuncCursor::at(func, &common, ehir_core::CursorPosition::Before(op))
            .with_loc(loc)
            .throw(Some((operands[0], type_info)), dtor);
        let s = func.dfg.make_successor(block, &args);
        func.dfg.attach_successor(throw, s);
        func.layout.remove_op(op);
    }
    Ok(())
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
                OpKind::EhUnexpected => true,
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

    /// The entry block of the function's body; an error if it has none.
    fn entry(&self) -> Result<Block, Diagnostic> {
        let entry = self.func.entry_block();
        entry.ok_or_else(|| self.error_at(self.func.loc, "function body has no entry block"))
    }

    /// The first op of `block`; an error saying `message` at the block if it is empty.
    fn first_op_of(&self, block: Block, message: &str) -> Result<Op, Diagnostic> {
        let first = self.func.layout.first_op(block);
        first.ok_or_else(|| self.block_error(block, message))
    }

    /// The last op of `block`; an error saying `message` at the block if it is empty.
    fn terminator_of(&self, block: Block, message: &str) -> Result<Op, Diagnostic> {
        let last = self.func.layout.last_op(block);
        last.ok_or_else(|| self.block_error(block, message))
    }

    /// The op after `op` in its block; an error saying `message` at `op` if it is last.
    fn op_after(&self, op: Op, message: &str) -> Result<Op, Diagnostic> {
        let next = self.func.layout.next_op(op);
        next.ok_or_else(|| self.error(op, message))
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
        let entry = self.entry()?;
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
        super::lower_init_catch_params(self.ctx, self.func)?;
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

    // ---- block splitting, before the walk ----------------------------------------------------

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
        self.at_end(block, loc).br(new, &[]);
        new
    }

    // ---- shared by the rewriting and the funclet preparation -----------------------------------

    /// A cursor at the end of `block`; the ops it builds get the location `loc`.
    fn at_end(&mut self, block: Block, loc: Loc) -> FuncCursor<'_> {
        let types = *self.ctx.types.common();
        FuncCursor::at_end(self.func, &types, block).with_loc(loc)
    }

    /// A cursor before `op`; the ops it builds get the location `loc`.
    fn before(&mut self, op: Op, loc: Loc) -> FuncCursor<'_> {
        let types = *self.ctx.types.common();
        FuncCursor::before(self.func, &types, op).with_loc(loc)
    }

    /// A new `cir.alloca` of `ty` at the top of the entry block.
    fn entry_alloca(
        &mut self,
        ty: Type,
        name: &str,
        align: u16,
        loc: Loc,
    ) -> Result<Value, Diagnostic> {
        let entry = self.entry()?;
        let first = self.first_op_of(entry, "empty entry block")?;
        let ptr_ty = self.ctx.types.ptr(ty);
        let name = self.ctx.sym(name);
        Ok(self
            .before(first, loc)
            .alloca(ty, ptr_ty, name, false, align))
    }
}
