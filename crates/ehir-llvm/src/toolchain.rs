//! Finding and running the external tools of a native build: LLVM's `llc` (and `opt`),
//! and `g++` as the linker that brings in libstdc++'s Itanium C++ runtime; for the
//! Microsoft ABI, `llvm-dlltool` and `lld-link` (see [`crate::msvc_toolchain`]).
//!
//! Each tool is looked up as: the explicit path (given by the caller), then an environment
//! variable (`EHIR_LLC`, `EHIR_OPT`, `EHIR_CXX`, `EHIR_DLLTOOL`, `EHIR_LLD_LINK`), then its
//! names on `PATH` (`llc-19`, `llc`). A missing tool is an error that says which Debian
//! package provides it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// An external tool of the build.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Tool {
    /// LLVM's static compiler.
    Llc,
    /// LLVM's optimizer.
    Opt,
    /// The C++ compiler driver used to compile extra sources and to link.
    Cxx,
    /// LLVM's import-library maker (Microsoft ABI).
    DllTool,
    /// LLVM's linker for PE/COFF (Microsoft ABI).
    LldLink,
}

impl Tool {
    /// Names tried on `PATH`, in order.
    pub fn names(self) -> &'static [&'static str] {
        match self {
            Tool::Llc => &["llc-19", "llc"],
            Tool::Opt => &["opt-19", "opt"],
            Tool::Cxx => &["g++"],
            Tool::DllTool => &["llvm-dlltool-19", "llvm-dlltool"],
            Tool::LldLink => &["lld-link-19", "lld-link"],
        }
    }

    /// The environment variable that overrides the lookup.
    pub fn env_var(self) -> &'static str {
        match self {
            Tool::Llc => "EHIR_LLC",
            Tool::Opt => "EHIR_OPT",
            Tool::Cxx => "EHIR_CXX",
            Tool::DllTool => "EHIR_DLLTOOL",
            Tool::LldLink => "EHIR_LLD_LINK",
        }
    }

    /// The Debian package that provides the tool.
    pub fn package(self) -> &'static str {
        match self {
            Tool::Llc | Tool::Opt | Tool::DllTool => "llvm-19",
            Tool::Cxx => "g++",
            Tool::LldLink => "lld-19",
        }
    }
}

/// What can go wrong running the toolchain.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The tool was not given and is not on `PATH`.
    #[error(
        "{tool} not found (looked for {looked_for} on PATH); install the Debian package `{package}` (apt-get install {package}), or give its path explicitly or in {env}"
    )]
    NotFound {
        /// The tool's usual name (`llc`).
        tool: &'static str,
        /// The names tried on `PATH`, comma-separated.
        looked_for: String,
        /// The Debian package that provides it.
        package: &'static str,
        /// The tool, for callers that word the error their own way.
        which: Tool,
        /// The environment variable that names it ([`Tool::env_var`]).
        env: &'static str,
    },
    /// A path given for the tool is not an executable file.
    #[error("{path} (from {}) does not exist or is not executable", .from_env.unwrap_or("the explicit path"))]
    BadPath {
        /// The tool it was given for.
        which: Tool,
        /// The path.
        path: String,
        /// The environment variable it came from; `None`: the caller gave it explicitly.
        from_env: Option<&'static str>,
    },
    /// The tool could not be started (or a file it needs could not be written).
    #[error("cannot run {command}: {error}")]
    Spawn {
        /// The command line.
        command: String,
        /// The system's error.
        error: std::io::Error,
    },
    /// The tool ran and failed.
    #[error("{command} failed ({status}){}", if .stderr.is_empty() { String::new() } else { format!(":\n{}", .stderr.trim_end()) })]
    Failed {
        /// The command line.
        command: String,
        /// Its exit status, as the system describes it.
        status: String,
        /// What it wrote to stderr.
        stderr: String,
    },
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Searches `PATH` for an executable called `name`.
pub fn search_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

/// The executable a tool path names: a bare name (no slash) looked up on `PATH` like a
/// shell would, else the path itself when it is an executable file. (Found without
/// running it: starting a large tool just to see that it runs costs as much as a small
/// job of it.)
pub fn resolve_executable(p: &Path) -> Option<PathBuf> {
    if p.components().count() == 1 && !p.is_absolute() {
        search_path(&p.to_string_lossy())
    } else {
        is_executable(p).then(|| p.to_path_buf())
    }
}

