//! The lexer of the CIR text format: turns bytes into tokens that are spans of the input
//! (no allocation per token). Malformed input becomes an `Error` token carrying a
//! [`LexError`], which the parser reports at the token's location.

/// What went wrong while lexing one token.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum LexError {
    /// A character that starts no token (`&`, `*`, a non-ASCII letter, ...).
    UnexpectedChar,
    /// `%` not directly followed by a name.
    EmptyValueName,
    /// `^` not directly followed by a name.
    EmptyBlockName,
    /// `@` not directly followed by a name or a quoted string (`@ foo`).
    EmptySymbolName,
    /// `!` not directly followed by a name.
    EmptyTypeName,
    /// `#` not directly followed by a name.
    EmptyAttrName,
    /// A string without its closing quote on the same line.
    UnterminatedString,
}

impl LexError {
    pub(crate) fn message(self) -> &'static str {
        match self {
            LexError::UnexpectedChar => "unexpected character",
            LexError::EmptyValueName => "expected a value name directly after '%'",
            LexError::EmptyBlockName => "expected a block name directly after '^'",
            LexError::EmptySymbolName => {
                "expected a symbol name directly after '@' (no space is allowed)"
            }
            LexError::EmptyTypeName => "expected a type name directly after '!'",
            LexError::EmptyAttrName => "expected an attribute name directly after '#'",
            LexError::UnterminatedString => "unterminated string (missing closing '\"')",
        }
    }
}

/// The kind of a token. The token's text is its span of the input.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum TokenKind {
    Eof,
    /// A bare identifier: `cir.func`, `catch_all`, `x`, `i32`, `eh.typeid`.
    Ident,
    /// `%name`
    ValueId,
    /// `^name`
    BlockId,
    /// `@name` or `@"quoted name"`
    SymbolRef,
    /// `!name` (a type)
    TypeId,
    /// `#name` (an attribute)
    AttrId,
    /// `42`, `-1`
    Integer,
    /// `0x1F`
    Hex,
    /// `1.5`, `-2.0e10`
    Float,
    /// `"text"` including the quotes
    String,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Less,
    Greater,
    Comma,
    Colon,
    Equal,
    /// `->`
    Arrow,
    /// `...`
    Ellipsis,
    Error(LexError),
}

/// A token: its kind and its byte span `[start, end)` in the input.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Token {
    pub kind: TokenKind,
    pub start: u32,
    pub end: u32,
}

/// A cursor over the input. `Copy`, so looking ahead is cloning it.
#[derive(Copy, Clone)]
pub(crate) struct Lexer<'s> {
    bytes: &'s [u8],
    pos: usize,
}

const START: u8 = 1;
const CONTINUE: u8 = 2;
const SPACE: u8 = 4;

/// Byte classes: identifier start (`[A-Za-z_]`), identifier continuation
/// (`[A-Za-z0-9_.$]`), whitespace.
static CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let alpha = b.is_ascii_alphabetic() || b == b'_';
        if alpha {
            table[c] |= START | CONTINUE;
        }
        if b.is_ascii_digit() || b == b'.' || b == b'$' {
            table[c] |= CONTINUE;
        }
        if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            table[c] |= SPACE;
        }
        c += 1;
    }
    table
};

#[inline]
fn is_ident_start(c: u8) -> bool {
    CLASS[c as usize] & START != 0
}

#[inline]
fn is_ident_continue(c: u8) -> bool {
    CLASS[c as usize] & CONTINUE != 0
}

/// Length in bytes of the UTF-8 sequence that starts with `lead`.
fn utf8_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

impl<'s> Lexer<'s> {
    /// A lexer positioned at byte `pos` of `text`.
    pub(crate) fn at(text: &'s str, pos: usize) -> Self {
        Lexer {
            bytes: text.as_bytes(),
            pos: pos.min(text.len()),
        }
    }

    pub(crate) fn new(text: &'s str) -> Self {
        Lexer {
            bytes: text.as_bytes(),
            pos: 0,
        }
    }

