//! `ehir run`: interpret a program at one phase or at every phase the pipeline can
//! bring it to, print its stdout (and with `--trace` the event trace), and exit with
//! the program's exit status — or 2 when `--phase all` finds two phases whose
//! observable traces differ (the first diverging event is shown).
//!
//! `--phase all` runs the input's own phase and every later phase `ehir_passes::lower_to`
//! reaches (a phase the pipeline fails to reach is skipped with a warning), and compares
//! the observable events (see `ehir_interp::trace`). A run cut short by the step or
//! memory budget stops at a different point at each phase, so only the events before
//! the cut are compared. A program in which an exception meets a dynamic exception
//! specification (in the first phase's run) is run at the msvc phase but not compared
//! there: the Microsoft C++ ABI does not enforce such specifications, so that phase
//! differs by design (a note says so). The program's
//! stdout and stderr are those of the first phase;
//! `--trace` prints every phase's trace.
//!
//! Exit statuses: the program's own (0.., 134 for `std::terminate`/`abort`, 1 when an
//! exception escapes a non-`main` entry), 3 when the interpreter stopped the program
//! on an error (out-of-bounds access, step budget...), 1 for bad input or flags, 2 for
//! diverging phases.

use crate::input::{Reported, Source};
use anyhow::{Result, bail};
use ehir_core::{Diagnostic, Diagnostics, Module, Phase};
use ehir_interp::{Event, RunConfig, RunOutcome};
use std::io::Write;
use std::path::PathBuf;

/// The exit status of `--phase all` when phases disagree.
pub const EXIT_DIVERGENCE: i32 = 2;

#[derive(clap::Args)]
pub struct RunArgs {
    /// Input file (`.cir`, or `.cpp` for the C++ front end).
    pub input: PathBuf,
    /// The function to run (default: `main`, or the only defined function).
    #[arg(long, value_name = "FUNCTION")]
    pub entry: Option<String>,
    /// Run at this phase (lowering the input first), or at every reachable phase and
    /// compare (`all`). Default: the phase the input is at.
    #[arg(long, value_name = "structured|flat|itanium|msvc|all")]
    pub phase: Option<String>,
    /// Also print the event trace (calls, returns, throws, catches, cleanups run).
    #[arg(long)]
    pub trace: bool,
    /// Make a call of an undefined function throw: `@f#2=int:7` (the 2nd call of `@f`
    /// throws the int 7), `@f=SomeClass`, `@f#*=const char*:oops`. Repeatable.
    #[arg(long = "throw-at", value_name = "SPEC")]
    pub throw_at: Vec<String>,
    /// Values an undefined function returns, in order, the last repeating:
    /// `@_ZN9SomeClass3getEv=5,7`. Repeatable.
    #[arg(long = "returns", value_name = "SPEC")]
    pub returns: Vec<String>,
    /// Step budget (ops executed).
    #[arg(long = "max-steps", value_name = "N")]
    pub max_steps: Option<u64>,
    /// Memory budget in bytes.
    #[arg(long = "max-memory", value_name = "BYTES")]
    pub max_memory: Option<u64>,
}

/// The phases `--phase` may name.
#[derive(Copy, Clone, PartialEq, Eq)]
enum PhaseChoice {
    AsIs,
    One(Phase),
    All,
}

fn parse_phase(s: Option<&str>) -> Result<PhaseChoice> {
    match s {
        None => Ok(PhaseChoice::AsIs),
        Some("all") => Ok(PhaseChoice::All),
        Some(p) => match Phase::from_name(p) {
            Some(p) => Ok(PhaseChoice::One(p)),
            None => bail!("unknown phase '{p}' (expected structured, flat, itanium, msvc or all)"),
        },
    }
}

