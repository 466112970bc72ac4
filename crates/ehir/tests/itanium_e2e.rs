//! End to end through real LLVM and g++ (issue #5): CIR built by `ehir build` behaves
//! exactly like the same program's C++ built by g++, and the interpreter agrees.
//!
//! - Seed scenarios: the seed's C++ listing compiled by g++ with
//!   `tests/e2e/itanium/harness.cpp` (which defines `SomeClass`, `f()` and `main`, and
//!   logs every call), versus the seed's CIR built by `ehir build` with the same harness.
//!   The harness scripts throws and results through `EHIR_THROW_AT` / `EHIR_RETURNS`, in
//!   the interpreter's `--throw-at` / `--returns` spelling.
//! - Programs: `tests/e2e/itanium/programs/NAME.cir` versus `NAME.cpp`, both linked with
//!   `programs/scenario.c` (which picks the case from `EHIR_SCENARIO`).
//!
//! Every CIR is built three ways (`llc -O0`, `llc -O2`, `opt -O2` + `llc -O2`), each
//! emitted module passes `opt -passes=verify`, and stdout, stderr (the runtime's
//! terminate messages) and exit status must equal g++'s. The interpreter runs the
//! Itanium-phase module (the one that is emitted) and must produce the same calls or
//! output and exit status (and, for programs, stderr); for programs it also runs the
//! structured and flat phases.
//!
//! Nothing is skipped: a missing `llc`, `opt` or `g++` fails the tests.

mod common;

use common::*;
use ehir_core::{Module, Phase};
use ehir_interp::{Event, RunConfig, RunOutcome};
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

// ---- locations and tools ----------------------------------------------------------------

fn e2e_dir() -> PathBuf {
    root().join("tests/e2e/itanium")
}

fn tool(t: ehir_llvm::Tool) -> PathBuf {
    ehir_llvm::find_tool(t, None).unwrap_or_else(|e| panic!("{e}"))
}

// ---- running things -----------------------------------------------------------------------

/// What a native run printed and how it ended (a signal `n` counts as `128 + n`, the
/// shell's convention and the interpreter's 134 for abort).
#[derive(Debug, PartialEq)]
struct Outcome {
    stdout: String,
    status: i32,
}

/// A native run with its stderr (the runtime's terminate messages).
#[derive(Debug, PartialEq)]
struct FullOutcome {
    outcome: Outcome,
    stderr: String,
}

fn run(exe: &Path, env: &[(&str, String)]) -> FullOutcome {
    use std::os::unix::process::ExitStatusExt;
    let mut cmd = Command::new(exe);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("{} did not finish within 30 s", exe.display());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let status = status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
    FullOutcome {
        outcome: Outcome {
            stdout: reader.join().expect("reader"),
            status,
        },
        stderr: err_reader.join().expect("reader"),
    }
}

fn check(cmd: &mut Command, what: &str) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The three native builds of a CIR file.
const BUILDS: [(&str, &[&str]); 3] = [
    ("llc -O0", &["-O0"]),
    ("llc -O2", &["-O2"]),
    ("opt -O2 + llc -O2", &["-O2", "--run-opt"]),
];

/// `ehir build` of `cir` with `link` inputs, once per entry of [`BUILDS`]; also checks
/// the emitted module with `opt -passes=verify`.
fn ehir_builds(
    dir: &Path,
    cir: &Path,
    link: &[PathBuf],
    link_args: &[&str],
) -> Vec<(&'static str, PathBuf)> {
    let ll = dir.join("emitted.ll");
    check(
        Command::new(ehir())
            .arg("emit-llvm")
            .arg(cir)
            .arg("-o")
            .arg(&ll),
        &format!("ehir emit-llvm {}", cir.display()),
    );
    check(
        Command::new(tool(ehir_llvm::Tool::Opt))
            .arg("-passes=verify")
            .arg("-disable-output")
            .arg(&ll),
        "opt -passes=verify",
    );
    let mut out = Vec::new();
    for (i, (name, flags)) in BUILDS.iter().enumerate() {
        let exe = dir.join(format!("ehir-{i}"));
        let mut cmd = Command::new(ehir());
        cmd.arg("build").arg(cir).args(link).args(*flags);
        for a in link_args {
            cmd.arg(format!("--link-arg={a}"));
        }
        cmd.arg("-o").arg(&exe);
        check(&mut cmd, &format!("ehir build ({name}) {}", cir.display()));
        out.push((*name, exe));
    }
    out
}

