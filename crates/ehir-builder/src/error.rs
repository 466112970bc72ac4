//! Builder errors: what kind of misuse, where in the front end's source, and a message.
//!
//! Every failing builder call records one [`BuilderError`]; it is observable right after
//! the call ([`crate::FunctionBuilder::last_error`], [`crate::FunctionBuilder::check`],
//! [`crate::FunctionBuilder::checked`]) and [`crate::FunctionBuilder::finish`] returns
//! all of them as [`BuildErrors`].

use ehir_core::{Diagnostic, Diagnostics, Loc};

/// What went wrong, for a front end to match on.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BuilderErrorKind {
    /// A value, op or block handed out by another builder (another function).
    ForeignEntity,
    /// An entity that this builder never handed out (out of range, a region index the
    /// op does not have, an op without the expected shape).
    InvalidEntity,
    /// An operand of the wrong type (a load from a non-pointer, a store of an `i32`
    /// through a `!cir.ptr<!u8i>`, a return value of the wrong type, ...).
    TypeMismatch,
    /// A call whose arguments do not match its signature, or a callee declared twice
    /// with different signatures.
    SignatureMismatch,
    /// A construct used where it is not allowed (`break` outside a loop, a handler
    /// outside a `try`, `continue` in a `switch`, ...).
    Misplaced,
    /// Scopes closed out of order or left open (popping a cleanup that is not on top,
    /// leaving a region that was not entered, a scope still open at `finish`).
    Unbalanced,
    /// A function with a result type whose end can be reached without `return`.
    MissingReturn,
}

impl BuilderErrorKind {
    /// A short name for messages (`foreign entity`, `type mismatch`, ...).
    pub fn name(self) -> &'static str {
        match self {
            BuilderErrorKind::ForeignEntity => "foreign entity",
            BuilderErrorKind::InvalidEntity => "invalid entity",
            BuilderErrorKind::TypeMismatch => "type mismatch",
            BuilderErrorKind::SignatureMismatch => "signature mismatch",
            BuilderErrorKind::Misplaced => "misplaced construct",
            BuilderErrorKind::Unbalanced => "unbalanced scopes",
            BuilderErrorKind::MissingReturn => "missing return",
        }
    }
}

impl std::fmt::Display for BuilderErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One misuse of the builder: its kind, the front end's location current at the failing
/// call (see [`crate::FunctionBuilder::set_loc`]) and a message naming the call.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("builder error ({kind}): {message}")]
pub struct BuilderError {
    /// What went wrong.
    pub kind: BuilderErrorKind,
    /// The location given to the builder when the call was made (`Loc::NONE` if none).
    pub loc: Loc,
    /// What the call was and why it failed.
    pub message: String,
}

impl BuilderError {
    /// An error of `kind` at `loc`.
    pub fn new(kind: BuilderErrorKind, loc: Loc, message: impl Into<String>) -> Self {
        BuilderError {
            kind,
            loc,
            message: message.into(),
        }
    }

    /// The error as a diagnostic at its location (for `SourceFile::render`).
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(self.loc, self.to_string())
    }
}

/// Every error a builder recorded, in the order of the failing calls.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct BuildErrors {
    /// The errors, oldest first (never empty when returned by a builder).
    pub errors: Vec<BuilderError>,
}

impl BuildErrors {
    /// The first error (the one later errors may follow from).
    pub fn first(&self) -> Option<&BuilderError> {
        self.errors.first()
    }

    /// Whether some error is of `kind`.
    pub fn has(&self, kind: BuilderErrorKind) -> bool {
        self.errors.iter().any(|e| e.kind == kind)
    }

    /// The errors as diagnostics.
    pub fn to_diagnostics(&self) -> Diagnostics {
        Diagnostics(
            self.errors
                .iter()
                .map(BuilderError::to_diagnostic)
                .collect(),
        )
    }
}

impl std::fmt::Display for BuildErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, error) in self.errors.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for BuildErrors {}
