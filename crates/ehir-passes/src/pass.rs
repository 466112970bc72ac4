//! The [`Pass`] trait every pass implements, and the helper most passes run on: a module
//! of its own so that the passes and the manager that names them import it without a cycle.

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
    fn run(&self, module: &mut Module) -> Result<(), Diagnostics>;
}

/// Runs `f` on every function definition of `module` that is in `phase` and collects the
/// errors in module order. Functions run in parallel on the current rayon pool, with the
/// result of a single-threaded run ([`crate::parallel`]).
pub(crate) fn for_each_definition_in(
    module: &mut Module,
    phase: Phase,
    f: impl Fn(&mut ModuleCtx, &mut Function) -> Result<(), Diagnostic> + Sync,
) -> Result<(), Diagnostics> {
    let funcs: Vec<&mut Function> = module
        .functions
        .values_mut()
        .filter(|func| !func.is_declaration() && func.phase == phase)
        .collect();
    crate::parallel::run_on_functions(&mut module.ctx, funcs, &f)
}
