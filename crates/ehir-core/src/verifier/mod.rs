//! The verifier: checks a module against the rules of each function's phase and collects
//! every violation as a [`Diagnostic`] instead of panicking.
//!
//! It never panics and never recurses on the host stack, however broken the IR is: the
//! body is first indexed with an explicit stack (`index.rs`), and every later check reads
//! that index, skipping entities it already reported as dangling or misplaced.
//!
//! # Rules
//!
//! **Layout and entities** (`index.rs`): every block, op and region reached from the body
//! exists, is listed once, and agrees with the layout; op results and block parameters
//! agree with their values' records; every operand and successor argument is a value
//! defined in this function (not a value of another function, not a result of an op that
//! is not placed).
//!
//! **Structure** (`structure.rs`): every block of every region ends in exactly one
//! terminator and has none in the middle; no region is empty; ops have the number of
//! regions and successors of their kind (its row of the op table, [`crate::ops::table`]);
//! successors are blocks of the terminator's own region and never a region's entry block. Region termination: `cir.condition` only ends
//! the condition region of `cir.while`/`cir.do`/`cir.for`, and that region never ends with
//! `cir.yield`; `cir.yield` ends nested regions, never the function body, and its operands
//! match the parent op's results; `cir.break` must be inside a loop or `cir.switch`,
//! `cir.continue` inside a loop; `cir.return` may appear anywhere in a structured function
//! (it leaves through the enclosing cleanups); `cir.resume` in a structured function must
//! be inside a `cir.try` `unwind` handler or the cleanup region of an `eh` cleanup scope.
//! Region entry blocks take no parameters except the function body's (the signature's
//! parameters), `cir.array.ctor`/`cir.array.dtor` regions (one element pointer) and
//! `cir.try` handler regions (at most one `!cir.eh_token`). `cir.case` is inside a
//! `cir.switch`; `cir.label` names are unique and first in their block; every `cir.goto`
//! names an existing label and does not jump into a region of a `cir.cleanup.scope` or
//! `cir.try` that it is not in. Phases: each op must be allowed in its function's phase
//! ([`crate::OpKind::phases`]); flat, Itanium and MSVC functions have no nested regions.
//!
//! **Dominance** (`dominance.rs`): MLIR semantics across nested regions, and a
//! `cir.try_call`'s results are available only below the edge to its normal successor.
//! A `cir.goto`'s jump counts as an edge too (`goto_dominance.rs`): a value used where a
//! goto can arrive must be defined before the goto leaves.
//!
//! **Types** (`types.rs`): block arguments match the target's parameters in number and type
//! on every edge, except `cir.eh.dispatch`, which passes its token implicitly: its
//! successors declare no parameter or one `!cir.eh_token`, and it passes no arguments.
//! Operand and result counts and token slots of every op (one generic check from the op
//! table), then the operand and result types of every op (loads and stores agree with the
//! pointee, compares take equal types and give `!cir.bool`, calls match their signature and the callee's
//! declaration, `cir.return` matches the function, ...). Tokens (`!cir.eh_token`,
//! `!cir.cleanup_token`, `!cir.catch_token`) are produced only by the EH ops that make
//! them and used only by the EH ops that take them (and as successor arguments); block
//! parameters may be tokens only in flat functions (and as a `cir.try` handler's token in
//! structured ones), since LLVM has no token phis; signatures never mention tokens.
//!
//! **Constants** (`constants.rs`): a global's initialiser and a `cir.const`'s attribute
//! are constants the LLVM emitter can write for their type: integers fit their type,
//! strings fit their byte array, element lists fit their array or struct.
//!
//! **Module** (`types.rs`): direct calls name a declared function whose signature is the
//! call's; `cir.get_global` names a global (or function) and yields a pointer to its type;
//! `cir.get_member` works on a declared, complete record and a field index it has.
//!
//! **Structured EH** (`eh.rs`): `cir.catch_param` is the first op of each `catch`/`catch
//! all` handler region of a `cir.try` and appears nowhere else (for `catch all` it yields
//! `!cir.ptr<!void>`); `cir.indirect_br` is not inside a `cir.cleanup.scope` body;
//! `filter` and `terminate` handler regions hold only `cir.unreachable`. Handler lists of
//! `cir.try` and key lists of `cir.eh.dispatch` follow one grammar: any number of
//! `catch (T)` with distinct types, then at most one `filter`, then the terminal key,
//! which is last: one of `catch_all`, `unwind` or `terminate`. A `filter` must be followed
//! by `unwind` (a listed exception keeps unwinding; `catch_all` or `terminate` after it
//! would make it dead). `cir.eh.dispatch` must have its terminal key (exactly one of
//! `catch_all`/`unwind`/`terminate`); `cir.try` may omit it (unlisted exceptions keep
//! unwinding).
//!
//! **Flat EH** (`eh.rs`): the unwind destination of every `cir.try_call` (and of a
//! `cir.throw` with a successor) starts with `cir.eh.initiate`, which appears nowhere
//! else, and a block starting with it is reached only by unwind edges. The successor of
//! each `catch`/`catch_all` key starts with `cir.begin_catch`, which appears nowhere else,
//! is reached only from dispatch catch keys, and takes the token the dispatch delivers.
//! `cir.begin_catch`/`cir.end_catch` and `cir.begin_cleanup`/`cir.end_cleanup` pair up:
//! on every path from a begin, exactly one end of its token runs before the path leaves
//! the handler. Leaving means `cir.return`, `cir.resume`, `cir.resume.flat` or a
//! `cir.throw` without unwind destination, and for a cleanup also `cir.eh.dispatch`. An
//! exception raised inside a handler must therefore go through a `cir.try_call` (or a
//! `cir.throw` with an unwind destination) whose unwind path ends the catch before it
//! resumes, as Clang's `__cxa_end_catch` cleanup does. A plain `cir.call` that may throw
//! is not flagged: the seed calls destructors with plain calls that are not marked
//! `nothrow`, so a throwing call cannot be told from a destructor call. A begin reached
//! again while its token is still open, or an end of a token that may already be ended,
//! is an error. `cir.eh.terminate` and `cir.unreachable` end a path without leaving.
//!
//! **Itanium** (`eh.rs`): the unwind destination of every `cir.try_call` starts with
//! `cir.eh.landingpad`, which appears nowhere else and is reached only by unwind edges;
//! a landing pad has a clause or `cleanup` and yields `(!cir.ptr<!void>, !u32i)`;
//! `cir.eh.typeid` names a typeinfo (not a function) and yields `!u32i`;
//! `cir.resume.flat` takes `(!cir.ptr<!void>, !u32i)`. A `cir.cmp` between a landing
//! pad's selector and a `cir.eh.typeid @T` is an error unless every landing pad whose
//! selector reaches the compare lists `@T` as a catch clause: such a compare can never
//! be true (legal in LLVM, but dead, and the sign of a landing pad that lost its clauses).
//! A function with landing pads has a personality routine.
//!
//! **MSVC** (`funclets.rs`): the unwind destination of every `cir.try_call`,
//! `cir.cleanupret` and `cir.catchswitch` starts with `cir.catchswitch` or
//! `cir.cleanuppad`; such pad blocks are reached only by unwind edges; every handler of a
//! `cir.catchswitch` starts with a `cir.catchpad` within that catchswitch and is reached
//! only from it; pads are the first op of their block; `within` names `none` or a
//! `cir.catchpad`/`cir.cleanuppad`; `cir.catchret from` takes a catchpad token and
//! `cir.cleanupret from` a cleanuppad token, each inside its own funclet. Funclet
//! colouring (which pad each block belongs to, as LLVM's `colorEHFunclets`) gives every
//! block exactly one funclet; `cir.return` is only in the function's own funclet. The
//! funclet transition rules of LLVM's exception-handling document: an unwind edge may
//! exit any number of pads (a catchswitch edge at least itself, a cleanupret edge at least
//! its cleanuppad) and then enters exactly one pad, whose parent is the innermost pad not
//! exited; a pad never handles exceptions raised within itself; all unwind edges that
//! exit a pad share one destination (a nested catchswitch unwinding to the caller does
//! not count); and pad unwind destinations form no cycle. A function with pads has a
//! personality routine.

