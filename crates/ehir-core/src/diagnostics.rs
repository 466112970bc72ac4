//! Diagnostics: errors with a source location, collected (never panicked), and rendered
//! clang-style as `file:line:col: error: message`, the source line and a caret.

use crate::entities::Loc;
use std::fmt;

/// How serious a [`Diagnostic`] is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Severity {
    /// The input is wrong; the operation failed.
    Error,
    /// Extra information attached to an error.
    Note,
}

/// One message about the input.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Diagnostic {
    /// Error or note.
    pub severity: Severity,
    /// Where in the source (a byte offset), or `Loc::NONE`.
    pub loc: Loc,
    /// The message, without location or `error:` prefix.
    pub message: String,
    /// Secondary locations ("note: defined here").
    pub notes: Vec<(Loc, String)>,
}

impl Diagnostic {
    /// An error at `loc`, without notes.
    pub fn error(loc: Loc, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            loc,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// The diagnostic with a note at `loc` appended.
    pub fn with_note(mut self, loc: Loc, message: impl Into<String>) -> Self {
        self.notes.push((loc, message.into()));
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)
    }
}

/// A list of diagnostics, as returned by the parser and the verifier.
#[derive(Clone, PartialEq, Eq, Debug, Default, thiserror::Error)]
#[error("{} error(s); first: {}", .0.len(), .0.first().map(|d| d.message.as_str()).unwrap_or(""))]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Whether there is no diagnostic.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Appends one.
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }
}

/// The text a module was parsed from, for rendering diagnostics.
pub struct SourceFile<'a> {
    /// The file name shown before `:line:col:`.
    pub name: &'a str,
    /// The whole text, which `Loc` byte offsets index.
    pub text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> SourceFile<'a> {
    /// A source file named `name` with contents `text`.
    pub fn new(name: &'a str, text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            name,
            text,
            line_starts,
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let col = self
            .text
            .get(start..offset)
            .map(|s| s.chars().count())
            .unwrap_or(offset - start);
        (line + 1, col + 1)
    }

    /// The text of a 1-based line, without its newline.
    pub fn line_text(&self, line: usize) -> &str {
        let start = self.line_starts[line - 1];
        let end = self
            .line_starts
            .get(line)
            .map(|&e| e - 1)
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches('\r')
    }

    /// Renders one diagnostic (with its notes).
    pub fn render(&self, d: &Diagnostic) -> String {
        let mut out = String::new();
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Note => "note",
        };
        self.render_one(&mut out, d.loc, kind, &d.message);
        for (loc, note) in &d.notes {
            self.render_one(&mut out, *loc, "note", note);
        }
        out
    }

    /// Renders all diagnostics.
    pub fn render_all(&self, ds: &Diagnostics) -> String {
        ds.0.iter().map(|d| self.render(d)).collect()
    }

    fn render_one(&self, out: &mut String, loc: Loc, kind: &str, message: &str) {
        use std::fmt::Write;
        match loc.offset() {
            None => {
                let _ = writeln!(out, "{}: {kind}: {message}", self.name);
            }
            Some(offset) => {
                let (line, col) = self.line_col(offset);
                let text = self.line_text(line);
                let _ = writeln!(out, "{}:{line}:{col}: {kind}: {message}", self.name);
                let (shown, caret_col) = snippet_window(text, col);
                let _ = writeln!(out, "{shown}");
                // Keep tabs so the caret lines up under the same column.
                let pad: String = shown
                    .chars()
                    .take(caret_col - 1)
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                let _ = writeln!(out, "{pad}^");
            }
        }
    }
}

/// How many characters of a source line a diagnostic shows at most; a longer line is cut
/// to a window around the column, marked with `...` where it was cut.
const SNIPPET_WIDTH: usize = 160;

/// The part of `line` a diagnostic at 1-based column `col` shows, and the caret's column in
/// it. Lines up to [`SNIPPET_WIDTH`] characters are shown whole, so output stays
/// proportional to the number of diagnostics, not to the length of the input's lines.
fn snippet_window(line: &str, col: usize) -> (std::borrow::Cow<'_, str>, usize) {
    let len = line.chars().count();
    if len <= SNIPPET_WIDTH {
        return (line.into(), col);
    }
    let half = SNIPPET_WIDTH / 2;
    let start = col
        .saturating_sub(1)
        .saturating_sub(half)
        .min(len - SNIPPET_WIDTH);
    let end = start + SNIPPET_WIDTH;
    let byte = |chars: usize| {
        line.char_indices()
            .nth(chars)
            .map_or(line.len(), |(i, _)| i)
    };
    let mut shown = String::with_capacity(SNIPPET_WIDTH + 6);
    let mut caret_col = col - start;
    if start > 0 {
        shown.push_str("...");
        caret_col += 3;
    }
    shown.push_str(&line[byte(start)..byte(end)]);
    if end < len {
        shown.push_str("...");
    }
    (shown.into(), caret_col)
}
