//! The reference interpreter of CIR: executes a module at any phase (structured, flat,
//! Itanium, MSVC — per function, as the function's phase says) with C++ runtime
//! semantics modelled on libstdc++, and records an event trace that is comparable
//! across phases, so that each lowering pass can be checked by running the same
//! program before and after it.
//!
//! ```text
//! run_module(&module, &RunConfig::default()) -> RunOutcome { stdout, stderr, exit_status, trace, .. }
//! first_divergence(&a.trace, &b.trace)       -> Option<Divergence>
//! ```
//!
//! Running a module with an injected throw and reading the trace:
//!
//! ```
//! use ehir_interp::{Event, RunConfig, parse_throw_spec, run_module};
//!
//! let text = "cir.func @work()\n\
//!             cir.func @cleanup()\n\
//!             cir.func @g() {\n\
//!               cir.cleanup.scope {\n\
//!                 cir.call @work() : () -> ()\n\
//!                 cir.yield\n\
//!               } cleanup all {\n\
//!                 cir.call @cleanup() : () -> ()\n\
//!                 cir.yield\n\
//!               }\n\
//!               cir.return\n\
//!             }\n";
//! let module = ehir_reader::parse_module("g.cir", text).expect("parses");
//! let config = RunConfig {
//!     throw_at: vec![parse_throw_spec("@work#1=int:7").expect("a throw spec")],
//!     ..RunConfig::default()
//! };
//! let outcome = run_module(&module, &config).expect("runs");
//! // The exception escapes @g after its cleanup ran: the harness reports it, status 1.
//! assert_eq!(outcome.exit_status, 1);
//! let calls: Vec<&str> = outcome.trace.iter().filter_map(|e| match e {
//!     Event::Call { callee, .. } => Some(callee.as_str()),
//!     _ => None,
//! }).collect();
//! assert_eq!(calls, ["work", "cleanup"]);
//! assert!(outcome.trace.iter().any(|e| matches!(e, Event::Throw { ty, .. } if ty == "int")));
//! ```
//!
//! # Entry and exit
//! - `main` runs under C++ rules: an exception that nothing catches calls
//!   `std::terminate` before anything is unwound (message on stderr, exit status 134).
//!   The exit status is `main`'s return value (low 8 bits).
//! - Any other entry runs as if called from a harness that catches everything: an
//!   exception escaping it is reported (type and value, on stderr and as an
//!   [`Event::Escape`]), destroyed, and the run exits with status 1; a normal return
//!   exits 0.
//! - Parameters of the entry get zero scalars and pointers to fresh zeroed storage of
//!   the pointee type (`&arg0+0`; opaque records get [`OPAQUE_RECORD_SIZE`] bytes),
//!   except `main(int argc, char **argv)`, which gets `argc == 1` and `argv == {
//!   "ehir-program", NULL }` ([`PROGRAM_NAME`]) as from a C runtime.
//!
//! # Exit statuses
//! `exit(n)` → `n & 0xff`; `abort()` and `std::terminate` → 134 ([`EXIT_ABORT`],
//! losing buffered stdout, see *Standard output*); an exception escaping a non-`main`
//! entry → 1; an error in the program detected by the interpreter (out-of-bounds or
//! dangling access, division by zero, step or memory budget exceeded,
//! `cir.unreachable` reached, ...) → [`EXIT_RUNTIME_ERROR`] (3), with
//! [`RunOutcome::runtime_error`] saying what and where. The interpreter never panics on
//! a program; [`InterpError`] covers only problems found before the run starts.
//!
//! # Limits
//! A step budget and a memory budget ([`RunConfig`]); calls never recurse on the host
//! stack (frames are an explicit stack) and neither do nested regions, so deep
//! recursion in the program is bounded only by the call-depth limit and the memory
//! budget. The event trace counts against the memory budget ([`event_bytes`], what its
//! allocations really take), and [`RunConfig::trace_memory_limit`] caps it further, so
//! that a caller keeping the traces of several runs stays within one budget.
//!
//! # Undefined functions
//! A call of a function the module declares but does not define runs the interpreter's
//! model of it when it has one (the C library and the C++ runtime functions listed in
//! `externals.rs` and `libc.rs`, under their Itanium names and, for programs compiled
//! for Windows, their Microsoft ones). Any other undefined function depends on the
//! module ([`UnmodelledCalls`]): in a program compiled for a target (a `cir.triple`,
//! which the C++ front end writes) it really runs elsewhere, so the call stops the run
//! with a runtime error naming it at the call ([`StopReason::Unmodelled`], exit status
//! 3) instead of returning a made-up zero; in a scenario without a target (the seed's
//! listings) it is a *probe*: the call is recorded in the trace, and returns the next
//! value `--returns` scripts for it, or zero. A function that `--throw-at` or
//! `--returns` names is a probe in every module.
//!
//! # Undefined behaviour each phase detects
//! Every phase checks every access (null, out of bounds, freed, read-only) and pointer
//! arithmetic (`cir.ptr_stride` whose result leaves the signed 32-bit offset range of
//! every object is an error, never a wrap-around into the same object). Use of a
//! block-scope variable after its scope: the structured phase ends the alloca when its
//! region is left. `flatten-cfg` hoists allocas to the function entry and keeps no scope
//! boundary, so the lowered phases need [`RunConfig::block_scopes`] (the
//! [`BlockScopes`] of the structured module, which `ehir run` and the differential
//! tests pass): with it a lowered frame ends a block-scope variable when it runs an op
//! located outside the scope's source span and starts it again inside (up to 64 such
//! variables per frame). Without it (a flat input), such a variable lives until its
//! function returns. `ehir run --phase all` treats undefined behaviour detected at the
//! reference (first) phase as the verdict (status 124), not as a divergence.
//!
//! # Semantics worth knowing
//! - **Handlers receive libstdc++'s adjusted pointer**: `cir.catch_param`, the pointer
//!   result of `cir.begin_catch`, `__cxa_begin_catch` and an MSVC catch-by-reference
//!   slot all get the address of the exception object (of the base subobject for a
//!   catch by base class), or, for a thrown pointer, the (adjusted) pointer value —
//!   except a reference to the caught pointer (`catch (int *&)`: a parameter with one
//!   pointer level more than the caught type, or the MSVC reference adjective), which
//!   gets the exception object's address, as Microsoft's runtime gives it.
//! - **noexcept boundaries** (`terminate` handlers and dispatch keys) follow g++
//!   (measured with g++ 12; see docs/notes/noexcept-gxx-behaviour.md). When only
//!   cleanups lie between the throwing call and the boundary, the boundary stops the
//!   phase-1 search, phase 2 unwinds the frames nearer the throw, and `std::terminate`
//!   is called at the call with the exception current — the noexcept frame's own
//!   cleanups do not run. When a try (or dispatch) with catching handlers lies in
//!   between, the search passes the boundary; if a handler further out exists, phase 2
//!   runs that try's cleanups and, when it does not match, terminates "without an
//!   active exception" (again without the cleanups between the try and the boundary).
//!   Calls that cannot throw (`nothrow` call or callee) are transparent: the caller's
//!   handlers are not searched for an exception coming out of them.
//! - **Exception specifications (`filter`)** stop the phase-1 search when violated;
//!   phase 2 runs the cleanups inside them, then `std::unexpected` is called (C++14:
//!   its handler may throw an allowed type, or `std::bad_exception` when listed).
//! - **Flat dispatch**: a `filter` key that the exception violates calls
//!   `std::unexpected` at once and a `terminate` key calls `std::terminate` at once;
//!   their successor blocks are not executed. A dispatch where no key applies keeps
//!   unwinding out of the function.
//! - **Terminate boundaries**: an exception escaping code that runs during unwinding
//!   terminates — a structured EH cleanup or `unwind` region, the flat
//!   `cir.begin_cleanup`..`cir.end_cleanup` range of another exception, an MSVC cleanup
//!   funclet, or a destructor the runtime runs for an exception object. Itanium code
//!   gets no such implicit boundary (its landing pads must say it, as real code does).
//! - **Leaving a catch handler by an exception** ends the catch implicitly in the
//!   structured phase and for MSVC catch funclets (as the C++ runtime does); flat and
//!   Itanium code must call `cir.end_catch` / `__cxa_end_catch` on that path itself.
//! - **Memory** is zero-filled when allocated (reading it is not reported); allocas die
//!   when their region (structured) or function (flat and later) is left; aggregates can
//!   be loaded, stored and made by `cir.const`; integers wider than 64 bits can be
//!   stored and loaded but not computed with.
//! - **`%p`** prints a pointer the way traces do (`&c+0`), so output is phase-independent.
//! - **The C library** (`libc.rs`): the `<string.h>`, `<stdio.h>` and `<stdlib.h>`
//!   functions C++ test programs use read and write through the checked memory model,
//!   so a `strcpy` or `sprintf` past the end of a buffer is a runtime error naming the
//!   function; results follow glibc on x86-64 (`strcmp` returns the byte difference).
//!
//! # Standard output
//! [`RunOutcome::stdout`] is what a g++-built program writes to stdout **when stdout is
//! a pipe** (how tests compare programs): glibc then buffers stdout fully, in a buffer
//! of the pipe's `st_blksize` ([`PIPE_BUFFER_SIZE`], 4096 bytes). `exit`, a return from
//! `main` and `fflush(stdout)` (or `fflush(NULL)`) write the buffer out; `abort()`, and
//! so `std::terminate` with the default handler (exit status 134), `_Exit` and
//! `quick_exit` lose it ([`RunOutcome::stdout_lost`] has those bytes; the trace still
//! shows every write). What is buffered at the end follows glibc 2.36's
//! `_IO_new_file_xsputn` write by write (`stdio.rs`): a buffer that fills up exactly is
//! flushed only by the next write; a write that does not fit fills the buffer, flushes
//! it, writes the largest multiple of 4096 bytes of the rest directly and buffers the
//! remainder; the very first write finds no buffer yet, so a first write of 4096 bytes
//! or more goes out directly. `printf` writes each literal run of its format and each
//! `%s` as one write and padding in 16-byte writes, as glibc's `vfprintf` does; `puts`
//! writes its string, then the newline. Measured on this model's reference (g++ 12,
//! glibc 2.36, `./a.out | wc -c` after the writes then `abort()`): 4095, 4096 `putchar`s
//! → 0 bytes; 4097 → 4096; 8192 → 4096; 10000 → 8192; one `printf("%s")` of 4096 →
//! 4096, of 5000 → 4096, of 8192 → 8192; one `putchar` then a `%s` of 4095 → 0, of
//! 8191 → 8192; `puts` of 4095 characters → 0. The interpreter gives the same bytes
//! for each (and for 40 random mixes of such writes). A program can change the mode
//! with `setvbuf`/`setbuf` on stdout, and [`RunConfig::stdout_buffering`] sets the
//! starting mode ([`StdoutBuffering::Unbuffered`] for a native harness that makes
//! stdout unbuffered). An error the interpreter detects (exit status 3) keeps all the
//! output, to show what the program did before it.
//!
//! See the module docs of `structured.rs`, `eh.rs`, `memory.rs`, `externals.rs`,
//! `libc.rs`, `stdio.rs` and `trace.rs` for the details of each part.

