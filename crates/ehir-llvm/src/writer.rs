//! Prints the [`crate::ir`] model as LLVM 19 assembly text (opaque pointers). The output
//! depends only on the model, so it is deterministic.

use crate::ir::{
    Arg, BasicBlock, CallTarget, Clause, Function, Global, Inst, MemoryAttr, Module, Operand, Ty,
};
use std::fmt::{self, Write};

/// Prints a module to a string.
pub fn module_to_string(module: &Module) -> String {
    let mut out = String::new();
    write_module(&mut out, module).expect("writing to a String cannot fail");
    out
}

/// Writes a module.
pub fn write_module(w: &mut dyn Write, m: &Module) -> fmt::Result {
    write_module_prelude(w, m, &[])?;
    write_functions(w, &m.functions)
}

/// Writes everything of a module that comes before its functions: the header, the named
/// types, the comdats and the globals. `earlier_comdats` names the comdat functions that
/// were written already, ahead of `m.functions` (see [`write_function_text`]); their
/// comdats come before those of `m.functions`, in that order.
pub fn write_module_prelude(
    w: &mut dyn Write,
    m: &Module,
    earlier_comdats: &[String],
) -> fmt::Result {
    writeln!(w, "; ModuleID = '{}'", m.source_filename)?;
    write!(w, "source_filename = ")?;
    write_quoted(w, m.source_filename.as_bytes())?;
    writeln!(w)?;
    if !m.data_layout.is_empty() {
        writeln!(w, "target datalayout = \"{}\"", m.data_layout)?;
    }
    if !m.triple.is_empty() {
        writeln!(w, "target triple = \"{}\"", m.triple)?;
    }
    if !m.types.is_empty() {
        writeln!(w)?;
    }
    for named in &m.types {
        write!(w, "%{} = type ", ident(&named.name))?;
        match &named.body {
            None => writeln!(w, "opaque")?,
            Some(fields) => {
                if named.packed {
                    w.write_char('<')?;
                }
                write_struct_body(w, fields)?;
                if named.packed {
                    w.write_char('>')?;
                }
                writeln!(w)?;
            }
        }
    }
    let comdats: Vec<&str> = m
        .globals
        .iter()
        .filter(|g| g.comdat)
        .map(|g| g.name.as_str())
        .chain(earlier_comdats.iter().map(String::as_str))
        .chain(
            m.functions
                .iter()
                .filter(|f| has_comdat(f))
                .map(|f| f.name.as_str()),
        )
        .collect();
    if !comdats.is_empty() {
        writeln!(w)?;
    }
    for c in comdats {
        writeln!(w, "${} = comdat any", ident(c))?;
    }
    if !m.globals.is_empty() {
        writeln!(w)?;
    }
    for g in &m.globals {
        write_global(w, g)?;
    }
    Ok(())
}

/// Writes functions as [`write_module`] writes them after the prelude.
pub fn write_functions(w: &mut dyn Write, functions: &[Function]) -> fmt::Result {
    functions.iter().try_for_each(|f| write_function_text(w, f))
}

/// Writes one function as it stands in a module's text (a blank line, then the function),
/// so that a module can be written one function at a time.
pub fn write_function_text(w: &mut dyn Write, f: &Function) -> fmt::Result {
    writeln!(w)?;
    write_function(w, f)
}

/// Whether `f` is a definition with a comdat of its own name, which the module's
/// prelude must declare.
pub fn has_comdat(f: &Function) -> bool {
    f.comdat && f.blocks.is_some()
}

/// A name as it appears after `%`, `@` or `$`: bare when LLVM allows it, quoted otherwise.
pub fn ident(name: &str) -> String {
    let bare = !name.is_empty()
        && !name.bytes().all(|b| b.is_ascii_digit())
        && !name.as_bytes()[0].is_ascii_digit()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'$' | b'.' | b'_'));
    if bare {
        name.to_string()
    } else {
        let mut s = String::new();
        write_quoted(&mut s, name.as_bytes()).expect("String write");
        s
    }
}

fn write_quoted(w: &mut dyn Write, bytes: &[u8]) -> fmt::Result {
    write!(w, "\"")?;
    for &b in bytes {
        if b == b'"' || b == b'\\' || !(0x20..0x7f).contains(&b) {
            write!(w, "\\{b:02X}")?;
        } else {
            w.write_char(b as char)?;
        }
    }
    write!(w, "\"")
}

