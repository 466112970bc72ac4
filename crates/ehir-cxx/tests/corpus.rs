//! The C++ corpus (`tests/cxx/*.cpp`): every program is compiled by `g++ -std=c++14`
//! (the oracle: its stdout and exit status are the expected results, nothing is written
//! by hand) and by ehir, and the results must be byte-identical:
//!
//! * `structured`: the front end's structured CIR run by the reference interpreter;
//! * `flat`, `itanium`: the module lowered to flat and to Itanium CIR, each run by the
//!   interpreter (together with `structured`, what `ehir run --phase all` checks);
//! * `msvc`: the module lowered to MSVC CIR, run by the interpreter (the last phase of
//!   `ehir run --phase all`); a program that violates a dynamic exception specification
//!   must differ there by design (the Microsoft ABI does not enforce it), and is reported,
//!   as is one that differs where an exception meets (without violating) one;
//! * `built`: the Itanium CIR emitted as LLVM IR, compiled with `llc`, linked with g++
//!   and executed (what `ehir build` produces).
//!
//! The tests fail loudly when g++ (or llc, for `built`) is missing.

use ehir_core::Phase;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

/// What a run of a program observably did.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Observed {
    stdout: Vec<u8>,
    status: i32,
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/cxx")
}

/// The corpus programs, and the bundled example of the crate.
fn corpus() -> Vec<PathBuf> {
    let examples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in [corpus_dir(), examples] {
        files.extend(
            std::fs::read_dir(dir)
                .expect("directory exists")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "cpp")),
        );
    }
    files.sort();
    files
}

fn require_tool(name: &str) {
    let ok = Command::new(name)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "`{name}` is required by the C++ corpus tests but was not found on PATH"
    );
}

/// Runs an executable, stdin closed, stdout captured (a pipe: fully buffered, as in CI).
fn run_exe(exe: &Path) -> Observed {
    let out = Command::new(exe)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    use std::os::unix::process::ExitStatusExt;
    let status = match out.status.code() {
        Some(c) => c,
        None => 128 + out.status.signal().unwrap_or(0),
    };
    Observed {
        stdout: out.stdout,
        status,
    }
}

