//! The reader of the CIR text format (`docs/syntax.md`): a hand-written lexer and
//! recursive-descent parser that builds an [`ehir_core::Module`].
//!
//! It accepts everything the printer emits plus the variants listed in the syntax
//! document, and returns every error it can find as [`ehir_core::Diagnostics`] (byte-offset
//! locations, rendered by [`ehir_core::SourceFile::render`]) instead of a partial module.
//! It never panics on any input and never recurses on the nesting depth of regions.

mod body;
mod lexer;
mod ops;
mod parser;
mod types;

use ehir_core::{Diagnostic, Diagnostics, Loc, Module};

/// Parses a module. `file_name` names the input for future use (diagnostics carry byte
/// offsets into `text`).
pub fn parse_module(file_name: &str, text: &str) -> Result<Module, Diagnostics> {
    parse_module_with_progress(file_name, text, &mut |_| {})
}

/// [`parse_module`], telling `progress(offset)` as it goes that it is done with the text
/// before `offset` (the caller may then release that part of a large input; a later
/// reference to something declared further down makes the parser read the whole text
/// once more).
pub fn parse_module_with_progress(
    file_name: &str,
    text: &str,
    progress: &mut dyn FnMut(usize),
) -> Result<Module, Diagnostics> {
    let _ = file_name;
    if text.len() >= u32::MAX as usize {
        return Err(Diagnostics(vec![Diagnostic::error(
            Loc::NONE,
            "input is too large (4 GiB or more)",
        )]));
    }
    let mut parser = parser::Parser::new(text);
    parser.parse_module(progress);
    if parser.diags.is_empty() {
        Ok(parser.module)
    } else {
        Err(Diagnostics(parser.diags))
    }
}
