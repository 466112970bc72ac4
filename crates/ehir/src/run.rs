//! `ehir run`: interpret a program at one phase or at every phase the pipeline can
//! bring it to, print its stdout (and with `--trace` the event trace), and exit with
//! the program's exit status — or [`EXIT_DIVERGENCE`] when `--phase all` finds two
//! phases whose observable traces differ (the first diverging event is shown).
//!
//! A `.cpp` input is compiled for the target of one EH ABI: the ABI of `--phase` when it
//! names one (`--phase msvc`: `x86_64-pc-windows-msvc`), else `--abi` (default itanium:
//! `x86_64-linux-gnu`); `--abi` may not contradict `--phase`. Its `--phase all` runs
//! that ABI's phases only (structured, flat and `itanium` or `msvc`): a program compiled
//! for one target is not a program of the other (`long`, layouts, who destroys by-value
//! arguments differ), so its run is never compared with the other ABI's phase. So for a
//! `.cir` input compiled for a target (its `cir.triple`, which the C++ front end
//! writes); a `.cir` input without one runs both ABIs' phases. `--abi` given with a
//! `.cir` input chooses the ABI whose phases run.
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
//! Exit statuses ([`EXIT_STATUSES`], also in `ehir run --help` and the README): the
//! program's own (0.., 134 for `std::terminate`/`abort`, 1 when an exception escapes a
//! non-`main` entry) when it ran to its end (at every phase, which agree); 1 when ehir
//! cannot run the input (diagnostics, nothing ran); [`EXIT_STOPPED`] (124) when the
//! interpreter stopped the program (undefined behaviour it detects, the step or memory
//! budget); [`EXIT_DIVERGENCE`] (125) when phases diverge. `--phase all` also ends with
//! one `ehir run: verdict: ...` line on stderr, which tells ehir's verdicts apart from a
//! program that itself exits with 124 or 125.

use crate::build::{AbiArg, front_end_abi};
use crate::input::{Reported, Source};
use anyhow::{Result, bail};
use ehir_core::abi::EhAbi;
use ehir_core::{Diagnostic, Diagnostics, Module, Phase};
use ehir_interp::{Event, RunConfig, RunOutcome, StopReason, UnmodelledCalls};
use std::io::Write;
use std::path::PathBuf;

/// The exit status of `--phase all` when phases disagree.
pub const EXIT_DIVERGENCE: i32 = 125;

/// The exit status when the interpreter stopped the program before it ended: undefined
/// behaviour it detects (out-of-bounds or dangling access, ...) or a budget.
pub const EXIT_STOPPED: i32 = 124;

/// The exit statuses of `ehir run`, as `ehir run --help` shows them.
pub const EXIT_STATUSES: &str = "Exit status: the program's own (0..255; 134 for std::terminate or abort; 1 when an \
exception escapes an entry other than main) when it ran to its end, at every phase with \
`--phase all` (which then agree); 1 when ehir cannot run the input (bad file or flags, \
diagnostics printed, nothing ran); 124 when the interpreter stopped the program (undefined \
behaviour it detects, such as a dangling or out-of-bounds access, a call of an external \
function it does not model, or the step or memory budget); 125 when `--phase all` finds \
two phases that diverge. `--phase all` ends with an `ehir run: verdict:` line on stderr, \
which tells these apart from a program that itself exits with 124 or 125.";

