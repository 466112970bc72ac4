//! Writing an output file atomically: into a temporary file beside it, renamed into place
//! only when everything was written, so a failing command leaves no partial output.

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
        Some(p) => {
            let dir = p
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let tmp = tempfile::NamedTempFile::new_in(dir)
                .with_context(|| format!("cannot create a file in '{}'", dir.display()))?;
            {
                let mut w = BufWriter::new(tmp.as_file());
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

fn write_stdout(produce: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let stdout = std::io::stdout();
    let mut w = BufWriter::new(stdout.lock());
    produce(&mut w)?;
    w.flush().context("cannot write to stdout")?;
    Ok(())
}