/// The oracle: the program built by g++.
fn gxx(src: &Path, dir: &Path) -> Observed {
    let exe = dir.join("gxx.exe");
    let out = Command::new("g++")
        .args(["-std=c++14", "-w", "-O0", "-o"])
        .arg(&exe)
        .arg(src)
        .output()
        .expect("g++ runs");
    assert!(
        out.status.success(),
        "g++ rejected {}:\n{}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    run_exe(&exe)
}

fn compile(src: &Path) -> Result<ehir_core::Module, String> {
    let text = std::fs::read_to_string(src).expect("readable");
    let name = src.to_string_lossy();
    let module = ehir_cxx::compile(&name, &text)
        .map_err(|ds| ehir_core::SourceFile::new(&name, &text).render_all(&ds))?;
    ehir_core::verifier::verify_module(&module).map_err(|ds| {
        format!(
            "structured CIR does not verify:\n{}",
            ehir_core::SourceFile::new(&name, &text).render_all(&ds)
        )
    })?;
    Ok(module)
}

fn interpret(module: &ehir_core::Module) -> Result<Observed, String> {
    run_interpreter(module).map(|(o, ..)| o)
}

/// The interpreter's run; whether an exception met a dynamic exception specification;
/// whether one was violated (`std::unexpected` was called).
fn run_interpreter(module: &ehir_core::Module) -> Result<(Observed, bool, bool), String> {
    let out = ehir_interp::run_module(module, &ehir_interp::RunConfig::default())
        .map_err(|e| format!("interpreter: {e}"))?;
    let met = out.met_specification;
    let unexpected = out
        .trace
        .iter()
        .any(|e| matches!(e, ehir_interp::Event::Unexpected { .. }));
    if let Some(e) = &out.runtime_error {
        return Err(format!(
            "interpreter runtime error: {} in {}",
            e.message, e.function
        ));
    }
    Ok((
        Observed {
            stdout: out.stdout,
            status: out.exit_status,
        },
        met,
        unexpected,
    ))
}

/// The module brought to `phase` the way `ehir build` does it: `lowering-prepare,
/// flatten-cfg` through the pass manager (verifying after each pass), then for Itanium
/// the module-level Itanium lowering (which also declares the runtime functions it
/// calls) and the verifier.
fn lowered(module: &ehir_core::Module, phase: Phase) -> Result<ehir_core::Module, String> {
    let mut m = module.clone();
    let mut pm = ehir_passes::PassManager::from_pipeline("lowering-prepare,flatten-cfg")
        .map_err(|e| e.to_string())?;
    pm.run(&mut m)
        .map_err(|e| format!("lowering to flat: {e}"))?;
    if phase == Phase::Itanium {
        ehir_passes::eh_abi::itanium::lower_module(&mut m).map_err(|ds| {
            format!(
                "eh-abi-lowering=itanium: {:?}",
                ds.0.iter().map(|d| &d.message).collect::<Vec<_>>()
            )
        })?;
        ehir_core::verifier::verify_module(&m).map_err(|ds| {
            format!(
                "Itanium CIR does not verify: {:?}",
                ds.0.iter().map(|d| &d.message).collect::<Vec<_>>()
            )
        })?;
    }
    Ok(m)
}

fn built(module: &ehir_core::Module, src: &Path, dir: &Path) -> Result<Observed, String> {
    let itanium = lowered(module, Phase::Itanium)?;
    let name = src.to_string_lossy();
    let ll = ehir_llvm::module_to_llvm_text(&itanium, &name, &ehir_llvm::EmitOptions::default())
        .map_err(|ds| {
            format!(
                "emit-llvm: {}",
                ds.0.iter()
                    .map(|d| d.message.clone())
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        })?;
    let ll_path = dir.join("ehir.ll");
    std::fs::write(&ll_path, ll).expect("writable");
    let obj = dir.join("ehir.o");
    let exe = dir.join("ehir.exe");
    let tc = ehir_llvm::Toolchain {
        llc: ehir_llvm::find_tool(ehir_llvm::Tool::Llc, None).map_err(|e| e.to_string())?,
        opt: None,
        cxx: PathBuf::from("g++"),
        opt_level: 0,
    };
    tc.compile(&ll_path, &obj, dir)
        .map_err(|e| format!("llc: {e}"))?;
    tc.link(&[obj], &[], &exe)
        .map_err(|e| format!("link: {e}"))?;
    Ok(run_exe(&exe))
}

fn show(o: &Observed) -> String {
    format!("exit {}\n{}", o.status, String::from_utf8_lossy(&o.stdout))
}

/// Which ehir path a test checks.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Mode {
    Structured,
    Flat,
    Itanium,
    Msvc,
    Built,
}

/// g++'s result for a program, computed once per test process.
fn expected(src: &Path) -> Observed {
    static CACHE: std::sync::OnceLock<Mutex<std::collections::HashMap<PathBuf, Observed>>> =
        std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(std::collections::HashMap::new()));
    if let Some(o) = cache.lock().expect("lock").get(src) {
        return o.clone();
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let o = gxx(src, dir.path());
    cache
        .lock()
        .expect("lock")
        .insert(src.to_path_buf(), o.clone());
    o
}

fn check(src: &Path, mode: Mode) -> Result<(), String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let expected = expected(src);
    let module = compile(src)?;
    let mut results: Vec<(String, Observed)> = Vec::new();
    match mode {
        Mode::Structured => results.push(("structured".into(), interpret(&module)?)),
        Mode::Flat | Mode::Itanium => {
            let phase = if mode == Mode::Flat {
                Phase::Flat
            } else {
                Phase::Itanium
            };
            let m = lowered(&module, phase)?;
            results.push((phase.name().into(), interpret(&m)?));
        }
        Mode::Msvc => {
            let mut m = module.clone();
            ehir_passes::lower_to(&mut m, Phase::Msvc).map_err(|e| e.to_string())?;
            let got = interpret(&m)?;
            let (_, met, violated) = run_interpreter(&module)?;
            if violated {
                if got == expected {
                    return Err(
                        "the program violates a dynamic exception specification, which the msvc phase does not enforce, yet its run matches g++'s: the difference is not shown"
                            .into(),
                    );
                }
                println!(
                    "{}: the msvc phase differs from g++ by design (a violated dynamic exception specification)",
                    src.display()
                );
                return Ok(());
            }
            if met && got != expected {
                println!(
                    "{}: the msvc phase differs from g++ by design (an exception meets a dynamic exception specification)",
                    src.display()
                );
                return Ok(());
            }
            results.push(("msvc".into(), got));
        }
        Mode::Built => results.push(("built".into(), built(&module, src, dir.path())?)),
    }
    for (what, got) in results {
        if got != expected {
            return Err(format!(
                "{what} differs from g++\n--- g++ ---\n{}--- ehir ({what}) ---\n{}",
                show(&expected),
                show(&got)
            ));
        }
    }
    Ok(())
}