#![warn(missing_docs)]

mod config;
mod cxx_types;
mod eh;
mod externals;
mod forced_unwind;
mod libc;
mod library;
mod machine;
mod memory;
mod msvc_rtti;
mod printf;
mod runtime;
mod scopes;
mod shapes;
mod startup;
mod stdio;
mod structured;
mod trace;
mod type_layout;
mod values;

pub use config::{
    CallSelector, DEFAULT_CALL_DEPTH_LIMIT, DEFAULT_MEMORY_LIMIT, DEFAULT_STEP_LIMIT,
    PIPE_BUFFER_SIZE, ReturnSpec, RunConfig, ScriptValue, StdoutBuffering, ThrowSpec,
    UnmodelledCalls, parse_return_spec, parse_script_value, parse_throw_spec,
};
pub use eh::EXIT_ABORT;
pub use scopes::{BlockScopes, ScopeSpan};
pub use trace::{Divergence, Event, event_bytes, first_divergence, observable, trace_bytes};
pub use type_layout::OPAQUE_RECORD_SIZE;

use crate::cxx_types::Hierarchy;
use crate::machine::{Boundary, Frame, Machine, Slot, Stop, SyncEnd};
use crate::memory::{AllocKind, Memory};
use crate::type_layout::{Layouts, Scalar};
use ehir_core::{FuncId, Loc, Module, TypeData};
use std::collections::HashMap;