    fn peek_byte(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    #[inline]
    fn skip_trivia(&mut self) {
        let bytes = self.bytes;
        let mut pos = self.pos;
        while let Some(&c) = bytes.get(pos) {
            if CLASS[c as usize] & SPACE != 0 {
                pos += 1;
                // Indentation: runs of spaces, eight at a time.
                if c == b'\n' {
                    while let Some(chunk) = bytes.get(pos..pos + 8) {
                        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
                        let other = word ^ 0x2020_2020_2020_2020;
                        if other != 0 {
                            pos += (other.trailing_zeros() / 8) as usize;
                            break;
                        }
                        pos += 8;
                    }
                }
                continue;
            }
            if c == b'/' && bytes.get(pos + 1) == Some(&b'/') {
                pos += 2;
                while let Some(&c) = bytes.get(pos) {
                    if c == b'\n' {
                        break;
                    }
                    pos += 1;
                }
                continue;
            }
            break;
        }
        self.pos = pos;
    }

    #[inline]
    fn eat_while(&mut self, pred: impl Fn(u8) -> bool) {
        let bytes = self.bytes;
        let mut pos = self.pos;
        while let Some(&c) = bytes.get(pos) {
            if !pred(c) {
                break;
            }
            pos += 1;
        }
        self.pos = pos;
    }

    #[inline]
    fn eat_ident_continue(&mut self) {
        self.eat_while(is_ident_continue);
    }

    fn token(&self, kind: TokenKind, start: usize) -> Token {
        Token {
            kind,
            start: start as u32,
            end: self.pos as u32,
        }
    }

    /// Lexes a string body after its opening quote; returns false when unterminated.
    fn string_body(&mut self) -> bool {
        while let Some(&c) = self.bytes.get(self.pos) {
            match c {
                b'"' => {
                    self.pos += 1;
                    return true;
                }
                b'\n' => return false,
                b'\\' => {
                    self.pos += 1;
                    match self.bytes.get(self.pos) {
                        None | Some(b'\n') => return false,
                        Some(&c) => self.pos += utf8_len(c),
                    }
                }
                c => self.pos += utf8_len(c),
            }
        }
        false
    }

    /// A sigil (`%`, `^`, `!`, `#`) followed by a name.
    fn sigil(
        &mut self,
        start: usize,
        kind: TokenKind,
        empty: LexError,
        first: fn(u8) -> bool,
    ) -> Token {
        self.pos += 1;
        match self.peek_byte(0) {
            Some(c) if first(c) => {
                self.eat_ident_continue();
                self.token(kind, start)
            }
            _ => self.token(TokenKind::Error(empty), start),
        }
    }

    fn number(&mut self, start: usize) -> Token {
        // At a digit, or at '-' followed by a digit.
        if self.peek_byte(0) == Some(b'-') {
            self.pos += 1;
        }
        if self.pos == start
            && self.peek_byte(0) == Some(b'0')
            && matches!(self.peek_byte(1), Some(b'x' | b'X'))
            && self.peek_byte(2).is_some_and(|c| c.is_ascii_hexdigit())
        {
            self.pos += 2;
            self.eat_while(|c| c.is_ascii_hexdigit());
            return self.token(TokenKind::Hex, start);
        }
        self.eat_while(|c| c.is_ascii_digit());
        let mut kind = TokenKind::Integer;
        if self.peek_byte(0) == Some(b'.') && self.peek_byte(1).is_some_and(|c| c.is_ascii_digit())
        {
            self.pos += 1;
            self.eat_while(|c| c.is_ascii_digit());
            kind = TokenKind::Float;
        }
        if matches!(self.peek_byte(0), Some(b'e' | b'E')) {
            let digits_at = match self.peek_byte(1) {
                Some(b'+' | b'-') => 2,
                _ => 1,
            };
            if self
                .peek_byte(digits_at)
                .is_some_and(|c| c.is_ascii_digit())
            {
                self.pos += digits_at;
                self.eat_while(|c| c.is_ascii_digit());
                kind = TokenKind::Float;
            }
        }
        self.token(kind, start)
    }

    /// The next token.
    #[inline]
    pub(crate) fn next_token(&mut self) -> Token {
        self.skip_trivia();
        let start = self.pos;
        let Some(&c) = self.bytes.get(self.pos) else {
            return self.token(TokenKind::Eof, start);
        };
        let single = |lexer: &mut Self, kind| {
            lexer.pos += 1;
            lexer.token(kind, start)
        };
        match c {
            b'(' => single(self, TokenKind::LParen),
            b')' => single(self, TokenKind::RParen),
            b'[' => single(self, TokenKind::LBracket),
            b']' => single(self, TokenKind::RBracket),
            b'{' => single(self, TokenKind::LBrace),
            b'}' => single(self, TokenKind::RBrace),
            b'<' => single(self, TokenKind::Less),
            b'>' => single(self, TokenKind::Greater),
            b',' => single(self, TokenKind::Comma),
            b':' => single(self, TokenKind::Colon),
            b'=' => single(self, TokenKind::Equal),
            b'-' => match self.peek_byte(1) {
                Some(b'>') => {
                    self.pos += 2;
                    self.token(TokenKind::Arrow, start)
                }
                Some(d) if d.is_ascii_digit() => self.number(start),
                _ => single(self, TokenKind::Error(LexError::UnexpectedChar)),
            },
            b'.' => {
                if self.peek_byte(1) == Some(b'.') && self.peek_byte(2) == Some(b'.') {
                    self.pos += 3;
                    self.token(TokenKind::Ellipsis, start)
                } else {
                    single(self, TokenKind::Error(LexError::UnexpectedChar))
                }
            }
            b'0'..=b'9' => self.number(start),
            b'"' => {
                self.pos += 1;
                if self.string_body() {
                    self.token(TokenKind::String, start)
                } else {
                    self.token(TokenKind::Error(LexError::UnterminatedString), start)
                }
            }
            b'%' => self.sigil(start, TokenKind::ValueId, LexError::EmptyValueName, |c| {
                is_ident_continue(c)
            }),
            b'^' => self.sigil(start, TokenKind::BlockId, LexError::EmptyBlockName, |c| {
                is_ident_continue(c)
            }),
            b'!' => self.sigil(
                start,
                TokenKind::TypeId,
                LexError::EmptyTypeName,
                is_ident_start,
            ),
            b'#' => self.sigil(
                start,
                TokenKind::AttrId,
                LexError::EmptyAttrName,
                is_ident_start,
            ),
            b'@' => {
                self.pos += 1;
                match self.peek_byte(0) {
                    Some(b'"') => {
                        self.pos += 1;
                        if self.string_body() {
                            self.token(TokenKind::SymbolRef, start)
                        } else {
                            self.token(TokenKind::Error(LexError::UnterminatedString), start)
                        }
                    }
                    Some(c) if is_ident_continue(c) => {
                        self.eat_ident_continue();
                        self.token(TokenKind::SymbolRef, start)
                    }
                    _ => self.token(TokenKind::Error(LexError::EmptySymbolName), start),
                }
            }
            c if is_ident_start(c) => {
                self.eat_ident_continue();
                self.token(TokenKind::Ident, start)
            }
            c => {
                self.pos = (self.pos + utf8_len(c)).min(self.bytes.len());
                self.token(TokenKind::Error(LexError::UnexpectedChar), start)
            }
        }
    }
}

/// Decodes the body of a quoted string token (`"..."`, quotes included) into bytes.
/// Escapes: `\"`, `\\`, `\n`, `\t` and `\XX` (two hex digits). Returns the offset (relative
/// to the token start) of a bad escape on error.
pub(crate) fn unescape(token_text: &str) -> Result<Vec<u8>, usize> {
    let bytes = token_text.as_bytes();
    let inner = &bytes[1..bytes.len().saturating_sub(1).max(1)];
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        let c = inner[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let hex = |b: u8| (b as char).to_digit(16);
        match inner.get(i + 1) {
            Some(b'"') => out.push(b'"'),
            Some(b'\\') => out.push(b'\\'),
            Some(b'n') => out.push(b'\n'),
            Some(b't') => out.push(b'\t'),
            Some(&h) if hex(h).is_some() => match inner.get(i + 2).and_then(|&l| hex(l)) {
                Some(low) => {
                    out.push((hex(h).unwrap_or(0) * 16 + low) as u8);
                    i += 3;
                    continue;
                }
                None => return Err(i + 1),
            },
            _ => return Err(i + 1),
        }
        i += 2;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokenKind> {
        let mut lexer = Lexer::new(text);
        let mut out = Vec::new();
        loop {
            let t = lexer.next_token();
            if t.kind == TokenKind::Eof {
                return out;
            }
            out.push(t.kind);
        }
    }

    #[test]
    fn lexes_punctuation_and_sigils() {
        use TokenKind::*;
        assert_eq!(
            kinds("%0 = cir.load %arg0 : !cir.ptr<!s32i>, !s32i // comment\n^bb1:"),
            vec![
                ValueId, Equal, Ident, ValueId, Colon, TypeId, Less, TypeId, Greater, Comma,
                TypeId, BlockId, Colon
            ]
        );
        assert_eq!(
            kinds("-> ... -1 0x1F 1.5 2e10 -3.25e-2"),
            vec![Arrow, Ellipsis, Integer, Hex, Float, Float, Float]
        );
    }

    #[test]
    fn skips_indentation_of_any_length_and_comments() {
        use TokenKind::*;
        for indent in 0..20 {
            let pad = " ".repeat(indent);
            let text = format!("{{\n{pad}%a\n{pad}\t// note\n{pad}}}\n{pad}");
            assert_eq!(
                kinds(&text),
                vec![LBrace, ValueId, RBrace],
                "indent {indent}"
            );
            let mut lexer = Lexer::new(&text);
            lexer.next_token();
            let value = lexer.next_token();
            assert_eq!(value.start as usize, 2 + indent, "indent {indent}");
        }
        assert_eq!(kinds("x // comment without a newline"), vec![Ident]);
        assert_eq!(kinds("\n        \n      \r\n  ^bb0"), vec![BlockId]);
    }

    #[test]
    fn reports_bad_sigils() {
        assert_eq!(kinds("@ x")[0], TokenKind::Error(LexError::EmptySymbolName));
        assert_eq!(kinds("&x")[0], TokenKind::Error(LexError::UnexpectedChar));
        assert_eq!(
            kinds("\"abc")[0],
            TokenKind::Error(LexError::UnterminatedString)
        );
        assert_eq!(kinds("é")[0], TokenKind::Error(LexError::UnexpectedChar));
    }

    #[test]
    fn unescapes_strings() {
        assert_eq!(
            unescape(r#""a\"b\\c\0A\t""#).unwrap(),
            b"a\"b\\c\n\t".to_vec()
        );
        assert_eq!(unescape(r#""\q""#), Err(1));
    }
}
