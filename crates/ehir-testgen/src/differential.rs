//! Differential checking of the lowering passes with the interpreter: a structured module
//! and its copies lowered to the flat, Itanium and MSVC phases must give the same
//! observable trace and exit status, without an injected exception and with one injected
//! at every call of an external may-throw function that the structured run makes (each
//! `--throw-at` choice that hits a distinct call). The MSVC phase is left out, and
//! counted, for a run in which an exception meets a dynamic exception specification
//! (which that ABI does not enforce by design)
//! and for a module the MSVC lowering reports as not expressible.

use ehir_core::{Module, OpKind, Phase};
use ehir_interp::{
    CallSelector, Event, RunConfig, RunOutcome, ThrowSpec, UnmodelledCalls, first_divergence,
};
use ehir_passes::PassManager;
use std::collections::{BTreeMap, BTreeSet};

/// What a differential check found.
#[derive(Debug, Default)]
pub struct DiffReport {
    /// Runs compared (pairs of a structured run and a run at a lowered phase).
    pub runs: usize,
    /// Runs whose MSVC counterpart was not compared: in the structured run an exception
    /// met a dynamic exception specification (not enforced on that ABI, by design).
    pub msvc_uncompared_runs: usize,
    /// Why the MSVC lowering could not express the module, when it could not.
    pub msvc_not_expressible: Option<String>,
    /// Descriptions of mismatches.
    pub mismatches: Vec<String>,
    /// Whether the baseline ran into a limit (then nothing else was compared).
    pub skipped: bool,
}

/// Step budget per run: generated programs are small; a runaway loop is a bug anyway.
const STEP_LIMIT: u64 = 2_000_000;

/// External functions whose calls may throw: declared (no body), not `nothrow`, and never
/// called with the `nothrow` flag.
fn throwing_externals(module: &Module) -> BTreeSet<String> {
    let mut nothrow_sites = BTreeSet::new();
    for f in module.functions.values() {
        for op in f.walk_ops() {
            if let OpKind::Call { callee, flags, .. } = f.dfg.kind(op)
                && flags.nothrow
                && let Some(c) = callee.expand()
            {
                nothrow_sites.insert(module.ctx.name(c).to_string());
            }
        }
    }
    module
        .functions
        .values()
        .filter(|f| f.is_declaration() && !f.nothrow)
        .map(|f| module.ctx.name(f.name).to_string())
        .filter(|n| !nothrow_sites.contains(n))
        .collect()
}

/// Runs `module`; `scopes` are the block scopes of the structured module it was lowered
/// from (so that a use after a block scope is detected at the lowered phases too).
fn run(
    module: &Module,
    throw: Option<(&str, u64)>,
    entry: Option<&str>,
    scopes: &std::sync::Arc<ehir_interp::BlockScopes>,
) -> Result<RunOutcome, String> {
    let config = RunConfig {
        block_scopes: Some(scopes.clone()),
        entry: entry.map(str::to_string),
        throw_at: throw
            .map(|(callee, n)| ThrowSpec {
                callee: callee.to_string(),
                selector: CallSelector::Nth(n),
                type_name: "int".to_string(),
                value: Some("7".to_string()),
            })
            .into_iter()
            .collect(),
        step_limit: STEP_LIMIT,
        // Phases are compared, not library behaviour: every undefined function is a probe
        // (a call that may throw), also in a module compiled from C++.
        unmodelled_calls: UnmodelledCalls::Probe,
        ..RunConfig::default()
    };
    ehir_interp::run_module(module, &config).map_err(|e| e.to_string())
}

fn render(trace: &[Event]) -> String {
    trace
        .iter()
        .filter(|e| e.is_observable())
        .map(|e| format!("  {e}\n"))
        .collect()
}

