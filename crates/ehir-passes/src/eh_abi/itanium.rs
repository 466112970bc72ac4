//! `eh-abi-lowering=itanium`: lowers a flat function's ABI-agnostic EH ops to the Itanium
//! C++ ABI model, the one LLVM's `landingpad` instruction expresses.
//!
//! Rewrites:
//! - `%t = cir.eh.initiate [cleanup]` → `%exn, %sel = cir.eh.landingpad [cleanup] [clauses]`.
//!   The clauses are the handlers the exception can reach from this landing pad, in the
//!   order it meets them (following the token through branches, cleanups and the `unwind`
//!   keys of dispatches): `@ti` per typed catch, `null` for catch-all, `filter [...]` for an
//!   exception specification. `cleanup` is set when a cleanup runs on the way (or the pad
//!   would otherwise have no clause).
//! - Every `!cir.eh_token` value (block parameters, branch arguments) becomes the pair
//!   `(!cir.ptr<!void>, !u32i)`; a dispatch passes the pair explicitly.
//! - `cir.eh.dispatch` → a branch to a chain of blocks, each taking the pair as its
//!   parameters (upstream's shape): per typed catch `cir.eh.typeid` +
//!   `cir.cmp eq` + `cir.brcond`; per `filter` a `sel < 0` test whose true side calls
//!   `__cxa_call_unexpected(%exn)` (an empty filter, which every exception that reaches it
//!   violates, calls it without a test); `catch_all` and `unwind` branch unconditionally. A chain
//!   that ends with a conditional test resumes (`cir.resume.flat`): LLVM may enter a landing
//!   pad with a selector it did not advertise (after inlining), and that must keep unwinding.
//! - `cir.begin_cleanup` / `cir.end_cleanup` are dropped.
//! - `cir.begin_catch` → `cir.call @__cxa_begin_catch(%exn)` (plus a bitcast when the op
//!   also yields a typed exception pointer); `cir.end_catch` → `cir.call @__cxa_end_catch()`.
//!   A `cir.copy_catch_param` (a by-value parameter the Microsoft runtime builds) is not
//!   taken: on this ABI the handler copies the exception object itself.
//! - Upstream's `cir.construct_catch_param reference_to_pointer %t to %p` (`catch (T *&)`)
//!   → `%p` gets the address of the thrown pointer: the landing pad's exception pointer
//!   plus the unwind header (`cir.ptr_stride`, a bitcast, a store); `non_trivial_copy
//!   ... using @thunk` → `__cxa_get_exception_ptr`, a bitcast and a `cir.try_call` of the
//!   thunk whose unwind destination terminates (`Lowering::lower_catch_copy`); other kinds
//!   of it in flat code are reported as not supported yet. Upstream's `cir.init_catch_param` →
//!   casts, loads and stores (`super::lower_init_catch_params`, shared with the MSVC
//!   lowering).
//! - `cir.resume` (with or without its token) → `cir.resume.flat %exn, %sel`.
//! - `noexcept` boundaries (a dispatch's `terminate` key, `cir.eh.terminate`) reproduce
//!   g++ (checked against g++ 12 at -O0 and -O2):
//!   - when only cleanups separate the landing pad from the boundary, the pad catches
//!     everything (`null`) and terminates at once: `cir.call @__clang_call_terminate(%exn)
//!     nothrow {noreturn}` (Clang's helper, `__cxa_begin_catch` + `std::terminate`, which
//!     the module gets a `linkonce_odr hidden` definition of, as upstream's lowering does)
//!     without running those cleanups: libstdc++ finds a call site that g++ left out of
//!     the call-site table, stops the search phase there, unwinds the frames nearer the
//!     throw (their cleanups run), and terminates in this frame;
//!   - when a `try` inside the boundary has catches, the pad lists them plus `cleanup`;
//!     the cleanups inside that `try` run, and where the exception would leave it
//!     (a dispatch's `unwind`, or a `terminate` key) it calls `std::terminate` at once,
//!     skipping the cleanups between the `try` and the boundary, as g++ does. If no frame
//!     at all would catch the exception, the search phase fails and `std::terminate` runs
//!     before anything is unwound (again as with g++).
//! - The function gets the personality `__gxx_personality_v0` (when it has a landing pad)
//!   and the phase `itanium`. Blocks that the rewrites leave unreachable stay, as with
//!   upstream's lowering (ehir's pipeline removes them afterwards:
//!   `crate::simplify_cfg::RemoveUnreachableBlocks`).
//!
//! Not expressible (reported as an error): a landing pad that an exception leaves through
//! two different exception specifications (nested `filter`s in one function). Every
//! filter failure is just a negative selector, so the code after the pad could not tell
//! whether the inner specification failed (call `std::unexpected` now) or the outer one
//! (run the cleanups in between first). C++ gives a function one specification, and clang
//! never nests them either.
//!
//! - Calls of runtime functions that never return carry `{noreturn}`, as upstream's.
//!
//! [`lower_function`] sees one function and the module's shared tables, so it cannot add
//! the declarations of the runtime functions it calls (`__cxa_begin_catch`,
//! `__cxa_end_catch`, `__cxa_call_unexpected`, `std::terminate`), of the personality
//! (`cir.func private @__gxx_personality_v0(...) -> !s32i`) or the definition of
//! `__clang_call_terminate`; the verifier wants every callee declared, so whoever drives
//! the pass calls [`declare_runtime_functions`] on the module once its functions are
//! lowered.

use ehir_core::abi::ITANIUM_PERSONALITY;
use ehir_core::abi::runtime::{CLANG_CALL_TERMINATE, STD_TERMINATE, runtime_function};
use ehir_core::abi::{EhAbi, ITANIUM_UNWIND_HEADER_SIZE};
use ehir_core::{
    AttrData, Block, CallFlags, CastKind, CmpPredicate, CommonTypes, CursorPosition, Diagnostic,
    Diagnostics, FuncCursor, FuncId, Function, HandlerKey, LandingPadClause, Loc, Module,
    ModuleCtx, Op, OpKind, PackedOption, Phase, SecondaryMap, Successor, Symbol, Type, Value,
    ValueDef,
};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::rc::Rc;

/// Lowers one function from the flat phase to the Itanium phase. Functions already in the
/// Itanium phase are left alone; declarations only change phase.
pub fn lower_function(ctx: &mut ModuleCtx, func: &mut Function) -> Result<(), Diagnostic> {
    if !super::needs_lowering(ctx, func, EhAbi::Itanium)? {
        return Ok(());
    }
    lower_try_throws(ctx, func);
    let mut lowering = Lowering::new(ctx, func);
    lowering.run()?;
    Ok(())
}

/// Upstream's `cir.try_throw %obj, %typeinfo, %dtor ^normal, ^unwind`: the operands cast
/// to `!cir.ptr<!void>` (in each operand's address space) and a `cir.try_call` of
/// `__cxa_throw` with the same destinations.
fn lower_try_throws(ctx: &mut ModuleCtx, func: &mut Function) {
    let throws: Vec<Op> = func.ops_where(|kind| matches!(kind, OpKind::TryThrow));
    if throws.is_empty() {
        return;
    }
    let function = runtime_function("__cxa_throw").expect("__cxa_throw is a runtime function");
    let sig = function.cir_signature(&mut ctx.types);
    let callee = ctx.sym("__cxa_throw");
    let common = *ctx.types.common();
    for op in throws {
        let loc = func.dfg.loc(op);
        let operands = func.dfg.operands(op).to_vec();
        let succs = func.dfg.successors(op).to_vec();
        let dests: Vec<(Block, Vec<Value>)> = succs
            .iter()
            .map(|&s| {
                (
                    func.dfg.successor_block(s),
                    func.dfg.successor_args(s).to_vec(),
                )
            })
            .collect();
        // Each operand keeps its target address space (`!cir.ptr<!void,
        // target_address_space(N)>`); the call's signature then says so.
        let void_ptrs: Vec<Type> = operands
            .iter()
            .map(|&v| {
                let space = ctx.types.address_space(func.dfg.value_type(v));
                ctx.types.ptr_in(common.void, space)
            })
            .collect();
        let call_sig = if void_ptrs.iter().all(|&t| t == common.void_ptr) {
            sig
        } else {
            ctx.types.func(void_ptrs.clone(), None, false)
        };
        let mut at = FuncCursor::at(func, &common, CursorPosition::Before(op)).with_loc(loc);
        let args: Vec<Value> = operands
            .iter()
            .zip(&void_ptrs)
            .map(|(&v, &void_ptr)| {
                if at.func.dfg.value_type(v) == void_ptr {
                    v
                } else {
                    at.cast(CastKind::Bitcast, v, void_ptr)
                }
            })
            .collect();
        let call = at.try_call(
            Some(callee),
            call_sig,
            CallFlags::default(),
            &args,
            None,
            dests[0].0,
            dests[1].0,
        );
        for (i, (block, block_args)) in dests.iter().enumerate() {
            let s = func.dfg.successors(call)[i];
            func.dfg.set_successor(s, *block, block_args);
        }
        func.layout.remove_op(op);
    }
}

/// Lowers every flat function definition of a module, then declares the runtime
/// functions the lowering introduced ([`declare_runtime_functions`]). Functions in other
/// phases are left alone. Does not verify.
pub fn lower_module(module: &mut Module) -> Result<(), Diagnostics> {
    let result = crate::pass::for_each_definition_in(module, Phase::Flat, lower_function);
    declare_runtime_functions(module)?;
    result
}

