//! Running a pipeline one function at a time ([`PassManager::run_function_by_function`]):
//! every pass, with the verifier after it, on the first function, then on the second, and
//! so on, each function handed to the caller as soon as it is through. A module is then
//! never held in two forms at once (a function's original is dropped once it has been
//! handed on), and a function stays in the cache from its first pass to its printing.
//!
//! The result is that of [`PassManager::run`], which runs each pass over the whole module
//! before the next, whenever that run succeeds:
//! - every pass has a [`FunctionStep`] that rewrites one function and reads of the module
//!   only what no pass changes (which callees are `nothrow`);
//! - functions go through in module order, so what they intern gets the ids of a
//!   whole-module run, and the runtime functions the Itanium lowering calls are declared
//!   in the same order with the same first call's signature;
//! - a function is verified after each step that ran on it, against the module's
//!   declarations (the verifier reads only their signatures); a function a step did not
//!   run on is unchanged since the input was verified, and so are the module's globals.
//!
//! When anything goes wrong (a pass fails, its output does not verify, a function misses
//! the phase a pass promises, a call disagrees with a runtime function's declaration), it
//! stops without diagnostics: the whole-module run on the module as it was loaded reports
//! the errors, in its order. The caller must then discard what it was handed.
//!
//! On a rayon pool of more than one thread, functions run in parallel in batches, each
//! worker with its own copy of the context as in [`crate::parallel`]: a function that
//! interned something new or calls a runtime function not yet declared runs again
//! afterwards on the module in order, so the result is the same as on one thread.

use crate::manager::{CHANGES_ONLY_BY_ADDING_OPS, PassManager, phase_reached};
use crate::parallel::CtxSize;
use crate::pass::FunctionStep;
use ehir_core::printer::ItemPrinter;
use ehir_core::verifier::verify_function_of;
use ehir_core::{FuncId, Function, Item, Module, ModuleCtx, Phase};
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Why [`PassManager::run_function_by_function`] did not finish.
#[derive(Debug)]
pub enum FunctionByFunctionError<E> {
    /// The pipeline cannot run function by function, or it met an error: run
    /// [`PassManager::run`] on the module as it was loaded, which reports it. Functions
    /// already handed on must be discarded, and the module given is no longer usable.
    WholeModuleRunNeeded,
    /// The consumer of the functions failed.
    Consumer(E),
}

/// The pipeline as steps, with what the manager checks after each.
struct PreparedStep<'p> {
    step: FunctionStep<'p>,
    /// The phase the pass promises.
    result_phase: Option<Phase>,
    /// Verify only if the op count or phase changed (a pass that only adds ops).
    only_if_changed: bool,
}

/// A function could not go through: the whole-module run must report why.
struct Stop;

/// What a function needs that a worker cannot do on its copy of the context.
enum Outcome<T> {
    /// Through, handed on.
    Done(T),
    /// Interned something new, or calls a runtime function not yet declared: run again
    /// on the module.
    Rerun,
    /// Failed: the whole-module run reports it.
    Stop,
}

/// At most this many functions run one after the other before the parallel batches.
const MAX_WARM_UP: usize = 16;

/// After this many parallel rounds in a row that got no function through, the rest of
/// a batch runs one function after the other.
const MAX_FRUITLESS_ROUNDS: usize = 3;

/// Ops per thread in a parallel batch: enough to balance the threads, few enough that the
/// outputs waiting to be handed on stay small next to the module.
const BATCH_OPS_PER_THREAD: usize = 8192;

/// At most this many functions per thread in a parallel batch.
const BATCH_FUNCTIONS_PER_THREAD: usize = 128;

impl PassManager {
    /// Whether every pass of the pipeline can run one function at a time (and nothing
    /// needs the module between passes, such as printing after each pass).
    pub fn runs_function_by_function(&self) -> bool {
        self.print_after_each.is_none()
    }