/// Compares the structured module with its copies at the flat, Itanium and MSVC phases.
/// `entry` picks the function to run (default: the interpreter's choice).
pub fn check_module(structured: &Module, entry: Option<&str>, name: &str) -> DiffReport {
    let mut report = DiffReport::default();
    let mut flat = structured.clone();
    let mut pm = match PassManager::from_pipeline("lowering-prepare,flatten-cfg") {
        Ok(pm) => pm,
        Err(e) => {
            report.mismatches.push(format!("{name}: {e}"));
            return report;
        }
    };
    if let Err(e) = pm.run(&mut flat) {
        report
            .mismatches
            .push(format!("{name}: flattening failed: {e}"));
        return report;
    }
    let mut lowered = vec![(Phase::Flat, flat)];
    // A module with functions already at another ABI phase cannot reach this one
    // (`PassError::Target`): that phase is not applicable.
    let mut itanium = structured.clone();
    match ehir_passes::lower_to(&mut itanium, Phase::Itanium) {
        Ok(()) => lowered.push((Phase::Itanium, itanium)),
        Err(ehir_passes::PassError::Target { .. }) => {}
        Err(e) => {
            report
                .mismatches
                .push(format!("{name}: lowering to itanium failed: {e}"));
            return report;
        }
    }
    let mut msvc = structured.clone();
    match ehir_passes::lower_to(&mut msvc, Phase::Msvc) {
        Ok(()) => lowered.push((Phase::Msvc, msvc)),
        Err(ehir_passes::PassError::Target { .. }) => {}
        Err(e) => report.msvc_not_expressible = Some(e.to_string()),
    }
    let scopes = std::sync::Arc::new(ehir_interp::BlockScopes::of_module(structured));
    let base = match run(structured, None, entry, &scopes) {
        Ok(o) => o,
        Err(e) => {
            report.mismatches.push(format!("{name}: cannot run: {e}"));
            return report;
        }
    };
    if base
        .runtime_error
        .as_ref()
        .is_some_and(|e| e.message.contains("budget") || e.message.contains("limit"))
    {
        report.skipped = true;
        return report;
    }
    // Every call of a throwing external in the baseline, numbered per callee.
    let throwing = throwing_externals(structured);
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut choices: Vec<Option<(String, u64)>> = vec![None];
    for e in &base.trace {
        if let Event::Call { callee, .. } = e
            && throwing.contains(callee)
        {
            let n = counts.entry(callee.clone()).or_insert(0);
            *n += 1;
            choices.push(Some((callee.clone(), *n)));
        }
    }
    let runtime = |o: &RunOutcome| o.runtime_error.as_ref().map(|e| e.to_string());
    for choice in choices {
        let throw = choice.as_ref().map(|(c, n)| (c.as_str(), *n));
        let a = match run(structured, throw, entry, &scopes) {
            Ok(a) => a,
            Err(e) => {
                report.mismatches.push(format!("{name}: cannot run: {e}"));
                continue;
            }
        };
        let what = match &choice {
            None => "no throw".to_string(),
            Some((c, n)) => format!("--throw-at @{c}#{n}=int:7"),
        };
        for (phase, module) in &lowered {
            if *phase == Phase::Msvc && (a.met_specification || a.abi_dependent_catch) {
                report.msvc_uncompared_runs += 1;
                continue;
            }
            let b = match run(module, throw, entry, &scopes) {
                Ok(b) => b,
                Err(e) => {
                    report
                        .mismatches
                        .push(format!("{name} ({}): cannot run: {e}", phase.name()));
                    continue;
                }
            };
            report.runs += 1;
            let div = first_divergence(&a.trace, &b.trace);
            if div.is_some() || a.exit_status != b.exit_status || runtime(&a) != runtime(&b) {
                let p = phase.name();
                report.mismatches.push(format!(
                    "{name} ({what}): structured exit {} {:?} vs {p} exit {} {:?}; first divergence {div:?}\n-- structured trace:\n{}-- {p} trace:\n{}",
                    a.exit_status,
                    runtime(&a),
                    b.exit_status,
                    runtime(&b),
                    render(&a.trace),
                    render(&b.trace),
                ));
            }
        }
    }
    report
}

/// The defined structured functions of a module (each can be the entry of a run).
pub fn structured_entries(module: &Module) -> Vec<String> {
    module
        .functions
        .values()
        .filter(|f| !f.is_declaration() && f.phase == ehir_core::Phase::Structured)
        .map(|f| module.ctx.name(f.name).to_string())
        .collect()
}

/// Parses `text` and compares it (see [`check_module`]).
pub fn check_text(text: &str, entry: Option<&str>, name: &str) -> DiffReport {
    match ehir_reader::parse_module(name, text) {
        Ok(m) => {
            if let Err(d) = ehir_core::verifier::verify_module(&m) {
                let mut r = DiffReport::default();
                let src = ehir_core::SourceFile::new(name, text);
                r.mismatches.push(format!(
                    "{name}: input does not verify:\n{}",
                    src.render_all(&d)
                ));
                return r;
            }
            check_module(&m, entry, name)
        }
        Err(d) => {
            let mut r = DiffReport::default();
            let src = ehir_core::SourceFile::new(name, text);
            r.mismatches
                .push(format!("{name}: parse error:\n{}", src.render_all(&d)));
            r
        }
    }
}