#[derive(clap::Args)]
#[command(after_help = EXIT_STATUSES)]
pub struct RunArgs {
    /// Input file (`.cir`, or `.cpp` for the C++ front end).
    pub input: PathBuf,
    /// The EH ABI: a `.cpp` input is compiled for its target, and `--phase all` runs only
    /// its lowered phase (default: the ABI of `--phase` when it names one, else itanium
    /// for `.cpp`, both for `.cir`).
    #[arg(long, value_enum)]
    pub abi: Option<AbiArg>,
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
    /// Run every undefined function the interpreter does not model as a probe (traced,
    /// returning its `--returns` value or zero), also in a program compiled from C++,
    /// where such a call is otherwise an error naming the function.
    #[arg(long)]
    pub probes: bool,
    /// Step budget (ops executed).
    #[arg(long = "max-steps", value_name = "N")]
    pub max_steps: Option<u64>,
    /// Memory budget in bytes.
    #[arg(long = "max-memory", value_name = "BYTES")]
    pub max_memory: Option<u64>,
    /// Call depth limit (frames of defined functions; default 100,000).
    #[arg(long = "max-call-depth", value_name = "N")]
    pub max_call_depth: Option<u32>,
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
        unmodelled_calls: if args.probes {
            UnmodelledCalls::Probe
        } else {
            UnmodelledCalls::ByModule
        },
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
    if let Some(n) = args.max_call_depth {
        cfg.call_depth_limit = n;
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
/// reaches from it, of the EH ABIs `abis`.
fn phases_from(phase: Phase, abis: &[EhAbi]) -> Vec<Phase> {
    let lowered = abis.iter().map(|abi| abi.phase());
    match phase {
        Phase::Structured => [Phase::Structured, Phase::Flat]
            .into_iter()
            .chain(lowered)
            .collect(),
        Phase::Flat => std::iter::once(Phase::Flat).chain(lowered).collect(),
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
    o.runtime_error
        .as_ref()
        .is_some_and(ehir_interp::RuntimeError::is_budget)
}

/// Whether a run stopped at a point that says nothing about the program's behaviour
/// beyond it: a budget (which phases reach at different points), or, for the reference
/// run (the first phase), undefined behaviour the interpreter detected — a program with
/// undefined behaviour has none to compare, so a later phase that does not detect it is
/// not a divergence (the verdict says the program was stopped). A later phase stopped by
/// an error where the reference was not is a divergence.
fn cut_short(o: &RunOutcome, reference: bool) -> bool {
    o.runtime_error
        .as_ref()
        .is_some_and(|e| e.is_budget() || reference)
}

/// The observable events of a run; for a run cut short (see [`cut_short`]), those
/// before the cut (its closing error and exit events say nothing about the program).
fn comparable(o: &RunOutcome, reference: bool) -> Vec<&Event> {
    let mut events = ehir_interp::observable(&o.trace);
    if cut_short(o, reference) {
        while matches!(
            events.last(),
            Some(Event::Error { .. } | Event::Exit { .. })
        ) {
            events.pop();
        }
    }
    events
}

/// Where the reference run `a` and the run `b` first differ in their observable
/// traces. When the shorter trace was cut short (see [`cut_short`]) only the events both
/// runs reached are compared.
fn divergence<'a>(
    a: &'a RunOutcome,
    b: &'a RunOutcome,
) -> Option<(usize, Option<&'a Event>, Option<&'a Event>)> {
    let (x, y) = (comparable(a, true), comparable(b, false));
    let shorter_cut = if x.len() <= y.len() {
        cut_short(a, true)
    } else {
        cut_short(b, false)
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
    let named_phase = match choice {
        PhaseChoice::One(phase) => Some(phase),
        PhaseChoice::AsIs | PhaseChoice::All => None,
    };
    let abi = front_end_abi(args.abi, named_phase)?;
    let source = Source::read(&args.input)?;
    let module = source.load_for(abi)?;
    // The ABIs whose phases `--phase all` runs (see the module documentation).
    let abis: Vec<EhAbi> = if source.is_cpp() || args.abi.is_some() {
        vec![abi]
    } else if module.triple().is_some() {
        vec![if module.is_msvc_target() {
            EhAbi::Msvc
        } else {
            EhAbi::Itanium
        }]
    } else {
        EhAbi::ALL.to_vec()
    };
    let input_phase = module_phase(&module);
    // A structured input's block scopes let the lowered phases end block-scope variables
    // where the structured phase does (use after scope is detected at every phase).
    let mut cfg = cfg;
    if input_phase == Phase::Structured {
        cfg.block_scopes = Some(std::sync::Arc::new(ehir_interp::BlockScopes::of_module(
            &module,
        )));
    }
    // At the MSVC phase a dynamic exception specification is not enforced (by design, as
    // on that ABI): when an exception meets one, that phase is run but not compared.
    let with_specification = (choice == PhaseChoice::All)
        .then(|| ehir_passes::eh_abi::msvc::ignored_exception_specification(&module))
        .flatten()
        .map(|f| module.ctx.name(f).to_string());
    // The phases to run, each with the module to run it on: the input itself for its
    // own phase, else the input lowered to that phase, made just before its run and
    // dropped after it, so that at most one lowered copy is alive at a time.
    let phases: Vec<Phase> = match choice {
        PhaseChoice::AsIs => vec![input_phase],
        PhaseChoice::One(p) => vec![p],
        PhaseChoice::All => phases_from(input_phase, &abis),
    };
    // The traces of all phases are kept for the comparison: each phase's trace gets an
    // equal share of the memory budget, and a run's budget is what the traces kept so
    // far leave, so that all of them together stay within one budget.
    let mut outcomes: Vec<(Phase, RunOutcome)> = Vec::new();
    let mut kept: u64 = 0;
    for &phase in &phases {
        let lowered_module;
        let m = if phase == input_phase {
            &module
        } else if choice == PhaseChoice::All {
            // Phases the pipeline cannot reach are skipped with a warning; the others
            // are still compared.
            let mut copy = module.clone();
            if let Err(e) = ehir_pipeline::lower(&mut copy, phase) {
                eprintln!(
                    "ehir run: warning: skipping phase {}: the pipeline cannot bring the input there: {e}",
                    phase.name()
                );
                continue;
            }
            lowered_module = copy;
            &lowered_module
        } else {
            lowered_module = lowered(&source, &module, phase)?;
            &lowered_module
        };
        let mut phase_cfg = cfg.clone();
        if phases.len() > 1 {
            phase_cfg.trace_memory_limit = cfg.memory_limit / phases.len() as u64;
            phase_cfg.memory_limit = cfg.memory_limit.saturating_sub(kept);
        }
        let outcome = run_one(&source, m, &phase_cfg)?;
        kept += ehir_interp::trace_bytes(&outcome.trace);
        outcomes.push((phase, outcome));
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
    let mut compared: Vec<(Phase, &RunOutcome)> = Vec::new();
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
        if *phase == Phase::Msvc && first.abi_dependent_catch {
            eprintln!(
                "ehir run: note: phase msvc was run but not compared: a handler catches an exception the Microsoft runtime does not let it catch (a `std::nullptr_t` by a pointer handler other than `void *`)"
            );
            continue;
        }
        compared.push((*phase, o));
    }
    let verdict = verdict((*first_phase, first), &compared);
    if outcomes.len() > 1 {
        for (phase, o) in &outcomes {
            if cut_by_budget(o) {
                eprintln!(
                    "ehir run: note: phase {} was stopped by a budget; the phases were compared up to that point",
                    phase.name()
                );
            }
        }
        eprintln!("ehir run: verdict: {}", verdict.summary);
    }
    Ok(verdict.status)
}

/// What `ehir run` concludes from its runs: the exit status and, for `--phase all`, the
/// verdict line.
#[derive(Debug, PartialEq, Eq)]
struct Verdict {
    status: i32,
    summary: String,
}

/// The verdict on the first phase's run and the runs compared with it. A divergence is
/// reported (on stderr, with the first diverging event) before anything else; then a
/// run the interpreter stopped at any phase; else the program's own status.
fn verdict(first: (Phase, &RunOutcome), others: &[(Phase, &RunOutcome)]) -> Verdict {
    let (first_phase, first_run) = first;
    for &(phase, o) in others {
        if let Some((index, left, right)) = divergence(first_run, o) {
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
            return Verdict {
                status: EXIT_DIVERGENCE,
                summary: format!(
                    "phases {} and {} diverge (exit status {EXIT_DIVERGENCE})",
                    first_phase.name(),
                    phase.name()
                ),
            };
        }
    }
    let all: Vec<(Phase, &RunOutcome)> = std::iter::once(first)
        .chain(others.iter().copied())
        .collect();
    let names = |runs: &[(Phase, &RunOutcome)]| {
        runs.iter()
            .map(|(p, _)| p.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let stopped: Vec<(Phase, &RunOutcome)> = all
        .iter()
        .copied()
        .filter(|(_, o)| o.runtime_error.is_some())
        .collect();
    let stopped_by = |reason: StopReason| -> Vec<(Phase, &RunOutcome)> {
        stopped
            .iter()
            .copied()
            .filter(|(_, o)| o.runtime_error.as_ref().is_some_and(|e| e.reason == reason))
            .collect()
    };
    let unmodelled = stopped_by(StopReason::Unmodelled);
    if let Some((_, o)) = unmodelled.first() {
        let function = o
            .runtime_error
            .as_ref()
            .map(|e| e.message.split('\'').nth(1).unwrap_or_default())
            .unwrap_or_default();
        return Verdict {
            status: EXIT_STOPPED,
            summary: format!(
                "the program calls '{function}', an external function the interpreter does not model, so it cannot run further (phase(s) {}; exit status {EXIT_STOPPED})",
                names(&unmodelled)
            ),
        };
    }
    let undefined = stopped_by(StopReason::UndefinedBehaviour);
    if !undefined.is_empty() {
        // Only the reference phase's undefined behaviour gets here without a divergence.
        let missed: Vec<(Phase, &RunOutcome)> = all
            .iter()
            .copied()
            .filter(|(_, o)| o.runtime_error.is_none())
            .collect();
        let missed = if missed.is_empty() {
            String::new()
        } else {
            format!("; phase(s) {} ran past it", names(&missed))
        };
        return Verdict {
            status: EXIT_STOPPED,
            summary: format!(
                "the program has undefined behaviour, which the interpreter detected at phase(s) {}{missed}; the phases agree up to there (exit status {EXIT_STOPPED})",
                names(&undefined)
            ),
        };
    }
    if !stopped.is_empty() {
        return Verdict {
            status: EXIT_STOPPED,
            summary: format!(
                "the interpreter stopped the program on a budget at phase(s) {}; the phases agree up to there (exit status {EXIT_STOPPED})",
                names(&stopped)
            ),
        };
    }
    Verdict {
        status: first_run.exit_status,
        summary: format!(
            "phases {} agree; the program exited with status {}",
            names(&all),
            first_run.exit_status
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ehir_interp::RuntimeError;

    /// A run that printed `text` and ended with `status` (or was stopped by `error`).
    fn run(text: &str, status: i32, error: Option<(&str, bool)>) -> RunOutcome {
        let mut trace = vec![Event::Output { text: text.into() }];
        if let Some((message, _)) = error {
            trace.push(Event::Error {
                message: message.into(),
            });
        }
        trace.push(Event::Exit { status });
        RunOutcome {
            stdout: text.as_bytes().to_vec(),
            stdout_lost: Vec::new(),
            stderr: Vec::new(),
            exit_status: status,
            trace,
            steps: 1,
            peak_memory: 0,
            runtime_error: error.map(|(message, budget)| RuntimeError {
                message: message.into(),
                function: "main".into(),
                loc: ehir_core::Loc::NONE,
                exit_status: status,
                reason: if budget {
                    StopReason::Budget
                } else {
                    StopReason::UndefinedBehaviour
                },
            }),
            met_specification: false,
            abi_dependent_catch: false,
        }
    }

    #[test]
    fn verdict_statuses() {
        let two = run("a", 2, None);
        let other = run("b", 2, None);
        let agree = verdict((Phase::Structured, &two), &[(Phase::Flat, &two)]);
        assert_eq!(agree.status, 2);
        assert!(
            agree
                .summary
                .contains("agree; the program exited with status 2")
        );

        let diverge = verdict((Phase::Structured, &two), &[(Phase::Flat, &other)]);
        assert_eq!(diverge.status, EXIT_DIVERGENCE);
        assert!(
            diverge
                .summary
                .contains("phases structured and flat diverge")
        );

        // Undefined behaviour the reference phase detects: stopped, whether or not a
        // later phase detects it too.
        let ub = run("a", 3, Some(("use of &x after its scope ended", false)));
        let stopped = verdict((Phase::Structured, &ub), &[(Phase::Flat, &two)]);
        assert_eq!(stopped.status, EXIT_STOPPED);
        assert!(stopped.summary.contains(
            "undefined behaviour, which the interpreter detected at phase(s) structured; phase(s) flat ran past it"
        ));
        let both = verdict((Phase::Structured, &ub), &[(Phase::Flat, &ub)]);
        assert_eq!(both.status, EXIT_STOPPED);
        assert!(
            both.summary
                .contains("detected at phase(s) structured, flat; the phases agree")
        );

        // A later phase stopped by an error where the reference ran clean diverges.
        let late = verdict((Phase::Structured, &two), &[(Phase::Flat, &ub)]);
        assert_eq!(late.status, EXIT_DIVERGENCE);

        // Distinct from every status a program gets from the interpreter's own verdicts.
        assert_ne!(EXIT_DIVERGENCE, EXIT_STOPPED);
        assert_ne!(EXIT_DIVERGENCE, 1);
        assert_ne!(EXIT_STOPPED, ehir_interp::EXIT_ABORT);
    }
}