/// The exit status of a run stopped by an interpreter-detected error in the program.
pub const EXIT_RUNTIME_ERROR: i32 = 3;

/// A problem that prevents a run from starting.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum InterpError {
    /// [`RunConfig::entry`] names no function of the module (the name, without `@`).
    #[error("no function named @{0}")]
    NoSuchEntry(String),
    /// The entry function is only declared (its name, without `@`).
    #[error("@{0} is only declared, it has no body to run")]
    EntryNotDefined(String),
    /// No entry was given, and the module defines no function.
    #[error("the module defines no function to run")]
    NoFunctions,
    /// No entry was given, the module has no `main` and defines several functions
    /// (their names, `@a, @b`).
    #[error("the module defines several functions ({0}); choose one with `RunConfig::entry`")]
    AmbiguousEntry(String),
    /// A throw or return script does not fit the module (an unknown thrown type, a
    /// value of the wrong kind); the message says which.
    #[error("{0}")]
    BadSpec(String),
    /// The module uses something the interpreter does not model (a shape of op it
    /// cannot run); the message says what.
    #[error("{0}")]
    Setup(String),
    /// The module does not verify ([`ehir_core::verifier::verify_input`]'s diagnostics,
    /// each message starting with `input does not verify: `); nothing ran.
    #[error("{}", input_errors_message(.0))]
    InvalidInput(ehir_core::Diagnostics),
}

