//! The text of types and attributes, and the per-call cache of type texts.

use super::{Out, push_string, push_symbol};
use crate::attrs::{AttrData, ConstArrayElements};
use crate::entities::{Attr, Symbol, Type};
use crate::module::ModuleCtx;
use crate::types::TypeData;
use cranelift_entity::EntityRef;
use std::io::{self, Write};

/// The text of each type, rendered on first use (types are interned, so a module prints
/// few distinct ones many times).
#[derive(Default)]
pub(super) struct TypeTexts {
    pub(super) text: Vec<u8>,
    /// Start and end of each type's text in `text`; `(0, 0)` until rendered.
    spans: Vec<(u32, u32)>,
}

impl TypeTexts {
    #[inline]
    pub(super) fn get(&mut self, ctx: &ModuleCtx, t: Type) -> &[u8] {
        let i = t.index();
        match self.spans.get(i) {
            Some(&(start, end)) if end != 0 => &self.text[start as usize..end as usize],
            _ => self.render(ctx, t),
        }
    }

    #[cold]
    fn render(&mut self, ctx: &ModuleCtx, t: Type) -> &[u8] {
        let i = t.index();
        let start = self.text.len();
        push_type(&mut self.text, ctx, t);
        let end = self.text.len();
        if self.spans.len() <= i {
            self.spans.resize(i + 1, (0, 0));
        }
        // Too much text to index: keep it uncached.
        if let (Ok(s), Ok(e)) = (u32::try_from(start), u32::try_from(end)) {
            self.spans[i] = (s, e);
        }
        &self.text[start..end]
    }
}

/// The alias a record prints under, as upstream's printer names it: `rec_` and the
/// record's name escaped ([`crate::abi::records::record_alias`]: `std::exception` →
/// `rec_std3A3Aexception`), `rec_anon_struct` for an anonymous one, and a number after
/// the second and later records that would print the same (in declaration order). The
/// input's own alias names are not kept; a record never declared prints its alias.
pub fn record_alias_text(ctx: &ModuleCtx, alias: Symbol) -> String {
    let Some(decl) = ctx.record(alias) else {
        return ctx.name(alias).to_string();
    };
    let base = |d: &crate::module::RecordDecl| {
        let name = ctx.name(d.name);
        if name.is_empty() {
            format!("rec_anon_{}", d.kind.name())
        } else {
            crate::abi::records::record_alias(name)
        }
    };
    let mine = base(decl);
    let earlier = ctx
        .records
        .iter()
        .take_while(|d| d.alias != alias)
        .filter(|d| base(d) == mine)
        .count();
    if earlier == 0 {
        mine
    } else {
        format!("{mine}{earlier}")
    }
}

/// Writes a type.
pub fn write_type(w: &mut dyn Write, ctx: &ModuleCtx, t: Type) -> io::Result<()> {
    let mut o = Vec::new();
    push_type(&mut o, ctx, t);
    w.write_all(&o)
}

fn push_type(o: &mut Vec<u8>, ctx: &ModuleCtx, t: Type) {
    // Recursion depth is bounded by type nesting, which the parser itself bounds.
    match ctx.types.get(t) {
        TypeData::Int { width, signed } => {
            o.s(if *signed { "!s" } else { "!u" });
            o.u(*width as u64);
            o.s("i");
        }
        TypeData::Bool => o.s("!cir.bool"),
        TypeData::Float => o.s("!cir.float"),
        TypeData::Double => o.s("!cir.double"),
        TypeData::Void => o.s("!void"),
        TypeData::Ptr(p) => {
            o.s("!cir.ptr<");
            push_type(o, ctx, *p);
            o.s(">");
        }
        TypeData::Array(e, n) => {
            o.s("!cir.array<");
            push_type(o, ctx, *e);
            o.s(" x ");
            o.u(*n);
            o.s(">");
        }
        TypeData::Func {
            params,
            ret,
            vararg,
            abi,
        } => {
            o.s("!cir.func<(");
            for (i, &p) in params.iter().enumerate() {
                if i > 0 {
                    o.s(", ");
                }
                push_type(o, ctx, p);
                push_param_abi(o, abi.get(i).copied().unwrap_or_default());
            }
            if *vararg {
                o.s(if params.is_empty() { "..." } else { ", ..." });
            }
            o.s(")");
            if let Some(r) = ret {
                o.s(" -> ");
                push_type(o, ctx, *r);
            }
            o.s(">");
        }
        TypeData::Record(alias) => {
            o.s("!");
            o.s(&record_alias_text(ctx, *alias));
        }
        TypeData::EhToken => o.s("!cir.eh_token"),
        TypeData::CleanupToken => o.s("!cir.cleanup_token"),
        TypeData::CatchToken => o.s("!cir.catch_token"),
    }
}

