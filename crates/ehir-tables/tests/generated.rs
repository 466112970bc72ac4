//! The MSVC pipeline on generated programs (`ehir_testgen`): every program lowers
//! to the MSVC phase and verifies, its state tables are consistent trees
//! ([`canonical`] accepts them), its CLR clauses keep the CLR's rules, and its LSDA builds
//! after the Itanium lowering. `EHIR_GEN_COUNT` sets the number of programs (default 300).
//!
//! The last test runs each program in the interpreter after the MSVC and after the Itanium
//! lowering, without and with an exception injected at each call, and compares the
//! observable traces, except where the ABIs differ by design: programs with dynamic
//! exception specifications (`filter`, not enforced on the Microsoft ABI) are skipped; a
//! catch right before std::terminate is dropped (Itanium's terminate landing pad catches,
//! the Microsoft runtime terminates by itself when an exception escapes a cleanup); and the
//! terminate message is not compared (libstdc++ words it by whether an exception was
//! caught).

use ehir_core::{Module, OpKind, Phase};
use ehir_interp::{CallSelector, Event, RunConfig, ThrowSpec};
use ehir_tables::structure::{StateTables, canonical};
use ehir_testgen::{GenConfig, generate_program};

fn count() -> u64 {
    std::env::var("EHIR_GEN_COUNT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

fn flat(seed: u64) -> Module {
    let text = generate_program(seed, &GenConfig::default());
    let mut m = ehir_reader::parse_module("gen.cir", &text).expect("generated programs parse");
    ehir_passes::lower_to(&mut m, Phase::Flat).expect("generated programs flatten");
    m
}

#[test]
fn generated_programs_lower_to_msvc_with_consistent_tables() {
    let (mut with_pads, mut tries, mut clauses) = (0, 0, 0);
    for seed in 0..count() {
        let mut m = flat(seed);
        ehir_passes::lower_to(&mut m, Phase::Msvc)
            .unwrap_or_else(|e| panic!("seed {seed}: eh-abi-lowering=msvc failed: {e}"));
        for f in m.functions.values() {
            let name = m.ctx.name(f.name).to_string();
            let Some(t) = ehir_tables::wineh::function_tables(&m.ctx, f)
                .unwrap_or_else(|e| panic!("seed {seed} @{name}: {e}"))
            else {
                continue;
            };
            with_pads += 1;
            tries += t.try_map.len();
            canonical(&StateTables::from_wineh(&t))
                .unwrap_or_else(|e| panic!("seed {seed} @{name}: inconsistent state tables: {e}"));
            // Every invoke has a state; plain calls in cleanups have none.
            for c in &t.calls {
                let kind = f.dfg.kind(c.op);
                if matches!(kind, OpKind::TryCall { .. }) {
                    assert!(
                        c.state.is_some(),
                        "seed {seed} @{name}: invoke without state"
                    );
                }
            }
            let eh = ehir_tables::clr::function_clauses(&m.ctx, f)
                .unwrap_or_else(|e| panic!("seed {seed} @{name}: {e}"))
                .expect("a function with pads has clauses");
            clauses += eh.clauses.len();
            let problems = ehir_tables::clr::check_rules(&eh);
            assert!(problems.is_empty(), "seed {seed} @{name}: {problems:?}");
        }
    }
    assert!(
        with_pads > count() / 2,
        "only {with_pads} functions with pads"
    );
    assert!(tries > 0 && clauses > 0);
}

#[test]
fn generated_programs_have_an_lsda_after_the_itanium_lowering() {
    let mut with_lsda = 0;
    for seed in 0..count() {
        let mut m = flat(seed);
        ehir_passes::eh_abi::itanium::lower_module(&mut m)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        for f in m.functions.values() {
            let name = m.ctx.name(f.name).to_string();
            if let Some(l) = ehir_tables::lsda::function_lsda(f)
                .unwrap_or_else(|e| panic!("seed {seed} @{name}: {e}"))
            {
                with_lsda += 1;
                // Every call site with a landing pad names an action its pad has.
                for cs in &l.call_sites {
                    if let Some(lp) = cs.landing_pad {
                        let pad = l.landing_pads.iter().find(|p| p.block == lp).expect("pad");
                        assert_eq!(cs.action, pad.first_action, "seed {seed} @{name}");
                        if cs.action != 0 {
                            assert!(l.actions.iter().any(|a| a.offset == cs.action));
                        }
                    }
                }
            }
        }
    }
    assert!(with_lsda > count() / 2);
}

fn run(m: &Module, throw: Option<(&str, u64)>) -> ehir_interp::RunOutcome {
    let config = RunConfig {
        throw_at: throw
            .map(|(callee, n)| ThrowSpec {
                callee: callee.to_string(),
                selector: CallSelector::Nth(n),
                type_name: "int".to_string(),
                value: Some("7".to_string()),
            })
            .into_iter()
            .collect(),
        step_limit: 2_000_000,
        ..RunConfig::default()
    };
    ehir_interp::run_module(m, &config).expect("runs")
}

/// The observable trace without what the ABIs do differently by design: a catch right
/// before std::terminate, and the terminate message.
fn comparable(trace: &[Event]) -> Vec<String> {
    let obs: Vec<&Event> = trace.iter().filter(|e| e.is_observable()).collect();
    let mut out = Vec::new();
    for (i, e) in obs.iter().enumerate() {
        match e {
            Event::Catch { .. } if matches!(obs.get(i + 1), Some(Event::Terminate { .. })) => {}
            Event::Terminate { .. } => out.push("terminate".to_string()),
            _ => out.push(e.to_string()),
        }
    }
    out
}

/// Whether a flat module has a dynamic exception specification.
fn has_filter(m: &Module) -> bool {
    m.functions.values().any(|f| {
        f.walk_ops().into_iter().any(|op| match f.dfg.kind(op) {
            OpKind::EhDispatch { keys } => f
                .dfg
                .handlers(*keys)
                .iter()
                .any(|k| matches!(k, ehir_core::HandlerKey::Filter(_))),
            _ => false,
        })
    })
}

#[test]
fn generated_programs_behave_the_same_after_the_msvc_and_itanium_lowerings() {
    let mut mismatches = Vec::new();
    let mut runs = 0;
    for seed in 0..count() {
        let base = flat(seed);
        if has_filter(&base) {
            continue;
        }
        let mut itanium = base.clone();
        ehir_passes::eh_abi::itanium::lower_module(&mut itanium).expect("itanium lowering");
        let mut msvc = base.clone();
        ehir_passes::lower_to(&mut msvc, Phase::Msvc).expect("msvc lowering");
        let first = run(&itanium, None);
        let mut choices: Vec<Option<(String, u64)>> = vec![None];
        let mut counts = std::collections::BTreeMap::<String, u64>::new();
        for e in &first.trace {
            if let Event::Call { callee, .. } = e
                && ["ev", "dtor", "caught", "caught_float", "caught_all"].contains(&callee.as_str())
            {
                let n = counts.entry(callee.clone()).or_default();
                *n += 1;
                choices.push(Some((callee.clone(), *n)));
            }
        }
        for choice in choices {
            let throw = choice.as_ref().map(|(c, n)| (c.as_str(), *n));
            let (a, b) = (run(&itanium, throw), run(&msvc, throw));
            runs += 1;
            if comparable(&a.trace) != comparable(&b.trace) || a.exit_status != b.exit_status {
                mismatches.push(format!("seed {seed} throw {choice:?}"));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches: {mismatches:?}",
        mismatches.len()
    );
    assert!(runs > count() as usize, "only {runs} runs compared");
}
