//! The C++ lexer with a tiny preprocessor: comments, literals, punctuators, and the
//! `#include` lines of the supported headers (which make their known declarations
//! visible). Any other directive is an `unsupported:` error.

use ehir_core::{Diagnostic, Loc};

/// A token kind.
#[derive(Clone, PartialEq, Debug)]
pub enum Tok {
    Ident(String),
    /// An integer literal: value and whether it had an unsigned / long suffix.
    Int {
        value: u128,
        unsigned: bool,
        long: u8,
    },
    /// A floating literal; `single` for an `f` suffix.
    Float {
        value: f64,
        single: bool,
    },
    Char(u8),
    Str(Vec<u8>),
    Punct(&'static str),
    Eof,
}

/// A token with its byte offset in the source.
#[derive(Clone, PartialEq, Debug)]
pub struct Token {
    pub tok: Tok,
    pub loc: Loc,
}

/// A header that was included.
#[derive(Copy, Clone, PartialEq, Eq, Debug, PartialOrd, Ord)]
pub enum Header {
    Stdio,
    Stdlib,
    String,
    Exception,
}

/// The result of lexing a file.
pub struct Lexed {
    pub tokens: Vec<Token>,
    pub headers: Vec<Header>,
}

const PUNCTS: &[&str] = &[
    "<<=", ">>=", "...", "->*", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
    "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*", "{", "}", "[", "]", "(", ")", ";",
    ":", ",", ".", "?", "+", "-", "*", "/", "%", "&", "|", "^", "~", "!", "=", "<", ">", "#",
];

fn unsupported(loc: usize, what: impl Into<String>) -> Diagnostic {
    Diagnostic::error(Loc(loc as u32), format!("unsupported: {}", what.into()))
}

/// Lexes a whole file.
pub fn lex(text: &str) -> Result<Lexed, Diagnostic> {
    let bytes = text.as_bytes();
    if bytes.len() >= u32::MAX as usize {
        return Err(Diagnostic::error(Loc(0), "file too large"));
    }
    let mut tokens = Vec::new();
    let mut headers = Vec::new();
    let mut i = 0;
    let mut at_line_start = true;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\n' {
            at_line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'\\' && bytes.get(i + 1) == Some(&b'\n') {
            i += 2;
            continue;
        }
        if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
            let start = i;
            i += 2;
            loop {
                if i + 1 >= bytes.len() {
                    return Err(Diagnostic::error(Loc(start as u32), "unterminated comment"));
                }
                if bytes[i] == b'*' && bytes[i + 1] == b'/' {
                    i += 2;
                    break;
                }
                i += 1;
            }
            continue;
        }
        if c == b'#' && at_line_start {
            let start = i;
            let mut end = i;
            while end < bytes.len() && bytes[end] != b'\n' {
                end += 1;
            }
            let line = &text[start..end];
            let line = match line.find("//") {
                Some(k) => &line[..k],
                None => line,
            };
            let rest = line[1..].trim_start();
            if let Some(arg) = rest.strip_prefix("include") {
                let arg = arg.trim();
                let header = match arg {
                    "<stdio.h>" | "<cstdio>" => Header::Stdio,
                    "<stdlib.h>" | "<cstdlib>" => Header::Stdlib,
                    "<string.h>" | "<cstring>" => Header::String,
                    "<exception>" => Header::Exception,
                    _ => return Err(unsupported(start, format!("#include {arg}"))),
                };
                if !headers.contains(&header) {
                    headers.push(header);
                }
            } else if rest.starts_with("pragma once") || rest.is_empty() {
                // harmless
            } else {
                let word: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                return Err(unsupported(
                    start,
                    format!("preprocessor directive '#{word}'"),
                ));
            }
            i = end;
            continue;
        }
        at_line_start = false;
        let start = i;
        let loc = Loc(start as u32);
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            // String/char prefixes (u8"", L'', ...) are not supported.
            if matches!(
                word,
                "L" | "u" | "U" | "u8" | "R" | "LR" | "uR" | "UR" | "u8R"
            ) && matches!(bytes.get(i), Some(b'"') | Some(b'\''))
            {
                return Err(unsupported(start, "prefixed string or character literal"));
            }
            tokens.push(Token {
                tok: Tok::Ident(word.to_string()),
                loc,
            });
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && bytes.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let (tok, len) = lex_number(&text[start..]).map_err(|m| Diagnostic::error(loc, m))?;
            i += len;
            tokens.push(Token { tok, loc });
            continue;
        }
        if c == b'"' {
            let mut value = Vec::new();
            i += 1;
            loop {
                match bytes.get(i) {
                    None | Some(b'\n') => {
                        return Err(Diagnostic::error(loc, "unterminated string literal"));
                    }
                    Some(b'"') => {
                        i += 1;
                        break;
                    }
                    Some(b'\\') => {
                        let (b, len) = lex_escape(&bytes[i..])
                            .map_err(|m| Diagnostic::error(Loc(i as u32), m))?;
                        value.push(b);
                        i += len;
                    }
                    Some(&b) => {
                        value.push(b);
                        i += 1;
                    }
                }
            }
            // Adjacent string literals concatenate.
            if let Some(Token {
                tok: Tok::Str(prev),
                ..
            }) = tokens.last_mut()
            {
                prev.extend(value);
            } else {
                tokens.push(Token {
                    tok: Tok::Str(value),
                    loc,
                });
            }
            continue;
        }
        if c == b'\'' {
            i += 1;
            let value = match bytes.get(i) {
                Some(b'\\') => {
                    let (b, len) =
                        lex_escape(&bytes[i..]).map_err(|m| Diagnostic::error(Loc(i as u32), m))?;
                    i += len;
                    b
                }
                Some(&b) if b != b'\'' && b != b'\n' => {
                    i += 1;
                    b
                }
                _ => {
                    return Err(Diagnostic::error(
                        loc,
                        "empty or unterminated character literal",
                    ));
                }
            };
            if bytes.get(i) != Some(&b'\'') {
                return Err(unsupported(start, "multi-character literal"));
            }
            i += 1;
            tokens.push(Token {
                tok: Tok::Char(value),
                loc,
            });
            continue;
        }
        let rest = &text[start..];
        match PUNCTS.iter().find(|p| rest.starts_with(**p)) {
            Some(p) => {
                i += p.len();
                tokens.push(Token {
                    tok: Tok::Punct(p),
                    loc,
                });
            }
            None => {
                let ch = rest.chars().next().unwrap_or('?');
                return Err(Diagnostic::error(
                    loc,
                    format!("unexpected character '{ch}'"),
                ));
            }
        }
    }
    tokens.push(Token {
        tok: Tok::Eof,
        loc: Loc(bytes.len() as u32),
    });
    Ok(Lexed { tokens, headers })
}

