//! C++ type names in both ABIs, in one place: the Microsoft RTTI names of a type given
//! its Itanium typeinfo symbol (`_ZTIi` → TypeDescriptor `??_R0H@8`, type code `H`;
//! [`msvc_type_code`], [`type_descriptor_name`], [`catch_type_descriptor`],
//! [`decorated_name`]; [`descriptor_symbol`] and [`descriptor_code`] convert between a
//! type code and its TypeDescriptor, [`decompose_pointer_qualifiers`] moves a pointee's
//! qualifiers out of a code) and the way back (`??_R0?AVBase@@@8` → `4Base`, ThrowInfo
//! `_TI1H` → `i`; [`msvc_descriptor_to_itanium`], [`msvc_throwinfo_to_itanium`],
//! [`msvc_handler_type`]), and the names of a class's Microsoft vftable and RTTI objects
//! (`??_7…6B@`, the Complete Object Locator `??_R4…6B@`, `??_R3`, `??_R2`, `??_R1`;
//! [`msvc_class_name`], [`complete_object_locator_class`] back) and of its scalar deleting
//! destructor (`??_G`).
//!
//! The MSVC EH lowering and the LLVM emitter name types the Microsoft way; the interpreter
//! converts the names back to the Itanium mangling, the key every phase agrees on.

use crate::abi::records::record_alias;
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
        let parts = self.class_name()?;
        let key = self.class_key(&self.text[start..self.pos], &parts.join("::"));
        let names: Vec<&str> = parts.iter().rev().map(String::as_str).collect();
        let prefix = if top_level { "?A" } else { "" };
        Some(format!("{prefix}{key}{}@@", names.join("@")))
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

    /// `<len><id>` or `N <len><id>... E`; returns the names outermost first.
    fn class_name(&mut self) -> Option<Vec<String>> {
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
        Some(parts)
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
    /// this class describes, else from the record declared for the class's qualified name
    /// (`qualified`, under its [`record_alias`]).
    fn class_key(&self, mangled: &[u8], qualified: &str) -> char {
        let Ok(mangled) = std::str::from_utf8(mangled) else {
            return 'U';
        };
        // The standard library's exception classes are classes in Microsoft's headers.
        if mangled.starts_with("St") || mangled.starts_with("NSt") {
            return 'V';
        }
        let described = self
            .ctx
            .symbols
            .lookup(&format!("_ZTI{mangled}"))
            .and_then(|symbol| self.ctx.typeinfo(symbol))
            .and_then(|decl| match self.ctx.types.get(decl.ty) {
                TypeData::Record(alias) => Some(*alias),
                _ => None,
            });
        let Some(alias) = described.or_else(|| self.ctx.symbols.lookup(&record_alias(qualified)))
        else {
            return 'U';
        };
        match self.ctx.record(alias).map(|r| r.kind) {
            Some(RecordKind::Class) => 'V',
            Some(RecordKind::Union) => 'T',
            _ => 'U',
        }
    }
}

// ---- Microsoft vftables and RTTI objects ------------------------------------------------

/// The name a class has inside the symbols of its Microsoft vftable and RTTI objects
/// (`In@ns@@` for `ns::In`): its type code without `?A` and the class key. `None` when the
/// typeinfo symbol `typeinfo` does not name a class.
pub fn msvc_class_name(ctx: &ModuleCtx, typeinfo: &str) -> Option<String> {
    let code = msvc_type_code(ctx, typeinfo);
    let rest = code.strip_prefix("?A")?;
    rest.strip_prefix(['U', 'V', 'T']).map(str::to_string)
}

/// A vftable of a class (`??_7In@ns@@6B@`), for the class name of [`msvc_class_name`]:
/// the address of its first function slot, just after the slot that points to its
/// [`complete_object_locator_symbol`]. `path` tells the vftables of a class with several
/// vftable pointers apart: the names of the bases that do (`Base@@`, concatenated:
/// `??_7D@@6BBase@@@`), empty for a class with one.
pub fn vftable_symbol(class_name: &str, path: &str) -> String {
    format!("??_7{class_name}6B{path}@")
}