/// The messages of [`InterpError::InvalidInput`], one a line.
fn input_errors_message(diags: &ehir_core::Diagnostics) -> String {
    let lines: Vec<&str> = diags.0.iter().map(|d| d.message.as_str()).collect();
    lines.join("\n")
}

/// An error in the program that stopped the run.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeError {
    /// What went wrong (`division by zero`, `step budget of N exceeded`).
    pub message: String,
    /// The function that was running.
    pub function: String,
    /// The op's source location (byte offset), when known.
    pub loc: Loc,
    /// The exit status of the stopped run ([`EXIT_RUNTIME_ERROR`]).
    pub exit_status: i32,
    /// Why the run stopped.
    pub reason: StopReason,
}

impl RuntimeError {
    /// The run was cut short by the step or memory budget rather than stopped by an
    /// error of the program. Such runs of the same program at two phases stop at
    /// different points (steps and memory use differ between phases), so only the
    /// events before the cut are comparable.
    pub fn is_budget(&self) -> bool {
        self.reason == StopReason::Budget
    }
}

/// Why the interpreter stopped a run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// An error of the program: undefined behaviour the interpreter detects (a dangling
    /// or out-of-bounds access, division by zero, a stack overflow), or IR it cannot run.
    UndefinedBehaviour,
    /// The step or memory budget.
    Budget,
    /// A call of an external function the interpreter does not model, in a program
    /// whose external functions must really run ([`UnmodelledCalls`]): any result would
    /// be made up.
    Unmodelled,
}

impl std::fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (in @{})", self.message, self.function)
    }
}