mod constants;
mod dominance;
mod eh;
mod funclets;
mod goto_dominance;
mod index;
mod structure;
mod types;

use crate::dfg::DataFlowGraph;
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::entities::{Block, FuncId, Loc, Op, Region, Successor, Symbol, Type, Value};
use crate::function::{Function, Phase};
use crate::module::{Module, ModuleCtx};
use crate::ops::{OpInfo, OpKind};
use crate::types::TypeData;
use cranelift_entity::EntityRef;
use dominance::Cfg;
use eh::EhScratch;
use index::FuncIndex;
use std::cell::{Cell, RefCell};
use structure::Labels;

/// Which rules the verifier checks.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Rules {
    /// What every op states about itself and its neighbours, as upstream's `cir-opt`
    /// verifier checks it: enough to print, parse again and transform the IR op by op.
    /// A flat or Itanium function may then hold EH ops that are not wired into a
    /// complete EH graph (an unwind destination that does not begin with the landing op,
    /// a `cir.begin_catch` no dispatch reaches, begins without ends, a landing pad
    /// without personality, token parameters in the signature), and a structured catch
    /// handler may leave out `cir.catch_param`.
    Ops,
    /// [`Rules::Ops`] and the whole-function EH shapes that the passes, the interpreter
    /// and the LLVM emitter rely on (the **Flat EH**, **Itanium** and structured handler
    /// rules of this module's documentation).
    #[default]
    Executable,
}