/// A vbtable of a class (`??_8D@@7B@`, for the class name of [`msvc_class_name`]): 32-bit
/// entries, the offset from its vbtable pointer back to the subobject that holds it
/// (negated), then the offsets from the pointer to each virtual base. `path` tells the
/// vbtables of a class with several vbtable pointers apart as in [`vftable_symbol`]
/// (`??_8D@@7BBase@@@`); the class's own pointer among several is named by the class
/// itself, a back reference (`??_8D@@7B0@@`).
pub fn vbtable_symbol(class_name: &str, path: &str) -> String {
    format!("??_8{class_name}7B{path}@")
}

/// The Complete Object Locator of a class's vftable (`??_R4In@ns@@6B@`, `path` as in
/// [`vftable_symbol`]): the offset of the vftable pointer in the complete object, the
/// class's TypeDescriptor and its [`class_hierarchy_descriptor_symbol`].
pub fn complete_object_locator_symbol(class_name: &str, path: &str) -> String {
    format!("??_R4{class_name}6B{path}@")
}

/// The this-adjusting thunk (`?f@D@@W7EAAXXZ`) of the virtual member function `target`
/// (`?f@D@@UEAAXXZ`, a scalar deleting destructor `??_GD@@UEAAPEAXI@Z` too) that adds
/// `adjustment` (negative) to `this`: the access letter of a virtual function (`U`, `M`,
/// `E`) becomes that of an adjustor thunk (`W`, `O`, `G`) followed by the number
/// `-adjustment`. `None` when `target` is no virtual member function's name.
pub fn msvc_thunk_symbol(target: &str, adjustment: i64) -> Option<String> {
    let at = msvc_virtual_access_at(target)?;
    let thunk = match target.as_bytes()[at] {
        b'U' => 'W',
        b'M' => 'O',
        _ => 'G',
    };
    Some(format!(
        "{}{thunk}{}{}",
        &target[..at],
        msvc_number(-adjustment),
        &target[at + 1..]
    ))
}

/// The vtordisp thunk (`?f@D@@$4PPPPPPPM@A@EAAXXZ`) of the virtual member function
/// `target` (named as for [`msvc_thunk_symbol`]) that moves `this` back by the vtordisp
/// stored `vtordisp` (negative) bytes from it, then adds `adjustment`: the access letter
/// becomes `$` and the digit of a vtordisp thunk of that access (`0` private, `2`
/// protected, `4` public), followed by the two numbers as 32-bit unsigned ones, the
/// second negated. `None` when `target` is no virtual member function's name.
pub fn msvc_vtordisp_thunk_symbol(target: &str, vtordisp: i64, adjustment: i64) -> Option<String> {
    let at = msvc_virtual_access_at(target)?;
    let access = match target.as_bytes()[at] {
        b'U' => '4',
        b'M' => '2',
        _ => '0',
    };
    Some(format!(
        "{}${access}{}{}{}",
        &target[..at],
        msvc_number(i64::from(vtordisp as u32)),
        msvc_number(i64::from((-adjustment) as u32)),
        &target[at + 1..]
    ))
}

/// Where the access letter of a virtual member function's name (`U`, `M`, `E`) is: after
/// the qualified name (`…@@`), before the `this` pointer's `E` (64-bit) modifier.
fn msvc_virtual_access_at(target: &str) -> Option<usize> {
    target.match_indices("@@").map(|(i, _)| i + 2).find(|&i| {
        matches!(
            target.as_bytes().get(i..i + 2),
            Some([b'U' | b'M' | b'E', b'E'])
        )
    })
}