fn lex_escape(bytes: &[u8]) -> Result<(u8, usize), String> {
    // bytes[0] == '\\'
    let Some(&c) = bytes.get(1) else {
        return Err("unterminated escape sequence".into());
    };
    let simple = match c {
        b'n' => Some(b'\n'),
        b't' => Some(b'\t'),
        b'r' => Some(b'\r'),
        b'0'..=b'7' => None,
        b'\\' => Some(b'\\'),
        b'\'' => Some(b'\''),
        b'"' => Some(b'"'),
        b'?' => Some(b'?'),
        b'a' => Some(7),
        b'b' => Some(8),
        b'f' => Some(12),
        b'v' => Some(11),
        b'x' => None,
        _ => return Err(format!("unknown escape sequence '\\{}'", c as char)),
    };
    if let Some(b) = simple {
        return Ok((b, 2));
    }
    if c == b'x' {
        let mut v: u32 = 0;
        let mut n = 2;
        while let Some(d) = bytes.get(n).and_then(|b| (*b as char).to_digit(16)) {
            v = v.saturating_mul(16).saturating_add(d);
            n += 1;
        }
        if n == 2 {
            return Err("\\x used with no following hex digits".into());
        }
        if v > 255 {
            return Err("hex escape sequence out of range".into());
        }
        return Ok((v as u8, n));
    }
    let mut v: u32 = 0;
    let mut n = 1;
    while n < 4 {
        match bytes.get(n) {
            Some(d @ b'0'..=b'7') => {
                v = v * 8 + (d - b'0') as u32;
                n += 1;
            }
            _ => break,
        }
    }
    if v > 255 {
        return Err("octal escape sequence out of range".into());
    }
    Ok((v as u8, n))
}