/// The result of a run.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// What reached stdout: what the program wrote, less what `abort` (or
    /// `std::terminate`, `_Exit`) left in the stdout buffer (see *Standard output*).
    pub stdout: Vec<u8>,
    /// What the program wrote to stdout that was still buffered when it aborted.
    pub stdout_lost: Vec<u8>,
    /// What the program and the modelled runtime wrote to stderr (terminate messages,
    /// the harness's report); interpreter errors are in `runtime_error` instead.
    pub stderr: Vec<u8>,
    /// The exit status, 0 to 255 (see *Exit statuses*).
    pub exit_status: i32,
    /// Every event of the run, in order (empty without [`RunConfig::record_trace`]);
    /// [`observable`] keeps the ones compared across phases.
    pub trace: Vec<Event>,
    /// Ops executed.
    pub steps: u64,
    /// Peak memory use in bytes (allocations and frames).
    pub peak_memory: u64,
    /// The error that stopped the run, if the interpreter stopped it.
    pub runtime_error: Option<RuntimeError>,
    /// Whether an exception met a dynamic exception specification (`filter`) in this run
    /// (a search or unwinding checked it). Such a run depends on the specification being
    /// enforced — a violated one calls `std::unexpected`, and even one that allows the
    /// exception makes g++ treat a `noexcept` boundary beyond it as after a catch — which
    /// the Microsoft C++ ABI does not do.
    pub met_specification: bool,
    /// Whether a handler caught an exception under libstdc++'s rules that the Microsoft
    /// runtime's rules would not let it catch (`throw nullptr` caught by `T *`: the
    /// Microsoft throw info of `std::nullptr_t` lists only `void *`).
    pub abi_dependent_catch: bool,
}

/// The function a run starts with.
pub fn select_entry(module: &Module, entry: Option<&str>) -> Result<FuncId, InterpError> {
    let ctx = &module.ctx;
    if let Some(name) = entry {
        let name = name.strip_prefix('@').unwrap_or(name);
        let fid = module
            .function_named(name)
            .ok_or_else(|| InterpError::NoSuchEntry(name.to_string()))?;
        if module.functions[fid].is_declaration() {
            return Err(InterpError::EntryNotDefined(name.to_string()));
        }
        return Ok(fid);
    }
    if let Some(fid) = module.function_named("main")
        && !module.functions[fid].is_declaration()
    {
        return Ok(fid);
    }
    let defined: Vec<FuncId> = module
        .functions
        .iter()
        .filter(|(_, f)| {
            !f.is_declaration() && !externals::provided_even_if_defined(module, f.name)
        })
        .map(|(id, _)| id)
        .collect();
    match defined.as_slice() {
        [] => Err(InterpError::NoFunctions),
        [one] => Ok(*one),
        many => Err(InterpError::AmbiguousEntry(
            many.iter()
                .map(|&f| format!("@{}", ctx.name(module.functions[f].name)))
                .collect::<Vec<_>>()
                .join(", "),
        )),
    }
}

