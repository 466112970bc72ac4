//! C++ type names in both ABIs, in one place: the Microsoft RTTI names of a type given
//! its Itanium typeinfo symbol (`_ZTIi` → TypeDescriptor `??_R0H@8`, type code `H`;
//! [`msvc_type_code`], [`type_descriptor_name`], [`catch_type_descriptor`],
//! [`decorated_name`]; [`descriptor_symbol`] and [`descriptor_code`] convert between a
//! type code and its TypeDescriptor, [`decompose_pointer_qualifiers`] moves a pointee's
//! qualifiers out of a code) and the way back (`??_R0?AVBase@@@8` → `4Base`, ThrowInfo
//! `_TI1H` → `i`; [`msvc_descriptor_to_itanium`], [`msvc_throwinfo_to_itanium`],
//! [`msvc_handler_type`]).
//!
//! The MSVC EH lowering and the LLVM emitter name types the Microsoft way; the interpreter
//! converts the names back to the Itanium mangling, the key every phase agrees on.

use crate::{ModuleCtx, RecordKind, TypeData};

/// HandlerType adjective: the caught type is `const`.
pub const ADJECTIVE_CONST: u32 = 1;
/// HandlerType adjective: the caught type is `volatile`.
pub const ADJECTIVE_VOLATILE: u32 = 2;
/// HandlerType adjective: catch by reference (the slot receives a pointer to the object).
pub const ADJECTIVE_REFERENCE: u32 = 8;
/// HandlerType adjective: `catch (...)`.
pub const ADJECTIVE_ELLIPSIS: u32 = 64;

/// `(Itanium code, Microsoft code)` of the fundamental types both directions know.
const BUILTIN_CODES: &[(&str, &str)] = &[
    ("v", "X"),
    ("b", "_N"),
    ("c", "D"),
    ("a", "C"),
    ("h", "E"),
    ("s", "F"),
    ("t", "G"),
    ("i", "H"),
    ("j", "I"),
    ("l", "J"),
    ("m", "K"),
    ("x", "_J"),
    ("y", "_K"),
    ("f", "M"),
    ("d", "N"),
    ("e", "O"),
    ("w", "_W"),
    ("Dn", "$$T"),
];

// ---- Itanium → Microsoft -----------------------------------------------------------------

/// A Microsoft type code split into its pointee qualifiers and the unqualified code:
/// `PEBD` (`const char *`) → (`PEAD`, const). Only a top-level pointer's pointee is
/// decomposed; other codes are returned unchanged.
pub fn decompose_pointer_qualifiers(code: &str) -> (String, u32) {
    if let Some(rest) = code.strip_prefix("PE") {
        let mut chars = rest.chars();
        let qualifiers = match chars.next() {
            Some('B') => ADJECTIVE_CONST,
            Some('C') => ADJECTIVE_VOLATILE,
            Some('D') => ADJECTIVE_CONST | ADJECTIVE_VOLATILE,
            _ => return (code.to_string(), 0),
        };
        return (format!("PEA{}", chars.as_str()), qualifiers);
    }
    (code.to_string(), 0)
}

/// The Microsoft type code named by a TypeDescriptor symbol (`??_R0H@8` → `H`).
pub fn descriptor_code(symbol: &str) -> Option<&str> {
    symbol
        .strip_prefix("??_R0")?
        .strip_suffix("@8")
        .filter(|c| !c.is_empty())
}

/// The TypeDescriptor symbol of a Microsoft type code.
pub fn descriptor_symbol(code: &str) -> String {
    format!("??_R0{code}@8")
}

/// The Microsoft RTTI TypeDescriptor symbol of the type whose Itanium typeinfo symbol is
/// `typeinfo` (`_ZTIi` → `??_R0H@8`, `_ZTI4Base` → `??_R0?AUBase@@@8`, `_ZTIPi` →
/// `??_R0PEAH@8`). Class keys come from the module's `cir.typeinfo`/record declarations
/// (`class` → `V`, `union` → `T`, otherwise `U`). A symbol that is not an Itanium typeinfo
/// name is treated as the name of a struct, so catches and throws of it still match.
pub fn type_descriptor_name(ctx: &ModuleCtx, typeinfo: &str) -> String {
    descriptor_symbol(&msvc_type_code(ctx, typeinfo))
}

