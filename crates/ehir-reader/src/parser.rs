//! The parser core: token helpers, diagnostics, error recovery and the module-level items
//! (record aliases, `cir.typeinfo`, `cir.global`, `cir.func` headers). Function bodies are
//! parsed by `body.rs`, ops by `ops.rs`, types and attributes by `types.rs`.

use crate::body::FuncState;
use crate::lexer::{LexError, Lexer, Token, TokenKind, unescape};
use ehir_core::{
    Diagnostic, FuncId, Function, Global, Linkage, Loc, Module, ParamAbi, Phase, RecordDecl,
    RecordKind, Symbol, Type, TypeInfoDecl,
};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

/// A syntax error was reported; unwind to the enclosing item and recover there.
#[derive(Debug)]
pub(crate) struct Abort;

pub(crate) type PResult<T> = Result<T, Abort>;

/// How a function of the module came to be.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum FuncOrigin {
    /// Created for a call to an undeclared callee; `item` is the index of its provisional
    /// entry in the module's items, dropped when an explicit `cir.func` of that name
    /// appears (the function then takes the place of its `cir.func` in source order).
    Implicit { item: usize },
    /// An explicit `cir.func` declaration.
    Declared,
    /// An explicit `cir.func` definition (or one being parsed).
    Defined,
}

/// Names with their locations: result names of an op.
pub(crate) type Names<'s> = SmallVec<[(&'s str, Loc); 2]>;
/// Named parameters: of a block label or a handler region.
pub(crate) type Params<'s> = SmallVec<[(&'s str, Loc, Type); 2]>;
/// Function parameters: optional name, type.
pub(crate) type FuncParams<'s> = SmallVec<[(Option<(&'s str, Loc)>, Type); 4]>;
/// Key of the function type cache: parameters, result, varargs.
pub(crate) type FuncTypeKey = (SmallVec<[Type; 6]>, Option<Type>, bool);

/// A parsed `cir.func` header.
pub(crate) struct FuncHeader<'s> {
    pub name: Symbol,
    pub name_loc: Loc,
    pub linkage: Linkage,
    pub nothrow: bool,
    pub dso_local: bool,
    pub hidden: bool,
    pub inline: Option<ehir_core::InlineKind>,
    /// `attributes {...}` other than `nothrow`.
    pub attributes: Vec<ehir_core::ModuleAttribute>,
    /// Parameter names (for definitions) and types.
    pub params: FuncParams<'s>,
    pub phase: Option<Phase>,
    pub personality: Option<Symbol>,
    /// `global_ctor[(N)]`.
    pub global_ctor: Option<u32>,
    pub sig: Type,
}

impl FuncHeader<'_> {
    /// Gives `func` the header's linkage, attributes and personality, and `loc`.
    pub fn apply_to(&self, func: &mut Function, loc: Loc) {
        func.linkage = self.linkage;
        func.nothrow = self.nothrow;
        func.dso_local = self.dso_local;
        func.hidden = self.hidden;
        func.inline = self.inline;
        func.attributes = self.attributes.clone();
        func.personality = self.personality;
        func.global_ctor = self.global_ctor;
        func.loc = loc;
    }
}

pub(crate) struct Parser<'s> {
    pub text: &'s str,
    lexer: Lexer<'s>,
    /// The current token.
    pub tok: Token,
    pub module: Module,
    pub diags: Vec<Diagnostic>,
    /// Bare symbol names already interned (owned: a look-up does not read the text of the
    /// symbol's first occurrence, which the caller may have released).
    symbol_cache: FxHashMap<Box<str>, Symbol>,
    /// The function being parsed.
    pub func: FuncState<'s>,
    pub origins: FxHashMap<FuncId, FuncOrigin>,
    /// What the whole file declares, collected on demand (see [`Prescan`]).
    prescan: Option<Prescan>,
    /// The record alias being defined (it may refer to itself).
    pub defining_alias: Option<Symbol>,
    /// Signatures of the module's functions by name (a fast mirror of the module's index).
    pub function_sigs: FxHashMap<Symbol, Type>,
    /// Interning caches in front of the module's stores (which hash with SipHash).
    pub ptr_types: FxHashMap<Type, Type>,
    pub func_types: FxHashMap<FuncTypeKey, Type>,
    pub int_attrs: FxHashMap<(i128, Type), ehir_core::Attr>,
    /// Attribute aliases defined at module level (`#name = ATTR`), by their `#name`.
    pub attr_aliases: FxHashMap<&'s str, ehir_core::Attr>,
    /// The size of the last function body parsed: room reserved for the next one.
    pub body_size_hint: ehir_core::dfg::DfgSize,
    /// Indices into the module's items of implicit declarations that an explicit
    /// `cir.func` replaced at its own place; removed when the module is complete.
    superseded_items: Vec<usize>,
}

/// Declarations found by a quick scan of the whole file, for references to things
/// declared further down: record aliases (`!x = ...`) and `cir.func` signatures (for calls
/// without a signature).
#[derive(Default)]
pub(crate) struct Prescan {
    aliases: FxHashSet<Symbol>,
    functions: FxHashMap<Symbol, Type>,
}

/// Deepest nesting of types and attributes (the printer recurses on them).
pub(crate) const MAX_NESTING: u32 = 256;

impl<'s> Parser<'s> {
    pub(crate) fn new(text: &'s str) -> Self {
        let mut lexer = Lexer::new(text);
        let tok = lexer.next_token();
        Parser {
            text,
            lexer,
            tok,
            module: Module::new(),
            diags: Vec::new(),
            symbol_cache: FxHashMap::default(),
            func: FuncState::default(),
            origins: FxHashMap::default(),
            prescan: None,
            defining_alias: None,
            function_sigs: FxHashMap::default(),
            ptr_types: FxHashMap::default(),
            func_types: FxHashMap::default(),
            int_attrs: FxHashMap::default(),
            attr_aliases: FxHashMap::default(),
            body_size_hint: ehir_core::dfg::DfgSize::default(),
            superseded_items: Vec::new(),
        }
    }

