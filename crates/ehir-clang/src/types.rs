//! C++ types as Clang prints them (`qualType` strings of the JSON AST), parsed into a
//! small tree: builtins, qualifiers, pointers, references, arrays, functions and named
//! types (classes and enums, resolved by the generator through the declarations).

use ehir_core::abi::EhAbi;
use std::fmt;

/// A builtin arithmetic type.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Builtin {
    /// `void`
    Void,
    /// `bool`
    Bool,
    /// `char` (signed on x86-64)
    Char,
    /// `signed char`
    SChar,
    /// `unsigned char`
    UChar,
    /// `short`
    Short,
    /// `unsigned short`
    UShort,
    /// `int`
    Int,
    /// `unsigned int`
    UInt,
    /// `long`
    Long,
    /// `unsigned long`
    ULong,
    /// `long long`
    LongLong,
    /// `unsigned long long`
    ULongLong,
    /// `float`
    Float,
    /// `double`
    Double,
    /// `std::nullptr_t`
    Nullptr,
    /// `size_t` as Clang names it (`__size_t`): 64 bits on both targets, `unsigned long`
    /// on Linux and `unsigned long long` on Windows (which matters to its typeinfo).
    SizeT,
    /// `ptrdiff_t` as Clang names it (`__ptrdiff_t`): `long` on Linux, `long long` on
    /// Windows.
    PtrDiffT,
    /// `wchar_t`: 32-bit signed on Linux, 16-bit unsigned on Windows.
    WChar,
    /// `char8_t`
    Char8,
    /// `char16_t`
    Char16,
    /// `char32_t`
    Char32,
}

impl Builtin {
    /// The type's C++ spelling (`unsigned long`), for diagnostics.
    pub fn spelling(self) -> &'static str {
        match self {
            Builtin::Void => "void",
            Builtin::Bool => "bool",
            Builtin::Char => "char",
            Builtin::SChar => "signed char",
            Builtin::UChar => "unsigned char",
            Builtin::Short => "short",
            Builtin::UShort => "unsigned short",
            Builtin::Int => "int",
            Builtin::UInt => "unsigned int",
            Builtin::Long => "long",
            Builtin::ULong => "unsigned long",
            Builtin::LongLong => "long long",
            Builtin::ULongLong => "unsigned long long",
            Builtin::Float => "float",
            Builtin::Double => "double",
            Builtin::Nullptr => "std::nullptr_t",
            Builtin::SizeT => "size_t",
            Builtin::PtrDiffT => "ptrdiff_t",
            Builtin::WChar => "wchar_t",
            Builtin::Char8 => "char8_t",
            Builtin::Char16 => "char16_t",
            Builtin::Char32 => "char32_t",
        }
    }

    /// Size in bytes on the x86-64 target of `abi` (`long` is 4 bytes on Windows).
    pub fn size(self, abi: EhAbi) -> u64 {
        match self {
            Builtin::Void | Builtin::Bool | Builtin::Char | Builtin::SChar | Builtin::UChar => 1,
            Builtin::Short | Builtin::UShort => 2,
            Builtin::Int | Builtin::UInt | Builtin::Float => 4,
            Builtin::Long | Builtin::ULong => u64::from(abi.long_bits() / 8),
            Builtin::Char8 => 1,
            Builtin::Char16 => 2,
            Builtin::Char32 => 4,
            Builtin::WChar => u64::from(self.int_info(abi).map_or(32, |(bits, _)| bits) / 8),
            _ => 8,
        }
    }

    /// Integer width and signedness on the target of `abi`; `None` for void, floating
    /// and nullptr.
    pub fn int_info(self, abi: EhAbi) -> Option<(u16, bool)> {
        Some(match self {
            Builtin::Bool => (1, false),
            Builtin::Char | Builtin::SChar => (8, true),
            Builtin::UChar => (8, false),
            Builtin::Short => (16, true),
            Builtin::UShort => (16, false),
            Builtin::Int => (32, true),
            Builtin::UInt => (32, false),
            Builtin::Long => (abi.long_bits(), true),
            Builtin::ULong => (abi.long_bits(), false),
            Builtin::LongLong | Builtin::PtrDiffT => (64, true),
            Builtin::ULongLong | Builtin::SizeT => (64, false),
            Builtin::WChar if abi.long_bits() == 64 => (32, true),
            Builtin::WChar => (16, false),
            Builtin::Char8 => (8, false),
            Builtin::Char16 => (16, false),
            Builtin::Char32 => (32, false),
            _ => return None,
        })
    }

    /// The Itanium mangling code of the type (`i`, `j`, `c`, ...) on the target of `abi`
    /// (`size_t` is `unsigned long` on Linux, `unsigned long long` on Windows).
    pub fn mangling(self, abi: EhAbi) -> &'static str {
        match self {
            Builtin::SizeT if abi.long_bits() == 64 => "m",
            Builtin::SizeT => "y",
            Builtin::PtrDiffT if abi.long_bits() == 64 => "l",
            Builtin::PtrDiffT => "x",
            Builtin::Void => "v",
            Builtin::Bool => "b",
            Builtin::Char => "c",
            Builtin::SChar => "a",
            Builtin::UChar => "h",
            Builtin::Short => "s",
            Builtin::UShort => "t",
            Builtin::Int => "i",
            Builtin::UInt => "j",
            Builtin::Long => "l",
            Builtin::ULong => "m",
            Builtin::LongLong => "x",
            Builtin::ULongLong => "y",
            Builtin::Float => "f",
            Builtin::Double => "d",
            Builtin::Nullptr => "Dn",
            Builtin::WChar => "w",
            Builtin::Char8 => "Du",
            Builtin::Char16 => "Ds",
            Builtin::Char32 => "Di",
        }
    }
}