    /// Runs the pipeline one function at a time on a module whose input was verified:
    /// each function (definitions and declarations, in module order) goes through every
    /// pass and the verification after it, then `produce` makes what the caller wants of
    /// it (on a worker thread, with a context that has everything the function refers
    /// to), and `consume` gets that, in module order (`FuncId` order), on the calling
    /// thread; the function itself is then dropped. The runtime functions the Itanium
    /// lowering declares come last, after the module's own functions.
    ///
    /// Afterwards every function of `module` is a declaration (its signature and
    /// attributes kept) and its items are those of a whole-module run. On
    /// [`FunctionByFunctionError::WholeModuleRunNeeded`] nothing is reported: see the
    /// [module documentation](crate::function_by_function).
    pub fn run_function_by_function<T: Send, E>(
        &self,
        module: &mut Module,
        produce: &(dyn Fn(&ModuleCtx, &Function) -> T + Sync),
        consume: &mut dyn FnMut(&Module, FuncId, T) -> Result<(), E>,
    ) -> Result<(), FunctionByFunctionError<E>> {
        use FunctionByFunctionError::WholeModuleRunNeeded;
        if !self.runs_function_by_function() {
            return Err(WholeModuleRunNeeded);
        }
        if !self.passes.is_empty() && self.prepare_catches(module).is_err() {
            return Err(WholeModuleRunNeeded);
        }
        let mut steps = Vec::with_capacity(self.passes.len());
        for pass in &self.passes {
            let Some(step) = pass.function_step(module) else {
                return Err(WholeModuleRunNeeded);
            };
            steps.push(PreparedStep {
                step,
                result_phase: pass.result_phase(),
                only_if_changed: CHANGES_ONLY_BY_ADDING_OPS.contains(&pass.name()),
            });
        }
        let run = Run {
            steps: &steps,
            verify: self.verify_each,
            stand_in: Mutex::new(None),
        };
        let originals = module.functions.len();
        let threads = rayon::current_num_threads();
        let mut next = 0;
        // One after the other: on one thread, and at the start until a function interns
        // nothing new (the first functions intern what the others need).
        let mut warm_up = 0;
        while next < originals && (threads <= 1 || warm_up < MAX_WARM_UP) {
            let id = FuncId::from_u32(next as u32);
            let before = (CtxSize::of(&module.ctx), module.functions.len());
            let func = take_function(module, id);
            let output = run
                .on_module(module, func, produce)
                .map_err(|_| WholeModuleRunNeeded)?;
            consume(module, id, output).map_err(FunctionByFunctionError::Consumer)?;
            next += 1;
            warm_up += 1;
            if (CtxSize::of(&module.ctx), module.functions.len()) == before {
                warm_up = MAX_WARM_UP;
            }
        }
        let mut locals: Vec<Mutex<Option<ModuleCtx>>> = Vec::new();
        locals.resize_with(threads, || Mutex::new(None));
        while next < originals {
            // A batch of functions, taken out of the module (their declarations stay).
            let mut batch: Vec<(FuncId, Function)> = Vec::new();
            let mut ops = 0;
            while next < originals
                && ops < BATCH_OPS_PER_THREAD * threads
                && batch.len() < BATCH_FUNCTIONS_PER_THREAD * threads
            {
                let id = FuncId::from_u32(next as u32);
                let func = take_function(module, id);
                ops += func.dfg.ops.len();
                batch.push((id, func));
                next += 1;
            }
            // Rounds: the functions not through yet run in parallel; the first one that
            // must run on the module does (growing its context or declarations), and the
            // ones after it that did not get through run again in the next round, against
            // the grown context, as on one thread. After a few rounds that got nothing
            // through in parallel, the rest of the batch runs on the module.
            let mut outputs: Vec<Option<T>> = batch.iter().map(|_| None).collect();
            let mut waiting: Vec<usize> = (0..batch.len()).collect();
            let mut consumed = 0;
            let mut fruitless = 0;
            while !waiting.is_empty() {
                let outcomes = run.batch_in_parallel(module, &batch, &waiting, &locals, produce);
                let mut still_waiting = Vec::new();
                let mut through = 0;
                for (&i, outcome) in waiting.iter().zip(outcomes) {
                    match outcome {
                        Outcome::Stop => return Err(WholeModuleRunNeeded),
                        Outcome::Done(output) => {
                            outputs[i] = Some(output);
                            through += 1;
                        }
                        Outcome::Rerun => still_waiting.push(i),
                    }
                }
                // The first function left runs on the module now.
                if let Some((&first, rest)) = still_waiting.split_first() {
                    let func = batch[first].1.clone();
                    outputs[first] = Some(
                        run.on_module(module, func, produce)
                            .map_err(|_| WholeModuleRunNeeded)?,
                    );
                    waiting = rest.to_vec();
                    fruitless = if through == 0 { fruitless + 1 } else { 0 };
                    if fruitless >= MAX_FRUITLESS_ROUNDS {
                        for &i in &waiting {
                            let func = batch[i].1.clone();
                            outputs[i] = Some(
                                run.on_module(module, func, produce)
                                    .map_err(|_| WholeModuleRunNeeded)?,
                            );
                        }
                        waiting.clear();
                    }
                } else {
                    waiting.clear();
                }
                // Hand on, in order, what is through.
                while let Some(output) = outputs.get_mut(consumed).and_then(Option::take) {
                    consume(module, batch[consumed].0, output)
                        .map_err(FunctionByFunctionError::Consumer)?;
                    consumed += 1;
                }
            }
        }
        // The runtime functions declared on the way.
        for index in originals..module.functions.len() {
            let id = FuncId::from_u32(index as u32);
            let output = produce(&module.ctx, &module.functions[id]);
            consume(module, id, output).map_err(FunctionByFunctionError::Consumer)?;
        }
        Ok(())
    }
}

