//! The Windows headers of the Microsoft target (`crates/ehir-clang/include/msvc`), embedded
//! in the binary so that an installed `ehir` needs no source tree. Clang has no MSVC
//! headers on this machine: for `--abi msvc` it runs with `-nostdinc -isystem DIR`, where
//! DIR is a private temporary directory these headers are written to once per run and
//! removed when the run ends ([`MsvcHeaders`]).
//!
//! The headers declare what msvcrt.dll exports and ehir's startup object defines (see
//! `ehir_llvm::msvc_toolchain`): the C library subset, `<exception>`, `<new>`,
//! `<typeinfo>`, `<stdexcept>`, `<cassert>`. A program that includes anything else is told
//! so by [`missing_header_hint`].

use std::path::Path;
use std::sync::OnceLock;

/// `(file name, text)` of each shipped header.
pub const MSVC_HEADERS: &[(&str, &str)] = &[
    ("_ehir_msvc.h", include_str!("../include/msvc/_ehir_msvc.h")),
    ("assert.h", include_str!("../include/msvc/assert.h")),
    ("cassert", include_str!("../include/msvc/cassert")),
    ("cstddef", include_str!("../include/msvc/cstddef")),
    ("cstdio", include_str!("../include/msvc/cstdio")),
    ("cstdlib", include_str!("../include/msvc/cstdlib")),
    ("cstring", include_str!("../include/msvc/cstring")),
    ("exception", include_str!("../include/msvc/exception")),
    ("new", include_str!("../include/msvc/new")),
    ("stdexcept", include_str!("../include/msvc/stdexcept")),
    ("stdio.h", include_str!("../include/msvc/stdio.h")),
    ("stdlib.h", include_str!("../include/msvc/stdlib.h")),
    ("string.h", include_str!("../include/msvc/string.h")),
    ("typeinfo", include_str!("../include/msvc/typeinfo")),
];

/// The directory the shipped headers are written to, for the life of the process.
pub struct MsvcHeaders {
    dir: tempfile::TempDir,
}

impl MsvcHeaders {
    /// Writes the headers to a new private temporary directory (removed on drop).
    pub fn write() -> std::io::Result<MsvcHeaders> {
        let dir = tempfile::Builder::new()
            .prefix("ehir-msvc-headers")
            .tempdir()?;
        for (name, text) in MSVC_HEADERS {
            std::fs::write(dir.path().join(name), text)?;
        }
        Ok(MsvcHeaders { dir })
    }

    /// The directory holding the headers.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// The headers of this process, written on first use. The directory lives as long as the
/// process: a `static` is never dropped, so [`remove_msvc_headers`] removes it at the end
/// of a run.
static WRITTEN: OnceLock<std::sync::Mutex<Option<MsvcHeaders>>> = OnceLock::new();

/// The directory of the shipped headers, written once per process.
pub fn msvc_header_dir() -> std::io::Result<std::path::PathBuf> {
    let cell = WRITTEN.get_or_init(|| std::sync::Mutex::new(None));
    let mut guard = cell.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if guard.is_none() {
        *guard = Some(MsvcHeaders::write()?);
    }
    match guard.as_ref() {
        Some(headers) => Ok(headers.path().to_path_buf()),
        None => Err(std::io::Error::other(
            "the Windows headers were not written",
        )),
    }
}

/// Removes the directory [`msvc_header_dir`] wrote, if any (call once the run is over).
pub fn remove_msvc_headers() {
    if let Some(cell) = WRITTEN.get() {
        let mut guard = cell.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        guard.take();
    }
}

/// For a Clang error about a missing header under the Microsoft target: why, and what the
/// shipped headers provide.
pub fn missing_header_hint(message: &str) -> Option<String> {
    let header = message
        .strip_suffix("' file not found")?
        .rsplit_once('\'')?
        .1;
    let provided: Vec<&str> = MSVC_HEADERS
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| !name.starts_with('_'))
        .collect();
    Some(format!(
        "'{header}' file not found: the Microsoft target (--abi msvc) has only ehir's own small Windows headers (no MSVC SDK): {}",
        provided.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_header_is_embedded() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/msvc");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .expect("include/msvc exists")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let embedded: Vec<&str> = MSVC_HEADERS.iter().map(|(n, _)| *n).collect();
        assert_eq!(on_disk, embedded);
    }

    #[test]
    fn the_headers_are_written_and_removed() {
        let headers = MsvcHeaders::write().expect("temporary directory");
        let path = headers.path().to_path_buf();
        assert!(path.join("exception").is_file());
        drop(headers);
        assert!(!path.exists());
    }

    #[test]
    fn a_missing_header_names_what_is_shipped() {
        let hint = missing_header_hint("'vector' file not found").expect("a hint");
        assert!(
            hint.contains("'vector'") && hint.contains("stdexcept"),
            "{hint}"
        );
        assert!(missing_header_hint("use of undeclared identifier 'x'").is_none());
    }
}
