//! The MSVC pipeline on generated programs (`ehir_testgen`): every program lowers
//! to the MSVC phase and verifies, its state tables are consistent trees
//! ([`canonical`] accepts them), its CLR clauses keep the CLR's rules, and its LSDA builds
//! after the Itanium lowering. `EHIR_GEN_COUNT` sets the number of programs (default 300).
//!
//! The last test runs each program in the interpreter before and after the MSVC and the
//! Itanium lowerings, without and with an exception injected at each call, and compares
//! the observable traces ([`ehir_testgen::differential`], which leaves out of the MSVC
//! comparison the runs where an exception meets a dynamic exception specification, not
//! enforced on the Microsoft ABI by design).

use ehir_core::{Module, OpKind, Phase};
use ehir_tables::structure::{StateTables, canonical};
use ehir_testgen::{GenConfig, differential, generate_program};

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

#[test]
fn generated_programs_behave_the_same_after_the_msvc_and_itanium_lowerings() {
    let (mut runs, mut mismatches) = (0, Vec::new());
    for seed in 0..count() {
        let text = generate_program(seed, &GenConfig::default());
        let report = differential::check_text(&text, Some("main"), &format!("seed {seed}"));
        runs += report.runs;
        if let Some(why) = report.msvc_not_expressible {
            mismatches.push(format!("seed {seed}: the MSVC lowering failed: {why}"));
        }
        mismatches.extend(report.mismatches);
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches: {mismatches:?}",
        mismatches.len()
    );
    assert!(runs > count() as usize, "only {runs} runs compared");
}
