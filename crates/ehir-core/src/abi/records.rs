//! How C++ classes become CIR records: the record alias of a class name and the padding
//! that stands for bytes of a class layout that hold no data. Both C++ front ends use it.

use crate::{Loc, ModuleCtx, RecordDecl, RecordKind, Type};

/// The record alias of [`padding_type`]: no class has it (a class name cannot start
/// with the digit of `2E`, the escaped `.`).
pub const PADDING_ALIAS: &str = "rec_2Epadding";

/// `n` bytes of a class that hold no data (where the Itanium layout leaves a gap that
/// natural layout would not): an array of the empty record `".padding"`, declared on first
/// use. Bytes without data matter to the C calling convention, which does not pass them
/// (an eightbyte of padding and floats travels in an SSE register).
pub fn padding_type(ctx: &mut ModuleCtx, n: u64) -> Type {
    let alias = ctx.sym(PADDING_ALIAS);
    if ctx.record(alias).is_none() {
        let name = ctx.sym(".padding");
        ctx.declare_record(RecordDecl {
            alias,
            kind: RecordKind::Struct,
            name,
            fields: Some(Vec::new()),
            loc: Loc::NONE,
        });
    }
    let record = ctx.types.record(alias);
    ctx.types.array(record, n)
}

/// Escapes a class name for a record alias: `std::exception` → `rec_std3A3Aexception`.
pub fn record_alias(name: &str) -> String {
    let mut s = String::from("rec_");
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            s.push(c);
        } else {
            s.push_str(&format!("{:02X}", c as u32));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_escape_what_is_not_an_identifier() {
        assert_eq!(record_alias("std::exception"), "rec_std3A3Aexception");
        assert_eq!(record_alias("A<int>"), "rec_A3Cint3E");
    }
}