/// A C++ type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum CType {
    /// A builtin type.
    Builtin(Builtin),
    /// `const T` (volatile is dropped).
    Const(Box<CType>),
    /// `T *`
    Pointer(Box<CType>),
    /// `T &` or `T &&`
    Reference(Box<CType>),
    /// `T[N]` (`None`: unknown bound)
    Array(Box<CType>, Option<u64>),
    /// A function type.
    Function(Box<FunctionType>),
    /// A class or enum by its qualified name as Clang prints it (`A`, `ns::B`).
    Named(String),
    /// `T C::*`: a pointer to a member of class `C` (a data member, or a member
    /// function when `T` is a function type).
    MemberPointer(Box<CType>, String),
}

/// A function type: result, parameters, `...`, `noexcept`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct FunctionType {
    /// The result type.
    pub result: CType,
    /// The parameter types.
    pub params: Vec<CType>,
    /// Whether it takes `...`.
    pub variadic: bool,
    /// Whether it is `noexcept` (or `throw()`).
    pub noexcept: bool,
    /// The cv-qualifiers of a member function's type (`int () const`): const, volatile.
    pub qualifiers: (bool, bool),
}

impl CType {
    /// The type without a top-level `const`.
    pub fn unqualified(&self) -> &CType {
        match self {
            CType::Const(inner) => inner.unqualified(),
            other => other,
        }
    }

    /// The referenced type of a reference, or the type itself.
    pub fn non_reference(&self) -> &CType {
        match self.unqualified() {
            CType::Reference(inner) => inner,
            _ => self,
        }
    }

    /// Whether the type is a reference.
    pub fn is_reference(&self) -> bool {
        matches!(self.unqualified(), CType::Reference(_))
    }

    /// Whether the type is `void`.
    pub fn is_void(&self) -> bool {
        matches!(self.unqualified(), CType::Builtin(Builtin::Void))
    }

    /// The pointee of a pointer type.
    pub fn pointee(&self) -> Option<&CType> {
        match self.unqualified() {
            CType::Pointer(inner) => Some(inner),
            _ => None,
        }
    }

    /// The function type of a function or a pointer to function.
    pub fn function(&self) -> Option<&FunctionType> {
        match self.unqualified() {
            CType::Function(f) => Some(f),
            CType::Pointer(inner) => match inner.unqualified() {
                CType::Function(f) => Some(f),
                _ => None,
            },
            _ => None,
        }
    }

