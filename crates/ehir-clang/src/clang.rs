//! Running Clang: finding the executable, the command line for an EH ABI, and turning
//! Clang's own diagnostics into ehir's.

use ehir_core::abi::EhAbi;
use ehir_core::{Diagnostic, Loc};
use ehir_llvm::toolchain::resolve_executable;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable that names the Clang to run.
pub const CLANG_VARIABLE: &str = "EHIR_CLANG";

/// The executables tried, in order, when neither the option nor the variable names one.
pub const CLANG_CANDIDATES: &[&str] = &["clang++-22", "clang++"];

/// The Debian package that provides the default Clang.
pub const CLANG_PACKAGE: &str = "clang-22";

/// What to run Clang with.
#[derive(Clone, Debug, Default)]
pub struct ClangOptions {
    /// The Clang executable; `None`: `$EHIR_CLANG`, then [`CLANG_CANDIDATES`] on `PATH`.
    pub clang: Option<PathBuf>,
    /// `-I` directories.
    pub include_dirs: Vec<String>,
    /// `-D` macro definitions (`NAME` or `NAME=VALUE`).
    pub defines: Vec<String>,
    /// `-std=` value (`c++17`); Clang's default when `None`.
    pub std: Option<String>,
    /// For the Microsoft ABI: the directory of the Windows headers, passed as
    /// `-nostdinc -isystem DIR`; `None`: the headers embedded in ehir
    /// ([`crate::headers`]), written to a temporary directory once per run.
    pub msvc_include_dir: Option<PathBuf>,
}

/// The C++ standard Clang compiles for, as far as code generation depends on it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Standard {
    /// C++98 to C++14: `throw()` is a dynamic exception specification.
    Cxx14OrEarlier,
    /// C++17 and later: `throw()` means `noexcept` (and `throw(T...)` is an error).
    Cxx17OrLater,
}

impl ClangOptions {
    /// The standard of [`ClangOptions::std`] (`c++14`, `gnu++1z`, `c++2a`, ...); without
    /// one, Clang's default (C++17 since Clang 16).
    pub fn standard(&self) -> Standard {
        let Some(std) = &self.std else {
            return Standard::Cxx17OrLater;
        };
        let version = std.rsplit("++").next().unwrap_or_default();
        if std.contains("++") && ["98", "03", "0x", "11", "1y", "14"].contains(&version) {
            Standard::Cxx14OrEarlier
        } else {
            Standard::Cxx17OrLater
        }
    }
}

/// Errors running Clang.
#[derive(Debug, thiserror::Error)]
pub enum ClangError {
    /// No Clang was found.
    #[error(
        "cannot find Clang: install the `{CLANG_PACKAGE}` package (clang++-22), or name the executable with {CLANG_VARIABLE}=PATH{0}"
    )]
    NotFound(String),
    /// Clang could not be started.
    #[error("cannot run Clang `{0}`: {1}")]
    Spawn(String, std::io::Error),
    /// Clang rejected the program; its diagnostics.
    #[error("Clang rejected the program")]
    Rejected(Vec<Diagnostic>),
    /// Clang failed without a diagnostic ehir understood.
    #[error("Clang failed ({0}): {1}")]
    Failed(String, String),
}

/// The target triple of an EH ABI.
pub fn target_triple(abi: EhAbi) -> &'static str {
    match abi {
        EhAbi::Itanium => "x86_64-linux-gnu",
        EhAbi::Msvc => "x86_64-pc-windows-msvc",
    }
}

