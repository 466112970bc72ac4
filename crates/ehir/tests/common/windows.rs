//! Running programs for the Microsoft ABI under wine, and the Clang-for-Windows oracle:
//! the outcome of a run ([`Outcome`], also the format of the recorded expectations), the
//! shared wine prefix (`ehir_testgen::wine`), a thread pool, and the build of a C++ program by
//! `clang++-22 --target=x86_64-pc-windows-msvc` with the project's Windows headers,
//! linked by ehir's own Microsoft toolchain (the same import libraries and startup object
//! as `ehir build --abi msvc`).

use super::root;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a run printed on stdout and how it ended (a signal `n` counts as `128 + n`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub status: i32,
}

/// The text of a recorded expectation (`tests/cxx-corpus/README.md`): the line
/// `exit STATUS`, then the program's stdout exactly.
impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit {}\n{}", self.status, self.stdout)
    }
}

impl Outcome {
    /// Reads a recorded expectation written in the [`Display`](std::fmt::Display) format.
    pub fn parse(text: &str) -> Result<Outcome, String> {
        let (first, stdout) = text.split_once('\n').unwrap_or((text, ""));
        let status = first
            .strip_prefix("exit ")
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("the first line is not `exit STATUS`: {first:?}"))?;
        Ok(Outcome {
            stdout: stdout.to_string(),
            status,
        })
    }

    /// Reads the expectation file `path`, if it exists.
    pub fn read(path: &Path) -> Result<Option<Outcome>, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => Outcome::parse(&text)
                .map(Some)
                .map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }
}

use ehir_testgen::wine::{wine_command, wine_ready};

/// The `ehir build --abi msvc` configurations every CIR or C++ input is built in.
pub const MSVC_BUILDS: [(&str, &[&str]); 2] = [
    ("llc -O0", &["-O0"]),
    ("opt -O2 + llc -O2", &["-O2", "--run-opt"]),
];

/// Fails (never skips) when a tool of the Microsoft build (llc, llvm-dlltool, lld-link),
/// g++ or wine is missing.
pub fn require_msvc_tools() {
    for tool in [
        ehir_llvm::Tool::Llc,
        ehir_llvm::Tool::DllTool,
        ehir_llvm::Tool::LldLink,
        ehir_llvm::Tool::Cxx,
    ] {
        if let Err(e) = ehir_llvm::find_tool(tool, None) {
            panic!("{e}");
        }
    }
    require_wine();
}

/// Fails (never skips) when wine is missing.
pub fn require_wine() {
    assert!(
        ehir_llvm::toolchain::search_path("wine").is_some(),
        "wine not found on PATH; install the Debian packages wine and wine64"
    );
}

/// Runs a command with stdin closed and stdout piped; kills it after 60 s.
pub fn run(mut cmd: Command, what: &str) -> Result<Outcome, String> {
    use std::os::unix::process::ExitStatusExt;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().map_err(|e| format!("cannot run {what}: {e}"))?;
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout.read_to_end(&mut bytes);
        bytes
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{what} did not finish within 60 s"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let bytes = reader.join().expect("reader");
    Ok(Outcome {
        stdout: String::from_utf8_lossy(&bytes).replace('\r', ""),
        status: status
            .code()
            .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)),
    })
}

/// Runs a native executable.
pub fn run_native(exe: &Path, args: &[String]) -> Result<Outcome, String> {
    let mut cmd = Command::new(exe);
    cmd.args(args);
    run(cmd, &exe.display().to_string())
}

/// Runs a PE executable under wine; stdout with `\r` removed.
pub fn run_wine(exe: &Path, args: &[String]) -> Result<Outcome, String> {
    wine_ready();
    let mut cmd = wine_command(exe);
    cmd.args(args);
    run(cmd, &format!("wine {}", exe.display()))
}

