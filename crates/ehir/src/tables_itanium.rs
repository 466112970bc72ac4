//! `ehir tables IN --abi itanium --compare-llc ASM`: each function's LSDA as ehir models
//! it against the `GCC_except_table` llc wrote into ASM, compared as
//! [`LsdaShape`]s: which calls unwind to which landing pad with which first action, which
//! functions are called without a landing pad, the action records (type ids resolved),
//! the typeinfos and filter lists. One line per function: `tables match`, `tables match
//! ...; llc deleted dead calls: ...` (llc's table says nothing ehir's does not, but llc
//! removed calls it proved dead), or `tables differ` with both shapes; exit status 1 on
//! any difference.

use crate::input::{Reported, Source};
use crate::tables::{TablesArgs, report_comparison};
use anyhow::Result;
use ehir_core::{Item, Module};
use ehir_tables::structure::{LsdaComparison, LsdaShape, compare_lsda};
use std::collections::BTreeSet;
use std::fmt::Write;

/// Compares ehir's LSDA of every function definition with llc's; writes the report.
pub fn compare_with_llc(
    source: &Source,
    module: &Module,
    asm: &str,
    args: &TablesArgs,
) -> Result<i32> {
    let llc = ehir_tables::llc_asm::parse_itanium(asm)
        .map_err(|e| anyhow::anyhow!("cannot read the llc tables: {e}"))?;
    // The calls ehir's model counts as may-throw (LLVM's rule: the callee is not declared
    // nounwind); llc's ranges also cover calls that cannot throw, which are left out.
    let counts = |callee: &str| match module.function_named(callee) {
        Some(id) => !module.functions[id].nothrow,
        None => matches!(
            callee,
            "__cxa_throw" | "__cxa_rethrow" | "_Unwind_Resume" | "<indirect>"
        ),
    };
    let mut report = String::new();
    let mut mismatches = 0;
    let mut seen = BTreeSet::new();
    for item in &module.items {
        let Item::Function(id) = *item else { continue };
        let func = &module.functions[id];
        if func.is_declaration() {
            continue;
        }
        let name = module.ctx.name(func.name).to_string();
        let ours = match ehir_tables::lsda::module_function_lsda(module, func) {
            Ok(lsda) => lsda.map(|l| l.shape(&module.ctx, func)),
            Err(e) => {
                source.report(&ehir_core::Diagnostics(vec![e.diagnostic()]));
                return Err(Reported.into());
            }
        };
        let theirs = llc.get(&name).map(|l| LsdaShape::from_asm(l, &counts));
        seen.insert(name.clone());
        let show = |x: &Option<LsdaShape>| match x {
            None => "no LSDA".to_string(),
            Some(shape) => shape.render(),
        };
        let verdict = match (&ours, &theirs) {
            (None, None) => continue,
            (Some(a), Some(b)) => compare_lsda(a, b),
            _ => LsdaComparison::Differ,
        };
        let counts_of = |a: &LsdaShape| {
            format!(
                "{} landing pads, {} actions, {} types",
                a.landing_pads.len(),
                a.actions.len(),
                a.types.len()
            )
        };
        match (verdict, &ours) {
            (LsdaComparison::Equal, Some(a)) => {
                let _ = writeln!(report, "function @{name}: tables match ({})", counts_of(a));
            }
            (LsdaComparison::EqualUpToDeadCalls(dead), Some(a)) => {
                let _ = writeln!(
                    report,
                    "function @{name}: tables match ({}); llc deleted dead calls: {}",
                    counts_of(a),
                    dead.join(", ")
                );
            }
            _ => {
                mismatches += 1;
                let _ = writeln!(
                    report,
                    "function @{name}: tables differ\n  ehir: {}\n  llc:  {}",
                    show(&ours),
                    show(&theirs)
                );
            }
        }
    }
    for name in llc.keys().filter(|n| !seen.contains(*n)) {
        mismatches += 1;
        let _ = writeln!(
            report,
            "function @{name}: llc wrote an LSDA for a function the input does not define"
        );
    }
    report_comparison(args, &report, mismatches)
}
