//! Writing an output file atomically: into a temporary file beside it, renamed into place
//! only when everything was written, so a failing command leaves no partial output.
//! Outputs that are not regular files (`/dev/null`, a pipe, a terminal) are written in
//! place: renaming a temporary file onto them would replace the device node itself.

use anyhow::{Context, Result};
use std::io::{BufWriter, Write};
use std::path::Path;

/// Writes the output of `produce` to `path` (or stdout when `path` is `None` or `-`).
pub fn write_output(
    path: Option<&Path>,
    produce: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    match path {
        None => write_stdout(produce),
        Some(p) if p.as_os_str() == "-" => write_stdout(produce),
        Some(p) if is_special_file(p) => {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(p)
                .with_context(|| format!("cannot write '{}'", p.display()))?;
            let mut w = BufWriter::with_capacity(1 << 16, file);
            produce(&mut w)?;
            w.flush()
                .with_context(|| format!("cannot write '{}'", p.display()))?;
            Ok(())
        }
        Some(p) => {
            let dir = p
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let tmp = tempfile::NamedTempFile::new_in(dir)
                .with_context(|| format!("cannot create a file in '{}'", dir.display()))?;
            {
                let mut w = BufWriter::with_capacity(1 << 16, tmp.as_file());
                produce(&mut w)?;
                w.flush()
                    .with_context(|| format!("cannot write '{}'", p.display()))?;
            }
            tmp.persist(p)
                .with_context(|| format!("cannot write '{}'", p.display()))?;
            Ok(())
        }
    }
}

/// Whether `path` exists and is not a regular file or directory (a character device such
/// as `/dev/null`, a FIFO, a socket), following symlinks.
fn is_special_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

fn write_stdout(produce: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let stdout = std::io::stdout();
    let mut w = BufWriter::with_capacity(1 << 16, stdout.lock());
    produce(&mut w)?;
    w.flush().context("cannot write to stdout")?;
    Ok(())
}