    /// The name of a named type (class or enum).
    pub fn name(&self) -> Option<&str> {
        match self.unqualified() {
            CType::Named(name) => Some(name),
            _ => None,
        }
    }
}

impl fmt::Display for CType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CType::Builtin(b) => f.write_str(b.spelling()),
            CType::Const(t) => write!(f, "const {t}"),
            CType::Pointer(t) => write!(f, "{t} *"),
            CType::Reference(t) => write!(f, "{t} &"),
            CType::Array(t, n) => {
                write!(f, "{t}[{}]", n.map(|n| n.to_string()).unwrap_or_default())
            }
            CType::Function(func) => write!(f, "{} (...)", func.result),
            CType::Named(n) => f.write_str(n),
            CType::MemberPointer(t, class) => write!(f, "{t} {class}::*"),
        }
    }
}

/// A token of a printed type.
#[derive(Clone, PartialEq, Debug)]
enum Token {
    Word(String),
    /// `C::` before a `*`: the class of a pointer to member.
    MemberOf(String),
    Punct(&'static str),
    Number(u64),
}

/// How Clang names a class that has no name: a lambda's closure, an anonymous union or
/// struct member, an unnamed class.
const UNNAMED_CLASS_PREFIXES: &[&str] = &[
    "(lambda at ",
    "(anonymous union at ",
    "(anonymous struct at ",
    // A member of a class template's instantiation: `union (anonymous at PATH:215:7)`.
    "(anonymous at ",
    "(unnamed union at ",
    "(unnamed struct at ",
    "(unnamed class at ",
];

fn tokenize(text: &str) -> Option<Vec<Token>> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let c = bytes[at];
        if c.is_ascii_whitespace() {
            at += 1;
        } else if c.is_ascii_digit() {
            let start = at;
            while at < bytes.len() && bytes[at].is_ascii_digit() {
                at += 1;
            }
            tokens.push(Token::Number(text[start..at].parse().ok()?));
        } else if UNNAMED_CLASS_PREFIXES
            .iter()
            .any(|p| text[at..].starts_with(p))
        {
            // A closure type, or an unnamed class: named by where it is
            // (`(lambda at f.cpp:3:12)`, `(anonymous union at f.cpp:2:3)`).
            let end = at + text[at..].find(')')? + 1;
            tokens.push(Token::Word(text[at..end].to_string()));
            at = end;
        } else if text[at..].starts_with("__attribute__((") {
            // `__attribute__((noreturn))` in a function type: no effect on the type.
            let mut depth = 0usize;
            let mut end = None;
            for (i, b) in bytes[at..].iter().enumerate() {
                match b {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(at + i + 1);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            at = end?;
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b':' {
            // A (qualified, maybe templated) name: `ns::A<int, B>`.
            let start = at;
            let mut depth = 0usize;
            while at < bytes.len() {
                let c = bytes[at];
                if c == b'<' {
                    depth += 1;
                } else if c == b'>' {
                    if depth == 0 {
                        return None;
                    }
                    depth -= 1;
                } else if depth == 0
                    && c == b'('
                    && text[start..at].ends_with("::")
                    && UNNAMED_CLASS_PREFIXES
                        .iter()
                        .any(|p| text[at..].starts_with(p))
                {
                    // `S::(anonymous union at f.cpp:2:3)`: a member's unnamed class.
                    at += text[at..].find(')')? + 1;
                    continue;
                } else if depth == 0 && !(c.is_ascii_alphanumeric() || c == b'_' || c == b':') {
                    break;
                }
                at += 1;
            }
            let word = text[start..at].trim_end();
            if let Some(class) = word.strip_suffix("::") {
                // `A::*`: a pointer to member.
                if !text[at..].trim_start().starts_with('*') {
                    return None;
                }
                tokens.push(Token::MemberOf(class.to_string()));
                continue;
            }
            tokens.push(Token::Word(word.to_string()));
        } else {
            let punct = match c {
                b'*' => "*",
                b'&' if bytes.get(at + 1) == Some(&b'&') => "&&",
                b'&' => "&",
                b'(' => "(",
                b')' => ")",
                b'[' => "[",
                b']' => "]",
                b',' => ",",
                b'.' if text[at..].starts_with("...") => "...",
                b'-' if text[at..].starts_with("->") => "->",
                _ => return None,
            };
            at += punct.len();
            tokens.push(Token::Punct(punct));
        }
    }
    Some(tokens)
}

/// The byte ranges of the file paths in the source locations Clang writes into the names
/// of entities without one: `(lambda at PATH:3:12)`, `(unnamed struct at PATH:1:1)`,
/// `(anonymous union at PATH:2:5)`. The path is the one Clang was given (absolute when
/// the input was named so), which output must not carry.
pub fn location_paths(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut paths = Vec::new();
    let mut from = 0;
    while let Some(open) = text[from..].find('(').map(|i| from + i) {
        from = open + 1;
        let rest = &text[from..];
        let words = rest.split(" at ").next().unwrap_or_default();
        let unnamed = words == "lambda"
            || words == "anonymous"
            || ["unnamed ", "anonymous "].iter().any(|prefix| {
                words
                    .strip_prefix(prefix)
                    .is_some_and(|kind| !kind.contains([' ', '(', ')']))
            });
        if !unnamed || words.len() == rest.len() {
            continue;
        }
        let start = from + words.len() + " at ".len();
        // The path ends at the `:LINE:COL)` that closes the group.
        let Some(end) = location_end(&text[start..]) else {
            continue;
        };
        paths.push(start..start + end);
        from = start + end;
    }
    paths
}

/// The length of the path in `PATH:LINE:COL)…`: up to the first `:digits:digits)`.
fn location_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(colon) = text[at..].find(':').map(|i| at + i) {
        let digits = |from: usize| {
            bytes[from..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count()
        };
        let line = digits(colon + 1);
        if line > 0 && bytes.get(colon + 1 + line) == Some(&b':') {
            let column_at = colon + 2 + line;
            let column = digits(column_at);
            if column > 0 && bytes.get(column_at + column) == Some(&b')') {
                return Some(colon);
            }
        }
        at = colon + 1;
    }
    None
}

/// Parses a type as Clang prints it; `None` for what this front end does not model.
pub fn parse_type(text: &str) -> Option<CType> {
    let tokens = tokenize(text)?;
    let mut parser = TypeParser { tokens, at: 0 };
    let ty = parser.type_name()?;
    (parser.at == parser.tokens.len()).then_some(ty)
}

struct TypeParser {
    tokens: Vec<Token>,
    at: usize,
}

/// A pointer-like declarator operator.
enum PtrOp {
    Pointer,
    Member(String),
    Reference,
    Const,
}

impl TypeParser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Token::Punct(q)) if *q == p) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn eat_word(&mut self, w: &str) -> bool {
        if matches!(self.peek(), Some(Token::Word(q)) if q == w) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn type_name(&mut self) -> Option<CType> {
        let base = self.specifiers()?;
        self.declarator(base)
    }

