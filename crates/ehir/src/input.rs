//! Loading an input file: `.cir` text through the reader, `.cpp` through the C++ front
//! end (`ehir-clang`, which runs Clang); diagnostics are rendered clang-style on stderr.
//!
//! `ehir opt` maps large `.cir` inputs into memory ([`MappedSource`]) instead of reading
//! them: the pages come straight from the page cache in one call, without copying the
//! file or faulting in a fresh page per 4 KiB (a measurable share of the time of parsing,
//! verifying and printing hundreds of thousands of ops). The resident set is the same
//! either way (mapped file pages count), but the pages the parser is done with are given
//! back as it goes. The input must not change while ehir runs.

use anyhow::{Context, Result};
use ehir_core::verifier::Rules;
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
    /// Reads `path`; text that is not UTF-8 is reported at its first invalid byte, and a
    /// UTF-8 byte-order mark at the start is skipped.
    pub fn read(path: &Path) -> Result<Source> {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read '{}'", path.display()))?;
        let name = path.display().to_string();
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(error) => {
                report_invalid_utf8(&name, error.as_bytes(), error.utf8_error());
                return Err(Reported.into());
            }
        };
        let text = match text.strip_prefix(BYTE_ORDER_MARK) {
            Some(rest) => rest.to_string(),
            None => text,
        };
        Ok(Source { name, text })
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

    /// Parses (or compiles) the source into a module for the EH ABI `abi`, without
    /// verifying it: C++ goes through the Clang front end, which parses for that ABI's
    /// target (`x86_64-linux-gnu` or `x86_64-pc-windows-msvc`); `.cir` has no target and
    /// ignores `abi`.
    pub fn parse_for(
        &self,
        abi: ehir_core::abi::EhAbi,
    ) -> std::result::Result<Module, Diagnostics> {
        if self.is_cpp() {
            return ehir_clang::compile_file(
                std::path::Path::new(&self.name),
                &self.text,
                &ehir_clang::Options {
                    abi,
                    clang: CLANG_OPTIONS.get().cloned().unwrap_or_default(),
                },
            );
        }
        ehir_reader::parse_module(&self.name, &self.text)
    }

    /// Parses (C++ for the EH ABI `abi`, see [`Source::parse_for`]) and verifies under
    /// the rules of executable code; on failure prints the diagnostics and returns
    /// [`Reported`].
    pub fn load_for(&self, abi: ehir_core::abi::EhAbi) -> Result<Module> {
        self.load_for_with(abi, Rules::Executable)
    }

    /// As [`Source::load_for`], verifying under `rules`.
    pub fn load_for_with(&self, abi: ehir_core::abi::EhAbi, rules: Rules) -> Result<Module> {
        load(&self.name, &self.text, self.parse_for(abi), rules)
    }
}

/// The UTF-8 encoding of U+FEFF, which some editors put at the start of a file.
const BYTE_ORDER_MARK: &str = "\u{feff}";

/// Reports the first byte of `bytes` that is not UTF-8, at its line and column.
fn report_invalid_utf8(name: &str, bytes: &[u8], error: std::str::Utf8Error) {
    let valid = error.valid_up_to();
    let line_start = bytes[..valid]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line_end = bytes[valid..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| valid + i);
    let line_text = String::from_utf8_lossy(&bytes[line_start..line_end]);
    let prefix = String::from_utf8_lossy(&bytes[..line_start]);
    // Line and column as the diagnostics renderer counts them: the text is the valid
    // prefix of the line, the rest shown with replacement characters.
    let shown = format!("{prefix}{line_text}");
    let file = SourceFile::new(name, &shown);
    let offset = prefix.len() + (valid - line_start);
    let diagnostic = ehir_core::Diagnostic::error(
        ehir_core::Loc::at(offset),
        format!("the input is not valid UTF-8 (byte 0x{:02x})", bytes[valid]),
    );
    eprint!("{}", file.render(&diagnostic));
}

/// The flags passed to Clang (`-I`, `-D`, `--std`).
static CLANG_OPTIONS: std::sync::OnceLock<ehir_clang::ClangOptions> = std::sync::OnceLock::new();

/// Sets the flags passed to Clang; the first call wins.
pub fn set_clang_options(options: ehir_clang::ClangOptions) {
    let _ = CLANG_OPTIONS.set(options);
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
    rules: Rules,
) -> Result<Module> {
    let module = parsed.map_err(|d| {
        report(name, text, &d);
        Reported
    })?;
    ehir_core::verifier::verify_module_with(&module, rules).map_err(|d| {
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

/// The input is given back to the system in pieces of this many bytes (a multiple of
/// the page size).
const RELEASE_STEP: usize = 1 << 16;

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
        if let Err(error) = std::str::from_utf8(&map) {
            report_invalid_utf8(&name, &map, error);
            return Err(Reported.into());
        }
        Ok(Some(MappedSource { name, map }))
    }

    /// The text (checked to be UTF-8 when the file was mapped), without a byte-order mark.
    pub fn text(&self) -> &str {
        let text = std::str::from_utf8(&self.map).unwrap_or_default();
        text.strip_prefix(BYTE_ORDER_MARK).unwrap_or(text)
    }

    /// Prints diagnostics about this source on stderr.
    pub fn report(&self, diagnostics: &Diagnostics) {
        report(&self.name, self.text(), diagnostics);
    }

    /// Parses and verifies under `rules`; on failure prints the diagnostics and returns
    /// [`Reported`]. The pages of the text the parser is done with are given back to the
    /// system as it goes (they come back from the page cache if a diagnostic needs them),
    /// so that the input and the module it becomes are not resident at once.
    pub fn load_with(&self, rules: Rules) -> Result<Module> {
        let text = self.text();
        let start = self.map.len() - text.len();
        let mut released = 0;
        let mut release = |offset: usize| {
            let end = (start + offset) & !(RELEASE_STEP - 1);
            if end > released {
                // SAFETY: the map is a private, read-only map of a file that does not
                // change while ehir runs: pages dropped here are read from the file
                // again on their next access, with the same contents.
                let _ = unsafe {
                    self.map.unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        released,
                        end - released,
                    )
                };
                released = end;
            }
        };
        load(
            &self.name,
            text,
            ehir_reader::parse_module_with_progress(&self.name, text, &mut release),
            rules,
        )
    }
}
