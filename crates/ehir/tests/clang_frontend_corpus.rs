//! The C++ corpus (`tests/cxx/*.cpp`, `examples/*.cpp` and `tests/cxx-corpus/*.cpp`)
//! through the C++ front end (Clang's AST, `ehir-clang`) on x86-64 Linux: each program's
//! stdout and exit status under `ehir run --phase all` (the structured, flat and itanium
//! phases must agree) and from the executable `ehir build` makes (Itanium, linked by g++)
//! must equal g++'s, the oracle (nothing is written by hand): for `tests/cxx` and
//! `examples`, g++ `-std=c++14` runs each time; for `tests/cxx-corpus`, g++'s recorded
//! outcome (`NN-name.expected`, made by its `regenerate.sh` with `-std=c++17`, the dialect
//! the front end then compiles in). (The msvc phase of the interpreter is checked
//! against Clang for Windows by `clang_msvc_e2e.rs`.)
//!
//! The programs expected to pass are listed in `clang_frontend_passing.txt`: one that
//! fails is a regression (the test fails and says why); one that passes without being
//! listed is reported (and fails the test too, so that the list is kept exact).
//!
//! Also here: objects ehir builds interoperate with g++'s (`tests/cxx/mixed`: each
//! `X.cpp` built by ehir and linked with `X.gxx.cpp` built by g++, at every optimization
//! level of either half, behaves as both built by g++), and the symbols ehir defines for
//! `tests/cxx/mangling/names.cpp` are g++'s.
//!
//! Needs `clang++-22` (or `$EHIR_CLANG`), g++ and llc-19; fails loudly without them.

mod common;

use common::windows::check as succeed;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What a program run observably did.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Observed {
    stdout: String,
    status: i32,
}

fn observe(output: std::process::Output) -> Observed {
    use std::os::unix::process::ExitStatusExt;
    let status = output
        .status
        .code()
        .unwrap_or_else(|| 128 + output.status.signal().unwrap_or(0));
    Observed {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        status,
    }
}

fn run_exe(exe: &Path) -> Observed {
    let output = Command::new(exe)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    observe(output)
}

/// The corpus whose g++ outcomes are recorded next to each program (`NN-name.expected`).
const RECORDED_CORPUS: &str = "tests/cxx-corpus";

/// Whether `src` belongs to the recorded corpus.
fn is_recorded(src: &Path) -> bool {
    src.parent()
        .is_some_and(|dir| dir.ends_with(RECORDED_CORPUS))
}

/// g++'s recorded outcome of a `tests/cxx-corpus` program: its `.expected` file's first
/// line is `exit STATUS`, the rest is stdout byte for byte.
fn recorded_outcome(src: &Path) -> Observed {
    let path = src.with_extension("expected");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let (first, stdout) = text.split_once('\n').unwrap_or((text.as_str(), ""));
    let status = first
        .strip_prefix("exit ")
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("{}: first line is not 'exit STATUS'", path.display()));
    Observed {
        stdout: stdout.to_string(),
        status,
    }
}

/// g++'s outcome of `src`, compiled and run now (`-std=c++14`).
fn gxx_outcome(src: &Path, dir: &Path) -> Observed {
    let gxx = dir.join("gxx.exe");
    let out = Command::new("g++")
        .args(["-std=c++14", "-w", "-O0", "-o"])
        .arg(&gxx)
        .arg(src)
        .output()
        .expect("g++ runs");
    assert!(out.status.success(), "g++ rejected {}", src.display());
    run_exe(&gxx)
}

fn programs() -> Vec<PathBuf> {
    let root = common::root();
    let mut files = Vec::new();
    for dir in ["tests/cxx", "examples", RECORDED_CORPUS] {
        files.extend(
            std::fs::read_dir(root.join(dir))
                .expect("directory exists")
                .map(|e| e.expect("entry").path())
                .filter(|p| p.extension().is_some_and(|e| e == "cpp")),
        );
    }
    files.sort();
    files
}

