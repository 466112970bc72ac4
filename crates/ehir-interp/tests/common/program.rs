//! A builder of test programs: a `main` that calls C library functions on string
//! constants and local buffers, written as CIR text.

#![allow(dead_code)]

use super::{run_text, run_with};
use ehir_interp::{RunConfig, RunOutcome};
use std::collections::BTreeMap;

/// `char*`, `int`, `long`, `size_t`.
pub const P: &str = "!cir.ptr<!s8i>";
pub const I: &str = "!s32i";
pub const L: &str = "!s64i";
pub const U: &str = "!u64i";

/// Builds a `main` that makes calls, as CIR text.
#[derive(Default)]
pub struct Program {
    globals: String,
    decls: BTreeMap<String, String>,
    body: String,
    values: usize,
    strings: usize,
    loops: usize,
}

impl Program {
    pub fn value(&mut self) -> String {
        self.values += 1;
        format!("%v{}", self.values)
    }

    pub fn line(&mut self, text: String) {
        self.body.push_str("  ");
        self.body.push_str(&text);
        self.body.push('\n');
    }

    /// A `const char*` to a string constant holding `bytes` and a NUL (no NUL when
    /// `terminated` is false).
    pub fn bytes(&mut self, bytes: &[u8], terminated: bool) -> String {
        let mut data = bytes.to_vec();
        if terminated {
            data.push(0);
        }
        let mut escaped = String::new();
        for &b in &data {
            if b.is_ascii_alphanumeric() || b" %.,:-+|<>".contains(&b) {
                escaped.push(b as char);
            } else {
                escaped.push_str(&format!("\\{b:02X}"));
            }
        }
        self.strings += 1;
        let n = data.len();
        let name = format!(".str{}", self.strings);
        self.globals.push_str(&format!(
            "cir.global constant private @{name} = #cir.const_array<\"{escaped}\" : !cir.array<!s8i x {n}>> : !cir.array<!s8i x {n}>\n"
        ));
        let g = self.value();
        self.line(format!(
            "{g} = cir.get_global @{name} : !cir.ptr<!cir.array<!s8i x {n}>>"
        ));
        let p = self.value();
        self.line(format!(
            "{p} = cir.cast array_to_ptrdecay {g} : !cir.ptr<!cir.array<!s8i x {n}>> -> !cir.ptr<!s8i>"
        ));
        p
    }

    pub fn string(&mut self, s: &str) -> String {
        self.bytes(s.as_bytes(), true)
    }

    /// A `char*` to a zeroed local array of `size` bytes named `name`.
    pub fn buffer(&mut self, name: &str, size: usize) -> String {
        let a = self.value();
        self.line(format!(
            "{a} = cir.alloca !cir.array<!s8i x {size}>, !cir.ptr<!cir.array<!s8i x {size}>>, [\"{name}\"]"
        ));
        let p = self.value();
        self.line(format!(
            "{p} = cir.cast array_to_ptrdecay {a} : !cir.ptr<!cir.array<!s8i x {size}>> -> !cir.ptr<!s8i>"
        ));
        p
    }

    pub fn int(&mut self, v: impl Into<i128>, ty: &str) -> String {
        let v: i128 = v.into();
        let c = self.value();
        self.line(format!("{c} = cir.const #cir.int<{v}> : {ty}"));
        c
    }