fn gxx_build(dir: &Path, sources: &[OsString], exe_name: &str) -> PathBuf {
    let exe = dir.join(exe_name);
    check(
        Command::new(tool(ehir_llvm::Tool::Cxx))
            .args(["-std=c++14", "-w", "-O0"])
            .args(sources)
            .arg("-o")
            .arg(&exe),
        "g++",
    );
    exe
}

// ---- the interpreter --------------------------------------------------------------------------

/// The module at `phase` (structured input only needs flattening and the Itanium lowering),
/// through the same passes as `ehir build`.
fn module_at(cir: &Path, phase: Phase) -> Module {
    let text = std::fs::read_to_string(cir).expect("read cir");
    let mut module = ehir_reader::parse_module(&cir.display().to_string(), &text)
        .unwrap_or_else(|d| panic!("{}: {d}", cir.display()));
    let structured = module
        .functions
        .values()
        .any(|f| !f.is_declaration() && f.phase == Phase::Structured);
    if phase != Phase::Structured && structured {
        ehir_passes::PassManager::from_pipeline("lowering-prepare,flatten-cfg")
            .expect("pipeline")
            .run(&mut module)
            .unwrap_or_else(|e| panic!("{}: {e}", cir.display()));
    }
    if phase == Phase::Itanium {
        ehir_passes::eh_abi::itanium::lower_module(&mut module)
            .unwrap_or_else(|d| panic!("{}: {d}", cir.display()));
        ehir_core::verifier::verify_module(&module)
            .unwrap_or_else(|d| panic!("{}: {d}", cir.display()));
    }
    module
}

fn interpret(module: &Module, entry: Option<&str>, throw_at: &str, returns: &str) -> RunOutcome {
    let mut config = RunConfig {
        entry: entry.map(str::to_string),
        // The native side (scenario.c) makes stdout unbuffered.
        stdout_buffering: ehir_interp::StdoutBuffering::Unbuffered,
        ..RunConfig::default()
    };
    for spec in throw_at.split_whitespace() {
        config
            .throw_at
            .push(ehir_interp::parse_throw_spec(spec).expect("throw spec"));
    }
    for spec in returns.split_whitespace() {
        config
            .returns
            .push(ehir_interp::parse_return_spec(spec).expect("returns spec"));
    }
    ehir_interp::run_module(module, &config).expect("interpreter run")
}

/// What the seed harness prints for a run, rebuilt from the interpreter's trace: the
/// external calls, then the entry's return (`leave`) or `escape`.
fn harness_view(outcome: &RunOutcome, entry: &str) -> Outcome {
    let mut text = String::new();
    let mut depth = 0usize;
    for e in &outcome.trace {
        match e {
            Event::Enter { .. } => depth += 1,
            Event::Leave { function, value } => {
                depth = depth.saturating_sub(1);
                if depth == 0 && function == entry {
                    match value {
                        Some(v) => text.push_str(&format!("leave @{entry} = {v}\n")),
                        None => text.push_str(&format!("leave @{entry}\n")),
                    }
                }
            }
            Event::Unwind { .. } => depth = depth.saturating_sub(1),
            Event::Call { callee, .. } => text.push_str(&format!("call @{callee}\n")),
            Event::Escape { .. } => text.push_str("escape\n"),
            _ => {}
        }
    }
    Outcome {
        stdout: text,
        status: outcome.exit_status,
    }
}

fn full_view(outcome: &RunOutcome) -> FullOutcome {
    FullOutcome {
        outcome: Outcome {
            stdout: String::from_utf8_lossy(&outcome.stdout).into_owned(),
            status: outcome.exit_status,
        },
        stderr: String::from_utf8_lossy(&outcome.stderr).into_owned(),
    }
}

// ---- seed scenarios ----------------------------------------------------------------------------

impl Entry {
    fn symbol(self) -> &'static str {
        match self {
            Entry::Void | Entry::Int => "someFunc",
            Entry::Derived => "_ZN7DerivedC2Ev",
        }
    }
}

