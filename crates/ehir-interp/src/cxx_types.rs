//! C++ types as the exception runtime sees them: Itanium typeinfo names (`_ZTIi`,
//! `_ZTI9SomeClass`, `_ZTIPKc`) parsed into a small type model, printed the way
//! libstdc++'s demangler prints them, and matched against catch clauses (exact type,
//! public base class, pointer conversions, qualification conversions, `void*`). MSVC type
//! descriptors and ThrowInfos are converted to the Itanium mangling by
//! `ehir_core::abi::type_names`.
//!
//! A thrown type is identified by its Itanium mangled type (the typeinfo symbol without
//! `_ZTI`), which is the key every phase agrees on.

pub use ehir_core::abi::type_names::{
    mangle_class_name, msvc_handler_type, msvc_throwinfo_to_itanium, type_of_typeinfo_symbol,
};
use std::collections::HashMap;

/// A C++ type parsed from its Itanium mangling.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum CxxType {
    /// A fundamental type: its mangled code (`i`, `Dn`...) and its printed name.
    Builtin { code: String, name: &'static str },
    /// A class, by its mangled name (`9SomeClass`, `St9exception`, `N2ns1XE`).
    Class { mangled: String, name: String },
    /// A pointer with the qualifiers of its pointee.
    Pointer {
        pointee: Box<CxxType>,
        is_const: bool,
        is_volatile: bool,
    },
    /// Something this model does not understand; matched only by exact name.
    Unknown(String),
}

const BUILTINS: &[(&str, &str)] = &[
    ("v", "void"),
    ("b", "bool"),
    ("c", "char"),
    ("a", "signed char"),
    ("h", "unsigned char"),
    ("s", "short"),
    ("t", "unsigned short"),
    ("i", "int"),
    ("j", "unsigned int"),
    ("l", "long"),
    ("m", "unsigned long"),
    ("x", "long long"),
    ("y", "unsigned long long"),
    ("n", "__int128"),
    ("o", "unsigned __int128"),
    ("f", "float"),
    ("d", "double"),
    ("e", "long double"),
    ("w", "wchar_t"),
    ("Ds", "char16_t"),
    ("Di", "char32_t"),
    ("Du", "char8_t"),
    ("Dn", "decltype(nullptr)"),
];

/// Names accepted by `--throw-at` for fundamental types, with their mangled code.
const BUILTIN_SPELLINGS: &[(&str, &str)] = &[
    ("bool", "b"),
    ("char", "c"),
    ("signed char", "a"),
    ("unsigned char", "h"),
    ("short", "s"),
    ("unsigned short", "t"),
    ("int", "i"),
    ("unsigned", "j"),
    ("unsigned int", "j"),
    ("long", "l"),
    ("unsigned long", "m"),
    ("long long", "x"),
    ("unsigned long long", "y"),
    ("float", "f"),
    ("double", "d"),
    ("const char*", "PKc"),
    ("char const*", "PKc"),
    ("char*", "Pc"),
    ("int*", "Pi"),
    ("void*", "Pv"),
];

/// The mangled code of a fundamental or simple pointer type written the C++ way.
pub fn builtin_from_spelling(s: &str) -> Option<&'static str> {
    let norm: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let norm = norm.replace(" *", "*");
    BUILTIN_SPELLINGS
        .iter()
        .find(|(n, _)| *n == norm)
        .map(|(_, c)| *c)
}

/// Parses a mangled type (the part of a typeinfo name after `_ZTI`).
pub fn parse(mangled: &str) -> CxxType {
    let mut p = Parser {
        mangled: mangled.as_bytes(),
        pos: 0,
    };
    match p.ty(0) {
        Some(t) if p.pos == p.mangled.len() => t,
        _ => CxxType::Unknown(mangled.to_string()),
    }
}

