//! The execution engine: frames on an explicit stack (a CIR call never recurses on the
//! host stack), the step loop, and the ops every phase shares (memory, arithmetic,
//! calls, returns, branches). Structured control flow lives in `structured.rs`,
//! exceptions in `eh.rs`, modelled external functions in `externals.rs` and `libc.rs`.
//!
//! Registers: a frame has one `u64` per SSA value of its function, indexed by the
//! value's entity number. Runtime-initiated calls (an exception's destructor, the
//! `std::unexpected` and `std::terminate` handlers) run to completion in a nested step
//! loop behind a [`Boundary`]; their nesting is bounded by [`MAX_NESTED_RUNTIME_CALLS`].

use crate::config::{RunConfig, ScriptValue};
use crate::cxx_types::Hierarchy;
use crate::externals::ExternalCall;
use crate::memory::{self, AllocKind, MemError, Memory};
use crate::runtime::Runtime;
use crate::trace::Event;
use crate::type_layout::{Layouts, Scalar};
use crate::values;
use crate::{EXIT_RUNTIME_ERROR, RuntimeError, StopReason};
use ehir_core::{
    Attr, AttrData, Block, ConstArrayElements, DataFlowGraph, EntityRef, FuncId, Function, Module,
    Op, OpKind, Phase, Region, Successor, Symbol, Type, TypeData, Value,
};
use std::collections::HashMap;

/// Runtime-initiated calls nested deeper than this stop the run with an error.
pub const MAX_NESTED_RUNTIME_CALLS: u32 = 64;
/// Bytes charged against the memory budget per frame, on top of its registers.
const FRAME_OVERHEAD: u64 = 256;

/// Why the step loop stopped.
#[derive(Debug)]
pub(crate) enum Stop {
    /// The program ended with this exit status (normally, `exit`, `abort`, terminate,
    /// or the harness reporting an escaped exception).
    Exit(i32),
    /// The program did something the interpreter reports as an error.
    Error(Box<RuntimeError>),
    /// A runtime-initiated call reached its boundary (internal control flow).
    Sync(SyncEnd),
}

/// How a runtime-initiated call ended.
#[derive(Debug)]
pub(crate) enum SyncEnd {
    Returned(Option<u64>),
    Threw(u32),
}

/// What sits below a runtime-initiated call (or the entry function).
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Boundary {
    /// The harness that called the entry function; `catches` for non-`main` entries.
    Entry { catches: bool },
    /// An exception object's destructor, called by `__cxa_end_catch`, or the copy
    /// constructor of a by-value catch parameter (`cir.copy_catch_param`): an exception
    /// escaping it terminates.
    Dtor,
    /// The `std::unexpected` handler: what it throws is checked against the violated
    /// exception specification.
    UnexpectedHandler,
    /// A `std::set_terminate` handler: whatever it does, `abort` follows.
    TerminateHandler,
    /// The stop function of a forced unwinding (`forced_unwind.rs`), called by the
    /// unwinder: an exception escaping it terminates.
    StopFunction,
}

/// A structured construct being executed.
#[derive(Clone, Debug)]
pub(crate) struct Ctrl {
    /// The op whose region runs.
    pub op: Op,
    /// The index of the running region.
    pub region: u32,
    /// The length of the frame's alloca list when the construct was entered.
    pub mark: u32,
    pub state: CtrlState,
}

/// The state of a structured construct.
#[derive(Clone, Debug)]
pub(crate) enum CtrlState {
    /// Scopes, ifs, loops, switches, cases, ternaries.
    Plain,
    /// The body of a `cir.cleanup.scope`.
    CleanupBody,
    /// Its cleanup region, running for the exit that will continue afterwards.
    CleanupRun(Pending),
    /// The body of a `cir.try`.
    TryBody,
    /// A catch handler of a `cir.try`: the caught exception and the pointer its handler
    /// received.
    Catch { exn: u32, adjusted: u64 },
    /// The `unwind` handler of a `cir.try`, while the exception keeps unwinding.
    UnwindRegion { exn: u32 },
    /// `cir.array.ctor`: constructing element `index` of `count`.
    ArrayCtor {
        base: u64,
        index: u64,
        count: u64,
        elem: u64,
    },
    /// Destroying array elements in reverse, element `remaining - 1` now: `cir.array.dtor`
    /// (`unwinding` is `None`), or a partial destruction while exception `unwinding`
    /// propagates (`cir.array.ctor`'s cleanup region over the constructed elements, or
    /// `cir.array.dtor` over the elements before a destructor that threw).
    ArrayDestroy {
        base: u64,
        remaining: u64,
        elem: u64,
        unwinding: Option<u32>,
    },
}

/// A control transfer waiting for cleanups to run.
#[derive(Clone, Debug)]
pub(crate) enum Pending {
    /// Finish the cleanup scope op itself (its body yielded these values).
    Complete(Vec<u64>),
    Break,
    Continue,
    Return(Option<u64>),
    /// Branch to a block (a `cir.goto`, or a branch out of a region).
    Branch(Block, Vec<u64>),
    /// Keep unwinding this exception.
    Unwind(u32),
}

/// An active MSVC funclet.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Pad {
    Catch { exn: u32 },
    Cleanup { exn: u32 },
}

/// The block-scope allocas a lowered frame follows (each op checks them all, so a
/// function with thousands of block-scope variables would be slow); those beyond live
/// until the function returns, as without [`crate::BlockScopes`].
const MAX_SCOPED_SLOTS: usize = 64;

/// A block-scope alloca of a lowered frame: its address, its scope's source span and
/// whether it is live now.
pub(crate) struct ScopedSlot {
    pub addr: u64,
    pub span: crate::ScopeSpan,
    pub live: bool,
}

/// One activation of an interpreted function.
pub(crate) struct Frame<'m> {
    pub func: &'m Function,
    pub fid: FuncId,
    pub phase: Phase,
    /// The op being executed (for a caller: its call op).
    pub pc: Op,
    pub regs: Vec<u64>,
    /// Structured constructs being executed, innermost last.
    pub ctrl: Vec<Ctrl>,
    /// Live allocas of the frame, in creation order.
    pub allocas: Vec<u64>,
    /// What a dynamic alloca of no bytes returns: the frame's "stack pointer", the same
    /// address each time (`__builtin_alloca(0)` before and after a `try`); 0 until
    /// there is one.
    pub stack_top: u64,
    /// Lowered phases: the frame's block-scope allocas, whose lifetime follows the
    /// source span of their scope (see `crate::scopes`).
    pub scoped: Vec<ScopedSlot>,
    /// The exception that most recently landed in this frame (flat and ABI phases).
    pub landed: Option<u32>,
    /// The Itanium selector of that landing.
    pub selector: u32,
    /// Flat: EH cleanups begun and not ended, by exception.
    pub open_cleanups: Vec<u32>,
    /// MSVC: active funclets, innermost last.
    pub pads: Vec<Pad>,
    /// The exception for which unwinding in this frame already passed a try (or
    /// dispatch) with catching handlers that did not match (g++'s noexcept rule: a
    /// `terminate` boundary reached after that terminates "without an active
    /// exception").
    pub passed_catch: Option<u32>,
    /// Structured: how many entries of `ctrl` are terminate boundaries — `cir.try` ops
    /// with a `terminate` handler and constructs running code during unwinding (0 makes
    /// the boundary check free).
    pub boundaries: u32,
}

impl<'m> Frame<'m> {
    /// A fresh activation of `func` (module function `fid`) about to execute `pc`, with
    /// its registers: nothing executed, landed or allocated yet.
    pub fn new(func: &'m Function, fid: FuncId, pc: Op, regs: Vec<u64>) -> Self {
        Frame {
            func,
            fid,
            phase: func.phase,
            pc,
            regs,
            ctrl: Vec::new(),
            allocas: Vec::new(),
            stack_top: 0,
            scoped: Vec::new(),
            landed: None,
            selector: 0,
            open_cleanups: Vec::new(),
            pads: Vec::new(),
            passed_catch: None,
            boundaries: 0,
        }
    }
}

