//! Running a pass over the functions of a module on the rayon thread pool, with exactly
//! the result of running it on one thread.
//!
//! A pass rewrites one function at a time but interns into the shared [`ModuleCtx`]
//! (types, attributes, symbols): `&mut ModuleCtx` cannot be shared, and ids handed out in
//! the order threads happen to ask would make the module depend on timing. So each worker
//! runs the pass against its own copy of the context. Almost always everything the pass
//! interns already exists (the same few types and constants in every function), the copy
//! does not grow, and the ids it returned are the shared context's ids. A function whose
//! run grew the copy is put back as it was (the worker keeps a copy of the function while
//! it runs) and run again afterwards on the shared context, in module order, together with
//! the other such functions: the interned ids are then exactly those of a single-threaded
//! run, because functions that did not intern anything new do not change the context.
//! The first functions run one after the other until one interns nothing new (they
//! usually intern what all the others need), and a worker that had to copy the context
//! too often stops, leaving its functions to the others: a pass that interns something
//! new in every function degrades to a single-threaded run, not to a copy per function.
//! Diagnostics are collected per function and returned in module order.

use ehir_core::{Diagnostic, Diagnostics, Function, ModuleCtx};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A function pass body: rewrites one function, interning into the context.
pub(crate) type FunctionPass<'f> =
    dyn Fn(&mut ModuleCtx, &mut Function) -> Result<(), Diagnostic> + Sync + 'f;

/// The sizes of a context's tables; interning something new grows one of them.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct CtxSize {
    symbols: usize,
    types: usize,
    attrs: usize,
    records: usize,
    typeinfos: usize,
}

impl CtxSize {
    /// The sizes of `ctx`'s tables.
    pub(crate) fn of(ctx: &ModuleCtx) -> CtxSize {
        CtxSize {
            symbols: ctx.symbols.len(),
            types: ctx.types.len(),
            attrs: ctx.attrs.len(),
            records: ctx.records.len(),
            typeinfos: ctx.typeinfos.len(),
        }
    }
}

/// At most this many functions run one after the other before the parallel round.
const MAX_WARM_UP: usize = 16;

/// A worker that had to copy the context again this many times stops taking functions.
const MAX_CONTEXT_COPIES: usize = 4;

/// What became of one function in the parallel round.
enum Outcome {
    /// Not run yet.
    Pending,
    /// Run against a copy of the context that did not grow: final.
    Done(Result<(), Diagnostic>),
    /// Interned something new: put back as it was, to run again on the shared context.
    Rerun,
}

/// Runs `pass` on every function of `funcs` (module order) and returns the errors in that
/// order. On a pool of one thread, or for fewer than two functions, runs them one after
/// the other on `ctx`. Otherwise: functions one after the other until one interns nothing
/// new, then the rest in parallel, then those that interned something (or that no worker
/// took) one after the other.
pub(crate) fn run_on_functions(
    ctx: &mut ModuleCtx,
    funcs: Vec<&mut Function>,
    release_spare_room: fn(&mut Function),
    pass: &FunctionPass<'_>,
) -> Result<(), Diagnostics> {
    let threads = rayon::current_num_threads();
    let mut diags = Diagnostics::default();
    if threads <= 1 || funcs.len() < 2 {
        for func in funcs {
            match pass(ctx, func) {
                Ok(()) => release_spare_room(func),
                Err(d) => diags.push(d),
            }
        }
        return if diags.is_empty() { Ok(()) } else { Err(diags) };
    }
    // A sequential start: the first functions usually intern what all the others need
    // (runtime symbols, their signatures); run them on the shared context until one
    // interns nothing new.
    let mut funcs = funcs.into_iter();
    let mut warm_up = 0;
    let mut funcs = loop {
        let Some(func) = funcs.next() else {
            return if diags.is_empty() { Ok(()) } else { Err(diags) };
        };
        let before = CtxSize::of(ctx);
        match pass(ctx, func) {
            Ok(()) => release_spare_room(func),
            Err(d) => diags.push(d),
        }
        warm_up += 1;
        if CtxSize::of(ctx) == before || warm_up >= MAX_WARM_UP {
            break funcs;
        }
    };
    let funcs: Vec<&mut Function> = funcs.by_ref().collect();
    let base: &ModuleCtx = ctx;
    let base_size = CtxSize::of(base);
    let slots: Vec<Mutex<(&mut Function, Outcome)>> = funcs
        .into_iter()
        .map(|f| Mutex::new((f, Outcome::Pending)))
        .collect();
    let next = AtomicUsize::new(0);
    rayon::scope(|scope| {
        for _ in 0..threads.min(slots.len()) {
            scope.spawn(|_| {
                let mut local = base.clone();
                let mut copies = 0;
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(slot) = slots.get(i) else {
                        break;
                    };
                    let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
                    let (func, outcome) = &mut *slot;
                    let original = (*func).clone();
                    let result = pass(&mut local, func);
                    if CtxSize::of(&local) == base_size {
                        if result.is_ok() {
                            release_spare_room(func);
                        }
                        *outcome = Outcome::Done(result);
                    } else {
                        **func = original;
                        *outcome = Outcome::Rerun;
                        // The rest of this worker's share is left to the others, or to
                        // the sequential round, once it has copied the context too often.
                        copies += 1;
                        if copies > MAX_CONTEXT_COPIES {
                            break;
                        }
                        local = base.clone();
                    }
                }
            });
        }
    });
    for slot in slots {
        let (func, outcome) = slot.into_inner().unwrap_or_else(|e| e.into_inner());
        let result = match outcome {
            Outcome::Done(result) => result,
            Outcome::Rerun | Outcome::Pending => {
                let result = pass(ctx, func);
                if result.is_ok() {
                    release_spare_room(func);
                }
                result
            }
        };
        if let Err(d) = result {
            diags.push(d);
        }
    }
    if diags.is_empty() { Ok(()) } else { Err(diags) }
}
