//! The recursive-descent parser of the C++ subset: declarations (classes, functions,
//! variables, typedefs, `extern "C"`), statements and expressions. It tracks which names
//! are types (classes, typedefs, the known library types) to tell declarations from
//! expressions; everything outside the subset is an `unsupported:` diagnostic.

use crate::ast::*;
use crate::lexer::{Header, Tok, Token};
use ehir_core::{Diagnostic, Loc};
use std::collections::{HashMap, HashSet};

type PResult<T> = Result<T, Diagnostic>;

/// Deepest nesting of expressions, statements or declarators the parser accepts.
pub const MAX_NESTING: usize = 50_000;

/// The parse of a translation unit.
pub struct Parsed {
    pub items: Vec<Item>,
    /// `using namespace std;` was seen.
    pub using_std: bool,
}

/// Parses a token stream into items.
pub fn parse(tokens: &[Token], headers: &[Header]) -> PResult<Parsed> {
    let mut p = Parser::new(tokens, headers);
    let items = p.parse_translation_unit()?;
    Ok(Parsed {
        items,
        using_std: p.using_std,
    })
}

struct Parser<'t> {
    toks: &'t [Token],
    pos: usize,
    classes: HashSet<String>,
    typedefs: HashMap<String, TypeExpr>,
    headers: Vec<Header>,
    using_std: bool,
    current_class: Vec<String>,
    /// Parsing the specifiers of a member declaration (where `X(` starts a constructor).
    member_decl: bool,
    depth: usize,
    eof: Token,
}

#[derive(Default)]
struct DeclSpecs {
    ty: Option<TypeExpr>,
    is_static: bool,
    is_extern: bool,
    is_inline: bool,
    is_explicit: bool,
    is_typedef: bool,
    extern_c: bool,
    loc: Loc,
}

/// The parts of a function declarator directly attached to the declared name.
struct FuncParts {
    params: Vec<Param>,
    variadic: bool,
    is_const: bool,
    spec: ExceptionSpec,
    spec_loc: Loc,
}

struct Declarator {
    name: Option<DeclName>,
    name_loc: Loc,
    ty: TypeExpr,
    func: Option<FuncParts>,
}

/// The return type of a function type (`void` when `ty` is not a function type).
fn return_type(ty: &TypeExpr) -> TypeExpr {
    match ty {
        TypeExpr::Func { ret, .. } => (**ret).clone(),
        _ => TypeExpr::Builtin(Builtin::Void),
    }
}

impl FuncParts {
    /// The declaration of a function named `name` with these parts, not defaulted,
    /// deleted or defined (yet).
    fn into_decl(
        self,
        name: DeclName,
        loc: Loc,
        ret: TypeExpr,
        specs: &DeclSpecs,
        is_inline: bool,
        extern_c: bool,
    ) -> FunctionDecl {
        FunctionDecl {
            name,
            loc,
            ret,
            params: self.params,
            variadic: self.variadic,
            is_const: self.is_const,
            spec: self.spec,
            spec_loc: self.spec_loc,
            is_static: specs.is_static,
            is_inline,
            is_explicit: specs.is_explicit,
            extern_c,
            defaulted: false,
            deleted: false,
            body: None,
        }
    }
}

enum Suffix {
    Array(Option<Box<Expr>>),
    Func(FuncParts),
}

/// The words that begin a builtin or class type.
const BUILTIN_TYPE_WORDS: &[&str] = &[
    "void", "bool", "char", "short", "int", "long", "signed", "unsigned", "float", "double",
    "struct", "class",
];

fn unsupported(loc: Loc, what: impl Into<String>) -> Diagnostic {
    Diagnostic::error(loc, format!("unsupported: {}", what.into()))
}

impl<'t> Parser<'t> {
    fn new(toks: &'t [Token], headers: &[Header]) -> Self {
        let mut typedefs = HashMap::new();
        if !headers.is_empty() {
            typedefs.insert("size_t".to_string(), TypeExpr::Builtin(Builtin::ULong));
            typedefs.insert("std::size_t".to_string(), TypeExpr::Builtin(Builtin::ULong));
        }
        if headers.contains(&Header::Exception) {
            let handler = TypeExpr::Ptr(Box::new(TypeExpr::Func {
                ret: Box::new(TypeExpr::Builtin(Builtin::Void)),
                params: vec![],
                variadic: false,
            }));
            typedefs.insert("std::terminate_handler".to_string(), handler.clone());
            typedefs.insert("std::unexpected_handler".to_string(), handler);
        }
        let end = toks.last().map(|t| t.loc).unwrap_or(Loc(0));
        Parser {
            toks,
            pos: 0,
            classes: HashSet::new(),
            typedefs,
            headers: headers.to_vec(),
            using_std: false,
            current_class: Vec::new(),
            member_decl: false,
            depth: 0,
            eof: Token {
                tok: Tok::Eof,
                loc: end,
            },
        }
    }

    // ---- token helpers ---------------------------------------------------------------

    fn peek_at(&self, n: usize) -> &Token {
        self.toks.get(self.pos + n).unwrap_or(&self.eof)
    }

    fn peek(&self) -> &Tok {
        &self.peek_at(0).tok
    }

    fn loc(&self) -> Loc {
        self.peek_at(0).loc
    }

