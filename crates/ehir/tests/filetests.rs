//! The file-test runner: every `.cir`/`.cpp` file under `tests/filetests/` is a test whose
//! `RUN:` lines are run with `bash -o pipefail` (lit-style substitutions `%ehir`, `%s`, `%S`,
//! `%t`) and must all exit 0. LLVM 19's `FileCheck` and `not` are on the PATH; a missing
//! LLVM is a failure, not a skip.

use datatest_stable::Utf8Path;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root exists")
}

/// LLVM 19's bin directory (`FileCheck`, `not`): `EHIR_LLVM_BINDIR` or `llvm-config-19 --bindir`.
fn llvm_bindir() -> Result<&'static PathBuf, String> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| {
        if let Ok(d) = std::env::var("EHIR_LLVM_BINDIR") {
            return Ok(PathBuf::from(d));
        }
        let out = Command::new("llvm-config-19")
            .arg("--bindir")
            .output()
            .map_err(|e| {
                format!("cannot run llvm-config-19 ({e}); install the Debian packages llvm-19 and llvm-19-tools")
            })?;
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if !dir.join("FileCheck").exists() {
            return Err(format!(
                "FileCheck not found in {}; install the Debian package llvm-19-tools",
                dir.display()
            ));
        }
        Ok(dir)
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// The RUN lines of a test file, with `\` continuations joined.
fn run_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending: Option<String> = None;
    for line in text.lines() {
        let Some(pos) = line.find("RUN:") else {
            continue;
        };
        let body = line[pos + 4..].trim();
        let (body, continues) = match body.strip_suffix('\\') {
            Some(b) => (b.trim_end(), true),
            None => (body, false),
        };
        let cmd = match pending.take() {
            Some(mut p) => {
                p.push(' ');
                p.push_str(body);
                p
            }
            None => body.to_string(),
        };
        if continues {
            pending = Some(cmd);
        } else {
            out.push(cmd);
        }
    }
    out.extend(pending);
    out
}

fn run_file(path: &Utf8Path, text: String) -> datatest_stable::Result<()> {
    let root = workspace_root();
    let file = root.join("tests/filetests").join(path.as_std_path());
    let file = if file.exists() {
        file
    } else {
        path.as_std_path().canonicalize()?
    };
    let dir = file.parent().expect("file has a directory").to_path_buf();
    let lines = run_lines(&text);
    if lines.is_empty() {
        return Err(format!("{}: no RUN lines", file.display()).into());
    }
    let bindir = llvm_bindir()?;
    let tmp = tempfile::tempdir()?;
    let path_env = format!(
        "{}:{}",
        bindir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // As in lit, `%t` names the same temporary path on every RUN line of a file.
    let t = tmp.path().join("t");
    for line in &lines {
        let cmd = line
            .replace("%ehir", env!("CARGO_BIN_EXE_ehir"))
            .replace("%S", &dir.display().to_string())
            .replace("%s", &file.display().to_string())
            .replace("%t", &t.display().to_string());
        let out = Command::new("bash")
            .arg("-o")
            .arg("pipefail")
            .arg("-c")
            .arg(&cmd)
            .current_dir(&root)
            .env("PATH", &path_env)
            .output()?;
        if !out.status.success() {
            return Err(format!(
                "RUN line failed ({}):\n  {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
                out.status,
                line,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
    }
    Ok(())
}

datatest_stable::harness! {
    { test = run_file, root = "../../tests/filetests", pattern = r"\.(cir|cpp)$" },
}