fn run_corpus(mode: Mode, label: &str) {
    require_tool("g++");
    if mode == Mode::Built {
        assert!(
            ehir_llvm::find_tool(ehir_llvm::Tool::Llc, None).is_ok(),
            "llc (llvm-19) is required to build the corpus"
        );
    }
    let files = corpus();
    assert!(files.len() >= 60, "the corpus has {} programs", files.len());
    let next = Mutex::new(0usize);
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(4);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().expect("lock");
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some(f) = files.get(i) else { break };
                    let r = std::panic::catch_unwind(|| check(f, mode)).unwrap_or_else(|p| {
                        Err(format!(
                            "panicked: {}",
                            p.downcast_ref::<String>()
                                .cloned()
                                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                                .unwrap_or_default()
                        ))
                    });
                    if let Err(e) = r {
                        let name = f
                            .file_name()
                            .unwrap_or_default()
                            .to_string_lossy()
                            .into_owned();
                        failures.lock().expect("lock").push((name, e));
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().expect("lock");
    failures.sort();
    println!(
        "{label}: {} of {} programs match g++",
        files.len() - failures.len(),
        files.len()
    );
    if !failures.is_empty() {
        let names: Vec<&str> = failures.iter().map(|(n, _)| n.as_str()).collect();
        let details: Vec<String> = failures
            .iter()
            .map(|(n, e)| format!("=== {n}\n{e}"))
            .collect();
        panic!(
            "{label}: {} of {} programs differ from g++: {}\n{}",
            failures.len(),
            files.len(),
            names.join(", "),
            details.join("\n")
        );
    }
}

/// The mixed-object pairs of `tests/cxx/mixed`: `X.cpp` (built by ehir) and
/// `X.gxx.cpp` (built by g++).
fn mixed_pairs() -> Vec<(PathBuf, PathBuf)> {
    let dir = corpus_dir().join("mixed");
    let mut pairs: Vec<(PathBuf, PathBuf)> = std::fs::read_dir(&dir)
        .expect("tests/cxx/mixed exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            n.ends_with(".cpp") && !n.ends_with(".gxx.cpp")
        })
        .map(|p| {
            let g = p.with_extension("gxx.cpp");
            (p, g)
        })
        .collect();
    pairs.sort();
    pairs
}