/// Builds the seed's C++ and CIR with the harness and compares every scripted run, and
/// the interpreter on the Itanium-phase module.
fn seed_case(cir: PathBuf, cpp: PathBuf, entry: Entry, runs: &[Script]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let dir = dir.path();
    let harness = e2e_dir().join("harness.cpp");
    let header = e2e_dir().join("harness.h");
    // The CIR with the record of SomeClass declared.
    let cir_text = std::fs::read_to_string(&cir).expect("read cir");
    let prelude = if cir_text.contains("!rec_SomeClass") && !cir_text.contains("!rec_SomeClass =") {
        SOMECLASS_RECORD
    } else {
        ""
    };
    let cir_file = dir.join("seed.cir");
    std::fs::write(&cir_file, format!("{prelude}{cir_text}")).expect("write cir");
    // The C++: the listing, plus a use of Derived's inline constructor so g++ emits it.
    let mut wrapper = format!("#include \"{}\"\n", cpp.display());
    if let Entry::Derived = entry {
        wrapper.push_str(
            "#include <new>\nvoid *ehir_force_derived_ctor(void *p) { return new (p) Derived(); }\n",
        );
    }
    let wrapper_file = dir.join("seed.cpp");
    std::fs::write(&wrapper_file, wrapper).expect("write wrapper");
    let mut gxx_sources: Vec<OsString> = vec!["-include".into(), header.into_os_string()];
    gxx_sources.extend(entry.define().iter().map(OsString::from));
    gxx_sources.push(wrapper_file.into_os_string());
    gxx_sources.push(harness.clone().into_os_string());
    let reference = gxx_build(dir, &gxx_sources, "gxx");
    let link_args: Vec<&str> = entry.define().to_vec();
    let builds = ehir_builds(dir, &cir_file, &[harness], &link_args);
    let module = module_at(&cir_file, Phase::Itanium);
    for &(throw_at, returns) in runs {
        let env = [
            ("EHIR_THROW_AT", throw_at.to_string()),
            ("EHIR_RETURNS", returns.to_string()),
        ];
        let expected = run(&reference, &env);
        for (name, exe) in &builds {
            let got = run(exe, &env);
            assert_eq!(
                got,
                expected,
                "{} ({name}) vs g++ {}, throw-at [{throw_at}] returns [{returns}]",
                cir.display(),
                cpp.display()
            );
        }
        let interp = harness_view(
            &interpret(&module, Some(entry.symbol()), throw_at, returns),
            entry.symbol(),
        );
        assert_eq!(
            interp,
            expected.outcome,
            "interpreter (itanium phase) on {} vs native, throw-at [{throw_at}] returns [{returns}]",
            cir.display()
        );
    }
}

fn own_seed(name: &str) -> PathBuf {
    e2e_dir().join("seeds").join(name)
}

// Automatic storage object cleanup (C++ 02/27).
#[test]
fn seed_28_cleanup_with_unhandled_exception() {
    seed_case(seed("28"), seed_cpp("27"), Entry::Void, SOMECLASS_RUNS);
}

#[test]
fn seed_29_cleanup_with_unhandled_exception_flattened() {
    seed_case(seed("29"), seed_cpp("27"), Entry::Void, SOMECLASS_RUNS);
}

/// Listing 03 marks the destructor `cleanup normal`, so when doSomething() throws the
/// CIR (correctly, per the op's definition) skips it while the C++ runs it; the other
/// runs must agree. The corrected copy (`cleanup all`) agrees on all of them.
#[test]
fn seed_03_automatic_storage_object_cleanup() {
    seed_case(
        seed("03"),
        seed_cpp("02"),
        Entry::Void,
        &[NO_THROW, CTOR_THROWS, DTOR_THROWS],
    );
    seed_case(
        own_seed("03-cleanup-all.cir"),
        seed_cpp("02"),
        Entry::Void,
        SOMECLASS_RUNS,
    );
}

const MULTIPLE_OBJECTS_RUNS: &[Script] = &[
    NO_THROW,
    DO_SOMETHING_THROWS,
    ("@_ZN9SomeClass11doSomethingEv#2=int:7", ""),
    ("@_ZN9SomeClassC1Ev#2=int:1", ""),
    ("@_ZN9SomeClassC1Ev#3=int:1", ""),
    DTOR_THROWS,
    ("@_ZN9SomeClassD1Ev#3=int:2", ""),
];