fn lex_number(s: &str) -> Result<(Tok, usize), String> {
    let b = s.as_bytes();
    let mut i = 0;
    let is_hex = b.len() > 1 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X');
    if is_hex {
        i = 2;
        while i < b.len() && (b[i].is_ascii_hexdigit() || b[i] == b'\'') {
            i += 1;
        }
    } else {
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'\'') {
            i += 1;
        }
    }
    let mut is_float = false;
    if !is_hex {
        if i < b.len() && b[i] == b'.' {
            is_float = true;
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            let mut j = i + 1;
            if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                j += 1;
            }
            if j < b.len() && b[j].is_ascii_digit() {
                is_float = true;
                i = j;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
        }
    }
    let body: String = s[..i].chars().filter(|&c| c != '\'').collect();
    if is_float {
        let value: f64 = body
            .parse()
            .map_err(|_| format!("invalid floating literal '{body}'"))?;
        let mut single = false;
        if i < b.len() && (b[i] == b'f' || b[i] == b'F') {
            single = true;
            i += 1;
        } else if i < b.len() && (b[i] == b'l' || b[i] == b'L') {
            return Err("unsupported: long double literal".into());
        }
        if i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            return Err(format!("invalid suffix on floating literal '{}'", &s[..=i]));
        }
        return Ok((Tok::Float { value, single }, i));
    }
    let value = if is_hex {
        u128::from_str_radix(&body[2..], 16)
    } else if body.len() > 1 && body.starts_with('0') {
        u128::from_str_radix(&body[1..], 8)
    } else {
        body.parse::<u128>()
    }
    .map_err(|_| format!("invalid integer literal '{body}'"))?;
    if value > u64::MAX as u128 {
        return Err("integer literal is too large".into());
    }
    let mut unsigned = false;
    let mut long = 0u8;
    loop {
        match b.get(i) {
            Some(b'u') | Some(b'U') if !unsigned => {
                unsigned = true;
                i += 1;
            }
            Some(b'l') | Some(b'L') if long == 0 => {
                long = 1;
                i += 1;
                if matches!(b.get(i), Some(b'l') | Some(b'L')) {
                    long = 2;
                    i += 1;
                }
            }
            _ => break,
        }
    }
    if i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
        return Err(format!("invalid suffix on integer literal '{}'", &s[..=i]));
    }
    Ok((
        Tok::Int {
            value,
            unsigned,
            long,
        },
        i,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexes_includes_literals_and_punctuators() {
        let l = lex("#include <cstdio>\nint x = 0x1F + 'a' >>= 2; \"a\" \"b\" 1.5f 10ul").unwrap();
        assert_eq!(l.headers, vec![Header::Stdio]);
        let toks: Vec<Tok> = l.tokens.into_iter().map(|t| t.tok).collect();
        assert_eq!(toks[0], Tok::Ident("int".into()));
        assert_eq!(
            toks[3],
            Tok::Int {
                value: 31,
                unsigned: false,
                long: 0
            }
        );
        assert_eq!(toks[5], Tok::Char(b'a'));
        assert_eq!(toks[6], Tok::Punct(">>="));
        assert_eq!(toks[9], Tok::Str(b"ab".to_vec()));
        assert_eq!(
            toks[10],
            Tok::Float {
                value: 1.5,
                single: true
            }
        );
        assert_eq!(
            toks[11],
            Tok::Int {
                value: 10,
                unsigned: true,
                long: 1
            }
        );
    }

    #[test]
    fn rejects_unknown_headers_and_directives() {
        let e = lex("#include <vector>\n").err().unwrap();
        assert!(e.message.starts_with("unsupported: #include <vector>"));
        let e = lex("#define X 1\n").err().unwrap();
        assert_eq!(e.message, "unsupported: preprocessor directive '#define'");
        assert!(lex("\"abc").is_err());
        assert!(lex("/* x").is_err());
    }
}