/// Takes function `id` out of `module`, leaving its declaration (what other functions'
/// verification reads: name, signature, location, attributes).
fn take_function(module: &mut Module, id: FuncId) -> Function {
    let func = &module.functions[id];
    let mut declaration = Function::new_declaration(func.name, func.sig);
    declaration.linkage = func.linkage;
    declaration.personality = func.personality;
    declaration.phase = func.phase;
    declaration.nothrow = func.nothrow;
    declaration.dso_local = func.dso_local;
    declaration.hidden = func.hidden;
    declaration.attributes = func.attributes.clone();
    declaration.loc = func.loc;
    std::mem::replace(&mut module.functions[id], declaration)
}

/// A lock that a panicking holder did not spoil (the data is replaced, never half-edited).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The steps of a pipeline and whether to verify after them.
struct Run<'r, 'p> {
    steps: &'r [PreparedStep<'p>],
    verify: bool,
    /// What stands in the module while its context is taken out for a function's steps
    /// (kept from function to function: a new context interns the common types).
    stand_in: Mutex<Option<ModuleCtx>>,
}

/// Where the runtime functions a lowered function calls get declared.
enum Declarations<'m> {
    /// Added to the module as they are found.
    Add(&'m mut Module),
    /// Not here (a worker): the function runs again on the module.
    Refuse(&'m Module),
}

impl Declarations<'_> {
    fn module(&self) -> &Module {
        match self {
            Declarations::Add(module) => module,
            Declarations::Refuse(module) => module,
        }
    }
}

impl Run<'_, '_> {
    /// Runs every step on `func` against `ctx`, checking and verifying after each one
    /// that ran on it. `Ok(false)`: the function calls runtime functions that
    /// `declarations` refused to declare, and must run again where they can be.
    fn steps_on(
        &self,
        ctx: &mut ModuleCtx,
        declarations: &mut Declarations<'_>,
        func: &mut Function,
    ) -> Result<bool, Stop> {
        for prepared in self.steps {
            let step = &prepared.step;
            let applies = step.applies_to(func);
            let before = (func.dfg.ops.len(), func.phase);
            if applies {
                (step.body)(ctx, func).map_err(|_| Stop)?;
                func.shrink_to_fit();
            }
            // As the whole-module run, which declares after the step what any function
            // lacks (the personality of one the step did not rewrite, too).
            if step.declares_callees {
                let missing =
                    crate::eh_abi::itanium::undeclared_callees(declarations.module(), ctx, func)
                        .map_err(|_| Stop)?;
                if !missing.is_empty() {
                    let Declarations::Add(module) = declarations else {
                        return Ok(false);
                    };
                    for (callee, sig, loc) in missing {
                        let items = crate::eh_abi::itanium::runtime_items(ctx, callee, sig, loc);
                        for item in items {
                            if module.function_by_name(item.name).is_some() {
                                continue;
                            }
                            if self.verify && !verify_function_of(module, ctx, &item).is_empty() {
                                return Err(Stop);
                            }
                            module.add_function(item);
                        }
                    }
                }
            }
            if applies {
                let changed =
                    !prepared.only_if_changed || before != (func.dfg.ops.len(), func.phase);
                if self.verify
                    && changed
                    && !verify_function_of(declarations.module(), ctx, func).is_empty()
                {
                    return Err(Stop);
                }
            }
            if let Some(target) = prepared.result_phase
                && !func.is_declaration()
                && !phase_reached(func.phase, target)
            {
                return Err(Stop);
            }
        }
        Ok(true)
    }

    /// Runs `func` through the pipeline on the module's own context, declaring the
    /// runtime functions it calls, and makes the caller's output of it.
    fn on_module<T>(
        &self,
        module: &mut Module,
        mut func: Function,
        produce: &(dyn Fn(&ModuleCtx, &Function) -> T + Sync),
    ) -> Result<T, Stop> {
        // The context is taken out for the steps; they read the module's declarations.
        let stand_in = lock(&self.stand_in).take().unwrap_or_default();
        let mut ctx = std::mem::replace(&mut module.ctx, stand_in);
        let result = self.steps_on(&mut ctx, &mut Declarations::Add(module), &mut func);
        *lock(&self.stand_in) = Some(std::mem::replace(&mut module.ctx, ctx));
        result?;
        Ok(produce(&module.ctx, &func))
    }