fn name(path: &Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

/// Why a program fails, or `Ok` when both paths match g++.
fn check(src: &Path) -> Result<(), String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let (expected, dialect) = if is_recorded(src) {
        (recorded_outcome(src), "--std=c++17")
    } else {
        (gxx_outcome(src, dir.path()), "--std=c++14")
    };
    let run = Command::new(common::ehir())
        .arg(dialect)
        .args(["run", "--phase", "all"])
        .arg(src)
        .stdin(Stdio::null())
        .output()
        .expect("ehir runs");
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    let interpreted = observe(run);
    if interpreted != expected {
        return Err(format!(
            "ehir run --phase all: {:?}, g++: {:?}\n{}",
            interpreted,
            expected,
            stderr.lines().take(3).collect::<Vec<_>>().join("\n")
        ));
    }
    let exe = dir.path().join("ehir.exe");
    let build = Command::new(common::ehir())
        .arg(dialect)
        .arg("build")
        .arg(src)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("ehir runs");
    if !build.status.success() {
        return Err(format!(
            "ehir build: {}",
            String::from_utf8_lossy(&build.stderr)
                .lines()
                .next()
                .unwrap_or("")
        ));
    }
    let native = run_exe(&exe);
    if native != expected {
        return Err(format!("ehir build: {native:?}, g++: {expected:?}"));
    }
    Ok(())
}