struct Parser<'a> {
    mangled: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.mangled.get(self.pos).copied()
    }

    fn ty(&mut self, depth: u32) -> Option<CxxType> {
        if depth > 64 {
            return None;
        }
        let rest = &self.mangled[self.pos..];
        for (code, name) in BUILTINS {
            if rest.starts_with(code.as_bytes()) {
                // `Dn` etc. are two letters; single-letter codes must not swallow a
                // longer production, and none of them prefixes another.
                self.pos += code.len();
                return Some(CxxType::Builtin {
                    code: code.to_string(),
                    name,
                });
            }
        }
        match self.peek()? {
            b'P' => {
                self.pos += 1;
                let mut is_const = false;
                let mut is_volatile = false;
                loop {
                    match self.peek()? {
                        b'r' => self.pos += 1,
                        b'V' => {
                            is_volatile = true;
                            self.pos += 1
                        }
                        b'K' => {
                            is_const = true;
                            self.pos += 1
                        }
                        _ => break,
                    }
                }
                let pointee = self.ty(depth + 1)?;
                Some(CxxType::Pointer {
                    pointee: Box::new(pointee),
                    is_const,
                    is_volatile,
                })
            }
            b'0'..=b'9' | b'N' | b'S' => {
                let start = self.pos;
                let name = self.class_name()?;
                Some(CxxType::Class {
                    mangled: String::from_utf8_lossy(&self.mangled[start..self.pos]).into_owned(),
                    name,
                })
            }
            _ => None,
        }
    }

    fn source_name(&mut self) -> Option<String> {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        let len: usize = std::str::from_utf8(&self.mangled[start..self.pos])
            .ok()?
            .parse()
            .ok()?;
        let end = self.pos.checked_add(len)?;
        let name = self.mangled.get(self.pos..end)?;
        self.pos = end;
        Some(String::from_utf8_lossy(name).into_owned())
    }

    fn class_name(&mut self) -> Option<String> {
        match self.peek()? {
            b'0'..=b'9' => self.source_name(),
            b'S' => {
                // `St` = `std::`; `Ss` etc. are abbreviations of library classes.
                self.pos += 1;
                match self.peek()? {
                    b't' => {
                        self.pos += 1;
                        Some(format!("std::{}", self.source_name()?))
                    }
                    b's' => {
                        self.pos += 1;
                        Some("std::string".to_string())
                    }
                    _ => None,
                }
            }
            b'N' => {
                self.pos += 1;
                let mut parts = Vec::new();
                if self.mangled[self.pos..].starts_with(b"St") {
                    self.pos += 2;
                    parts.push("std".to_string());
                }
                while self.peek()? != b'E' {
                    parts.push(self.source_name()?);
                }
                self.pos += 1;
                Some(parts.join("::"))
            }
            _ => None,
        }
    }
}

impl CxxType {
    /// The name libstdc++ prints (`int`, `SomeClass`, `char const*`).
    pub fn display(&self) -> String {
        match self {
            CxxType::Builtin { name, .. } => name.to_string(),
            CxxType::Class { name, .. } => name.clone(),
            CxxType::Pointer {
                pointee,
                is_const,
                is_volatile,
            } => {
                let mut s = pointee.display();
                if *is_const {
                    s.push_str(" const");
                }
                if *is_volatile {
                    s.push_str(" volatile");
                }
                s.push('*');
                s
            }
            CxxType::Unknown(m) => m.clone(),
        }
    }

    fn is_void(&self) -> bool {
        matches!(self, CxxType::Builtin { code, .. } if code == "v")
    }

    pub fn is_pointer(&self) -> bool {
        matches!(self, CxxType::Pointer { .. })
    }
}

/// The printed name of a mangled type.
pub fn display_mangled(mangled: &str) -> String {
    parse(mangled).display()
}

/// Public base classes of classes, keyed by mangled class name: `(base, offset)`.
#[derive(Default, Debug)]
pub struct Hierarchy {
    bases: HashMap<String, Vec<(String, u64)>>,
}

/// The standard library's exception classes, so that `catch (std::exception&)` catches a
/// `std::bad_exception` even when the module declares no typeinfo for them.
const STD_BASES: &[(&str, &str)] = &[
    ("St13bad_exception", "St9exception"),
    ("St9bad_alloc", "St9exception"),
    ("St20bad_array_new_length", "St9bad_alloc"),
    ("St8bad_cast", "St9exception"),
    ("St10bad_typeid", "St9exception"),
    ("St11logic_error", "St9exception"),
    ("St13runtime_error", "St9exception"),
    ("St12domain_error", "St11logic_error"),
    ("St16invalid_argument", "St11logic_error"),
    ("St12length_error", "St11logic_error"),
    ("St12out_of_range", "St11logic_error"),
    ("St11range_error", "St13runtime_error"),
    ("St14overflow_error", "St13runtime_error"),
    ("St15underflow_error", "St13runtime_error"),
];

/// How the pointer a handler receives is derived from the exception object.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Adjust {
    /// The object's address plus a base-class offset.
    Object(u64),
    /// The thrown pointer's value plus a base-class offset (pointer exceptions).
    PointerValue(u64),
}

impl Hierarchy {
    /// Builds the hierarchy from `cir.typeinfo` declarations `(class typeinfo, bases)`,
    /// on top of the standard exception classes.
    pub fn new<'a>(decls: impl Iterator<Item = (&'a str, Vec<(&'a str, u64)>)>) -> Hierarchy {
        let mut h = Hierarchy::default();
        for (d, b) in STD_BASES {
            h.bases.insert(d.to_string(), vec![(b.to_string(), 0)]);
        }
        for (sym, bases) in decls {
            let key = type_of_typeinfo_symbol(sym);
            let list = bases
                .into_iter()
                .map(|(b, off)| (type_of_typeinfo_symbol(b), off))
                .collect();
            h.bases.insert(key, list);
        }
        h
    }