/// Verifies every function of a module under [`Rules::Executable`]. Returns all errors
/// found.
///
/// Functions are verified in parallel on the current rayon pool; the diagnostics are the
/// same, in the same order, as on one thread.
pub fn verify_module(module: &Module) -> Result<(), Diagnostics> {
    verify_module_where(module, |_| true)
}

/// [`verify_module`] under the given [`Rules`].
pub fn verify_module_with(module: &Module, rules: Rules) -> Result<(), Diagnostics> {
    verify_module_checking(module, rules, |_| true)
}

/// [`verify_module`] for the functions `check` selects (and the module's own items):
/// after a pass, the functions it did not change need not be verified again.
pub fn verify_module_where(
    module: &Module,
    check: impl Fn(FuncId) -> bool + Sync,
) -> Result<(), Diagnostics> {
    verify_module_checking(module, Rules::Executable, check)
}

fn verify_module_checking(
    module: &Module,
    rules: Rules,
    check: impl Fn(FuncId) -> bool + Sync,
) -> Result<(), Diagnostics> {
    use rayon::prelude::*;
    let mut diags = types::check_module_items(module);
    let funcs: Vec<&Function> = module
        .functions
        .iter()
        .filter(|&(id, _)| check(id))
        .map(|(_, func)| func)
        .collect();
    let per_function: Vec<Vec<Diagnostic>> = if rayon::current_num_threads() > 1 {
        funcs
            .par_iter()
            .map_init(Scratch::default, |scratch, func| {
                verify_function_in(&module.ctx, Some(module), func, rules, scratch)
            })
            .collect()
    } else {
        let mut scratch = Scratch::default();
        funcs
            .iter()
            .map(|func| verify_function_in(&module.ctx, Some(module), func, rules, &mut scratch))
            .collect()
    };
    for d in per_function {
        diags.extend(d);
    }
    // Source order; unlocated diagnostics last, in the order they were found.
    diags.sort_by_key(|d| d.loc.offset().unwrap_or(usize::MAX));
    if diags.is_empty() {
        Ok(())
    } else {
        Err(Diagnostics(diags))
    }
}

/// The words every diagnostic of [`verify_input`] starts with.
pub const INPUT_DOES_NOT_VERIFY: &str = "input does not verify";

/// Verifies a module handed to a library entry point (the pass manager, the interpreter,
/// the LLVM emitter, the table builders) before it works on it: the verifier's
/// diagnostics, each message prefixed with `input does not verify: `, so that the caller
/// of the entry point, not one of its passes, is named as the culprit.
///
/// ```
/// use ehir_core::{Function, Module};
///
/// // `int f()` whose entry block has no terminator.
/// let mut module = Module::new();
/// let s32 = module.ctx.types.common().s32;
/// let sig = module.ctx.types.func(vec![], Some(s32), false);
/// let name = module.ctx.sym("f");
/// module.add_function(Function::new_definition(name, sig, &[]));
/// let errors = ehir_core::verifier::verify_input(&module).unwrap_err();
/// assert!(errors.0.iter().all(|d| d.message.starts_with("input does not verify: ")));
/// ```
pub fn verify_input(module: &Module) -> Result<(), Diagnostics> {
    verify_module(module).map_err(as_input_errors)
}

/// [`verify_function`] for an entry point that works on one function: its diagnostics
/// prefixed as [`verify_input`] does.
pub fn verify_function_input(ctx: &ModuleCtx, func: &Function) -> Result<(), Diagnostics> {
    let diags = verify_function(ctx, func);
    if diags.is_empty() {
        Ok(())
    } else {
        Err(as_input_errors(Diagnostics(diags)))
    }
}