/// An object built by ehir linked with one built by g++ behaves like both built by g++
/// (the program built by g++ alone is the oracle), whatever the optimization level of
/// either half.
fn check_mixed(ehir_src: &Path, gxx_src: &Path) -> Result<(), String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let oracle = dir.join("oracle.exe");
    let out = Command::new("g++")
        .args(["-std=c++14", "-w", "-O0", "-o"])
        .arg(&oracle)
        .arg(ehir_src)
        .arg(gxx_src)
        .output()
        .expect("g++ runs");
    if !out.status.success() {
        return Err(format!(
            "g++ rejected the pair:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let expected = run_exe(&oracle);
    let module = compile(ehir_src)?;
    let itanium = lowered(&module, Phase::Itanium)?;
    let name = ehir_src.to_string_lossy();
    let ll = ehir_llvm::module_to_llvm_text(&itanium, &name, &ehir_llvm::EmitOptions::default())
        .map_err(|ds| {
            format!(
                "emit-llvm: {:?}",
                ds.0.iter().map(|d| &d.message).collect::<Vec<_>>()
            )
        })?;
    let ll_path = dir.join("ehir.ll");
    std::fs::write(&ll_path, ll).expect("writable");
    let llc = ehir_llvm::find_tool(ehir_llvm::Tool::Llc, None).map_err(|e| e.to_string())?;
    let opt = ehir_llvm::find_tool(ehir_llvm::Tool::Opt, None).map_err(|e| e.to_string())?;
    // g++'s half at -O0 and -O2.
    let mut gxx_objs = Vec::new();
    for level in ["-O0", "-O2"] {
        let gxx_obj = dir.join(format!("gxx{level}.o"));
        let out = Command::new("g++")
            .args(["-std=c++14", "-w", level, "-c", "-o"])
            .arg(&gxx_obj)
            .arg(gxx_src)
            .output()
            .expect("g++ runs");
        if !out.status.success() {
            return Err(format!(
                "g++ {level} -c failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        gxx_objs.push((level, gxx_obj));
    }
    // ehir's half through `llc -O0`, `llc -O2` and `opt -O2` + `llc -O2`, each linked with
    // both of g++'s.
    let builds: [(&str, Option<PathBuf>, u8); 3] = [
        ("llc -O0", None, 0),
        ("llc -O2", None, 2),
        ("opt -O2 + llc -O2", Some(opt), 2),
    ];
    for (i, (what, opt, opt_level)) in builds.into_iter().enumerate() {
        let tc = ehir_llvm::Toolchain {
            llc: llc.clone(),
            opt,
            cxx: PathBuf::from("g++"),
            opt_level,
        };
        let ehir_obj = dir.join(format!("ehir{i}.o"));
        tc.compile(&ll_path, &ehir_obj, dir)
            .map_err(|e| format!("{what}: {e}"))?;
        for (level, gxx_obj) in &gxx_objs {
            let exe = dir.join("mixed.exe");
            tc.link(&[ehir_obj.clone(), gxx_obj.clone()], &[], &exe)
                .map_err(|e| format!("link: {e}"))?;
            let got = run_exe(&exe);
            if got != expected {
                return Err(format!(
                    "mixed build (ehir: {what}, g++ {level}) differs from g++\n--- g++ ---\n{}--- ehir + g++ ---\n{}",
                    show(&expected),
                    show(&got)
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn mixed_objects_interoperate_with_gxx() {
    require_tool("g++");
    let pairs = mixed_pairs();
    assert!(pairs.len() >= 2, "mixed-object tests missing");
    let mut failures = Vec::new();
    for (e, g) in &pairs {
        assert!(
            g.exists(),
            "{} has no g++ half {}",
            e.display(),
            g.display()
        );
        if let Err(msg) = check_mixed(e, g) {
            failures.push(format!("=== {}\n{msg}", e.display()));
        }
    }
    println!(
        "mixed: {} of {} pairs match g++",
        pairs.len() - failures.len(),
        pairs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The symbols an object file defines (`nm`), local ones included.
fn nm_defined(obj: &Path) -> std::collections::BTreeSet<String> {
    let out = Command::new("nm")
        .arg(obj)
        .output()
        .expect("nm runs (binutils)");
    assert!(out.status.success(), "nm failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let (_, kind, name) = (parts.next()?, parts.next()?, parts.next()?);
            // `n`: the COMDAT group names of constructor/destructor aliases (`C5`/`D5`).
            (kind != "U" && kind != "n" && !name.starts_with('.') && !name.ends_with(".cpp"))
                .then(|| name.to_string())
        })
        .collect()
}

#[test]
fn mangled_names_match_gxx() {
    require_tool("g++");
    let src = corpus_dir().join("mangling/names.cpp");
    let dir = tempfile::tempdir().expect("temp dir");
    let obj = dir.path().join("names.o");
    let out = Command::new("g++")
        .args(["-std=c++14", "-w", "-O0", "-c", "-o"])
        .arg(&obj)
        .arg(&src)
        .output()
        .expect("g++ runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let gxx = nm_defined(&obj);
    let module = compile(&src).expect("compiles");
    let mut ehir = std::collections::BTreeSet::new();
    for f in module.functions.values() {
        if !f.is_declaration() {
            ehir.insert(module.ctx.name(f.name).to_string());
        }
    }
    for g in module.globals.values() {
        let n = module.ctx.name(g.name);
        if !n.starts_with(".str") {
            ehir.insert(n.to_string());
        }
    }
    let only_ehir: Vec<_> = ehir.difference(&gxx).collect();
    let only_gxx: Vec<_> = gxx.difference(&ehir).collect();
    assert!(
        only_ehir.is_empty() && only_gxx.is_empty(),
        "symbols differ\nonly ehir: {only_ehir:?}\nonly g++: {only_gxx:?}"
    );
    assert!(ehir.len() >= 35, "too few symbols compared: {ehir:?}");
}

#[test]
fn corpus_structured_cir_matches_gxx() {
    run_corpus(Mode::Structured, "structured");
}

#[test]
fn corpus_flat_cir_matches_gxx() {
    run_corpus(Mode::Flat, "flat");
}

#[test]
fn corpus_itanium_cir_matches_gxx() {
    run_corpus(Mode::Itanium, "itanium");
}

#[test]
fn corpus_msvc_cir_matches_gxx() {
    run_corpus(Mode::Msvc, "msvc");
}

#[test]
fn corpus_built_executables_match_gxx() {
    run_corpus(Mode::Built, "built");
}