#[test]
fn the_corpus_through_the_clang_front_end_matches_gxx() {
    let listed: Vec<String> = include_str!("clang_frontend_passing.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    let programs = programs();
    for name in &listed {
        assert!(
            programs.iter().any(|p| &self::name(p) == name),
            "clang_frontend_passing.txt lists '{name}', which is not a corpus program"
        );
    }
    let results: Vec<(String, Result<(), String>)> =
        programs.par_iter().map(|p| (name(p), check(p))).collect();
    let passed = results.iter().filter(|(_, r)| r.is_ok()).count();
    println!(
        "clang front end: {passed} of {} programs pass",
        results.len()
    );
    let mut problems = Vec::new();
    for (name, result) in &results {
        match (result, listed.contains(name)) {
            (Err(why), true) => problems.push(format!("REGRESSION {name}: {why}")),
            (Ok(()), false) => problems.push(format!(
                "UNEXPECTED PASS {name}: add it to clang_frontend_passing.txt"
            )),
            (Err(why), false) => println!("expected failure {name}: {why}"),
            (Ok(()), true) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---- objects built by ehir and by g++ in one program ---------------------------------------

/// The mixed-object pairs of `tests/cxx/mixed`: `X.cpp` (built by ehir) and
/// `X.gxx.cpp` (built by g++).
fn mixed_pairs() -> Vec<(PathBuf, PathBuf)> {
    let dir = common::root().join("tests/cxx/mixed");
    let mut pairs: Vec<(PathBuf, PathBuf)> = std::fs::read_dir(&dir)
        .expect("tests/cxx/mixed exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.ends_with(".cpp") && !name.ends_with(".gxx.cpp")
        })
        .map(|p| {
            let gxx = p.with_extension("gxx.cpp");
            (p, gxx)
        })
        .collect();
    pairs.sort();
    pairs
}

/// ehir's object of `ehir_src` (`ehir build -c` at `llc -O0`, `llc -O2`, `opt -O2` +
/// `llc -O2`) linked with g++'s of `gxx_src` (`-O0`, `-O2`) behaves as both built by g++.
fn check_mixed(ehir_src: &Path, gxx_src: &Path) -> Result<(), String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let oracle = dir.join("oracle.exe");
    let mut oracle_build = Command::new("g++");
    oracle_build
        .args(["-std=c++14", "-w", "-O0", "-o"])
        .arg(&oracle)
        .arg(ehir_src)
        .arg(gxx_src);
    succeed(oracle_build, "g++ (the oracle)")?;
    let expected = run_exe(&oracle);
    let mut gxx_objects = Vec::new();
    for level in ["-O0", "-O2"] {
        let object = dir.join(format!("gxx{level}.o"));
        let mut compile = Command::new("g++");
        compile
            .args(["-std=c++14", "-w", level, "-c", "-o"])
            .arg(&object)
            .arg(gxx_src);
        succeed(compile, &format!("g++ {level} -c"))?;
        gxx_objects.push((level, object));
    }
    let builds: [(&str, &[&str]); 3] = [
        ("llc -O0", &["-O", "0"]),
        ("llc -O2", &["-O", "2"]),
        ("opt -O2 + llc -O2", &["-O", "2", "--run-opt"]),
    ];
    for (index, (what, flags)) in builds.into_iter().enumerate() {
        let object = dir.join(format!("ehir{index}.o"));
        let mut build = Command::new(common::ehir());
        build
            .args(["--std=c++14", "build", "-c"])
            .args(flags)
            .arg(ehir_src)
            .arg("-o")
            .arg(&object);
        succeed(build, &format!("ehir build -c ({what})"))?;
        for (level, gxx_object) in &gxx_objects {
            let exe = dir.join(format!("mixed{index}{level}.exe"));
            let mut link = Command::new("g++");
            link.arg("-o").arg(&exe).arg(&object).arg(gxx_object);
            succeed(link, "the link (g++)")?;
            let got = run_exe(&exe);
            if got != expected {
                return Err(format!(
                    "ehir ({what}) + g++ {level}: {got:?}, g++ alone: {expected:?}"
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn mixed_objects_interoperate_with_gxx() {
    let pairs = mixed_pairs();
    assert!(pairs.len() >= 4, "mixed-object tests missing: {pairs:?}");
    let failures: Vec<String> = pairs
        .par_iter()
        .filter_map(|(ehir_src, gxx_src)| {
            assert!(
                gxx_src.exists(),
                "{} has no g++ half {}",
                ehir_src.display(),
                gxx_src.display()
            );
            check_mixed(ehir_src, gxx_src)
                .err()
                .map(|e| format!("=== {}\n{e}", ehir_src.display()))
        })
        .collect();
    println!(
        "mixed: {} of {} pairs behave as g++ alone",
        pairs.len() - failures.len(),
        pairs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---- symbol names --------------------------------------------------------------------------

/// The symbols an object file defines (`nm`), local ones included, without the EH
/// machinery's (`DW.ref.__gxx_personality_v0`, `GCC_except_table*`, which g++ keeps as
/// assembler-local labels) and COMDAT group names (`n`: g++'s `C5`/`D5`).
fn nm_defined(object: &Path) -> std::collections::BTreeSet<String> {
    let out = Command::new("nm")
        .arg(object)
        .output()
        .expect("nm runs (binutils)");
    assert!(out.status.success(), "nm failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let mut parts = line.split_whitespace();
            let (_, kind, name) = (parts.next()?, parts.next()?, parts.next()?);
            (kind != "U"
                && kind != "n"
                && !name.starts_with('.')
                && !name.starts_with("DW.ref.")
                && !name.starts_with("GCC_except_table"))
            .then(|| name.to_string())
        })
        .collect()
}

/// Symbols g++ defines for `names.cpp` that ehir does not yet, each with the reason; the
/// test fails when one of them appears, so that the list stays exact.
const NOT_YET_DEFINED: &[(&str, &str)] = &[
    (
        "_ZN5PointC2ERKS_",
        "base-object constructors and destructors (C2, D2) are not emitted: the front end calls the complete-object variant (C1, D1) for base subobjects too",
    ),
    ("_ZN5PointC2Eii", "C2: as above"),
    ("_ZN5PointC2Ev", "C2: as above"),
    ("_ZN5PointD2Ev", "D2: as above"),
    ("_ZN7DerivedC2Ei", "C2: as above"),
    ("_ZN7DerivedD2Ev", "D2: as above"),
];

#[test]
fn symbol_names_match_gxx() {
    let src = common::root().join("tests/cxx/mangling/names.cpp");
    let dir = tempfile::tempdir().expect("temp dir");
    let gxx_object = dir.path().join("gxx.o");
    let mut gxx_compile = Command::new("g++");
    gxx_compile
        .args(["-std=c++14", "-w", "-O0", "-c", "-o"])
        .arg(&gxx_object)
        .arg(&src);
    succeed(gxx_compile, "g++ -c").unwrap_or_else(|e| panic!("{e}"));
    let ehir_object = dir.path().join("ehir.o");
    let mut ehir_compile = Command::new(common::ehir());
    ehir_compile
        .args(["--std=c++14", "build", "-c"])
        .arg(&src)
        .arg("-o")
        .arg(&ehir_object);
    succeed(ehir_compile, "ehir build -c").unwrap_or_else(|e| panic!("{e}"));
    let gxx = nm_defined(&gxx_object);
    let ehir = nm_defined(&ehir_object);
    let only_ehir: Vec<&String> = ehir.difference(&gxx).collect();
    let missing: Vec<&String> = gxx
        .difference(&ehir)
        .filter(|name| !NOT_YET_DEFINED.iter().any(|(known, _)| known == name))
        .collect();
    let now_defined: Vec<&str> = NOT_YET_DEFINED
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| ehir.contains(*name))
        .collect();
    assert!(
        only_ehir.is_empty() && missing.is_empty() && now_defined.is_empty(),
        "symbols differ\nonly ehir: {only_ehir:?}\nonly g++: {missing:?}\nNOT_YET_DEFINED lists symbols ehir now defines (remove them): {now_defined:?}"
    );
    for (name, _) in NOT_YET_DEFINED {
        assert!(gxx.contains(*name), "g++ does not define {name}");
    }
    assert!(ehir.len() >= 30, "too few symbols compared: {ehir:?}");
}
