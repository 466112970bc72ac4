//! Loading an input file: `.cir` text through the reader, `.cpp` through the C++ front
//! end; diagnostics are rendered clang-style on stderr.

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
        let file = SourceFile::new(&self.name, &self.text);
        eprint!("{}", file.render_all(diagnostics));
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
        let module = self.parse().map_err(|d| {
            self.report(&d);
            Reported
        })?;
        ehir_core::verifier::verify_module(&module).map_err(|d| {
            self.report(&d);
            Reported
        })?;
        Ok(module)
    }
}
