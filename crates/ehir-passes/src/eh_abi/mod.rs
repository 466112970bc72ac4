//! The EH ABI lowering passes, `eh-abi-lowering=itanium` and `eh-abi-lowering=msvc`: they
//! take flat functions to the Itanium or Microsoft EH model, one function at a time
//! ([`itanium::lower_function`], [`msvc::lower_function`]).

pub mod itanium;
pub mod msvc;

use crate::pass::{FunctionStep, Pass};
use ehir_core::abi::EhAbi;
use ehir_core::{Diagnostic, Function, Module, ModuleCtx, Phase};

/// The name of the pass that lowers to `abi` (`eh-abi-lowering=itanium`).
pub fn pass_name(abi: EhAbi) -> &'static str {
    match abi {
        EhAbi::Itanium => "eh-abi-lowering=itanium",
        EhAbi::Msvc => "eh-abi-lowering=msvc",
    }
}

/// The checks both lowerings start with: `Ok(false)` when there is nothing to lower (a
/// declaration, or a function already in the ABI's phase; either is put in that phase),
/// an error when `func` is not flat.
fn needs_lowering(ctx: &ModuleCtx, func: &mut Function, abi: EhAbi) -> Result<bool, Diagnostic> {
    if func.body.is_none() || func.phase == abi.phase() {
        func.phase = abi.phase();
        return Ok(false);
    }
    let pass = pass_name(abi);
    if func.phase != Phase::Flat {
        return Err(Diagnostic::error(
            func.loc,
            format!(
                "{pass} needs a flat function, but @{} is in the {} phase (run flatten-cfg first)",
                ctx.name(func.name),
                func.phase.name()
            ),
        ));
    }
    if func.has_nested_regions() {
        return Err(Diagnostic::error(
            func.loc,
            format!(
                "@{} still has nested regions; {pass} needs flat CIR",
                ctx.name(func.name)
            ),
        ));
    }
    Ok(true)
}

/// `eh-abi-lowering=itanium|msvc`: lowers every flat function definition.
pub struct EhAbiLowering {
    /// The ABI to lower to.
    pub abi: EhAbi,
}

impl Pass for EhAbiLowering {
    fn name(&self) -> &'static str {
        pass_name(self.abi)
    }

    fn result_phase(&self) -> Option<Phase> {
        Some(self.abi.phase())
    }

    fn function_step(&self, _: &Module) -> Option<FunctionStep<'_>> {
        let abi = self.abi;
        let mut step = FunctionStep::on_definitions_in(Phase::Flat, move |ctx, func| {
            match abi {
                EhAbi::Itanium => itanium::lower_function(ctx, func)?,
                EhAbi::Msvc => msvc::lower_function(ctx, func)?,
            }
            func.phase = abi.phase();
            Ok(())
        });
        // The lowering calls runtime functions (`__cxa_begin_catch`, ...) that a single
        // function cannot declare; they are declared module-wide.
        step.declares_callees = abi == EhAbi::Itanium;
        Some(step)
    }
}
