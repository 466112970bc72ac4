//! Running Microsoft-ABI executables under wine, for the tests of every crate that builds
//! them: one shared prefix, headless, without wine's debug output or its Mono and Gecko
//! installers.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The wine prefix of the runs: `EHIR_WINEPREFIX`, else `ehir-wine-prefix` in the
/// temporary directory (its first use creates it, about 10 s and 700 MB).
pub fn wine_prefix() -> PathBuf {
    match std::env::var_os("EHIR_WINEPREFIX") {
        Some(p) => PathBuf::from(p),
        None => std::env::temp_dir().join("ehir-wine-prefix"),
    }
}

/// `wine PROGRAM` in the shared prefix, headless and quiet; arguments and stdio are the
/// caller's.
pub fn wine_command(program: &Path) -> Command {
    let mut cmd = Command::new("wine");
    cmd.arg(program)
        .env("WINEPREFIX", wine_prefix())
        .env("WINEDEBUG", "-all")
        .env("WINEDLLOVERRIDES", "mscoree,mshtml=;winedbg.exe=d")
        .env_remove("DISPLAY");
    cmd
}

/// Creates the wine prefix if needed and starts its wineserver, once per process, before
/// runs go in parallel: the server stays up while the runs follow one another, and exits
/// by itself 30 s after the last one. Panics when wine cannot run.
pub fn wine_ready() {
    static READY: OnceLock<()> = OnceLock::new();
    READY.get_or_init(|| {
        let _ = Command::new("wineserver")
            .arg("-p30")
            .env("WINEPREFIX", wine_prefix())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let status = wine_command(Path::new("cmd"))
            .args(["/c", "exit", "0"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap_or_else(|e| panic!("cannot run wine ({e}); install wine and wine64"));
        assert!(status.success(), "wine cmd /c exit 0 failed ({status})");
    });
}