/// The TypeDescriptor and qualifier adjectives a catch of the type whose Itanium typeinfo
/// symbol is `typeinfo` names. As MSVC and clang's `decomposeTypeForEH` do, the
/// qualifiers of a caught pointer's pointee are adjectives, not part of the type: `const
/// char *` (`_ZTIPKc`) is `??_R0PEAD@8` with adjectives 1 (const), so that the runtime
/// can apply qualification conversions.
pub fn catch_type_descriptor(ctx: &ModuleCtx, typeinfo: &str) -> (String, u32) {
    let (code, adjectives) = decompose_pointer_qualifiers(&msvc_type_code(ctx, typeinfo));
    (descriptor_symbol(&code), adjectives)
}

/// The decorated type name stored in a TypeDescriptor (`.H`, `.?AUBase@@`): what the
/// runtime compares when it matches a thrown type against a catch.
pub fn decorated_name(ctx: &ModuleCtx, typeinfo: &str) -> String {
    format!(".{}", msvc_type_code(ctx, typeinfo))
}

/// The Microsoft type code of an Itanium typeinfo symbol (`H`, `?AUBase@@`, `PEAH`); a
/// type without one here (a pointer to member, a function type) is a struct named after
/// the symbol (`?AU_ZTIM1Ai@@`), which converts back to the Itanium type.
pub fn msvc_type_code(ctx: &ModuleCtx, typeinfo: &str) -> String {
    if let Some(mangled) = typeinfo.strip_prefix("_ZTI") {
        let mut parser = ItaniumType {
            ctx,
            text: mangled.as_bytes(),
            pos: 0,
        };
        if let Some(code) = parser.top_level()
            && parser.pos == parser.text.len()
        {
            return code;
        }
    }
    let name: String = typeinfo
        .chars()
        .map(|c| {
            if c == '@' || c.is_whitespace() {
                '_'
            } else {
                c
            }
        })
        .collect();
    format!("?AU{name}@@")
}

/// A small parser of Itanium type manglings (builtins, `P`/`K`, class names with `N…E`).
struct ItaniumType<'a> {
    ctx: &'a ModuleCtx,
    text: &'a [u8],
    pos: usize,
}