/// Runs a command that must succeed; its output in the error otherwise.
pub fn check(mut cmd: Command, what: &str) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// `g++ -std=STD -w -O0 FLAGS ARGS -o EXE`.
pub fn gxx_std(std: &str, args: &[PathBuf], flags: &[&str], exe: &Path) -> Result<(), String> {
    let mut cmd = Command::new("g++");
    cmd.arg(format!("-std={std}"))
        .args(["-w", "-O0"])
        .args(flags)
        .args(args)
        .arg("-o")
        .arg(exe);
    check(cmd, "g++")
}

/// Runs `jobs` on a pool of threads (at most 4, fewer on smaller machines); returns the
/// results in job order.
pub fn in_parallel<J: Sync, R: Send>(jobs: &[J], work: impl Fn(&J) -> R + Sync) -> Vec<R> {
    use rayon::prelude::*;
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(2, 4);
    rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .expect("a thread pool")
        .install(|| jobs.par_iter().map(&work).collect())
}

// ---- the Clang-for-Windows oracle ------------------------------------------------------

/// The project's Windows headers, used by the oracle builds and by ehir's Clang front end.
pub fn msvc_include_dir() -> PathBuf {
    root().join("crates/ehir-clang/include/msvc")
}

/// The Clang of the oracle: `EHIR_CLANGXX`, else `clang++-22` on `PATH`.
pub fn clang_windows() -> PathBuf {
    match std::env::var_os("EHIR_CLANGXX") {
        Some(p) => PathBuf::from(p),
        None => ehir_llvm::toolchain::search_path("clang++-22").unwrap_or_else(|| {
            panic!("clang++-22 not found on PATH; install the Debian package clang-22")
        }),
    }
}

/// The flags of the oracle's compile (the same target, dialect and headers as ehir's
/// Microsoft builds of C++).
pub const CLANG_WINDOWS_FLAGS: &[&str] = &[
    "--target=x86_64-pc-windows-msvc",
    "-std=c++14",
    "-fms-extensions",
    "-fexceptions",
    "-fcxx-exceptions",
    "-fno-threadsafe-statics",
    "-nostdinc",
    "-w",
];

/// ehir's Microsoft toolchain (llc, llvm-dlltool, lld-link found as `ehir build` finds
/// them); fails (never skips) when one is missing.
pub fn msvc_toolchain() -> ehir_llvm::MsvcToolchain {
    let find = |tool| ehir_llvm::find_tool(tool, None).unwrap_or_else(|e| panic!("{e}"));
    ehir_llvm::MsvcToolchain {
        llc: find(ehir_llvm::Tool::Llc),
        opt: None,
        dlltool: find(ehir_llvm::Tool::DllTool),
        lld_link: find(ehir_llvm::Tool::LldLink),
        opt_level: 0,
    }
}

/// Builds `src` with Clang for Windows into `dir/NAME.exe`: compiled with
/// [`CLANG_WINDOWS_FLAGS`] and the project's headers, linked by [`msvc_toolchain`] with
/// ehir's import libraries and startup object.
pub fn clang_windows_build(src: &Path, dir: &Path) -> Result<PathBuf, String> {
    let name = src
        .file_stem()
        .ok_or_else(|| format!("{}: no file name", src.display()))?
        .to_string_lossy()
        .into_owned();
    let object = dir.join(format!("{name}.obj"));
    let mut cmd = Command::new(clang_windows());
    cmd.args(CLANG_WINDOWS_FLAGS)
        .arg("-isystem")
        .arg(msvc_include_dir())
        .arg("-c")
        .arg(src)
        .arg("-o")
        .arg(&object);
    check(cmd, "clang++ --target=x86_64-pc-windows-msvc")?;
    let exe = dir.join(format!("{name}.exe"));
    msvc_toolchain()
        .link(&[object], &[], &exe, dir)
        .map_err(|e| format!("linking {name}.exe: {e}"))?;
    Ok(exe)
}

/// Builds `src` with Clang for Windows and runs it under wine.
pub fn clang_windows_outcome(src: &Path) -> Result<Outcome, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let exe = clang_windows_build(src, dir.path())?;
    run_wine(&exe, &[])
}

/// `NN-name.EXT` next to the program `NN-name.cpp`.
pub fn sibling(src: &Path, extension: &str) -> PathBuf {
    src.with_extension(extension)
}