/// The verifier's diagnostics as [`verify_input`] returns them: every message prefixed
/// with [`INPUT_DOES_NOT_VERIFY`] and `: `.
pub fn as_input_errors(mut diags: Diagnostics) -> Diagnostics {
    for d in &mut diags.0 {
        d.message = format!("{INPUT_DOES_NOT_VERIFY}: {}", d.message);
    }
    diags
}

/// Verifies one function. Symbol references (callees, globals) are resolved only by
/// [`verify_module`], which knows the other functions and globals.
pub fn verify_function(ctx: &ModuleCtx, func: &Function) -> Vec<Diagnostic> {
    with_thread_scratch(|scratch| verify_function_in(ctx, None, func, Rules::Executable, scratch))
}

/// Verifies one function of `module` that is not stored in it (a function taken out of
/// its module to be rewritten): symbol references resolve against `module`, types and
/// attributes against `ctx` (the module's context, or a copy of it that may have grown).
/// The diagnostics are those [`verify_module`] reports for the function.
pub fn verify_function_of(module: &Module, ctx: &ModuleCtx, func: &Function) -> Vec<Diagnostic> {
    with_thread_scratch(|scratch| {
        verify_function_in(ctx, Some(module), func, Rules::Executable, scratch)
    })
}

/// Runs `f` with this thread's [`Scratch`] (taken out while `f` runs).
fn with_thread_scratch<T>(f: impl FnOnce(&mut Scratch) -> T) -> T {
    let mut scratch = SCRATCH.take();
    let result = f(&mut scratch);
    SCRATCH.set(scratch);
    result
}

fn verify_function_in(
    ctx: &ModuleCtx,
    module: Option<&Module>,
    func: &Function,
    rules: Rules,
    scratch: &mut Scratch,
) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    // The tables of the function verified before, rebuilt in place.
    let Scratch {
        mut index,
        mut cfg,
        mut eh,
    } = std::mem::take(scratch);
    eh.clear();
    index.rebuild(func, &mut |d| diags.push((RuleFamily::Index, d)));
    cfg.rebuild(&func.dfg, &index);
    let verifier = FuncVerifier {
        ctx,
        module,
        func,
        rules,
        dfg: &func.dfg,
        index,
        cfg,
        diags: RefCell::new(diags),
        family: Cell::new(RuleFamily::Signature),
        callee_cache: RefCell::new([(None, None); CALLEE_CACHE]),
        eh: RefCell::new(eh),
    };
    verifier.check_signature();
    if func.body.is_some() && !verifier.index.regions.is_empty() {
        verifier.check_body();
    }
    let FuncVerifier {
        index,
        cfg,
        diags,
        eh,
        ..
    } = verifier;
    *scratch = Scratch {
        index,
        cfg,
        eh: eh.into_inner(),
    };
    let mut diags = diags.into_inner();
    // Source order; at one location (and among unlocated diagnostics, which come last),
    // the order of the rule families, each in the order it found them.
    diags.sort_by_key(|(family, d)| (d.loc.offset().unwrap_or(usize::MAX), *family));
    diags.into_iter().map(|(_, d)| d).collect()
}

/// The per-function tables of the verifier, kept between functions so that verifying a
/// module does not allocate and free them once per function.
#[derive(Default)]
struct Scratch {
    index: FuncIndex,
    cfg: Cfg,
    eh: EhScratch,
}

thread_local! {
    /// The tables of the last function this thread verified on its own
    /// ([`verify_function`], [`verify_function_of`]: a pass manager verifying a module
    /// function by function); [`verify_module`] keeps its own for the duration of a call.
    static SCRATCH: Cell<Scratch> = Cell::new(Scratch::default());
}

/// The rule families of the verifier: the checks of a function body, in the order their
/// diagnostics are listed among diagnostics at the same location. The per-op checks run
/// together in one walk over the ops; tagging each diagnostic with its family keeps the
/// order of running them one by one.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum RuleFamily {
    Index,
    Signature,
    OpResults,
    BlockParams,
    RegionShapes,
    OpRegionCount,
    BlockTerminators,
    OpTermination,
    OpSuccessors,
    OpPhase,
    OpLabels,
    Gotos,
    OpTypes,
    BlockParamTokens,
    OpUses,
    Eh,
    Funclets,
}

/// A check of a whole function body.
type WholeFunctionCheck<'a> = fn(&FuncVerifier<'a>);

