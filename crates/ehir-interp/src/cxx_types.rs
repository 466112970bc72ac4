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
    /// A pointer to a member of a class (`M5Pointi`, `int Point::*`), with the
    /// qualifiers of the member's type.
    MemberPointer {
        /// The class, by its mangled name.
        class: Box<CxxType>,
        /// The member's type without its qualifiers.
        member: Box<CxxType>,
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
                let (is_const, is_volatile) = self.qualifiers()?;
                let pointee = self.ty(depth + 1)?;
                Some(CxxType::Pointer {
                    pointee: Box::new(pointee),
                    is_const,
                    is_volatile,
                })
            }
            b'M' => {
                self.pos += 1;
                let class = self.ty(depth + 1)?;
                if !matches!(class, CxxType::Class { .. }) {
                    return None;
                }
                let (is_const, is_volatile) = self.qualifiers()?;
                let member = self.ty(depth + 1)?;
                Some(CxxType::MemberPointer {
                    class: Box::new(class),
                    member: Box::new(member),
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

    /// The qualifiers of a pointee: (const, volatile).
    fn qualifiers(&mut self) -> Option<(bool, bool)> {
        let (mut is_const, mut is_volatile) = (false, false);
        loop {
            match self.peek()? {
                b'r' => {}
                b'V' => is_volatile = true,
                b'K' => is_const = true,
                _ => return Some((is_const, is_volatile)),
            }
            self.pos += 1;
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
            CxxType::MemberPointer {
                class,
                member,
                is_const,
                is_volatile,
            } => {
                let mut s = member.display();
                if *is_const {
                    s.push_str(" const");
                }
                if *is_volatile {
                    s.push_str(" volatile");
                }
                format!("{s} {}::*", class.display())
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

/// A direct base class of a class in the [`Hierarchy`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct BaseEdge {
    /// The base class's mangled name (`1A`).
    pub class: String,
    /// A non-virtual base: its byte offset; a virtual base: the byte offset, from the
    /// vtable's address point, of the slot holding the base's offset in the object.
    pub offset: i64,
    /// A public base.
    pub public: bool,
    /// A virtual base.
    pub is_virtual: bool,
    /// A virtual base on the Microsoft ABI: the offset of the class's vbtable pointer
    /// (`offset` is then the byte offset of the base's entry in the vbtable).
    pub vbptr_offset: Option<u64>,
}

impl BaseEdge {
    /// A public non-virtual base at `offset`.
    pub fn public(class: &str, offset: i64) -> BaseEdge {
        BaseEdge {
            class: class.to_string(),
            offset,
            public: true,
            is_virtual: false,
            vbptr_offset: None,
        }
    }
}

/// The direct base classes of classes, keyed by mangled class name.
#[derive(Default, Debug)]
pub struct Hierarchy {
    bases: HashMap<String, Vec<BaseEdge>>,
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
    // msvcrt's own classes, in the global namespace (what `__RTDynamicCast` and
    // `__RTtypeid` throw there).
    ("8bad_cast", "9exception"),
    ("10bad_typeid", "9exception"),
];

/// One step from a class to one of its direct bases.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum PathStep {
    /// A non-virtual base at this byte offset.
    Offset(i64),
    /// A virtual base, whose offset in the object is read from the object's vtable at
    /// this byte offset from its address point.
    Virtual(i64),
    /// A virtual base on the Microsoft ABI: its offset from the vbtable pointer at
    /// `vbptr_offset` in the object is the 32-bit vbtable entry at byte offset `entry`.
    VirtualThroughVbtable {
        /// Where the object's vbtable pointer is.
        vbptr_offset: i64,
        /// The byte offset of the base's entry in the vbtable.
        entry: i64,
    },
}

/// How to get from an object to one of its base subobjects.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct BasePath(pub Vec<PathStep>);

impl BasePath {
    /// A path of one non-virtual step (the object itself for 0).
    #[cfg(test)]
    pub fn offset(offset: i64) -> BasePath {
        if offset == 0 {
            BasePath::default()
        } else {
            BasePath(vec![PathStep::Offset(offset)])
        }
    }
}

/// How the pointer a handler receives is derived from the exception object.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Adjust {
    /// The object's address, then to a base subobject.
    Object(BasePath),
    /// The thrown pointer's value, then to a base subobject (pointer exceptions; a null
    /// pointer stays null).
    PointerValue(BasePath),
}

impl Adjust {
    /// The exception object itself.
    pub fn object() -> Adjust {
        Adjust::Object(BasePath::default())
    }
}

/// Whose rules decide what a handler catches, where the runtimes differ.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum CatchRules {
    /// libstdc++ (the structured and flat phases, and the Itanium ABI): `std::nullptr_t`
    /// is caught by every pointer handler.
    Itanium,
    /// The Microsoft C++ runtime: a `std::nullptr_t` exception's throw info lists only
    /// `std::nullptr_t` and `void *`.
    Msvc,
}

/// Which base subobject a path reaches: past the last virtual base on the path (its
/// class) the static offset from it, or without one the static offset from the object.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Subobject {
    virtual_base: Option<String>,
    offset: i64,
}

impl Hierarchy {
    /// Builds the hierarchy from `cir.typeinfo` declarations `(class typeinfo symbol,
    /// direct bases with their typeinfo symbols as class)`, on top of the standard
    /// exception classes.
    pub fn new<'a>(decls: impl Iterator<Item = (&'a str, Vec<BaseEdge>)>) -> Hierarchy {
        let mut h = Hierarchy::default();
        for (d, b) in STD_BASES {
            h.bases.insert(d.to_string(), vec![BaseEdge::public(b, 0)]);
        }
        for (sym, bases) in decls {
            let key = type_of_typeinfo_symbol(sym);
            let list = bases
                .into_iter()
                .map(|b| BaseEdge {
                    class: type_of_typeinfo_symbol(&b.class),
                    ..b
                })
                .collect();
            h.bases.insert(key, list);
        }
        h
    }

    /// The path to base class `base` inside `derived` when it is an unambiguous base
    /// (or the class itself) reachable along a public path; `None` otherwise. One
    /// subobject reached along several paths (a virtual base) is not ambiguous.
    pub fn base_path(&self, derived: &str, base: &str) -> Option<BasePath> {
        if derived == base {
            return Some(BasePath::default());
        }
        // Every path from `derived` down to `base`: (subobject, public, path).
        let mut found: Vec<(Subobject, bool, BasePath)> = Vec::new();
        // Iterative walk over every inheritance path (bounded against cycles).
        let mut stack: Vec<(&str, Subobject, bool, Vec<PathStep>)> = vec![(
            derived,
            Subobject {
                virtual_base: None,
                offset: 0,
            },
            true,
            Vec::new(),
        )];
        let mut visits = 0u32;
        while let Some((class, at, public, path)) = stack.pop() {
            visits += 1;
            if path.len() > 64 || visits > 100_000 {
                break;
            }
            let Some(bases) = self.bases.get(class) else {
                continue;
            };
            for edge in bases.iter().rev() {
                let (next, step) = if edge.is_virtual {
                    (
                        Subobject {
                            virtual_base: Some(edge.class.clone()),
                            offset: 0,
                        },
                        match edge.vbptr_offset {
                            Some(vbptr_offset) => PathStep::VirtualThroughVbtable {
                                vbptr_offset: vbptr_offset as i64,
                                entry: edge.offset,
                            },
                            None => PathStep::Virtual(edge.offset),
                        },
                    )
                } else {
                    (
                        Subobject {
                            virtual_base: at.virtual_base.clone(),
                            offset: at.offset.saturating_add(edge.offset),
                        },
                        PathStep::Offset(edge.offset),
                    )
                };
                let mut next_path = path.clone();
                if step != PathStep::Offset(0) {
                    next_path.push(step);
                }
                let next_public = public && edge.public;
                if edge.class == base {
                    found.push((next, next_public, BasePath(next_path)));
                } else {
                    stack.push((edge.class.as_str(), next, next_public, next_path));
                }
            }
        }
        let (first, ..) = found.first()?;
        if found.iter().any(|(subobject, ..)| subobject != first) {
            return None;
        }
        found
            .into_iter()
            .find(|(_, public, _)| *public)
            .map(|(.., path)| path)
    }

    /// Whether a handler of pointer type `catch` catches a pointer of type `thrown`, as
    /// libstdc++'s `__pbase_type_info::__do_catch` decides it, and the path to the base
    /// class a pointer to class is converted to. `outer`: bit 0 is set while every level
    /// of the handler's type above this one is `const` (a level may add qualifiers only
    /// then), and it grows by 2 per level (`void *` catches at the first level only, a
    /// base class pointer at the first level only).
    fn pointer_catch(&self, catch: &CxxType, thrown: &CxxType, outer: u32) -> Option<BasePath> {
        if catch == thrown {
            return Some(BasePath::default());
        }
        if outer > 64 {
            return None;
        }
        match (catch, thrown) {
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
                // Qualification conversion: the handler may add cv-qualifiers only,
                // and below the first level only where every level above is const.
                if outer & 1 == 0 || (*tc && !*cc) || (*tv && !*cv) {
                    return None;
                }
                let outer = if *cc { outer } else { outer & !1 };
                // `void *` catches a pointer to any object (a pointer too, not a
                // function, which this model does not parse).
                if outer < 2 && cp.is_void() {
                    return (!matches!(**tp, CxxType::Unknown(_))).then(BasePath::default);
                }
                self.pointer_catch(cp, tp, outer + 2)
            }
            (CxxType::Class { mangled: c, .. }, CxxType::Class { mangled: t, .. }) if outer < 4 => {
                self.base_path(t, c)
            }
            _ => None,
        }
    }

    /// Whether a handler for `catch_type` catches an exception of `thrown_type` (both
    /// mangled) under `rules`, and how to compute the pointer the handler gets.
    pub fn catches(
        &self,
        catch_type: &str,
        thrown_type: &str,
        rules: CatchRules,
    ) -> Option<Adjust> {
        let thrown = parse(thrown_type);
        let thrown_is_pointer = thrown.is_pointer();
        if catch_type == thrown_type {
            return Some(if thrown_is_pointer {
                Adjust::PointerValue(BasePath::default())
            } else {
                Adjust::object()
            });
        }
        let catch = parse(catch_type);
        match (&catch, &thrown) {
            (CxxType::Class { mangled: c, .. }, CxxType::Class { mangled: t, .. }) => {
                self.base_path(t, c).map(Adjust::Object)
            }
            // `throw nullptr`: a null pointer of the handler's type.
            (CxxType::Pointer { pointee, .. }, CxxType::Builtin { code, .. }) if code == "Dn" => {
                (rules == CatchRules::Itanium || pointee.is_void())
                    .then(|| Adjust::PointerValue(BasePath::default()))
            }
            (
                CxxType::MemberPointer {
                    class: cc,
                    member: cm,
                    is_const: ck,
                    is_volatile: cv,
                },
                CxxType::MemberPointer {
                    class: tc,
                    member: tm,
                    is_const: tk,
                    is_volatile: tv,
                },
            ) => {
                // The same class and member type; the handler may add cv-qualifiers.
                (cc == tc && cm == tm && (!*tk || *ck) && (!*tv || *cv)).then(Adjust::object)
            }
            (CxxType::Pointer { .. }, CxxType::Pointer { .. }) => self
                .pointer_catch(&catch, &thrown, 1)
                .map(Adjust::PointerValue),
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
        assert_eq!(display_mangled("M5Pointi"), "int Point::*");
        assert_eq!(display_mangled("M5PointKd"), "double const Point::*");
    }

    #[test]
    fn multi_level_pointers_add_qualifiers_only_below_const_levels() {
        let h = Hierarchy::new(std::iter::empty());
        let rules = CatchRules::Itanium;
        // `void ***` is caught by `void *const *const *`, not by `void const **const *`.
        assert!(h.catches("PKPKPv", "PPPv", rules).is_some());
        assert!(h.catches("PKPPKv", "PPPv", rules).is_none());
        assert!(h.catches("PPKPKv", "PPPv", rules).is_none());
        // `B **` by `B const *const *`, not by `B const **`.
        assert!(h.catches("PKPK1B", "PP1B", rules).is_some());
        assert!(h.catches("PPK1B", "PP1B", rules).is_none());
        // `void *` catches a pointer to a pointer, not a pointer to a function.
        assert!(h.catches("Pv", "PPi", rules).is_some());
        assert!(h.catches("Pv", "PFvvE", rules).is_none());
        // Dropping a qualifier is never allowed.
        assert!(h.catches("PPv", "PKPv", rules).is_none());
    }

    #[test]
    fn pointers_to_members_match_their_class_and_type_adding_qualifiers() {
        let h = Hierarchy::new(std::iter::empty());
        let rules = CatchRules::Itanium;
        assert!(h.catches("M5Pointi", "M5Pointi", rules).is_some());
        assert!(h.catches("M5PointKd", "M5Pointd", rules).is_some());
        assert!(h.catches("M5Pointd", "M5PointKd", rules).is_none());
        assert!(h.catches("M5Pointi", "M5Otheri", rules).is_none());
        assert!(h.catches("M5Pointi", "M5Pointl", rules).is_none());
    }

    #[test]
    fn msvc_handler_adjectives_take_part_in_matching() {
        // `catch (const char *)`: `??_R0PEAD@8` with adjective 1 (const).
        let h = Hierarchy::new(std::iter::empty());
        assert!(
            h.catches(
                &msvc_handler_type("??_R0PEAD@8", 1),
                "PKc",
                CatchRules::Msvc
            )
            .is_some()
        );
        assert!(h.catches("Pc", "PKc", CatchRules::Msvc).is_none());
    }

    #[test]
    fn matches_bases_pointers_and_qualifiers() {
        let h = Hierarchy::new(
            vec![
                (
                    "_ZTI1D",
                    vec![BaseEdge::public("_ZTI1B", 0), BaseEdge::public("_ZTI1C", 8)],
                ),
                ("_ZTI1C", vec![BaseEdge::public("_ZTI1A", 4)]),
                ("_ZTI1B", vec![BaseEdge::public("_ZTI1A", 0)]),
            ]
            .into_iter(),
        );
        let object = |offset| Some(Adjust::Object(BasePath::offset(offset)));
        let pointer = |offset| Some(Adjust::PointerValue(BasePath::offset(offset)));
        // (handler type, thrown type, the adjustment when it catches)
        let cases = [
            ("1D", "1D", object(0)),
            ("1C", "1D", object(8)),
            ("1D", "1C", None),
            // A is reachable at two offsets through B and C: ambiguous, not caught.
            ("1A", "1D", None),
            ("1A", "1C", object(4)),
            ("P1C", "P1D", pointer(8)),
            ("PK1C", "P1D", pointer(8)),
            ("P1C", "PK1D", None),
            ("Pv", "Pi", pointer(0)),
            ("PKv", "PKc", pointer(0)),
            ("Pv", "PKc", None),
            // `void *` catches a pointer to a pointer; `void **` does not catch `int **`.
            ("Pv", "PPi", pointer(0)),
            ("PPv", "PPi", None),
            ("i", "j", None),
            ("i", "i", object(0)),
            ("Pi", "Pi", pointer(0)),
            ("St9exception", "St13bad_exception", object(0)),
        ];
        for (handler, thrown, expected) in cases {
            assert_eq!(
                h.catches(handler, thrown, CatchRules::Itanium),
                expected,
                "{handler} catching {thrown}"
            );
        }
    }

    #[test]
    fn virtual_bases_are_one_subobject_and_private_paths_do_not_catch() {
        let edge = |class: &str, offset, public, is_virtual| BaseEdge {
            class: class.to_string(),
            offset,
            public,
            is_virtual,
            vbptr_offset: None,
        };
        // E : private B, public C, private D; B, C, D : virtual A (a diamond); F : B, G
        // with G : private A (A twice, once privately).
        let h = Hierarchy::new(
            vec![
                (
                    "_ZTI1E",
                    vec![
                        edge("_ZTI1B", 0, false, false),
                        edge("_ZTI1C", 8, true, false),
                        edge("_ZTI1D", 16, false, false),
                    ],
                ),
                ("_ZTI1B", vec![edge("_ZTI1A", -24, true, true)]),
                ("_ZTI1C", vec![edge("_ZTI1A", -24, true, true)]),
                ("_ZTI1D", vec![edge("_ZTI1A", -24, true, true)]),
                (
                    "_ZTI1F",
                    vec![
                        edge("_ZTI1B", 0, true, false),
                        edge("_ZTI1G", 8, true, false),
                    ],
                ),
                ("_ZTI1G", vec![edge("_ZTI1A", 0, false, false)]),
            ]
            .into_iter(),
        );
        let itanium = CatchRules::Itanium;
        assert_eq!(
            h.catches("1A", "1E", itanium),
            Some(Adjust::Object(BasePath(vec![
                PathStep::Offset(8),
                PathStep::Virtual(-24)
            ])))
        );
        assert_eq!(h.catches("1B", "1E", itanium), None);
        assert_eq!(
            h.catches("P1C", "P1E", itanium),
            Some(Adjust::PointerValue(BasePath::offset(8)))
        );
        // The virtual A through B and the private non-virtual A in G: ambiguous.
        assert_eq!(h.catches("1A", "1F", itanium), None);
    }

    #[test]
    fn nullptr_is_caught_by_every_pointer_handler_only_on_itanium() {
        let h = Hierarchy::new(std::iter::empty());
        let null = Some(Adjust::PointerValue(BasePath::default()));
        assert_eq!(h.catches("P4Node", "Dn", CatchRules::Itanium), null);
        assert_eq!(h.catches("P4Node", "Dn", CatchRules::Msvc), None);
        assert_eq!(h.catches("Pv", "Dn", CatchRules::Msvc), null);
        assert_eq!(h.catches("PKv", "Dn", CatchRules::Itanium), null);
        assert_eq!(h.catches("i", "Dn", CatchRules::Itanium), None);
    }
}