/// A suspended frame or a boundary.
pub(crate) enum Slot<'m> {
    Frame(Frame<'m>),
    Boundary(Boundary),
}

/// The interpreter.
pub(crate) struct Machine<'m> {
    pub module: &'m Module,
    pub config: &'m RunConfig,
    pub layouts: Layouts,
    pub hierarchy: Hierarchy,
    pub mem: Memory,
    pub rt: Runtime,
    /// The running frame.
    pub cur: Frame<'m>,
    /// Suspended callers and boundaries, innermost last.
    pub stack: Vec<Slot<'m>>,
    pub depth: u32,
    pub nested: u32,
    pub frame_bytes: u64,
    pub trace: Vec<Event>,
    pub stdout: crate::stdio::Stdout,
    pub stderr: Vec<u8>,
    pub steps: u64,
    /// Addresses of globals, functions and external objects by symbol.
    pub globals: HashMap<Symbol, u64>,
    /// Function pointers: allocation slot → function symbol.
    pub fn_ptrs: HashMap<u32, Symbol>,
    /// The functions and vtables of the standard exception classes made so far, by key
    /// (`crate::library`).
    pub library: HashMap<u16, u64>,
    /// Aggregate register values.
    pub aggregates: Vec<Vec<u8>>,
    /// Calls counted per callee that a `--throw-at` spec names.
    pub call_counts: HashMap<Symbol, u64>,
    pub throw_specs: Vec<crate::externals::ResolvedThrow>,
    /// Scripted return values and how many were used, per callee.
    pub return_scripts: HashMap<Symbol, (Vec<ScriptValue>, usize)>,
    /// `cir.label` blocks per function.
    pub labels: HashMap<(FuncId, Symbol), Block>,
    /// Itanium type ids (`cir.eh.typeid`, landing-pad selectors) per typeinfo symbol.
    pub typeids: HashMap<Option<Symbol>, u32>,
    /// Exception specifications seen in landing pads (selector `-(index + 1)`).
    pub filters: Vec<Vec<String>>,
    pub heap_count: u32,
    pub string_count: u32,
    /// msvcrt's array of the standard streams (`FILE _iob[3]`, what `__iob_func` returns:
    /// `stdout` is `&__iob_func()[1]` on Windows), made on first use.
    pub msvc_iob: Option<u64>,
    /// The entry function's name (for the harness's report).
    pub entry_name: String,
    /// Reused buffer for block-argument copies.
    pub scratch: Vec<u64>,
    /// The step limit in force: the configured one, or 0 once the event trace has
    /// exhausted the memory budget (the next step then stops the run).
    pub step_limit: u64,
    /// Set when the trace exhausted the memory budget.
    pub trace_overflow: bool,
    /// Bytes the trace takes (as [`crate::trace::event_bytes`] counts them), also part of
    /// `frame_bytes`; at most `RunConfig::trace_memory_limit`.
    pub trace_bytes: u64,
    /// Set when an exception met a dynamic exception specification (see
    /// `RunOutcome::met_specification`).
    pub met_specification: std::cell::Cell<bool>,
    /// By-value catch parameters built when their handler was chosen
    /// (`cir.copy_catch_param`), by address, not yet reached.
    pub built_catch_objects: Vec<u64>,
    /// Set when a handler caught an exception that the Microsoft runtime would not let
    /// it catch (see `RunOutcome::abi_dependent_catch`).
    pub abi_dependent_catch: std::cell::Cell<bool>,
    /// Functions registered to run at exit, in registration order.
    pub at_exit: Vec<crate::startup::AtExit>,
    /// `exit` was called (the functions registered to run at exit then run).
    pub exit_called: bool,
}

/// Marks a runtime error as a budget cut.
fn mark_budget(stop: Stop) -> Stop {
    match stop {
        Stop::Error(mut e) => {
            e.reason = StopReason::Budget;
            Stop::Error(e)
        }
        other => other,
    }
}

/// The entry op of a block.
fn first_op(func: &Function, block: Block) -> Option<Op> {
    func.layout.first_op(block)
}

impl<'m> Machine<'m> {
    // ---- frames -------------------------------------------------------------------