fn config(args: &RunArgs) -> Result<RunConfig> {
    let mut cfg = RunConfig {
        entry: args.entry.clone(),
        ..RunConfig::default()
    };
    for s in &args.throw_at {
        cfg.throw_at
            .push(ehir_interp::parse_throw_spec(s).map_err(|e| anyhow::anyhow!("--throw-at {e}"))?);
    }
    for s in &args.returns {
        cfg.returns
            .push(ehir_interp::parse_return_spec(s).map_err(|e| anyhow::anyhow!("--returns {e}"))?);
    }
    if let Some(n) = args.max_steps {
        cfg.step_limit = n;
    }
    if let Some(n) = args.max_memory {
        cfg.memory_limit = n;
    }
    Ok(cfg)
}

/// The phase a module is at: the most lowered phase of its function definitions.
fn module_phase(module: &Module) -> Phase {
    module
        .functions
        .values()
        .filter(|f| !f.is_declaration())
        .map(|f| f.phase)
        .max()
        .unwrap_or(Phase::Structured)
}

/// Brings a copy of the module to `target` with the pass pipeline.
fn lowered(source: &Source, module: &Module, target: Phase) -> Result<Module> {
    let mut m = module.clone();
    if let Err(e) = ehir_pipeline::lower(&mut m, target) {
        source.report(&Diagnostics(vec![Diagnostic::error(
            ehir_core::Loc::NONE,
            format!("cannot bring the input to phase {}: {e}", target.name()),
        )]));
        return Err(Reported.into());
    }
    Ok(m)
}

/// The phases `--phase all` runs: the input's own and every later one the pipeline
/// reaches from it.
fn phases_from(phase: Phase) -> Vec<Phase> {
    match phase {
        Phase::Structured => vec![Phase::Structured, Phase::Flat, Phase::Itanium, Phase::Msvc],
        Phase::Flat => vec![Phase::Flat, Phase::Itanium, Phase::Msvc],
        other => vec![other],
    }
}

fn run_one(source: &Source, module: &Module, cfg: &RunConfig) -> Result<RunOutcome> {
    match ehir_interp::run_module(module, cfg) {
        Ok(o) => Ok(o),
        Err(e) => {
            let message = match &e {
                ehir_interp::InterpError::AmbiguousEntry(functions) => format!(
                    "the module defines several functions ({functions}); choose one with --entry"
                ),
                _ => e.to_string(),
            };
            source.report(&Diagnostics(vec![Diagnostic::error(
                ehir_core::Loc::NONE,
                message,
            )]));
            Err(Reported.into())
        }
    }
}

fn print_trace(out: &mut dyn Write, phase: &str, trace: &[Event]) -> Result<()> {
    writeln!(out, "--- trace ({phase}) ---")?;
    for e in trace {
        writeln!(out, "{e}")?;
    }
    Ok(())
}

fn cut_by_budget(o: &RunOutcome) -> bool {
    o.runtime_error.as_ref().is_some_and(|e| e.budget)
}

/// The observable events of a run; for a run cut short by a budget, those before the
/// cut (its closing error and exit events say nothing about the program).
fn comparable(o: &RunOutcome) -> Vec<&Event> {
    let mut events = ehir_interp::observable(&o.trace);
    if cut_by_budget(o) {
        while matches!(
            events.last(),
            Some(Event::Error { .. } | Event::Exit { .. })
        ) {
            events.pop();
        }
    }
    events
}

/// Where two runs' observable traces first differ. A run cut by a budget stops at a
/// different point at each phase, so when the shorter trace was cut only the events
/// both runs reached are compared.
fn divergence<'a>(
    a: &'a RunOutcome,
    b: &'a RunOutcome,
) -> Option<(usize, Option<&'a Event>, Option<&'a Event>)> {
    let (x, y) = (comparable(a), comparable(b));
    let shorter_cut = if x.len() <= y.len() {
        cut_by_budget(a)
    } else {
        cut_by_budget(b)
    };
    let n = if shorter_cut {
        x.len().min(y.len())
    } else {
        x.len().max(y.len())
    };
    (0..n).find_map(|i| {
        let (l, r) = (x.get(i).copied(), y.get(i).copied());
        (l != r).then_some((i, l, r))
    })
}

