//! The text of types and attributes, and the per-call cache of type texts.

use super::{Out, push_string, push_symbol};
use crate::attrs::{AttrData, ConstArrayElements};
use crate::entities::{Attr, Symbol, Type};
use crate::module::ModuleCtx;
use crate::types::TypeData;
use cranelift_entity::EntityRef;
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};

/// The text of each type, rendered on first use (types are interned, so a module prints
/// few distinct ones many times).
#[derive(Default)]
pub(super) struct TypeTexts {
    pub(super) text: Vec<u8>,
    /// Start and end of each type's text in `text`; `(0, 0)` until rendered.
    spans: Vec<(u32, u32)>,
    /// The records' aliases.
    pub(super) aliases: RecordAliases,
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
        push_type(&mut self.text, &mut self.aliases, ctx, t);
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

/// The alias text of every declared record ([`alias_texts`]), worked out once per
/// printing on first use: one pass over the records, whatever their number.
#[derive(Default)]
pub(super) struct RecordAliases {
    by_alias: Option<HashMap<Symbol, String>>,
}

impl RecordAliases {
    /// Appends the alias text of the record `alias` (without the `!`).
    pub(super) fn push(&mut self, o: &mut Vec<u8>, ctx: &ModuleCtx, alias: Symbol) {
        let table = self.by_alias.get_or_insert_with(|| alias_texts(ctx));
        match table.get(&alias) {
            Some(text) => o.s(text),
            None => o.s(ctx.name(alias)),
        }
    }
}

/// The alias each declared record prints under, as upstream's printer names it: `rec_` and the
/// record's name escaped ([`crate::abi::records::record_alias`]: `std::exception` →
/// `rec_std3A3Aexception`), `rec_anon_struct` for an anonymous one, and a number after
/// the second and later records that would print the same (in declaration order: `1`,
/// `2`, ...; the next number when that text is another record's alias, so that every
/// record prints under its own alias and the text reads back as the same module). The
/// input's own alias names are not kept; a record never declared prints its alias.
fn alias_texts(ctx: &ModuleCtx) -> HashMap<Symbol, String> {
    let base = |d: &crate::module::RecordDecl| {
        let name = ctx.name(d.name);
        if name.is_empty() {
            format!("rec_anon_{}", d.kind.name())
        } else {
            crate::abi::records::record_alias(name)
        }
    };
    let bases: Vec<String> = ctx.records.iter().map(base).collect();
    let mut taken: HashSet<String> = bases.iter().cloned().collect();
    // How many records printing as each base came before.
    let mut earlier: HashMap<&str, u64> = HashMap::new();
    let mut texts = HashMap::with_capacity(bases.len());
    for (decl, base) in ctx.records.iter().zip(&bases) {
        let count = earlier.entry(base.as_str()).or_insert(0);
        let text = if *count == 0 {
            base.clone()
        } else {
            let mut number = *count;
            loop {
                let candidate = format!("{base}{number}");
                if taken.insert(candidate.clone()) {
                    break candidate;
                }
                number += 1;
            }
        };
        *count += 1;
        texts.insert(decl.alias, text);
    }
    texts
}

/// Writes a type.
pub fn write_type(w: &mut dyn Write, ctx: &ModuleCtx, t: Type) -> io::Result<()> {
    let mut o = Vec::new();
    push_type(&mut o, &mut RecordAliases::default(), ctx, t);
    w.write_all(&o)
}

fn push_type(o: &mut Vec<u8>, aliases: &mut RecordAliases, ctx: &ModuleCtx, t: Type) {
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
        TypeData::Ptr(p, space) => {
            o.s("!cir.ptr<");
            push_type(o, aliases, ctx, *p);
            if *space != 0 {
                o.s(", target_address_space(");
                o.u(u64::from(*space));
                o.s(")");
            }
            o.s(">");
        }
        TypeData::Array(e, n) => {
            o.s("!cir.array<");
            push_type(o, aliases, ctx, *e);
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
                push_type(o, aliases, ctx, p);
                push_param_abi(o, abi.get(i).copied().unwrap_or_default());
            }
            if *vararg {
                o.s(if params.is_empty() { "..." } else { ", ..." });
            }
            o.s(")");
            if let Some(r) = ret {
                o.s(" -> ");
                push_type(o, aliases, ctx, *r);
            }
            o.s(">");
        }
        TypeData::Record(alias) => {
            o.s("!");
            aliases.push(o, ctx, *alias);
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
        AttrData::ConstArray {
            elements,
            ty,
            trailing_zeros,
        } => {
            o.s("#cir.const_array<");
            match elements {
                ConstArrayElements::Bytes(b) => {
                    push_string(o, b);
                    o.s(" : ");
                    // With trailing zeros the string's own type is as long as the string.
                    match ctx.types.get(*ty) {
                        TypeData::Array(elem, _) if *trailing_zeros => {
                            o.s("!cir.array<");
                            o.b(types.get(ctx, *elem));
                            o.s(" x ");
                            o.i(b.len() as i128);
                            o.s(">");
                        }
                        _ => o.b(types.get(ctx, *ty)),
                    }
                }
                ConstArrayElements::Attrs(items) => {
                    push_attr_list(o, types, ctx, items);
                }
            }
            if *trailing_zeros {
                o.s(", trailing_zeros");
            }
            o.s("> : ");
            o.b(types.get(ctx, *ty));
        }
        AttrData::ConstRecord {
            fields,
            ty,
            typeinfo,
        } => {
            o.s(if *typeinfo {
                "#cir.typeinfo<{"
            } else {
                "#cir.const_record<{"
            });
            for (i, &x) in fields.iter().enumerate() {
                if i > 0 {
                    o.s(", ");
                }
                push_attr(o, types, ctx, x);
            }
            o.s("}> : ");
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