impl ItaniumType<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    /// A type as the top of a TypeDescriptor: classes are `?A` + key + name.
    fn top_level(&mut self) -> Option<String> {
        // Typeinfos never carry top-level cv-qualifiers, but accept them.
        while matches!(self.peek(), Some(b'K' | b'V')) {
            self.pos += 1;
        }
        self.code(true)
    }

    /// A type nested in a pointer: classes are key + name (no `?A`).
    fn nested(&mut self) -> Option<String> {
        self.code(false)
    }

    /// A builtin, pointer or class type; a class gets the `?A` prefix at the top level.
    fn code(&mut self, top_level: bool) -> Option<String> {
        let start = self.pos;
        if let Some(code) = self.builtin() {
            return Some(code.to_string());
        }
        if self.peek() == Some(b'P') {
            return self.pointer();
        }
        let names = self.class_name()?;
        let key = self.class_key(&self.text[start..self.pos]);
        let prefix = if top_level { "?A" } else { "" };
        Some(format!("{prefix}{key}{names}@@"))
    }

    fn pointer(&mut self) -> Option<String> {
        self.pos += 1; // 'P'
        let mut constant = false;
        let mut volatile = false;
        loop {
            match self.peek() {
                Some(b'K') => constant = true,
                Some(b'V') => volatile = true,
                _ => break,
            }
            self.pos += 1;
        }
        let cv = match (constant, volatile) {
            (false, false) => 'A',
            (true, false) => 'B',
            (false, true) => 'C',
            (true, true) => 'D',
        };
        let pointee = self.nested()?;
        Some(format!("PE{cv}{pointee}"))
    }

    fn builtin(&mut self) -> Option<&'static str> {
        let rest = self.text.get(self.pos..)?;
        // The longest code that matches (`Dn` is two bytes).
        let &(itanium, msvc) = BUILTIN_CODES
            .iter()
            .filter(|(itanium, _)| rest.starts_with(itanium.as_bytes()))
            .max_by_key(|(itanium, _)| itanium.len())?;
        self.pos += itanium.len();
        Some(msvc)
    }

    /// `<len><id>` or `N <len><id>... E`; returns the names innermost first, joined by `@`
    /// (the Microsoft order).
    fn class_name(&mut self) -> Option<String> {
        let mut parts = Vec::new();
        if self.peek() == Some(b'N') {
            self.pos += 1;
            self.std_prefix(&mut parts);
            while self.peek() != Some(b'E') {
                parts.push(self.source_name()?);
            }
            self.pos += 1;
        } else {
            self.std_prefix(&mut parts);
            parts.push(self.source_name()?);
        }
        if parts.is_empty() {
            return None;
        }
        parts.reverse();
        Some(parts.join("@"))
    }

    /// `St` (the `std::` prefix, `St9exception`).
    fn std_prefix(&mut self, parts: &mut Vec<String>) {
        if self.text[self.pos..].starts_with(b"St") {
            self.pos += 2;
            parts.push("std".to_string());
        }
    }

    fn source_name(&mut self) -> Option<String> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        let len: usize = std::str::from_utf8(&self.text[start..self.pos])
            .ok()?
            .parse()
            .ok()?;
        if len == 0 || self.pos + len > self.text.len() {
            return None;
        }
        let name = std::str::from_utf8(&self.text[self.pos..self.pos + len]).ok()?;
        self.pos += len;
        Some(name.to_string())
    }

    /// `U` (struct), `V` (class) or `T` (union), from the record the module's typeinfo of
    /// this class describes.
    fn class_key(&self, mangled: &[u8]) -> char {
        let Ok(mangled) = std::str::from_utf8(mangled) else {
            return 'U';
        };
        // The standard library's exception classes are classes in Microsoft's headers.
        if mangled.starts_with("St") || mangled.starts_with("NSt") {
            return 'V';
        }
        let Some(symbol) = self.ctx.symbols.lookup(&format!("_ZTI{mangled}")) else {
            return 'U';
        };
        let Some(decl) = self.ctx.typeinfo(symbol) else {
            return 'U';
        };
        let TypeData::Record(alias) = self.ctx.types.get(decl.ty) else {
            return 'U';
        };
        match self.ctx.record(*alias).map(|r| r.kind) {
            Some(RecordKind::Class) => 'V',
            Some(RecordKind::Union) => 'T',
            _ => 'U',
        }
    }
}

// ---- Microsoft → Itanium -----------------------------------------------------------------

/// The mangled type of a typeinfo symbol name (`_ZTIi` → `i`); other symbols (e.g. an
/// MSVC descriptor) are converted when they can be.
pub fn type_of_typeinfo_symbol(symbol: &str) -> String {
    if let Some(rest) = symbol.strip_prefix("_ZTI") {
        return rest.to_string();
    }
    if let Some(m) = msvc_descriptor_to_itanium(symbol) {
        return m;
    }
    symbol.to_string()
}

/// The Itanium mangling of a class given its C++ name (`SomeClass`, `std::exception`,
/// `ns::Inner`).
pub fn mangle_class_name(name: &str) -> String {
    let parts: Vec<&str> = name.split("::").filter(|p| !p.is_empty()).collect();
    match parts.as_slice() {
        [] => String::new(),
        [one] => format!("{}{}", one.len(), one),
        ["std", one] => format!("St{}{}", one.len(), one),
        [first, rest @ ..] => {
            let mut s = String::from("N");
            if *first == "std" {
                s.push_str("St");
            } else {
                s.push_str(&format!("{}{}", first.len(), first));
            }
            for p in rest {
                s.push_str(&format!("{}{}", p.len(), p));
            }
            s.push('E');
            s
        }
    }
}