/// Declares every function that a call of the module names but the module does not
/// declare, with the call's signature (first call wins), as the parser does for undeclared
/// callees. After [`lower_function`] these are the runtime functions it introduced.
pub fn declare_runtime_functions(module: &mut Module) -> Result<(), Diagnostics> {
    use rayon::prelude::*;
    // What each function's calls find, per function in op order; functions are scanned in
    // parallel (on a pool of more than one thread) and merged in module order below, so
    // the result is that of one scan in module order.
    let funcs: Vec<&Function> = module.functions.values().collect();
    let findings: Vec<Vec<CallFinding>> = if rayon::current_num_threads() > 1 {
        funcs
            .par_iter()
            .map(|func| call_findings(module, &module.ctx, func))
            .collect()
    } else {
        funcs
            .iter()
            .map(|func| call_findings(module, &module.ctx, func))
            .collect()
    };
    let mut missing: Vec<(Symbol, Option<Type>, Loc)> = Vec::new();
    let mut conflicts = Diagnostics::default();
    for finding in findings.into_iter().flatten() {
        match finding {
            CallFinding::Conflict(id, callee) => conflicts.push(Diagnostic::error(
                module.functions[id].loc,
                format!(
                    "@{} is declared with a signature other than the C++ runtime's, which the {} EH lowering calls",
                    module.ctx.name(callee),
                    EhAbi::Itanium.name()
                ),
            )),
            CallFinding::Missing(callee, sig, loc) => {
                if !missing.iter().any(|&(s, _, _)| s == callee) {
                    missing.push((callee, sig, loc));
                }
            }
        }
    }
    if !conflicts.is_empty() {
        conflicts.0.dedup_by(|a, b| a.message == b.message);
        return Err(conflicts);
    }
    for (callee, sig, loc) in missing {
        let items = runtime_items(&mut module.ctx, callee, sig, loc);
        for item in items {
            if module.function_by_name(item.name).is_none() {
                module.add_function(item);
            }
        }
    }
    Ok(())
}

/// What to add to a module for a runtime function `callee` that lowered code calls
/// (with signature `sig`, first at `loc`; `None`: the signature of its runtime row, for
/// the personality) and the module lacks: its declaration ([`runtime_declaration`]), or
/// for `__clang_call_terminate` the declarations of the functions it calls and then its
/// definition ([`clang_call_terminate_definition`]). The caller skips the items the
/// module already has.
pub(crate) fn runtime_items(
    ctx: &mut ModuleCtx,
    callee: Symbol,
    sig: Option<Type>,
    loc: Loc,
) -> Vec<Function> {
    let sig = match sig {
        Some(sig) => sig,
        None => runtime_function(ctx.name(callee))
            .expect("a finding without a signature names a runtime function")
            .cir_signature(&mut ctx.types),
    };
    if ctx.name(callee) != CLANG_CALL_TERMINATE {
        return vec![runtime_declaration(callee, sig, loc)];
    }
    let mut items = Vec::new();
    for name in ["__cxa_begin_catch", STD_TERMINATE] {
        let row = runtime_function(name).expect("the helper calls known runtime functions");
        let declared_sig = row.cir_signature(&mut ctx.types);
        let mut declaration = runtime_declaration(ctx.sym(name), declared_sig, loc);
        if row.noreturn {
            declaration.attributes.push(unit_attribute("noreturn"));
        }
        items.push(declaration);
    }
    items.push(clang_call_terminate_definition(ctx, callee, sig, loc));
    items
}

/// A function attribute without a value (`attributes {noreturn}`).
fn unit_attribute(name: &str) -> ehir_core::ModuleAttribute {
    ehir_core::ModuleAttribute {
        name: name.to_string(),
        value: "unit".to_string(),
    }
}

/// Clang's `__clang_call_terminate` as upstream's lowering defines it:
///
/// ```text
/// cir.func linkonce_odr hidden @__clang_call_terminate(%arg0: !cir.ptr<!void>) attributes {noreturn} {
///   %0 = cir.call @__cxa_begin_catch(%arg0) nothrow : (!cir.ptr<!void>) -> !cir.ptr<!void>
///   cir.call @_ZSt9terminatev() nothrow {noreturn} : () -> ()
///   cir.unreachable
/// }
/// ```
pub(crate) fn clang_call_terminate_definition(
    ctx: &mut ModuleCtx,
    name: Symbol,
    sig: Type,
    loc: Loc,
) -> Function {
    let void_ptr = ctx.types.common().void_ptr;
    let mut func = Function::new_definition(name, sig, &[void_ptr]);
    func.linkage = ehir_core::Linkage::LinkOnceOdr;
    func.hidden = true;
    func.loc = loc;
    func.attributes.push(unit_attribute("noreturn"));
    let entry = func.entry_block().expect("a definition has an entry block");
    let exn = func.dfg.block_params(entry)[0];
    let types = *ctx.types.common();
    for (callee, args) in [("__cxa_begin_catch", vec![exn]), (STD_TERMINATE, vec![])] {
        let row = runtime_function(callee).expect("the helper calls known runtime functions");
        let callee_sig = row.cir_signature(&mut ctx.types);
        let result = row.result.map(|r| r.cir_type(&ctx.types));
        let flags = CallFlags {
            nothrow: true,
            exception: false,
            noreturn: row.noreturn,
        };
        let symbol = ctx.sym(callee);
        FuncCursor::at(&mut func, &types, CursorPosition::End(entry))
            .with_loc(loc)
            .call(Some(symbol), callee_sig, flags, &args, result);
    }
    FuncCursor::at(&mut func, &types, CursorPosition::End(entry))
        .with_loc(loc)
        .unreachable();
    // In the phase of the functions around it (a pass's promise covers every definition).
    func.phase = Phase::Itanium;
    func
}

/// The declaration of a runtime function the lowering calls: private, as upstream's
/// lowering declares them (`cir.func private @__cxa_begin_catch(...)`), with the
/// signature and location of its first call.
pub(crate) fn runtime_declaration(callee: Symbol, sig: Type, loc: Loc) -> Function {
    let mut declaration = Function::new_declaration(callee, sig);
    declaration.linkage = ehir_core::Linkage::Private;
    declaration.loc = loc;
    declaration
}

/// The callees of `func` that [`declare_runtime_functions`] would declare, with the
/// signature and location of the first call of each, given the declarations `module`
/// holds now: a function lowered after others sees the declarations added for them.
/// `Err` when a call disagrees with a runtime function's declaration (the whole-module
/// run reports it).
pub(crate) fn undeclared_callees(
    module: &Module,
    ctx: &ModuleCtx,
    func: &Function,
) -> Result<Vec<(Symbol, Option<Type>, Loc)>, ()> {
    call_findings(module, ctx, func)
        .into_iter()
        .map(|finding| match finding {
            CallFinding::Missing(callee, sig, loc) => Ok((callee, sig, loc)),
            CallFinding::Conflict(..) => Err(()),
        })
        .collect()
}

/// What [`declare_runtime_functions`] finds at one direct call.
enum CallFinding {
    /// The callee is a runtime function the module declares (function `id`) with another
    /// signature than the call's: the lowered module could not verify.
    Conflict(FuncId, Symbol),
    /// The callee is neither declared nor a global: declare it with this signature (the
    /// first call's; `None` for the personality: its runtime row's), at this location.
    Missing(Symbol, Option<Type>, Loc),
}

/// The findings of the direct calls of `func`, in op order (`ctx` names the callees: the
/// module's context or a copy of it).
fn call_findings(module: &Module, ctx: &ModuleCtx, func: &Function) -> Vec<CallFinding> {
    let mut findings = Vec::new();
    // The personality the lowering gave the function, declared as upstream does
    // (`cir.func private @__gxx_personality_v0(...) -> !s32i`).
    if let Some(personality) = func.personality
        && ctx.name(personality) == ITANIUM_PERSONALITY
        && module.function_by_name(personality).is_none()
        && module.global_by_name(personality).is_none()
    {
        findings.push(CallFinding::Missing(personality, None, func.loc));
    }
    for op in func.walk_ops() {
        let (OpKind::Call { callee, sig, .. } | OpKind::TryCall { callee, sig, .. }) =
            *func.dfg.kind(op)
        else {
            continue;
        };
        let Some(callee) = callee.expand() else {
            continue;
        };
        match module.function_by_name(callee) {
            Some(id)
                if module.functions[id].sig != sig
                    && runtime_function(ctx.name(callee)).is_some() =>
            {
                findings.push(CallFinding::Conflict(id, callee));
            }
            Some(_) => {}
            // Only the first call of each missing callee counts.
            None if module.global_by_name(callee).is_none()
                && !findings
                    .iter()
                    .any(|f| matches!(f, CallFinding::Missing(s, ..) if *s == callee)) =>
            {
                findings.push(CallFinding::Missing(callee, Some(sig), func.dfg.loc(op)));
            }
            None => {}
        }
    }
    findings
}

/// One use of an EH token that the landing-pad analysis follows.
#[derive(Copy, Clone, Debug)]
enum TokenUse {
    /// An op that consumes the token (dispatch, begin_cleanup, begin_catch, resume,
    /// terminate), including ops that use it implicitly (a bare `cir.resume`).
    Op(Op),
    /// The token is passed to parameter `param` of `target`.
    Edge { target: Block, param: usize },
}

