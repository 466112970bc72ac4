//! Types (`!s32i`, `!cir.ptr<T>`, `!cir.func<(A) -> R>`, `!rec_X`, ...) and attributes
//! (`#cir.int<N> : T`, `#cir.global_view<@sym>`, strings, lists, ...), interned in the
//! module's stores. Nesting is bounded (the printer recurses on it).

use crate::lexer::TokenKind;
use crate::parser::{MAX_NESTING, PResult, Parser};
use ehir_core::{
    Attr, AttrData, ConstArrayElements, Item, Loc, RecordDecl, RecordKind, Type, TypeData,
    int_range,
};

/// Whether `!name` is a builtin type (and so cannot be a record alias).
pub(crate) fn is_builtin_type_name(name: &str) -> bool {
    int_type(name).is_some()
        || matches!(
            name,
            "void"
                | "cir.void"
                | "cir.bool"
                | "cir.float"
                | "cir.double"
                | "cir.eh_token"
                | "cir.cleanup_token"
                | "cir.catch_token"
                | "cir.ptr"
                | "cir.array"
                | "cir.func"
                | "cir.int"
                | "cir.record"
        )
}

/// `s32i` -> (32, signed); widths 1..=128.
fn int_type(name: &str) -> Option<(u16, bool)> {
    let bytes = name.as_bytes();
    if bytes.len() < 3 || *bytes.last()? != b'i' {
        return None;
    }
    let signed = match bytes[0] {
        b's' => true,
        b'u' => false,
        _ => return None,
    };
    let digits = &name[1..name.len() - 1];
    if !digits.bytes().all(|c| c.is_ascii_digit()) || digits.starts_with('0') {
        return None;
    }
    let width: u16 = digits.parse().ok()?;
    (1..=128).contains(&width).then_some((width, signed))
}