/// Finds the Clang to run: `explicit`, then `$EHIR_CLANG`, then [`CLANG_CANDIDATES`] on
/// `PATH` (an executable file; Clang is not started to find it, which would cost as much
/// as a small compile).
pub fn find_clang(explicit: Option<&Path>) -> Result<PathBuf, ClangError> {
    let named = |path: PathBuf, by: String| {
        resolve_executable(&path).ok_or_else(|| {
            ClangError::NotFound(format!(
                " ({by}`{}` does not exist or is not executable)",
                path.display()
            ))
        })
    };
    if let Some(path) = explicit {
        return named(path.to_path_buf(), String::new());
    }
    if let Some(value) = std::env::var_os(CLANG_VARIABLE).filter(|v| !v.is_empty()) {
        return named(PathBuf::from(value), format!("{CLANG_VARIABLE}="));
    }
    CLANG_CANDIDATES
        .iter()
        .find_map(|name| resolve_executable(Path::new(name)))
        .ok_or_else(|| ClangError::NotFound(String::new()))
}

/// The arguments of the AST dump of `source` for `abi`.
pub fn ast_dump_args(source: &Path, abi: EhAbi, options: &ClangOptions) -> Vec<String> {
    let mut args: Vec<String> = [
        "-fsyntax-only",
        "-Xclang",
        "-ast-dump=json",
        "-fexceptions",
        "-fcxx-exceptions",
        "-fno-color-diagnostics",
        "-fno-caret-diagnostics",
        "-w",
        // `register` in C++17 is an error in Clang (a warning that defaults to one), a
        // warning in g++: accepted, as g++ does.
        "-Wno-register",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(format!("--target={}", target_triple(abi)));
    if abi == EhAbi::Msvc {
        // No MSVC headers: the project's own (C library as msvcrt.dll exports it); no
        // thread-safe static-local helpers, which msvcrt.dll does not export.
        args.push("-fms-extensions".into());
        args.push("-fno-threadsafe-statics".into());
        if let Some(dir) = &options.msvc_include_dir {
            args.push("-nostdinc".into());
            args.push("-isystem".into());
            args.push(dir.display().to_string());
        }
    }
    if let Some(std) = &options.std {
        args.push(format!("-std={std}"));
    }
    for dir in &options.include_dirs {
        args.push(format!("-I{dir}"));
    }
    for define in &options.defines {
        args.push(format!("-D{define}"));
    }
    args.push(source.display().to_string());
    args
}

/// Runs Clang's AST dump on the file `source` (whose text is `text`); returns the JSON.
/// Clang's errors in `source` become diagnostics at their byte offsets.
pub fn dump_ast(
    source: &Path,
    text: &str,
    abi: EhAbi,
    options: &ClangOptions,
) -> Result<String, ClangError> {
    let clang = find_clang(options.clang.as_deref())?;
    let mut options = options.clone();
    if abi == EhAbi::Msvc && options.msvc_include_dir.is_none() {
        let dir = crate::headers::msvc_header_dir().map_err(|e| {
            ClangError::Failed(
                "writing the Windows headers".into(),
                format!("cannot write the Windows headers to a temporary directory: {e}"),
            )
        })?;
        options.msvc_include_dir = Some(dir);
    }
    let output = Command::new(&clang)
        .args(ast_dump_args(source, abi, &options))
        .output()
        .map_err(|e| ClangError::Spawn(clang.display().to_string(), e))?;
    if output.status.success() {
        return String::from_utf8(output.stdout)
            .map_err(|e| ClangError::Failed("output".into(), e.to_string()));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let mut diagnostics = parse_diagnostics(&stderr, &source.display().to_string(), text);
    if abi == EhAbi::Msvc {
        for diagnostic in &mut diagnostics {
            if let Some(hint) = crate::headers::missing_header_hint(&diagnostic.message) {
                diagnostic.message = hint;
            }
        }
    }
    if diagnostics.is_empty() {
        return Err(ClangError::Failed(
            output.status.to_string(),
            stderr.trim().to_string(),
        ));
    }
    Err(ClangError::Rejected(diagnostics))
}

/// Clang's `FILE:LINE:COL: error: MESSAGE` lines as diagnostics: in the main file at
/// their byte offset, elsewhere with the file position in the message.
pub fn parse_diagnostics(stderr: &str, main_file: &str, text: &str) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for line in stderr.lines() {
        let Some((position, message)) = line
            .split_once(": fatal error: ")
            .or_else(|| line.split_once(": error: "))
        else {
            continue;
        };
        let mut parts = position.rsplitn(3, ':');
        let (col, line_no, file) = (parts.next(), parts.next(), parts.next());
        let parsed = match (col, line_no, file) {
            (Some(col), Some(line_no), Some(file)) => {
                match (line_no.parse::<usize>(), col.parse::<usize>()) {
                    (Ok(l), Ok(c)) => Some((file, l, c)),
                    _ => None,
                }
            }
            _ => None,
        };
        let diagnostic = match parsed {
            Some((file, line_no, col)) if file == main_file => {
                Diagnostic::error(byte_offset(text, line_no, col), message.to_string())
            }
            Some(_) => Diagnostic::error(Loc::NONE, format!("{position}: {message}")),
            None => Diagnostic::error(Loc::NONE, line.to_string()),
        };
        diagnostics.push(diagnostic);
    }
    diagnostics
}

/// The byte offset of a 1-based line and column (Clang's columns count bytes).
fn byte_offset(text: &str, line: usize, col: usize) -> Loc {
    let mut offset = 0usize;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return Loc((offset + col.saturating_sub(1).min(l.len())) as u32);
        }
        offset += l.len();
    }
    Loc(text.len() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clang_errors_become_diagnostics_at_byte_offsets() {
        let text = "int main() {\n  return x;\n}\n";
        let stderr = "a.cpp:2:10: error: use of undeclared identifier 'x'\n\
                      /usr/include/h.h:3:1: error: bad\n1 error generated.\n";
        let ds = parse_diagnostics(stderr, "a.cpp", text);
        assert_eq!(ds.len(), 2);
        assert_eq!(ds[0].loc, Loc(22));
        assert_eq!(ds[0].message, "use of undeclared identifier 'x'");
        assert_eq!(ds[1].loc, Loc::NONE);
        assert!(ds[1].message.starts_with("/usr/include/h.h:3:1: bad"));
    }

    #[test]
    fn the_command_line_names_the_target_and_user_flags() {
        let options = ClangOptions {
            include_dirs: vec!["inc".into()],
            defines: vec!["N=3".into()],
            std: Some("c++17".into()),
            ..Default::default()
        };
        let args = ast_dump_args(Path::new("a.cpp"), EhAbi::Itanium, &options);
        for expected in ["--target=x86_64-linux-gnu", "-Iinc", "-DN=3", "-std=c++17"] {
            assert!(args.iter().any(|a| a == expected), "{expected} in {args:?}");
        }
        let options = ClangOptions {
            msvc_include_dir: Some(PathBuf::from("hdr")),
            ..options
        };
        let args = ast_dump_args(Path::new("a.cpp"), EhAbi::Msvc, &options);
        for expected in [
            "--target=x86_64-pc-windows-msvc",
            "-fms-extensions",
            "-fno-threadsafe-statics",
            "-nostdinc",
            "hdr",
        ] {
            assert!(args.iter().any(|a| a == expected), "{expected} in {args:?}");
        }
    }

    #[test]
    fn the_standard_is_read_from_the_std_value() {
        let standard = |std: Option<&str>| {
            ClangOptions {
                std: std.map(str::to_string),
                ..ClangOptions::default()
            }
            .standard()
        };
        for old in [
            "c++98", "c++03", "gnu++11", "c++0x", "c++1y", "c++14", "gnu++14",
        ] {
            assert_eq!(standard(Some(old)), Standard::Cxx14OrEarlier, "{old}");
        }
        for new in [
            "c++17", "gnu++1z", "c++2a", "c++20", "c++23", "c++2c", "c++26",
        ] {
            assert_eq!(standard(Some(new)), Standard::Cxx17OrLater, "{new}");
        }
        assert_eq!(standard(None), Standard::Cxx17OrLater);
    }
}
