//! The EH ABI lowering passes, `eh-abi-lowering=itanium` and `eh-abi-lowering=msvc`: they
//! take flat functions to the Itanium or Microsoft EH model, one function at a time
//! ([`itanium::lower_function`], [`msvc::lower_function`]).

pub mod itanium;
pub mod msvc;

use crate::pass::{FunctionStep, Pass};
use ehir_core::abi::EhAbi;
use ehir_core::{
    CastKind, CursorPosition, Diagnostic, FuncCursor, Function, Module, ModuleCtx, Op, OpKind,
    Phase, Symbol, ValueDef,
};

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

/// Lowers every upstream `cir.init_catch_param KIND %e to %dest` of `func`, once the
/// lowering has made `%e` what the ABI's catch yields: the adjusted pointer
/// (`__cxa_begin_catch`'s result; the object the Microsoft catchpad's slot points to, or
/// for a caught pointer the pointer itself, as the slot holds it). Both ABIs agree:
/// - `reference`, `pointer`: `%e` cast to the parameter's type, stored at `%dest`;
/// - `scalar`, `trivial_copy`: the object at `%e` loaded and stored at `%dest`;
/// - `reference_to_record_pointer` (`catch (C *&)`): the pointer is stored in a
///   temporary `exn.byref.tmp` (an alloca at the function's entry, aligned as the
///   parameter's slot, a reference being a pointer) that the reference binds to;
/// - `non_trivial_copy`, `reference_to_pointer`: nothing (their
///   `cir.construct_catch_param` built the parameter).
fn lower_init_catch_params(ctx: &mut ModuleCtx, func: &mut Function) -> Result<(), Diagnostic> {
    let inits: Vec<(Op, Symbol)> = func
        .walk_ops()
        .into_iter()
        .filter_map(|op| match *func.dfg.kind(op) {
            OpKind::InitCatchParam { kind } => Some((op, kind)),
            _ => None,
        })
        .collect();
    for (op, kind) in inits {
        lower_init_catch_param(ctx, func, op, kind)?;
    }
    Ok(())
}

/// One `cir.init_catch_param` (see [`lower_init_catch_params`]).
fn lower_init_catch_param(
    ctx: &mut ModuleCtx,
    func: &mut Function,
    op: Op,
    kind: Symbol,
) -> Result<(), Diagnostic> {
    let loc = func.dfg.loc(op);
    let error = |message: String| Diagnostic::error(loc, message);
    let (exn, dest) = match *func.dfg.operands(op) {
        [exn, dest] => (exn, dest),
        _ => return Err(error("cir.init_catch_param takes two operands".into())),
    };
    let dest_ty = func.dfg.value_type(dest);
    let param_ty = ctx
        .types
        .pointee(dest_ty)
        .ok_or_else(|| error("the catch parameter's address must be a pointer".into()))?;
    let common = *ctx.types.common();
    let kind_name = ctx.name(kind).to_string();
    match kind_name.as_str() {
        "reference" | "pointer" => {
            let mut at = FuncCursor::before(func, &common, op).with_loc(loc);
            let value = bitcast_to(&mut at, exn, param_ty);
            at.store(value, dest);
        }
        "scalar" | "trivial_copy" => {
            let mut at = FuncCursor::before(func, &common, op).with_loc(loc);
            let object = bitcast_to(&mut at, exn, dest_ty);
            let value = at.load(object, param_ty);
            at.store(value, dest);
        }
        "reference_to_record_pointer" => {
            let pointer_ty = ctx
                .types
                .pointee(param_ty)
                .ok_or_else(|| error("the catch parameter must be a reference".into()))?;
            let align = match func.dfg.value_def(dest) {
                ValueDef::Result(slot, _) => match *func.dfg.kind(slot) {
                    OpKind::Alloca { align, .. } if align > 0 => align,
                    _ => 8,
                },
                _ => 8,
            };
            let entry = func
                .body
                .and_then(|body| func.layout.entry_block(body))
                .ok_or_else(|| error("the function has no body".into()))?;
            let entry_at = match func.layout.ops(entry).next() {
                Some(first) => CursorPosition::Before(first),
                None => CursorPosition::End(entry),
            };
            let name = ctx.sym("exn.byref.tmp");
            let temporary = FuncCursor::at(func, &common, entry_at)
                .with_loc(loc)
                .alloca(pointer_ty, param_ty, name, false, align);
            let mut at = FuncCursor::before(func, &common, op).with_loc(loc);
            let pointer = bitcast_to(&mut at, exn, pointer_ty);
            at.store(pointer, temporary);
            at.store(temporary, dest);
        }
        "non_trivial_copy" | "reference_to_pointer" => {}
        other => {
            return Err(error(format!(
                "not supported yet: EH ABI lowering of 'cir.init_catch_param' of kind '{other}'"
            )));
        }
    }
    func.layout.remove_op(op);
    Ok(())
}

/// `value` as type `ty`: itself, or a bitcast of it before the cursor.
fn bitcast_to(
    at: &mut FuncCursor,
    value: ehir_core::Value,
    ty: ehir_core::Type,
) -> ehir_core::Value {
    if at.func.dfg.value_type(value) == ty {
        value
    } else {
        at.cast(CastKind::Bitcast, value, ty)
    }
}