    /// Runs a batch of functions on the rayon pool, each worker against its copy of the
    /// context (kept in `locals` from batch to batch while the module's does not grow).
    fn batch_in_parallel<T: Send>(
        &self,
        module: &Module,
        batch: &[(FuncId, Function)],
        waiting: &[usize],
        locals: &[Mutex<Option<ModuleCtx>>],
        produce: &(dyn Fn(&ModuleCtx, &Function) -> T + Sync),
    ) -> Vec<Outcome<T>> {
        let base = &module.ctx;
        let base_size = CtxSize::of(base);
        let slots: Vec<Mutex<Option<Outcome<T>>>> =
            waiting.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        // Set when a function must run on the module: the functions after it run again
        // in the next round anyway, so the round stops taking new ones.
        let stopped = AtomicBool::new(false);
        rayon::scope(|scope| {
            for local in locals.iter().take(waiting.len()) {
                let (slots, next, stopped) = (&slots, &next, &stopped);
                scope.spawn(move |_| {
                    let mut local = lock(local);
                    if local
                        .as_ref()
                        .is_none_or(|ctx| CtxSize::of(ctx) != base_size)
                    {
                        *local = Some(base.clone());
                    }
                    let ctx = local.as_mut().expect("set above");
                    while !stopped.load(Ordering::Relaxed) {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((_, original)) = waiting.get(i).map(|&at| &batch[at]) else {
                            break;
                        };
                        let mut func = original.clone();
                        let outcome = match self.steps_on(
                            ctx,
                            &mut Declarations::Refuse(module),
                            &mut func,
                        ) {
                            Err(Stop) => Outcome::Stop,
                            Ok(true) if CtxSize::of(ctx) == base_size => {
                                Outcome::Done(produce(ctx, &func))
                            }
                            Ok(_) => Outcome::Rerun,
                        };
                        if !matches!(outcome, Outcome::Done(_)) {
                            stopped.store(true, Ordering::Relaxed);
                        }
                        *lock(&slots[i]) = Some(outcome);
                    }
                    // A copy that grew is the module's again in the next round.
                    if CtxSize::of(ctx) != base_size {
                        *local = None;
                    }
                });
            }
        });
        slots
            .into_iter()
            .map(|slot| {
                slot.into_inner()
                    .unwrap_or_else(|e| e.into_inner())
                    .unwrap_or(Outcome::Rerun)
            })
            .collect()
    }
}

/// Runs `manager`'s passes on `module` one function at a time and prints each function as
/// soon as it is through, with the module's other items around them in their order: the
/// text that [`ehir_core::printer::print_module`] gives after [`PassManager::run`].
/// On [`FunctionByFunctionError::WholeModuleRunNeeded`], what was written must be
/// discarded.
pub fn print_function_by_function(
    manager: &PassManager,
    module: &mut Module,
    w: &mut dyn Write,
) -> Result<(), FunctionByFunctionError<io::Error>> {
    /// Text is handed to the writer once this much is waiting.
    const FLUSH_AT: usize = 1 << 16;
    let mut printer = ItemPrinter::new(module);
    let mut order = ItemPrinter::order(module);
    let original_items = module.items.len();
    let mut next_item = 0;
    let mut ready: BTreeMap<FuncId, Vec<u8>> = BTreeMap::new();
    let mut text: Vec<u8> = Vec::with_capacity(FLUSH_AT + 4096);
    // Prints the items in order up to the first function not through yet.
    let mut advance = |module: &Module,
                       order: &[Option<Item>],
                       ready: &mut BTreeMap<FuncId, Vec<u8>>,
                       text: &mut Vec<u8>|
     -> io::Result<()> {
        while let Some(&item) = order.get(next_item) {
            match item {
                Some(Item::Function(f)) => match ready.remove(&f) {
                    Some(function_text) => text.extend_from_slice(&function_text),
                    None => break,
                },
                item => printer.item(text, module, item),
            }
            next_item += 1;
            if text.len() >= FLUSH_AT {
                w.write_all(text)?;
                text.clear();
            }
        }
        Ok(())
    };
    let produce = |ctx: &ModuleCtx, func: &Function| {
        let mut out = Vec::new();
        ehir_core::printer::print_function(&mut out, ctx, func)
            .expect("writing to a Vec cannot fail");
        out
    };
    manager.run_function_by_function(module, &produce, &mut |module, id, out| {
        ready.insert(id, out);
        advance(module, &order, &mut ready, &mut text)
    })?;
    // The runtime functions the lowering declared come after the module's own items.
    for &item in &module.items[original_items..] {
        if !matches!(item, Item::Function(_)) {
            return Err(FunctionByFunctionError::WholeModuleRunNeeded);
        }
        order.push(Some(item));
    }
    advance(module, &order, &mut ready, &mut text).map_err(FunctionByFunctionError::Consumer)?;
    if next_item != order.len() || !ready.is_empty() {
        return Err(FunctionByFunctionError::WholeModuleRunNeeded);
    }
    printer.finish(&mut text);
    w.write_all(&text)
        .map_err(FunctionByFunctionError::Consumer)
}