    /// The offset of base class `base` inside `derived` when it is a public,
    /// unambiguous base (or the class itself); `None` otherwise.
    pub fn base_offset(&self, derived: &str, base: &str) -> Option<u64> {
        if derived == base {
            return Some(0);
        }
        let mut found: Option<u64> = None;
        let mut ambiguous = false;
        // Iterative walk over every inheritance path (depth-limited against cycles).
        let mut stack: Vec<(&str, u64, u32)> = vec![(derived, 0, 0)];
        let mut visits = 0u32;
        while let Some((class, offset, depth)) = stack.pop() {
            visits += 1;
            if depth > 64 || visits > 100_000 {
                break;
            }
            let Some(bases) = self.bases.get(class) else {
                continue;
            };
            for (b, off) in bases {
                let total = offset.saturating_add(*off);
                if b == base {
                    match found {
                        None => found = Some(total),
                        Some(f) if f != total => ambiguous = true,
                        Some(_) => {}
                    }
                } else {
                    stack.push((b.as_str(), total, depth + 1));
                }
            }
        }
        if ambiguous { None } else { found }
    }

    /// Whether a handler for `catch_type` catches an exception of `thrown_type` (both
    /// mangled), and how to compute the pointer the handler gets.
    pub fn catches(&self, catch_type: &str, thrown_type: &str) -> Option<Adjust> {
        let thrown = parse(thrown_type);
        let thrown_is_pointer = thrown.is_pointer();
        if catch_type == thrown_type {
            return Some(if thrown_is_pointer {
                Adjust::PointerValue(0)
            } else {
                Adjust::Object(0)
            });
        }
        let catch = parse(catch_type);
        match (&catch, &thrown) {
            (CxxType::Class { mangled: c, .. }, CxxType::Class { mangled: t, .. }) => {
                self.base_offset(t, c).map(Adjust::Object)
            }
            (
                CxxType::Pointer {
                    pointee: cp,
                    is_const: cc,
                    is_volatile: cv,
                },
                CxxType::Pointer {
                    pointee: tp,
                    is_const: tc,
                    is_volatile: tv,
                },
            ) => {
                // Qualification conversion: the handler may add cv-qualifiers only.
                if (*tc && !*cc) || (*tv && !*cv) {
                    return None;
                }
                if cp == tp {
                    return Some(Adjust::PointerValue(0));
                }
                if cp.is_void() && !matches!(**tp, CxxType::Pointer { .. } | CxxType::Unknown(_)) {
                    return Some(Adjust::PointerValue(0));
                }
                match (&**cp, &**tp) {
                    (CxxType::Class { mangled: c, .. }, CxxType::Class { mangled: t, .. }) => {
                        self.base_offset(t, c).map(Adjust::PointerValue)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_like_libstdcxx() {
        assert_eq!(display_mangled("i"), "int");
        assert_eq!(display_mangled("PKc"), "char const*");
        assert_eq!(display_mangled("9SomeClass"), "SomeClass");
        assert_eq!(display_mangled("St9exception"), "std::exception");
        assert_eq!(display_mangled("N2ns5InnerE"), "ns::Inner");
        assert_eq!(display_mangled("P9SomeClass"), "SomeClass*");
        assert_eq!(display_mangled("Dn"), "decltype(nullptr)");
    }

    #[test]
    fn msvc_handler_adjectives_take_part_in_matching() {
        // `catch (const char *)`: `??_R0PEAD@8` with adjective 1 (const).
        let h = Hierarchy::new(std::iter::empty());
        assert!(
            h.catches(&msvc_handler_type("??_R0PEAD@8", 1), "PKc")
                .is_some()
        );
        assert!(h.catches("Pc", "PKc").is_none());
    }

    #[test]
    fn matches_bases_pointers_and_qualifiers() {
        let h = Hierarchy::new(
            vec![
                ("_ZTI1D", vec![("_ZTI1B", 0), ("_ZTI1C", 8)]),
                ("_ZTI1C", vec![("_ZTI1A", 4)]),
                ("_ZTI1B", vec![("_ZTI1A", 0)]),
            ]
            .into_iter(),
        );
        // (handler type, thrown type, the adjustment when it catches)
        let cases = [
            ("1D", "1D", Some(Adjust::Object(0))),
            ("1C", "1D", Some(Adjust::Object(8))),
            ("1D", "1C", None),
            // A is reachable at two offsets through B and C: ambiguous, not caught.
            ("1A", "1D", None),
            ("1A", "1C", Some(Adjust::Object(4))),
            ("P1C", "P1D", Some(Adjust::PointerValue(8))),
            ("PK1C", "P1D", Some(Adjust::PointerValue(8))),
            ("P1C", "PK1D", None),
            ("Pv", "Pi", Some(Adjust::PointerValue(0))),
            ("PKv", "PKc", Some(Adjust::PointerValue(0))),
            ("Pv", "PKc", None),
            ("i", "j", None),
            ("i", "i", Some(Adjust::Object(0))),
            ("Pi", "Pi", Some(Adjust::PointerValue(0))),
            ("St9exception", "St13bad_exception", Some(Adjust::Object(0))),
        ];
        for (handler, thrown, expected) in cases {
            assert_eq!(
                h.catches(handler, thrown),
                expected,
                "{handler} catching {thrown}"
            );
        }
    }
}
