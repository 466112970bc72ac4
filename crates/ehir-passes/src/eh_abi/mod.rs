//! The EH ABI lowering passes, `eh-abi-lowering=itanium` and `eh-abi-lowering=msvc`: they
//! take flat functions to the Itanium or Microsoft EH model, one function at a time
//! ([`itanium::lower_function`], [`msvc::lower_function`]).

pub mod itanium;
pub mod msvc;

use crate::manager::{Pass, for_each_definition_in};
use ehir_core::{
    Block, Diagnostic, Diagnostics, Function, Loc, Module, ModuleCtx, Op, OpKind, Phase,
    SecondaryMap, Type, Value,
};

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

    /// The name of the pass that lowers to this ABI.
    pub fn pass_name(self) -> &'static str {
        match self {
            Abi::Itanium => "eh-abi-lowering=itanium",
            Abi::Msvc => "eh-abi-lowering=msvc",
        }
    }
}

/// Where a new op goes.
#[derive(Copy, Clone)]
enum At {
    Before(Op),
    End(Block),
}

impl At {
    /// Places `op` (not placed yet) here.
    fn place(self, func: &mut Function, op: Op) {
        match self {
            At::Before(before) => func.layout.insert_op_before(op, before),
            At::End(block) => func.layout.append_op(op, block),
        }
    }

    /// Creates an op and places it here.
    fn build(
        self,
        func: &mut Function,
        kind: OpKind,
        operands: &[Value],
        results: &[Type],
        successors: &[(Block, &[Value])],
        loc: Loc,
    ) -> Op {
        let op = func
            .dfg
            .make_op(kind, operands, results, successors, 0, loc);
        self.place(func, op);
        op
    }
}

/// Removes the blocks of the function body that its entry block does not reach.
fn remove_unreachable_blocks(func: &mut Function) {
    let Some(body) = func.body else {
        return;
    };
    let blocks: Vec<Block> = func.layout.blocks(body).collect();
    let Some(&entry) = blocks.first() else {
        return;
    };
    let mut reachable: SecondaryMap<Block, bool> =
        SecondaryMap::with_capacity(func.dfg.blocks.len());
    reachable[entry] = true;
    let mut stack = vec![entry];
    while let Some(b) = stack.pop() {
        if let Some(t) = func.layout.last_op(b) {
            for s in func.dfg.successor_blocks(t) {
                if !reachable[s] {
                    reachable[s] = true;
                    stack.push(s);
                }
            }
        }
    }
    for b in blocks {
        if !reachable[b] {
            func.layout.remove_block(b);
        }
    }
}

/// The checks both lowerings start with: `Ok(false)` when there is nothing to lower (a
/// declaration, or a function already in the ABI's phase; either is put in that phase),
/// an error when `func` is not flat.
fn needs_lowering(ctx: &ModuleCtx, func: &mut Function, abi: Abi) -> Result<bool, Diagnostic> {
    if func.body.is_none() || func.phase == abi.phase() {
        func.phase = abi.phase();
        return Ok(false);
    }
    let pass = abi.pass_name();
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
    pub abi: Abi,
}

impl Pass for EhAbiLowering {
    fn name(&self) -> &'static str {
        self.abi.pass_name()
    }

    fn result_phase(&self) -> Option<Phase> {
        Some(self.abi.phase())
    }

    fn run(&self, module: &mut Module) -> Result<(), Diagnostics> {
        for_each_definition_in(module, Phase::Flat, |ctx, func| {
            match self.abi {
                Abi::Itanium => itanium::lower_function(ctx, func)?,
                Abi::Msvc => msvc::lower_function(ctx, func)?,
            }
            func.phase = self.abi.phase();
            Ok(())
        })?;
        // The lowering calls runtime functions (`__cxa_begin_catch`, ...) that a single
        // function cannot declare; declare them module-wide.
        if self.abi == Abi::Itanium {
            itanium::declare_runtime_functions(module);
        }
        Ok(())
    }
}
