//! Itanium C++ ABI name mangling for the subset: functions (free, member, `const`
//! member, constructors `C1`/`C2`, destructors `D1`/`D2`, `operator=`), static data
//! members, local statics and typeinfo objects, with the ABI's substitution rules.

use crate::types::{Ty, TyKind, TypeTable, builtin_mangling};

/// What a class contributes to a mangled name.
pub trait ClassNames {
    /// The class's `<source-name>` (`1A`), or `St9exception` for `std::exception`.
    fn class_mangling(&self, class: crate::types::ClassId) -> String;
    /// Whether the class is in namespace `std` (its name starts with `St`).
    fn class_in_std(&self, class: crate::types::ClassId) -> bool;
}

/// A mangler with its substitution table.
pub struct Mangler<'a> {
    types: &'a TypeTable,
    names: &'a dyn ClassNames,
    /// Unsubstituted manglings of the substitution candidates, in order.
    subs: Vec<String>,
}

/// The `<source-name>` of an identifier: its length then its text.
pub fn source_name(s: &str) -> String {
    format!("{}{}", s.len(), s)
}

fn seq_id(i: usize) -> String {
    if i == 0 {
        return "S_".into();
    }
    let mut n = i - 1;
    let mut digits = Vec::new();
    loop {
        let d = (n % 36) as u8;
        digits.push(if d < 10 { b'0' + d } else { b'A' + d - 10 });
        n /= 36;
        if n == 0 {
            break;
        }
    }
    digits.reverse();
    format!("S{}_", String::from_utf8(digits).unwrap_or_default())
}

impl<'a> Mangler<'a> {
    pub fn new(types: &'a TypeTable, names: &'a dyn ClassNames) -> Self {
        Mangler {
            types,
            names,
            subs: Vec::new(),
        }
    }

    /// The unsubstituted mangling of a type (the key of the substitution table).
    fn plain(&self, kind: &TyKind, is_const: bool) -> String {
        let mut m = Mangler::new(self.types, self.names);
        m.raw_kind(kind.clone(), is_const, false)
    }

    fn lookup_or_add(&mut self, key: String, text: String) -> String {
        if let Some(i) = self.subs.iter().position(|s| *s == key) {
            return seq_id(i);
        }
        self.subs.push(key);
        text
    }

    /// Mangles a type, using and extending the substitution table.
    pub fn mangle_type(&mut self, t: Ty) -> String {
        self.raw_type(t, true)
    }

    fn raw_type(&mut self, t: Ty, substitute: bool) -> String {
        let is_const = self.types.is_const(t);
        let kind = self.types.kind(t).clone();
        self.raw_kind(kind, is_const, substitute)
    }

    /// Mangles a composite type: returns its substitution if it has one, otherwise the
    /// text from `build` and (when substituting) records it as a candidate.
    fn composite(
        &mut self,
        kind: &TyKind,
        is_const: bool,
        substitute: bool,
        build: impl FnOnce(&mut Self) -> String,
    ) -> String {
        if !substitute {
            return build(self);
        }
        let key = self.plain(kind, is_const);
        if let Some(i) = self.subs.iter().position(|s| *s == key) {
            return seq_id(i);
        }
        let text = build(self);
        self.subs.push(key);
        text
    }

    fn raw_kind(&mut self, kind: TyKind, is_const: bool, substitute: bool) -> String {
        if is_const {
            let k2 = kind.clone();
            return self.composite(&kind, true, substitute, move |m| {
                format!("K{}", m.raw_kind(k2, false, substitute))
            });
        }
        match kind.clone() {
            TyKind::Builtin(b) => builtin_mangling(b).to_string(),
            TyKind::Nullptr => "Dn".to_string(),
            TyKind::Class(c) => {
                let text = self.names.class_mangling(c);
                if !substitute {
                    return text;
                }
                self.lookup_or_add(text.clone(), text)
            }
            TyKind::Ptr(p) => self.composite(&kind, false, substitute, |m| {
                format!("P{}", m.raw_type(p, substitute))
            }),
            TyKind::Ref(p) => self.composite(&kind, false, substitute, |m| {
                format!("R{}", m.raw_type(p, substitute))
            }),
            TyKind::Array(e, n) => self.composite(&kind, false, substitute, |m| {
                format!("A{n}_{}", m.raw_type(e, substitute))
            }),
            TyKind::Func {
                ret,
                params,
                variadic,
            } => self.composite(&kind, false, substitute, |m| {
                let mut text = String::from("F");
                text.push_str(&m.raw_type(ret, substitute));
                text.push_str(&m.params(&params, variadic, substitute));
                text.push('E');
                text
            }),
        }
    }

