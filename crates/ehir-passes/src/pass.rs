//! The [`Pass`] trait every pass implements, the [`FunctionStep`] that a pass working on
//! one function at a time is made of, and the helper that runs such a step over a module:
//! a module of its own so that the passes and the manager that names them import it
//! without a cycle.

use ehir_core::{Diagnostic, Diagnostics, Function, Module, ModuleCtx, Phase};

/// A module pass.
pub trait Pass {
    /// The name used in pipelines (`flatten-cfg`).
    fn name(&self) -> &'static str;
    /// The phase every function definition is in after the pass, if the pass changes
    /// phases. The manager checks it.
    fn result_phase(&self) -> Option<Phase> {
        None
    }
    /// Runs the pass. On error the module may be partly rewritten and should be dropped.
    ///
    /// A pass with a [`function_step`](Pass::function_step) runs it on every function
    /// ([`run_step`]); the others say here what they do.
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        match self.function_step(module) {
            Some(step) => run_step(module, &step),
            None => Ok(()),
        }
    }
    /// The pass as what it does to one function, given the module before the pipeline
    /// runs (what it reads there, e.g. which callees are `nothrow`, no pass changes); `None`
    /// for a pass that needs the whole module at once. A pass with a step can run function
    /// by function ([`crate::PassManager::run_function_by_function`]).
    fn function_step(&self, _module: &Module) -> Option<FunctionStep<'_>> {
        None
    }
}

/// The body of a [`FunctionStep`]: rewrites one function, interning into the context.
pub type StepBody<'p> =
    dyn Fn(&mut ModuleCtx, &mut Function) -> Result<(), Diagnostic> + Sync + Send + 'p;

/// What a pass does to one function.
pub struct FunctionStep<'p> {
    /// The functions it runs on: definitions in this phase (`None`: every function,
    /// declarations included).
    pub phase: Option<Phase>,
    /// The rewrite of one function.
    pub body: Box<StepBody<'p>>,
    /// Whether the lowered functions call C++ runtime functions that the module must
    /// declare (the Itanium lowering): after the step, every call to a function the module
    /// does not declare gets a declaration ([`crate::eh_abi::itanium::declare_runtime_functions`]).
    pub declares_callees: bool,
    /// Whether [`run_step`] compacts each function right after rewriting it
    /// ([`Function::compact`]; otherwise it only gives back the tables' growth slack): a
    /// module whose functions all went through a pass would otherwise hold both forms of
    /// each at once.
    pub compacts: bool,
}

impl<'p> FunctionStep<'p> {
    /// A step that runs `body` on the function definitions in `phase`.
    pub fn on_definitions_in(
        phase: Phase,
        body: impl Fn(&mut ModuleCtx, &mut Function) -> Result<(), Diagnostic> + Sync + Send + 'p,
    ) -> Self {
        FunctionStep {
            phase: Some(phase),
            body: Box::new(body),
            declares_callees: false,
            compacts: true,
        }
    }

    /// Whether the step runs on `func`.
    pub fn applies_to(&self, func: &Function) -> bool {
        match self.phase {
            Some(phase) => !func.is_declaration() && func.phase == phase,
            None => true,
        }
    }
}

/// Runs a step on every function of `module` it applies to (in parallel on the current
/// rayon pool, with the result of a single-threaded run, [`crate::parallel`]), compacting
/// each one it rewrote, and collects the errors in module order; then declares the
/// callees the step asks for.
pub fn run_step(module: &mut Module, step: &FunctionStep<'_>) -> Result<(), Diagnostics> {
    let funcs: Vec<&mut Function> = module
        .functions
        .values_mut()
        .filter(|func| step.applies_to(func))
        .collect();
    let release_spare_room = if step.compacts {
        Function::compact
    } else {
        Function::shrink_to_fit
    };
    crate::parallel::run_on_functions(&mut module.ctx, funcs, release_spare_room, &*step.body)?;
    if step.declares_callees {
        crate::eh_abi::itanium::declare_runtime_functions(module)?;
    }
    Ok(())
}

/// Runs `f` on every function definition of `module` that is in `phase` and collects the
/// errors in module order. Functions run in parallel on the current rayon pool, with the
/// result of a single-threaded run ([`crate::parallel`]).
pub(crate) fn for_each_definition_in(
    module: &mut Module,
    phase: Phase,
    f: impl Fn(&mut ModuleCtx, &mut Function) -> Result<(), Diagnostic> + Sync + Send,
) -> Result<(), Diagnostics> {
    run_step(module, &FunctionStep::on_definitions_in(phase, f))
}