/// Writes `items` separated by `, `, each with `each`.
fn write_separated<T>(
    w: &mut dyn Write,
    items: &[T],
    mut each: impl FnMut(&mut dyn Write, &T) -> fmt::Result,
) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            write!(w, ", ")?;
        }
        each(w, item)?;
    }
    Ok(())
}

/// `{}` when empty, `{ a, b }` otherwise: the body of a struct type or constant.
fn write_braced<T>(
    w: &mut dyn Write,
    items: &[T],
    each: impl FnMut(&mut dyn Write, &T) -> fmt::Result,
) -> fmt::Result {
    if items.is_empty() {
        return write!(w, "{{}}");
    }
    write!(w, "{{ ")?;
    write_separated(w, items, each)?;
    write!(w, " }}")
}

fn write_struct_body(w: &mut dyn Write, fields: &[Ty]) -> fmt::Result {
    write_braced(w, fields, write_ty)
}

/// Writes a type.
pub fn write_ty(w: &mut dyn Write, t: &Ty) -> fmt::Result {
    stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || write_ty_inner(w, t))
}

fn write_ty_inner(w: &mut dyn Write, t: &Ty) -> fmt::Result {
    match t {
        Ty::Void => write!(w, "void"),
        Ty::Int(n) => write!(w, "i{n}"),
        Ty::Float => write!(w, "float"),
        Ty::Double => write!(w, "double"),
        Ty::Ptr => write!(w, "ptr"),
        Ty::PtrIn(space) => write!(w, "ptr addrspace({space})"),
        Ty::Array(n, e) => {
            write!(w, "[{n} x ")?;
            write_ty(w, e)?;
            write!(w, "]")
        }
        Ty::Vector(n, e) => {
            write!(w, "<{n} x ")?;
            write_ty(w, e)?;
            write!(w, ">")
        }
        Ty::Struct(fields) => write_struct_body(w, fields),
        Ty::Named(n) => write!(w, "%{}", ident(n)),
        Ty::Token => write!(w, "token"),
    }
}

/// Writes an operand without its type.
pub fn write_operand(w: &mut dyn Write, o: &Operand) -> fmt::Result {
    stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || write_operand_inner(w, o))
}

fn write_operand_inner(w: &mut dyn Write, o: &Operand) -> fmt::Result {
    match o {
        Operand::Local(n) => write!(w, "%{}", ident(n)),
        Operand::Global(n) => write!(w, "@{}", ident(n)),
        Operand::Int(v) => write!(w, "{v}"),
        Operand::Bool(b) => write!(w, "{b}"),
        Operand::Float(bits) => write!(w, "0x{bits:016X}"),
        Operand::Null => write!(w, "null"),
        Operand::IntToPtr(value) => write!(w, "inttoptr (i64 {value} to ptr)"),
        Operand::Undef => write!(w, "undef"),
        Operand::Poison => write!(w, "poison"),
        Operand::Zero => write!(w, "zeroinitializer"),
        Operand::Bytes(b) => {
            write!(w, "c")?;
            write_quoted(w, b)
        }
        Operand::Array(elem, items) => {
            write!(w, "[")?;
            write_separated(w, items, |w, x| write_typed(w, elem, x))?;
            write!(w, "]")
        }
        Operand::Struct(items) => write_braced(w, items, |w, (t, x)| write_typed(w, t, x)),
        Operand::PackedStruct(items) => {
            w.write_char('<')?;
            write_braced(w, items, |w, (t, x)| write_typed(w, t, x))?;
            w.write_char('>')
        }
        Operand::GepConst {
            source,
            base,
            indices,
        } => {
            write!(w, "getelementptr inbounds (")?;
            write_gep_body(w, source, base, indices)?;
            write!(w, ")")
        }
        Operand::BlockAddress { function, label } => {
            write!(w, "blockaddress(@{}, %{})", ident(function), ident(label))
        }
        Operand::ImageRel(g) => write!(
            w,
            "trunc (i64 sub (i64 ptrtoint (ptr @{} to i64), i64 ptrtoint (ptr @__ImageBase to i64)) to i32)",
            ident(g)
        ),
        Operand::NoneToken => write!(w, "none"),
    }
}