    fn params(&mut self, params: &[Ty], variadic: bool, substitute: bool) -> String {
        let mut s = String::new();
        if params.is_empty() && !variadic {
            s.push('v');
        }
        for &p in params {
            s.push_str(&self.raw_type(p, substitute));
        }
        if variadic {
            s.push('z');
        }
        s
    }

    /// `<bare-function-type>`: the parameter types (`v` for none).
    pub fn mangle_params(&mut self, params: &[Ty], variadic: bool) -> String {
        self.params(params, variadic, true)
    }

    /// Registers a class as a substitution candidate (the prefix of a nested name).
    pub fn add_class_prefix(&mut self, class: crate::types::ClassId) -> String {
        let text = self.names.class_mangling(class);
        if !self.subs.contains(&text) {
            self.subs.push(text.clone());
        }
        text
    }
}

/// The kind of entity a function name denotes.
pub enum FunctionName<'s> {
    /// A free function `f` (or `std::f`).
    Free { name: &'s str, in_std: bool },
    /// A member function of a class (`const` ones get `K`).
    Method {
        class: crate::types::ClassId,
        name: &'s str,
        is_const: bool,
    },
    /// `operator=`.
    AssignOperator { class: crate::types::ClassId },
    /// A constructor, complete (`C1`) or base (`C2`).
    Ctor {
        class: crate::types::ClassId,
        base: bool,
    },
    /// A destructor, complete (`D1`) or base (`D2`).
    Dtor {
        class: crate::types::ClassId,
        base: bool,
    },
}

/// Mangles a function name with its parameter types.
pub fn mangle_function(
    types: &TypeTable,
    names: &dyn ClassNames,
    name: FunctionName<'_>,
    params: &[Ty],
    variadic: bool,
) -> String {
    let mut m = Mangler::new(types, names);
    let mut out = String::from("_Z");
    match name {
        FunctionName::Free { name, in_std } => {
            if in_std {
                out.push_str("St");
            }
            out.push_str(&source_name(name));
        }
        FunctionName::Method {
            class,
            name,
            is_const,
        } => {
            out.push('N');
            if is_const {
                out.push('K');
            }
            out.push_str(&nested_prefix(&mut m, names, class));
            out.push_str(&source_name(name));
            out.push('E');
        }
        FunctionName::AssignOperator { class } => {
            out.push('N');
            out.push_str(&nested_prefix(&mut m, names, class));
            out.push_str("aSE");
        }
        FunctionName::Ctor { class, base } => {
            out.push('N');
            out.push_str(&nested_prefix(&mut m, names, class));
            out.push_str(if base { "C2E" } else { "C1E" });
        }
        FunctionName::Dtor { class, base } => {
            out.push('N');
            out.push_str(&nested_prefix(&mut m, names, class));
            out.push_str(if base { "D2E" } else { "D1E" });
        }
    }
    out.push_str(&m.mangle_params(params, variadic));
    out
}

fn nested_prefix(
    m: &mut Mangler<'_>,
    names: &dyn ClassNames,
    class: crate::types::ClassId,
) -> String {
    // `St9exception` inside N...E is spelled `St9exception` too.
    let _ = names;
    m.add_class_prefix(class)
}

/// `_ZTI<type>`: the typeinfo object of a type.
pub fn typeinfo_name(types: &TypeTable, names: &dyn ClassNames, t: Ty) -> String {
    let mut m = Mangler::new(types, names);
    format!("_ZTI{}", m.mangle_type(t))
}