/// Runs a module from its entry function. The module is verified first: one that does
/// not verify is [`InterpError::InvalidInput`], never run.
///
/// ```
/// use ehir_interp::{InterpError, RunConfig, run_module};
///
/// let good = "cir.func @main() -> !s32i {\n\
///               %0 = cir.const #cir.int<7> : !s32i\n\
///               cir.return %0 : !s32i\n\
///             }\n";
/// let module = ehir_reader::parse_module("good.cir", good).unwrap();
/// assert_eq!(run_module(&module, &RunConfig::default()).unwrap().exit_status, 7);
///
/// // Falling off the end of an `int` function is not a run that exits 0.
/// let bad = "cir.func @main() -> !s32i {\n  cir.return\n}\n";
/// let module = ehir_reader::parse_module("bad.cir", bad).unwrap();
/// let err = run_module(&module, &RunConfig::default()).unwrap_err();
/// assert!(matches!(err, InterpError::InvalidInput(_)));
/// ```
pub fn run_module(module: &Module, config: &RunConfig) -> Result<RunOutcome, InterpError> {
    ehir_core::verifier::verify_input(module).map_err(InterpError::InvalidInput)?;
    // Upstream's structured catch handlers run in ehir's form (the same semantics).
    let rewritten;
    let module = if module
        .functions
        .values()
        .any(ehir_core::upstream_catch::has_structured_catches)
    {
        let mut copy = module.clone();
        copy.rewrite_structured_catches().map_err(|d| {
            let messages: Vec<String> = d.0.into_iter().map(|d| d.message).collect();
            InterpError::Setup(messages.join("; "))
        })?;
        rewritten = copy;
        &rewritten
    } else {
        module
    };
    let ctx = &module.ctx;
    let fid = select_entry(module, config.entry.as_deref())?;
    shapes::check(module).map_err(InterpError::Setup)?;
    let func = &module.functions[fid];
    let entry_name = ctx.name(func.name).to_string();
    let is_main = entry_name == "main";
    let layouts = Layouts::new(ctx);
    let hierarchy = Hierarchy::new(ctx.typeinfos.iter().map(|t| {
        (
            ctx.name(t.symbol),
            t.bases
                .iter()
                .map(|b| cxx_types::BaseEdge {
                    class: ctx.name(b.symbol).to_string(),
                    offset: b.offset,
                    public: b.public,
                    is_virtual: b.is_virtual,
                    vbptr_offset: b.vbptr_offset,
                })
                .collect(),
        )
    }));
    let mut throw_specs = Vec::new();
    for spec in &config.throw_at {
        if let Some(r) =
            externals::resolve_throw(module, &layouts, spec).map_err(InterpError::BadSpec)?
        {
            throw_specs.push(r);
        }
    }
    let mut return_scripts = HashMap::new();
    for spec in &config.returns {
        if let Some(sym) = ctx.symbols.lookup(&spec.callee) {
            return_scripts.insert(sym, (spec.values.clone(), 0usize));
        }
    }
    let Some(entry_block) = func.entry_block() else {
        return Err(InterpError::EntryNotDefined(entry_name));
    };
    let Some(first) = func.layout.first_op(entry_block) else {
        return Err(InterpError::Setup(format!(
            "the entry block of @{entry_name} is empty"
        )));
    };
    let placeholder = Frame::new(func, fid, first, Vec::new());
    let mut m = Machine {
        module,
        config,
        layouts,
        hierarchy,
        mem: Memory::new(config.memory_limit),
        rt: Default::default(),
        cur: placeholder,
        stack: Vec::new(),
        depth: 0,
        nested: 0,
        frame_bytes: 0,
        trace: Vec::new(),
        stdout: stdio::Stdout::new(config.stdout_buffering),
        stderr: Vec::new(),
        steps: 0,
        globals: HashMap::new(),
        fn_ptrs: HashMap::new(),
        library: HashMap::new(),
        aggregates: Vec::new(),
        call_counts: HashMap::new(),
        throw_specs,
        return_scripts,
        labels: HashMap::new(),
        typeids: HashMap::new(),
        filters: Vec::new(),
        heap_count: 0,
        string_count: 0,
        msvc_iob: None,
        entry_name,
        scratch: Vec::new(),
        step_limit: config.step_limit,
        trace_overflow: false,
        trace_bytes: 0,
        met_specification: std::cell::Cell::new(false),
        built_catch_objects: Vec::new(),
        abi_dependent_catch: std::cell::Cell::new(false),
        at_exit: Vec::new(),
        exit_called: false,
    };
    let result = start(&mut m, fid, !is_main);
    // A program that ends normally (`main` returns, or `exit`) runs its exit functions.
    let result = match result {
        Ok(SyncEnd::Returned(v)) if is_main => m.run_at_exit().map(|()| SyncEnd::Returned(v)),
        Err(Stop::Exit(code)) if m.exit_called => {
            m.exit_called = false;
            m.run_at_exit().and(Err(Stop::Exit(code)))
        }
        other => other,
    };
    // A trace that exhausted the memory budget ends the run as an error even when the
    // program finished before its next step.
    let result = match result {
        Ok(_) if m.trace_overflow => Err(m.limit_error()),
        other => other,
    };
    let (exit_status, runtime_error) = match result {
        Ok(SyncEnd::Returned(v)) => {
            let status = if is_main {
                v.map(|v| (v as i32) & 0xff).unwrap_or(0)
            } else {
                0
            };
            (status, None)
        }
        Ok(SyncEnd::Threw(_)) => (1, None),
        Err(Stop::Exit(code)) => (code, None),
        Err(Stop::Error(e)) => (e.exit_status, Some(*e)),
        Err(Stop::Sync(_)) => (EXIT_RUNTIME_ERROR, None),
    };
    if config.record_trace {
        // The closing events are always kept, even past the budget.
        if let Some(e) = &runtime_error {
            m.trace.push(Event::Error {
                message: e.message.clone(),
            });
        }
        m.trace.push(Event::Exit {
            status: exit_status,
        });
    }
    // Every end but `abort` (which already discarded the buffer) flushes stdout: `exit`,
    // a return from the entry, and the interpreter stopping the program (so that its
    // output up to the error is shown).
    m.stdout.flush();
    Ok(RunOutcome {
        stdout: m.stdout.written,
        stdout_lost: m.stdout.lost,
        stderr: m.stderr,
        exit_status,
        trace: m.trace,
        steps: m.steps,
        peak_memory: m.mem.peak,
        met_specification: m.met_specification.get(),
        abi_dependent_catch: m.abi_dependent_catch.get(),
        runtime_error,
    })
}