/// Listing 05: `cleanup normal` again (see listing 03); only runs that unwind through
/// no constructed object agree, the corrected copy agrees on all.
#[test]
fn seed_05_multiple_automatic_objects() {
    seed_case(
        seed("05"),
        seed_cpp("04"),
        Entry::Void,
        &[NO_THROW, CTOR_THROWS, ("@_ZN9SomeClassD1Ev#3=int:2", "")],
    );
    seed_case(
        own_seed("05-cleanup-all.cir"),
        seed_cpp("04"),
        Entry::Void,
        MULTIPLE_OBJECTS_RUNS,
    );
}

/// `get()` returns 5 then 7: two iterations, then `break` at i == 7.
const GET_RETURNS: &str = "@_ZN9SomeClass3getEv=5,7";
const LOOP_RUNS: &[Script] = &[
    ("", GET_RETURNS),
    ("@_ZN9SomeClass3getEv#2=int:4", GET_RETURNS),
    ("@_ZN9SomeClassC1Ev#2=int:1", GET_RETURNS),
    ("@_ZN9SomeClassD1Ev=int:2", GET_RETURNS),
    ("@_ZN9SomeClassD1Ev#3=int:2", GET_RETURNS),
    ("", "@_ZN9SomeClass3getEv=2,4,6,7"),
];

/// Listing 07 (branch through cleanup) has `cleanup normal`: a throwing get() skips the
/// destructor there; listing 31 (`cleanup all`) is the same function done right.
#[test]
fn seed_07_branch_through_cleanup() {
    let runs: Vec<Script> = LOOP_RUNS
        .iter()
        .copied()
        .filter(|(t, _)| !t.contains("getEv"))
        .collect();
    seed_case(seed("07"), seed_cpp("06"), Entry::Int, &runs);
}

#[test]
fn seed_31_shared_cleanups() {
    seed_case(seed("31"), seed_cpp("30"), Entry::Int, LOOP_RUNS);
}

/// Listing 32 is the flattened form "shown without exception handling": a throwing
/// get() does not run the destructor there, so those runs are left out.
#[test]
fn seed_32_shared_cleanups_flattened() {
    let runs: Vec<Script> = LOOP_RUNS
        .iter()
        .copied()
        .filter(|(t, _)| !t.contains("getEv"))
        .collect();
    seed_case(seed("32"), seed_cpp("30"), Entry::Int, &runs);
}

#[test]
fn seed_09_eh_only_cleanup() {
    seed_case(
        seed("09"),
        seed_cpp("08"),
        Entry::Derived,
        &[
            NO_THROW,
            ("@_Z1fv=std::exception", ""),
            ("@_Z1fv=int:5", ""),
            ("@_ZN4BaseC2Ev=int:1", ""),
        ],
    );
}

const F_RUNS: &[Script] = &[
    NO_THROW,
    ("@_Z1fv=std::exception", ""),
    ("@_Z1fv=int:3", ""),
    ("@_Z1fv=double:1.5", ""),
];

#[test]
fn seed_12_simple_try_catch() {
    seed_case(seed("12"), seed_cpp("11"), Entry::Void, F_RUNS);
}

#[test]
fn seed_14_try_catch_with_catch_all() {
    seed_case(seed("14"), seed_cpp("13"), Entry::Void, F_RUNS);
}

#[test]
fn seed_16_try_catch_with_cleanup() {
    seed_case(seed("16"), seed_cpp("15"), Entry::Void, SOMECLASS_RUNS);
}

#[test]
fn seed_25_try_catch_with_cleanup() {
    seed_case(seed("25"), seed_cpp("24"), Entry::Void, SOMECLASS_RUNS);
}

/// The flat listings 26 and 33 (and the Itanium listing 34 made from them) destroy `c`
/// on the normal path with a plain `cir.call` inside the try region, so a throwing
/// destructor escapes them while the C++ catches it; that run is left out.
#[test]
fn seed_26_33_34_try_catch_with_cleanup_flat_and_itanium() {
    let runs = &[NO_THROW, DO_SOMETHING_THROWS, CTOR_THROWS];
    seed_case(seed("26"), seed_cpp("24"), Entry::Void, runs);
    seed_case(seed("33"), seed_cpp("24"), Entry::Void, runs);
    seed_case(corrected("34"), seed_cpp("24"), Entry::Void, runs);
}