/// `_ZN<class><name>E`: a static data member.
pub fn static_member_name(
    names: &dyn ClassNames,
    class: crate::types::ClassId,
    name: &str,
) -> String {
    format!("_ZN{}{}E", names.class_mangling(class), source_name(name))
}

/// `_ZZ<function>E<name>[_<n>]`: a static local of a function (`n` counts earlier
/// statics of the same name in the function).
pub fn local_static_name(function_mangling: &str, name: &str, discriminator: usize) -> String {
    let encoding = function_mangling
        .strip_prefix("_Z")
        .unwrap_or(function_mangling);
    let disc = match discriminator {
        0 => String::new(),
        1..=10 => format!("_{}", discriminator - 1),
        n => format!("__{}_", n - 1),
    };
    format!("_ZZ{encoding}E{}{disc}", source_name(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::Builtin;
    use crate::types::ClassId;

    struct Names;
    impl ClassNames for Names {
        fn class_mangling(&self, c: ClassId) -> String {
            match c.0 {
                0 => "9SomeClass".into(),
                1 => "St9exception".into(),
                _ => "1A".into(),
            }
        }
        fn class_in_std(&self, c: ClassId) -> bool {
            c.0 == 1
        }
    }

    #[test]
    fn mangles_like_the_itanium_abi() {
        let mut t = TypeTable::default();
        let some = t.class(ClassId(0));
        let a = t.class(ClassId(2));
        let int = t.builtin(Builtin::Int);
        let ch = t.builtin(Builtin::Char);
        let cch = t.with_const(ch, true);
        let pcch = t.ptr(cch);
        let ca = t.with_const(a, true);
        let rca = t.reference(ca);
        let void = t.builtin(Builtin::Void);
        let fvv = t.intern(
            TyKind::Func {
                ret: void,
                params: vec![],
                variadic: false,
            },
            false,
        );
        let pfvv = t.ptr(fvv);
        let n = Names;
        let f = |name, p: &[Ty]| mangle_function(&t, &n, name, p, false);
        assert_eq!(
            f(
                FunctionName::Ctor {
                    class: ClassId(0),
                    base: false
                },
                &[]
            ),
            "_ZN9SomeClassC1Ev"
        );
        assert_eq!(
            f(
                FunctionName::Dtor {
                    class: ClassId(0),
                    base: true
                },
                &[]
            ),
            "_ZN9SomeClassD2Ev"
        );
        assert_eq!(
            f(
                FunctionName::Method {
                    class: ClassId(0),
                    name: "doSomething",
                    is_const: false
                },
                &[]
            ),
            "_ZN9SomeClass11doSomethingEv"
        );
        assert_eq!(
            f(
                FunctionName::Ctor {
                    class: ClassId(2),
                    base: false
                },
                &[rca]
            ),
            "_ZN1AC1ERKS_"
        );
        assert_eq!(
            f(FunctionName::AssignOperator { class: ClassId(2) }, &[rca]),
            "_ZN1AaSERKS_"
        );
        assert_eq!(
            f(
                FunctionName::Free {
                    name: "f",
                    in_std: false
                },
                &[pcch, pcch, int]
            ),
            "_Z1fPKcS0_i"
        );
        assert_eq!(
            f(
                FunctionName::Free {
                    name: "g",
                    in_std: false
                },
                &[rca, a]
            ),
            "_Z1gRK1AS_"
        );
        assert_eq!(
            f(
                FunctionName::Free {
                    name: "set_terminate",
                    in_std: true
                },
                &[pfvv]
            ),
            "_ZSt13set_terminatePFvvE"
        );
        assert_eq!(
            f(
                FunctionName::Method {
                    class: ClassId(2),
                    name: "get",
                    is_const: true
                },
                &[]
            ),
            "_ZNK1A3getEv"
        );
        assert_eq!(typeinfo_name(&t, &n, pcch), "_ZTIPKc");
        assert_eq!(typeinfo_name(&t, &n, some), "_ZTI9SomeClass");
        assert_eq!(local_static_name("_Z1fv", "count", 0), "_ZZ1fvE5count");
        assert_eq!(static_member_name(&n, ClassId(2), "n"), "_ZN1A1nE");
    }
}