impl Parser<'_> {
    /// Parses a type.
    pub(crate) fn parse_type(&mut self) -> PResult<Type> {
        self.parse_type_at(0)
    }

    fn parse_type_at(&mut self, depth: u32) -> PResult<Type> {
        if self.tok.kind != TokenKind::TypeId {
            return Err(self.unexpected("a type"));
        }
        let loc = self.loc();
        if depth > MAX_NESTING {
            return Err(self.error(loc, format!("types nest deeper than {MAX_NESTING} levels")));
        }
        let name = &self.tok_text()[1..];
        let common = *self.module.ctx.types.common();
        let simple = match name {
            "s32i" => Some(common.s32),
            "s8i" => Some(common.s8),
            "s16i" => Some(common.s16),
            "s64i" => Some(common.s64),
            "u8i" => Some(common.u8),
            "u16i" => Some(common.u16),
            "u32i" => Some(common.u32),
            "u64i" => Some(common.u64),
            "void" | "cir.void" => Some(common.void),
            "cir.bool" => Some(common.bool),
            "cir.float" => Some(common.float),
            "cir.double" => Some(common.double),
            "cir.eh_token" => Some(common.eh_token),
            "cir.cleanup_token" => Some(common.cleanup_token),
            "cir.catch_token" => Some(common.catch_token),
            _ => None,
        };
        if let Some(t) = simple {
            self.bump();
            return Ok(t);
        }
        if let Some((width, signed)) = int_type(name) {
            self.bump();
            return Ok(self.module.ctx.types.int(width, signed));
        }
        match name {
            "cir.ptr" => {
                self.bump();
                self.expect(TokenKind::Less, "'<'")?;
                let pointee = self.parse_type_at(depth + 1)?;
                // Upstream's `!cir.ptr<T, target_address_space(N)>`.
                if self.eat(TokenKind::Comma) {
                    self.expect_ident("target_address_space", "'target_address_space(N)' or '>'")?;
                    self.expect(TokenKind::LParen, "'('")?;
                    let space = self.expect_uint("an address space", u64::from(u32::MAX))?;
                    self.expect(TokenKind::RParen, "')'")?;
                    self.expect(TokenKind::Greater, "'>'")?;
                    let space = u32::try_from(space).unwrap_or(u32::MAX);
                    return Ok(self.module.ctx.types.ptr_in(pointee, space));
                }
                self.expect(TokenKind::Greater, "'>'")?;
                Ok(self.ptr_type(pointee))
            }
            "cir.array" => {
                self.bump();
                self.expect(TokenKind::Less, "'<'")?;
                let element = self.parse_type_at(depth + 1)?;
                self.expect_ident("x", "'x' and the array length")?;
                let len = self.expect_uint("an array length", u64::MAX)?;
                self.expect(TokenKind::Greater, "'>'")?;
                Ok(self.module.ctx.types.array(element, len))
            }
            "cir.func" => {
                self.bump();
                self.expect(TokenKind::Less, "'<'")?;
                self.expect(TokenKind::LParen, "'(' and the parameter types")?;
                let mut params = Vec::new();
                let mut abi = Vec::new();
                let vararg = self.parse_signature_params(|p| {
                    params.push(p.parse_type_at(depth + 1)?);
                    abi.push(p.parse_param_abi());
                    Ok(())
                })?;
                let ret = if self.eat(TokenKind::Arrow) {
                    Some(self.parse_type_at(depth + 1)?)
                } else {
                    None
                };
                self.expect(TokenKind::Greater, "'>'")?;
                Ok(self.func_type_abi(&params, &abi, ret, vararg))
            }
            "cir.int" => {
                self.bump();
                self.expect(TokenKind::Less, "'<'")?;
                let signed = self.parse_either("s", "u")?;
                self.expect(TokenKind::Comma, "','")?;
                let width = self.expect_uint("an integer width", 128)? as u16;
                if width == 0 {
                    return Err(self.error(loc, "integer types have a width of 1 to 128 bits"));
                }
                self.expect(TokenKind::Greater, "'>'")?;
                Ok(self.module.ctx.types.int(width, signed))
            }
            "cir.record" => self.parse_inline_anonymous_record(loc, depth),
            _ => {
                let alias = self.module.ctx.sym(name);
                let known = name.starts_with("rec_")
                    || self.module.ctx.record(alias).is_some()
                    || self.defining_alias == Some(alias)
                    || self.alias_declared_later(alias);
                if !known {
                    return Err(self.error(loc, format!("unknown type '!{name}'")));
                }
                self.bump();
                Ok(self.module.ctx.types.record(alias))
            }
        }
    }

    /// Upstream's anonymous record written where a type goes (`!cir.record<struct
    /// {T, U}>`, at the `!cir.record`): the anonymous record of that kind, flags and
    /// fields already declared, or a new one under the alias upstream's printer gives it
    /// (`rec_anon_struct`, then `rec_anon_struct1`, ...). A named record is written
    /// through its alias.
    fn parse_inline_anonymous_record(&mut self, loc: Loc, depth: u32) -> PResult<Type> {
        self.bump();
        self.expect(TokenKind::Less, "'<'")?;
        let kind_text = self.tok_text();
        let kind = match kind_text {
            "struct" if self.at(TokenKind::Ident) => RecordKind::Struct,
            "class" if self.at(TokenKind::Ident) => RecordKind::Class,
            "union" if self.at(TokenKind::Ident) => RecordKind::Union,
            _ => return Err(self.unexpected("'struct', 'class' or 'union'")),
        };
        self.bump();
        if self.at(TokenKind::String) {
            return Err(self.error(
                loc,
                "named record types are written through an alias: declare '!rec_X = !cir.record<...>' at module level",
            ));
        }
        let packed = self.eat_ident("packed");
        let padded = self.eat_ident("padded");
        self.expect(TokenKind::LBrace, "'{' and the fields")?;
        let mut fields = Vec::new();
        self.parse_comma_separated(TokenKind::RBrace, "',' or '}'", |p| {
            fields.push(p.parse_type_at(depth + 1)?);
            Ok(())
        })?;
        self.expect(TokenKind::Greater, "'>'")?;
        let ctx = &self.module.ctx;
        let existing = ctx.records.iter().find(|r| {
            r.kind == kind
                && ctx.name(r.name).is_empty()
                && r.fields.as_ref() == Some(&fields)
                && ctx.packed_records.contains(&r.alias) == packed
                && ctx.padded_records.contains(&r.alias) == padded
        });
        if let Some(record) = existing {
            return Ok(self.module.ctx.types.record(record.alias));
        }
        let base = format!("rec_anon_{kind_text}");
        let mut suffix = 0u32;
        let alias = loop {
            let name = match suffix {
                0 => base.clone(),
                n => format!("{base}{n}"),
            };
            let alias = self.module.ctx.sym(&name);
            if self.module.ctx.record(alias).is_none() && !self.alias_declared_later(alias) {
                break alias;
            }
            suffix += 1;
        };
        if packed {
            self.module.ctx.packed_records.insert(alias);
        }
        if padded {
            self.module.ctx.padded_records.insert(alias);
        }
        let name = self.module.ctx.sym("");
        self.module.add_record(RecordDecl {
            alias,
            kind,
            name,
            fields: Some(fields),
            loc,
        });
        // Declared with the records before it rather than after the item that uses it.
        if let Some(Item::Record(index)) = self.module.items.pop() {
            let at = self
                .module
                .items
                .iter()
                .rposition(|item| matches!(item, Item::Record(_)))
                .map_or(0, |last| last + 1);
            self.module.items.insert(at, Item::Record(index));
        }
        Ok(self.module.ctx.types.record(alias))
    }

    /// Parses an attribute, including its `: T` suffix when it has one.
    pub(crate) fn parse_attr(&mut self) -> PResult<Attr> {
        self.parse_attr_at(0)
    }

    fn parse_attr_at(&mut self, depth: u32) -> PResult<Attr> {
        let loc = self.loc();
        if depth > MAX_NESTING {
            return Err(self.error(
                loc,
                format!("attributes nest deeper than {MAX_NESTING} levels"),
            ));
        }
        let data = match self.tok.kind {
            TokenKind::String => {
                let t = self.tok;
                self.bump();
                AttrData::Str(self.string_bytes(t)?)
            }
            TokenKind::LBracket => {
                self.bump();
                AttrData::List(self.parse_attr_list(depth)?)
            }
            TokenKind::AttrId => {
                if let Some(&a) = self.attr_aliases.get(self.tok_text()) {
                    self.bump();
                    return Ok(a);
                }
                self.parse_hash_attr(depth)?
            }
            _ => return Err(self.unexpected("an attribute")),
        };
        if let AttrData::Int { value, ty } = data {
            if let Some(&a) = self.int_attrs.get(&(value, ty)) {
                return Ok(a);
            }
            let a = self.module.ctx.attrs.intern(data);
            self.int_attrs.insert((value, ty), a);
            return Ok(a);
        }
        Ok(self.module.ctx.attrs.intern(data))
    }

    /// The elements of `[A, B]` after the `[`.
    fn parse_attr_list(&mut self, depth: u32) -> PResult<Vec<Attr>> {
        let mut items = Vec::new();
        if self.eat(TokenKind::RBracket) {
            return Ok(items);
        }
        loop {
            items.push(self.parse_attr_at(depth + 1)?);
            if self.eat(TokenKind::RBracket) {
                return Ok(items);
            }
            self.expect(TokenKind::Comma, "',' or ']'")?;
        }
    }

    fn expect_colon_type(&mut self) -> PResult<Type> {
        self.expect(TokenKind::Colon, "':' and the attribute's type")?;
        self.parse_type()
    }

    /// A type that `ok` accepts; any other is the error `message` at the type.
    fn parse_type_where(
        &mut self,
        ok: impl FnOnce(&Self, Type) -> bool,
        message: &str,
    ) -> PResult<Type> {
        let ty_loc = self.loc();
        let ty = self.parse_type()?;
        if !ok(self, ty) {
            return Err(self.error(ty_loc, message));
        }
        Ok(ty)
    }

    fn parse_hash_attr(&mut self, depth: u32) -> PResult<AttrData> {
        let loc = self.loc();
        let name = self.tok_text();
        match name {
            "#true" | "#false" => {
                self.bump();
                Ok(AttrData::Bool(name == "#true"))
            }
            "#cir.bool" => {
                self.bump();
                self.expect(TokenKind::Less, "'<'")?;
                let value = self.parse_either("true", "false")?;
                self.expect(TokenKind::Greater, "'>'")?;
                if self.at(TokenKind::Colon) && self.peek().kind == TokenKind::TypeId {
                    self.bump();
                    self.parse_type_where(
                        |p, ty| ty == p.module.ctx.types.common().bool,
                        "a boolean attribute has type !cir.bool",
                    )?;
                }
                Ok(AttrData::Bool(value))
            }
            "#cir.int" => {
                self.bump();
                self.expect(TokenKind::Less, "'<'")?;
                let (value, value_loc) = self.expect_int("an integer")?;
                self.expect(TokenKind::Greater, "'>'")?;
                self.expect(TokenKind::Colon, "':' and the integer type")?;
                let ty_loc = self.loc();
                let ty = self.parse_type()?;
                let Some((width, signed)) = self.module.ctx.types.int_info(ty) else {
                    return Err(self.error(ty_loc, "'#cir.int' needs an integer type"));
                };
                let (min, max) = int_range(width, signed);
                if value < min || value > max {
                    let t = self.type_name(ty);
                    return Err(self.error(
                        value_loc,
                        format!("integer {value} does not fit in {t} ({min} to {max})"),
                    ));
                }
                Ok(AttrData::Int { value, ty })
            }
            "#cir.fp" => {
                self.bump();
                self.expect(TokenKind::Less, "'<'")?;
                let value_loc = self.loc();
                let text = self.tok_text();
                let bits = match self.tok.kind {
                    TokenKind::Float | TokenKind::Integer => {
                        text.parse::<f64>().ok().map(f64::to_bits)
                    }
                    TokenKind::Hex => u64::from_str_radix(&text[2..], 16).ok(),
                    _ => return Err(self.unexpected("a floating-point literal")),
                };
                let Some(bits) = bits else {
                    return Err(self.error(value_loc, "invalid floating-point literal"));
                };
                self.bump();
                self.expect(TokenKind::Greater, "'>'")?;
                self.expect(TokenKind::Colon, "':' and the floating-point type")?;
                let ty = self.parse_type_where(
                    |p, ty| p.module.ctx.types.is_float(ty),
                    "'#cir.fp' needs !cir.float or !cir.double",
                )?;
                Ok(AttrData::Float { bits, ty })
            }
            "#cir.ptr" => {
                self.bump();
                self.expect(TokenKind::Less, "'<'")?;
                // `null`, or an integer value with its type (`-24 : i64`).
                let value = if self.eat_ident("null") {
                    None
                } else {
                    let (value, value_loc) = self.expect_int("'null' or an integer")?;
                    self.expect(TokenKind::Colon, "':' and 'i64'")?;
                    self.expect_ident("i64", "'i64'")?;
                    match i64::try_from(value) {
                        Ok(v) => Some(v),
                        Err(_) => {
                            return Err(self.error(value_loc, "the pointer value must fit 64 bits"));
                        }
                    }
                };
                self.expect(TokenKind::Greater, "'>'")?;
                let ty_loc = self.loc();
                let ty = self.expect_colon_type()?;
                if !self.module.ctx.types.is_ptr(ty) {
                    return Err(self.error(ty_loc, "'#cir.ptr' needs a pointer type"));
                }
                Ok(match value {
                    None | Some(0) => AttrData::Null(ty),
                    Some(value) => AttrData::IntPtr { value, ty },
                })
            }
            "#cir.global_view" => {
                self.bump();
                self.expect(TokenKind::Less, "'<'")?;
                let (symbol, _) = self.expect_symbol("a symbol")?;
                let mut indices = Vec::new();
                if self.eat(TokenKind::Comma) {
                    self.expect(TokenKind::LBracket, "'[' and the indices")?;
                    if !self.eat(TokenKind::RBracket) {
                        loop {
                            let (v, l) = self.expect_int("an index")?;
                            let Ok(v) = i64::try_from(v) else {
                                return Err(self.error(l, "index does not fit in 64 bits"));
                            };
                            indices.push(v);
                            if self.eat(TokenKind::Colon) {
                                self.expect(TokenKind::Ident, "an integer type such as 'i32'")?;
                            }
                            if self.eat(TokenKind::RBracket) {
                                break;
                            }
                            self.expect(TokenKind::Comma, "',' or ']'")?;
                        }
                    }
                }
                self.expect(TokenKind::Greater, "'>'")?;
                let ty = if self.at(TokenKind::Colon) && self.peek().kind == TokenKind::TypeId {
                    self.bump();
                    Some(self.parse_type()?)
                } else {
                    None
                };
                Ok(AttrData::GlobalView {
                    symbol,
                    indices,
                    ty,
                })
            }
            "#cir.const_array" => {
                self.bump();
                self.expect(TokenKind::Less, "'<'")?;
                let (elements, inner) = if self.at(TokenKind::String) {
                    let t = self.tok;
                    self.bump();
                    let bytes = self.string_bytes(t)?;
                    self.expect(TokenKind::Colon, "':' and the attribute's type")?;
                    let inner_loc = self.loc();
                    let inner = self.parse_type()?;
                    (ConstArrayElements::Bytes(bytes), Some((inner, inner_loc)))
                } else {
                    self.expect(TokenKind::LBracket, "a string or '[' and the elements")?;
                    (
                        ConstArrayElements::Attrs(self.parse_attr_list(depth)?),
                        None,
                    )
                };
                let trailing_zeros = if self.eat(TokenKind::Comma) {
                    self.expect_ident("trailing_zeros", "'trailing_zeros'")?;
                    true
                } else {
                    false
                };
                self.expect(TokenKind::Greater, "'>'")?;
                let ty_loc = self.loc();
                let ty = self.expect_colon_type()?;
                if trailing_zeros && !matches!(self.module.ctx.types.get(ty), TypeData::Array(..)) {
                    return Err(self.error(
                        ty_loc,
                        "a '#cir.const_array' with 'trailing_zeros' needs an array type",
                    ));
                }
                if let (Some((inner, inner_loc)), ConstArrayElements::Bytes(bytes)) =
                    (inner, &elements)
                {
                    if !trailing_zeros && inner != ty {
                        return Err(
                            self.error(ty_loc, "the two types of a '#cir.const_array' differ")
                        );
                    }
                    // With trailing zeros the string's type is the string's length of the
                    // array's elements.
                    if trailing_zeros {
                        let fits = match (
                            self.module.ctx.types.get(inner),
                            self.module.ctx.types.get(ty),
                        ) {
                            (TypeData::Array(e, n), TypeData::Array(outer, _)) => {
                                e == outer && *n == bytes.len() as u64
                            }
                            _ => false,
                        };
                        if !fits {
                            let t = self.type_name(ty);
                            return Err(self.error(
                                inner_loc,
                                format!(
                                    "the string's type must be an array of the {} bytes of {t}'s element type",
                                    bytes.len()
                                ),
                            ));
                        }
                    }
                }
                Ok(AttrData::ConstArray {
                    elements,
                    ty,
                    trailing_zeros,
                })
            }
            "#cir.typeinfo" | "#cir.const_record" => {
                self.bump();
                self.expect(TokenKind::Less, "'<'")?;
                self.expect(TokenKind::LBrace, "'{' and the fields")?;
                let mut fields = Vec::new();
                if !self.eat(TokenKind::RBrace) {
                    loop {
                        fields.push(self.parse_attr_at(depth + 1)?);
                        if self.eat(TokenKind::RBrace) {
                            break;
                        }
                        self.expect(TokenKind::Comma, "',' or '}'")?;
                    }
                }
                self.expect(TokenKind::Greater, "'>'")?;
                let ty_loc = self.loc();
                let ty = self.expect_colon_type()?;
                if !matches!(self.module.ctx.types.get(ty), TypeData::Record(_)) {
                    return Err(self.error(ty_loc, format!("'{name}' needs a record type")));
                }
                Ok(AttrData::ConstRecord {
                    fields,
                    ty,
                    typeinfo: name == "#cir.typeinfo",
                })
            }
            "#cir.zero" => {
                self.bump();
                Ok(AttrData::Zero(self.expect_colon_type()?))
            }
            "#cir.undef" => {
                self.bump();
                Ok(AttrData::Undef(self.expect_colon_type()?))
            }
            _ => Err(self.error(loc, format!("unknown attribute '{name}'"))),
        }
    }
}