/// What the landing pad replacing one `cir.eh.initiate` looks like.
#[derive(Debug, PartialEq)]
struct LandingPadPlan {
    clauses: Vec<LandingPadClause>,
    cleanup: bool,
    /// The first handler is a noexcept boundary: catch everything, terminate at once.
    direct_terminate: bool,
    /// `unwind` keys (dispatch, key index) that lead only through cleanups to a noexcept
    /// boundary: they terminate instead.
    terminating_unwinds: Vec<(Op, usize)>,
}

/// The in-flight-token lattice of [`Lowering::implicit_tokens_in`].
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
enum InFlight {
    #[default]
    Unknown,
    Token(Value),
    Conflict,
}

impl InFlight {
    fn join(self, other: InFlight) -> InFlight {
        match (self, other) {
            (InFlight::Unknown, x) | (x, InFlight::Unknown) => x,
            (InFlight::Token(a), InFlight::Token(b)) if a == b => self,
            _ => InFlight::Conflict,
        }
    }
}

struct Lowering<'a> {
    ctx: &'a mut ModuleCtx,
    func: &'a mut Function,
    /// The module's common types (interned: a value is a `!cir.eh_token` when its type is
    /// `types.eh_token`).
    types: CommonTypes,
    /// Each EH token and the (exception pointer, selector) pair that replaces it.
    pairs: BTreeMap<Value, (Value, Value)>,
    /// Blocks whose parameter list was exactly one `!cir.eh_token` (dispatch targets).
    token_blocks: BTreeSet<Block>,
    /// 1:1 value replacements applied at the end.
    replace: BTreeMap<Value, Value>,
    /// Dispatch `unwind` keys that terminate instead (see [`LandingPadPlan`]).
    terminating_unwinds: BTreeSet<(Op, usize)>,
    /// The terminate landing pad at the end of the function that a catch parameter's copy
    /// unwinds to, once one is needed.
    copy_terminate_pad: Option<Block>,
}

impl<'a> Lowering<'a> {
    fn new(ctx: &'a mut ModuleCtx, func: &'a mut Function) -> Self {
        Lowering {
            types: *ctx.types.common(),
            ctx,
            func,
            pairs: BTreeMap::new(),
            token_blocks: BTreeSet::new(),
            replace: BTreeMap::new(),
            terminating_unwinds: BTreeSet::new(),
            copy_terminate_pad: None,
        }
    }

    fn error(&self, op: Op, message: impl Into<String>) -> Diagnostic {
        let loc = self.func.dfg.loc(op);
        Diagnostic::error(if loc == Loc::NONE { self.func.loc } else { loc }, message)
    }

    fn is_token(&self, v: Value) -> bool {
        self.func.dfg.value_type(v) == self.types.eh_token
    }

    fn blocks(&self) -> Vec<Block> {
        let body = self.func.body.expect("checked by lower_function");
        self.func.layout.blocks(body).collect()
    }

    /// The `cir.eh.initiate` ops of the function, in [`Lowering::ops_in_order`]'s order.
    /// The `cir.eh.initiate` ops of `order` (an op list of the function), in its order.
    fn initiates_in(&self, order: &[Op]) -> Vec<Op> {
        order
            .iter()
            .copied()
            .filter(|&op| matches!(self.func.dfg.kind(op), OpKind::EhInitiate { .. }))
            .collect()
    }

    fn ops_in_order(&self) -> Vec<Op> {
        // Sized once (every op of the graph, placed or not, is an upper bound) instead of
        // growing op by op: this runs several times per function.
        let mut out = Vec::with_capacity(self.func.dfg.ops.len());
        if let Some(body) = self.func.body {
            for b in self.func.layout.blocks(body) {
                out.extend(self.func.layout.ops(b));
            }
        }
        out
    }

    fn run(&mut self) -> Result<(), Diagnostic> {
        // The analyses below all walk the unmodified IR: one op list serves them all.
        let order = self.ops_in_order();
        if let Some(&copy) = order
            .iter()
            .find(|&&op| matches!(self.func.dfg.kind(op), OpKind::CopyCatchParam { .. }))
        {
            return Err(self.error(
                copy,
                "unsupported: 'cir.copy_catch_param' (a by-value catch parameter the Microsoft runtime builds) on the Itanium ABI, where the handler copies the exception object itself",
            ));
        }
        let implicit = self.implicit_tokens_in(&order)?;
        let uses = self.token_uses_in(&order, &implicit);
        // Plan every landing pad on the unmodified IR: in one pass over the token graph
        // when it can ([`Lowering::plan_all_shared`]), else (a cycle of token edges, or an
        // error to report) one walk per landing pad, which finds the first error.
        let initiates = self.initiates_in(&order);
        let plans = match self.plan_all_shared(&uses, &initiates) {
            Some(plans) => plans,
            None => {
                let mut plans = Vec::new();
                for &op in &initiates {
                    let OpKind::EhInitiate { cleanup } = *self.func.dfg.kind(op) else {
                        continue;
                    };
                    let token =
                        self.func.dfg.results(op).first().copied().ok_or_else(|| {
                            self.error(op, "cir.eh.initiate must produce a token")
                        })?;
                    plans.push((op, self.plan(&uses, token, cleanup)?));
                }
                plans
            }
        };
        self.expand_token_params();
        let has_landing_pad = !plans.is_empty();
        for (op, mut plan) in plans {
            self.terminating_unwinds
                .extend(std::mem::take(&mut plan.terminating_unwinds));
            self.lower_initiate(op, plan);
        }
        for op in self.ops_in_order() {
            // Ops removed by an earlier rewrite (a direct terminate) are skipped.
            if self.func.layout.op_block(op).is_none() {
                continue;
            }
            self.lower_op(op, &implicit)?;
        }
        self.apply_replacements();
        super::lower_init_catch_params(self.ctx, self.func)?;
        self.check_no_tokens_left()?;
        if has_landing_pad {
            self.func.personality = Some(self.ctx.sym(EhAbi::Itanium.personality()));
        }
        self.func.phase = Phase::Itanium;
        Ok(())
    }

    // ---- analysis --------------------------------------------------------------------------

    /// The token a bare `cir.resume` / `cir.eh.terminate` refers to: the exception in
    /// flight where it executes, by a forward dataflow over the CFG.
    /// `order` is the function's ops in layout order.
    fn implicit_tokens_in(&self, order: &[Op]) -> Result<BTreeMap<Op, Value>, Diagnostic> {
        let func = &*self.func;
        let bare: Vec<Op> = order
            .iter()
            .copied()
            .filter(|&op| {
                matches!(func.dfg.kind(op), OpKind::Resume | OpKind::EhTerminate)
                    && func.dfg.operands(op).is_empty()
            })
            .collect();
        if bare.is_empty() {
            return Ok(BTreeMap::new());
        }
        let blocks = self.blocks();
        let mut state_in: SecondaryMap<Block, InFlight> = SecondaryMap::new();
        let mut queued: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut work: Vec<Block> = blocks.iter().rev().copied().collect();
        for &b in &blocks {
            queued[b] = true;
        }
        let transfer = |b: Block, start: InFlight| -> InFlight {
            let mut cur = start;
            for &p in func.dfg.block_params(b) {
                if self.is_token(p) {
                    cur = InFlight::Token(p);
                }
            }
            for op in func.layout.ops(b) {
                if let OpKind::EhInitiate { .. } = func.dfg.kind(op)
                    && let Some(&t) = func.dfg.results(op).first()
                {
                    cur = InFlight::Token(t);
                }
            }
            cur
        };
        while let Some(b) = work.pop() {
            queued[b] = false;
            let out = transfer(b, state_in[b]);
            let Some(term) = func.layout.last_op(b) else {
                continue;
            };
            for s in func.dfg.successor_blocks(term) {
                let joined = state_in[s].join(out);
                if joined != state_in[s] {
                    state_in[s] = joined;
                    if !queued[s] {
                        queued[s] = true;
                        work.push(s);
                    }
                }
            }
        }
        let mut out = BTreeMap::new();
        for op in bare {
            let b = func.layout.op_block(op).expect("placed");
            // The state right before `op`: the block's parameters and initiates before it.
            let mut cur = state_in[b];
            for &p in func.dfg.block_params(b) {
                if self.is_token(p) {
                    cur = InFlight::Token(p);
                }
            }
            for o in func.layout.ops(b) {
                if o == op {
                    break;
                }
                if let OpKind::EhInitiate { .. } = func.dfg.kind(o)
                    && let Some(&t) = func.dfg.results(o).first()
                {
                    cur = InFlight::Token(t);
                }
            }
            match cur {
                InFlight::Token(t) => {
                    out.insert(op, t);
                }
                InFlight::Unknown if matches!(func.dfg.kind(op), OpKind::EhTerminate) => {}
                _ => {
                    return Err(self.error(
                        op,
                        format!(
                            "cannot tell which exception this {} refers to; pass the !cir.eh_token explicitly",
                            func.dfg.kind(op).name()
                        ),
                    ));
                }
            }
        }
        Ok(out)
    }

    /// The parameter of `target` that a dispatch's successor edge passes its token to.
    fn dispatch_token_param(&self, succ: Successor, token: Value) -> Option<(Block, usize)> {
        let dfg = &self.func.dfg;
        let target = dfg.successor_block(succ);
        let args = dfg.successor_args(succ);
        if !args.is_empty() {
            return args.iter().position(|&a| a == token).map(|i| (target, i));
        }
        let params = dfg.block_params(target);
        (params.len() == 1 && self.is_token(params[0])).then_some((target, 0))
    }