fn write_typed(w: &mut dyn Write, t: &Ty, o: &Operand) -> fmt::Result {
    write_ty(w, t)?;
    write!(w, " ")?;
    write_operand(w, o)
}

/// `<source>, ptr <base>, <ty> <index>...`: what a `getelementptr` instruction and constant
/// expression share.
fn write_gep_body(
    w: &mut dyn Write,
    source: &Ty,
    base: &Operand,
    indices: &[(Ty, Operand)],
) -> fmt::Result {
    write_ty(w, source)?;
    write!(w, ", ptr ")?;
    write_operand(w, base)?;
    for (t, x) in indices {
        write!(w, ", ")?;
        write_typed(w, t, x)?;
    }
    Ok(())
}

/// `%r = <head> <ty> <lhs>, <rhs>`: binary operators and comparisons.
fn write_two_operands(
    w: &mut dyn Write,
    result: &str,
    head: fmt::Arguments,
    ty: &Ty,
    lhs: &Operand,
    rhs: &Operand,
) -> fmt::Result {
    write_result(w, result)?;
    w.write_fmt(head)?;
    write!(w, " ")?;
    write_typed(w, ty, lhs)?;
    write!(w, ", ")?;
    write_operand(w, rhs)
}

/// ` byval(T) align N` / ` sret(T) align N`.
fn write_memory_attr(w: &mut dyn Write, m: Option<&MemoryAttr>) -> fmt::Result {
    let (word, ty, align) = match m {
        None => return Ok(()),
        Some(MemoryAttr::ByVal { ty, align }) => ("byval", ty, align),
        Some(MemoryAttr::Sret { ty, align }) => ("sret", ty, align),
    };
    write!(w, " {word}(")?;
    write_ty(w, ty)?;
    write!(w, ") align {align}")
}

fn write_attrs_before(w: &mut dyn Write, attrs: &[&str]) -> fmt::Result {
    for a in attrs {
        write!(w, "{a} ")?;
    }
    Ok(())
}

fn write_global(w: &mut dyn Write, g: &Global) -> fmt::Result {
    write!(w, "@{} = ", ident(&g.name))?;
    match &g.init {
        None => write!(w, "external ")?,
        Some(_) => {
            if !g.linkage.is_empty() {
                write!(w, "{} ", g.linkage)?;
            }
        }
    }
    if g.unnamed_addr {
        write!(w, "unnamed_addr ")?;
    }
    write!(w, "{} ", if g.constant { "constant" } else { "global" })?;
    write_ty(w, &g.ty)?;
    if let Some(init) = &g.init {
        write!(w, " ")?;
        write_operand(w, init)?;
    }
    if g.comdat {
        write!(w, ", comdat")?;
    }
    if let Some(a) = g.align {
        write!(w, ", align {a}")?;
    }
    writeln!(w)
}

fn write_function(w: &mut dyn Write, f: &Function) -> fmt::Result {
    let is_definition = f.blocks.is_some();
    write!(w, "{} ", if is_definition { "define" } else { "declare" })?;
    if is_definition && !f.linkage.is_empty() {
        write!(w, "{} ", f.linkage)?;
    }
    if f.hidden {
        write!(w, "hidden ")?;
    }
    write_attrs_before(w, &f.ret_attrs)?;
    write_ty(w, &f.ret)?;
    write!(w, " @{}(", ident(&f.name))?;
    write_separated(w, &f.params, |w, p| {
        write_ty(w, &p.ty)?;
        for a in &p.attrs {
            write!(w, " {a}")?;
        }
        write_memory_attr(w, p.memory.as_ref())?;
        if is_definition {
            write!(w, " %{}", ident(&p.name))?;
        }
        Ok(())
    })?;
    if f.vararg {
        write!(w, "{}...", if f.params.is_empty() { "" } else { ", " })?;
    }
    write!(w, ")")?;
    for a in &f.fn_attrs {
        write!(w, " {a}")?;
    }
    if is_definition && f.comdat {
        write!(w, " comdat")?;
    }
    if let Some(p) = &f.personality {
        write!(w, " personality ptr @{}", ident(p))?;
    }
    match &f.blocks {
        None => writeln!(w),
        Some(blocks) => {
            writeln!(w, " {{")?;
            for (i, b) in blocks.iter().enumerate() {
                write_block(w, b, i == 0)?;
            }
            writeln!(w, "}}")
        }
    }
}