impl<'a> FuncVerifier<'a> {
    /// Whether the whole-function EH shapes of [`Rules::Executable`] are checked.
    pub(crate) fn executable(&self) -> bool {
        self.rules == Rules::Executable
    }

    fn in_family(&self, family: RuleFamily) {
        self.family.set(family);
    }

    /// Runs whole-function checks in order, each in its rule family.
    fn run_checks(&self, checks: &[(RuleFamily, WholeFunctionCheck<'a>)]) {
        for &(family, check) in checks {
            self.in_family(family);
            check(self);
        }
    }

    /// Every check of a body that exists.
    fn check_body(&self) {
        self.run_checks(&[
            (RuleFamily::BlockParams, Self::check_block_params),
            (RuleFamily::RegionShapes, Self::check_region_shapes),
            (RuleFamily::BlockTerminators, Self::check_block_terminators),
        ]);
        let structured = self.func.phase == Phase::Structured;
        let mut labels = Labels::new();
        let mut gotos = Vec::new();
        let mut eh_ops = std::mem::take(&mut self.eh.borrow_mut().ops);
        for &op in &self.index.ops {
            let view = self.op_view(op);
            let view = &view;
            self.in_family(RuleFamily::OpResults);
            self.check_op_results(view);
            self.in_family(RuleFamily::OpRegionCount);
            self.check_op_region_count(view);
            self.in_family(RuleFamily::OpTermination);
            self.check_op_termination(view);
            self.in_family(RuleFamily::OpSuccessors);
            self.check_op_successors(view);
            self.in_family(RuleFamily::OpPhase);
            self.check_op_phase(view);
            self.in_family(RuleFamily::OpLabels);
            self.check_op_labels(view, &mut labels);
            if let OpKind::Goto { .. } = view.kind {
                gotos.push(op);
            }
            self.in_family(RuleFamily::OpTypes);
            self.check_op_type_rules(view);
            self.in_family(RuleFamily::OpUses);
            self.check_op_uses(view);
            if structured {
                self.in_family(RuleFamily::Eh);
                self.check_op_structured_eh(view);
            } else {
                self.note_eh_op(view, &mut eh_ops);
            }
        }
        self.eh.borrow_mut().ops = eh_ops;
        self.in_family(RuleFamily::Gotos);
        self.check_gotos(&gotos, &labels);
        if !gotos.is_empty() {
            self.in_family(RuleFamily::OpUses);
            self.check_uses_across_gotos(&gotos, &labels);
        }
        self.run_checks(&[
            (RuleFamily::BlockParamTokens, Self::check_block_param_tokens),
            (RuleFamily::Eh, Self::check_eh),
            (RuleFamily::Funclets, Self::check_funclets),
        ]);
    }
}

/// The state shared by the checks of one function.
pub(crate) struct FuncVerifier<'a> {
    pub ctx: &'a ModuleCtx,
    pub module: Option<&'a Module>,
    pub func: &'a Function,
    /// The rules being checked.
    pub rules: Rules,
    pub dfg: &'a DataFlowGraph,
    pub index: FuncIndex,
    pub cfg: Cfg,
    /// Diagnostics with the rule family that found them.
    diags: RefCell<Vec<(RuleFamily, Diagnostic)>>,
    /// The rule family being checked now.
    family: Cell<RuleFamily>,
    /// Recent answers of [`Module::function_by_name`], by symbol number modulo the size.
    callee_cache: RefCell<[(Option<Symbol>, Option<FuncId>); CALLEE_CACHE]>,
    /// The EH ops of the body, noted by the per-op walk, and the EH checks' tables.
    eh: RefCell<EhScratch>,
}

/// An op placed in the body, as the per-op checks read it: its data, its row of the op
/// table and its place, fetched once ([`FuncVerifier::op_view`]) for all of them.
pub(crate) struct OpView<'a> {
    pub op: Op,
    pub kind: OpKind,
    /// The op's row of the op table.
    pub info: &'static OpInfo,
    pub loc: Loc,
    pub operands: &'a [Value],
    pub results: &'a [Value],
    pub successors: &'a [Successor],
    pub regions: &'a [Region],
    /// The block and region the op is in, and its position in the block.
    pub block: Block,
    pub region: Region,
    pub pos: u32,
}

impl OpView<'_> {
    /// The printed name of the op's kind.
    pub fn name(&self) -> &'static str {
        self.kind.name()
    }
}

/// Entries of [`FuncVerifier::callee_cache`].
const CALLEE_CACHE: usize = 64;