/// The Class Hierarchy Descriptor of a class (`??_R3In@ns@@8`): its attributes and its
/// [`base_class_array_symbol`].
pub fn class_hierarchy_descriptor_symbol(class_name: &str) -> String {
    format!("??_R3{class_name}8")
}

/// The Base Class Array of a class (`??_R2In@ns@@8`): the class itself and its bases, in
/// depth-first preorder, each by its [`base_class_descriptor_symbol`].
pub fn base_class_array_symbol(class_name: &str) -> String {
    format!("??_R2{class_name}8")
}

/// A Base Class Descriptor (`??_R1A@?0A@EA@In@ns@@8`): a class as a base at
/// `member_displacement` bytes in the class that lists it, with the vbtable
/// displacements (`-1` and `0` without a virtual base) and the attributes.
pub fn base_class_descriptor_symbol(
    class_name: &str,
    member_displacement: i64,
    vbptr_displacement: i64,
    vbtable_displacement: i64,
    attributes: u32,
) -> String {
    format!(
        "??_R1{}{}{}{}{class_name}8",
        msvc_number(member_displacement),
        msvc_number(vbptr_displacement),
        msvc_number(vbtable_displacement),
        msvc_number(i64::from(attributes))
    )
}

/// A number in a Microsoft decorated name: `A@` for 0, `0`–`9` for 1–10, otherwise
/// hexadecimal digits written `A`–`P` and ended by `@`; a negative number is `?` and its
/// magnitude (`-1` is `?0`).
pub fn msvc_number(number: i64) -> String {
    let sign = if number < 0 { "?" } else { "" };
    let magnitude = number.unsigned_abs();
    let digits = match magnitude {
        0 => "A@".to_string(),
        1..=10 => (magnitude - 1).to_string(),
        _ => {
            let hex = format!("{magnitude:X}");
            let letters: String = hex
                .chars()
                .map(|c| {
                    let nibble = c.to_digit(16).unwrap_or(0) as u8;
                    char::from(b'A' + nibble)
                })
                .collect();
            format!("{letters}@")
        }
    };
    format!("{sign}{digits}")
}

/// How many pointer levels a Microsoft type code starts with (`PEAH`: 1, `PEAPEBD`: 2).
fn pointer_levels_of_code(code: &str) -> usize {
    let mut levels = 0;
    let mut rest = code;
    while let Some(after) = rest.strip_prefix("PE") {
        levels += 1;
        rest = after.get(1..).unwrap_or("");
    }
    levels
}

/// How many pointer levels the type of the Itanium typeinfo symbol `typeinfo` has
/// (`_ZTIPi`: 1, `_ZTIPKPc`: 2; a class or a scalar: 0).
pub fn pointer_levels(ctx: &ModuleCtx, typeinfo: &str) -> usize {
    pointer_levels_of_code(&msvc_type_code(ctx, typeinfo))
}

/// Whether a catch handler of the type of typeinfo `typeinfo` whose parameter value
/// (`cir.catch_param`, `cir.begin_catch`) has the CIR type `param` binds a reference to
/// the exception object: always for a class or scalar (the value is the object's
/// address), and for a caught pointer type when the value has one more pointer level
/// than the type (`catch (int *&)`, as the Clang front end generates it for the
/// Microsoft target: the address of the thrown pointer, not the pointer). A value with
/// as many levels is the caught pointer itself (catch by value). The MSVC lowering makes
/// such a handler's catchpad the reference adjective, and the interpreter gives it the
/// exception object's address.
pub fn catch_param_is_reference(ctx: &ModuleCtx, typeinfo: &str, param: crate::Type) -> bool {
    let levels = pointer_levels(ctx, typeinfo);
    let mut depth = 0;
    let mut ty = param;
    while let Some(pointee) = ctx.types.pointee(ty) {
        depth += 1;
        ty = pointee;
    }
    levels == 0 || depth > levels
}