/// Resolves a tool: the explicit path, then the environment variable, then `PATH`.
pub fn find_tool(tool: Tool, explicit: Option<&Path>) -> Result<PathBuf, ToolError> {
    let checked = |p: PathBuf, from_env: Option<&'static str>| -> Result<PathBuf, ToolError> {
        resolve_executable(&p).ok_or_else(|| ToolError::BadPath {
            which: tool,
            path: p.display().to_string(),
            from_env,
        })
    };
    if let Some(p) = explicit {
        return checked(p.to_path_buf(), None);
    }
    if let Some(p) = std::env::var_os(tool.env_var()).filter(|v| !v.is_empty()) {
        return checked(PathBuf::from(p), Some(tool.env_var()));
    }
    for name in tool.names() {
        if let Some(p) = search_path(name) {
            return Ok(p);
        }
    }
    Err(ToolError::NotFound {
        tool: tool.names()[tool.names().len() - 1],
        looked_for: tool.names().join(", "),
        package: tool.package(),
        which: tool,
        env: tool.env_var(),
    })
}

fn command_text(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// `opt` (optional) and `llc`, the LLVM half of both toolchains.
pub(crate) struct LlvmTools<'t> {
    /// `llc`.
    pub llc: &'t Path,
    /// `opt`, run before `llc` when given.
    pub opt: Option<&'t Path>,
    /// `-O` level of both, 0 to 3 (larger values count as 3).
    pub opt_level: u8,
}

impl LlvmTools<'_> {
    /// `opt -passes=default<ON> in.ll -o out.bc` (in `scratch`) when there is an `opt`,
    /// then `llc -ON <target_arg> -filetype=obj`: an object file.
    pub fn compile(
        &self,
        ll: &Path,
        object: &Path,
        scratch: &Path,
        target_arg: &str,
    ) -> Result<(), ToolError> {
        let level = self.opt_level.min(3);
        let input: PathBuf = match self.opt {
            Some(opt) => {
                let bc = scratch.join(format!(
                    "{}.opt.bc",
                    ll.file_stem().unwrap_or_default().to_string_lossy()
                ));
                let passes = format!("-passes=default<O{level}>");
                run(Command::new(opt).arg(&passes).arg(ll).arg("-o").arg(&bc))?;
                bc
            }
            None => ll.to_path_buf(),
        };
        run(Command::new(self.llc)
            .arg(format!("-O{level}"))
            .arg(target_arg)
            .arg("-filetype=obj")
            .arg(&input)
            .arg("-o")
            .arg(object))
    }
}

/// Runs a command to completion; a non-zero exit is an error carrying its stderr.
pub fn run(cmd: &mut Command) -> Result<(), ToolError> {
    let text = command_text(cmd);
    let out = cmd.output().map_err(|error| ToolError::Spawn {
        command: text.clone(),
        error,
    })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(ToolError::Failed {
            command: text,
            status: out.status.to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        })
    }
}

/// How to turn LLVM IR into a native object and an executable.
#[derive(Clone, Debug, Default)]
pub struct Toolchain {
    /// `llc`.
    pub llc: PathBuf,
    /// Present when the IR goes through `opt` before `llc`.
    pub opt: Option<PathBuf>,
    /// The C++ compiler driver that links (`g++`).
    pub cxx: PathBuf,
    /// `-O` level for `llc` (and `opt`): 0 to 3.
    pub opt_level: u8,
}

impl Toolchain {
    /// `opt -O<level> in.ll -o out.bc` then `llc`, or `llc` alone: a PIC object file
    /// (Debian's g++ links position-independent executables).
    pub fn compile(&self, ll: &Path, object: &Path, scratch: &Path) -> Result<(), ToolError> {
        let tools = LlvmTools {
            llc: &self.llc,
            opt: self.opt.as_deref(),
            opt_level: self.opt_level,
        };
        tools.compile(ll, object, scratch, "-relocation-model=pic")
    }

    /// Links objects (and compiles any C/C++ sources among `inputs`) into an executable.
    /// `.c` files are compiled as C (`g++` alone would compile them as C++).
    pub fn link(
        &self,
        inputs: &[PathBuf],
        extra_args: &[OsString],
        exe: &Path,
    ) -> Result<(), ToolError> {
        let mut cmd = Command::new(&self.cxx);
        for input in inputs {
            if input.extension().is_some_and(|e| e == "c") {
                cmd.arg("-x").arg("c").arg(input).arg("-x").arg("none");
            } else {
                cmd.arg(input);
            }
        }
        run(cmd.args(extra_args).arg("-o").arg(exe))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_tool_names_the_package() {
        let err = ToolError::NotFound {
            tool: "llc",
            looked_for: "llc-19, llc".into(),
            package: "llvm-19",
            which: Tool::Llc,
            env: "EHIR_LLC",
        };
        let text = err.to_string();
        assert!(text.contains("llvm-19"), "{text}");
        assert!(!text.contains("--llc"), "no command-line terms: {text}");
        assert!(text.contains("EHIR_LLC"), "{text}");
    }

    #[test]
    fn explicit_path_must_exist() {
        let err = find_tool(Tool::Llc, Some(Path::new("/nonexistent/dir/llc"))).unwrap_err();
        assert!(matches!(err, ToolError::BadPath { .. }), "{err}");
    }
}