    /// Every use of every EH token, in layout order. Dispatch edges are not listed: the
    /// landing-pad walk follows only their `unwind` key.
    /// `order` is the function's ops in layout order.
    fn token_uses_in(
        &self,
        order: &[Op],
        implicit: &BTreeMap<Op, Value>,
    ) -> BTreeMap<Value, Vec<TokenUse>> {
        let dfg = &self.func.dfg;
        let mut uses: BTreeMap<Value, Vec<TokenUse>> = BTreeMap::new();
        for &op in order {
            for &v in dfg.operands(op) {
                if self.is_token(v) {
                    uses.entry(v).or_default().push(TokenUse::Op(op));
                }
            }
            if let Some(&t) = implicit.get(&op) {
                uses.entry(t).or_default().push(TokenUse::Op(op));
            }
            if matches!(dfg.kind(op), OpKind::EhDispatch { .. }) {
                continue;
            }
            for &s in dfg.successors(op) {
                let target = dfg.successor_block(s);
                for (i, &a) in dfg.successor_args(s).iter().enumerate() {
                    if self.is_token(a) {
                        uses.entry(a)
                            .or_default()
                            .push(TokenUse::Edge { target, param: i });
                    }
                }
            }
        }
        uses
    }

    fn typeinfo_symbol(&self, op: Op, a: ehir_core::Attr) -> Result<Symbol, Diagnostic> {
        match self.ctx.attrs.get(a) {
            AttrData::GlobalView {
                symbol, indices, ..
            } if indices.is_empty() => Ok(*symbol),
            _ => Err(self.error(
                op,
                "a catch type must be a typeinfo reference (#cir.global_view<@_ZTI...>)",
            )),
        }
    }

    fn filter_symbols(&self, op: Op, a: ehir_core::Attr) -> Result<Vec<Symbol>, Diagnostic> {
        match self.ctx.attrs.get(a) {
            AttrData::List(items) => items.iter().map(|&x| self.typeinfo_symbol(op, x)).collect(),
            AttrData::GlobalView { .. } => Ok(vec![self.typeinfo_symbol(op, a)?]),
            _ => Err(self.error(op, "a filter must be a list of typeinfo references")),
        }
    }