    /// A fresh frame for a defined function with its parameters set.
    pub fn new_frame(&mut self, fid: FuncId, args: &[u64]) -> Result<Frame<'m>, Stop> {
        let module: &'m Module = self.module;
        let func = &module.functions[fid];
        let name = module.ctx.name(func.name);
        let Some(entry) = func.entry_block() else {
            return Err(self.plain_error(format!("@{name} has no body")));
        };
        let Some(pc) = first_op(func, entry) else {
            return Err(self.plain_error(format!("the entry block of @{name} is empty")));
        };
        let params = func.dfg.block_params(entry);
        if params.len() != args.len() {
            return Err(self.plain_error(format!(
                "@{name} takes {} arguments but is called with {}",
                params.len(),
                args.len()
            )));
        }
        if self.depth >= self.config.call_depth_limit {
            let message = format!(
                "call depth limit of {} exceeded (stack overflow in the program)",
                self.config.call_depth_limit
            );
            // Below the entry function the running op is the call that would go deeper.
            return Err(if self.depth == 0 {
                self.plain_error(message)
            } else {
                self.error(message)
            });
        }
        let size = func.dfg.values.len();
        let bytes = size as u64 * 8 + FRAME_OVERHEAD;
        self.frame_bytes += bytes;
        if let Err(e) = self.mem.check_budget(self.frame_bytes) {
            self.frame_bytes -= bytes;
            return Err(self.mem_error(e));
        }
        let mut regs = vec![0u64; size];
        for (p, &a) in params.iter().zip(args) {
            regs[p.index()] = a;
        }
        self.depth += 1;
        Ok(Frame::new(func, fid, pc, regs))
    }

    /// Ends the running frame (its allocas die) and makes the slot below current.
    /// Returns the boundary when one was below.
    pub fn pop_frame(&mut self) -> Result<Option<Boundary>, Stop> {
        for slot in std::mem::take(&mut self.cur.scoped) {
            if !slot.live {
                self.mem.set_live(slot.addr, true);
            }
        }
        let allocas = std::mem::take(&mut self.cur.allocas);
        for p in allocas.into_iter().rev() {
            let _ = self.mem.release(p);
        }
        let bytes = self.cur.regs.len() as u64 * 8 + FRAME_OVERHEAD;
        self.frame_bytes = self.frame_bytes.saturating_sub(bytes);
        self.depth = self.depth.saturating_sub(1);
        match self.stack.pop() {
            Some(Slot::Frame(caller)) => {
                self.cur = caller;
                Ok(None)
            }
            Some(Slot::Boundary(b)) => {
                // The frame below the boundary becomes current again (the entry
                // boundary has none: the finished frame stays as a placeholder).
                if matches!(self.stack.last(), Some(Slot::Frame(_)))
                    && let Some(Slot::Frame(f)) = self.stack.pop()
                {
                    self.cur = f;
                }
                Ok(Some(b))
            }
            None => Err(self.plain_error("frame stack underflow".into())),
        }
    }

    /// Runs a function to completion behind a boundary (runtime-initiated calls).
    pub fn call_sync(
        &mut self,
        boundary: Boundary,
        callee: Symbol,
        args: &[u64],
    ) -> Result<SyncEnd, Stop> {
        if self.nested >= MAX_NESTED_RUNTIME_CALLS {
            return Err(self.error(format!(
                "runtime-initiated calls nested more than {MAX_NESTED_RUNTIME_CALLS} deep \
                 (handlers or destructors the runtime calls recurse; natively the stack \
                 would overflow)"
            )));
        }
        let module: &'m Module = self.module;
        let defined = module.function_by_name(callee).filter(|&f| {
            !module.functions[f].is_declaration()
                && !crate::externals::provided_even_if_defined(module, callee)
        });
        let Some(fid) = defined else {
            return match self.call_external(ExternalCall {
                callee,
                args,
                arg_values: None,
                result_ty: None,
            })? {
                crate::externals::ExternalResult::Value(v) => Ok(SyncEnd::Returned(v)),
                crate::externals::ExternalResult::Threw(e) => Ok(SyncEnd::Threw(e)),
                crate::externals::ExternalResult::Transferred => {
                    Err(self.error("a runtime-initiated call may not transfer control".into()))
                }
            };
        };
        let frame = self.new_frame(fid, args)?;
        self.trace_enter(fid, args);
        let old = std::mem::replace(&mut self.cur, frame);
        self.stack.push(Slot::Frame(old));
        self.stack.push(Slot::Boundary(boundary));
        self.nested += 1;
        let r = self.run_loop();
        self.nested -= 1;
        r
    }

    /// Steps until the innermost boundary is reached.
    pub fn run_loop(&mut self) -> Result<SyncEnd, Stop> {
        loop {
            if let Err(stop) = self.step() {
                return match stop {
                    Stop::Sync(end) => Ok(end),
                    other => Err(other),
                };
            }
        }
    }

    // ---- errors ---------------------------------------------------------------------

    /// A runtime error located at the running op.
    pub fn error(&self, message: String) -> Stop {
        let func = self.cur.func;
        Stop::Error(Box::new(RuntimeError {
            message,
            function: self.module.ctx.name(func.name).to_string(),
            loc: func.dfg.loc(self.cur.pc),
            exit_status: EXIT_RUNTIME_ERROR,
            reason: StopReason::UndefinedBehaviour,
        }))
    }

    /// The error of an exhausted step limit (or of a trace that filled the memory).
    #[cold]
    pub(crate) fn limit_error(&self) -> Stop {
        let stop = if self.trace_overflow && self.trace_bytes > self.config.trace_memory_limit {
            self.error(format!(
                "memory budget exceeded: the event trace outgrew its share ({} bytes)",
                self.config.trace_memory_limit
            ))
        } else if self.trace_overflow {
            self.error(format!(
                "memory budget of {} bytes exceeded (by the event trace)",
                self.config.memory_limit
            ))
        } else {
            self.error(format!(
                "step budget of {} exceeded",
                self.config.step_limit
            ))
        };
        mark_budget(stop)
    }

    /// The error of a call of `name`, an external function the interpreter does not
    /// model, located at the call.
    #[cold]
    pub(crate) fn unmodelled_error(&self, name: &str) -> Stop {
        let mut stop = self.error(format!(
            "call of external function '{name}', which the interpreter does not model (its \
             result would be made up); name it with --returns or --throw-at to run it as a probe"
        ));
        if let Stop::Error(e) = &mut stop {
            e.reason = StopReason::Unmodelled;
        }
        stop
    }

    /// Whether a call of the undefined, unmodelled function `callee` is a probe (see
    /// [`crate::UnmodelledCalls`]): a function the run scripts always is.
    pub(crate) fn is_probe(&self, callee: Symbol) -> bool {
        if self.return_scripts.contains_key(&callee)
            || self.throw_specs.iter().any(|spec| spec.callee == callee)
        {
            return true;
        }
        match self.config.unmodelled_calls {
            crate::UnmodelledCalls::Probe => true,
            crate::UnmodelledCalls::Error => false,
            crate::UnmodelledCalls::ByModule => self.module.triple().is_none(),
        }
    }

    /// A runtime error without a meaningful op location.
    pub fn plain_error(&self, message: String) -> Stop {
        Stop::Error(Box::new(RuntimeError {
            message,
            function: self.module.ctx.name(self.cur.func.name).to_string(),
            loc: ehir_core::Loc::NONE,
            exit_status: EXIT_RUNTIME_ERROR,
            reason: StopReason::UndefinedBehaviour,
        }))
    }

    pub fn mem_error(&self, e: MemError) -> Stop {
        let budget = matches!(e, MemError::Budget { .. });
        let msg = match e {
            MemError::Null => "null pointer dereference".to_string(),
            MemError::Invalid(p) => format!("access through an invalid pointer 0x{p:x}"),
            MemError::Dangling(kind) => match kind {
                AllocKind::Stack(_) | AllocKind::Param(_) => {
                    format!("use of {} after its scope ended", self.alloc_name(&kind))
                }
                AllocKind::Nothing => "use of an object after its lifetime ended".to_string(),
                _ => format!("use of {} after it was freed", self.alloc_name(&kind)),
            },
            MemError::OutOfBounds {
                kind,
                offset,
                size,
                len,
            } => format!(
                "out-of-bounds access of {size} bytes at offset {offset} of {} ({len} bytes)",
                self.alloc_name(&kind)
            ),
            MemError::ReadOnly(kind) => {
                format!("write to constant {}", self.alloc_name(&kind))
            }
            MemError::Budget { limit } => format!("memory budget of {limit} bytes exceeded"),
            MemError::TooLarge(n) => format!("allocation of {n} bytes is too large"),
        };
        let stop = self.error(msg);
        if budget { mark_budget(stop) } else { stop }
    }

    // ---- registers and types --------------------------------------------------------

    #[inline]
    pub fn get(&self, v: Value) -> u64 {
        self.cur.regs[v.index()]
    }

    #[inline]
    pub fn set(&mut self, v: Value, x: u64) {
        self.cur.regs[v.index()] = x;
    }

    #[inline]
    pub fn scalar_of(&self, v: Value) -> Scalar {
        self.layouts.get(self.cur.func.dfg.value_type(v)).scalar
    }

    /// The pointee of a pointer-typed value.
    pub fn pointee(&self, v: Value) -> Option<Type> {
        self.module
            .ctx
            .types
            .pointee(self.cur.func.dfg.value_type(v))
    }

    /// Moves to the op after `op` in its block.
    #[inline]
    pub fn next(&mut self, op: Op) -> Result<(), Stop> {
        match self.cur.func.layout.next_op(op) {
            Some(n) => {
                self.cur.pc = n;
                Ok(())
            }
            None => Err(self.error(format!(
                "{} ends its block without a terminator",
                self.cur.func.dfg.kind(op).name()
            ))),
        }
    }

    /// Runs the `cir.alloca` `op`: allocates the variable in the frame and sets the
    /// op's result to its address.
    pub(crate) fn allocate_local(
        &mut self,
        op: Op,
        alloc_ty: Type,
        name: Symbol,
    ) -> Result<(), Stop> {
        let func = self.cur.func;
        let Some(&r) = func.dfg.results(op).first() else {
            return Err(self.error("cir.alloca without a result".into()));
        };
        let size = self.layouts.size(alloc_ty);
        if let &[count] = func.dfg.operands(op) {
            // Dynamic: `count` elements where the op is, alive until the return; every
            // empty one shares one address.
            let size = size.saturating_mul(self.get(count));
            let p = match self.cur.stack_top {
                p if size == 0 && p != 0 => p,
                _ => {
                    let p = self
                        .mem
                        .allocate(size, AllocKind::Stack(name), self.frame_bytes)
                        .map_err(|e| self.mem_error(e))?;
                    self.cur.allocas.push(p);
                    if size == 0 {
                        self.cur.stack_top = p;
                    }
                    p
                }
            };
            self.set(r, p);
            return Ok(());
        }
        let p = self
            .mem
            .allocate(size, AllocKind::Stack(name), self.frame_bytes)
            .map_err(|e| self.mem_error(e))?;
        self.cur.allocas.push(p);
        if self.cur.phase != Phase::Structured
            && self.cur.scoped.len() < MAX_SCOPED_SLOTS
            && let Some(scopes) = &self.config.block_scopes
            && let Some(loc) = func.dfg.loc(op).offset()
            && let Some(span) = scopes.span(self.module.ctx.name(func.name), loc as u32)
        {
            self.cur.scoped.push(ScopedSlot {
                addr: p,
                span,
                live: true,
            });
        }
        self.set(r, p);
        Ok(())
    }

    /// Assigns `args` to the parameters of `block` and continues at its first op.
    /// A block declaring one token parameter that no argument feeds receives `token`.
    pub fn enter_block(
        &mut self,
        block: Block,
        args: &[u64],
        token: Option<u64>,
    ) -> Result<(), Stop> {
        let func = self.cur.func;
        let params = func.dfg.block_params(block);
        if params.len() == args.len() {
            for (p, &a) in params.iter().zip(args) {
                self.cur.regs[p.index()] = a;
            }
        } else if args.is_empty()
            && params.len() == 1
            && let Some(t) = token
            && self
                .module
                .ctx
                .types
                .is_token(func.dfg.value_type(params[0]))
        {
            self.cur.regs[params[0].index()] = t;
        } else {
            return Err(self.error(format!(
                "branch passes {} arguments to a block with {} parameters",
                args.len(),
                params.len()
            )));
        }
        match first_op(func, block) {
            Some(op) => {
                self.cur.pc = op;
                Ok(())
            }
            None => Err(self.error("branch to an empty block".into())),
        }
    }

    /// Follows a successor edge. In the structured phase an edge that leaves the
    /// current region exits the enclosing constructs first (running cleanups).
    pub fn jump(&mut self, succ: Successor, token: Option<u64>) -> Result<(), Stop> {
        let func = self.cur.func;
        let block = func.dfg.successor_block(succ);
        let mut buf = std::mem::take(&mut self.scratch);
        buf.clear();
        buf.extend(
            func.dfg
                .successor_args(succ)
                .iter()
                .map(|&v| self.cur.regs[v.index()]),
        );
        let r = if self.cur.phase == Phase::Structured
            && func.layout.block_region(block) != self.current_region()
        {
            let args = buf.clone();
            self.perform(Pending::Branch(block, args))
        } else {
            self.enter_block(block, &buf, token)
        };
        self.scratch = buf;
        r
    }

    /// Lowered phases: ends the lifetime of the frame's block-scope allocas whose scope
    /// span does not hold the located op about to run, and starts again those whose
    /// span does.
    fn follow_block_scopes(&mut self, op: Op) {
        let Some(loc) = self.cur.func.dfg.loc(op).offset() else {
            return;
        };
        for i in 0..self.cur.scoped.len() {
            let slot = &mut self.cur.scoped[i];
            let inside = slot.span.contains(loc as u32);
            if slot.live != inside {
                slot.live = inside;
                let addr = slot.addr;
                self.mem.set_live(addr, inside);
            }
        }
    }

    /// The region the running op is in.
    pub fn current_region(&self) -> Option<Region> {
        let func = self.cur.func;
        func.layout
            .op_block(self.cur.pc)
            .and_then(|b| func.layout.block_region(b))
    }

    // ---- the step -------------------------------------------------------------------

    /// Sets the one result of the pure op `op` to what `compute` makes of the op's
    /// operands and result (an error message: the op fails), then goes on to the next op.
    fn compute_result(
        &mut self,
        dfg: &DataFlowGraph,
        op: Op,
        compute: impl FnOnce(&Self, &[Value], Value) -> Result<u64, String>,
    ) -> Result<(), Stop> {
        let operands = dfg.operands(op);
        let result = dfg.results(op)[0];
        let value = compute(self, operands, result).map_err(|m| self.error(m))?;
        self.set(result, value);
        self.next(op)
    }

    /// Executes one op.
    pub fn step(&mut self) -> Result<(), Stop> {
        self.steps += 1;
        if self.steps > self.step_limit {
            return Err(self.limit_error());
        }
        let func: &'m Function = self.cur.func;
        let op = self.cur.pc;
        if !self.cur.scoped.is_empty() {
            self.follow_block_scopes(op);
        }
        let data = &func.dfg.ops[op];
        let pool = &func.dfg.value_lists;
        match data.kind {
            OpKind::Const { value } => {
                let r = data.results.as_slice(pool)[0];
                let ty = func.dfg.value_type(r);
                let v = self.const_value(value, ty)?;
                self.set(r, v);
                self.next(op)
            }
            OpKind::Load { .. } => {
                let ops = data.operands.as_slice(pool);
                let r = data.results.as_slice(pool)[0];
                let p = self.get(ops[0]);
                let layout = self.layouts.get(func.dfg.value_type(r));
                let v = self.load(p, layout.size, layout.scalar)?;
                self.set(r, v);
                self.next(op)
            }
            OpKind::Store { .. } => {
                let ops = data.operands.as_slice(pool);
                let (v, p) = (self.get(ops[0]), self.get(ops[1]));
                let layout = self.layouts.get(func.dfg.value_type(ops[0]));
                self.store(p, v, layout.size, layout.scalar)?;
                self.next(op)
            }
            OpKind::Binary(k) => self.compute_result(&func.dfg, op, |m, ops, r| {
                values::binary(k, m.get(ops[0]), m.get(ops[1]), m.scalar_of(r))
            }),
            OpKind::Unary(k) => self.compute_result(&func.dfg, op, |m, ops, r| {
                values::unary(k, m.get(ops[0]), m.scalar_of(r))
            }),
            OpKind::Cmp(k) => self.compute_result(&func.dfg, op, |m, ops, _| {
                values::compare(k, m.get(ops[0]), m.get(ops[1]), m.scalar_of(ops[0]))
            }),
            OpKind::Cast(k) => self.compute_result(&func.dfg, op, |m, ops, r| {
                values::cast(k, m.get(ops[0]), m.scalar_of(ops[0]), m.scalar_of(r))
            }),
            OpKind::Select => {
                let ops = data.operands.as_slice(pool);
                let r = data.results.as_slice(pool)[0];
                let v = if self.get(ops[0]) != 0 {
                    self.get(ops[1])
                } else {
                    self.get(ops[2])
                };
                self.set(r, v);
                self.next(op)
            }
            OpKind::PtrStride => {
                let ops = data.operands.as_slice(pool);
                let r = data.results.as_slice(pool)[0];
                let elem = self
                    .pointee(ops[0])
                    .map(|t| self.layouts.size(t))
                    .unwrap_or(1);
                // Registers hold integers sign- or zero-extended to 64 bits.
                let n = self.get(ops[1]) as i64;
                let base = self.get(ops[0]);
                let delta = i128::from(n) * i128::from(elem);
                let Some(p) = memory::offset_checked(base, delta) else {
                    return Err(self.error(format!(
                        "out-of-bounds pointer arithmetic: {n} elements of {elem} bytes from byte offset {} of an object leave every object",
                        memory::decode(base).offset as i32
                    )));
                };
                self.set(r, p);
                self.next(op)
            }
            OpKind::GetMember { index, .. } => {
                let ops = data.operands.as_slice(pool);
                let r = data.results.as_slice(pool)[0];
                let offset = self.member_offset(ops[0], index)?;
                let p = memory::offset_by(self.get(ops[0]), offset as i64);
                self.set(r, p);
                self.next(op)
            }
            OpKind::BaseClassAddr { offset, .. } | OpKind::DerivedClassAddr { offset, .. } => {
                let ops = data.operands.as_slice(pool);
                let r = data.results.as_slice(pool)[0];
                let p = self.get(ops[0]);
                let delta = if matches!(data.kind, OpKind::BaseClassAddr { .. }) {
                    i64::from(offset)
                } else {
                    -i64::from(offset)
                };
                let v = if p == 0 {
                    0
                } else {
                    memory::offset_by(p, delta)
                };
                self.set(r, v);
                self.next(op)
            }
            OpKind::GetGlobal { symbol } => {
                let r = data.results.as_slice(pool)[0];
                let p = self.global_addr(symbol)?;
                self.set(r, p);
                self.next(op)
            }
            OpKind::Alloca { alloc_ty, name, .. } => {
                self.allocate_local(op, alloc_ty, name)?;
                self.next(op)
            }
            OpKind::Call { callee, .. } | OpKind::TryCall { callee, .. } => {
                self.exec_call(op, callee.expand())
            }
            OpKind::Return => {
                let ops = data.operands.as_slice(pool);
                let v = ops.first().map(|&v| self.get(v));
                if self.cur.phase == Phase::Structured {
                    self.perform(Pending::Return(v))
                } else {
                    self.do_return(v)
                }
            }
            OpKind::Br => {
                let s = data.successors.as_slice(&func.dfg.successor_lists)[0];
                self.jump(s, None)
            }
            OpKind::BrCond => {
                let ops = data.operands.as_slice(pool);
                let succs = data.successors.as_slice(&func.dfg.successor_lists);
                let s = if self.get(ops[0]) != 0 {
                    succs[0]
                } else {
                    succs[1]
                };
                self.jump(s, None)
            }
            OpKind::SwitchFlat { cases } => {
                let ops = data.operands.as_slice(pool);
                let succs = data.successors.as_slice(&func.dfg.successor_lists);
                let v = self.get(ops[0]);
                let s = self.scalar_of(ops[0]);
                let mut target = succs[0];
                if let ehir_core::ExtraData::Cases(values) = func.dfg.extra(cases) {
                    for (i, &c) in values.iter().enumerate() {
                        if self.int_attr_matches(c, v, s) {
                            target = succs[i + 1];
                            break;
                        }
                    }
                }
                self.jump(target, None)
            }
            OpKind::Unreachable => Err(self.error("reached cir.unreachable".into())),
            OpKind::BlockAddress { label } => {
                let r = data.results.as_slice(pool)[0];
                let p = self
                    .mem
                    .allocate(0, AllocKind::Label(func.name, label), self.frame_bytes)
                    .map_err(|e| self.mem_error(e))?;
                self.set(r, p);
                self.next(op)
            }
            OpKind::IndirectBr => {
                let ops = data.operands.as_slice(pool);
                let succs = data.successors.as_slice(&func.dfg.successor_lists);
                let p = self.get(ops[0]);
                let label = match self.mem.kind_of(p) {
                    Some((AllocKind::Label(_, l), _)) => *l,
                    _ => return Err(self.error("cir.indirect_br to a non-label address".into())),
                };
                for &s in succs {
                    let b = func.dfg.successor_block(s);
                    if let Some(first) = first_op(func, b)
                        && matches!(func.dfg.kind(first), OpKind::Label { name } if *name == label)
                    {
                        return self.jump(s, None);
                    }
                }
                Err(self.error("cir.indirect_br: no successor carries the label".into()))
            }

            // ---- structured ----
            OpKind::Scope
            | OpKind::If
            | OpKind::While
            | OpKind::DoWhile
            | OpKind::For
            | OpKind::Switch
            | OpKind::Case { .. }
            | OpKind::Ternary
            | OpKind::CleanupScope { .. }
            | OpKind::Try { .. }
            | OpKind::ArrayCtor
            | OpKind::ArrayDtor => self.enter_structured(op),
            OpKind::Yield => self.exec_yield(op),
            OpKind::Condition => self.exec_condition(op),
            OpKind::Break => self.perform(Pending::Break),
            OpKind::Continue => self.perform(Pending::Continue),
            OpKind::Goto { label } => {
                let block = self.label_block(label)?;
                self.perform(Pending::Branch(block, Vec::new()))
            }
            OpKind::Label { .. } => self.next(op),
            OpKind::CatchParam => self.exec_catch_param(op),
            // `run_module` expands these before running (see `ehir_core::upstream_catch`).
            OpKind::ConstructCatchParam { .. } => {
                Err(self.error("not supported yet: 'cir.construct_catch_param'".to_string()))
            }

            // ---- exceptions ----
            OpKind::AllocException { size } => {
                let r = data.results.as_slice(pool)[0];
                let p = self.allocate_exception(size)?;
                self.set(r, p);
                self.next(op)
            }
            OpKind::FreeException => {
                let p = self.get(data.operands.as_slice(pool)[0]);
                self.free_exception(p)?;
                self.next(op)
            }
            // Lifetime markers change nothing the interpreter observes.
            OpKind::LifetimeStart | OpKind::LifetimeEnd => self.next(op),
            OpKind::Throw { type_info, dtor } => {
                self.exec_throw(op, type_info.expand(), dtor.expand())
            }
            OpKind::TryThrow => {
                let ops = data.operands.as_slice(pool);
                let ti = self.get(ops[1]);
                let Some(type_info) = self.symbol_of_pointer(ti) else {
                    return Err(self.error(
                        "cir.try_throw: the typeinfo operand does not point to a global".into(),
                    ));
                };
                let d = self.get(ops[2]);
                let dtor = if d == 0 {
                    None
                } else {
                    Some(self.symbol_of_pointer(d).ok_or_else(|| {
                        self.error("cir.try_throw: the destructor operand is not a function".into())
                    })?)
                };
                self.exec_throw(op, Some(type_info), dtor)
            }
            OpKind::Resume => self.exec_resume(op),
            OpKind::EhInitiate { .. } => {
                let r = data.results.as_slice(pool)[0];
                let Some(exn) = self.cur.landed else {
                    return Err(self.error("cir.eh.initiate without an exception in flight".into()));
                };
                self.set(r, u64::from(exn));
                self.next(op)
            }
            OpKind::EhDispatch { keys } => self.exec_dispatch(op, keys),
            OpKind::BeginCleanup => {
                let ops = data.operands.as_slice(pool);
                let r = data.results.as_slice(pool)[0];
                let exn = self.token_exception(ops.first().copied())?;
                self.cur.open_cleanups.push(exn);
                self.set(r, u64::from(exn));
                self.next(op)
            }
            OpKind::EndCleanup => {
                let ops = data.operands.as_slice(pool);
                let exn = self.token_exception(ops.first().copied())?;
                if let Some(i) = self.cur.open_cleanups.iter().rposition(|&e| e == exn) {
                    self.cur.open_cleanups.remove(i);
                }
                self.next(op)
            }
            OpKind::CopyCatchParam { ctor } => self.exec_copy_catch_param(op, ctor.expand()),
            OpKind::InitCatchParam { kind } => self.exec_init_catch_param(op, kind),
            OpKind::BeginCatch => {
                let ops = data.operands.as_slice(pool);
                let results = data.results.as_slice(pool);
                let exn = self.token_exception(ops.first().copied())?;
                let adjusted = self.begin_catch(exn)?;
                self.set(results[0], u64::from(exn));
                if let Some(&r) = results.get(1) {
                    let value =
                        self.catch_param_value(exn, adjusted, self.cur.func.dfg.value_type(r));
                    self.set(r, value);
                }
                self.next(op)
            }
            OpKind::EndCatch => {
                self.next(op)?;
                self.end_catch()
            }
            OpKind::EhUnexpected => {
                let exn = self.token_exception(data.operands.as_slice(pool).first().copied())?;
                self.call_unexpected(exn, Vec::new())
            }
            OpKind::EhTerminate => match data.operands.as_slice(pool).first() {
                Some(&t) => {
                    let exn = self.token_exception(Some(t))?;
                    self.terminate_for(exn)
                }
                // MSVC: in a catch funclet the exception is caught (current); in a
                // terminate cleanup funclet (a boundary reached after a catch did not
                // match) it is not, as g++'s direct `std::terminate` call there.
                None => match (self.cur.landed, self.cur.pads.last()) {
                    (_, Some(Pad::Cleanup { .. })) | (None, _) => self.terminate(),
                    (Some(exn), _) => self.terminate_for(exn),
                },
            },
            OpKind::EhLandingPad { .. } => {
                let results = data.results.as_slice(pool);
                let Some(exn) = self.cur.landed else {
                    return Err(self.error("cir.eh.landingpad reached without unwinding".into()));
                };
                let object = self.rt.get(exn).map(|e| e.object).unwrap_or(0);
                if let Some(&r) = results.first() {
                    self.set(r, object);
                }
                if let Some(&r) = results.get(1) {
                    let sel = self.cur.selector;
                    self.set(r, u64::from(sel));
                }
                self.next(op)
            }
            OpKind::EhTypeId { type_info } => {
                let r = data.results.as_slice(pool)[0];
                let id = self.typeid(Some(type_info));
                self.set(r, u64::from(id));
                self.next(op)
            }
            OpKind::ResumeFlat => {
                let ops = data.operands.as_slice(pool);
                let p = self.get(ops[0]);
                let exn = self.exception_of_pointer(p)?;
                self.continue_unwinding_out(exn)
            }
            OpKind::CatchSwitch { .. } => self.exec_catchswitch(op),
            OpKind::CatchPad {
                type_desc,
                adjectives,
                has_slot,
            } => self.exec_catchpad(op, type_desc.expand(), adjectives, has_slot),
            OpKind::CatchRet => self.exec_catchret(op),
            OpKind::CleanupPad => {
                let r = data.results.as_slice(pool)[0];
                let Some(exn) = self.cur.landed else {
                    return Err(self.error("cir.cleanuppad reached without unwinding".into()));
                };
                self.cur.pads.push(Pad::Cleanup { exn });
                self.set(r, u64::from(exn));
                self.next(op)
            }
            OpKind::CleanupRet => self.exec_cleanupret(op),
        }
    }

    // ---- memory ops -----------------------------------------------------------------

    pub fn load(&mut self, p: u64, size: u64, scalar: Scalar) -> Result<u64, Stop> {
        match scalar {
            Scalar::Aggregate => {
                let bytes = self
                    .mem
                    .read_bytes(p, size)
                    .map_err(|e| self.mem_error(e))?
                    .to_vec();
                self.new_aggregate(bytes)
            }
            Scalar::Int { width, signed } => {
                let v = self
                    .mem
                    .read_uint(p, size.min(8))
                    .map_err(|e| self.mem_error(e))?;
                if size > 8 {
                    self.mem.check(p, size).map_err(|e| self.mem_error(e))?;
                }
                Ok(values::canon(v, width, signed))
            }
            Scalar::Bool => {
                let v = self.mem.read_uint(p, 1).map_err(|e| self.mem_error(e))?;
                Ok(u64::from(v != 0))
            }
            Scalar::Void | Scalar::Func => {
                Err(self.error("load of a value of void or function type".into()))
            }
            _ => self.mem.read_uint(p, size).map_err(|e| self.mem_error(e)),
        }
    }

    pub fn store(&mut self, p: u64, v: u64, size: u64, scalar: Scalar) -> Result<(), Stop> {
        match scalar {
            Scalar::Aggregate => {
                let bytes = self.aggregate(v)?.to_vec();
                let n = (size as usize).min(bytes.len());
                self.mem
                    .write_bytes(p, &bytes[..n])
                    .map_err(|e| self.mem_error(e))
            }
            Scalar::Void | Scalar::Func => {
                Err(self.error("store of a value of void or function type".into()))
            }
            _ => self
                .mem
                .write_uint(p, size, v)
                .map_err(|e| self.mem_error(e)),
        }
    }

    /// Charges an aggregate register value of `size` bytes against the memory budget.
    fn charge_aggregate(&mut self, size: u64) -> Result<(), Stop> {
        let extra = size.saturating_add(memory::ALLOCATION_OVERHEAD);
        self.mem
            .check_budget(self.frame_bytes.saturating_add(extra))
            .map_err(|e| self.mem_error(e))?;
        self.frame_bytes += extra;
        Ok(())
    }

    /// A new aggregate register value holding `bytes`.
    pub fn new_aggregate(&mut self, bytes: Vec<u8>) -> Result<u64, Stop> {
        self.charge_aggregate(bytes.len() as u64)?;
        self.aggregates.push(bytes);
        Ok(self.aggregates.len() as u64 - 1)
    }

    /// A new zero-filled aggregate register value (the budget is checked first).
    pub fn new_zeroed_aggregate(&mut self, size: u64) -> Result<u64, Stop> {
        self.charge_aggregate(size)?;
        self.aggregates.push(vec![0; size as usize]);
        Ok(self.aggregates.len() as u64 - 1)
    }

    pub fn aggregate(&self, v: u64) -> Result<&[u8], Stop> {
        self.aggregates
            .get(v as usize)
            .map(|b| b.as_slice())
            .ok_or_else(|| self.error("use of an undefined aggregate value".into()))
    }

    fn member_offset(&self, ptr: Value, index: u32) -> Result<u64, Stop> {
        let ctx = &self.module.ctx;
        let record = self.pointee(ptr).map(|t| ctx.types.get(t).clone());
        match record {
            Some(TypeData::Record(alias)) => match self.layouts.field(alias, index) {
                Some((offset, _)) => Ok(offset),
                None => Err(self.error(format!(
                    "cir.get_member {index} of !{} which has no such field",
                    ctx.name(alias)
                ))),
            },
            _ => Err(self.error("cir.get_member on a pointer to a non-record".into())),
        }
    }

    /// Whether an integer case value equals a register value of scalar class `s`.
    fn int_attr_matches(&self, case: i128, v: u64, s: Scalar) -> bool {
        match s {
            Scalar::Int { width, signed } => values::canon(case as u64, width, signed) == v,
            _ => case as u64 == v,
        }
    }

    // ---- constants and globals -------------------------------------------------------

    /// The register value of a `cir.const` attribute of type `ty`.
    pub fn const_value(&mut self, attr: Attr, ty: Type) -> Result<u64, Stop> {
        let layout = self.layouts.get(ty);
        let data = self.module.ctx.attrs.get(attr);
        Ok(match data {
            AttrData::Int { value, .. } => match layout.scalar {
                Scalar::Int { width, signed } => values::canon(*value as u64, width, signed),
                Scalar::F32 => values::of_f32(*value as f32),
                Scalar::F64 => values::of_f64(*value as f64),
                Scalar::Bool => u64::from(*value != 0),
                _ => *value as u64,
            },
            AttrData::Bool(b) => u64::from(*b),
            AttrData::Float { bits, .. } => match layout.scalar {
                Scalar::F32 => values::of_f32(f64::from_bits(*bits) as f32),
                _ => *bits,
            },
            AttrData::Null(_) => 0,
            AttrData::IntPtr { value, .. } => *value as u64,
            AttrData::GlobalView {
                symbol, indices, ..
            } => {
                let (symbol, indices) = (*symbol, indices.clone());
                self.global_view(symbol, &indices)?
            }
            AttrData::Zero(_) | AttrData::Undef(_) => {
                if layout.scalar == Scalar::Aggregate {
                    self.new_zeroed_aggregate(layout.size)?
                } else {
                    0
                }
            }
            AttrData::Str(bytes) => {
                let size = layout.size.max(bytes.len() as u64);
                let bytes = bytes.clone();
                let v = self.new_zeroed_aggregate(size)?;
                self.aggregates[v as usize][..bytes.len()].copy_from_slice(&bytes);
                v
            }
            AttrData::ConstArray { .. } | AttrData::ConstRecord { .. } | AttrData::List(_) => {
                let v = self.new_zeroed_aggregate(layout.size)?;
                let mut bytes = std::mem::take(&mut self.aggregates[v as usize]);
                let r = self.encode_attr(&mut bytes, 0, attr, ty);
                self.aggregates[v as usize] = bytes;
                r?;
                v
            }
        })
    }

    /// The address `#cir.global_view<@sym, [i, j]>` denotes.
    fn global_view(&mut self, symbol: Symbol, indices: &[i64]) -> Result<u64, Stop> {
        let base = self.global_addr(symbol)?;
        if indices.is_empty() {
            return Ok(base);
        }
        let module = self.module;
        let mut ty = module.global_by_name(symbol).map(|g| module.globals[g].ty);
        let mut offset: i64 = 0;
        for &i in indices {
            let Some(t) = ty else { break };
            match module.ctx.types.get(t) {
                TypeData::Array(elem, _) => {
                    offset += i * self.layouts.size(*elem) as i64;
                    ty = Some(*elem);
                }
                TypeData::Record(alias) => match self.layouts.field(*alias, i as u32) {
                    Some((off, fty)) => {
                        offset += off as i64;
                        ty = Some(fty);
                    }
                    None => break,
                },
                _ => {
                    offset += i * self.layouts.size(t) as i64;
                }
            }
        }
        Ok(memory::offset_by(base, offset))
    }

    /// Writes the bytes of a constant of type `ty` at `offset` of `buf` (iteratively).
    fn encode_attr(
        &mut self,
        buf: &mut [u8],
        offset: u64,
        attr: Attr,
        ty: Type,
    ) -> Result<(), Stop> {
        let mut work = vec![(offset, attr, ty)];
        while let Some((off, attr, ty)) = work.pop() {
            let layout = self.layouts.get(ty);
            let data = self.module.ctx.attrs.get(attr).clone();
            let put = |buf: &mut [u8], v: u64, size: u64| {
                let s = off as usize;
                let n = (size as usize).min(8);
                if let Some(dst) = buf.get_mut(s..s.saturating_add(n)) {
                    dst.copy_from_slice(&v.to_le_bytes()[..n]);
                }
            };
            match data {
                AttrData::ConstArray { elements, .. } => match elements {
                    ConstArrayElements::Bytes(b) => {
                        let s = off as usize;
                        let end = s.saturating_add(b.len()).min(buf.len());
                        if s < end {
                            buf[s..end].copy_from_slice(&b[..end - s]);
                        }
                    }
                    ConstArrayElements::Attrs(items) => {
                        self.push_elements(&mut work, off, &items, ty)
                    }
                },
                AttrData::List(items) | AttrData::ConstRecord { fields: items, .. } => {
                    self.push_elements(&mut work, off, &items, ty)
                }
                AttrData::Str(b) => {
                    let s = off as usize;
                    let end = s.saturating_add(b.len()).min(buf.len());
                    if s < end {
                        buf[s..end].copy_from_slice(&b[..end - s]);
                    }
                }
                AttrData::Zero(_) | AttrData::Undef(_) => {}
                _ => {
                    if layout.scalar != Scalar::Aggregate {
                        let v = self.const_value(attr, ty)?;
                        put(buf, v, layout.size);
                    }
                }
            }
        }
        Ok(())
    }

    fn push_elements(&self, work: &mut Vec<(u64, Attr, Type)>, off: u64, items: &[Attr], ty: Type) {
        let ctx = &self.module.ctx;
        match ctx.types.get(ty) {
            TypeData::Array(elem, _) => {
                let size = self.layouts.size(*elem);
                for (i, &a) in items.iter().enumerate() {
                    work.push((
                        off.saturating_add((i as u64).saturating_mul(size)),
                        a,
                        *elem,
                    ));
                }
            }
            TypeData::Record(alias) => {
                for (i, &a) in items.iter().enumerate() {
                    if let Some((foff, fty)) = self.layouts.field(*alias, i as u32) {
                        work.push((off.saturating_add(foff), a, fty));
                    }
                }
            }
            _ => {}
        }
    }

    /// Creates every module global (then initialises them, so globals may point at
    /// each other).
    pub fn init_globals(&mut self) -> Result<(), Stop> {
        let module = self.module;
        for (_, g) in module.globals.iter() {
            let size = self.layouts.size(g.ty);
            let p = self
                .mem
                .allocate(size, AllocKind::Global(g.name), self.frame_bytes)
                .map_err(|e| self.mem_error(e))?;
            self.globals.insert(g.name, p);
        }
        for (_, g) in module.globals.iter() {
            let p = self.globals[&g.name];
            if let Some(init) = g.init {
                let size = self.layouts.size(g.ty);
                let mut bytes = vec![0u8; size as usize];
                self.encode_attr(&mut bytes, 0, init, g.ty)?;
                self.mem
                    .init_bytes(p, &bytes)
                    .map_err(|e| self.mem_error(e))?;
            }
            if g.init.is_none() {
                self.init_stream_global(g.name, p)?;
                self.init_type_descriptor(g.name, p)?;
                if self.mem.len_of(p).is_ok_and(|n| n >= 16) {
                    self.init_typeinfo_name(g.name, p)?;
                }
            }
            if g.constant {
                self.mem.set_read_only(p);
            }
        }
        Ok(())
    }

    /// The address of a global, function or external object named by `symbol`.
    pub fn global_addr(&mut self, symbol: Symbol) -> Result<u64, Stop> {
        if let Some(&p) = self.globals.get(&symbol) {
            return Ok(p);
        }
        let p = if self.module.function_by_name(symbol).is_some() {
            let p = self
                .mem
                .allocate(0, AllocKind::Function(symbol), self.frame_bytes)
                .map_err(|e| self.mem_error(e))?;
            self.fn_ptrs.insert(memory::decode(p).slot, symbol);
            p
        } else {
            // An object the module references but does not define (a typeinfo object,
            // `std::cout`...): zeroed storage of a nominal size (`stdout` and the other
            // standard streams hold a `FILE*` naming their stream).
            let p = self
                .mem
                .allocate(16, AllocKind::Global(symbol), self.frame_bytes)
                .map_err(|e| self.mem_error(e))?;
            self.init_stream_global(symbol, p)?;
            self.init_typeinfo_name(symbol, p)?;
            p
        };
        self.globals.insert(symbol, p);
        Ok(p)
    }

    /// An Itanium typeinfo object (`_ZTI…`) holds, after its vtable pointer, a pointer
    /// to its type's mangled name (`std::type_info::name()`, compared by
    /// `std::type_info::operator==`).
    fn init_typeinfo_name(&mut self, symbol: Symbol, p: u64) -> Result<(), Stop> {
        let Some(mangled) = self.module.ctx.name(symbol).strip_prefix("_ZTI") else {
            return Ok(());
        };
        let mut bytes = mangled.as_bytes().to_vec();
        bytes.push(0);
        let name = self
            .mem
            .allocate(
                bytes.len() as u64,
                AllocKind::Global(symbol),
                self.frame_bytes,
            )
            .map_err(|e| self.mem_error(e))?;
        self.mem
            .init_bytes(name, &bytes)
            .map_err(|e| self.mem_error(e))?;
        self.mem
            .init_bytes(memory::offset_by(p, 8), &name.to_le_bytes())
            .map_err(|e| self.mem_error(e))?;
        Ok(())
    }

    /// The symbol a pointer to a global/function/typeinfo names.
    pub fn symbol_of_pointer(&self, p: u64) -> Option<Symbol> {
        match self.mem.kind_of(p)? {
            (AllocKind::Global(s), _) | (AllocKind::Function(s), _) => Some(*s),
            _ => None,
        }
    }

    /// The block a `cir.goto` label names in the running function.
    fn label_block(&mut self, label: Symbol) -> Result<Block, Stop> {
        let key = (self.cur.fid, label);
        if let Some(&b) = self.labels.get(&key) {
            return Ok(b);
        }
        let func = self.cur.func;
        let mut found = None;
        for op in func.walk_ops() {
            if let OpKind::Label { name } = func.dfg.kind(op)
                && *name == label
            {
                found = func.layout.op_block(op);
                break;
            }
        }
        match found {
            Some(b) => {
                self.labels.insert(key, b);
                Ok(b)
            }
            None => Err(self.error(format!(
                "cir.goto to undefined label \"{}\"",
                self.module.ctx.name(label)
            ))),
        }
    }

    /// The Itanium type id of a typeinfo symbol (`None`: catch-all).
    pub fn typeid(&mut self, ti: Option<Symbol>) -> u32 {
        let n = self.typeids.len() as u32 + 1;
        *self.typeids.entry(ti).or_insert(n)
    }

    // ---- calls ------------------------------------------------------------------------

    fn exec_call(&mut self, op: Op, callee: Option<Symbol>) -> Result<(), Stop> {
        let func: &'m Function = self.cur.func;
        let operands = func.dfg.operands(op);
        let (callee, arg_values) = match callee {
            Some(c) => (c, operands),
            None => {
                let Some((&first, rest)) = operands.split_first() else {
                    return Err(self.error("indirect call without a callee".into()));
                };
                let p = self.get(first);
                match self.mem.kind_of(p) {
                    Some((AllocKind::Function(s), _)) => (*s, rest),
                    Some((&AllocKind::Library(index), _)) => {
                        let args: Vec<u64> = rest.iter().map(|&v| self.get(v)).collect();
                        let result = self.call_library(index, &args)?;
                        return self.finish_external_call(op, result);
                    }
                    _ if p == 0 => {
                        return Err(self.error("call through a null function pointer".into()));
                    }
                    _ => {
                        return Err(
                            self.error("call through a pointer that is not a function".into())
                        );
                    }
                }
            }
        };
        let args: Vec<u64> = arg_values.iter().map(|&v| self.get(v)).collect();

        // `--throw-at`: this call throws instead of running.
        if !self.throw_specs.is_empty()
            && let Some(index) = self.scripted_throw(callee)
        {
            if self.config.record_trace {
                let rendered = self.render_args(arg_values, &args);
                self.record(Event::Call {
                    callee: self.module.ctx.name(callee).to_string(),
                    args: rendered,
                });
            }
            let exn = self.throw_scripted(index)?;
            return self.raise(exn);
        }

        let module: &'m Module = self.module;
        // A library allocation function whose default calls one the program replaced
        // (`operator delete(void *, size_t)` calls `operator delete(void *)`): that one.
        let (callee, args) = match crate::externals::replaced_allocation(module, callee) {
            Some((replacement, kept)) => (replacement, args[..kept.min(args.len())].to_vec()),
            None => (callee, args),
        };
        if let Some(fid) = module.function_by_name(callee)
            && !module.functions[fid].is_declaration()
            && !crate::externals::provided_even_if_defined(module, callee)
        {
            let frame = self.new_frame(fid, &args)?;
            self.trace_enter(fid, &args);
            let old = std::mem::replace(&mut self.cur, frame);
            self.stack.push(Slot::Frame(old));
            return Ok(());
        }
        let results = func.dfg.results(op);
        let result_ty = results.first().map(|&r| func.dfg.value_type(r));
        let result = self.call_external(ExternalCall {
            callee,
            args: &args,
            arg_values: Some(arg_values),
            result_ty,
        })?;
        self.finish_external_call(op, result)
    }

    /// Continues after call op `op` of a function the interpreter provides.
    fn finish_external_call(
        &mut self,
        op: Op,
        result: crate::externals::ExternalResult,
    ) -> Result<(), Stop> {
        match result {
            crate::externals::ExternalResult::Value(v) => {
                if let (Some(&r), Some(v)) = (self.cur.func.dfg.results(op).first(), v) {
                    self.set(r, v);
                }
                self.after_call(op)
            }
            crate::externals::ExternalResult::Threw(exn) => self.raise(exn),
            crate::externals::ExternalResult::Transferred => Ok(()),
        }
    }

    /// Continues after a call op returned normally.
    pub fn after_call(&mut self, op: Op) -> Result<(), Stop> {
        let func = self.cur.func;
        if let OpKind::TryCall { .. } = func.dfg.kind(op) {
            let s = func.dfg.successors(op)[0];
            self.jump(s, None)
        } else {
            self.next(op)
        }
    }

    /// Returns from the running frame.
    pub fn do_return(&mut self, value: Option<u64>) -> Result<(), Stop> {
        if self.config.record_trace {
            let func = self.cur.func;
            let ret_ty = self
                .module
                .ctx
                .types
                .func_info(func.sig)
                .and_then(|(_, r, _)| r);
            let rendered = match (value, ret_ty) {
                (Some(v), Some(t)) => Some(self.render_value(v, t)),
                _ => None,
            };
            self.record(Event::Leave {
                function: self.module.ctx.name(func.name).to_string(),
                value: rendered,
            });
        }
        match self.pop_frame()? {
            None => {
                let op = self.cur.pc;
                let func = self.cur.func;
                if let (Some(&r), Some(v)) = (func.dfg.results(op).first(), value) {
                    self.set(r, v);
                }
                self.after_call(op)
            }
            Some(_) => Err(Stop::Sync(SyncEnd::Returned(value))),
        }
    }

    /// Appends an event to the trace, charging it against the memory budget. When the
    /// budget is exhausted, recording stops and the next step ends the run.
    pub fn record(&mut self, e: Event) {
        if !self.config.record_trace || self.trace_overflow {
            return;
        }
        let bytes = crate::trace::event_bytes(&e);
        self.frame_bytes += bytes;
        self.trace_bytes += bytes;
        if self.trace_bytes > self.config.trace_memory_limit
            || self.mem.check_budget(self.frame_bytes).is_err()
        {
            self.trace_overflow = true;
            self.step_limit = 0;
            return;
        }
        self.trace.push(e);
    }

    pub fn trace_enter(&mut self, fid: FuncId, args: &[u64]) {
        if !self.config.record_trace {
            return;
        }
        let func = &self.module.functions[fid];
        let params: Vec<Type> = func.param_types();
        let rendered = args
            .iter()
            .zip(params)
            .map(|(&a, t)| self.render_value(a, t))
            .collect();
        self.record(Event::Enter {
            function: self.module.ctx.name(func.name).to_string(),
            args: rendered,
        });
    }

    pub fn render_args(&self, values: &[Value], args: &[u64]) -> Vec<String> {
        let func = self.cur.func;
        values
            .iter()
            .zip(args)
            .map(|(&v, &a)| self.render_value(a, func.dfg.value_type(v)))
            .collect()
    }

    // ---- rendering ----------------------------------------------------------------------

    /// The printed name of an allocation (without offset).
    pub fn alloc_name(&self, kind: &AllocKind) -> String {
        let ctx = &self.module.ctx;
        match kind {
            AllocKind::Stack(s) => format!("&{}", ctx.name(*s)),
            AllocKind::Param(i) => format!("&arg{i}"),
            AllocKind::Global(s) => format!("@{}", ctx.name(*s)),
            AllocKind::Heap(n) => format!("heap#{n}"),
            AllocKind::Exception(n) => format!("exn#{n}"),
            AllocKind::Function(s) => format!("@{}", ctx.name(*s)),
            AllocKind::Library(key) => Machine::library_name(*key),
            AllocKind::HarnessString(n) => format!("str#{n}"),
            AllocKind::Label(f, l) => format!("<@{}, \"{}\">", ctx.name(*f), ctx.name(*l)),
            AllocKind::Nothing => "<freed object>".to_string(),
        }
    }

    /// A pointer, phase-independently: the object it points into and the offset.
    pub fn render_ptr(&self, p: u64) -> String {
        if p == 0 {
            return "null".into();
        }
        match self.mem.kind_of(p) {
            Some((
                kind @ (AllocKind::Function(_) | AllocKind::Library(_) | AllocKind::Label(..)),
                _,
            )) => self.alloc_name(kind),
            Some((kind, _)) => {
                let off = memory::decode(p).offset as i32;
                if off < 0 {
                    format!("{}{off}", self.alloc_name(kind))
                } else {
                    format!("{}+{off}", self.alloc_name(kind))
                }
            }
            None => format!("0x{p:x}"),
        }
    }

    /// A register value of type `ty`.
    pub fn render_value(&self, v: u64, ty: Type) -> String {
        match self.layouts.get(ty).scalar {
            Scalar::Int { signed: true, .. } => (v as i64).to_string(),
            Scalar::Int { signed: false, .. } => v.to_string(),
            Scalar::Bool => (v != 0).to_string(),
            Scalar::F32 => format!("{:?}", values::f32_of(v)),
            Scalar::F64 => format!("{:?}", values::f64_of(v)),
            Scalar::Ptr => self.render_ptr(v),
            Scalar::Token => "token".into(),
            Scalar::Aggregate => match self.aggregates.get(v as usize) {
                Some(b) => format!(
                    "{{{}}}",
                    b.iter()
                        .map(|x| format!("{x:02x}"))
                        .collect::<Vec<_>>()
                        .join("")
                ),
                None => "{?}".into(),
            },
            Scalar::Void | Scalar::Func => "?".into(),
        }
    }
}