fn write_block(w: &mut dyn Write, b: &BasicBlock, first: bool) -> fmt::Result {
    if !first {
        writeln!(w)?;
    }
    writeln!(w, "{}:", ident(&b.label))?;
    for inst in &b.insts {
        write!(w, "  ")?;
        write_inst(w, inst)?;
        writeln!(w)?;
    }
    Ok(())
}

fn write_result(w: &mut dyn Write, r: &str) -> fmt::Result {
    write!(w, "%{} = ", ident(r))
}

fn write_args(w: &mut dyn Write, args: &[Arg]) -> fmt::Result {
    write!(w, "(")?;
    write_separated(w, args, |w, a| {
        write_ty(w, &a.ty)?;
        for attr in &a.attrs {
            write!(w, " {attr}")?;
        }
        write_memory_attr(w, a.memory.as_ref())?;
        write!(w, " ")?;
        write_operand(w, &a.value)
    })?;
    write!(w, ")")
}

fn write_call_target(w: &mut dyn Write, t: &CallTarget) -> fmt::Result {
    write_attrs_before(w, &t.ret_attrs)?;
    write_ty(w, &t.ret)?;
    if let Some(params) = &t.vararg_params {
        write!(w, " (")?;
        for p in params {
            write_ty(w, p)?;
            write!(w, ", ")?;
        }
        write!(w, "...)")?;
    }
    write!(w, " ")?;
    write_operand(w, &t.callee)?;
    write_args(w, &t.args)?;
    for a in &t.fn_attrs {
        write!(w, " {a}")?;
    }
    if let Some(pad) = &t.funclet {
        write!(w, " [ \"funclet\"(token %{}) ]", ident(pad))?;
    }
    Ok(())
}

/// `%r = catchpad within <parent> [<args>]` and the same for `cleanuppad`.
fn write_pad(
    w: &mut dyn Write,
    result: &str,
    kind: &str,
    parent: &Operand,
    args: &[(Ty, Operand)],
) -> fmt::Result {
    write_result(w, result)?;
    write!(w, "{kind} within ")?;
    write_operand(w, parent)?;
    write!(w, " [")?;
    write_separated(w, args, |w, (t, x)| write_typed(w, t, x))?;
    write!(w, "]")
}

/// `[label %a, label %b]`.
fn write_label_list(w: &mut dyn Write, labels: &[String]) -> fmt::Result {
    write!(w, "[")?;
    write_separated(w, labels, |w, l| write!(w, "label %{}", ident(l)))?;
    write!(w, "]")
}

fn write_unwind(w: &mut dyn Write, unwind: &Option<String>) -> fmt::Result {
    match unwind {
        None => write!(w, " unwind to caller"),
        Some(l) => write!(w, " unwind label %{}", ident(l)),
    }
}

fn align_suffix(w: &mut dyn Write, align: u32) -> fmt::Result {
    if align != 0 {
        write!(w, ", align {align}")?;
    }
    Ok(())
}

/// `load`/`store` after the result: `MNEMONIC [volatile] <typed part>, ptr %p[, align N]`.
fn write_memory_access(
    w: &mut dyn Write,
    mnemonic: &str,
    volatile: bool,
    typed_part: impl FnOnce(&mut dyn Write) -> fmt::Result,
    ptr: &Operand,
    align: u32,
) -> fmt::Result {
    write!(w, "{mnemonic} {}", if volatile { "volatile " } else { "" })?;
    typed_part(w)?;
    write!(w, ", ptr ")?;
    write_operand(w, ptr)?;
    align_suffix(w, align)
}