/// Converts an MSVC type descriptor name (`??_R0H@8`, `??_R0?AVSomeClass@@@8`,
/// `??_R0PEAH@8`) to the Itanium mangling of the same type.
pub fn msvc_descriptor_to_itanium(symbol: &str) -> Option<String> {
    let body = descriptor_code(symbol)?;
    let mut p = MsvcParser {
        text: body.as_bytes(),
        pos: 0,
    };
    let t = p.ty(0)?;
    (p.pos == p.text.len()).then_some(t)
}

/// The type a `cir.catchpad` catches, in Itanium mangling: its type descriptor names a
/// pointer type without the pointee's qualifiers (as clang's `decomposeTypeForEH` emits
/// it, so that qualification conversions work); the handler adjectives carry them (1
/// const, 2 volatile) and are put back on the pointee here. Qualifiers of a non-pointer
/// type do not take part in matching.
pub fn msvc_handler_type(descriptor: &str, adjectives: u32) -> String {
    let ty = type_of_typeinfo_symbol(descriptor);
    match ty.strip_prefix('P') {
        Some(pointee) if adjectives & (ADJECTIVE_CONST | ADJECTIVE_VOLATILE) != 0 => {
            // Itanium orders the qualifiers V (volatile) before K (const).
            let mut q = String::from("P");
            let existing_v = pointee.starts_with('V');
            let rest = pointee.trim_start_matches('V');
            let existing_k = rest.starts_with('K');
            let rest = rest.trim_start_matches('K');
            if adjectives & ADJECTIVE_VOLATILE != 0 || existing_v {
                q.push('V');
            }
            if adjectives & ADJECTIVE_CONST != 0 || existing_k {
                q.push('K');
            }
            q.push_str(rest);
            q
        }
        _ => ty,
    }
}

/// Converts an MSVC ThrowInfo name (`_TI1H`, `_TI2?AVDerived@@`, `_TIC1PEBD`) to the
/// Itanium mangling of the thrown type.
pub fn msvc_throwinfo_to_itanium(symbol: &str) -> Option<String> {
    let mut rest = symbol.strip_prefix("_TI")?;
    // Optional qualifier letters (C const, V volatile, U unaligned), then the count of
    // catchable types.
    rest = rest.trim_start_matches(['C', 'V', 'U']);
    rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let mut p = MsvcParser {
        text: rest.as_bytes(),
        pos: 0,
    };
    let t = p.ty(0)?;
    (p.pos == p.text.len()).then_some(t)
}

/// A small parser of Microsoft type codes (builtins, `PE`/`QE` pointers, classes).
struct MsvcParser<'a> {
    text: &'a [u8],
    pos: usize,
}