impl<'a> FuncVerifier<'a> {
    pub(crate) fn error(&self, d: Diagnostic) {
        self.diags.borrow_mut().push((self.family.get(), d));
    }

    /// The data of an op the index placed (every op of `index.ops`).
    pub(crate) fn op_view(&self, op: Op) -> OpView<'a> {
        let dfg = self.dfg;
        let data = &dfg.ops[op];
        let block = self.index.op_block[op].expect("placed");
        OpView {
            op,
            kind: data.kind,
            info: data.kind.info(),
            loc: data.loc,
            operands: data.operands.as_slice(&dfg.value_lists),
            results: data.results.as_slice(&dfg.value_lists),
            successors: data.successors.as_slice(&dfg.successor_lists),
            regions: data.regions.as_slice(&dfg.region_lists),
            block,
            region: self.index.block_region[block].expect("placed"),
            pos: self.index.op_pos[op],
        }
    }

    /// Reports an error at `loc` with one note at `note_loc`.
    pub(crate) fn error_with_note(
        &self,
        loc: Loc,
        message: impl Into<String>,
        note_loc: Loc,
        note: &str,
    ) {
        self.error(Diagnostic::error(loc, message).with_note(note_loc, note));
    }

    /// Reports a plain error at an op.
    pub(crate) fn op_error(&self, op: Op, message: impl Into<String>) {
        self.error(Diagnostic::error(self.dfg.loc(op), message));
    }

    /// The printed name of an op's kind.
    pub(crate) fn op_name(&self, op: Op) -> &'static str {
        self.dfg.kind(op).name()
    }

    /// A block's location: its label, else its first op, else the op owning its region,
    /// else the function.
    pub(crate) fn block_loc(&self, block: Block) -> Loc {
        if let Some(data) = self.dfg.blocks.get(block)
            && data.loc != Loc::NONE
        {
            return data.loc;
        }
        if let Some(op) = self.index.first_op(block)
            && self.dfg.loc(op) != Loc::NONE
        {
            return self.dfg.loc(op);
        }
        if let Some(region) = self.index.block_region[block].expand()
            && let Some(parent) = self.index.region_parent[region].expand()
        {
            return self.dfg.loc(parent);
        }
        self.func.loc
    }

    /// The structure of a type, `None` for a type this module never interned.
    pub(crate) fn type_data(&self, t: Type) -> Option<&TypeData> {
        (t.index() < self.ctx.types.len()).then(|| self.ctx.types.get(t))
    }

    /// A type as printed (`!cir.ptr<!s32i>`).
    pub(crate) fn type_str(&self, t: Type) -> String {
        if self.type_data(t).is_none() {
            return format!("<invalid {t}>");
        }
        let mut out = Vec::new();
        match crate::printer::write_type(&mut out, self.ctx, t) {
            Ok(()) => String::from_utf8(out).unwrap_or_default(),
            Err(_) => format!("<{t}>"),
        }
    }

    /// The text of a symbol, or a placeholder for a symbol the module never interned.
    pub(crate) fn sym_str(&self, s: Symbol) -> String {
        match self.ctx.symbols.get(s) {
            Some(name) => name.to_string(),
            None => format!("<invalid {s}>"),
        }
    }

    /// The function's declared parameter types, result type and varargs flag.
    pub(crate) fn signature(&self) -> Option<(Vec<Type>, Option<Type>, bool)> {
        let _ = self.type_data(self.func.sig)?;
        let (params, ret, vararg) = self.ctx.types.func_info(self.func.sig)?;
        Some((params.to_vec(), self.non_void(ret), vararg))
    }

    /// `None` for `None` and for `!void`.
    pub(crate) fn non_void(&self, t: Option<Type>) -> Option<Type> {
        t.filter(|&t| !matches!(self.type_data(t), Some(TypeData::Void)))
    }

    /// [`Module::function_by_name`], remembering recent answers (a function calls the
    /// same few callees many times).
    pub(crate) fn function_by_name(&self, module: &Module, name: Symbol) -> Option<FuncId> {
        let slot = name.as_u32() as usize % CALLEE_CACHE;
        let mut cache = self.callee_cache.borrow_mut();
        if cache[slot].0 == Some(name) {
            return cache[slot].1;
        }
        let id = module.function_by_name(name);
        cache[slot] = (Some(name), id);
        id
    }

    /// The function's name for messages.
    pub(crate) fn func_name(&self) -> String {
        self.sym_str(self.func.name)
    }
}
