//! The EH ABI lowering passes, `eh-abi-lowering=itanium` and `eh-abi-lowering=msvc`: they
//! take flat functions to the Itanium or Microsoft EH model, one function at a time
//! ([`itanium::lower_function`], [`msvc::lower_function`]).

pub mod itanium;
pub mod msvc;

use crate::manager::Pass;
use ehir_core::{Diagnostics, Module, Phase};

/// Which EH ABI to lower to.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Abi {
    Itanium,
    Msvc,
}

impl Abi {
    pub fn phase(self) -> Phase {
        match self {
            Abi::Itanium => Phase::Itanium,
            Abi::Msvc => Phase::Msvc,
        }
    }
}

/// `eh-abi-lowering=itanium|msvc`: lowers every flat function definition.
pub struct EhAbiLowering {
    pub abi: Abi,
}

impl Pass for EhAbiLowering {
    fn name(&self) -> &'static str {
        match self.abi {
            Abi::Itanium => "eh-abi-lowering=itanium",
            Abi::Msvc => "eh-abi-lowering=msvc",
        }
    }

    fn result_phase(&self) -> Option<Phase> {
        Some(self.abi.phase())
    }

    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        let mut diags = Diagnostics::default();
        let ids: Vec<_> = module.functions.keys().collect();
        for id in ids {
            let func = &mut module.functions[id];
            if func.is_declaration() || func.phase != Phase::Flat {
                continue;
            }
            let result = match self.abi {
                Abi::Itanium => itanium::lower_function(&mut module.ctx, func),
                Abi::Msvc => msvc::lower_function(&mut module.ctx, func),
            };
            match result {
                Ok(()) => func.phase = self.abi.phase(),
                Err(d) => diags.push(d),
            }
        }
        if !diags.is_empty() {
            return Err(diags);
        }
        // The lowering calls runtime functions (`__cxa_begin_catch`, ...) that a single
        // function cannot declare; declare them module-wide.
        if self.abi == Abi::Itanium {
            itanium::declare_runtime_functions(module);
        }
        Ok(())
    }
}