impl MsvcParser<'_> {
    fn ty(&mut self, depth: u32) -> Option<String> {
        if depth > 64 {
            return None;
        }
        let rest = &self.text[self.pos..];
        if let Some(&(itanium, msvc)) = BUILTIN_CODES
            .iter()
            .find(|(_, msvc)| rest.starts_with(msvc.as_bytes()))
        {
            self.pos += msvc.len();
            return Some(itanium.to_string());
        }
        let c = *rest.first()?;
        self.pos += 1;
        match c {
            b'P' | b'Q' => {
                // 64-bit pointers carry an `E` marker; then the cv-qualifier of the
                // pointee: A none, B const, C volatile, D const volatile.
                if self.text.get(self.pos) == Some(&b'E') {
                    self.pos += 1;
                }
                let q = *self.text.get(self.pos)?;
                self.pos += 1;
                let quals = match q {
                    b'A' => "",
                    b'B' => "K",
                    b'C' => "V",
                    b'D' => "VK",
                    _ => return None,
                };
                let pointee = self.ty(depth + 1)?;
                Some(format!("P{quals}{pointee}"))
            }
            b'?' => {
                // `?A` + class inside a descriptor.
                if self.text.get(self.pos) != Some(&b'A') {
                    return None;
                }
                self.pos += 1;
                self.ty(depth + 1)
            }
            b'V' | b'U' | b'T' => self.class(),
            _ => None,
        }
    }

    fn class(&mut self) -> Option<String> {
        // `Name@Scope@...@@`: innermost name first.
        let rest = &self.text[self.pos..];
        let end = rest.windows(2).position(|w| w == b"@@")?;
        let text = std::str::from_utf8(&rest[..end]).ok()?;
        self.pos += end + 2;
        let mut parts: Vec<&str> = text.split('@').collect();
        parts.reverse();
        // A type [`msvc_type_code`] has no Microsoft code for (a pointer to member)
        // stands as a struct named after its Itanium typeinfo symbol: back to its type.
        if let [name] = parts.as_slice()
            && let Some(itanium) = name.strip_prefix("_ZTI")
        {
            return Some(itanium.to_string());
        }
        Some(mangle_class_name(&parts.join("::")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Loc, RecordDecl, TypeInfoDecl};

    fn ctx_with_class(kind: RecordKind, typeinfo: &str, name: &str) -> ModuleCtx {
        let mut ctx = ModuleCtx::default();
        declare_class(&mut ctx, kind, typeinfo, name);
        ctx
    }

    /// Declares record `name` of `kind` and its typeinfo symbol `typeinfo`.
    fn declare_class(ctx: &mut ModuleCtx, kind: RecordKind, typeinfo: &str, name: &str) {
        let alias = ctx.sym(&format!("rec_{name}"));
        let name = ctx.sym(name);
        ctx.declare_record(RecordDecl {
            alias,
            kind,
            name,
            fields: Some(Vec::new()),
            loc: Loc::NONE,
        });
        let ty = ctx.types.record(alias);
        let symbol = ctx.sym(typeinfo);
        ctx.declare_typeinfo(TypeInfoDecl {
            symbol,
            ty,
            bases: Vec::new(),
            loc: Loc::NONE,
        });
    }

    #[test]
    fn builtin_types() {
        let ctx = ModuleCtx::default();
        for (itanium, msvc) in [
            ("_ZTIi", "H"),
            ("_ZTIj", "I"),
            ("_ZTIf", "M"),
            ("_ZTId", "N"),
            ("_ZTIc", "D"),
            ("_ZTIb", "_N"),
            ("_ZTIx", "_J"),
            ("_ZTIl", "J"),
            ("_ZTIPi", "PEAH"),
            ("_ZTIPKc", "PEBD"),
            ("_ZTIPPi", "PEAPEAH"),
        ] {
            assert_eq!(msvc_type_code(&ctx, itanium), msvc, "{itanium}");
        }
        assert_eq!(type_descriptor_name(&ctx, "_ZTIi"), "??_R0H@8");
        assert_eq!(decorated_name(&ctx, "_ZTIi"), ".H");
    }

    #[test]
    fn class_types_use_the_record_kind() {
        let ctx = ctx_with_class(RecordKind::Class, "_ZTI4Base", "Base");
        assert_eq!(type_descriptor_name(&ctx, "_ZTI4Base"), "??_R0?AVBase@@@8");
        assert_eq!(decorated_name(&ctx, "_ZTI4Base"), ".?AVBase@@");
        assert_eq!(msvc_type_code(&ctx, "_ZTIP4Base"), "PEAVBase@@");
        let ctx = ctx_with_class(RecordKind::Struct, "_ZTIN2ns5InnerE", "Inner");
        assert_eq!(
            type_descriptor_name(&ctx, "_ZTIN2ns5InnerE"),
            "??_R0?AUInner@ns@@@8"
        );
        // `std::` classes (`St`), as Microsoft's runtime names them.
        let ctx = ModuleCtx::default();
        assert_eq!(
            type_descriptor_name(&ctx, "_ZTISt9exception"),
            "??_R0?AVexception@std@@@8"
        );
        assert_eq!(
            msvc_type_code(&ctx, "_ZTIPKSt13bad_exception"),
            "PEBVbad_exception@std@@"
        );
        // Undeclared classes are structs.
        let ctx = ModuleCtx::default();
        assert_eq!(msvc_type_code(&ctx, "_ZTI7Derived"), "?AUDerived@@");
        assert_eq!(msvc_type_code(&ctx, "_ZTIPK7Derived"), "PEBUDerived@@");
    }

    #[test]
    fn caught_pointer_qualifiers_are_adjectives() {
        let ctx = ModuleCtx::default();
        for (typeinfo, descriptor, adjectives) in [
            ("_ZTIPKc", "??_R0PEAD@8", ADJECTIVE_CONST),
            ("_ZTIPVi", "??_R0PEAH@8", ADJECTIVE_VOLATILE),
            (
                "_ZTIPVKi",
                "??_R0PEAH@8",
                ADJECTIVE_CONST | ADJECTIVE_VOLATILE,
            ),
            ("_ZTIPi", "??_R0PEAH@8", 0),
            // Only the outermost pointee's qualifiers.
            ("_ZTIPPKc", "??_R0PEAPEBD@8", 0),
            ("_ZTIi", "??_R0H@8", 0),
        ] {
            assert_eq!(
                catch_type_descriptor(&ctx, typeinfo),
                (descriptor.to_string(), adjectives),
                "{typeinfo}"
            );
        }
    }

    #[test]
    fn other_symbols_are_struct_names() {
        let ctx = ModuleCtx::default();
        assert_eq!(msvc_type_code(&ctx, "my_type"), "?AUmy_type@@");
        // Malformed manglings fall back the same way instead of failing.
        assert_eq!(msvc_type_code(&ctx, "_ZTI99x"), "?AU_ZTI99x@@");
        assert_eq!(msvc_type_code(&ctx, "_ZTIN3abc"), "?AU_ZTIN3abc@@");
    }

    #[test]
    fn mangles_class_names() {
        assert_eq!(mangle_class_name("SomeClass"), "9SomeClass");
        assert_eq!(mangle_class_name("std::exception"), "St9exception");
        assert_eq!(mangle_class_name("ns::Inner"), "N2ns5InnerE");
    }

    #[test]
    fn converts_msvc_descriptors() {
        for (descriptor, itanium) in [
            ("??_R0H@8", "i"),
            ("??_R0M@8", "f"),
            ("??_R0?AVSomeClass@@@8", "9SomeClass"),
            ("??_R0?AVexception@std@@@8", "St9exception"),
            ("??_R0PEBD@8", "PKc"),
            ("??_R0_N@8", "b"),
        ] {
            assert_eq!(
                msvc_descriptor_to_itanium(descriptor).as_deref(),
                Some(itanium),
                "{descriptor}"
            );
        }
        assert_eq!(msvc_descriptor_to_itanium("nonsense"), None);
        assert_eq!(msvc_descriptor_to_itanium("??_R0_Q@8"), None);
        assert_eq!(msvc_throwinfo_to_itanium("_TI1H").as_deref(), Some("i"));
        assert_eq!(
            msvc_throwinfo_to_itanium("_TI2?AVDerived@@").as_deref(),
            Some("7Derived")
        );
        assert_eq!(type_of_typeinfo_symbol("_ZTIPKc"), "PKc");
        assert_eq!(type_of_typeinfo_symbol("??_R0PEBD@8"), "PKc");
        assert_eq!(type_of_typeinfo_symbol("my_type"), "my_type");
    }

    #[test]
    fn handler_adjectives_qualify_the_pointee() {
        // `catch (const char *)`: `??_R0PEAD@8` with adjective 1 (const).
        assert_eq!(msvc_handler_type("??_R0PEAD@8", ADJECTIVE_CONST), "PKc");
        assert_eq!(msvc_handler_type("??_R0PEAD@8", ADJECTIVE_VOLATILE), "PVc");
        assert_eq!(
            msvc_handler_type("??_R0PEAD@8", ADJECTIVE_CONST | ADJECTIVE_VOLATILE),
            "PVKc"
        );
        assert_eq!(msvc_handler_type("??_R0PEAD@8", 0), "Pc");
        // By reference or on a non-pointer, qualifiers do not change the type.
        assert_eq!(
            msvc_handler_type("??_R0H@8", ADJECTIVE_CONST | ADJECTIVE_REFERENCE),
            "i"
        );
    }

    /// Itanium → Microsoft → Itanium gives back the type, for every builtin, pointers with
    /// every qualifier, and classes of every key (declared or not, nested, in `std`).
    #[test]
    fn type_names_round_trip_both_ways() {
        let mut mangled: Vec<String> = BUILTIN_CODES.iter().map(|(i, _)| i.to_string()).collect();
        mangled.extend(
            [
                "Pi",
                "PKc",
                "PVi",
                "PVKi",
                "PPi",
                "PPKc",
                "PKPi",
                "4Base",
                "P4Base",
                "PK4Base",
                "7Derived",
                "N2ns5InnerE",
                "PN2ns5InnerE",
                "St9exception",
                "PKSt9exception",
                "NSt3foo3barE",
                "5Onion",
            ]
            .map(String::from),
        );
        let mut ctx = ctx_with_class(RecordKind::Class, "_ZTI4Base", "Base");
        declare_class(&mut ctx, RecordKind::Union, "_ZTI5Onion", "Onion");
        assert_eq!(msvc_type_code(&ctx, "_ZTI5Onion"), "?ATOnion@@");
        for itanium in &mangled {
            let typeinfo = format!("_ZTI{itanium}");
            let descriptor = type_descriptor_name(&ctx, &typeinfo);
            assert_eq!(
                msvc_descriptor_to_itanium(&descriptor).as_deref(),
                Some(itanium.as_str()),
                "{typeinfo} -> {descriptor}"
            );
            let throw_info = format!("_TI1{}", msvc_type_code(&ctx, &typeinfo));
            assert_eq!(
                msvc_throwinfo_to_itanium(&throw_info).as_deref(),
                Some(itanium.as_str()),
                "{typeinfo} -> {throw_info}"
            );
            // A catch splits a pointer's qualifiers off as adjectives; the handler type
            // puts them back.
            let (catch, adjectives) = catch_type_descriptor(&ctx, &typeinfo);
            assert_eq!(
                msvc_handler_type(&catch, adjectives),
                *itanium,
                "{typeinfo}"
            );
        }
        // Microsoft → Itanium → Microsoft.
        for code in [
            "H",
            "PEBD",
            "PEDH",
            "?AVBase@@",
            "?AUInner@ns@@",
            "?AVexception@std@@",
        ] {
            let itanium = msvc_descriptor_to_itanium(&format!("??_R0{code}@8")).expect(code);
            assert_eq!(msvc_type_code(&ctx, &format!("_ZTI{itanium}")), code);
        }
    }

    #[test]
    fn pointer_qualifiers_move_out_of_the_code() {
        assert_eq!(decompose_pointer_qualifiers("PEBD"), ("PEAD".into(), 1));
        assert_eq!(decompose_pointer_qualifiers("PECH"), ("PEAH".into(), 2));
        assert_eq!(decompose_pointer_qualifiers("PEDH"), ("PEAH".into(), 3));
        assert_eq!(
            decompose_pointer_qualifiers("PEAUBase@@"),
            ("PEAUBase@@".into(), 0)
        );
        assert_eq!(decompose_pointer_qualifiers("H"), ("H".into(), 0));
        // Only the top-level pointer's pointee: `const int **` keeps its inner const.
        assert_eq!(
            decompose_pointer_qualifiers("PEAPEBH"),
            ("PEAPEBH".into(), 0)
        );
    }

    #[test]
    fn descriptor_names_round_trip() {
        assert_eq!(descriptor_code("??_R0H@8"), Some("H"));
        assert_eq!(descriptor_code("??_R0?AUBase@@@8"), Some("?AUBase@@"));
        assert_eq!(descriptor_code("??_R0@8"), None);
        assert_eq!(descriptor_code("_ZTIi"), None);
        assert_eq!(descriptor_symbol("PEAX"), "??_R0PEAX@8");
    }

    #[test]
    fn types_without_a_microsoft_code_round_trip() {
        let ctx = ModuleCtx::default();
        let descriptor = type_descriptor_name(&ctx, "_ZTIM1Ai");
        assert_eq!(descriptor, "??_R0?AU_ZTIM1Ai@@@8");
        assert_eq!(
            msvc_descriptor_to_itanium(&descriptor).as_deref(),
            Some("M1Ai")
        );
        assert_eq!(
            msvc_throwinfo_to_itanium("_TI1?AU_ZTIM1Ai@@").as_deref(),
            Some("M1Ai")
        );
    }
}