    /// Declaration specifiers: builtin keywords, a name, cv-qualifiers.
    fn specifiers(&mut self) -> Option<CType> {
        let mut words: Vec<String> = Vec::new();
        let mut is_const = false;
        let mut named = None;
        while let Some(Token::Word(w)) = self.peek() {
            let w = w.clone();
            match w.as_str() {
                "const" => is_const = true,
                "volatile" | "struct" | "class" | "union" | "enum" | "__restrict" | "restrict" => {}
                "signed" | "unsigned" | "short" | "long" | "int" | "char" | "bool" | "void"
                | "float" | "double" | "_Bool" => words.push(w),
                "noexcept" => break,
                _ if named.is_none() && words.is_empty() => named = Some(w),
                _ => break,
            }
            self.at += 1;
        }
        let base = match named {
            Some(name) => match name.as_str() {
                "std::nullptr_t" | "nullptr_t" => CType::Builtin(Builtin::Nullptr),
                // Clang's predefined sugar for the types of `sizeof` and pointer
                // differences.
                "__size_t" => CType::Builtin(Builtin::SizeT),
                "__ptrdiff_t" | "__signed_size_t" => CType::Builtin(Builtin::PtrDiffT),
                "wchar_t" => CType::Builtin(Builtin::WChar),
                "char8_t" => CType::Builtin(Builtin::Char8),
                "char16_t" => CType::Builtin(Builtin::Char16),
                "char32_t" => CType::Builtin(Builtin::Char32),
                _ => CType::Named(name),
            },
            None => CType::Builtin(builtin_of(&words)?),
        };
        Some(if is_const {
            CType::Const(Box::new(base))
        } else {
            base
        })
    }