#[test]
fn seed_18_try_catch_within_a_cleanup_region() {
    seed_case(
        seed("18"),
        seed_cpp("17"),
        Entry::Void,
        &[
            NO_THROW,
            ("@_ZN9SomeClass11doSomethingEv=std::exception", ""),
            DO_SOMETHING_THROWS,
            CTOR_THROWS,
            DTOR_THROWS,
        ],
    );
}

#[test]
fn seed_35_36_multiple_catch_handlers() {
    let runs = &[
        NO_THROW,
        ("@f=int:1", ""),
        ("@f=float:2.5", ""),
        ("@f=double:3", ""),
    ];
    let cpp = own_seed("multiple-catch-handlers.cpp");
    seed_case(corrected("35"), cpp.clone(), Entry::Void, runs);
    seed_case(corrected("36"), cpp, Entry::Void, runs);
}

// ---- ehir's own programs -----------------------------------------------------------------------

/// Interpreter runs known to differ from g++: (program, scenario, phase). Each entry is
/// asserted to still differ, so the list shrinks when the interpreter is fixed. Empty:
/// the interpreter follows libstdc++ at noexcept boundaries
/// (`docs/notes/noexcept-gxx-behaviour.md`).
const KNOWN_INTERP_DIVERGENCES: &[(&str, i32, Phase)] = &[];

fn program_case(name: &str, scenarios: &[i32]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let dir = dir.path();
    let programs = e2e_dir().join("programs");
    let cir = programs.join(format!("{name}.cir"));
    let scenario_c = programs.join("scenario.c");
    let reference = gxx_build(
        dir,
        &[
            programs.join(format!("{name}.cpp")).into_os_string(),
            "-x".into(),
            "c".into(),
            scenario_c.clone().into_os_string(),
            "-x".into(),
            "none".into(),
        ],
        "gxx",
    );
    let builds = ehir_builds(dir, &cir, &[scenario_c], &[]);
    let modules: Vec<(Phase, Module)> = [Phase::Structured, Phase::Flat, Phase::Itanium]
        .into_iter()
        .map(|p| (p, module_at(&cir, p)))
        .collect();
    let cases: Vec<Option<i32>> = if scenarios.is_empty() {
        vec![None]
    } else {
        scenarios.iter().map(|&s| Some(s)).collect()
    };
    for case in cases {
        let env: Vec<(&str, String)> = case
            .map(|s| vec![("EHIR_SCENARIO", s.to_string())])
            .unwrap_or_default();
        let expected = run(&reference, &env);
        for (build, exe) in &builds {
            assert_eq!(
                run(exe, &env),
                expected,
                "{name} scenario {case:?}: ehir build ({build}) vs g++"
            );
        }
        let returns = case.map(|s| format!("@scenario={s}")).unwrap_or_default();
        for (phase, module) in &modules {
            let got = full_view(&interpret(module, None, "", &returns));
            let known = KNOWN_INTERP_DIVERGENCES
                .iter()
                .any(|&(n, s, p)| n == name && Some(s) == case && p == *phase);
            if known {
                assert_ne!(
                    got,
                    expected,
                    "{name} scenario {case:?}: the interpreter at the {} phase now agrees with g++; remove it from KNOWN_INTERP_DIVERGENCES",
                    phase.name()
                );
            } else {
                assert_eq!(
                    got,
                    expected,
                    "{name} scenario {case:?}: interpreter at the {} phase vs native",
                    phase.name()
                );
            }
        }
    }
}

#[test]
fn program_cleanups() {
    program_case("cleanups", &[]);
}

#[test]
fn program_catches() {
    program_case("catches", &[]);
}

#[test]
fn program_handlers() {
    program_case("handlers", &[]);
}

#[test]
fn program_arrays() {
    program_case("arrays", &[]);
}

#[test]
fn program_noexcept() {
    program_case("noexcept", &[0, 1, 2, 3]);
}

#[test]
fn program_exception_spec() {
    program_case("exception-spec", &[0, 1, 2, 3]);
}
