//! Writing an output file atomically: into an unnamed temporary file beside it (Linux's
//! `O_TMPFILE`), given a name and renamed into place only when everything was written. A
//! failing command leaves no partial output, and a killed or interrupted one (SIGINT,
//! SIGTERM, even SIGKILL) leaves no temporary file: an unnamed file disappears with the
//! process.
//! Outputs that are not regular files (`/dev/null`, a pipe, a terminal) are written in
//! place: renaming a temporary file onto them would replace the device node itself.

use anyhow::{Context, Result};
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
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
            let mut file = tempfile::tempfile_in(dir)
                .with_context(|| format!("cannot create a file in '{}'", dir.display()))?;
            {
                let mut w = BufWriter::with_capacity(1 << 16, &file);
                produce(&mut w)?;
                w.flush()
                    .with_context(|| format!("cannot write '{}'", p.display()))?;
            }
            persist(&mut file, dir, p).with_context(|| format!("cannot write '{}'", p.display()))
        }
    }
}

/// Whether output that [`write_output`] is given for `path` goes nowhere when the
/// producer fails: a file written through a temporary (any path that is not stdout or a
/// special file), or the null device.
pub fn discards_partial_output(path: Option<&Path>) -> bool {
    match path {
        None => false,
        Some(p) if p.as_os_str() == "-" => false,
        Some(p) if is_special_file(p) => {
            std::fs::canonicalize(p).is_ok_and(|c| c == Path::new("/dev/null"))
        }
        Some(_) => true,
    }
}

/// Gives the unnamed `file` the name `target`: links it into `dir` under a hidden name and
/// renames that over `target`. Where the file cannot be linked (no `O_TMPFILE` or no
/// `/proc`), its contents are copied into a named temporary file that is renamed instead.
fn persist(file: &mut File, dir: &Path, target: &Path) -> std::io::Result<()> {
    // Temporary files are private (0600); an output gets the mode a newly created file
    // gets (0666 less the umask), as `cc -o` or `cp` give it.
    file.set_permissions(std::fs::Permissions::from_mode(0o666 & !umask()))?;
    let fd_path = format!("/proc/self/fd/{}", file.as_raw_fd());
    let base = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for attempt in 0..100u32 {
        let hidden = dir.join(format!(".{base}.{}-{attempt}.tmp", std::process::id()));
        match rustix::fs::linkat(
            rustix::fs::CWD,
            fd_path.as_str(),
            rustix::fs::CWD,
            &hidden,
            rustix::fs::AtFlags::SYMLINK_FOLLOW,
        ) {
            Ok(()) => {
                return std::fs::rename(&hidden, target).inspect_err(|_| {
                    let _ = std::fs::remove_file(&hidden);
                });
            }
            Err(rustix::io::Errno::EXIST) => continue,
            Err(_) => break,
        }
    }
    let named = tempfile::NamedTempFile::new_in(dir)?;
    file.seek(SeekFrom::Start(0))?;
    std::io::copy(file, &mut named.as_file())?;
    named.persist(target).map_err(|e| e.error)?;
    Ok(())
}

/// The process's file mode creation mask, read from `/proc/self/status` (setting and
/// restoring it would race with other threads); 0o022 when it cannot be read.
fn umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("Umask:"))?;
            u32::from_str_radix(line["Umask:".len()..].trim(), 8).ok()
        })
        .unwrap_or(0o022)
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