/// `ehir run`.
pub fn run_command(args: &RunArgs) -> Result<i32> {
    let choice = parse_phase(args.phase.as_deref())?;
    let cfg = config(args)?;
    let source = Source::read(&args.input)?;
    let module = source.load()?;
    let input_phase = module_phase(&module);
    // At the MSVC phase a dynamic exception specification is not enforced (by design, as
    // on that ABI): when an exception meets one, that phase is run but not compared.
    let with_specification = (choice == PhaseChoice::All)
        .then(|| ehir_passes::eh_abi::msvc::ignored_exception_specification(&module))
        .flatten()
        .map(|f| module.ctx.name(f).to_string());
    let runs: Vec<(Phase, Module)> = match choice {
        PhaseChoice::AsIs => vec![(input_phase, module)],
        PhaseChoice::One(p) if p == input_phase => vec![(p, module)],
        PhaseChoice::One(p) => vec![(p, lowered(&source, &module, p)?)],
        PhaseChoice::All => {
            // Phases the pipeline cannot reach are skipped with a warning; the others
            // are still compared.
            let mut runs = vec![(input_phase, module.clone())];
            for p in phases_from(input_phase).into_iter().skip(1) {
                let mut m = module.clone();
                match ehir_pipeline::lower(&mut m, p) {
                    Ok(()) => runs.push((p, m)),
                    Err(e) => eprintln!(
                        "ehir run: warning: skipping phase {}: the pipeline cannot bring the input there: {e}",
                        p.name()
                    ),
                }
            }
            runs
        }
    };
    let mut outcomes = Vec::new();
    for (phase, m) in &runs {
        outcomes.push((*phase, run_one(&source, m, &cfg)?));
    }
    let (first_phase, first) = &outcomes[0];
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    out.write_all(&first.stdout)?;
    if args.trace {
        if !first.stdout.is_empty() && !first.stdout.ends_with(b"\n") {
            writeln!(out)?;
        }
        for (phase, o) in &outcomes {
            print_trace(&mut out, phase.name(), &o.trace)?;
        }
    }
    out.flush()?;
    std::io::stderr().write_all(&first.stderr)?;
    for (phase, o) in &outcomes {
        if let Some(err) = &o.runtime_error {
            let suffix = if outcomes.len() > 1 {
                format!(" [phase {}]", phase.name())
            } else {
                String::new()
            };
            source.report(&Diagnostics(vec![Diagnostic::error(
                err.loc,
                format!(
                    "runtime error in @{}: {}{suffix}",
                    err.function, err.message
                ),
            )]));
        }
    }
    let met_specification = first.met_specification;
    for (phase, o) in &outcomes[1..] {
        if *phase == Phase::Msvc
            && met_specification
            && let Some(f) = &with_specification
        {
            eprintln!(
                "ehir run: note: phase msvc was run but not compared: an exception meets a dynamic exception specification (@{f} has one), which the Microsoft C++ ABI does not enforce"
            );
            continue;
        }
        if let Some((index, left, right)) = divergence(first, o) {
            let show = |e: Option<&Event>| match e {
                Some(e) => e.to_string(),
                None => "<end of trace>".to_string(),
            };
            eprintln!(
                "ehir run: phases {} and {} diverge at observable event {index}:\n  {:<10} {}\n  {:<10} {}",
                first_phase.name(),
                phase.name(),
                format!("{}:", first_phase.name()),
                show(left),
                format!("{}:", phase.name()),
                show(right)
            );
            return Ok(EXIT_DIVERGENCE);
        }
    }
    for (phase, o) in &outcomes {
        if outcomes.len() > 1 && cut_by_budget(o) {
            eprintln!(
                "ehir run: note: phase {} was stopped by a budget; the phases were compared up to that point",
                phase.name()
            );
        }
    }
    Ok(first.exit_status)
}