/// ` by_value` / ` by_value_result` after a parameter's type (nothing for the default).
#[inline]
pub(super) fn push_param_abi(o: &mut Vec<u8>, a: crate::types::ParamAbi) {
    if a != crate::types::ParamAbi::Default {
        o.s(" ");
        o.s(a.keyword());
    }
}

/// Writes an attribute, including its `: type` suffix when it has one.
pub fn write_attr(w: &mut dyn Write, ctx: &ModuleCtx, a: Attr) -> io::Result<()> {
    let mut o = Vec::new();
    push_attr(&mut o, &mut TypeTexts::default(), ctx, a);
    w.write_all(&o)
}

/// `[a, b]`
pub(super) fn push_attr_list(
    o: &mut Vec<u8>,
    types: &mut TypeTexts,
    ctx: &ModuleCtx,
    items: &[Attr],
) {
    o.s("[");
    for (i, &x) in items.iter().enumerate() {
        if i > 0 {
            o.s(", ");
        }
        push_attr(o, types, ctx, x);
    }
    o.s("]");
}

pub(super) fn push_attr(o: &mut Vec<u8>, types: &mut TypeTexts, ctx: &ModuleCtx, a: Attr) {
    match ctx.attrs.get(a) {
        AttrData::Int { value, ty } => {
            o.s("#cir.int<");
            o.i(*value);
            o.s("> : ");
            o.b(types.get(ctx, *ty));
        }
        AttrData::Bool(b) => o.s(if *b { "#true" } else { "#false" }),
        AttrData::Float { bits, ty } => {
            let v = f64::from_bits(*bits);
            if v.is_finite() {
                let _ = write!(o, "#cir.fp<{v:?}> : ");
            } else {
                let _ = write!(o, "#cir.fp<0x{bits:016X}> : ");
            }
            o.b(types.get(ctx, *ty));
        }
        AttrData::Null(ty) => {
            o.s("#cir.ptr<null> : ");
            o.b(types.get(ctx, *ty));
        }
        AttrData::IntPtr { value, ty } => {
            let _ = write!(o, "#cir.ptr<{value} : i64> : ");
            o.b(types.get(ctx, *ty));
        }
        AttrData::GlobalView {
            symbol,
            indices,
            ty,
        } => {
            o.s("#cir.global_view<");
            push_symbol(o, ctx.name(*symbol));
            if !indices.is_empty() {
                o.s(", [");
                for (i, &x) in indices.iter().enumerate() {
                    if i > 0 {
                        o.s(", ");
                    }
                    o.i(x as i128);
                    o.s(" : i32");
                }
                o.s("]");
            }
            o.s(">");
            if let Some(t) = ty {
                o.s(" : ");
                o.b(types.get(ctx, *t));
            }
        }
        AttrData::Str(s) => push_string(o, s),
        AttrData::ConstArray { elements, ty } => {
            o.s("#cir.const_array<");
            match elements {
                ConstArrayElements::Bytes(b) => {
                    push_string(o, b);
                    o.s(" : ");
                    o.b(types.get(ctx, *ty));
                }
                ConstArrayElements::Attrs(items) => {
                    push_attr_list(o, types, ctx, items);
                }
            }
            o.s("> : ");
            o.b(types.get(ctx, *ty));
        }
        AttrData::Zero(ty) => {
            o.s("#cir.zero : ");
            o.b(types.get(ctx, *ty));
        }
        AttrData::Undef(ty) => {
            o.s("#cir.undef : ");
            o.b(types.get(ctx, *ty));
        }
        AttrData::List(items) => {
            push_attr_list(o, types, ctx, items);
        }
    }
}