    // ---- tokens --------------------------------------------------------------------------

    #[inline]
    pub(crate) fn bump(&mut self) {
        self.tok = self.lexer.next_token();
    }

    /// The token after the current one.
    #[inline]
    pub(crate) fn peek(&self) -> Token {
        let mut l = self.lexer;
        l.next_token()
    }

    /// A copy of the lexer positioned after the current token (for longer look-ahead).
    pub(crate) fn lookahead(&self) -> Lexer<'s> {
        self.lexer
    }

    #[inline]
    pub(crate) fn text_of(&self, t: Token) -> &'s str {
        self.text
            .get(t.start as usize..t.end as usize)
            .unwrap_or("")
    }

    #[inline]
    pub(crate) fn tok_text(&self) -> &'s str {
        self.text_of(self.tok)
    }

    #[inline]
    pub(crate) fn loc(&self) -> Loc {
        Loc(self.tok.start)
    }

    #[inline]
    pub(crate) fn at(&self, kind: TokenKind) -> bool {
        self.tok.kind == kind
    }

    #[inline]
    pub(crate) fn at_ident(&self, word: &str) -> bool {
        self.tok.kind == TokenKind::Ident && self.tok_text() == word
    }

    #[inline]
    pub(crate) fn eat(&mut self, kind: TokenKind) -> bool {
        if self.tok.kind == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    #[inline]
    pub(crate) fn eat_ident(&mut self, word: &str) -> bool {
        if self.at_ident(word) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Expects a token of `kind`; `what` describes it for the error message.
    #[inline]
    pub(crate) fn expect(&mut self, kind: TokenKind, what: &str) -> PResult<Token> {
        if self.tok.kind == kind {
            let t = self.tok;
            self.bump();
            Ok(t)
        } else {
            Err(self.unexpected(what))
        }
    }

    pub(crate) fn expect_ident(&mut self, word: &str, what: &str) -> PResult<()> {
        if self.eat_ident(word) {
            Ok(())
        } else {
            Err(self.unexpected(what))
        }
    }

    /// Reports that the current token is not `what` and returns [`Abort`].
    #[cold]
    #[inline(never)]
    pub(crate) fn unexpected(&mut self, what: &str) -> Abort {
        let message = match self.tok.kind {
            TokenKind::Eof => format!("expected {what}, found end of file"),
            TokenKind::Error(LexError::UnexpectedChar) => {
                let c = self.tok_text().chars().next().unwrap_or('?');
                format!(
                    "unexpected character '{}'; expected {what}",
                    c.escape_debug()
                )
            }
            TokenKind::Error(e) => e.message().to_string(),
            _ => format!("expected {what}, found '{}'", self.tok_text()),
        };
        self.error(self.loc(), message)
    }

    /// Records an error and returns [`Abort`] for `?`.
    #[cold]
    #[inline(never)]
    pub(crate) fn error(&mut self, loc: Loc, message: impl Into<String>) -> Abort {
        self.diags.push(Diagnostic::error(loc, message));
        Abort
    }

    /// Records an error without aborting the current item.
    pub(crate) fn report(&mut self, loc: Loc, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(loc, message));
    }

    // ---- interning ----------------------------------------------------------------------

    /// Adds (or replaces) a function of the module, keeping [`Parser::function_sigs`].
    pub(crate) fn add_function(&mut self, func: Function) -> FuncId {
        self.function_sigs.insert(func.name, func.sig);
        self.module.add_function(func)
    }

    pub(crate) fn ptr_type(&mut self, pointee: Type) -> Type {
        if let Some(&t) = self.ptr_types.get(&pointee) {
            return t;
        }
        let t = self.module.ctx.types.ptr(pointee);
        self.ptr_types.insert(pointee, t);
        t
    }

    /// A function type with [`ParamAbi`] marks (`abi` may be shorter than `params`).
    pub(crate) fn func_type_abi(
        &mut self,
        params: &[Type],
        abi: &[ParamAbi],
        ret: Option<Type>,
        vararg: bool,
    ) -> Type {
        if abi.iter().all(|a| *a == ParamAbi::Default) {
            return self.func_type(params, ret, vararg);
        }
        self.module
            .ctx
            .types
            .func_with_abi(params.to_vec(), abi.to_vec(), ret, vararg)
    }

    /// One of two words: `true` for `yes`, `false` for `no`.
    pub(crate) fn parse_either(&mut self, yes: &str, no: &str) -> PResult<bool> {
        let word = self.at(TokenKind::Ident).then(|| self.tok_text());
        let value = match word {
            Some(w) if w == yes => true,
            Some(w) if w == no => false,
            _ => return Err(self.unexpected(&format!("'{yes}' or '{no}'"))),
        };
        self.bump();
        Ok(value)
    }

    /// Reports that `entity` (`global '@g'`) is defined again at `at`, first at
    /// `previous`.
    pub(crate) fn report_redefinition(&mut self, at: Loc, entity: &str, previous: Loc) {
        let d = Diagnostic::error(at, format!("redefinition of {entity}"))
            .with_note(previous, "previous definition is here");
        self.diags.push(d);
    }

    /// The rest of a list after its opening token: items parsed by `item`, separated by
    /// `,`, then `close` (`expected` names what may follow an item, for the error).
    pub(crate) fn parse_comma_separated(
        &mut self,
        close: TokenKind,
        expected: &str,
        mut item: impl FnMut(&mut Self) -> PResult<()>,
    ) -> PResult<()> {
        if self.eat(close) {
            return Ok(());
        }
        loop {
            item(self)?;
            if self.eat(close) {
                return Ok(());
            }
            self.expect(TokenKind::Comma, expected)?;
        }
    }

    /// The field types of record `alias` after the `{`, up to and including the `}`;
    /// `named_fields` skips a name before each type (upstream's older
    /// `!cir.struct<"S" {name T}>`). The record may refer to itself meanwhile.
    fn parse_record_fields(&mut self, alias: Symbol, named_fields: bool) -> PResult<Vec<Type>> {
        self.defining_alias = Some(alias);
        let mut fields = Vec::new();
        let result = self.parse_comma_separated(TokenKind::RBrace, "',' or '}'", |p| {
            if named_fields && p.at(TokenKind::Ident) {
                p.bump();
            }
            fields.push(p.parse_type()?);
            Ok(())
        });
        self.defining_alias = None;
        result.map(|()| fields)
    }

    /// The rest of a parameter list after its `(`: parameters parsed by `param`,
    /// separated by `,`, optionally ending in `...`, then `)`. Returns whether it ends in
    /// `...`.
    pub(crate) fn parse_signature_params(
        &mut self,
        mut param: impl FnMut(&mut Self) -> PResult<()>,
    ) -> PResult<bool> {
        if self.eat(TokenKind::RParen) {
            return Ok(false);
        }
        loop {
            if self.eat(TokenKind::Ellipsis) {
                self.expect(TokenKind::RParen, "')' after '...'")?;
                return Ok(true);
            }
            param(self)?;
            if self.eat(TokenKind::RParen) {
                return Ok(false);
            }
            self.expect(TokenKind::Comma, "',' or ')'")?;
        }
    }

    /// The [`ParamAbi`] mark after a parameter's type (`by_value`, `by_value_result`), if
    /// one is there.
    pub(crate) fn parse_param_abi(&mut self) -> ParamAbi {
        if self.tok.kind == TokenKind::Ident
            && let Some(a) = ParamAbi::from_keyword(self.tok_text())
        {
            self.bump();
            return a;
        }
        ParamAbi::Default
    }

    pub(crate) fn func_type(&mut self, params: &[Type], ret: Option<Type>, vararg: bool) -> Type {
        let key = (SmallVec::from_slice(params), ret, vararg);
        if let Some(&t) = self.func_types.get(&key) {
            return t;
        }
        let t = self.module.ctx.types.func(params.to_vec(), ret, vararg);
        self.func_types.insert(key, t);
        t
    }

    // ---- literals ------------------------------------------------------------------------

    /// Interns the symbol of a `@name` / `@"name"` token.
    pub(crate) fn symbol_of(&mut self, t: Token) -> PResult<Symbol> {
        let text = self.text_of(t);
        let name = &text[1..];
        if !name.starts_with('"') {
            if let Some(&s) = self.symbol_cache.get(name) {
                return Ok(s);
            }
            let s = self.module.ctx.sym(name);
            self.symbol_cache.insert(name.into(), s);
            return Ok(s);
        }
        let s = self.decode_utf8_string(name, t.start + 1)?;
        Ok(self.module.ctx.sym(&s))
    }

    /// Expects a `@symbol`.
    pub(crate) fn expect_symbol(&mut self, what: &str) -> PResult<(Symbol, Loc)> {
        if self.tok.kind != TokenKind::SymbolRef {
            return Err(self.unexpected(what));
        }
        let t = self.tok;
        self.bump();
        Ok((self.symbol_of(t)?, Loc(t.start)))
    }

    /// Decodes a quoted string token's bytes.
    pub(crate) fn string_bytes(&mut self, t: Token) -> PResult<Vec<u8>> {
        let text = self.text_of(t);
        unescape(text).map_err(|at| {
            self.error(
                Loc(t.start + at as u32),
                "invalid escape in string (use \\\", \\\\, \\n, \\t or \\XX)",
            )
        })
    }

    fn decode_utf8_string(&mut self, quoted: &str, start: u32) -> PResult<String> {
        let bytes = unescape(quoted).map_err(|at| {
            self.error(
                Loc(start + at as u32),
                "invalid escape in string (use \\\", \\\\, \\n, \\t or \\XX)",
            )
        })?;
        String::from_utf8(bytes).map_err(|_| self.error(Loc(start), "name is not valid UTF-8"))
    }

    /// Expects a string and interns it as a symbol (alloca names, labels, field names).
    pub(crate) fn expect_string_symbol(&mut self, what: &str) -> PResult<Symbol> {
        if self.tok.kind != TokenKind::String {
            return Err(self.unexpected(what));
        }
        let t = self.tok;
        self.bump();
        let s = self.decode_utf8_string(self.text_of(t), t.start)?;
        Ok(self.module.ctx.sym(&s))
    }

    /// Expects an integer literal and returns it as `i128`.
    pub(crate) fn expect_int(&mut self, what: &str) -> PResult<(i128, Loc)> {
        if self.tok.kind != TokenKind::Integer {
            return Err(self.unexpected(what));
        }
        let loc = self.loc();
        match parse_decimal(self.tok_text()) {
            Some(v) => {
                self.bump();
                Ok((v, loc))
            }
            None => Err(self.error(loc, "integer literal is out of range")),
        }
    }

    /// Expects an unsigned integer that fits `max`.
    pub(crate) fn expect_uint(&mut self, what: &str, max: u64) -> PResult<u64> {
        let (v, loc) = self.expect_int(what)?;
        if v < 0 || v > max as i128 {
            return Err(self.error(loc, format!("{what} must be between 0 and {max}")));
        }
        Ok(v as u64)
    }

    // ---- the module ---------------------------------------------------------------------

    /// Parses the whole text; `progress(offset)` is told, after each top-level item, that
    /// the parser is done with the text before `offset` (unless a later reference makes
    /// it scan the whole file for declarations).
    pub(crate) fn parse_module(&mut self, progress: &mut dyn FnMut(usize)) {
        let mut open_module: Option<Loc> = None;
        while self.tok.kind != TokenKind::Eof {
            let start = self.tok.start;
            progress(start as usize);
            if self.at_ident("module") && open_module.is_none() && !self.module.wrapped {
                match self.parse_module_header() {
                    Ok(()) => open_module = Some(Loc(start)),
                    Err(_) => self.recover(start),
                }
                continue;
            }
            if open_module.is_some() && self.at(TokenKind::RBrace) {
                self.bump();
                open_module = None;
                continue;
            }
            if self.parse_item().is_err() {
                self.recover(start);
            }
        }
        if let Some(loc) = open_module
            && self.diags.is_empty()
        {
            self.report(loc, "expected '}' to close this 'module'");
        }
        self.drop_superseded_items();
    }

    /// `module [@name] [attributes {name = value, ...}] {` (the items follow).
    fn parse_module_header(&mut self) -> PResult<()> {
        self.bump();
        if self.at(TokenKind::SymbolRef) {
            self.bump();
        }
        if self.eat_ident("attributes") {
            if !self.at(TokenKind::LBrace) {
                return Err(self.unexpected("'{' and the module's attributes"));
            }
            let attributes = self.scan_attribute_dict()?;
            self.module.attributes = attributes;
        }
        self.expect(TokenKind::LBrace, "'{' and the module's items")?;
        self.module.wrapped = true;
        Ok(())
    }

    /// Reads `{name = value, ...}` at the current `{`, keeping each value's text as
    /// written (values may be any attribute: strings, `#dlti.dl_spec<...>`, dictionaries).
    pub(crate) fn scan_attribute_dict(&mut self) -> PResult<Vec<ehir_core::ModuleAttribute>> {
        let open = self.tok.start as usize;
        let bytes = self.text.as_bytes();
        let mut at = open + 1;
        let mut entries = Vec::new();
        loop {
            while at < bytes.len() && (bytes[at] as char).is_ascii_whitespace() {
                at += 1;
            }
            if at < bytes.len() && bytes[at] == b'}' {
                at += 1;
                break;
            }
            let name_start = at;
            while at < bytes.len() && !matches!(bytes[at], b'=' | b',' | b'}') {
                at += 1;
            }
            let name = self.text[name_start..at].trim().to_string();
            if name.is_empty() || at >= bytes.len() {
                return Err(self.error(Loc(name_start as u32), "expected an attribute name"));
            }
            let value = if bytes[at] == b'=' {
                at += 1;
                let value_start = at;
                let mut depth = 0i32;
                let mut in_string = false;
                while at < bytes.len() {
                    let c = bytes[at];
                    if in_string {
                        if c == b'\\' {
                            at += 1;
                        } else if c == b'"' {
                            in_string = false;
                        }
                    } else {
                        match c {
                            b'"' => in_string = true,
                            b'<' | b'(' | b'[' | b'{' => depth += 1,
                            b'>' | b')' | b']' => depth -= 1,
                            b'}' if depth > 0 => depth -= 1,
                            b'}' | b',' if depth == 0 => break,
                            _ => {}
                        }
                    }
                    at += 1;
                }
                self.text[value_start..at.min(bytes.len())]
                    .trim()
                    .to_string()
            } else {
                "unit".to_string()
            };
            if at >= bytes.len() {
                return Err(self.error(Loc(open as u32), "unterminated attribute dictionary"));
            }
            entries.push(ehir_core::ModuleAttribute { name, value });
            if bytes[at] == b',' {
                at += 1;
            }
        }
        self.lexer = Lexer::at(self.text, at);
        self.bump();
        Ok(entries)
    }

    /// Removes the provisional items of implicitly declared functions whose `cir.func`
    /// came later (one pass over the items, however many there are).
    fn drop_superseded_items(&mut self) {
        if self.superseded_items.is_empty() {
            return;
        }
        self.superseded_items.sort_unstable();
        let superseded = std::mem::take(&mut self.superseded_items);
        let mut next = superseded.iter().peekable();
        let mut index = 0;
        self.module.items.retain(|_| {
            let keep = next.next_if_eq(&&index).is_none();
            index += 1;
            keep
        });
    }

    /// Moves an implicitly declared function to the end of the module's items, where its
    /// explicit `cir.func` is being read: functions keep their source order whether or not
    /// a call mentions them first, so printing is a fixed point.
    fn move_to_explicit_place(&mut self, id: FuncId) {
        if let Some(FuncOrigin::Implicit { item }) = self.origins.get(&id).copied() {
            self.superseded_items.push(item);
            self.module.items.push(ehir_core::Item::Function(id));
        }
    }

    /// Whether the current token starts a top-level item on its own line (used to resume
    /// after an error and to end a stray fragment of ops at module level).
    pub(crate) fn at_item_start(&self) -> bool {
        let keyword = match self.tok.kind {
            TokenKind::Ident => {
                matches!(self.tok_text(), "cir.func" | "cir.global" | "cir.typeinfo")
            }
            TokenKind::TypeId | TokenKind::AttrId => self.peek().kind == TokenKind::Equal,
            _ => false,
        };
        if !keyword {
            return false;
        }
        let before = &self.text.as_bytes()[..self.tok.start as usize];
        before
            .iter()
            .rev()
            .find(|&&c| !matches!(c, b' ' | b'\t' | b'\r'))
            .is_none_or(|&c| c == b'\n')
    }

    /// Skips to the next top-level item after an error in the item that began at `start`.
    fn recover(&mut self, start: u32) {
        if self.tok.start == start && self.tok.kind != TokenKind::Eof {
            self.bump();
        }
        while self.tok.kind != TokenKind::Eof && !self.at_item_start() {
            self.bump();
        }
    }

    fn parse_item(&mut self) -> PResult<()> {
        match self.tok.kind {
            TokenKind::TypeId if self.peek().kind == TokenKind::Equal => self.parse_record_alias(),
            TokenKind::AttrId if self.peek().kind == TokenKind::Equal => self.parse_attr_alias(),
            TokenKind::Ident => match self.tok_text() {
                "cir.func" => self.parse_function(),
                "cir.global" => self.parse_global(),
                "cir.typeinfo" => self.parse_typeinfo(),
                name if name.starts_with("cir.") => {
                    let message = format!(
                        "'{name}' is not allowed at module level: ops must be inside a 'cir.func' body"
                    );
                    self.report(self.loc(), message);
                    self.parse_fragment()
                }
                _ => Err(self.unexpected(
                    "a top-level item ('cir.func', 'cir.global', 'cir.typeinfo' or a record alias)",
                )),
            },
            TokenKind::ValueId | TokenKind::BlockId => {
                let message = format!(
                    "'{}' is not allowed at module level: ops and blocks must be inside a 'cir.func' body",
                    self.tok_text()
                );
                self.report(self.loc(), message);
                self.parse_fragment()
            }
            _ => Err(self.unexpected(
                "a top-level item ('cir.func', 'cir.global', 'cir.typeinfo' or a record alias)",
            )),
        }
    }

    /// `!rec_X = !cir.record<struct "X" {T, U}>` or `... incomplete>`.
    fn parse_record_alias(&mut self) -> PResult<()> {
        let alias_tok = self.tok;
        let loc = self.loc();
        let alias_name = &self.text_of(alias_tok)[1..];
        if crate::types::is_builtin_type_name(alias_name) {
            // Upstream files start with `!s32i = !cir.int<s, 32>`: accepted when the
            // definition is the builtin type itself.
            let builtin = self.parse_type()?;
            self.expect(TokenKind::Equal, "'='")?;
            let defined_at = self.loc();
            let defined = self.parse_type()?;
            if defined != builtin {
                return Err(self.error(
                    defined_at,
                    format!("cannot redefine the builtin type '!{alias_name}' as another type"),
                ));
            }
            return Ok(());
        }
        self.bump();
        self.expect(TokenKind::Equal, "'='")?;
        if self.at(TokenKind::TypeId) && self.tok_text() == "!cir.struct" {
            return self.parse_named_field_struct(alias_name, loc);
        }
        if !(self.at(TokenKind::TypeId) && self.tok_text() == "!cir.record") {
            return Err(self.unexpected("'!cir.record'"));
        }
        self.bump();
        self.expect(TokenKind::Less, "'<'")?;
        let kind = match self.tok_text() {
            "struct" if self.at(TokenKind::Ident) => RecordKind::Struct,
            "class" if self.at(TokenKind::Ident) => RecordKind::Class,
            "union" if self.at(TokenKind::Ident) => RecordKind::Union,
            _ => return Err(self.unexpected("'struct', 'class' or 'union'")),
        };
        self.bump();
        // Upstream's anonymous records have no name: `!cir.record<struct {T}>`,
        // `!cir.record<struct packed {T}>`.
        let name = if !self.at(TokenKind::String) {
            self.module.ctx.sym("")
        } else {
            self.expect_string_symbol("the record's name (a string)")?
        };
        let alias = self.module.ctx.sym(alias_name);
        if self.eat_ident("packed") {
            self.module.ctx.packed_records.insert(alias);
        }
        if self.eat_ident("padded") {
            self.module.ctx.padded_records.insert(alias);
        }
        let fields = if self.eat_ident("incomplete") {
            None
        } else {
            self.expect(TokenKind::LBrace, "'{' or 'incomplete'")?;
            Some(self.parse_record_fields(alias, false)?)
        };
        self.expect(TokenKind::Greater, "'>'")?;
        if let Some(previous) = self.module.ctx.record(alias)
            && previous.fields.is_some()
        {
            let previous_loc = previous.loc;
            self.report_redefinition(loc, &format!("record '!{alias_name}'"), previous_loc);
            return Ok(());
        }
        self.module.add_record(RecordDecl {
            alias,
            kind,
            name,
            fields,
            loc,
        });
        Ok(())
    }

    /// Upstream's older `!cir.struct<"S" {name T, name U}>` (at the `!cir.struct`): a
    /// struct record; the field names are dropped (it prints as `!cir.record`).
    fn parse_named_field_struct(&mut self, alias_name: &str, loc: Loc) -> PResult<()> {
        self.bump();
        self.expect(TokenKind::Less, "'<'")?;
        let name = self.expect_string_symbol("the struct's name (a string)")?;
        let alias = self.module.ctx.sym(alias_name);
        self.expect(TokenKind::LBrace, "'{' and the fields")?;
        let fields = self.parse_record_fields(alias, true)?;
        self.expect(TokenKind::Greater, "'>'")?;
        if self
            .module
            .ctx
            .record(alias)
            .is_some_and(|r| r.fields.is_some())
        {
            return Err(self.error(loc, format!("redefinition of record '!{alias_name}'")));
        }
        self.module.add_record(RecordDecl {
            alias,
            kind: RecordKind::Struct,
            name,
            fields: Some(fields),
            loc,
        });
        Ok(())
    }

    /// `#name = ATTR` (upstream's attribute aliases, e.g. `#false = #cir.bool<false> :
    /// !cir.bool`): later uses of `#name` stand for the attribute. `#true` and `#false`
    /// may only restate themselves.
    fn parse_attr_alias(&mut self) -> PResult<()> {
        let name_tok = self.tok;
        let name = self.text_of(name_tok);
        self.bump();
        self.expect(TokenKind::Equal, "'='")?;
        let at = self.loc();
        let attr = self.parse_attr()?;
        let builtin = match name {
            "#true" => Some(true),
            "#false" => Some(false),
            _ => None,
        };
        if let Some(value) = builtin {
            if *self.module.ctx.attrs.get(attr) != ehir_core::AttrData::Bool(value) {
                return Err(self.error(
                    at,
                    format!("cannot redefine the builtin attribute '{name}'"),
                ));
            }
            return Ok(());
        }
        if self.attr_aliases.insert(name, attr).is_some() {
            return Err(self.error(
                Loc(name_tok.start),
                format!("redefinition of attribute alias '{name}'"),
            ));
        }
        Ok(())
    }

    /// `cir.typeinfo @_ZTI1D : !rec_D bases [@_ZTI1B at 0, @_ZTI1V at -24 virtual private]`
    /// (Microsoft: `@"??_R0?AUV@@@8" at 4 virtual vbptr 0`)
    fn parse_typeinfo(&mut self) -> PResult<()> {
        let loc = self.loc();
        self.bump();
        let (symbol, symbol_loc) = self.expect_symbol("the typeinfo symbol")?;
        self.expect(TokenKind::Colon, "':'")?;
        let ty = self.parse_type()?;
        let mut bases = Vec::new();
        if self.eat_ident("bases") {
            self.expect(TokenKind::LBracket, "'['")?;
            if !self.eat(TokenKind::RBracket) {
                loop {
                    let (base, _) = self.expect_symbol("a base-class typeinfo symbol")?;
                    self.expect_ident("at", "'at' and the base's offset")?;
                    let (offset, offset_loc) = self.expect_int("a base offset")?;
                    let Ok(offset) = i64::try_from(offset) else {
                        return Err(self.error(offset_loc, "a base offset must fit 64 bits"));
                    };
                    let is_virtual = self.eat_ident("virtual");
                    let vbptr_offset = if is_virtual && self.eat_ident("vbptr") {
                        let (vbptr, vbptr_loc) = self.expect_int("a vbtable pointer offset")?;
                        match u64::try_from(vbptr) {
                            Ok(vbptr) => Some(vbptr),
                            Err(_) => {
                                return Err(self.error(
                                    vbptr_loc,
                                    "a vbtable pointer offset must fit 64 bits",
                                ));
                            }
                        }
                    } else {
                        None
                    };
                    let public = !self.eat_ident("private");
                    bases.push(ehir_core::TypeInfoBase {
                        symbol: base,
                        offset,
                        public,
                        is_virtual,
                        vbptr_offset,
                    });
                    if self.eat(TokenKind::RBracket) {
                        break;
                    }
                    self.expect(TokenKind::Comma, "',' or ']'")?;
                }
            }
        }
        if let Some(previous) = self.module.ctx.typeinfo(symbol) {
            let previous_loc = previous.loc;
            let entity = format!("typeinfo '@{}'", self.module.ctx.name(symbol));
            self.report_redefinition(symbol_loc, &entity, previous_loc);
            return Ok(());
        }
        self.module.add_typeinfo(TypeInfoDecl {
            symbol,
            ty,
            bases,
            loc,
        });
        Ok(())
    }

    fn parse_linkage(&mut self) -> Option<Linkage> {
        if self.tok.kind != TokenKind::Ident {
            return None;
        }
        let text = self.tok_text();
        let linkage = Linkage::ALL.into_iter().find(|l| l.name() == text)?;
        self.bump();
        Some(linkage)
    }

    /// `{alignment = N : i64}`
    pub(crate) fn parse_alignment_dict(&mut self, max: u64) -> PResult<u64> {
        self.expect(TokenKind::LBrace, "'{'")?;
        self.expect_ident("alignment", "'alignment'")?;
        self.expect(TokenKind::Equal, "'='")?;
        let align = self.expect_uint("an alignment", max)?;
        if self.eat(TokenKind::Colon) {
            self.expect(TokenKind::Ident, "an integer type such as 'i64'")?;
        }
        self.expect(TokenKind::RBrace, "'}'")?;
        Ok(align)
    }

    /// `cir.global [constant] [LINKAGE] @name = ATTR [: T] [{alignment = N : i64}]` or
    /// `cir.global [constant] [LINKAGE] @name : T [...]`.
    fn parse_global(&mut self) -> PResult<()> {
        let loc = self.loc();
        self.bump();
        let private_visibility = if self.at(TokenKind::String) {
            let visibility = self.tok_text();
            if visibility != "\"private\"" && visibility != "\"public\"" {
                return Err(self.unexpected("'\"private\"' or '\"public\"'"));
            }
            self.bump();
            visibility == "\"private\""
        } else {
            false
        };
        let mut constant = self.eat_ident("constant");
        let linkage = self.parse_linkage().unwrap_or_default();
        constant |= self.eat_ident("constant");
        let (name, name_loc) = self.expect_symbol("the global's name")?;
        let (init, ty) = if self.eat(TokenKind::Equal) {
            let attr = self.parse_attr()?;
            let bool_ty = self.module.ctx.types.common().bool;
            let attr_ty = self.module.ctx.attrs.get(attr).ty(bool_ty);
            let ty = match attr_ty {
                Some(t) => {
                    if self.at(TokenKind::Colon) {
                        let colon = self.loc();
                        self.bump();
                        let stated = self.parse_type()?;
                        if stated != t {
                            return Err(self.error(
                                colon,
                                "the global's type does not match its initializer's type",
                            ));
                        }
                    }
                    t
                }
                None => {
                    self.expect(TokenKind::Colon, "':' and the global's type")?;
                    self.parse_type()?
                }
            };
            (Some(attr), ty)
        } else {
            self.expect(
                TokenKind::Colon,
                "'=' and an initializer, or ':' and a type",
            )?;
            (None, self.parse_type()?)
        };
        let align = if self.at(TokenKind::LBrace) {
            Some(self.parse_alignment_dict(u32::MAX as u64)? as u32)
        } else {
            None
        };
        if let Some(previous) = self.module.global_by_name(name) {
            let previous_loc = self.module.globals[previous].loc;
            let entity = format!("global '@{}'", self.module.ctx.name(name));
            self.report_redefinition(name_loc, &entity, previous_loc);
            return Ok(());
        }
        self.module.add_global(Global {
            name,
            ty,
            init,
            constant,
            linkage,
            private_visibility,
            align,
            loc,
        });
        Ok(())
    }

    /// The header of a `cir.func` after the keyword.
    pub(crate) fn parse_func_header(&mut self) -> PResult<FuncHeader<'s>> {
        let mut linkage = Linkage::External;
        let mut nothrow = false;
        let mut dso_local = false;
        let mut hidden = false;
        let mut inline = None;
        loop {
            if let Some(l) = self.parse_linkage() {
                linkage = l;
            } else if let Some(&kind) = ehir_core::InlineKind::ALL
                .iter()
                .find(|k| self.at(TokenKind::Ident) && self.text_of(self.tok) == k.name())
            {
                self.bump();
                inline = Some(kind);
            } else if self.eat_ident("nothrow") {
                nothrow = true;
            } else if self.eat_ident("dso_local") {
                dso_local = true;
            } else if self.eat_ident("hidden") {
                hidden = true;
            } else {
                break;
            }
        }
        let (name, name_loc) = self.expect_symbol("the function's name")?;
        self.expect(TokenKind::LParen, "'(' and the parameter list")?;
        let mut params: FuncParams<'s> = SmallVec::new();
        let mut abi: SmallVec<[ParamAbi; 4]> = SmallVec::new();
        let vararg = self.parse_signature_params(|p| {
            let param_name = if p.at(TokenKind::ValueId) {
                let t = p.tok;
                p.bump();
                p.expect(TokenKind::Colon, "':' and the parameter's type")?;
                Some((&p.text_of(t)[1..], Loc(t.start)))
            } else {
                None
            };
            let ty = p.parse_type()?;
            abi.push(p.parse_param_abi());
            params.push((param_name, ty));
            Ok(())
        })?;
        let ret = if self.eat(TokenKind::Arrow) {
            if self.at(TokenKind::LParen) && self.peek().kind == TokenKind::RParen {
                self.bump();
                self.bump();
                None
            } else {
                Some(self.parse_type()?)
            }
        } else {
            None
        };
        let mut phase = None;
        let mut personality = None;
        let mut global_ctor = None;
        let mut attributes = Vec::new();
        loop {
            if self.at_ident("attributes") {
                self.bump();
                if !self.at(TokenKind::LBrace) {
                    return Err(self.unexpected("'{' and the function's attributes"));
                }
                for a in self.scan_attribute_dict()? {
                    if a.name == "nothrow" {
                        nothrow = true;
                    } else {
                        attributes.push(a);
                    }
                }
                continue;
            }
            if self.at_ident("global_ctor") {
                self.bump();
                let mut priority = ehir_core::function::DEFAULT_GLOBAL_CTOR_PRIORITY;
                if self.eat(TokenKind::LParen) {
                    priority = self.expect_uint("a priority", u64::from(u32::MAX))? as u32;
                    self.expect(TokenKind::RParen, "')'")?;
                }
                global_ctor = Some(priority);
                continue;
            }
            if self.at_ident("phase") {
                self.bump();
                self.expect(TokenKind::LParen, "'('")?;
                let t = self.tok;
                match Phase::from_name(self.tok_text()).filter(|_| t.kind == TokenKind::Ident) {
                    Some(p) => phase = Some(p),
                    None => {
                        return Err(
                            self.unexpected("a phase ('structured', 'flat', 'itanium' or 'msvc')")
                        );
                    }
                }
                self.bump();
                self.expect(TokenKind::RParen, "')'")?;
            } else if self.at(TokenKind::AttrId) && self.tok_text() == "#personality_fn" {
                self.bump();
                self.expect(TokenKind::Equal, "'='")?;
                personality = Some(self.expect_symbol("the personality routine's symbol")?.0);
            } else if self.at_ident("personality") {
                self.bump();
                self.expect(TokenKind::LParen, "'('")?;
                personality = Some(self.expect_symbol("the personality routine's symbol")?.0);
                self.expect(TokenKind::RParen, "')'")?;
            } else {
                break;
            }
        }
        let types: SmallVec<[Type; 4]> = params.iter().map(|p| p.1).collect();
        let sig = self.func_type_abi(&types, &abi, ret, vararg);
        Ok(FuncHeader {
            name,
            name_loc,
            linkage,
            nothrow,
            dso_local,
            hidden,
            inline,
            attributes,
            params,
            phase,
            personality,
            global_ctor,
            sig,
        })
    }

    /// `cir.func ...` declaration or definition.
    fn parse_function(&mut self) -> PResult<()> {
        let loc = self.loc();
        self.bump();
        let header = self.parse_func_header()?;
        let is_definition = self.at(TokenKind::LBrace);
        let existing = self.module.function_by_name(header.name);
        let origin = existing.and_then(|id| self.origins.get(&id).copied());
        let name_text = self.module.ctx.name(header.name).to_string();
        match (existing, origin) {
            (Some(id), Some(FuncOrigin::Defined)) | (Some(id), None) => {
                let previous = self.module.functions[id].loc;
                let entity = format!("function '@{name_text}'");
                self.report_redefinition(header.name_loc, &entity, previous);
                return Err(Abort);
            }
            (Some(id), Some(FuncOrigin::Declared)) if !is_definition => {
                if self.module.functions[id].sig != header.sig {
                    let previous = self.module.functions[id].loc;
                    let d = Diagnostic::error(
                        header.name_loc,
                        format!("conflicting declaration of function '@{name_text}'"),
                    )
                    .with_note(previous, "previous declaration is here");
                    self.diags.push(d);
                }
                return Ok(());
            }
            _ => {}
        }
        if let Some(id) = existing {
            self.move_to_explicit_place(id);
        }
        if !is_definition {
            let mut func = Function::new_declaration(header.name, header.sig);
            header.apply_to(&mut func, loc);
            if let Some(p) = header.phase {
                func.phase = p;
            }
            let id = self.add_function(func);
            self.origins.insert(id, FuncOrigin::Declared);
            return Ok(());
        }
        if header.params.iter().any(|p| p.0.is_none()) {
            return Err(self.error(
                header.name_loc,
                "the parameters of a function definition need names ('%arg0: T')",
            ));
        }
        // Reserve the function's place in source order before its body declares callees.
        let id = match existing {
            Some(id) => id,
            None => {
                let mut placeholder = Function::new_declaration(header.name, header.sig);
                placeholder.loc = loc;
                self.add_function(placeholder)
            }
        };
        self.origins.insert(id, FuncOrigin::Defined);
        let func = self.parse_function_body(&header, loc)?;
        self.add_function(func);
        Ok(())
    }

    /// The signature of a function named `name` declared anywhere in the file.
    pub(crate) fn declared_later(&mut self, name: Symbol) -> Option<Type> {
        self.run_prescan();
        self.prescan
            .as_ref()
            .and_then(|p| p.functions.get(&name).copied())
    }

    /// Whether `!name = ...` appears anywhere in the file at module level.
    pub(crate) fn alias_declared_later(&mut self, alias: Symbol) -> bool {
        self.run_prescan();
        self.prescan
            .as_ref()
            .is_some_and(|p| p.aliases.contains(&alias))
    }

    fn run_prescan(&mut self) {
        if self.prescan.is_some() {
            return;
        }
        let saved_lexer = self.lexer;
        let saved_tok = self.tok;
        let saved_diags = self.diags.len();
        let saved_alias = self.defining_alias.take();
        // Pass 1: record aliases, so that pass 2 can parse the types that use them.
        let mut aliases = FxHashSet::default();
        self.for_each_top_level_token(|p| {
            if p.tok.kind == TokenKind::TypeId && p.peek().kind == TokenKind::Equal {
                let name = &p.tok_text()[1..];
                aliases.insert(p.module.ctx.sym(name));
            }
            false
        });
        self.prescan = Some(Prescan {
            aliases,
            functions: FxHashMap::default(),
        });
        // Pass 2: function signatures (the first header of a name wins).
        let mut functions = FxHashMap::default();
        self.for_each_top_level_token(|p| {
            if p.tok.kind != TokenKind::Ident || p.tok_text() != "cir.func" {
                return false;
            }
            p.bump();
            if let Ok(h) = p.parse_func_header() {
                functions.entry(h.name).or_insert(h.sig);
            }
            true
        });
        if let Some(p) = self.prescan.as_mut() {
            p.functions = functions;
        }
        self.lexer = saved_lexer;
        self.tok = saved_tok;
        self.diags.truncate(saved_diags);
        self.defining_alias = saved_alias;
    }

    /// Calls `visit` on every token outside braces, from the start of the file. `visit`
    /// returns true when it consumed tokens itself.
    fn for_each_top_level_token(&mut self, mut visit: impl FnMut(&mut Self) -> bool) {
        self.lexer = Lexer::new(self.text);
        self.bump();
        let mut depth = 0i64;
        let mut seen_module = false;
        while self.tok.kind != TokenKind::Eof {
            let kind = self.tok.kind;
            if depth == 0 && !seen_module && self.at_ident("module") {
                // `module [attributes {...}] {`: its items count as top level.
                while !matches!(self.tok.kind, TokenKind::Eof) {
                    if self.at_ident("attributes") {
                        self.bump();
                        if self.at(TokenKind::LBrace) && self.scan_attribute_dict().is_err() {
                            break;
                        }
                        continue;
                    }
                    if self.at(TokenKind::LBrace) {
                        break;
                    }
                    self.bump();
                }
                // The module's braces do not count: its closing brace leaves depth -1.
                self.bump();
                seen_module = true;
                continue;
            }
            match kind {
                TokenKind::LBrace => depth += 1,
                TokenKind::RBrace => depth -= 1,
                _ => {}
            }
            let consumed =
                depth <= 0 && !matches!(kind, TokenKind::LBrace | TokenKind::RBrace) && visit(self);
            if !consumed {
                self.bump();
            }
        }
    }
}

/// Parses `-?[0-9]+` into an `i128` (`None` on overflow). Faster than `str::parse` for the
/// short literals that dominate real input.
fn parse_decimal(text: &str) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if digits.len() <= 18 {
        let mut v: i64 = 0;
        for c in digits.bytes() {
            v = v * 10 + i64::from(c - b'0');
        }
        let v = i128::from(v);
        return Some(if negative { -v } else { v });
    }
    text.parse::<i128>().ok()
}

#[cfg(test)]
mod tests {
    use super::parse_decimal;

    #[test]
    fn decimal_literals() {
        assert_eq!(parse_decimal("0"), Some(0));
        assert_eq!(parse_decimal("-17"), Some(-17));
        assert_eq!(
            parse_decimal("999999999999999999"),
            Some(999_999_999_999_999_999)
        );
        assert_eq!(
            parse_decimal("-170141183460469231731687303715884105728"),
            Some(i128::MIN)
        );
        assert_eq!(
            parse_decimal("170141183460469231731687303715884105728"),
            None
        );
        assert_eq!(parse_decimal("-"), None);
    }
}