    fn bump(&mut self) -> Token {
        let t = self.peek_at(0).clone();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn is_punct_at(&self, n: usize, p: &str) -> bool {
        matches!(&self.peek_at(n).tok, Tok::Punct(q) if *q == p)
    }

    fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Ident(w) if w == s)
    }

    fn is_ident_at(&self, n: usize, s: &str) -> bool {
        matches!(&self.peek_at(n).tok, Tok::Ident(w) if w == s)
    }

    fn ident_at(&self, n: usize) -> Option<&str> {
        match &self.peek_at(n).tok {
            Tok::Ident(w) => Some(w.as_str()),
            _ => None,
        }
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat_ident(&mut self, s: &str) -> bool {
        if self.is_ident(s) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn describe(&self) -> String {
        match self.peek() {
            Tok::Ident(w) => format!("'{w}'"),
            Tok::Int { .. } | Tok::Float { .. } => "number".into(),
            Tok::Char(_) => "character literal".into(),
            Tok::Str(_) => "string literal".into(),
            Tok::Punct(p) => format!("'{p}'"),
            Tok::Eof => "end of file".into(),
        }
    }

    fn expect_punct(&mut self, p: &str) -> PResult<Loc> {
        if self.is_punct(p) {
            Ok(self.bump().loc)
        } else {
            Err(Diagnostic::error(
                self.loc(),
                format!("expected '{p}', found {}", self.describe()),
            ))
        }
    }

    fn expect_ident(&mut self) -> PResult<(String, Loc)> {
        match self.peek().clone() {
            Tok::Ident(w) if !is_keyword(&w) => {
                let loc = self.bump().loc;
                Ok((w, loc))
            }
            _ => Err(Diagnostic::error(
                self.loc(),
                format!("expected an identifier, found {}", self.describe()),
            )),
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(unsupported(
                self.loc(),
                format!("nesting deeper than {MAX_NESTING} levels"),
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// After `=` in a function declaration: `default` or `delete`, noted in `decl`; false
    /// (and nothing consumed) when neither follows.
    fn eat_default_or_delete(&mut self, decl: &mut FunctionDecl) -> bool {
        if self.eat_ident("default") {
            decl.defaulted = true;
        } else if self.eat_ident("delete") {
            decl.deleted = true;
        } else {
            return false;
        }
        true
    }

    /// Runs `parse` one nesting level deeper ([`Parser::enter`]), on a grown stack when
    /// needed.
    fn nested<T>(&mut self, parse: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.enter()?;
        let r = stacker::maybe_grow(crate::RED_ZONE, crate::STACK_SEGMENT, || parse(self));
        self.leave();
        r
    }

    // ---- types -------------------------------------------------------------------------

    fn has(&self, h: Header) -> bool {
        self.headers.contains(&h)
    }

    /// The name of a type spelled at the cursor with a `std::` prefix (`std::exception`),
    /// and how many tokens it takes.
    fn std_type_at(&self, n: usize) -> Option<(String, usize)> {
        if self.is_ident_at(n, "std") && self.is_punct_at(n + 1, "::") {
            let name = self.ident_at(n + 2)?;
            let full = format!("std::{name}");
            if self.is_known_type_name(&full) {
                return Some((full, 3));
            }
            return None;
        }
        if self.using_std {
            let name = self.ident_at(n)?;
            let full = format!("std::{name}");
            if !self.classes.contains(name)
                && !self.typedefs.contains_key(name)
                && self.is_known_type_name(&full)
            {
                return Some((full, 1));
            }
        }
        None
    }

    fn is_known_type_name(&self, full: &str) -> bool {
        (full == "std::exception" && self.has(Header::Exception))
            || self.typedefs.contains_key(full)
    }

    /// Whether the tokens at offset `n` start a type.
    fn is_type_start_at(&self, n: usize) -> bool {
        match &self.peek_at(n).tok {
            Tok::Ident(w) => {
                BUILTIN_TYPE_WORDS.contains(&w.as_str())
                    || matches!(w.as_str(), "const" | "volatile")
                    || ((self.classes.contains(w) || self.typedefs.contains_key(w))
                        && !self.is_punct_at(n + 1, "::"))
                    || self.std_type_at(n).is_some()
            }
            _ => false,
        }
    }

    fn is_type_start(&self) -> bool {
        self.is_type_start_at(0)
    }

    /// Parses decl-specifiers: storage classes, cv, and one type specifier.
    fn parse_decl_specs(&mut self, allow_storage: bool) -> PResult<DeclSpecs> {
        let mut specs = DeclSpecs {
            loc: self.loc(),
            ..Default::default()
        };
        let mut builtin_words: Vec<(String, Loc)> = Vec::new();
        let mut is_const = false;
        loop {
            let loc = self.loc();
            let Tok::Ident(w) = self.peek().clone() else {
                break;
            };
            match w.as_str() {
                "static" | "extern" | "inline" | "explicit" | "typedef" if allow_storage => {
                    self.bump();
                    match w.as_str() {
                        "static" => specs.is_static = true,
                        "extern" => {
                            if let Tok::Str(s) = self.peek().clone() {
                                if s == b"C" {
                                    self.bump();
                                    specs.extern_c = true;
                                } else {
                                    return Err(unsupported(
                                        loc,
                                        "language linkage other than \"C\"",
                                    ));
                                }
                            }
                            specs.is_extern = true;
                        }
                        "inline" => specs.is_inline = true,
                        "explicit" => specs.is_explicit = true,
                        _ => specs.is_typedef = true,
                    }
                }
                "const" => {
                    self.bump();
                    is_const = true;
                }
                "volatile" => return Err(unsupported(loc, "'volatile'")),
                "virtual" => return Err(unsupported(loc, "virtual functions")),
                "constexpr" => return Err(unsupported(loc, "'constexpr'")),
                "friend" => return Err(unsupported(loc, "friend declarations")),
                "mutable" => return Err(unsupported(loc, "'mutable'")),
                "register" | "thread_local" => {
                    return Err(unsupported(loc, format!("'{w}'")));
                }
                "auto" => return Err(unsupported(loc, "'auto'")),
                "decltype" => return Err(unsupported(loc, "'decltype'")),
                "__attribute__" => self.skip_attribute()?,
                "void" | "bool" | "char" | "short" | "int" | "long" | "signed" | "unsigned"
                | "float" | "double" => {
                    if specs.ty.is_some() {
                        return Err(Diagnostic::error(loc, "two types in one declaration"));
                    }
                    self.bump();
                    builtin_words.push((w.clone(), loc));
                }
                "wchar_t" | "char16_t" | "char32_t" | "char8_t" => {
                    return Err(unsupported(loc, format!("type '{w}'")));
                }
                "struct" | "class" => {
                    // elaborated type specifier: `struct X`
                    self.bump();
                    if self.is_ident("__attribute__") {
                        self.skip_attribute()?;
                    }
                    let (name, nloc) = self.expect_ident()?;
                    if !self.classes.contains(&name) {
                        return Err(unsupported(
                            nloc,
                            format!("elaborated type specifier naming undeclared class '{name}'"),
                        ));
                    }
                    specs.ty = Some(TypeExpr::Class(name, nloc));
                }
                "union" | "enum" => return Err(unsupported(loc, format!("'{w}' types"))),
                _ => {
                    if specs.ty.is_some() || !builtin_words.is_empty() {
                        break;
                    }
                    if let Some((full, n)) = self.std_type_at(0) {
                        for _ in 0..n {
                            self.bump();
                        }
                        specs.ty = Some(match self.typedefs.get(&full) {
                            Some(t) => t.clone(),
                            None => TypeExpr::Class(full, loc),
                        });
                        continue;
                    }
                    if self.is_punct_at(1, "::") {
                        // `X::member` starts a qualified declarator, not a type.
                        break;
                    }
                    // A constructor inside its class: `X(`.
                    if self.member_decl
                        && self.current_class.last() == Some(&w)
                        && self.is_punct_at(1, "(")
                    {
                        break;
                    }
                    if self.classes.contains(&w) {
                        self.bump();
                        specs.ty = Some(TypeExpr::Class(w, loc));
                    } else if let Some(t) = self.typedefs.get(&w).cloned() {
                        self.bump();
                        specs.ty = Some(t);
                    } else {
                        break;
                    }
                }
            }
        }
        if !builtin_words.is_empty() {
            specs.ty = Some(TypeExpr::Builtin(resolve_builtin(&builtin_words)?));
        }
        if is_const {
            match specs.ty.take() {
                Some(t) => specs.ty = Some(TypeExpr::Const(Box::new(t))),
                None => return Err(Diagnostic::error(specs.loc, "'const' without a type")),
            }
        }
        Ok(specs)
    }

    fn skip_attribute(&mut self) -> PResult<()> {
        let loc = self.bump().loc; // __attribute__
        self.expect_punct("(")?;
        self.expect_punct("(")?;
        loop {
            match self.peek().clone() {
                Tok::Ident(w) => {
                    let w = w.trim_matches('_').to_string();
                    if !matches!(w.as_str(), "noinline" | "always_inline" | "used" | "unused") {
                        return Err(unsupported(loc, format!("__attribute__(({w}))")));
                    }
                    self.bump();
                }
                Tok::Punct(",") => {
                    self.bump();
                }
                Tok::Punct(")") => break,
                _ => return Err(unsupported(loc, "this __attribute__ form")),
            }
        }
        self.expect_punct(")")?;
        self.expect_punct(")")?;
        Ok(())
    }

    /// A type-id: specifiers and an abstract declarator (`const char*`, `void (*)()`).
    fn parse_type_id(&mut self) -> PResult<TypeExpr> {
        let loc = self.loc();
        let specs = self.parse_decl_specs(false)?;
        let Some(base) = specs.ty else {
            return Err(Diagnostic::error(
                loc,
                format!("expected a type, found {}", self.describe()),
            ));
        };
        let d = self.parse_declarator(base, true)?;
        if let Some(n) = d.name {
            let _ = n;
            return Err(Diagnostic::error(d.name_loc, "unexpected name in type"));
        }
        Ok(d.ty)
    }

    /// Parses a declarator applied to `base`.
    fn parse_declarator(&mut self, base: TypeExpr, abstract_ok: bool) -> PResult<Declarator> {
        self.nested(|p| p.parse_declarator_inner(base, abstract_ok))
    }

    fn parse_declarator_inner(&mut self, base: TypeExpr, abstract_ok: bool) -> PResult<Declarator> {
        let mut ty = base;
        loop {
            if self.eat_punct("*") {
                ty = TypeExpr::Ptr(Box::new(ty));
                loop {
                    if self.eat_ident("const") {
                        ty = TypeExpr::Const(Box::new(ty));
                    } else if self.is_ident("volatile") {
                        return Err(unsupported(self.loc(), "'volatile'"));
                    } else {
                        break;
                    }
                }
            } else if self.eat_punct("&") {
                ty = TypeExpr::Ref(Box::new(ty));
            } else if self.is_punct("&&") {
                return Err(unsupported(self.loc(), "rvalue references"));
            } else if self.is_ident("__attribute__") {
                self.skip_attribute()?;
            } else {
                break;
            }
        }
        // Nested declarator: `(*name)` / `(&name)`.
        if self.is_punct("(") && (self.is_punct_at(1, "*") || self.is_punct_at(1, "&")) {
            self.bump();
            let inner_start = self.pos;
            let mut level = 1;
            let mut close = self.pos;
            while level > 0 {
                match self.peek() {
                    Tok::Punct("(") => level += 1,
                    Tok::Punct(")") => level -= 1,
                    Tok::Eof => {
                        return Err(Diagnostic::error(self.loc(), "unbalanced parentheses"));
                    }
                    _ => {}
                }
                close = self.pos;
                self.bump();
            }
            let suffixes = self.parse_suffixes(false)?;
            let outer = apply_suffixes(ty, suffixes);
            let end = self.pos;
            self.pos = inner_start;
            let mut inner = self.parse_declarator(outer, abstract_ok)?;
            if self.pos != close {
                return Err(Diagnostic::error(self.loc(), "malformed declarator"));
            }
            self.pos = end;
            inner.func = None;
            return Ok(inner);
        }
        let name_loc = self.loc();
        let name = self.parse_declarator_id()?;
        if name.is_none() && !abstract_ok {
            return Err(Diagnostic::error(
                name_loc,
                format!("expected a name, found {}", self.describe()),
            ));
        }
        let mut suffixes = self.parse_suffixes(name.is_some())?;
        // The function parts attached to the name: the first suffix, when a function.
        let mut func = None;
        if name.is_some()
            && let Some(Suffix::Func(_)) = suffixes.first()
            && let Suffix::Func(f) = suffixes.remove(0)
        {
            let fty = TypeExpr::Func {
                ret: Box::new(apply_suffixes(ty.clone(), std::mem::take(&mut suffixes))),
                params: f.params.iter().map(|p| p.ty.clone()).collect(),
                variadic: f.variadic,
            };
            ty = fty;
            func = Some(f);
        }
        let ty = if func.is_some() {
            ty
        } else {
            apply_suffixes(ty, suffixes)
        };
        Ok(Declarator {
            name,
            name_loc,
            ty,
            func,
        })
    }

    fn parse_declarator_id(&mut self) -> PResult<Option<DeclName>> {
        let loc = self.loc();
        match self.peek().clone() {
            Tok::Ident(w) if w == "operator" => {
                self.bump();
                let op = self.parse_operator_name(loc)?;
                Ok(Some(DeclName::Operator(op)))
            }
            Tok::Punct("~") => {
                self.bump();
                let (n, nloc) = self.expect_ident()?;
                if self.current_class.last() != Some(&n) {
                    return Err(Diagnostic::error(
                        nloc,
                        format!("destructor name '~{n}' does not match its class"),
                    ));
                }
                Ok(Some(DeclName::Dtor))
            }
            Tok::Ident(w) if !is_keyword(&w) => {
                if self.is_punct_at(1, "::") {
                    if w == "std" {
                        return Err(unsupported(loc, "declaring names in namespace std"));
                    }
                    if !self.classes.contains(&w) {
                        return Err(Diagnostic::error(loc, format!("'{w}' is not a class")));
                    }
                    self.bump();
                    self.bump();
                    let mloc = self.loc();
                    if self.is_punct("*") {
                        return Err(unsupported(mloc, "pointers to members"));
                    }
                    let member = match self.peek().clone() {
                        Tok::Punct("~") => {
                            self.bump();
                            let (n, nloc) = self.expect_ident()?;
                            if n != w {
                                return Err(Diagnostic::error(
                                    nloc,
                                    format!("destructor name '~{n}' does not match '{w}'"),
                                ));
                            }
                            MemberName::Dtor
                        }
                        Tok::Ident(m) if m == "operator" => {
                            self.bump();
                            MemberName::Operator(self.parse_operator_name(mloc)?)
                        }
                        Tok::Ident(m) if m == w => {
                            self.bump();
                            MemberName::Ctor
                        }
                        Tok::Ident(m) if !is_keyword(&m) => {
                            self.bump();
                            if self.is_punct("::") {
                                return Err(unsupported(mloc, "nested classes"));
                            }
                            MemberName::Ident(m)
                        }
                        _ => {
                            return Err(Diagnostic::error(
                                mloc,
                                format!("expected a member name, found {}", self.describe()),
                            ));
                        }
                    };
                    return Ok(Some(DeclName::Qualified(w, member)));
                }
                if self.member_decl
                    && self.current_class.last() == Some(&w)
                    && self.is_punct_at(1, "(")
                {
                    self.bump();
                    return Ok(Some(DeclName::Ctor));
                }
                self.bump();
                Ok(Some(DeclName::Ident(w)))
            }
            _ => Ok(None),
        }
    }

    fn parse_operator_name(&mut self, loc: Loc) -> PResult<String> {
        let t = self.bump();
        match t.tok {
            Tok::Punct("=") => Ok("=".into()),
            Tok::Punct(p) => Err(unsupported(loc, format!("overloaded 'operator{p}'"))),
            _ => Err(unsupported(loc, "this operator function")),
        }
    }

    /// Array and function suffixes. `named`: a `(` after a name is a parameter list only
    /// if it looks like one (otherwise it is a direct initializer).
    fn parse_suffixes(&mut self, named: bool) -> PResult<Vec<Suffix>> {
        let mut out = Vec::new();
        loop {
            if self.is_punct("[") {
                self.bump();
                if self.eat_punct("]") {
                    out.push(Suffix::Array(None));
                } else {
                    let e = self.parse_assign()?;
                    self.expect_punct("]")?;
                    out.push(Suffix::Array(Some(Box::new(e))));
                }
            } else if self.is_punct("(") {
                if named && !out.is_empty() {
                    break;
                }
                let looks_like_params = self.is_punct_at(1, ")")
                    || self.is_punct_at(1, "...")
                    || self.is_type_start_at(1);
                if !looks_like_params {
                    break;
                }
                self.bump();
                out.push(Suffix::Func(self.parse_params_and_qualifiers()?));
            } else {
                break;
            }
        }
        Ok(out)
    }

    fn parse_params_and_qualifiers(&mut self) -> PResult<FuncParts> {
        let mut params = Vec::new();
        let mut variadic = false;
        if self.is_ident("void") && self.is_punct_at(1, ")") {
            self.bump();
        }
        if !self.is_punct(")") {
            loop {
                if self.eat_punct("...") {
                    variadic = true;
                    break;
                }
                let loc = self.loc();
                let specs = self.parse_decl_specs(false)?;
                let Some(base) = specs.ty else {
                    return Err(Diagnostic::error(
                        loc,
                        format!("expected a parameter type, found {}", self.describe()),
                    ));
                };
                let d = self.parse_declarator(base, true)?;
                let name = match d.name {
                    None => None,
                    Some(DeclName::Ident(n)) => Some(n),
                    Some(_) => return Err(Diagnostic::error(d.name_loc, "invalid parameter name")),
                };
                if self.is_punct("=") {
                    return Err(unsupported(self.loc(), "default arguments"));
                }
                params.push(Param {
                    name,
                    ty: d.ty,
                    loc,
                });
                if self.eat_punct(",") {
                    continue;
                }
                break;
            }
        }
        self.expect_punct(")")?;
        let mut is_const = false;
        let mut spec = ExceptionSpec::None;
        let mut spec_loc = Loc::NONE;
        loop {
            let loc = self.loc();
            if self.eat_ident("const") {
                is_const = true;
            } else if self.is_ident("volatile") {
                return Err(unsupported(loc, "volatile member functions"));
            } else if self.eat_ident("noexcept") {
                spec_loc = loc;
                spec = ExceptionSpec::Noexcept;
                if self.eat_punct("(") {
                    if self.eat_ident("true") {
                        spec = ExceptionSpec::Noexcept;
                    } else if self.eat_ident("false") {
                        spec = ExceptionSpec::NoexceptFalse;
                    } else {
                        return Err(unsupported(
                            self.loc(),
                            "noexcept with a non-literal condition",
                        ));
                    }
                    self.expect_punct(")")?;
                }
            } else if self.is_ident("throw") {
                self.bump();
                spec_loc = loc;
                self.expect_punct("(")?;
                let mut types = Vec::new();
                if self.is_punct("...") {
                    return Err(unsupported(self.loc(), "throw(...)"));
                }
                if !self.is_punct(")") {
                    loop {
                        types.push(self.parse_type_id()?);
                        if !self.eat_punct(",") {
                            break;
                        }
                    }
                }
                self.expect_punct(")")?;
                spec = ExceptionSpec::Throw(types);
            } else if self.is_ident("__attribute__") {
                self.skip_attribute()?;
            } else if self.is_ident("override") || self.is_ident("final") {
                return Err(unsupported(loc, "virtual functions"));
            } else if self.is_punct("->") {
                return Err(unsupported(loc, "trailing return types"));
            } else if self.is_punct("&") || self.is_punct("&&") {
                return Err(unsupported(loc, "ref-qualified member functions"));
            } else {
                break;
            }
        }
        Ok(FuncParts {
            params,
            variadic,
            is_const,
            spec,
            spec_loc,
        })
    }

    // ---- top level -----------------------------------------------------------------------

    fn parse_translation_unit(&mut self) -> PResult<Vec<Item>> {
        let mut items = Vec::new();
        while !matches!(self.peek(), Tok::Eof) {
            self.parse_top_level(&mut items, false)?;
        }
        Ok(items)
    }

    fn parse_top_level(&mut self, items: &mut Vec<Item>, extern_c: bool) -> PResult<()> {
        let loc = self.loc();
        if self.eat_punct(";") {
            return Ok(());
        }
        if let Tok::Ident(w) = self.peek().clone() {
            match w.as_str() {
                "namespace" => return Err(unsupported(loc, "namespaces")),
                "template" => return Err(unsupported(loc, "templates")),
                "union" | "enum" => return Err(unsupported(loc, format!("'{w}' types"))),
                "asm" | "__asm__" => return Err(unsupported(loc, "inline assembly")),
                "static_assert" => return Err(unsupported(loc, "static_assert")),
                "using" => {
                    if self.is_ident_at(1, "namespace")
                        && self.is_ident_at(2, "std")
                        && self.is_punct_at(3, ";")
                    {
                        for _ in 0..4 {
                            self.bump();
                        }
                        self.using_std = true;
                        return Ok(());
                    }
                    return Err(unsupported(loc, "using declarations"));
                }
                "extern"
                    if matches!(&self.peek_at(1).tok, Tok::Str(s) if s == b"C")
                        && self.is_punct_at(2, "{") =>
                {
                    self.bump();
                    self.bump();
                    self.bump();
                    while !self.is_punct("}") {
                        if matches!(self.peek(), Tok::Eof) {
                            return Err(Diagnostic::error(self.loc(), "expected '}'"));
                        }
                        self.parse_top_level(items, true)?;
                    }
                    self.bump();
                    return Ok(());
                }
                "class" | "struct" if self.is_class_definition_start() => {
                    let c = self.parse_class()?;
                    items.push(Item::Class(c));
                    return Ok(());
                }
                _ => {}
            }
        }
        self.parse_declaration(items, extern_c)
    }

    /// `class X {`, `class X :`, `class X;`, `class X final`.
    fn is_class_definition_start(&self) -> bool {
        matches!(self.peek_at(1).tok, Tok::Ident(_))
            && (self.is_punct_at(2, "{")
                || self.is_punct_at(2, ":")
                || self.is_punct_at(2, ";")
                || self.is_ident_at(2, "final"))
    }

    fn parse_class(&mut self) -> PResult<ClassDecl> {
        let kw = self.bump();
        let is_struct = matches!(&kw.tok, Tok::Ident(w) if w == "struct");
        let (name, loc) = self.expect_ident()?;
        if self.eat_punct(";") {
            self.classes.insert(name.clone());
            return Ok(ClassDecl {
                name,
                loc,
                is_struct,
                body: None,
            });
        }
        if self.is_ident("final") {
            self.bump();
        }
        self.classes.insert(name.clone());
        let mut bases = Vec::new();
        if self.eat_punct(":") {
            loop {
                let bloc = self.loc();
                let mut access = if is_struct {
                    Access::Public
                } else {
                    Access::Private
                };
                loop {
                    if self.eat_ident("public") {
                        access = Access::Public;
                    } else if self.eat_ident("protected") {
                        access = Access::Protected;
                    } else if self.eat_ident("private") {
                        access = Access::Private;
                    } else if self.is_ident("virtual") {
                        return Err(unsupported(self.loc(), "virtual base classes"));
                    } else {
                        break;
                    }
                }
                let nloc = self.loc();
                let bname = if let Some((full, n)) = self.std_type_at(0) {
                    for _ in 0..n {
                        self.bump();
                    }
                    full
                } else {
                    let (b, _) = self.expect_ident()?;
                    b
                };
                if !self.classes.contains(&bname) && !bname.starts_with("std::") {
                    return Err(Diagnostic::error(
                        nloc,
                        format!("unknown base class '{bname}'"),
                    ));
                }
                let _ = bloc;
                bases.push(BaseSpec {
                    name: bname,
                    access,
                    loc: nloc,
                });
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        self.expect_punct("{")?;
        self.current_class.push(name.clone());
        let members = self.parse_class_members(is_struct);
        self.current_class.pop();
        let members = members?;
        let end_loc = self.expect_punct("}")?;
        if !self.is_punct(";") {
            return Err(unsupported(
                self.loc(),
                "declarators after a class definition",
            ));
        }
        self.bump();
        Ok(ClassDecl {
            name,
            loc,
            is_struct,
            body: Some(ClassBody {
                bases,
                members,
                end_loc,
            }),
        })
    }

    fn parse_class_members(&mut self, is_struct: bool) -> PResult<Vec<Member>> {
        let mut access = if is_struct {
            Access::Public
        } else {
            Access::Private
        };
        let mut members = Vec::new();
        loop {
            let loc = self.loc();
            match self.peek().clone() {
                Tok::Punct("}") => break,
                Tok::Eof => {
                    return Err(Diagnostic::error(
                        loc,
                        "expected '}' at the end of the class",
                    ));
                }
                Tok::Punct(";") => {
                    self.bump();
                    continue;
                }
                Tok::Ident(w) => match w.as_str() {
                    "public" | "private" | "protected" if self.is_punct_at(1, ":") => {
                        access = match w.as_str() {
                            "public" => Access::Public,
                            "private" => Access::Private,
                            _ => Access::Protected,
                        };
                        self.bump();
                        self.bump();
                        continue;
                    }
                    "class" | "struct" | "union" | "enum" => {
                        return Err(unsupported(loc, "nested types"));
                    }
                    "template" => return Err(unsupported(loc, "member templates")),
                    "using" => return Err(unsupported(loc, "using declarations")),
                    "typedef" => return Err(unsupported(loc, "member typedefs")),
                    "static_assert" => return Err(unsupported(loc, "static_assert")),
                    _ => {}
                },
                _ => {}
            }
            self.parse_member(&mut members, access)?;
        }
        Ok(members)
    }

    fn parse_member(&mut self, members: &mut Vec<Member>, access: Access) -> PResult<()> {
        let loc = self.loc();
        self.member_decl = true;
        let specs = self.parse_decl_specs(true);
        self.member_decl = false;
        let specs = specs?;
        if specs.is_typedef {
            return Err(unsupported(loc, "member typedefs"));
        }
        if specs.is_extern {
            return Err(Diagnostic::error(
                loc,
                "'extern' is not allowed on a member",
            ));
        }
        let base = specs.ty.clone();
        loop {
            self.member_decl = true;
            let d = self.parse_declarator(
                base.clone().unwrap_or(TypeExpr::Builtin(Builtin::Void)),
                false,
            );
            self.member_decl = false;
            let d = d?;
            let name = d
                .name
                .clone()
                .ok_or_else(|| Diagnostic::error(d.name_loc, "expected a member name"))?;
            if let Some(f) = d.func {
                if base.is_none() && !matches!(name, DeclName::Ctor | DeclName::Dtor) {
                    return Err(Diagnostic::error(
                        d.name_loc,
                        "a member function needs a return type",
                    ));
                }
                if matches!(name, DeclName::Qualified(..)) {
                    return Err(Diagnostic::error(
                        d.name_loc,
                        "qualified name in a member declaration",
                    ));
                }
                let ret = return_type(&d.ty);
                // `* ~C()` would make the destructor return `void*`.
                if matches!(name, DeclName::Ctor | DeclName::Dtor)
                    && ret != TypeExpr::Builtin(Builtin::Void)
                {
                    return Err(Diagnostic::error(
                        d.name_loc,
                        "a constructor or destructor cannot have a return type",
                    ));
                }
                let mut decl = f.into_decl(name, d.name_loc, ret, &specs, true, false);
                if self.is_punct("=") {
                    self.bump();
                    if !self.eat_default_or_delete(&mut decl) {
                        if matches!(self.peek(), Tok::Int { value: 0, .. }) {
                            return Err(unsupported(self.loc(), "pure virtual functions"));
                        }
                        return Err(Diagnostic::error(
                            self.loc(),
                            "expected 'default' or 'delete'",
                        ));
                    }
                    self.expect_punct(";")?;
                } else if self.is_punct("{") || self.is_punct(":") || self.is_ident("try") {
                    decl.body = Some(self.parse_function_body()?);
                    if self.is_punct(";") {
                        self.bump();
                    }
                } else {
                    self.expect_punct(";")?;
                }
                members.push(Member::Method { decl, access });
                return Ok(());
            }
            let DeclName::Ident(fname) = name else {
                return Err(Diagnostic::error(d.name_loc, "expected a data member name"));
            };
            if base.is_none() {
                return Err(Diagnostic::error(d.name_loc, "a data member needs a type"));
            }
            if self.is_punct(":") {
                return Err(unsupported(self.loc(), "bit-fields"));
            }
            let init = if self.eat_punct("=") {
                Some(self.parse_assign()?)
            } else if self.is_punct("{") {
                return Err(unsupported(self.loc(), "brace member initializers"));
            } else {
                None
            };
            members.push(Member::Field {
                name: fname,
                ty: d.ty,
                access,
                is_static: specs.is_static,
                init,
                loc: d.name_loc,
            });
            if self.eat_punct(",") {
                continue;
            }
            self.expect_punct(";")?;
            return Ok(());
        }
    }

    fn parse_function_body(&mut self) -> PResult<FunctionBody> {
        let loc = self.loc();
        let is_try = self.eat_ident("try");
        let mut inits = Vec::new();
        if self.eat_punct(":") {
            loop {
                let iloc = self.loc();
                let name = if let Some((full, n)) = self.std_type_at(0) {
                    for _ in 0..n {
                        self.bump();
                    }
                    full
                } else {
                    self.expect_ident()?.0
                };
                if self.is_punct("{") {
                    return Err(unsupported(self.loc(), "brace member initializers"));
                }
                self.expect_punct("(")?;
                let args = self.parse_call_args()?;
                inits.push(MemInit {
                    name,
                    args,
                    loc: iloc,
                });
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        let (stmts, end_loc) = self.parse_block_body()?;
        let handlers = if is_try {
            Some(self.parse_handlers()?)
        } else {
            None
        };
        Ok(FunctionBody {
            inits,
            stmts,
            handlers,
            loc,
            end_loc,
        })
    }

    /// `{ stmts }`; returns the statements and the location of the closing brace.
    fn parse_block_body(&mut self) -> PResult<(Vec<Stmt>, Loc)> {
        self.expect_punct("{")?;
        let mut stmts = Vec::new();
        loop {
            if self.is_punct("}") {
                let end = self.bump().loc;
                return Ok((stmts, end));
            }
            if matches!(self.peek(), Tok::Eof) {
                return Err(Diagnostic::error(self.loc(), "expected '}'"));
            }
            stmts.push(self.parse_stmt()?);
        }
    }

    fn parse_handlers(&mut self) -> PResult<Vec<Handler>> {
        let mut handlers = Vec::new();
        while self.is_ident("catch") {
            let loc = self.bump().loc;
            self.expect_punct("(")?;
            let param = if self.eat_punct("...") {
                None
            } else {
                let ploc = self.loc();
                let specs = self.parse_decl_specs(false)?;
                let Some(base) = specs.ty else {
                    return Err(Diagnostic::error(
                        ploc,
                        format!("expected a type, found {}", self.describe()),
                    ));
                };
                let d = self.parse_declarator(base, true)?;
                let name = match d.name {
                    None => None,
                    Some(DeclName::Ident(n)) => Some(n),
                    Some(_) => {
                        return Err(Diagnostic::error(d.name_loc, "invalid handler parameter"));
                    }
                };
                Some((d.ty, name, ploc))
            };
            self.expect_punct(")")?;
            let (body, _) = self.parse_block_body()?;
            handlers.push(Handler { param, body, loc });
        }
        if handlers.is_empty() {
            return Err(Diagnostic::error(self.loc(), "expected 'catch'"));
        }
        Ok(handlers)
    }

    /// A declaration at namespace scope (function, variable, typedef).
    fn parse_declaration(&mut self, items: &mut Vec<Item>, extern_c: bool) -> PResult<()> {
        let loc = self.loc();
        let specs = self.parse_decl_specs(true)?;
        let extern_c = extern_c || specs.extern_c;
        if specs.is_typedef {
            return self.parse_typedef_rest(specs, loc);
        }
        let base = specs.ty.clone();
        let mut first = true;
        loop {
            let d = self.parse_declarator(
                base.clone().unwrap_or(TypeExpr::Builtin(Builtin::Void)),
                false,
            )?;
            let name = d
                .name
                .clone()
                .ok_or_else(|| Diagnostic::error(d.name_loc, "expected a name"))?;
            let is_ctor_dtor = matches!(
                name,
                DeclName::Qualified(_, MemberName::Ctor) | DeclName::Qualified(_, MemberName::Dtor)
            );
            if base.is_none() && !is_ctor_dtor {
                return Err(Diagnostic::error(
                    loc,
                    format!(
                        "expected a declaration, found {}",
                        describe_tok(
                            &self.toks[self.pos.min(self.toks.len().saturating_sub(1))].tok
                        )
                    ),
                ));
            }
            if let Some(f) = d.func {
                let ret = return_type(&d.ty);
                if matches!(
                    name,
                    DeclName::Ctor | DeclName::Dtor | DeclName::Operator(_)
                ) {
                    return Err(Diagnostic::error(
                        d.name_loc,
                        "member declared outside its class",
                    ));
                }
                let mut decl =
                    f.into_decl(name, d.name_loc, ret, &specs, specs.is_inline, extern_c);
                if first && (self.is_punct("{") || self.is_punct(":") || self.is_ident("try")) {
                    if let DeclName::Qualified(c, _) = &decl.name {
                        self.current_class.push(c.clone());
                        let body = self.parse_function_body();
                        self.current_class.pop();
                        decl.body = Some(body?);
                    } else {
                        decl.body = Some(self.parse_function_body()?);
                    }
                    items.push(Item::Function(decl));
                    return Ok(());
                }
                if self.is_punct("=") {
                    self.bump();
                    if !self.eat_default_or_delete(&mut decl) {
                        return Err(Diagnostic::error(
                            self.loc(),
                            "expected 'default' or 'delete'",
                        ));
                    }
                }
                items.push(Item::Function(decl));
            } else {
                let init = self.parse_initializer()?;
                items.push(Item::Var(VarDecl {
                    name,
                    ty: d.ty,
                    init,
                    loc: d.name_loc,
                    is_static: specs.is_static,
                    is_extern: specs.is_extern,
                    extern_c,
                }));
            }
            first = false;
            if self.eat_punct(",") {
                continue;
            }
            self.expect_punct(";")?;
            return Ok(());
        }
    }

    fn parse_typedef_rest(&mut self, specs: DeclSpecs, loc: Loc) -> PResult<()> {
        let Some(base) = specs.ty else {
            return Err(Diagnostic::error(loc, "typedef without a type"));
        };
        loop {
            let d = self.parse_declarator(base.clone(), false)?;
            let Some(DeclName::Ident(name)) = d.name else {
                return Err(Diagnostic::error(d.name_loc, "expected a typedef name"));
            };
            if self.classes.contains(&name) {
                return Err(Diagnostic::error(
                    d.name_loc,
                    format!("typedef redefines class '{name}'"),
                ));
            }
            self.typedefs.insert(name, d.ty);
            if self.eat_punct(",") {
                continue;
            }
            self.expect_punct(";")?;
            return Ok(());
        }
    }

    fn parse_initializer(&mut self) -> PResult<Init> {
        if self.eat_punct("=") {
            if self.is_punct("{") {
                let loc = self.bump().loc;
                return Ok(Init::List(self.parse_brace_list()?, loc));
            }
            return Ok(Init::Copy(self.parse_assign()?));
        }
        if self.is_punct("(") {
            self.bump();
            let args = self.parse_call_args()?;
            if args.is_empty() {
                return Err(Diagnostic::error(
                    self.loc(),
                    "empty parentheses declare a function",
                ));
            }
            return Ok(Init::Direct(args));
        }
        if self.is_punct("{") {
            let loc = self.bump().loc;
            return Ok(Init::List(self.parse_brace_list()?, loc));
        }
        Ok(Init::None)
    }

    /// After `{`: a comma-separated list closed by `}`.
    fn parse_brace_list(&mut self) -> PResult<Vec<Expr>> {
        let mut out = Vec::new();
        if self.eat_punct("}") {
            return Ok(out);
        }
        loop {
            if self.is_punct("{") {
                return Err(unsupported(self.loc(), "nested brace initializers"));
            }
            out.push(self.parse_assign()?);
            if self.eat_punct(",") {
                if self.eat_punct("}") {
                    return Ok(out);
                }
                continue;
            }
            self.expect_punct("}")?;
            return Ok(out);
        }
    }

    // ---- statements -------------------------------------------------------------------------

    fn parse_stmt(&mut self) -> PResult<Stmt> {
        self.nested(|p| p.parse_stmt_inner())
    }

    fn parse_sub_stmt(&mut self) -> PResult<Box<Stmt>> {
        Ok(Box::new(self.parse_stmt()?))
    }

    fn parse_stmt_inner(&mut self) -> PResult<Stmt> {
        let loc = self.loc();
        if self.is_punct("{") {
            let (stmts, _) = self.parse_block_body()?;
            return Ok(Stmt::Block(stmts, loc));
        }
        if self.eat_punct(";") {
            return Ok(Stmt::Empty);
        }
        if let Tok::Ident(w) = self.peek().clone() {
            if self.is_punct_at(1, ":") && !is_keyword(&w) {
                self.bump();
                self.bump();
                return Ok(Stmt::Label(w, loc));
            }
            match w.as_str() {
                "if" => {
                    self.bump();
                    if self.is_ident("constexpr") {
                        return Err(unsupported(self.loc(), "if constexpr"));
                    }
                    self.expect_punct("(")?;
                    let cond = self.parse_condition()?;
                    self.expect_punct(")")?;
                    let then = self.parse_sub_stmt()?;
                    let els = if self.eat_ident("else") {
                        Some(self.parse_sub_stmt()?)
                    } else {
                        None
                    };
                    return Ok(Stmt::If {
                        cond,
                        then,
                        els,
                        loc,
                    });
                }
                "while" => {
                    self.bump();
                    self.expect_punct("(")?;
                    let cond = self.parse_condition()?;
                    self.expect_punct(")")?;
                    let body = self.parse_sub_stmt()?;
                    return Ok(Stmt::While { cond, body, loc });
                }
                "do" => {
                    self.bump();
                    let body = self.parse_sub_stmt()?;
                    if !self.eat_ident("while") {
                        return Err(Diagnostic::error(
                            self.loc(),
                            format!("expected 'while', found {}", self.describe()),
                        ));
                    }
                    self.expect_punct("(")?;
                    let cond = self.parse_expr()?;
                    self.expect_punct(")")?;
                    self.expect_punct(";")?;
                    return Ok(Stmt::DoWhile { body, cond, loc });
                }
                "for" => {
                    self.bump();
                    self.expect_punct("(")?;
                    let init = if self.eat_punct(";") {
                        None
                    } else if self.is_decl_start() {
                        let d = self.parse_local_decl()?;
                        if self.is_punct(":") {
                            return Err(unsupported(self.loc(), "range-based for"));
                        }
                        self.expect_punct(";")?;
                        Some(Box::new(d))
                    } else {
                        let e = self.parse_expr()?;
                        self.expect_punct(";")?;
                        Some(Box::new(Stmt::Expr(e)))
                    };
                    let cond = if self.is_punct(";") {
                        None
                    } else {
                        Some(self.parse_condition()?)
                    };
                    self.expect_punct(";")?;
                    let step = if self.is_punct(")") {
                        None
                    } else {
                        Some(self.parse_expr()?)
                    };
                    self.expect_punct(")")?;
                    let body = self.parse_sub_stmt()?;
                    return Ok(Stmt::For {
                        init,
                        cond,
                        step,
                        body,
                        loc,
                    });
                }
                "switch" => {
                    self.bump();
                    self.expect_punct("(")?;
                    let cond = self.parse_condition()?;
                    self.expect_punct(")")?;
                    let body = self.parse_sub_stmt()?;
                    return Ok(Stmt::Switch { cond, body, loc });
                }
                "case" => {
                    self.bump();
                    let e = self.parse_conditional()?;
                    if self.is_punct("...") {
                        return Err(unsupported(self.loc(), "case ranges"));
                    }
                    self.expect_punct(":")?;
                    return Ok(Stmt::Case(e, loc));
                }
                "default" => {
                    self.bump();
                    self.expect_punct(":")?;
                    return Ok(Stmt::Default(loc));
                }
                "break" => {
                    self.bump();
                    self.expect_punct(";")?;
                    return Ok(Stmt::Break(loc));
                }
                "continue" => {
                    self.bump();
                    self.expect_punct(";")?;
                    return Ok(Stmt::Continue(loc));
                }
                "return" => {
                    self.bump();
                    if self.eat_punct(";") {
                        return Ok(Stmt::Return(None, loc));
                    }
                    if self.is_punct("{") {
                        return Err(unsupported(
                            self.loc(),
                            "returning a braced initializer list",
                        ));
                    }
                    let e = self.parse_expr()?;
                    self.expect_punct(";")?;
                    return Ok(Stmt::Return(Some(e), loc));
                }
                "goto" => {
                    self.bump();
                    if self.is_punct("*") {
                        return Err(unsupported(self.loc(), "computed goto"));
                    }
                    let (label, _) = self.expect_ident()?;
                    self.expect_punct(";")?;
                    return Ok(Stmt::Goto(label, loc));
                }
                "try" => {
                    self.bump();
                    let (body, _) = self.parse_block_body()?;
                    let handlers = self.parse_handlers()?;
                    return Ok(Stmt::Try {
                        body,
                        handlers,
                        loc,
                    });
                }
                "catch" => return Err(Diagnostic::error(loc, "'catch' without 'try'")),
                "else" => return Err(Diagnostic::error(loc, "'else' without 'if'")),
                "asm" | "__asm__" => return Err(unsupported(loc, "inline assembly")),
                "namespace" => return Err(unsupported(loc, "namespaces")),
                "template" => return Err(unsupported(loc, "templates")),
                "class" | "struct" if self.is_class_definition_start() => {
                    return Err(unsupported(loc, "local classes"));
                }
                "union" | "enum" => return Err(unsupported(loc, format!("'{w}' types"))),
                "typedef" => {
                    let specs = self.parse_decl_specs(true)?;
                    self.parse_typedef_rest(specs, loc)?;
                    return Ok(Stmt::Empty);
                }
                "using" => return Err(unsupported(loc, "using declarations in functions")),
                "static_assert" => return Err(unsupported(loc, "static_assert")),
                _ => {}
            }
        }
        if self.is_decl_start() {
            let d = self.parse_local_decl()?;
            self.expect_punct(";")?;
            return Ok(d);
        }
        let e = self.parse_expr()?;
        self.expect_punct(";")?;
        Ok(Stmt::Expr(e))
    }

    /// A condition: an expression (declarations in conditions are not supported).
    fn parse_condition(&mut self) -> PResult<Expr> {
        if self.is_decl_start() {
            return Err(unsupported(self.loc(), "declarations in conditions"));
        }
        self.parse_expr()
    }

    /// Whether a statement at the cursor is a declaration.
    fn is_decl_start(&self) -> bool {
        if let Tok::Ident(w) = self.peek()
            && matches!(
                w.as_str(),
                "static"
                    | "extern"
                    | "const"
                    | "volatile"
                    | "register"
                    | "constexpr"
                    | "auto"
                    | "thread_local"
                    | "inline"
            )
        {
            return true;
        }
        if !self.is_type_start() {
            return false;
        }
        // A type name followed by `(` or `{` or `::` is an expression (functional cast).
        let skip = match self.std_type_at(0) {
            Some((_, n)) => n,
            None => 1,
        };
        let is_builtin_kw = self
            .ident_at(0)
            .is_some_and(|w| BUILTIN_TYPE_WORDS.contains(&w));
        if is_builtin_kw {
            // `int(x)` is an expression; multi-word builtins are declarations.
            return !(self.is_punct_at(skip, "(")
                && !self.is_punct_at(skip + 1, "*")
                && !self.is_punct_at(skip + 1, "&"));
        }
        let functional_cast = self.is_punct_at(skip, "(")
            && !self.is_punct_at(skip + 1, "*")
            && !self.is_punct_at(skip + 1, "&");
        !(functional_cast
            || self.is_punct_at(skip, "{")
            || self.is_punct_at(skip, ".")
            || self.is_punct_at(skip, "->"))
    }

    fn parse_local_decl(&mut self) -> PResult<Stmt> {
        let loc = self.loc();
        let specs = self.parse_decl_specs(true)?;
        if specs.is_typedef {
            self.parse_typedef_rest(specs, loc)?;
            return Ok(Stmt::Empty);
        }
        if specs.is_inline || specs.is_explicit {
            return Err(Diagnostic::error(
                loc,
                "invalid specifier on a local declaration",
            ));
        }
        let Some(base) = specs.ty.clone() else {
            return Err(Diagnostic::error(
                loc,
                format!("expected a type, found {}", self.describe()),
            ));
        };
        let mut decls = Vec::new();
        loop {
            let d = self.parse_declarator(base.clone(), false)?;
            let name = d
                .name
                .clone()
                .ok_or_else(|| Diagnostic::error(d.name_loc, "expected a name"))?;
            if d.func.is_some() {
                return Err(unsupported(d.name_loc, "local function declarations"));
            }
            if !matches!(name, DeclName::Ident(_)) {
                return Err(Diagnostic::error(d.name_loc, "invalid local variable name"));
            }
            let init = self.parse_initializer()?;
            decls.push(VarDecl {
                name,
                ty: d.ty,
                init,
                loc: d.name_loc,
                is_static: specs.is_static,
                is_extern: specs.is_extern,
                extern_c: specs.extern_c,
            });
            if self.eat_punct(",") {
                continue;
            }
            break;
        }
        Ok(Stmt::Decl(decls))
    }

    // ---- expressions --------------------------------------------------------------------------

    fn parse_expr(&mut self) -> PResult<Expr> {
        let mut e = self.parse_assign()?;
        while self.is_punct(",") {
            let loc = self.bump().loc;
            let r = self.parse_assign()?;
            e = Expr {
                kind: ExprKind::Binary(BinOp::Comma, Box::new(e), Box::new(r)),
                loc,
            };
        }
        Ok(e)
    }

    fn parse_call_args(&mut self) -> PResult<Vec<Expr>> {
        let mut args = Vec::new();
        if self.eat_punct(")") {
            return Ok(args);
        }
        loop {
            if self.is_punct("{") {
                return Err(unsupported(self.loc(), "braced initializer arguments"));
            }
            args.push(self.parse_assign()?);
            if self.eat_punct(",") {
                continue;
            }
            self.expect_punct(")")?;
            return Ok(args);
        }
    }

    fn parse_assign(&mut self) -> PResult<Expr> {
        self.nested(|p| p.parse_assign_inner())
    }

    fn parse_assign_inner(&mut self) -> PResult<Expr> {
        let loc = self.loc();
        if self.eat_ident("throw") {
            let starts_expr = !matches!(self.peek(), Tok::Punct(";" | ")" | "," | ":" | "]" | "}"));
            let e = if starts_expr {
                Some(Box::new(self.parse_assign()?))
            } else {
                None
            };
            return Ok(Expr {
                kind: ExprKind::Throw(e),
                loc,
            });
        }
        let lhs = self.parse_conditional()?;
        let op = match self.peek() {
            Tok::Punct("=") => Some(BinOp::Assign),
            Tok::Punct("+=") => Some(BinOp::CompoundAssign(ArithOp::Add)),
            Tok::Punct("-=") => Some(BinOp::CompoundAssign(ArithOp::Sub)),
            Tok::Punct("*=") => Some(BinOp::CompoundAssign(ArithOp::Mul)),
            Tok::Punct("/=") => Some(BinOp::CompoundAssign(ArithOp::Div)),
            Tok::Punct("%=") => Some(BinOp::CompoundAssign(ArithOp::Rem)),
            Tok::Punct("<<=") => Some(BinOp::CompoundAssign(ArithOp::Shl)),
            Tok::Punct(">>=") => Some(BinOp::CompoundAssign(ArithOp::Shr)),
            Tok::Punct("&=") => Some(BinOp::CompoundAssign(ArithOp::BitAnd)),
            Tok::Punct("|=") => Some(BinOp::CompoundAssign(ArithOp::BitOr)),
            Tok::Punct("^=") => Some(BinOp::CompoundAssign(ArithOp::BitXor)),
            _ => None,
        };
        if let Some(op) = op {
            let oloc = self.bump().loc;
            if self.is_punct("{") {
                return Err(unsupported(
                    self.loc(),
                    "assigning a braced initializer list",
                ));
            }
            let rhs = self.parse_assign()?;
            return Ok(Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                loc: oloc,
            });
        }
        Ok(lhs)
    }

    fn parse_conditional(&mut self) -> PResult<Expr> {
        let c = self.parse_binary(1)?;
        if self.is_punct("?") {
            let loc = self.bump().loc;
            let t = self.parse_expr()?;
            self.expect_punct(":")?;
            let f = self.parse_assign()?;
            return Ok(Expr {
                kind: ExprKind::Conditional(Box::new(c), Box::new(t), Box::new(f)),
                loc,
            });
        }
        Ok(c)
    }

    fn binary_op(&self) -> Option<(BinOp, u8)> {
        let Tok::Punct(p) = self.peek() else {
            return None;
        };
        Some(match *p {
            "||" => (BinOp::LogOr, 1),
            "&&" => (BinOp::LogAnd, 2),
            "|" => (BinOp::BitOr, 3),
            "^" => (BinOp::BitXor, 4),
            "&" => (BinOp::BitAnd, 5),
            "==" => (BinOp::Eq, 6),
            "!=" => (BinOp::Ne, 6),
            "<" => (BinOp::Lt, 7),
            ">" => (BinOp::Gt, 7),
            "<=" => (BinOp::Le, 7),
            ">=" => (BinOp::Ge, 7),
            "<<" => (BinOp::Shl, 8),
            ">>" => (BinOp::Shr, 8),
            "+" => (BinOp::Add, 9),
            "-" => (BinOp::Sub, 9),
            "*" => (BinOp::Mul, 10),
            "/" => (BinOp::Div, 10),
            "%" => (BinOp::Rem, 10),
            _ => return None,
        })
    }

    fn parse_binary(&mut self, min_prec: u8) -> PResult<Expr> {
        let mut lhs = self.parse_unary()?;
        while let Some((op, prec)) = self.binary_op() {
            if prec < min_prec {
                break;
            }
            let loc = self.bump().loc;
            if self.is_punct(".*") || self.is_punct("->*") {
                return Err(unsupported(self.loc(), "pointers to members"));
            }
            let rhs = self.parse_binary(prec + 1)?;
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                loc,
            };
        }
        if self.is_punct(".*") || self.is_punct("->*") {
            return Err(unsupported(self.loc(), "pointers to members"));
        }
        Ok(lhs)
    }

    fn parse_unary(&mut self) -> PResult<Expr> {
        self.nested(|p| p.parse_unary_inner())
    }

    fn parse_unary_inner(&mut self) -> PResult<Expr> {
        let loc = self.loc();
        let op = match self.peek() {
            Tok::Punct("++") => Some(UnOp::PreInc),
            Tok::Punct("--") => Some(UnOp::PreDec),
            Tok::Punct("+") => Some(UnOp::Plus),
            Tok::Punct("-") => Some(UnOp::Neg),
            Tok::Punct("!") => Some(UnOp::Not),
            Tok::Punct("~") => Some(UnOp::BitNot),
            Tok::Punct("*") => Some(UnOp::Deref),
            Tok::Punct("&") => Some(UnOp::AddrOf),
            Tok::Punct("&&") => return Err(unsupported(loc, "label addresses")),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            let e = self.parse_unary()?;
            return Ok(Expr {
                kind: ExprKind::Unary(op, Box::new(e)),
                loc,
            });
        }
        if self.is_ident("sizeof") {
            self.bump();
            if self.is_punct("...") {
                return Err(unsupported(loc, "sizeof..."));
            }
            if self.is_punct("(") && self.is_type_start_at(1) {
                self.bump();
                let ty = self.parse_type_id()?;
                self.expect_punct(")")?;
                return Ok(Expr {
                    kind: ExprKind::SizeofType(ty),
                    loc,
                });
            }
            let e = self.parse_unary()?;
            return Ok(Expr {
                kind: ExprKind::SizeofExpr(Box::new(e)),
                loc,
            });
        }
        if self.is_ident("alignof") || self.is_ident("noexcept") || self.is_ident("typeid") {
            return Err(unsupported(
                loc,
                format!("'{}' expressions", self.ident_at(0).unwrap_or("")),
            ));
        }
        if self.is_ident("new") || (self.is_punct("::") && self.is_ident_at(1, "new")) {
            if self.is_punct("::") {
                self.bump();
            }
            self.bump();
            if self.is_punct("(") {
                return Err(unsupported(self.loc(), "placement new"));
            }
            let specs = self.parse_decl_specs(false)?;
            let Some(mut ty) = specs.ty else {
                return Err(Diagnostic::error(
                    self.loc(),
                    format!("expected a type after 'new', found {}", self.describe()),
                ));
            };
            while self.eat_punct("*") {
                ty = TypeExpr::Ptr(Box::new(ty));
            }
            let mut array_size = None;
            if self.eat_punct("[") {
                array_size = Some(Box::new(self.parse_expr()?));
                self.expect_punct("]")?;
                if self.is_punct("[") {
                    return Err(unsupported(self.loc(), "new of multi-dimensional arrays"));
                }
            }
            let mut args = None;
            if self.is_punct("(") {
                self.bump();
                args = Some(self.parse_call_args()?);
            } else if self.is_punct("{") {
                return Err(unsupported(self.loc(), "braced new-initializers"));
            }
            if array_size.is_some() && args.as_ref().is_some_and(|a| !a.is_empty()) {
                return Err(Diagnostic::error(
                    loc,
                    "array new cannot have initializer arguments",
                ));
            }
            return Ok(Expr {
                kind: ExprKind::New {
                    ty,
                    array_size,
                    args,
                },
                loc,
            });
        }
        if self.is_ident("delete") || (self.is_punct("::") && self.is_ident_at(1, "delete")) {
            if self.is_punct("::") {
                self.bump();
            }
            self.bump();
            let array = if self.is_punct("[") {
                self.bump();
                self.expect_punct("]")?;
                true
            } else {
                false
            };
            let e = self.parse_unary()?;
            return Ok(Expr {
                kind: ExprKind::Delete {
                    array,
                    expr: Box::new(e),
                },
                loc,
            });
        }
        // C-style cast.
        if self.is_punct("(") && self.is_type_start_at(1) && !self.is_functional_cast_at(1) {
            self.bump();
            let ty = self.parse_type_id()?;
            self.expect_punct(")")?;
            if self.is_punct("{") {
                return Err(unsupported(self.loc(), "compound literals"));
            }
            let e = self.parse_unary()?;
            return Ok(Expr {
                kind: ExprKind::Cast {
                    ty,
                    expr: Box::new(e),
                    style: CastStyle::CStyle,
                },
                loc,
            });
        }
        self.parse_postfix()
    }

    /// Whether a type name at offset `n` is used as a functional cast (`(T(x))`).
    fn is_functional_cast_at(&self, n: usize) -> bool {
        let skip = match self.std_type_at(n) {
            Some((_, k)) => k,
            None => 1,
        };
        if matches!(
            self.ident_at(n),
            Some("const" | "unsigned" | "signed" | "long" | "short")
        ) {
            return false;
        }
        self.is_punct_at(n + skip, "(")
            && !self.is_punct_at(n + skip + 1, "*")
            && !self.is_punct_at(n + skip + 1, "&")
    }

    fn parse_postfix(&mut self) -> PResult<Expr> {
        let mut e = self.parse_primary()?;
        loop {
            let loc = self.loc();
            if self.eat_punct("(") {
                let args = self.parse_call_args()?;
                e = Expr {
                    kind: ExprKind::Call {
                        callee: Box::new(e),
                        args,
                    },
                    loc,
                };
            } else if self.eat_punct("[") {
                let i = self.parse_expr()?;
                self.expect_punct("]")?;
                e = Expr {
                    kind: ExprKind::Index(Box::new(e), Box::new(i)),
                    loc,
                };
            } else if self.is_punct(".") || self.is_punct("->") {
                let arrow = self.is_punct("->");
                self.bump();
                if self.is_punct("~") {
                    return Err(unsupported(self.loc(), "explicit destructor calls"));
                }
                if self.is_ident("template") || self.is_ident("operator") {
                    return Err(unsupported(self.loc(), "this member access"));
                }
                let (name, nloc) = self.expect_ident()?;
                let mut qualifier = None;
                let mut name = name;
                if self.is_punct("::") {
                    if !self.classes.contains(&name) {
                        return Err(Diagnostic::error(nloc, format!("'{name}' is not a class")));
                    }
                    self.bump();
                    qualifier = Some(name);
                    name = self.expect_ident()?.0;
                }
                e = Expr {
                    kind: ExprKind::Member {
                        base: Box::new(e),
                        name,
                        arrow,
                        qualifier,
                    },
                    loc: nloc,
                };
            } else if self.is_punct("++") || self.is_punct("--") {
                let op = if self.is_punct("++") {
                    UnOp::PostInc
                } else {
                    UnOp::PostDec
                };
                self.bump();
                e = Expr {
                    kind: ExprKind::Unary(op, Box::new(e)),
                    loc,
                };
            } else {
                break;
            }
        }
        Ok(e)
    }

    fn parse_primary(&mut self) -> PResult<Expr> {
        let loc = self.loc();
        let tok = self.peek().clone();
        let kind = match tok {
            Tok::Int {
                value,
                unsigned,
                long,
            } => {
                self.bump();
                ExprKind::Int {
                    value,
                    unsigned,
                    long,
                }
            }
            Tok::Float { value, single } => {
                self.bump();
                ExprKind::Float { value, single }
            }
            Tok::Char(c) => {
                self.bump();
                ExprKind::Char(c)
            }
            Tok::Str(s) => {
                self.bump();
                ExprKind::Str(s)
            }
            Tok::Punct("(") => {
                self.bump();
                if self.is_punct("{") {
                    return Err(unsupported(loc, "statement expressions"));
                }
                let e = self.parse_expr()?;
                self.expect_punct(")")?;
                return Ok(e);
            }
            Tok::Punct("[") => return Err(unsupported(loc, "lambda expressions")),
            Tok::Punct("::") => {
                self.bump();
                let (name, _) = self.expect_ident()?;
                ExprKind::Qualified(String::new(), name)
            }
            Tok::Ident(w) => match w.as_str() {
                "true" | "false" => {
                    self.bump();
                    ExprKind::Bool(w == "true")
                }
                "nullptr" => {
                    self.bump();
                    ExprKind::Nullptr
                }
                "NULL" => {
                    self.bump();
                    ExprKind::Nullptr
                }
                "this" => {
                    self.bump();
                    ExprKind::This
                }
                "static_cast" => {
                    self.bump();
                    self.expect_punct("<")?;
                    let ty = self.parse_type_id()?;
                    self.expect_punct(">")?;
                    self.expect_punct("(")?;
                    let e = self.parse_expr()?;
                    self.expect_punct(")")?;
                    ExprKind::Cast {
                        ty,
                        expr: Box::new(e),
                        style: CastStyle::Static,
                    }
                }
                "dynamic_cast" | "reinterpret_cast" | "const_cast" => {
                    return Err(unsupported(loc, format!("'{w}'")));
                }
                "operator" => {
                    return Err(unsupported(loc, "operator function names in expressions"));
                }
                "typeid" => return Err(unsupported(loc, "typeid")),
                _ if self.is_type_start() => {
                    // Functional cast / construction: `T(args)`.
                    let ty = {
                        let specs = self.parse_decl_specs(false)?;
                        specs
                            .ty
                            .ok_or_else(|| Diagnostic::error(loc, "expected a type"))?
                    };
                    if self.is_punct("{") {
                        return Err(unsupported(self.loc(), "braced functional casts"));
                    }
                    if self.is_punct("::") {
                        return Err(unsupported(self.loc(), "nested names"));
                    }
                    self.expect_punct("(")?;
                    let args = self.parse_call_args()?;
                    if matches!(strip_const(&ty), TypeExpr::Class(..)) || args.len() != 1 {
                        ExprKind::Construct { ty, args }
                    } else {
                        let mut args = args;
                        ExprKind::Cast {
                            ty,
                            expr: Box::new(args.remove(0)),
                            style: CastStyle::Functional,
                        }
                    }
                }
                _ if is_keyword(&w) => {
                    return Err(Diagnostic::error(
                        loc,
                        format!("expected an expression, found '{w}'"),
                    ));
                }
                _ => {
                    self.bump();
                    if self.is_punct("::") {
                        self.bump();
                        if self.is_punct("~") {
                            return Err(unsupported(self.loc(), "explicit destructor calls"));
                        }
                        let (member, mloc) = self.expect_ident()?;
                        if self.is_punct("::") {
                            return Err(unsupported(mloc, "nested names"));
                        }
                        if w != "std" && !self.classes.contains(&w) {
                            return Err(Diagnostic::error(
                                loc,
                                format!("'{w}' is not a class or namespace"),
                            ));
                        }
                        ExprKind::Qualified(w, member)
                    } else if self.is_punct("<") && self.ident_is_template(&w) {
                        return Err(unsupported(loc, "templates"));
                    } else {
                        ExprKind::Name(w)
                    }
                }
            },
            _ => {
                return Err(Diagnostic::error(
                    loc,
                    format!("expected an expression, found {}", self.describe()),
                ));
            }
        };
        Ok(Expr { kind, loc })
    }

    fn ident_is_template(&self, w: &str) -> bool {
        matches!(
            w,
            "vector"
                | "unique_ptr"
                | "shared_ptr"
                | "make_unique"
                | "make_shared"
                | "array"
                | "pair"
                | "function"
        )
    }
}

fn strip_const(t: &TypeExpr) -> &TypeExpr {
    match t {
        TypeExpr::Const(i) => strip_const(i),
        t => t,
    }
}

fn describe_tok(t: &Tok) -> String {
    match t {
        Tok::Ident(w) => format!("'{w}'"),
        Tok::Punct(p) => format!("'{p}'"),
        Tok::Eof => "end of file".into(),
        _ => "a literal".into(),
    }
}

/// Applies declarator suffixes to a type: `T x[2][3]` is an array of 2 arrays of 3 `T`.
fn apply_suffixes(base: TypeExpr, suffixes: Vec<Suffix>) -> TypeExpr {
    let mut ty = base;
    for s in suffixes.into_iter().rev() {
        ty = match s {
            Suffix::Array(n) => TypeExpr::Array(Box::new(ty), n),
            Suffix::Func(f) => TypeExpr::Func {
                ret: Box::new(ty),
                params: f.params.into_iter().map(|p| p.ty).collect(),
                variadic: f.variadic,
            },
        };
    }
    ty
}

fn resolve_builtin(words: &[(String, Loc)]) -> PResult<Builtin> {
    let loc = words[0].1;
    let mut signed = 0;
    let mut unsigned = 0;
    let mut short = 0;
    let mut long = 0;
    let mut base: Option<&str> = None;
    for (w, l) in words {
        match w.as_str() {
            "signed" => signed += 1,
            "unsigned" => unsigned += 1,
            "short" => short += 1,
            "long" => long += 1,
            other => {
                if base.is_some() {
                    return Err(Diagnostic::error(*l, "two types in one declaration"));
                }
                base = Some(other);
            }
        }
    }
    let bad = || Diagnostic::error(loc, "invalid combination of type specifiers");
    if signed + unsigned > 1 || short > 1 || long > 2 || (short > 0 && long > 0) {
        return Err(bad());
    }
    Ok(match base {
        Some("void") if signed + unsigned + short + long == 0 => Builtin::Void,
        Some("bool") if signed + unsigned + short + long == 0 => Builtin::Bool,
        Some("float") if signed + unsigned + short + long == 0 => Builtin::Float,
        Some("double") if signed + unsigned + short == 0 && long == 0 => Builtin::Double,
        Some("double") if long == 1 && signed + unsigned + short == 0 => {
            return Err(unsupported(loc, "long double"));
        }
        Some("char") if short + long == 0 => {
            if unsigned > 0 {
                Builtin::UChar
            } else if signed > 0 {
                Builtin::SChar
            } else {
                Builtin::Char
            }
        }
        Some("int") | None => {
            if base.is_none() && signed + unsigned + short + long == 0 {
                return Err(bad());
            }
            match (unsigned > 0, short > 0, long) {
                (false, true, _) => Builtin::Short,
                (true, true, _) => Builtin::UShort,
                (false, false, 0) => Builtin::Int,
                (true, false, 0) => Builtin::UInt,
                (false, false, 1) => Builtin::Long,
                (true, false, 1) => Builtin::ULong,
                (false, false, _) => Builtin::LongLong,
                (true, false, _) => Builtin::ULongLong,
            }
        }
        _ => return Err(bad()),
    })
}

/// Keywords that can never be identifiers.
pub fn is_keyword(w: &str) -> bool {
    matches!(
        w,
        "alignas"
            | "alignof"
            | "asm"
            | "auto"
            | "bool"
            | "break"
            | "case"
            | "catch"
            | "char"
            | "class"
            | "const"
            | "constexpr"
            | "const_cast"
            | "continue"
            | "decltype"
            | "default"
            | "delete"
            | "do"
            | "double"
            | "dynamic_cast"
            | "else"
            | "enum"
            | "explicit"
            | "extern"
            | "false"
            | "float"
            | "for"
            | "friend"
            | "goto"
            | "if"
            | "inline"
            | "int"
            | "long"
            | "mutable"
            | "namespace"
            | "new"
            | "noexcept"
            | "nullptr"
            | "operator"
            | "private"
            | "protected"
            | "public"
            | "register"
            | "reinterpret_cast"
            | "return"
            | "short"
            | "signed"
            | "sizeof"
            | "static"
            | "static_assert"
            | "static_cast"
            | "struct"
            | "switch"
            | "template"
            | "this"
            | "thread_local"
            | "throw"
            | "true"
            | "try"
            | "typedef"
            | "typeid"
            | "typename"
            | "union"
            | "unsigned"
            | "using"
            | "virtual"
            | "void"
            | "volatile"
            | "while"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    fn parse_text(t: &str) -> PResult<Vec<Item>> {
        let l = lex(t)?;
        parse(&l.tokens, &l.headers).map(|p| p.items)
    }

    #[test]
    fn parses_classes_functions_and_statements() {
        let items = parse_text(
            "struct A { int x; A(int v) : x(v) {} ~A(); A& operator=(const A&); static int n; };\n\
             A::~A() {}\n\
             int A::n = 0;\n\
             void (*handler)();\n\
             int f(const char* s, ...) noexcept;\n\
             int main() { A a(1); A* p = new A(2); try { throw A(3); } catch (const A& e) { } catch (...) { throw; } \
             for (int i = 0; i < 3; ++i) { if (i == 1) continue; } return a.x ? 1 : 0; }",
        )
        .unwrap();
        assert_eq!(items.len(), 6);
        let Item::Class(c) = &items[0] else { panic!() };
        assert_eq!(c.body.as_ref().unwrap().members.len(), 5);
        let Item::Var(v) = &items[3] else { panic!() };
        assert!(matches!(&v.ty, TypeExpr::Ptr(inner) if matches!(**inner, TypeExpr::Func { .. })));
        let Item::Function(f) = &items[4] else {
            panic!()
        };
        assert!(f.variadic);
        assert_eq!(f.spec, ExceptionSpec::Noexcept);
    }

    #[test]
    fn reports_unsupported_constructs() {
        for (src, msg) in [
            ("template <class T> void f();", "unsupported: templates"),
            ("namespace n {}", "unsupported: namespaces"),
            (
                "struct A { virtual void f(); };",
                "unsupported: virtual functions",
            ),
            ("void f() { auto x = 1; }", "unsupported: 'auto'"),
            (
                "void f() { int&& r = 1; }",
                "unsupported: rvalue references",
            ),
            ("void f() { [](){}; }", "unsupported: lambda expressions"),
        ] {
            let e = parse_text(src)
                .err()
                .unwrap_or_else(|| panic!("{src} parsed"));
            assert!(e.message.starts_with(msg), "{src}: {}", e.message);
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let src = format!("int x = {}1{};", "(".repeat(60000), ")".repeat(60000));
        let e = parse_text(&src).err().unwrap();
        assert!(e.message.contains("nesting"), "{}", e.message);
    }
}