    fn ptr_ops(&mut self) -> Vec<PtrOp> {
        let mut ops = Vec::new();
        loop {
            if self.eat_punct("*") {
                ops.push(PtrOp::Pointer);
            } else if let Some(Token::MemberOf(class)) = self.peek()
                && matches!(self.tokens.get(self.at + 1), Some(Token::Punct("*")))
            {
                ops.push(PtrOp::Member(class.clone()));
                self.at += 2;
            } else if self.eat_punct("&") || self.eat_punct("&&") {
                ops.push(PtrOp::Reference);
            } else if self.eat_word("const") {
                ops.push(PtrOp::Const);
            } else if self.eat_word("volatile") || self.eat_word("__restrict") {
            } else {
                return ops;
            }
        }
    }

    /// An abstract declarator applied to `base`.
    fn declarator(&mut self, base: CType) -> Option<CType> {
        let mut ty = base;
        for op in self.ptr_ops() {
            ty = match op {
                PtrOp::Pointer => CType::Pointer(Box::new(ty)),
                PtrOp::Member(class) => CType::MemberPointer(Box::new(ty), class),
                PtrOp::Reference => CType::Reference(Box::new(ty)),
                PtrOp::Const => CType::Const(Box::new(ty)),
            };
        }
        let nested = matches!(self.peek(), Some(Token::Punct("(")))
            && matches!(
                self.tokens.get(self.at + 1),
                Some(Token::Punct("*" | "&" | "&&") | Token::MemberOf(_))
            );
        if nested {
            // `T (*)(args)`: the suffixes after the parentheses apply first.
            let start = self.at + 1;
            let mut depth = 0usize;
            let mut end = self.at;
            for (i, token) in self.tokens.iter().enumerate().skip(self.at) {
                match token {
                    Token::Punct("(") => depth += 1,
                    Token::Punct(")") => {
                        depth -= 1;
                        if depth == 0 {
                            end = i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            if end == self.at {
                return None;
            }
            self.at = end + 1;
            let outer = self.suffixes(ty)?;
            let after = self.at;
            let mut inner = TypeParser {
                tokens: self.tokens[start..end].to_vec(),
                at: 0,
            };
            let result = inner.declarator(outer)?;
            if inner.at != inner.tokens.len() {
                return None;
            }
            self.at = after;
            return Some(result);
        }
        self.suffixes(ty)
    }

    /// Array bounds and function parameter lists, applied right to left.
    fn suffixes(&mut self, base: CType) -> Option<CType> {
        enum Suffix {
            Array(Option<u64>),
            Function(Vec<CType>, bool, bool, (bool, bool), Option<CType>),
        }
        let mut suffixes = Vec::new();
        loop {
            if self.eat_punct("[") {
                let bound = match self.peek() {
                    Some(Token::Number(n)) => {
                        let n = *n;
                        self.at += 1;
                        Some(n)
                    }
                    _ => None,
                };
                if !self.eat_punct("]") {
                    return None;
                }
                suffixes.push(Suffix::Array(bound));
            } else if self.eat_punct("(") {
                let mut params = Vec::new();
                let mut variadic = false;
                if !self.eat_punct(")") {
                    loop {
                        if self.eat_punct("...") {
                            variadic = true;
                        } else {
                            let param = self.type_name()?;
                            if !param.is_void() {
                                params.push(param);
                            }
                        }
                        if self.eat_punct(")") {
                            break;
                        }
                        if !self.eat_punct(",") {
                            return None;
                        }
                    }
                }
                // Method qualifiers and exception specifications.
                let mut noexcept = false;
                let mut qualifiers = (false, false);
                loop {
                    if self.eat_word("const") {
                        qualifiers.0 = true;
                        continue;
                    }
                    if self.eat_word("volatile") {
                        qualifiers.1 = true;
                        continue;
                    }
                    if self.eat_punct("&") || self.eat_punct("&&") {
                        continue;
                    }
                    if self.eat_word("noexcept") {
                        noexcept = true;
                        if self.eat_punct("(") {
                            noexcept = self.eat_word("true");
                            if !noexcept {
                                self.eat_word("false");
                            }
                            if !self.eat_punct(")") {
                                return None;
                            }
                        }
                        continue;
                    }
                    if self.eat_word("throw") {
                        if !self.eat_punct("(") {
                            return None;
                        }
                        noexcept = true;
                        while !self.eat_punct(")") {
                            noexcept = false;
                            self.at += 1;
                            if self.at > self.tokens.len() {
                                return None;
                            }
                        }
                        continue;
                    }
                    break;
                }
                // A trailing return type (`auto (int) const -> int`).
                let trailing = if self.eat_punct("->") {
                    Some(self.type_name()?)
                } else {
                    None
                };
                suffixes.push(Suffix::Function(
                    params, variadic, noexcept, qualifiers, trailing,
                ));
            } else {
                break;
            }
        }
        let mut ty = base;
        for suffix in suffixes.into_iter().rev() {
            ty = match suffix {
                Suffix::Array(n) => CType::Array(Box::new(ty), n),
                Suffix::Function(params, variadic, noexcept, qualifiers, trailing) => {
                    CType::Function(Box::new(FunctionType {
                        result: trailing.unwrap_or(ty),
                        params,
                        variadic,
                        noexcept,
                        qualifiers,
                    }))
                }
            };
        }
        Some(ty)
    }
}

fn builtin_of(words: &[String]) -> Option<Builtin> {
    let has = |w: &str| words.iter().any(|x| x == w);
    let longs = words.iter().filter(|w| *w == "long").count();
    let unsigned = has("unsigned");
    Some(if has("void") {
        Builtin::Void
    } else if has("bool") || has("_Bool") {
        Builtin::Bool
    } else if has("float") {
        Builtin::Float
    } else if has("double") {
        if longs > 0 {
            return None; // long double
        }
        Builtin::Double
    } else if has("char") {
        if unsigned {
            Builtin::UChar
        } else if has("signed") {
            Builtin::SChar
        } else {
            Builtin::Char
        }
    } else if has("short") {
        if unsigned {
            Builtin::UShort
        } else {
            Builtin::Short
        }
    } else if longs == 1 {
        if unsigned {
            Builtin::ULong
        } else {
            Builtin::Long
        }
    } else if longs >= 2 {
        if unsigned {
            Builtin::ULongLong
        } else {
            Builtin::LongLong
        }
    } else if has("int") || has("signed") || unsigned {
        if unsigned {
            Builtin::UInt
        } else {
            Builtin::Int
        }
    } else {
        return None;
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(n: &str) -> CType {
        CType::Named(n.into())
    }

    #[test]
    fn parses_the_shapes_clang_prints() {
        let int = CType::Builtin(Builtin::Int);
        let ch = CType::Builtin(Builtin::Char);
        assert_eq!(parse_type("int"), Some(int.clone()));
        assert_eq!(
            parse_type("unsigned long"),
            Some(CType::Builtin(Builtin::ULong))
        );
        assert_eq!(
            parse_type("const char *"),
            Some(CType::Pointer(Box::new(CType::Const(Box::new(ch.clone())))))
        );
        assert_eq!(
            parse_type("char *const"),
            Some(CType::Const(Box::new(CType::Pointer(Box::new(ch.clone())))))
        );
        assert_eq!(
            parse_type("const A &"),
            Some(CType::Reference(Box::new(CType::Const(Box::new(named(
                "A"
            ))))))
        );
        assert_eq!(
            parse_type("int[3][4]"),
            Some(CType::Array(
                Box::new(CType::Array(Box::new(int.clone()), Some(4))),
                Some(3)
            ))
        );
        assert_eq!(
            parse_type("int *[2]"),
            Some(CType::Array(
                Box::new(CType::Pointer(Box::new(int.clone()))),
                Some(2)
            ))
        );
        assert_eq!(
            parse_type("int (*)[2]"),
            Some(CType::Pointer(Box::new(CType::Array(
                Box::new(int.clone()),
                Some(2)
            ))))
        );
        let f = parse_type("int (*)(const char *__restrict, ...)").unwrap();
        let func = f.function().unwrap();
        assert!(func.variadic && func.params.len() == 1 && func.result == int);
        let g = parse_type("void () noexcept").unwrap();
        assert!(g.function().unwrap().noexcept && g.function().unwrap().params.is_empty());
        let h = parse_type("void (void) throw()").unwrap();
        assert!(h.function().unwrap().noexcept);
        assert_eq!(
            parse_type("ns::Box<int, ns::B>"),
            Some(named("ns::Box<int, ns::B>"))
        );
        let trailing = parse_type("auto (int) const -> int").unwrap();
        assert_eq!(
            trailing.function().unwrap().result,
            CType::Builtin(Builtin::Int)
        );
        assert_eq!(
            parse_type("const (lambda at a.cpp:3:12) &"),
            Some(CType::Reference(Box::new(CType::Const(Box::new(named(
                "(lambda at a.cpp:3:12)"
            ))))))
        );
        let noreturn = parse_type("void (int) __attribute__((noreturn)) noexcept(true)").unwrap();
        assert!(noreturn.function().unwrap().noexcept);
        assert_eq!(
            parse_type("void *(__size_t)")
                .unwrap()
                .function()
                .unwrap()
                .params,
            vec![CType::Builtin(Builtin::SizeT)]
        );
        assert_eq!(parse_type("long double"), None);
        // Pointers to members.
        let int = CType::Builtin(Builtin::Int);
        assert_eq!(
            parse_type("int Point::*"),
            Some(CType::MemberPointer(Box::new(int.clone()), "Point".into()))
        );
        assert_eq!(
            parse_type("const double ns::Point::*"),
            Some(CType::MemberPointer(
                Box::new(CType::Const(Box::new(CType::Builtin(Builtin::Double)))),
                "ns::Point".into()
            ))
        );
        let method = parse_type("void (A::*)() throw()").unwrap();
        let CType::MemberPointer(function, class) = &method else {
            panic!("{method:?}");
        };
        assert_eq!(class, "A");
        assert!(function.function().is_some_and(|f| f.params.is_empty()));
        assert_eq!(parse_type("A::"), None);
    }

    #[test]
    fn long_and_size_t_follow_the_data_model_of_the_target() {
        use EhAbi::{Itanium, Msvc};
        assert_eq!(Builtin::Long.size(Itanium), 8);
        assert_eq!(Builtin::Long.size(Msvc), 4);
        assert_eq!(Builtin::ULong.int_info(Msvc), Some((32, false)));
        assert_eq!(Builtin::SizeT.int_info(Msvc), Some((64, false)));
        assert_eq!(Builtin::SizeT.size(Msvc), 8);
        assert_eq!(Builtin::SizeT.mangling(Itanium), "m");
        assert_eq!(Builtin::SizeT.mangling(Msvc), "y");
        assert_eq!(Builtin::PtrDiffT.mangling(Msvc), "x");
    }

    #[test]
    fn location_paths_are_found_in_the_names_of_unnamed_entities() {
        let paths = |text: &str| -> Vec<String> {
            location_paths(text)
                .into_iter()
                .map(|range| text[range].to_string())
                .collect()
        };
        assert_eq!(paths("(lambda at /src/a b/f.cpp:3:12)"), ["/src/a b/f.cpp"]);
        assert_eq!(
            paths("Defer<(lambda at /x/f.cpp:22:20), (unnamed struct at c:\\d:f.h:1:1)>"),
            ["/x/f.cpp", "c:\\d:f.h"]
        );
        assert_eq!(paths("S::(anonymous union at f.cpp:3:12) &"), ["f.cpp"]);
        assert_eq!(paths("union (anonymous at /a/b.h:215:7)"), ["/a/b.h"]);
        assert_eq!(
            paths("void (int (*)(int), Defer<int>)"),
            Vec::<String>::new()
        );
        assert_eq!(paths("(lambda at f.cpp)"), Vec::<String>::new());
    }
}