/// Writes one instruction (without indentation or newline).
pub fn write_inst(w: &mut dyn Write, inst: &Inst) -> fmt::Result {
    match inst {
        Inst::Alloca { result, ty, align } => {
            write_result(w, result)?;
            write!(w, "alloca ")?;
            write_ty(w, ty)?;
            align_suffix(w, *align)
        }
        Inst::DynamicAlloca {
            result,
            ty,
            count_ty,
            count,
            align,
        } => {
            write_result(w, result)?;
            write!(w, "alloca ")?;
            write_ty(w, ty)?;
            write!(w, ", ")?;
            write_ty(w, count_ty)?;
            write!(w, " ")?;
            write_operand(w, count)?;
            align_suffix(w, *align)
        }
        Inst::Load {
            result,
            ty,
            ptr,
            align,
            volatile,
        } => {
            write_result(w, result)?;
            write_memory_access(w, "load", *volatile, |w| write_ty(w, ty), ptr, *align)
        }
        Inst::Store {
            ty,
            value,
            ptr,
            align,
            volatile,
        } => write_memory_access(
            w,
            "store",
            *volatile,
            |w| write_typed(w, ty, value),
            ptr,
            *align,
        ),
        Inst::Binary {
            result,
            op,
            ty,
            lhs,
            rhs,
        } => write_two_operands(w, result, format_args!("{op}"), ty, lhs, rhs),
        Inst::FNeg { result, ty, value } => {
            write_result(w, result)?;
            write!(w, "fneg ")?;
            write_typed(w, ty, value)
        }
        Inst::Cmp {
            result,
            pred,
            ty,
            lhs,
            rhs,
        } => write_two_operands(w, result, format_args!("{}", pred.text()), ty, lhs, rhs),
        Inst::Cast {
            result,
            op,
            from,
            value,
            to,
        } => {
            write_result(w, result)?;
            write!(w, "{op} ")?;
            write_typed(w, from, value)?;
            write!(w, " to ")?;
            write_ty(w, to)
        }
        Inst::Select {
            result,
            cond,
            ty,
            if_true,
            if_false,
        } => {
            write_result(w, result)?;
            write!(w, "select i1 ")?;
            write_operand(w, cond)?;
            write!(w, ", ")?;
            write_typed(w, ty, if_true)?;
            write!(w, ", ")?;
            write_typed(w, ty, if_false)
        }
        Inst::Gep {
            result,
            source,
            base,
            indices,
            inbounds,
        } => {
            write_result(w, result)?;
            write!(
                w,
                "getelementptr {}",
                if *inbounds { "inbounds " } else { "" }
            )?;
            write_gep_body(w, source, base, indices)
        }
        Inst::Call { result, target } => {
            if let Some(r) = result {
                write_result(w, r)?;
            }
            write!(w, "call ")?;
            write_call_target(w, target)
        }
        Inst::Phi {
            result,
            ty,
            incoming,
        } => {
            write_result(w, result)?;
            write!(w, "phi ")?;
            write_ty(w, ty)?;
            for (i, (v, label)) in incoming.iter().enumerate() {
                write!(w, "{} [ ", if i > 0 { "," } else { "" })?;
                write_operand(w, v)?;
                write!(w, ", %{} ]", ident(label))?;
            }
            Ok(())
        }
        Inst::LandingPad {
            result,
            cleanup,
            clauses,
        } => {
            write_result(w, result)?;
            write!(w, "landingpad {{ ptr, i32 }}")?;
            if *cleanup {
                write!(w, "\n          cleanup")?;
            }
            for c in clauses {
                match c {
                    Clause::Catch(ti) => {
                        write!(w, "\n          catch ptr ")?;
                        write_operand(w, ti)?;
                    }
                    // An empty filter (`throw()`) must be a zero aggregate for LLVM's
                    // verifier: `[]` parses as something else.
                    Clause::Filter(tis) if tis.is_empty() => {
                        write!(w, "\n          filter [0 x ptr] zeroinitializer")?;
                    }
                    Clause::Filter(tis) => {
                        write!(w, "\n          filter [{} x ptr] [", tis.len())?;
                        write_separated(w, tis, |w, t| write_typed(w, &Ty::Ptr, t))?;
                        write!(w, "]")?;
                    }
                }
            }
            Ok(())
        }
        Inst::ExtractValue {
            result,
            ty,
            aggregate,
            index,
        } => {
            write_result(w, result)?;
            write!(w, "extractvalue ")?;
            write_typed(w, ty, aggregate)?;
            write!(w, ", {index}")
        }
        Inst::InsertValue {
            result,
            ty,
            aggregate,
            element_ty,
            element,
            index,
        } => {
            write_result(w, result)?;
            write!(w, "insertvalue ")?;
            write_typed(w, ty, aggregate)?;
            write!(w, ", ")?;
            write_typed(w, element_ty, element)?;
            write!(w, ", {index}")
        }
        Inst::Ret(None) => write!(w, "ret void"),
        Inst::Ret(Some((t, v))) => {
            write!(w, "ret ")?;
            write_typed(w, t, v)
        }
        Inst::Br(l) => write!(w, "br label %{}", ident(l)),
        Inst::CondBr {
            cond,
            if_true,
            if_false,
        } => {
            write!(w, "br i1 ")?;
            write_operand(w, cond)?;
            write!(w, ", label %{}, label %{}", ident(if_true), ident(if_false))
        }
        Inst::Switch {
            ty,
            value,
            default,
            cases,
        } => {
            write!(w, "switch ")?;
            write_typed(w, ty, value)?;
            write!(w, ", label %{} [", ident(default))?;
            for (v, l) in cases {
                write!(w, "\n    ")?;
                write_ty(w, ty)?;
                write!(w, " {v}, label %{}", ident(l))?;
            }
            if !cases.is_empty() {
                write!(w, "\n  ")?;
            }
            write!(w, "]")
        }
        Inst::IndirectBr { address, labels } => {
            write!(w, "indirectbr ptr ")?;
            write_operand(w, address)?;
            write!(w, ", ")?;
            write_label_list(w, labels)
        }
        Inst::Invoke {
            result,
            target,
            normal,
            unwind,
        } => {
            if let Some(r) = result {
                write_result(w, r)?;
            }
            write!(w, "invoke ")?;
            write_call_target(w, target)?;
            write!(
                w,
                "\n          to label %{} unwind label %{}",
                ident(normal),
                ident(unwind)
            )
        }
        Inst::Resume { ty, value } => {
            write!(w, "resume ")?;
            write_typed(w, ty, value)
        }
        Inst::Unreachable => write!(w, "unreachable"),
        Inst::CatchSwitch {
            result,
            parent,
            handlers,
            unwind,
        } => {
            write_result(w, result)?;
            write!(w, "catchswitch within ")?;
            write_operand(w, parent)?;
            write!(w, " ")?;
            write_label_list(w, handlers)?;
            write_unwind(w, unwind)
        }
        Inst::CatchPad {
            result,
            parent,
            args,
        } => write_pad(w, result, "catchpad", parent, args),
        Inst::CatchRet { pad, target } => {
            write!(w, "catchret from ")?;
            write_operand(w, pad)?;
            write!(w, " to label %{}", ident(target))
        }
        Inst::CleanupPad {
            result,
            parent,
            args,
        } => write_pad(w, result, "cleanuppad", parent, args),
        Inst::CleanupRet { pad, unwind } => {
            write!(w, "cleanupret from ")?;
            write_operand(w, pad)?;
            write_unwind(w, unwind)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_quoted_only_when_needed() {
        assert_eq!(ident("someFunc"), "someFunc");
        assert_eq!(ident("_ZN1S3getEv"), "_ZN1S3getEv");
        assert_eq!(ident("a.b-c$d"), "a.b-c$d");
        assert_eq!(ident("has space"), "\"has space\"");
        assert_eq!(ident("12"), "\"12\"");
        assert_eq!(ident("1x"), "\"1x\"");
        assert_eq!(ident("q\"x"), "\"q\\22x\"");
    }

    #[test]
    fn writes_a_landing_pad_and_resume() {
        let mut s = String::new();
        write_inst(
            &mut s,
            &Inst::LandingPad {
                result: "lp".into(),
                cleanup: true,
                clauses: vec![
                    Clause::Catch(Operand::Global("_ZTIi".into())),
                    Clause::Catch(Operand::Null),
                    Clause::Filter(vec![Operand::Global("_ZTIf".into())]),
                ],
            },
        )
        .unwrap();
        assert_eq!(
            s,
            "%lp = landingpad { ptr, i32 }\n          cleanup\n          catch ptr @_ZTIi\n          catch ptr null\n          filter [1 x ptr] [ptr @_ZTIf]"
        );
        let mut s = String::new();
        write_inst(
            &mut s,
            &Inst::Resume {
                ty: Ty::landing_pad(),
                value: Operand::Local("agg".into()),
            },
        )
        .unwrap();
        assert_eq!(s, "resume { ptr, i32 } %agg");
    }

    #[test]
    fn writes_string_constants_with_hex_escapes() {
        let mut s = String::new();
        write_operand(&mut s, &Operand::Bytes(b"hi\n\"\0".to_vec())).unwrap();
        assert_eq!(s, "c\"hi\\0A\\22\\00\"");
    }
}
