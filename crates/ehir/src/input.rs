//! Loading an input file: `.cir` text through the reader, `.cpp` through the C++ front
//! end; diagnostics are rendered clang-style on stderr.
//!
//! `ehir opt` maps large `.cir` inputs into memory ([`MappedSource`]) instead of reading
//! them: the pages come straight from the page cache in one call, without copying the
//! file or faulting in a fresh page per 4 KiB (a measurable share of the time of parsing,
//! verifying and printing hundreds of thousands of ops). The resident set is the same
//! either way (mapped file pages count). The input must not change while ehir runs.

use anyhow::{Context, Result};
use ehir_core::{Diagnostics, Module, SourceFile};
use std::path::Path;

/// The error of a command whose diagnostics were already printed.
#[derive(Debug)]
pub struct Reported;

impl std::fmt::Display for Reported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "errors reported")
    }
}

impl std::error::Error for Reported {}

/// The text of an input file and its display name.
pub struct Source {
    pub name: String,
    pub text: String,
}

impl Source {
    pub fn read(path: &Path) -> Result<Source> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read '{}'", path.display()))?;
        Ok(Source {
            name: path.display().to_string(),
            text,
        })
    }

    pub fn is_cpp(&self) -> bool {
        let lower = self.name.to_ascii_lowercase();
        [".cpp", ".cc", ".cxx", ".c++"]
            .iter()
            .any(|ext| lower.ends_with(ext))
    }

    /// Prints diagnostics about this source on stderr.
    pub fn report(&self, diagnostics: &Diagnostics) {
        report(&self.name, &self.text, diagnostics);
    }

    /// Parses (or compiles) the source into a module, without verifying it.
    pub fn parse(&self) -> std::result::Result<Module, Diagnostics> {
        if self.is_cpp() {
            return ehir_cxx::compile(&self.name, &self.text);
        }
        ehir_reader::parse_module(&self.name, &self.text)
    }

    /// Parses and verifies; on failure prints the diagnostics and returns [`Reported`].
    pub fn load(&self) -> Result<Module> {
        load(&self.name, &self.text, self.parse())
    }
}

/// How many diagnostics of one input are printed by default (`--error-limit`), as
/// clang's `-ferror-limit`.
pub const DEFAULT_ERROR_LIMIT: usize = 20;

static ERROR_LIMIT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// Sets the `--error-limit` (0: no limit); the first call wins.
pub fn set_error_limit(limit: usize) {
    let _ = ERROR_LIMIT.set(limit);
}

/// Prints diagnostics about the text of `name` on stderr, up to the error limit, then
/// how many were left out.
fn report(name: &str, text: &str, diagnostics: &Diagnostics) {
    let file = SourceFile::new(name, text);
    let limit = *ERROR_LIMIT.get().unwrap_or(&DEFAULT_ERROR_LIMIT);
    let shown = if limit == 0 {
        diagnostics.0.len()
    } else {
        limit.min(diagnostics.0.len())
    };
    let mut out = String::new();
    for d in &diagnostics.0[..shown] {
        out.push_str(&file.render(d));
    }
    let hidden = diagnostics.0.len() - shown;
    if hidden > 0 {
        out.push_str(&format!(
            "ehir: {hidden} more error(s) in {name} not shown (--error-limit {limit}; 0 shows all)\n"
        ));
    }
    eprint!("{out}");
}

/// Verifies a parsed module; on failure prints the diagnostics and returns [`Reported`].
fn load(
    name: &str,
    text: &str,
    parsed: std::result::Result<Module, Diagnostics>,
) -> Result<Module> {
    let module = parsed.map_err(|d| {
        report(name, text, &d);
        Reported
    })?;
    ehir_core::verifier::verify_module(&module).map_err(|d| {
        report(name, text, &d);
        Reported
    })?;
    Ok(module)
}

/// A `.cir` input mapped into memory (see the module documentation).
pub struct MappedSource {
    pub name: String,
    map: memmap2::Mmap,
}

impl MappedSource {
    /// Inputs smaller than this are read: mapping pays off for large files only.
    const MIN_LEN: u64 = 1 << 20;

    /// Maps `path` when it is a large `.cir` file; `None` when it should be read with
    /// [`Source::read`] (small, not `.cir`, not a regular file, or not mappable). Errors
    /// are those of [`Source::read`].
    pub fn open(path: &Path) -> Result<Option<MappedSource>> {
        let name = path.display().to_string();
        let is_cir = path.extension().is_some_and(|e| e == "cir");
        let Ok(file) = std::fs::File::open(path) else {
            return Ok(None);
        };
        let big_file = file
            .metadata()
            .is_ok_and(|m| m.is_file() && m.len() >= Self::MIN_LEN);
        if !is_cir || !big_file {
            return Ok(None);
        }
        // SAFETY: the map is read-only and private; like any reader of an input file,
        // ehir requires that the file does not change while it runs.
        let map = unsafe { memmap2::MmapOptions::new().populate().map(&file) };
        let Ok(map) = map else {
            return Ok(None);
        };
        if std::str::from_utf8(&map).is_err() {
            // What `fs::read_to_string` reports.
            let invalid = std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            );
            return Err(
                anyhow::Error::from(invalid).context(format!("cannot read '{}'", path.display()))
            );
        }
        Ok(Some(MappedSource { name, map }))
    }

    /// The text (checked to be UTF-8 when the file was mapped).
    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.map).unwrap_or_default()
    }

    /// Prints diagnostics about this source on stderr.
    pub fn report(&self, diagnostics: &Diagnostics) {
        report(&self.name, self.text(), diagnostics);
    }

    /// Parses and verifies; on failure prints the diagnostics and returns [`Reported`].
    pub fn load(&self) -> Result<Module> {
        let text = self.text();
        load(
            &self.name,
            text,
            ehir_reader::parse_module(&self.name, text),
        )
    }
}
