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

/// Runs `f` on every function definition of `module` that is in `phase`, in module order,
/// and collects the errors.
pub(crate) fn for_each_definition_in(
    module: &mut Module,
    phase: Phase,
    mut f: impl FnMut(&mut ModuleCtx, &mut Function) -> Result<(), Diagnostic>,
) -> Result<(), Diagnostics> {
    let mut diags = Diagnostics::default();
    let ids: Vec<_> = module.functions.keys().collect();
    for id in ids {
        let func = &mut module.functions[id];
        if func.is_declaration() || func.phase != phase {
            continue;
        }
        if let Err(d) = f(&mut module.ctx, func) {
            diags.push(d);
        }
    }
    if diags.is_empty() { Ok(()) } else { Err(diags) }
}