/// `symbol` with the Microsoft name of the translation unit's anonymous namespace
/// (`?A0x` + a hash of the main file's path as Clang was given it + `@`, as in
/// `?f@?A0x1B2C3D4E@@YAXXZ`) made `?A0x{hash}@`; `None` when it names none. The
/// entities there have internal linkage, so the hash only has to be unique within a
/// program's objects, not equal to Clang's or MSVC's.
pub fn with_anonymous_namespace_hash(symbol: &str, hash: &str) -> Option<String> {
    const MARK: &str = "?A0x";
    let mut out = String::with_capacity(symbol.len());
    let mut rest = symbol;
    let mut replaced = false;
    while let Some(at) = rest.find(MARK) {
        let after = &rest[at + MARK.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_hexdigit).count();
        out.push_str(&rest[..at + MARK.len()]);
        if digits > 0 && after.as_bytes().get(digits) == Some(&b'@') {
            out.push_str(hash);
            replaced = true;
            rest = &after[digits..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    replaced.then_some(out)
}

/// The parts of a Microsoft destructor name, `??1In@ns@@QEAA@XZ` or `??_DIn@ns@@QEAAXXZ`:
/// the class's name (`In@ns@@`) and the access letter (`Q`). Read from both ends, as a
/// template argument's name may itself contain `@@` (`??1?$H@UA@@@@QEAA@XZ`).
fn msvc_destructor_parts(destructor: &str) -> Option<(&str, char)> {
    let rest = match destructor.strip_prefix("??1") {
        Some(rest) => rest.strip_suffix("EAA@XZ")?,
        None => destructor.strip_prefix("??_D")?.strip_suffix("EAAXXZ")?,
    };
    let access = rest.chars().last()?;
    let class_name = &rest[..rest.len() - access.len_utf8()];
    // A class name ends with `@@`; a local class's with its function's signature and `@`
    // (`Guard@?1??sample@@YAHH@Z@`).
    (class_name.ends_with('@') && access.is_ascii_uppercase()).then_some((class_name, access))
}

/// The access letter of a virtual member function for the one of a non-virtual member
/// with the same access (`Q`/`U` public, `I`/`M` protected, `A`/`E` private).
fn msvc_virtual_access(access: char) -> Option<char> {
    match access {
        'Q' | 'U' => Some('U'),
        'I' | 'M' => Some('M'),
        'A' | 'E' => Some('E'),
        _ => None,
    }
}

/// The name Clang for Windows defines and calls a destructor by (`??1A@@QEAA@XZ`; `UEAA`
/// when virtual), from the name Clang's AST gives it: `??_DA@@QEAAXXZ`, the "vbase
/// destructor" that destroys the virtual bases after running `??1`, which Clang's
/// CodeGen emits only for a class that has virtual bases (it is then the name of a
/// complete object's destruction, and is kept). `None` when `clang_name` is not a
/// Microsoft destructor name.
pub fn msvc_destructor_symbol(
    clang_name: &str,
    is_virtual: bool,
    has_virtual_bases: bool,
) -> Option<String> {
    let (class_name, access) = msvc_destructor_parts(clang_name)?;
    if has_virtual_bases {
        return Some(clang_name.to_string());
    }
    let access = if is_virtual {
        msvc_virtual_access(access)?
    } else {
        access
    };
    Some(format!("??1{class_name}{access}EAA@XZ"))
}

/// The scalar deleting destructor (`??_GIn@ns@@UEAAPEAXI@Z`: `void *(unsigned flags)`,
/// which destroys the object and, when bit 0 of the flags is set, releases its storage)
/// of a destructor named `destructor`: `??1In@ns@@UEAA@XZ` ([`msvc_destructor_symbol`]),
/// or `??_DIn@ns@@QEAAXXZ`. Its access letter is made virtual, as the function is only
/// ever called through the vftable.
pub fn scalar_deleting_destructor_symbol(destructor: &str) -> Option<String> {
    let (class_name, access) = msvc_destructor_parts(destructor)?;
    let access = msvc_virtual_access(access)?;
    Some(format!("??_G{class_name}{access}EAAPEAXI@Z"))
}

/// The names a copy constructor `C::C(const C &)` of the class of Microsoft type code
/// `code` (`?AUIn@ns@@`) has, public first, then protected and private
/// (`??0In@ns@@QEAA@AEBU01@@Z`: the parameter names the class by back references to the
/// parts of its name). Empty when `code` is not a class or has more parts than back
/// references reach.
pub fn msvc_copy_constructor_symbols(code: &str) -> Vec<String> {
    let Some(rest) = code.strip_prefix("?A") else {
        return Vec::new();
    };
    let mut chars = rest.chars();
    let Some(key @ ('U' | 'V' | 'T')) = chars.next() else {
        return Vec::new();
    };
    let class_name = chars.as_str();
    let Some(parts) = class_name.strip_suffix("@@").map(|n| n.split('@').count()) else {
        return Vec::new();
    };
    if parts > 10 {
        return Vec::new();
    }
    let back_references: String = (0..parts).map(|i| char::from(b'0' + i as u8)).collect();
    ['Q', 'I', 'A']
        .iter()
        .map(|access| format!("??0{class_name}{access}EAA@AEB{key}{back_references}@@Z"))
        .collect()
}

/// The copy constructor `C::C(const C &)` of the class whose Itanium typeinfo symbol is
/// `typeinfo`, when the module defines it: under its Itanium name (the complete-object
/// constructor `_ZN…C1ERKS_`, what the builtin front end names it), or under one of its
/// Microsoft names ([`msvc_copy_constructor_symbols`], what the Clang front end names it
/// on that target). What a Microsoft CatchableType names, so that the runtime can copy
/// the object into a by-value catch parameter.
pub fn copy_constructor(module: &crate::Module, typeinfo: &str) -> Option<crate::Symbol> {
    copy_constructor_symbols(&module.ctx, typeinfo)
        .into_iter()
        .find_map(|name| {
            let symbol = module.ctx.symbols.lookup(&name)?;
            module.function_by_name(symbol).map(|_| symbol)
        })
}

/// The names [`copy_constructor`] looks for: the Itanium complete-object copy
/// constructor's, then the Microsoft ones.
pub fn copy_constructor_symbols(ctx: &ModuleCtx, typeinfo: &str) -> Vec<String> {
    let Some(mangled) = typeinfo.strip_prefix("_ZTI") else {
        return Vec::new();
    };
    let inner = match mangled.strip_prefix('N') {
        Some(rest) => rest.strip_suffix('E').unwrap_or(rest),
        None => mangled,
    };
    let mut names = vec![format!("_ZN{inner}C1ERKS_")];
    names.extend(msvc_copy_constructor_symbols(&msvc_type_code(
        ctx, typeinfo,
    )));
    names
}

/// The Itanium mangling of the class whose [`complete_object_locator_symbol`] is `symbol`
/// (`??_R4In@ns@@6B@` → `N2ns2InE`, `??_R4D@@6BBase@@@` → `1D`).
pub fn complete_object_locator_class(symbol: &str) -> Option<String> {
    let name = symbol.strip_prefix("??_R4")?.strip_suffix('@')?;
    let mut parser = MsvcParser {
        text: name.as_bytes(),
        pos: 0,
    };
    let class = parser.class()?;
    name[parser.pos..].starts_with("6B").then_some(class)
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

    /// Names as Clang for Windows gives them (`clang++ --target=x86_64-pc-windows-msvc
    /// -S -emit-llvm` of classes `A`, `ns::In`, a private base at 16).
    #[test]
    fn vftable_and_rtti_object_names() {
        let mut ctx = ctx_with_class(RecordKind::Struct, "_ZTIN2ns2InE", "ns::In");
        declare_class(&mut ctx, RecordKind::Class, "_ZTI1C", "C");
        let name = msvc_class_name(&ctx, "_ZTIN2ns2InE").expect("a class");
        assert_eq!(name, "In@ns@@");
        assert_eq!(vftable_symbol(&name, ""), "??_7In@ns@@6B@");
        assert_eq!(vftable_symbol("D@@", "Base@@"), "??_7D@@6BBase@@@");
        assert_eq!(complete_object_locator_symbol(&name, ""), "??_R4In@ns@@6B@");
        assert_eq!(
            complete_object_locator_symbol("D@@", "R@@"),
            "??_R4D@@6BR@@@"
        );
        assert_eq!(class_hierarchy_descriptor_symbol(&name), "??_R3In@ns@@8");
        assert_eq!(base_class_array_symbol(&name), "??_R2In@ns@@8");
        assert_eq!(
            base_class_descriptor_symbol(&name, 0, -1, 0, 64),
            "??_R1A@?0A@EA@In@ns@@8"
        );
        assert_eq!(
            base_class_descriptor_symbol("Q@@", 16, -1, 0, 77),
            "??_R1BA@?0A@EN@Q@@8"
        );
        assert_eq!(
            base_class_descriptor_symbol("P@@", 8, -1, 0, 64),
            "??_R17?0A@EA@P@@8"
        );
        assert_eq!(msvc_class_name(&ctx, "_ZTI1C").as_deref(), Some("C@@"));
        assert_eq!(msvc_class_name(&ctx, "_ZTIi"), None);
        assert_eq!(msvc_class_name(&ctx, "_ZTIP1C"), None);
        assert_eq!(
            complete_object_locator_class("??_R4In@ns@@6B@").as_deref(),
            Some("N2ns2InE")
        );
        assert_eq!(
            complete_object_locator_class("??_R4C@@6B@").as_deref(),
            Some("1C")
        );
        assert_eq!(
            complete_object_locator_class("??_R4Square@@6BNamed@@@").as_deref(),
            Some("6Square")
        );
        assert_eq!(complete_object_locator_class("??_R0H@8"), None);
    }

    /// Thunk names as Clang for Windows gives them (`-8` and `-16` bytes).
    #[test]
    fn this_adjusting_thunk_names() {
        assert_eq!(
            msvc_thunk_symbol("??_GSquare@@UEAAPEAXI@Z", -8).as_deref(),
            Some("??_GSquare@@W7EAAPEAXI@Z")
        );
        assert_eq!(
            msvc_thunk_symbol("?x@T@@UEAAXXZ", -16).as_deref(),
            Some("?x@T@@WBA@EAAXXZ")
        );
        assert_eq!(
            msvc_thunk_symbol("?f@In@ns@@MEBAHXZ", -24).as_deref(),
            Some("?f@In@ns@@OBI@EBAHXZ")
        );
        assert_eq!(msvc_thunk_symbol("?f@@YAXXZ", -8), None);
    }

    /// Vtordisp thunk names as Clang for Windows gives them (the vtordisp 4 bytes before
    /// the vftable pointer; no further move, or 16 bytes back).
    #[test]
    fn vtordisp_thunk_names() {
        assert_eq!(
            msvc_vtordisp_thunk_symbol("?name@TeeSink@@UEBAPEBDXZ", -4, 0).as_deref(),
            Some("?name@TeeSink@@$4PPPPPPPM@A@EBAPEBDXZ")
        );
        assert_eq!(
            msvc_vtordisp_thunk_symbol("??_ETeeSink@@UEAAPEAXI@Z", -4, 0).as_deref(),
            Some("??_ETeeSink@@$4PPPPPPPM@A@EAAPEAXI@Z")
        );
        assert_eq!(
            msvc_vtordisp_thunk_symbol("?f@D@@MEAAXXZ", -4, -16).as_deref(),
            Some("?f@D@@$2PPPPPPPM@BA@EAAXXZ")
        );
        assert_eq!(msvc_vtordisp_thunk_symbol("?f@@YAXXZ", -4, 0), None);
    }

    #[test]
    fn a_class_without_typeinfo_takes_its_key_from_its_record() {
        let mut ctx = ModuleCtx::default();
        let alias = ctx.sym(&record_alias("ns::Base"));
        let name = ctx.sym("ns::Base");
        ctx.declare_record(RecordDecl {
            alias,
            kind: RecordKind::Class,
            name,
            fields: Some(Vec::new()),
            loc: Loc::NONE,
        });
        assert_eq!(
            type_descriptor_name(&ctx, "_ZTIN2ns4BaseE"),
            "??_R0?AVBase@ns@@@8"
        );
        assert_eq!(msvc_type_code(&ctx, "_ZTIPKN2ns4BaseE"), "PEBVBase@ns@@");
    }

    /// As Clang for Windows names them (`S`, `class C`, `ns::In`, `ns::deep::K`).
    #[test]
    fn copy_constructor_names() {
        for (code, public) in [
            ("?AUS@@", "??0S@@QEAA@AEBU0@@Z"),
            ("?AVC@@", "??0C@@QEAA@AEBV0@@Z"),
            ("?AUIn@ns@@", "??0In@ns@@QEAA@AEBU01@@Z"),
            ("?AVK@deep@ns@@", "??0K@deep@ns@@QEAA@AEBV012@@Z"),
        ] {
            let names = msvc_copy_constructor_symbols(code);
            assert_eq!(names.first().map(String::as_str), Some(public), "{code}");
            assert_eq!(names.len(), 3);
        }
        assert_eq!(
            msvc_copy_constructor_symbols("?AUS@@")[2],
            "??0S@@AEAA@AEBU0@@Z"
        );
        assert!(msvc_copy_constructor_symbols("H").is_empty());
        assert!(msvc_copy_constructor_symbols("PEAUS@@").is_empty());
    }

    #[test]
    fn numbers_in_decorated_names() {
        for (number, text) in [
            (0, "A@"),
            (1, "0"),
            (8, "7"),
            (10, "9"),
            (11, "L@"),
            (16, "BA@"),
            (64, "EA@"),
            (77, "EN@"),
            (-1, "?0"),
            (-16, "?BA@"),
        ] {
            assert_eq!(msvc_number(number), text, "{number}");
        }
    }

    #[test]
    fn scalar_deleting_destructor_names() {
        for (destructor, deleting) in [
            ("??1A@@UEAA@XZ", "??_GA@@UEAAPEAXI@Z"),
            ("??_DA@@QEAAXXZ", "??_GA@@UEAAPEAXI@Z"),
            ("??_DIn@ns@@QEAAXXZ", "??_GIn@ns@@UEAAPEAXI@Z"),
            ("??_DB@@IEAAXXZ", "??_GB@@MEAAPEAXI@Z"),
            ("??_DB@@AEAAXXZ", "??_GB@@EEAAPEAXI@Z"),
        ] {
            assert_eq!(
                scalar_deleting_destructor_symbol(destructor).as_deref(),
                Some(deleting),
                "{destructor}"
            );
        }
        assert_eq!(
            scalar_deleting_destructor_symbol("??1?$H@UA@@@@UEAA@XZ").as_deref(),
            Some("??_G?$H@UA@@@@UEAAPEAXI@Z")
        );
        assert_eq!(scalar_deleting_destructor_symbol("_ZN1AD1Ev"), None);
        assert_eq!(scalar_deleting_destructor_symbol("??_DA@@"), None);
    }

    #[test]
    fn pointer_levels_count_the_leading_pointers_of_a_type_code() {
        assert_eq!(pointer_levels_of_code("H"), 0);
        assert_eq!(pointer_levels_of_code("PEAH"), 1);
        assert_eq!(pointer_levels_of_code("PEBD"), 1);
        assert_eq!(pointer_levels_of_code("PEAPEAVBase@@"), 2);
        assert_eq!(pointer_levels_of_code("PE"), 1);
    }

    #[test]
    fn a_catch_parameter_one_pointer_level_deeper_than_a_caught_pointer_is_a_reference() {
        let mut ctx = ModuleCtx::default();
        let s32 = ctx.types.common().s32;
        let int_ptr = ctx.types.ptr(s32);
        let int_ptr_ptr = ctx.types.ptr(int_ptr);
        let int_ptr_ptr_ptr = ctx.types.ptr(int_ptr_ptr);
        // `catch (int *)` and `catch (int *&)`.
        assert!(!catch_param_is_reference(&ctx, "_ZTIPi", int_ptr));
        assert!(catch_param_is_reference(&ctx, "_ZTIPi", int_ptr_ptr));
        // `catch (int **)` and `catch (int **&)`.
        assert!(!catch_param_is_reference(&ctx, "_ZTIPPi", int_ptr_ptr));
        assert!(catch_param_is_reference(&ctx, "_ZTIPPi", int_ptr_ptr_ptr));
        // `catch (int)`, `catch (int &)`: the object's address.
        assert!(catch_param_is_reference(&ctx, "_ZTIi", int_ptr));
        assert_eq!(pointer_levels(&ctx, "_ZTIPKPc"), 2);
    }

    #[test]
    fn the_anonymous_namespace_hash_is_replaced() {
        assert_eq!(
            with_anonymous_namespace_hash("?anon@?A0x92C26856@@3HA", "0C0FFEE0").as_deref(),
            Some("?anon@?A0x0C0FFEE0@@3HA")
        );
        assert_eq!(
            with_anonymous_namespace_hash("??1N@?A0xABC@@QEAA@XZ", "12345678").as_deref(),
            Some("??1N@?A0x12345678@@QEAA@XZ")
        );
        assert_eq!(with_anonymous_namespace_hash("?f@@YAXXZ", "12345678"), None);
        assert_eq!(with_anonymous_namespace_hash("?A0xZZ@", "12345678"), None);
    }

    #[test]
    fn destructors_are_named_as_clang_for_windows_emits_them() {
        // (Clang's AST name, virtual, virtual bases) → the name Clang's code uses
        // (clang++-22 --target=x86_64-pc-windows-msvc -S -emit-llvm).
        for (clang_name, is_virtual, has_virtual_bases, emitted) in [
            ("??_DA@@QEAAXXZ", false, false, "??1A@@QEAA@XZ"),
            ("??_DD@@QEAAXXZ", true, false, "??1D@@UEAA@XZ"),
            ("??_DP@@AEAAXXZ", false, false, "??1P@@AEAA@XZ"),
            ("??_DP@@IEAAXXZ", true, false, "??1P@@MEAA@XZ"),
            ("??_DIn@ns@@QEAAXXZ", false, false, "??1In@ns@@QEAA@XZ"),
            (
                "??_D?$H@UA@@@@QEAAXXZ",
                false,
                false,
                "??1?$H@UA@@@@QEAA@XZ",
            ),
            ("??_DW@@QEAAXXZ", false, true, "??_DW@@QEAAXXZ"),
            (
                "??_DGuard@?1??sample@@YAHH@Z@QEAAXXZ",
                false,
                false,
                "??1Guard@?1??sample@@YAHH@Z@QEAA@XZ",
            ),
        ] {
            assert_eq!(
                msvc_destructor_symbol(clang_name, is_virtual, has_virtual_bases).as_deref(),
                Some(emitted),
                "{clang_name}"
            );
        }
        assert_eq!(msvc_destructor_symbol("_ZN1AD1Ev", false, false), None);
        assert_eq!(msvc_destructor_symbol("?f@@YAXXZ", false, false), None);
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