    /// Whether an exception whose token is `v` meets a noexcept boundary before any
    /// handler: it only passes cleanups and dispatches whose first key is `unwind` until
    /// it reaches a `terminate` key or `cir.eh.terminate`. g++ terminates right there,
    /// without running those cleanups.
    fn terminates_before_any_handler(
        &self,
        uses: &BTreeMap<Value, Vec<TokenUse>>,
        v: Value,
    ) -> bool {
        let dfg = &self.func.dfg;
        let mut found_terminate = false;
        let mut visited: BTreeSet<Value> = BTreeSet::from([v]);
        let mut work = vec![v];
        while let Some(v) = work.pop() {
            for &u in uses.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
                match u {
                    TokenUse::Edge { target, param } => {
                        if let Some(&p) = dfg.block_params(target).get(param)
                            && visited.insert(p)
                        {
                            work.push(p);
                        }
                    }
                    TokenUse::Op(op) => match *dfg.kind(op) {
                        OpKind::BeginCleanup => {}
                        OpKind::EhTerminate => found_terminate = true,
                        OpKind::EhDispatch { keys } => match dfg.handlers(keys).first() {
                            Some(HandlerKey::Terminate) => found_terminate = true,
                            Some(HandlerKey::Unwind) => {
                                let next = dfg
                                    .successors(op)
                                    .first()
                                    .and_then(|&s| self.dispatch_token_param(s, v));
                                if let Some((target, param)) = next
                                    && let Some(&p) = dfg.block_params(target).get(param)
                                    && visited.insert(p)
                                {
                                    work.push(p);
                                }
                            }
                            _ => return false,
                        },
                        // A resume leaves the function; a catch handles the exception.
                        _ => return false,
                    },
                }
            }
        }
        found_terminate
    }

    /// Follows the token of one `cir.eh.initiate` to every handler it can reach.
    fn plan(
        &self,
        uses: &BTreeMap<Value, Vec<TokenUse>>,
        token: Value,
        cleanup: bool,
    ) -> Result<LandingPadPlan, Diagnostic> {
        let dfg = &self.func.dfg;
        let mut plan = LandingPadPlan {
            clauses: Vec::new(),
            cleanup,
            direct_terminate: false,
            terminating_unwinds: Vec::new(),
        };
        if self.terminates_before_any_handler(uses, token) {
            plan.direct_terminate = true;
            return Ok(plan);
        }
        let mut visited: BTreeSet<Value> = BTreeSet::from([token]);
        let mut stack: Vec<(Value, usize)> = vec![(token, 0)];
        let add = |plan: &mut LandingPadPlan, c: LandingPadClause| {
            if !plan.clauses.contains(&c) {
                plan.clauses.push(c);
            }
        };
        while let Some(top) = stack.last_mut() {
            let (v, i) = *top;
            let Some(&u) = uses.get(&v).and_then(|l| l.get(i)) else {
                stack.pop();
                continue;
            };
            top.1 += 1;
            match u {
                TokenUse::Edge { target, param } => {
                    if let Some(&p) = dfg.block_params(target).get(param)
                        && visited.insert(p)
                    {
                        stack.push((p, 0));
                    }
                }
                TokenUse::Op(op) => match *dfg.kind(op) {
                    OpKind::BeginCleanup => plan.cleanup = true,
                    // A boundary after a handler: the pad must be entered in phase 2
                    // (as a cleanup) so that the boundary can terminate.
                    OpKind::EhTerminate | OpKind::EhUnexpected => plan.cleanup = true,
                    OpKind::EhDispatch { keys } => {
                        let succs = dfg.successors(op);
                        for (k, key) in dfg.handlers(keys).iter().enumerate() {
                            match *key {
                                HandlerKey::Catch(a) => {
                                    let s = self.typeinfo_symbol(op, a)?;
                                    add(&mut plan, LandingPadClause::Catch(Some(s)));
                                }
                                HandlerKey::CatchAll => {
                                    add(&mut plan, LandingPadClause::Catch(None));
                                    break;
                                }
                                HandlerKey::Filter(a) => {
                                    let list = self.filter_symbols(op, a)?;
                                    // Every filter's failure is a negative selector, and
                                    // LLVM IR cannot name one filter's: a pad reached by
                                    // two different specifications could not tell which
                                    // one failed (clang never nests them: a function has
                                    // one specification).
                                    if plan.clauses.iter().any(
                                        |c| matches!(c, LandingPadClause::Filter(l) if *l != list),
                                    ) {
                                        return Err(self.error(
                                            op,
                                            "eh-abi-lowering=itanium: an exception can meet two different exception specifications (`filter`) in this function; an Itanium landing pad cannot tell which one failed",
                                        ));
                                    }
                                    add(&mut plan, LandingPadClause::Filter(list));
                                }
                                HandlerKey::Terminate => {
                                    plan.cleanup = true;
                                    break;
                                }
                                HandlerKey::Unwind => {
                                    let next =
                                        succs.get(k).and_then(|&s| self.dispatch_token_param(s, v));
                                    if let Some((target, param)) = next
                                        && let Some(&p) = dfg.block_params(target).get(param)
                                    {
                                        if self.terminates_before_any_handler(uses, p) {
                                            // Nothing else can catch it here: terminate
                                            // at once instead of running the cleanups
                                            // on the way to the boundary.
                                            plan.terminating_unwinds.push((op, k));
                                            plan.cleanup = true;
                                        } else if visited.insert(p) {
                                            stack.push((p, 0));
                                        }
                                    }
                                    break;
                                }
                            }
                        }
                    }
                    _ => {}
                },
            }
        }
        if plan.clauses.is_empty() {
            plan.cleanup = true;
        }
        Ok(plan)
    }

    /// The token values from which an exception meets a noexcept boundary before any
    /// handler ([`Lowering::terminates_before_any_handler`] for every value at once):
    /// a value qualifies when the values it reaches along that walk's edges include a
    /// terminate and no other stop. Both are reachability facts, found by propagating
    /// them backwards over the reversed edges, so the cost is linear in the token graph
    /// (one walk per landing pad costs the length of its chain of cleanups each).
    fn terminating_values(
        &self,
        uses: &BTreeMap<Value, Vec<TokenUse>>,
    ) -> SecondaryMap<Value, bool> {
        let dfg = &self.func.dfg;
        let mut predecessors: SecondaryMap<Value, Vec<Value>> = SecondaryMap::new();
        let mut meets_terminate: SecondaryMap<Value, bool> = SecondaryMap::new();
        let mut meets_other: SecondaryMap<Value, bool> = SecondaryMap::new();
        let mut terminate_roots = Vec::new();
        let mut other_roots = Vec::new();
        for (&v, list) in uses {
            for &u in list {
                let next = match u {
                    TokenUse::Edge { target, param } => {
                        dfg.block_params(target).get(param).copied()
                    }
                    TokenUse::Op(op) => match *dfg.kind(op) {
                        OpKind::BeginCleanup => None,
                        OpKind::EhTerminate => {
                            if !meets_terminate[v] {
                                meets_terminate[v] = true;
                                terminate_roots.push(v);
                            }
                            None
                        }
                        OpKind::EhDispatch { keys } => match dfg.handlers(keys).first() {
                            Some(HandlerKey::Terminate) => {
                                if !meets_terminate[v] {
                                    meets_terminate[v] = true;
                                    terminate_roots.push(v);
                                }
                                None
                            }
                            Some(HandlerKey::Unwind) => dfg
                                .successors(op)
                                .first()
                                .and_then(|&s| self.dispatch_token_param(s, v))
                                .and_then(|(target, param)| {
                                    dfg.block_params(target).get(param).copied()
                                }),
                            _ => {
                                if !meets_other[v] {
                                    meets_other[v] = true;
                                    other_roots.push(v);
                                }
                                None
                            }
                        },
                        _ => {
                            if !meets_other[v] {
                                meets_other[v] = true;
                                other_roots.push(v);
                            }
                            None
                        }
                    },
                };
                if let Some(p) = next {
                    predecessors[p].push(v);
                }
            }
        }
        for (marks, mut work) in [
            (&mut meets_terminate, terminate_roots),
            (&mut meets_other, other_roots),
        ] {
            while let Some(v) = work.pop() {
                for &pred in &predecessors[v] {
                    if !marks[pred] {
                        marks[pred] = true;
                        work.push(pred);
                    }
                }
            }
        }
        let mut out: SecondaryMap<Value, bool> = SecondaryMap::new();
        for (v, &t) in meets_terminate.iter() {
            if t && !meets_other[v] {
                out[v] = true;
            }
        }
        out
    }

    /// Plans every landing pad of `initiates` (in that order) with one post-order walk of
    /// the token graph that summarizes each token value once: the handlers an exception
    /// carrying it reaches, in the order [`Lowering::plan`] meets them, and whether a
    /// cleanup runs. A value's summary is its uses' clauses and its successors' summaries,
    /// concatenated without repeats; a summary that adds nothing is shared, so a chain
    /// of cleanups costs one step per link instead of one per link and landing pad.
    ///
    /// On an acyclic token graph this is exactly [`Lowering::plan`] (a successor already
    /// visited by `plan`'s walk contributed its whole summary earlier). Returns `None`
    /// (the caller then plans each pad on its own) when the graph has a cycle, when an
    /// initiate has no token, or on any error, so that the error reported is the one
    /// `plan` finds first.
    fn plan_all_shared(
        &self,
        uses: &BTreeMap<Value, Vec<TokenUse>>,
        initiates: &[Op],
    ) -> Option<Vec<(Op, LandingPadPlan)>> {
        /// What an exception carrying one token value meets.
        #[derive(Clone, Default)]
        struct Summary {
            clauses: Rc<Vec<LandingPadClause>>,
            cleanup: bool,
        }
        /// Appends `more` to `acc` without repeats; `None` on two different filters.
        fn merge(acc: &mut Summary, more: &Summary) -> Option<()> {
            acc.cleanup |= more.cleanup;
            if more.clauses.is_empty() || Rc::ptr_eq(&acc.clauses, &more.clauses) {
                return Some(());
            }
            if acc.clauses.is_empty() {
                acc.clauses = Rc::clone(&more.clauses);
                return Some(());
            }
            let seen: HashSet<&LandingPadClause> = acc.clauses.iter().collect();
            let has_filter = acc
                .clauses
                .iter()
                .any(|c| matches!(c, LandingPadClause::Filter(_)));
            let new: Vec<LandingPadClause> = more
                .clauses
                .iter()
                .filter(|c| !seen.contains(c))
                .cloned()
                .collect();
            if has_filter && new.iter().any(|c| matches!(c, LandingPadClause::Filter(_))) {
                return None;
            }
            if !new.is_empty() {
                Rc::make_mut(&mut acc.clauses).extend(new);
            }
            Some(())
        }
        fn add(acc: &mut Summary, clause: LandingPadClause) -> Option<()> {
            if acc.clauses.contains(&clause) {
                return Some(());
            }
            if matches!(clause, LandingPadClause::Filter(_))
                && acc
                    .clauses
                    .iter()
                    .any(|c| matches!(c, LandingPadClause::Filter(_)))
            {
                return None;
            }
            Rc::make_mut(&mut acc.clauses).push(clause);
            Some(())
        }
        /// Walk colours: on the stack, done.
        #[derive(Copy, Clone, PartialEq, Eq, Default)]
        enum Colour {
            #[default]
            New,
            Open,
            Done,
        }

        let dfg = &self.func.dfg;
        let terminating = self.terminating_values(uses);
        let mut colour: SecondaryMap<Value, Colour> = SecondaryMap::new();
        let mut summaries: SecondaryMap<Value, Option<Summary>> = SecondaryMap::new();
        let mut terminating_unwinds: BTreeSet<(Op, usize)> = BTreeSet::new();
        let mut plans = Vec::with_capacity(initiates.len());
        let no_uses: &[TokenUse] = &[];
        for &op in initiates {
            let OpKind::EhInitiate { cleanup } = *dfg.kind(op) else {
                continue;
            };
            let token = *dfg.results(op).first()?;
            if terminating[token] {
                plans.push((
                    op,
                    LandingPadPlan {
                        clauses: Vec::new(),
                        cleanup,
                        direct_terminate: true,
                        terminating_unwinds: Vec::new(),
                    },
                ));
                continue;
            }
            // Post-order walk: (value, next use, summary so far).
            let mut stack: Vec<(Value, usize, Summary)> = Vec::new();
            if colour[token] == Colour::New {
                colour[token] = Colour::Open;
                stack.push((token, 0, Summary::default()));
            }
            while let Some(top) = stack.last_mut() {
                let (v, i) = (top.0, top.1);
                let Some(&u) = uses.get(&v).map_or(no_uses, Vec::as_slice).get(i) else {
                    let (v, _, summary) = stack.pop()?;
                    colour[v] = Colour::Done;
                    if let Some(parent) = stack.last_mut() {
                        merge(&mut parent.2, &summary)?;
                    }
                    summaries[v] = Some(summary);
                    continue;
                };
                top.1 += 1;
                let mut child = None;
                match u {
                    TokenUse::Edge { target, param } => {
                        child = dfg.block_params(target).get(param).copied();
                    }
                    TokenUse::Op(use_op) => match *dfg.kind(use_op) {
                        OpKind::BeginCleanup | OpKind::EhTerminate | OpKind::EhUnexpected => {
                            top.2.cleanup = true
                        }
                        OpKind::EhDispatch { keys } => {
                            let succs = dfg.successors(use_op);
                            for (k, key) in dfg.handlers(keys).iter().enumerate() {
                                match *key {
                                    HandlerKey::Catch(a) => {
                                        let s = self.typeinfo_symbol(use_op, a).ok()?;
                                        add(&mut top.2, LandingPadClause::Catch(Some(s)))?;
                                    }
                                    HandlerKey::CatchAll => {
                                        add(&mut top.2, LandingPadClause::Catch(None))?;
                                        break;
                                    }
                                    HandlerKey::Filter(a) => {
                                        let list = self.filter_symbols(use_op, a).ok()?;
                                        add(&mut top.2, LandingPadClause::Filter(list))?;
                                    }
                                    HandlerKey::Terminate => {
                                        top.2.cleanup = true;
                                        break;
                                    }
                                    HandlerKey::Unwind => {
                                        let next = succs
                                            .get(k)
                                            .and_then(|&s| self.dispatch_token_param(s, v))
                                            .and_then(|(target, param)| {
                                                dfg.block_params(target).get(param).copied()
                                            });
                                        if let Some(p) = next {
                                            if terminating[p] {
                                                terminating_unwinds.insert((use_op, k));
                                                top.2.cleanup = true;
                                            } else {
                                                child = Some(p);
                                            }
                                        }
                                        break;
                                    }
                                }
                            }
                        }
                        _ => {}
                    },
                }
                let Some(p) = child else { continue };
                match colour[p] {
                    Colour::New => {
                        colour[p] = Colour::Open;
                        stack.push((p, 0, Summary::default()));
                    }
                    // A cycle: `plan`'s walk order cannot be summarized per value.
                    Colour::Open => return None,
                    Colour::Done => {
                        let done = summaries[p].clone()?;
                        merge(&mut stack.last_mut()?.2, &done)?;
                    }
                }
            }
            let summary = summaries[token].as_ref()?;
            let clauses: Vec<LandingPadClause> = summary.clauses.as_ref().clone();
            let cleanup = cleanup || summary.cleanup || clauses.is_empty();
            plans.push((
                op,
                LandingPadPlan {
                    clauses,
                    cleanup,
                    direct_terminate: false,
                    terminating_unwinds: Vec::new(),
                },
            ));
        }
        if let Some((_, first)) = plans.first_mut() {
            first.terminating_unwinds = terminating_unwinds.into_iter().collect();
        }
        Some(plans)
    }

    // ---- rewrites ----------------------------------------------------------------------------

    /// A cursor at `at`; the ops it builds get the location `loc`.
    fn cursor(&mut self, at: CursorPosition, loc: Loc) -> FuncCursor<'_> {
        let types = *self.ctx.types.common();
        FuncCursor::at(self.func, &types, at).with_loc(loc)
    }

    /// A direct call of a runtime function, with the signature and `nothrow` of its row in
    /// `ehir_core::abi::runtime`; returns its result.
    fn call(&mut self, at: CursorPosition, name: &str, args: &[Value], loc: Loc) -> Option<Value> {
        let function = runtime_function(name).expect("the lowering calls known runtime functions");
        let callee = self.ctx.sym(name);
        let sig = function.cir_signature(&mut self.ctx.types);
        let ret = function.result.map(|r| r.cir_type(&self.ctx.types));
        let flags = CallFlags {
            nothrow: function.call_nothrow,
            exception: false,
            noreturn: function.noreturn,
        };
        let op = self
            .cursor(at, loc)
            .call(Some(callee), sig, flags, args, ret);
        self.func.dfg.results(op).first().copied()
    }

    /// `__clang_call_terminate(%exn)` (which calls `__cxa_begin_catch(%exn)` then
    /// `std::terminate()`, [`clang_call_terminate_definition`]) when the exception was
    /// caught here, else `std::terminate()`: what libstdc++ does when an exception reaches
    /// a frame that must not let it pass.
    fn terminate_with(&mut self, at: CursorPosition, exn: Option<Value>, loc: Loc) {
        match exn {
            Some(exn) => self.call(at, CLANG_CALL_TERMINATE, &[exn], loc),
            None => self.call(at, STD_TERMINATE, &[], loc),
        };
        self.cursor(at, loc).unreachable();
    }

    /// Replaces every `!cir.eh_token` block parameter by an (exception, selector) pair.
    fn expand_token_params(&mut self) {
        let (void_ptr, u32) = (self.types.void_ptr, self.types.u32);
        for b in self.blocks() {
            if !self
                .func
                .dfg
                .block_params(b)
                .iter()
                .any(|&v| self.is_token(v))
            {
                continue;
            }
            let old: Vec<Value> = self.func.dfg.block_params(b).to_vec();
            if old.len() == 1 {
                self.token_blocks.insert(b);
            }
            let is_token: Vec<bool> = old.iter().map(|&v| self.is_token(v)).collect();
            let dfg = &mut self.func.dfg;
            dfg.blocks[b].params.clear(&mut dfg.value_lists);
            let mut index = 0u32;
            for (&v, token) in old.iter().zip(is_token) {
                if token {
                    let exn = dfg.append_block_param(b, void_ptr);
                    let sel = dfg.append_block_param(b, u32);
                    self.pairs.insert(v, (exn, sel));
                    index += 2;
                } else {
                    dfg.values[v].def = ValueDef::Param(b, index);
                    dfg.blocks[b].params.push(v, &mut dfg.value_lists);
                    index += 1;
                }
            }
        }
    }

    fn lower_initiate(&mut self, op: Op, plan: LandingPadPlan) {
        let loc = self.func.dfg.loc(op);
        let token = self.func.dfg.results(op)[0];
        let block = self.func.layout.op_block(op).expect("placed");
        let (clauses, cleanup) = if plan.direct_terminate {
            (vec![LandingPadClause::Catch(None)], false)
        } else {
            (plan.clauses, plan.cleanup)
        };
        let (exn, sel) = self
            .cursor(CursorPosition::Before(op), loc)
            .eh_landingpad(cleanup, clauses);
        let lp = self
            .func
            .layout
            .prev_op(op)
            .expect("the landing pad is before the initiate");
        self.func.layout.remove_op(op);
        self.pairs.insert(token, (exn, sel));
        if plan.direct_terminate {
            // Nothing of this frame runs: drop the rest of the block, terminate here.
            let rest: Vec<Op> = self
                .func
                .layout
                .ops(block)
                .skip_while(|&o| o != lp)
                .skip(1)
                .collect();
            for o in rest {
                self.func.layout.remove_op(o);
            }
            self.terminate_with(CursorPosition::End(block), Some(exn), loc);
        }
    }

    fn pair(&self, op: Op, token: Value) -> Result<(Value, Value), Diagnostic> {
        self.pairs.get(&token).copied().ok_or_else(|| {
            self.error(
                op,
                "this !cir.eh_token does not come from a cir.eh.initiate",
            )
        })
    }

    /// The arguments after token expansion.
    fn expand_args(&self, op: Op, args: &[Value]) -> Result<Vec<Value>, Diagnostic> {
        let mut out = Vec::with_capacity(args.len());
        for &a in args {
            if self.is_token(a) {
                let (exn, sel) = self.pair(op, a)?;
                out.push(exn);
                out.push(sel);
            } else {
                out.push(a);
            }
        }
        Ok(out)
    }

    fn lower_op(&mut self, op: Op, implicit: &BTreeMap<Op, Value>) -> Result<(), Diagnostic> {
        let loc = self.func.dfg.loc(op);
        let kind = *self.func.dfg.kind(op);
        if !Self::lowers_by_kind(&kind) {
            return self.lower_other_op(op, kind);
        }
        let operands: Vec<Value> = self.func.dfg.operands(op).to_vec();
        let token_of = |this: &Self| -> Option<Value> {
            operands
                .first()
                .copied()
                .filter(|&v| this.is_token(v))
                .or_else(|| implicit.get(&op).copied())
        };
        match kind {
            OpKind::EhDispatch { keys } => self.lower_dispatch(op, keys)?,
            OpKind::BeginCleanup | OpKind::EndCleanup => self.func.layout.remove_op(op),
            OpKind::BeginCatch => {
                let token = token_of(self)
                    .ok_or_else(|| self.error(op, "cir.begin_catch needs a !cir.eh_token"))?;
                let (exn, _) = self.pair(op, token)?;
                let object = self
                    .call(CursorPosition::Before(op), "__cxa_begin_catch", &[exn], loc)
                    .expect("begin_catch returns a pointer");
                if let Some(&typed) = self.func.dfg.results(op).get(1) {
                    let ty = self.func.dfg.value_type(typed);
                    let new = if ty == self.func.dfg.value_type(object) {
                        object
                    } else {
                        self.cursor(CursorPosition::Before(op), loc).cast(
                            CastKind::Bitcast,
                            object,
                            ty,
                        )
                    };
                    self.replace.insert(typed, new);
                }
                self.func.layout.remove_op(op);
            }
            OpKind::ConstructCatchParam { kind, .. } => {
                let token = token_of(self).ok_or_else(|| {
                    self.error(op, "cir.construct_catch_param needs a !cir.eh_token")
                })?;
                let (exn, _) = self.pair(op, token)?;
                self.lower_construct_catch_param(op, kind, exn)?;
            }
            OpKind::EndCatch => {
                self.call(CursorPosition::Before(op), "__cxa_end_catch", &[], loc);
                self.func.layout.remove_op(op);
            }
            OpKind::Resume => {
                let token = token_of(self).ok_or_else(|| {
                    self.error(op, "cannot tell which exception this cir.resume continues")
                })?;
                let (exn, sel) = self.pair(op, token)?;
                self.cursor(CursorPosition::Before(op), loc)
                    .resume_flat(exn, sel);
                self.func.layout.remove_op(op);
            }
            OpKind::EhTerminate => {
                // Reached only after a cleanup-entered landing pad (a direct one never
                // gets here): the exception was not caught, so no __cxa_begin_catch.
                self.terminate_with(CursorPosition::Before(op), None, loc);
                self.func.layout.remove_op(op);
            }
            OpKind::EhUnexpected => {
                // The exception breaks a dynamic exception specification.
                let token = token_of(self).ok_or_else(|| {
                    self.error(
                        op,
                        "cannot tell which exception this cir.eh.unexpected is for",
                    )
                })?;
                let (exn, _) = self.pair(op, token)?;
                let at = CursorPosition::Before(op);
                self.call(at, "__cxa_call_unexpected", &[exn], loc);
                self.cursor(at, loc).unreachable();
                self.func.layout.remove_op(op);
            }
            OpKind::EhInitiate { .. } => {
                return Err(self.error(op, "cir.eh.initiate must begin its block"));
            }
            _ => self.lower_other_op(op, kind)?,
        }
        Ok(())
    }

    /// Upstream's `cir.construct_catch_param KIND %t to %dest` before `cir.begin_catch`,
    /// with `exn` the exception pointer of `%t` (the `_Unwind_Exception`): for
    /// `reference_to_pointer` (`catch (T *&)`, T not a class) the reference binds to the
    /// thrown pointer itself, which follows the 32-byte unwind header:
    /// `%o = cir.ptr_stride %exn, 32`, cast to the reference's type and stored at `%dest`.
    /// Other kinds in flat code (the copy thunk's inlining) are not supported yet.
    fn lower_construct_catch_param(
        &mut self,
        op: Op,
        kind: Symbol,
        exn: Value,
    ) -> Result<(), Diagnostic> {
        let kind_name = self.ctx.name(kind).to_string();
        if kind_name == "non_trivial_copy" {
            return self.lower_catch_copy(op, exn);
        }
        if kind_name != "reference_to_pointer" {
            return Err(self.error(
                op,
                format!(
                    "not supported yet: EH ABI lowering of a flat 'cir.construct_catch_param' of kind '{kind_name}'"
                ),
            ));
        }
        let loc = self.func.dfg.loc(op);
        let dest = self.func.dfg.operands(op)[1];
        let Some(reference) = self.ctx.types.pointee(self.func.dfg.value_type(dest)) else {
            return Err(self.error(op, "the catch parameter's address must be a pointer"));
        };
        let header = self.ctx.attrs.intern(AttrData::Int {
            value: i128::from(ITANIUM_UNWIND_HEADER_SIZE),
            ty: self.types.u32,
        });
        let u32 = self.types.u32;
        let mut at = self.cursor(CursorPosition::Before(op), loc);
        let size = at.constant(header, u32);
        let object = at.ptr_stride(exn, size);
        let object = at.cast(CastKind::Bitcast, object, reference);
        at.store(object, dest);
        self.func.layout.remove_op(op);
        Ok(())
    }

    /// Upstream's `cir.construct_catch_param non_trivial_copy %t to %p using @thunk :
    /// !cir.ptr<T>` before `cir.begin_catch`, with `exn` the exception pointer of `%t`: the
    /// parameter is copy-constructed from the thrown object before the catch begins, as
    /// Clang does, and a copy that throws terminates:
    /// ```text
    /// %o = cir.call @__cxa_get_exception_ptr(%exn) nothrow
    /// %a = cir.cast bitcast %o : !cir.ptr<!void> -> !cir.ptr<T>
    /// cir.try_call @thunk(%p, %a) ^rest, ^terminate
    /// ```
    /// where `^terminate` (one per function, at its end) is `cir.eh.inflight_exception
    /// catch_all` and `cir.call @__clang_call_terminate(%e) nothrow {noreturn}`. Upstream
    /// inlines the thunk's body there instead (this pass sees one function); the thunk
    /// stays in the module and is called.
    fn lower_catch_copy(&mut self, op: Op, exn: Value) -> Result<(), Diagnostic> {
        let OpKind::ConstructCatchParam { thunk, .. } = *self.func.dfg.kind(op) else {
            return Err(self.error(op, "expected a cir.construct_catch_param"));
        };
        let Some(thunk) = thunk.expand() else {
            return Err(self.error(
                op,
                "a 'non_trivial_copy' catch parameter needs its copy thunk ('using @thunk')",
            ));
        };
        let loc = self.func.dfg.loc(op);
        let dest = self.func.dfg.operands(op)[1];
        let dest_ty = self.func.dfg.value_type(dest);
        let at = CursorPosition::Before(op);
        let object = self
            .call(at, "__cxa_get_exception_ptr", &[exn], loc)
            .expect("__cxa_get_exception_ptr returns a pointer");
        let object = self
            .cursor(at, loc)
            .cast(CastKind::Bitcast, object, dest_ty);
        let block = self.func.layout.op_block(op).expect("placed");
        let rest = self.new_block_after(block);
        self.func.layout.split_ops_to(op, rest);
        self.func.layout.remove_op(op);
        let pad = self.copy_terminate_pad(loc);
        let sig = self.ctx.types.func(vec![dest_ty, dest_ty], None, false);
        self.cursor(CursorPosition::End(block), loc).try_call(
            Some(thunk),
            sig,
            CallFlags::default(),
            &[dest, object],
            None,
            rest,
            pad,
        );
        Ok(())
    }

    /// The landing pad a catch parameter's copy unwinds to (made on first use, at the end
    /// of the function): it catches everything and calls `__clang_call_terminate`.
    fn copy_terminate_pad(&mut self, loc: Loc) -> Block {
        if let Some(pad) = self.copy_terminate_pad {
            return pad;
        }
        let body = self.func.body.expect("a lowered function has a body");
        let pad = self.func.dfg.make_block();
        self.func.layout.append_block(body, pad);
        let at = CursorPosition::End(pad);
        let (exn, _) = self
            .cursor(at, loc)
            .eh_landingpad(false, vec![LandingPadClause::Catch(None)]);
        self.terminate_with(at, Some(exn), loc);
        self.copy_terminate_pad = Some(pad);
        pad
    }

    /// Whether [`Lowering::lower_op`] rewrites ops of this kind by what they are (the
    /// others only have their token arguments expanded, [`Lowering::lower_other_op`]).
    fn lowers_by_kind(kind: &OpKind) -> bool {
        matches!(
            kind,
            OpKind::EhDispatch { .. }
                | OpKind::BeginCleanup
                | OpKind::EndCleanup
                | OpKind::BeginCatch
                | OpKind::EndCatch
                | OpKind::ConstructCatchParam { .. }
                | OpKind::Resume
                | OpKind::EhTerminate
                | OpKind::EhUnexpected
                | OpKind::EhInitiate { .. }
        )
    }

    /// An op that is not an EH op: it may not take a token, and the token arguments it
    /// passes along its edges become the exception pointer and selector. Copies nothing
    /// unless an edge passes a token (the common case allocates nothing).
    fn lower_other_op(&mut self, op: Op, kind: OpKind) -> Result<(), Diagnostic> {
        if self.func.dfg.operands(op).iter().any(|&v| self.is_token(v)) {
            return Err(self.error(op, format!("{} cannot take a !cir.eh_token", kind.name())));
        }
        for i in 0..self.func.dfg.successors(op).len() {
            let s = self.func.dfg.successors(op)[i];
            let args = self.func.dfg.successor_args(s);
            if args.iter().any(|&a| self.is_token(a)) {
                let args = args.to_vec();
                let new = self.expand_args(op, &args)?;
                let block = self.func.dfg.successor_block(s);
                self.func.dfg.set_successor(s, block, &new);
            }
        }
        Ok(())
    }

    /// The arguments a dispatch passes along successor edge `succ`.
    fn dispatch_args(
        &self,
        op: Op,
        succ: Successor,
        exn: Value,
        sel: Value,
    ) -> Result<Vec<Value>, Diagnostic> {
        let dfg = &self.func.dfg;
        let target = dfg.successor_block(succ);
        let args = dfg.successor_args(succ);
        if args.is_empty() {
            return Ok(if self.token_blocks.contains(&target) {
                vec![exn, sel]
            } else {
                vec![]
            });
        }
        self.expand_args(op, args)
    }

    fn lower_dispatch(&mut self, op: Op, keys: ehir_core::Extra) -> Result<(), Diagnostic> {
        let loc = self.func.dfg.loc(op);
        let token = *self
            .func
            .dfg
            .operands(op)
            .first()
            .ok_or_else(|| self.error(op, "cir.eh.dispatch needs a token"))?;
        let (exn, sel) = self.pair(op, token)?;
        let keys: Vec<HandlerKey> = self.func.dfg.handlers(keys).to_vec();
        let succs: Vec<Successor> = self.func.dfg.successors(op).to_vec();
        if keys.len() != succs.len() {
            return Err(self.error(op, "cir.eh.dispatch needs one destination per key"));
        }
        let mut after = self.func.layout.op_block(op).expect("placed");
        let mut at = CursorPosition::Before(op);
        let mut finished = false;
        let s32 = self.types.s32;
        // Every key that tests the selector runs in a block of its own that takes the
        // (exception, selector) pair as parameters, as upstream's lowering builds it; the
        // dispatch block branches to the first one.
        let (dispatch_exn, dispatch_sel) = (exn, sel);
        let (mut exn, mut sel) = (exn, sel);
        // An empty filter (`throw()`) needs no test: every exception that reaches it
        // violates it (the selector is negative there), so it branches unconditionally,
        // as upstream's lowering does.
        let mut empty_filters = Vec::with_capacity(keys.len());
        for key in &keys {
            empty_filters.push(match *key {
                HandlerKey::Filter(a) => self.filter_symbols(op, a)?.is_empty(),
                _ => false,
            });
        }
        if keys.first().is_some_and(|key| {
            matches!(key, HandlerKey::Catch(_))
                || matches!(key, HandlerKey::Filter(_)) && !empty_filters[0]
        }) {
            let first = self.new_test_block_after(after);
            after = first;
            self.cursor(at, loc).br(first, &[exn, sel]);
            (exn, sel) = self.test_block_pair(first);
            at = CursorPosition::End(first);
        }
        // The arguments of an edge leaving the test block that holds (exn, sel).
        let edge_args = |this: &Self, succ: Successor, exn: Value, sel: Value| {
            this.dispatch_args(op, succ, exn, sel).map(|args| {
                args.into_iter()
                    .map(|v| match v {
                        v if v == dispatch_exn => exn,
                        v if v == dispatch_sel => sel,
                        v => v,
                    })
                    .collect::<Vec<Value>>()
            })
        };
        let mut k = 0;
        while k < keys.len() {
            let succ = succs[k];
            let target = self.func.dfg.successor_block(succ);
            let args = edge_args(self, succ, exn, sel)?;
            // Where a failed test goes: straight to the next key's destination when that
            // key is an unconditional branch, else a new block that tests the next key.
            let next_is_branch = match keys.get(k + 1) {
                Some(HandlerKey::CatchAll) => true,
                Some(HandlerKey::Unwind) => !self.terminating_unwinds.contains(&(op, k + 1)),
                _ => false,
            };
            let otherwise =
                |this: &mut Self, after: &mut Block| -> Result<(Block, Vec<Value>), Diagnostic> {
                    if next_is_branch {
                        let s = succs[k + 1];
                        let t = this.func.dfg.successor_block(s);
                        Ok((t, edge_args(this, s, exn, sel)?))
                    } else {
                        let next = this.new_test_block_after(*after);
                        *after = next;
                        Ok((next, vec![exn, sel]))
                    }
                };
            match keys[k] {
                HandlerKey::Catch(a) => {
                    let ti = self.typeinfo_symbol(op, a)?;
                    let id = self.cursor(at, loc).eh_typeid(ti);
                    let cond = self.cursor(at, loc).cmp(CmpPredicate::Eq, sel, id);
                    let (else_block, else_args) = otherwise(self, &mut after)?;
                    self.cursor(at, loc)
                        .brcond(cond, (target, &args), (else_block, &else_args));
                    at = CursorPosition::End(else_block);
                    if !next_is_branch {
                        (exn, sel) = self.test_block_pair(else_block);
                    }
                }
                HandlerKey::Filter(_) if empty_filters[k] => {
                    let spelled =
                        !args.is_empty()
                            && self.func.layout.first_op(target).is_some_and(|o| {
                                matches!(self.func.dfg.kind(o), OpKind::EhUnexpected)
                            });
                    if spelled {
                        self.cursor(at, loc).br(target, &args);
                    } else {
                        self.call(at, "__cxa_call_unexpected", &[exn], loc);
                        self.cursor(at, loc).unreachable();
                    }
                    finished = true;
                    break;
                }
                HandlerKey::Filter(_) => {
                    // A negative selector: the exception violates the specification.
                    let signed = self.cursor(at, loc).cast(CastKind::Integral, sel, s32);
                    let zero_attr = self.ctx.attrs.intern(AttrData::Int { value: 0, ty: s32 });
                    let zero = self.cursor(at, loc).constant(zero_attr, s32);
                    let cond = self.cursor(at, loc).cmp(CmpPredicate::Lt, signed, zero);
                    // Upstream's form: the entry's destination is `cir.eh.unexpected %t`,
                    // which is lowered where it stands (a call of __cxa_call_unexpected).
                    let spelled =
                        !args.is_empty()
                            && self.func.layout.first_op(target).is_some_and(|o| {
                                matches!(self.func.dfg.kind(o), OpKind::EhUnexpected)
                            });
                    if spelled {
                        let (else_block, else_args) = otherwise(self, &mut after)?;
                        self.cursor(at, loc).brcond(
                            cond,
                            (target, &args),
                            (else_block, &else_args),
                        );
                        at = CursorPosition::End(else_block);
                        if !next_is_branch {
                            (exn, sel) = self.test_block_pair(else_block);
                        }
                    } else {
                        let unexpected = self.new_block_after(after);
                        after = unexpected;
                        let (else_block, else_args) = otherwise(self, &mut after)?;
                        self.cursor(at, loc).brcond(
                            cond,
                            (unexpected, &[]),
                            (else_block, &else_args),
                        );
                        let unexpected_at = CursorPosition::End(unexpected);
                        self.call(unexpected_at, "__cxa_call_unexpected", &[exn], loc);
                        self.cursor(unexpected_at, loc).unreachable();
                        at = CursorPosition::End(else_block);
                        if !next_is_branch {
                            (exn, sel) = self.test_block_pair(else_block);
                        }
                    }
                }
                HandlerKey::Unwind if self.terminating_unwinds.contains(&(op, k)) => {
                    // Only cleanups stand between here and a noexcept boundary.
                    self.terminate_with(at, None, loc);
                    finished = true;
                    break;
                }
                HandlerKey::CatchAll | HandlerKey::Unwind => {
                    self.cursor(at, loc).br(target, &args);
                    finished = true;
                    break;
                }
                HandlerKey::Terminate => {
                    // Only cleanup-entered pads get here (see `plan`): the exception was
                    // not caught, so std::terminate without __cxa_begin_catch, as g++.
                    self.terminate_with(at, None, loc);
                    finished = true;
                    break;
                }
            }
            if next_is_branch {
                finished = true;
                break;
            }
            k += 1;
        }
        if !finished {
            self.cursor(at, loc).resume_flat(exn, sel);
        }
        self.func.layout.remove_op(op);
        Ok(())
    }

    fn new_block_after(&mut self, after: Block) -> Block {
        let b = self.func.dfg.make_block();
        self.func.layout.insert_block_after(b, after);
        b
    }

    /// A new block after `after` for one selector test of a dispatch chain: it takes the
    /// (exception, selector) pair as its parameters.
    fn new_test_block_after(&mut self, after: Block) -> Block {
        let b = self.new_block_after(after);
        self.func.dfg.append_block_param(b, self.types.void_ptr);
        self.func.dfg.append_block_param(b, self.types.u32);
        b
    }

    /// The (exception, selector) parameters of a block made by
    /// [`Lowering::new_test_block_after`].
    fn test_block_pair(&self, block: Block) -> (Value, Value) {
        let params = self.func.dfg.block_params(block);
        (params[0], params[1])
    }

    fn apply_replacements(&mut self) {
        if self.replace.is_empty() {
            return;
        }
        // The replacements as a dense table: one array lookup per operand.
        let mut replacement: SecondaryMap<Value, PackedOption<Value>> =
            SecondaryMap::with_capacity(self.func.dfg.values.len());
        for (&from, &to) in &self.replace {
            replacement[from] = to.into();
        }
        let count = self.replace.len();
        let resolve = |replacement: &SecondaryMap<Value, PackedOption<Value>>, mut v: Value| {
            let mut steps = 0;
            while let Some(n) = replacement[v].expand() {
                v = n;
                steps += 1;
                if steps > count {
                    break;
                }
            }
            v
        };
        for op in self.ops_in_order() {
            let dfg = &mut self.func.dfg;
            for v in dfg.operands_mut(op) {
                *v = resolve(&replacement, *v);
            }
            // Only edges that pass a replaced value are rewritten (no copy of the others).
            for i in 0..dfg.successors(op).len() {
                let s = dfg.successors(op)[i];
                if !dfg
                    .successor_args(s)
                    .iter()
                    .any(|&a| replacement[a].is_some())
                {
                    continue;
                }
                let args: Vec<Value> = dfg
                    .successor_args(s)
                    .iter()
                    .map(|&a| resolve(&replacement, a))
                    .collect();
                let block = dfg.successor_block(s);
                dfg.set_successor(s, block, &args);
            }
        }
    }

    fn check_no_tokens_left(&self) -> Result<(), Diagnostic> {
        for op in self.ops_in_order() {
            let dfg = &self.func.dfg;
            let token_result = dfg.results(op).iter().any(|&v| self.is_token(v));
            let token_operand = dfg.operands(op).iter().any(|&v| self.is_token(v));
            let token_arg = dfg
                .successors(op)
                .iter()
                .any(|&s| dfg.successor_args(s).iter().any(|&a| self.is_token(a)));
            if token_result || token_operand || token_arg {
                return Err(self.error(
                    op,
                    format!(
                        "{} still uses an EH token after eh-abi-lowering=itanium",
                        dfg.kind(op).name()
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! The shared planner ([`Lowering::plan_all_shared`]) against one walk per landing pad
    //! ([`Lowering::plan`]) on the file tests, generated programs and deep chains.

    use super::*;

    /// Plans every flat function of `text` (after `lowering-prepare,flatten-cfg` when it
    /// is structured) both ways; returns how many landing pads were compared.
    fn compare(name: &str, text: &str) -> usize {
        let Ok(mut module) = ehir_reader::parse_module(name, text) else {
            return 0;
        };
        if ehir_core::verifier::verify_module(&module).is_err() {
            return 0;
        }
        let mut pm = crate::PassManager::from_pipeline("lowering-prepare,flatten-cfg")
            .expect("known passes");
        if pm.run(&mut module).is_err() {
            return 0;
        }
        let mut compared = 0;
        let ids: Vec<_> = module.functions.keys().collect();
        for id in ids {
            let mut func = module.functions[id].clone();
            if func.phase != Phase::Flat || func.body.is_none() {
                continue;
            }
            let lowering = Lowering::new(&mut module.ctx, &mut func);
            let order = lowering.ops_in_order();
            let Ok(implicit) = lowering.implicit_tokens_in(&order) else {
                continue;
            };
            let uses = lowering.token_uses_in(&order, &implicit);
            let initiates = lowering.initiates_in(&order);
            let Some(mut shared) = lowering.plan_all_shared(&uses, &initiates) else {
                continue;
            };
            let mut shared_unwinds = BTreeSet::new();
            for (_, plan) in &mut shared {
                shared_unwinds.extend(std::mem::take(&mut plan.terminating_unwinds));
            }
            let mut per_pad_unwinds = BTreeSet::new();
            for (&op, (shared_op, shared_plan)) in initiates.iter().zip(&shared) {
                let OpKind::EhInitiate { cleanup } = *lowering.func.dfg.kind(op) else {
                    unreachable!("filtered above");
                };
                let token = lowering.func.dfg.results(op)[0];
                let mut plan = lowering.plan(&uses, token, cleanup).expect("no error");
                per_pad_unwinds.extend(std::mem::take(&mut plan.terminating_unwinds));
                assert_eq!(op, *shared_op, "{name}");
                assert_eq!(&plan, shared_plan, "{name}: landing pad {op}");
                compared += 1;
            }
            assert_eq!(shared_unwinds, per_pad_unwinds, "{name}");
        }
        compared
    }

    #[test]
    fn shared_plans_equal_per_pad_plans() {
        let mut compared = 0;
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests");
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "cir")
                    && let Ok(text) = std::fs::read_to_string(&path)
                {
                    compared += compare(&path.display().to_string(), &text);
                }
            }
        }
        let cfg = ehir_testgen::GenConfig::default();
        for seed in 0..150 {
            compared += compare(
                &format!("seed {seed}"),
                &ehir_testgen::generate_program(seed, &cfg),
            );
        }
        compared += compare("deep cleanups", &ehir_testgen::deep_cleanups(60));
        compared += compare("deep trys", &ehir_testgen::deep_trys(60));
        assert!(compared > 1000, "only {compared} landing pads compared");
    }

    /// 30,000 nested cleanup scopes: one walk per landing pad took about 30,000² steps.
    #[test]
    fn deep_cleanup_chain_lowers_in_linear_time() {
        let mut module =
            ehir_reader::parse_module("deep.cir", &ehir_testgen::deep_cleanups(30_000))
                .expect("parses");
        let mut pm = crate::PassManager::from_pipeline(
            "lowering-prepare,flatten-cfg,eh-abi-lowering=itanium",
        )
        .expect("known passes");
        pm.set_verify_each(false);
        let start = std::time::Instant::now();
        pm.run(&mut module).expect("lowers");
        // Generous for a debug build on a loaded machine; the quadratic walk needs minutes.
        assert!(start.elapsed().as_secs() < 60, "took {:?}", start.elapsed());
    }
}