    /// Calls `callee` (declared from the argument types; `variadic_from`: the number of
    /// fixed parameters of a variadic function) and returns the result value.
    pub fn call_with(
        &mut self,
        callee: &str,
        args: &[(&str, &str)],
        ret: &str,
        variadic_from: Option<usize>,
    ) -> String {
        let fixed = variadic_from.unwrap_or(args.len());
        let mut params: Vec<&str> = args[..fixed].iter().map(|a| a.1).collect();
        if variadic_from.is_some() {
            params.push("...");
        }
        let ret_decl = if ret.is_empty() {
            String::new()
        } else {
            format!(" -> {ret}")
        };
        self.decls.entry(callee.to_string()).or_insert(format!(
            "cir.func @{callee}({}){ret_decl}\n",
            params.join(", ")
        ));
        let vals: Vec<&str> = args.iter().map(|a| a.0).collect();
        let tys: Vec<&str> = args.iter().map(|a| a.1).collect();
        let sig = format!(
            "({}) -> {}",
            tys.join(", "),
            if ret.is_empty() { "()" } else { ret }
        );
        if ret.is_empty() {
            self.line(format!("cir.call @{callee}({}) : {sig}", vals.join(", ")));
            String::new()
        } else {
            let r = self.value();
            self.line(format!(
                "{r} = cir.call @{callee}({}) : {sig}",
                vals.join(", ")
            ));
            r
        }
    }

    pub fn call(&mut self, callee: &str, args: &[(&str, &str)], ret: &str) -> String {
        self.call_with(callee, args, ret, None)
    }

    /// Records a value in the trace as `call @mark_TY(value)`.
    pub fn mark(&mut self, v: &str, ty: &str) {
        let suffix: String = ty
            .trim_start_matches('!')
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let name = format!("mark_{suffix}");
        self.call(&name, &[(v, ty)], "");
    }

    pub fn text(&self) -> String {
        let mut t = self.globals.clone();
        for d in self.decls.values() {
            t.push_str(d);
        }
        t.push_str("cir.func @main() -> !s32i {\n");
        t.push_str(&self.body);
        t.push_str("  %zero = cir.const #cir.int<0> : !s32i\n  cir.return %zero : !s32i\n}\n");
        t
    }

    pub fn run(&self) -> RunOutcome {
        run_text(&self.text(), &[], &[])
    }

    /// Runs with a final adjustment of the configuration.
    pub fn run_with(&self, adjust: impl FnOnce(&mut RunConfig)) -> RunOutcome {
        run_with(&self.text(), &[], &[], adjust)
    }

    /// The `FILE*` value of the standard stream `name` (`stdout`, `stderr`), declared as
    /// the external global C headers declare.
    pub fn stream(&mut self, name: &str) -> String {
        let decl = format!("cir.global external @{name} : !cir.ptr<!void>\n");
        if !self.globals.contains(&decl) {
            self.globals.push_str(&decl);
        }
        let g = self.value();
        self.line(format!(
            "{g} = cir.get_global @{name} : !cir.ptr<!cir.ptr<!void>>"
        ));
        let v = self.value();
        self.line(format!(
            "{v} = cir.load {g} : !cir.ptr<!cir.ptr<!void>>, !cir.ptr<!void>"
        ));
        v
    }

    /// `n` calls of `putchar(c)`, in a loop.
    pub fn putchars(&mut self, c: u8, n: u64) {
        self.loops += 1;
        let k = self.loops;
        let ch = self.int(c, I);
        let count = self.int(n, U);
        let one = self.int(1, U);
        let zero = self.int(0, U);
        self.decls
            .entry("putchar".into())
            .or_insert("cir.func @putchar(!s32i) -> !s32i\n".into());
        self.line(format!(
            "%i{k} = cir.alloca !u64i, !cir.ptr<!u64i>, [\"i{k}\"]"
        ));
        self.line(format!("cir.store {zero}, %i{k} : !u64i, !cir.ptr<!u64i>"));
        self.line(format!(
            "cir.while {{\n    %x{k} = cir.load %i{k} : !cir.ptr<!u64i>, !u64i\n    %c{k} = cir.cmp(lt, %x{k}, {count}) : !u64i, !cir.bool\n    cir.condition(%c{k})\n  }} do {{\n    %r{k} = cir.call @putchar({ch}) : (!s32i) -> !s32i\n    %y{k} = cir.load %i{k} : !cir.ptr<!u64i>, !u64i\n    %z{k} = cir.binop(add, %y{k}, {one}) : !u64i\n    cir.store %z{k}, %i{k} : !u64i, !cir.ptr<!u64i>\n    cir.yield\n  }}"
        ));
    }
}