/// The name `argv[0]` gives the program.
pub const PROGRAM_NAME: &str = "ehir-program";

/// `argv` of `main`: `{ "ehir-program", NULL }` in fresh read-only storage.
fn main_argv(m: &mut Machine<'_>) -> Result<u64, Stop> {
    let name = m.harness_string(PROGRAM_NAME.as_bytes())?;
    let argv = m
        .mem
        .allocate(16, AllocKind::Param(1), m.frame_bytes)
        .map_err(|e| m.mem_error(e))?;
    m.mem
        .write_uint(argv, 8, name)
        .map_err(|e| m.mem_error(e))?;
    Ok(argv)
}

/// Sets up globals and the entry's arguments and runs until the entry returns.
fn start(m: &mut Machine<'_>, fid: FuncId, catches: bool) -> Result<SyncEnd, Stop> {
    m.init_globals()?;
    m.run_global_ctors()?;
    let module = m.module;
    let func = &module.functions[fid];
    let mut args = Vec::new();
    let params: Vec<ehir_core::Type> = func.param_types();
    // `int main(int argc, char **argv)` starts as a C runtime starts it: one argument,
    // the program's name (`argv[0]`), then a null pointer.
    let is_main = module.ctx.name(func.name) == "main";
    if is_main
        && params.len() >= 2
        && matches!(m.layouts.get(params[0]).scalar, Scalar::Int { .. })
        && matches!(m.layouts.get(params[1]).scalar, Scalar::Ptr)
    {
        let argv = main_argv(m)?;
        args.push(1);
        args.push(argv);
    }
    for (i, &t) in params.iter().enumerate().skip(args.len()) {
        let v = match m.layouts.get(t).scalar {
            Scalar::Ptr => {
                let pointee = module.ctx.types.pointee(t);
                let size = match pointee.map(|p| module.ctx.types.get(p)) {
                    Some(TypeData::Void) | None => 8,
                    Some(_) => pointee.map(|p| m.layouts.size(p)).unwrap_or(8),
                };
                m.mem
                    .allocate(size, AllocKind::Param(i as u32), m.frame_bytes)
                    .map_err(|e| m.mem_error(e))?
            }
            Scalar::Aggregate => {
                let size = m.layouts.size(t);
                m.new_zeroed_aggregate(size)?
            }
            _ => 0,
        };
        args.push(v);
    }
    let frame = m.new_frame(fid, &args)?;
    m.cur = frame;
    m.trace_enter(fid, &args);
    m.stack.push(Slot::Boundary(Boundary::Entry { catches }));
    m.run_loop()
}
