//! Random structured CIR programs for differential testing of the passes, and the
//! synthetic workloads of the benchmarks.
//!
//! [`generate_program`] writes a module of 1–3 functions (`@main` first) made of nested
//! scopes, `if`/`else`, bounded `for`/`while`/`do` loops with `break`/`continue`,
//! `switch`es, ternaries, `return`s with a value, forward and (bounded) backward `goto`s,
//! cleanup scopes of each kind, `try` with typed and catch-all handlers (and now and then an
//! explicit `unwind`, a `filter` or a `terminate` handler, or a catch-all region taking the
//! exception's token), arrays of class objects (`cir.array.ctor` with and without a
//! partial-destruction region, destroyed by `cir.array.dtor` in an `all` cleanup),
//! `throw`s of `int` and `float`, rethrows, and calls to the other functions. Every observable effect is a call to an
//! external function (`@ev`, `@dtor`, `@caught`, ...), so an interpreter trace shows what
//! ran. Programs always terminate: loops run at most three times and a backward `goto` is
//! taken at most twice. The same seed gives the same program.
//!
//! Rules the generator keeps so that programs are valid C++-shaped CIR: `goto` only targets
//! a label of an enclosing region (never into a scope, try or handler); no label, `goto`,
//! `break`/`continue` out of, `return` or `throw` inside a cleanup region; `try` only
//! outside cleanup regions; rethrow only inside a catch handler.

pub mod differential;
pub mod heap;
pub mod wine;

/// The `.cir` files under `dir` and its subdirectories, sorted by path (the file tests'
/// inputs, for tests that run something over all of them).
pub fn cir_files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "cir") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    files
}

use std::fmt::Write;

/// A small deterministic PRNG (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Size limits of generated programs.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Maximum nesting of structured statements.
    pub max_depth: u32,
    /// Maximum statements per region.
    pub max_stmts: u32,
    /// Maximum number of functions (at least 1).
    pub max_functions: u32,
    /// Total statement budget per function.
    pub budget: u32,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            max_depth: 5,
            max_stmts: 4,
            max_functions: 3,
            budget: 40,
        }
    }
}

/// The external functions a generated program calls (declared in every module), and the
/// element type of its arrays.
pub const PROLOGUE: &str = "\
!rec_E = !cir.record<struct \"E\" {!s32i}>
cir.func @elem_ctor(!cir.ptr<!rec_E>)
cir.func @elem_dtor(!cir.ptr<!rec_E>)
cir.func @ev(!s32i)
cir.func nothrow @ev_nothrow(!s32i)
cir.func @dtor(!s32i)
cir.func @caught(!s32i)
cir.func @caught_float(!s32i)
cir.func @caught_all(!s32i)
cir.func @get(!s32i) -> !s32i
";

#[derive(Clone, Default)]
struct Ctx {
    depth: u32,
    /// `cir.continue` allowed.
    in_loop: bool,
    /// `cir.break` allowed.
    breakable: bool,
    /// Inside a cleanup region: no exits, labels, throws or trys.
    in_cleanup: bool,
    /// Inside a catch handler: rethrow allowed.
    in_handler: bool,
    /// Inside the body of a `filter` try: no other (nested specifications are not
    /// expressible at the Itanium phase, and C++ gives a function one).
    in_filter: bool,
    /// Labels that a `cir.goto` here may target: (name, backward counter slot).
    labels: Vec<(String, Option<String>)>,
    /// Loop counters in scope (slot names).
    counters: Vec<String>,
}

struct FuncGen<'a> {
    rng: &'a mut Rng,
    cfg: &'a GenConfig,
    out: String,
    indent: usize,
    next_value: u32,
    next_block: u32,
    next_label: u32,
    next_id: &'a mut i32,
    budget: u32,
    /// Functions this one may call (by name).
    callees: Vec<String>,
    state: String,
}

/// Generates a module from a seed.
pub fn generate_program(seed: u64, cfg: &GenConfig) -> String {
    let mut rng = Rng::new(seed);
    let nfuncs = 1 + rng.below(cfg.max_functions.max(1) as u64) as usize;
    let names: Vec<String> = (0..nfuncs)
        .map(|i| {
            if i == 0 {
                "main".to_string()
            } else {
                format!("f{i}")
            }
        })
        .collect();
    let mut out = String::from(PROLOGUE);
    let mut next_id = 1;
    for (i, name) in names.iter().enumerate() {
        let mut g = FuncGen {
            rng: &mut rng,
            cfg,
            out: String::new(),
            indent: 1,
            next_value: 0,
            next_block: 0,
            next_label: 0,
            next_id: &mut next_id,
            budget: cfg.budget,
            callees: names[i + 1..].to_vec(),
            state: String::new(),
        };
        g.function(name, i == 0);
        out.push_str(&g.out);
    }
    out
}

impl FuncGen<'_> {
    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn value(&mut self) -> String {
        let v = format!("%v{}", self.next_value);
        self.next_value += 1;
        v
    }

    fn id(&mut self) -> i32 {
        let id = *self.next_id;
        *self.next_id += 1;
        id
    }

    fn int(&mut self, n: i64) -> String {
        let v = self.value();
        self.line(&format!("{v} = cir.const #cir.int<{n}> : !s32i"));
        v
    }

    /// A constant `base + random(0..range)`.
    fn rand_int(&mut self, base: i64, range: u64) -> String {
        let n = base + self.rng.below(range) as i64;
        self.int(n)
    }

    fn load(&mut self, slot: &str) -> String {
        let v = self.value();
        self.line(&format!("{v} = cir.load {slot} : !cir.ptr<!s32i>, !s32i"));
        v
    }

    fn store(&mut self, value: &str, slot: &str) {
        self.line(&format!(
            "cir.store {value}, {slot} : !s32i, !cir.ptr<!s32i>"
        ));
    }

    fn alloca(&mut self, name: &str) -> String {
        let v = self.value();
        self.line(&format!(
            "{v} = cir.alloca !s32i, !cir.ptr<!s32i>, [\"{name}\", init]"
        ));
        v
    }

    fn call(&mut self, callee: &str, arg: &str) {
        self.line(&format!("cir.call @{callee}({arg}) : (!s32i) -> ()"));
    }

    fn event(&mut self) {
        let id = self.id();
        let k = self.int(id as i64);
        self.call("ev", &k);
    }

    fn function(&mut self, name: &str, is_main: bool) {
        if is_main {
            self.out
                .push_str(&format!("cir.func @{name}() -> !s32i {{\n"));
        } else {
            self.out
                .push_str(&format!("cir.func @{name}(%arg0: !s32i) -> !s32i {{\n"));
        }
        let state = self.alloca("x");
        self.state = state.clone();
        if is_main {
            let zero = self.int(0);
            self.store(&zero, &state);
        } else {
            self.store("%arg0", &state);
        }
        let ctx = Ctx::default();
        // Function bodies are longer than nested regions.
        let n = 2 * self.cfg.max_stmts as u64 + self.rng.below(self.cfg.max_stmts as u64);
        let terminated = self.stmt_list(&ctx, n);
        if !terminated {
            let v = self.load(&state);
            self.line(&format!("cir.return {v} : !s32i"));
        }
        self.out.push_str("}\n");
    }

    /// A list of statements; returns whether it ended with a terminator.
    fn stmts(&mut self, ctx: &Ctx) -> bool {
        let n = 1 + self.rng.below(self.cfg.max_stmts as u64);
        self.stmt_list(ctx, n)
    }

    fn stmt_list(&mut self, ctx: &Ctx, n: u64) -> bool {
        for i in 0..n {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            let last = i + 1 == n;
            if self.stmt(ctx, last) {
                return true;
            }
        }
        false
    }

    /// A region body ending with `cir.yield` unless it ended with a terminator.
    fn region(&mut self, ctx: &Ctx) {
        self.indent += 1;
        if !self.stmts(ctx) {
            self.line("cir.yield");
        }
        self.indent -= 1;
    }

    fn cond(&mut self, ctx: &Ctx) -> String {
        self.cond_with(ctx, false)
    }

    /// A condition; `rare` ones are false while the state is still 0 (so that programs do
    /// not all leave at their first statements).
    fn cond_with(&mut self, ctx: &Ctx, rare: bool) -> String {
        if !ctx.counters.is_empty() && self.rng.chance(40) {
            let c = ctx.counters[self.rng.below(ctx.counters.len() as u64) as usize].clone();
            let a = self.load(&c);
            let k = self.rand_int(0, 3);
            let v = self.value();
            self.line(&format!("{v} = cir.cmp(eq, {a}, {k}) : !s32i, !cir.bool"));
            return v;
        }
        let state = self.state.clone();
        let a = self.load(&state);
        let modulus = 2 + self.rng.below(3) as i64;
        let m = self.int(modulus);
        let r = self.value();
        self.line(&format!("{r} = cir.binop(rem, {a}, {m}) : !s32i"));
        let k = if rare {
            let n = 1 + self.rng.below(modulus as u64 - 1) as i64;
            self.int(n)
        } else {
            self.rand_int(0, 2)
        };
        let v = self.value();
        self.line(&format!("{v} = cir.cmp(eq, {r}, {k}) : !s32i, !cir.bool"));
        v
    }

    /// One statement; returns whether it was a terminator.
    fn stmt(&mut self, ctx: &Ctx, last: bool) -> bool {
        let deep = ctx.depth >= self.cfg.max_depth;
        loop {
            let pick = self.rng.below(100);
            match pick {
                0..=11 => {
                    self.event();
                    return false;
                }
                12..=15 => {
                    let id = self.id();
                    let k = self.int(id as i64);
                    self.call("ev_nothrow", &k);
                    return false;
                }
                16..=22 => {
                    let state = self.state.clone();
                    let a = self.load(&state);
                    let c = self.rand_int(1, 5);
                    let s = self.value();
                    self.line(&format!("{s} = cir.binop(add, {a}, {c}) : !s32i"));
                    self.store(&s, &state);
                    if self.rng.chance(30) {
                        self.call("ev", &s);
                    }
                    return false;
                }
                23..=28 if !deep => {
                    self.if_stmt(ctx);
                    return false;
                }
                29..=31 if !deep => {
                    self.line("cir.scope {");
                    let inner = Ctx {
                        depth: ctx.depth + 1,
                        ..ctx.clone()
                    };
                    self.region(&inner);
                    self.line("}");
                    return false;
                }
                32..=38 if !deep => {
                    self.loop_stmt(ctx);
                    return false;
                }
                39..=41 if ctx.breakable || ctx.in_loop => {
                    // Conditional break or continue.
                    let c = self.cond(ctx);
                    let what = if ctx.in_loop && (!ctx.breakable || self.rng.chance(50)) {
                        "cir.continue"
                    } else {
                        "cir.break"
                    };
                    self.line(&format!("cir.if {c} {{"));
                    self.indent += 1;
                    if self.rng.chance(50) {
                        self.event();
                    }
                    self.line(what);
                    self.indent -= 1;
                    self.line("}");
                    return false;
                }
                42..=43 if !ctx.in_cleanup => {
                    let c = self.cond_with(ctx, true);
                    self.line(&format!("cir.if {c} {{"));
                    self.indent += 1;
                    let v = self.rand_int(100, 50);
                    self.line(&format!("cir.return {v} : !s32i"));
                    self.indent -= 1;
                    self.line("}");
                    return false;
                }
                44 if !deep && !ctx.in_cleanup => {
                    self.array_stmt(ctx);
                    return false;
                }
                45..=47 if !ctx.labels.is_empty() && !ctx.in_cleanup => {
                    self.goto_stmt(ctx);
                    return false;
                }
                48..=51 if !deep && !ctx.in_cleanup => {
                    return self.labeled_stmts(ctx);
                }
                52..=61 if !deep => {
                    self.cleanup_scope(ctx);
                    return false;
                }
                62..=69 | 97..=99 if !deep && !ctx.in_cleanup => {
                    self.try_stmt(ctx);
                    return false;
                }
                70..=74 if !ctx.in_cleanup => {
                    let c = self.cond_with(ctx, true);
                    self.line(&format!("cir.if {c} {{"));
                    self.indent += 1;
                    self.throw();
                    self.indent -= 1;
                    self.line("}");
                    return false;
                }
                75..=77 if ctx.in_handler && !ctx.in_cleanup => {
                    let c = self.cond(ctx);
                    self.line(&format!("cir.if {c} {{"));
                    self.indent += 1;
                    self.event();
                    self.line("cir.throw");
                    self.indent -= 1;
                    self.line("}");
                    return false;
                }
                78..=81 if !deep => {
                    self.switch_stmt(ctx);
                    return false;
                }
                82..=84 => {
                    let c = self.cond(ctx);
                    let a = self.rand_int(0, 9);
                    let b = self.rand_int(10, 9);
                    let t = self.value();
                    self.line(&format!("{t} = cir.ternary({c}, true {{"));
                    self.indent += 1;
                    if self.rng.chance(50) {
                        // The value of a call that may throw.
                        let r = self.value();
                        self.line(&format!("{r} = cir.call @get({a}) : (!s32i) -> !s32i"));
                        self.line(&format!("cir.yield {r} : !s32i"));
                    } else {
                        self.line(&format!("cir.yield {a} : !s32i"));
                    }
                    self.indent -= 1;
                    self.line("}, false {");
                    self.indent += 1;
                    self.line(&format!("cir.yield {b} : !s32i"));
                    self.indent -= 1;
                    self.line("}) : (!cir.bool) -> !s32i");
                    self.call("ev", &t);
                    return false;
                }
                85..=89 if !self.callees.is_empty() => {
                    let callee =
                        self.callees[self.rng.below(self.callees.len() as u64) as usize].clone();
                    let state = self.state.clone();
                    let a = self.load(&state);
                    let r = self.value();
                    self.line(&format!("{r} = cir.call @{callee}({a}) : (!s32i) -> !s32i"));
                    self.store(&r, &state);
                    return false;
                }
                90..=92 if last && !ctx.in_cleanup => {
                    // An unconditional exit ends the region.
                    if ctx.in_loop && self.rng.chance(50) {
                        self.line("cir.continue");
                        return true;
                    }
                    if ctx.breakable {
                        self.line("cir.break");
                        return true;
                    }
                    continue;
                }
                93..=94 if last && !ctx.in_cleanup => {
                    let v = self.rand_int(200, 50);
                    self.line(&format!("cir.return {v} : !s32i"));
                    return true;
                }
                95..=96 if last && !ctx.in_cleanup && ctx.depth > 0 => {
                    self.throw();
                    return true;
                }
                _ => continue,
            }
        }
    }

    fn throw(&mut self) {
        let e = self.value();
        if self.rng.chance(70) {
            self.line(&format!("{e} = cir.alloc.exception 4 -> !cir.ptr<!s32i>"));
            let n = 1000 + self.id() as i64;
            let v = self.int(n);
            self.line(&format!("cir.store {v}, {e} : !s32i, !cir.ptr<!s32i>"));
            self.line(&format!("cir.throw {e} : !cir.ptr<!s32i>, @_ZTIi"));
        } else {
            self.line(&format!(
                "{e} = cir.alloc.exception 4 -> !cir.ptr<!cir.float>"
            ));
            let v = self.value();
            let f = self.rng.below(8) as f64 + 0.5;
            self.line(&format!("{v} = cir.const #cir.fp<{f:?}> : !cir.float"));
            self.line(&format!(
                "cir.store {v}, {e} : !cir.float, !cir.ptr<!cir.float>"
            ));
            self.line(&format!("cir.throw {e} : !cir.ptr<!cir.float>, @_ZTIf"));
        }
    }

    fn if_stmt(&mut self, ctx: &Ctx) {
        let c = self.cond(ctx);
        let inner = Ctx {
            depth: ctx.depth + 1,
            ..ctx.clone()
        };
        self.line(&format!("cir.if {c} {{"));
        self.region(&inner);
        if self.rng.chance(50) {
            self.line("} else {");
            self.region(&inner);
        }
        self.line("}");
    }

    fn loop_stmt(&mut self, ctx: &Ctx) {
        let n = self.next_value;
        let counter = self.alloca(&format!("i{n}"));
        let zero = self.int(0);
        self.store(&zero, &counter);
        let limit = 1 + self.rng.below(3) as i64;
        let mut body_ctx = Ctx {
            depth: ctx.depth + 1,
            in_loop: true,
            breakable: true,
            ..ctx.clone()
        };
        body_ctx.counters.push(counter.clone());
        let cond_lines = |g: &mut Self| {
            g.indent += 1;
            let a = g.load(&counter);
            let l = g.int(limit);
            let c = g.value();
            g.line(&format!("{c} = cir.cmp(lt, {a}, {l}) : !s32i, !cir.bool"));
            g.line(&format!("cir.condition({c})"));
            g.indent -= 1;
        };
        let increment = |g: &mut Self| {
            let a = g.load(&counter);
            let one = g.int(1);
            let s = g.value();
            g.line(&format!("{s} = cir.binop(add, {a}, {one}) : !s32i"));
            g.store(&s, &counter);
        };
        match self.rng.below(3) {
            0 => {
                self.line("cir.for : cond {");
                cond_lines(self);
                self.line("} body {");
                self.region(&body_ctx);
                self.line("} step {");
                self.indent += 1;
                increment(self);
                self.line("cir.yield");
                self.indent -= 1;
                self.line("}");
            }
            kind => {
                // while / do-while: the increment comes first in the body so that
                // `continue` cannot skip it.
                let body = |g: &mut Self| {
                    g.indent += 1;
                    increment(g);
                    g.indent -= 1;
                    g.region(&body_ctx);
                };
                if kind == 1 {
                    self.line("cir.while {");
                    cond_lines(self);
                    self.line("} do {");
                    body(self);
                    self.line("}");
                } else {
                    self.line("cir.do {");
                    body(self);
                    self.line("} while {");
                    cond_lines(self);
                    self.line("}");
                }
            }
        }
    }

    fn switch_stmt(&mut self, ctx: &Ctx) {
        let state = self.state.clone();
        let a = self.load(&state);
        let m = self.int(3);
        let r = self.value();
        self.line(&format!("{r} = cir.binop(rem, {a}, {m}) : !s32i"));
        let inner = Ctx {
            depth: ctx.depth + 1,
            breakable: true,
            ..ctx.clone()
        };
        self.line(&format!("cir.switch ({r} : !s32i) {{"));
        self.indent += 1;
        let ncases = 1 + self.rng.below(3);
        for i in 0..ncases {
            // Case i matches the value i (and values the switch never sees), so the
            // cases are disjoint.
            let head = match self.rng.below(3) {
                0 => format!("equal, [#cir.int<{i}> : !s32i]"),
                1 => format!(
                    "anyof, [#cir.int<{}> : !s32i, #cir.int<{i}> : !s32i]",
                    i + 3
                ),
                _ => format!("range, [#cir.int<{i}> : !s32i, #cir.int<{i}> : !s32i]"),
            };
            self.line(&format!("cir.case ({head}) {{"));
            self.indent += 1;
            let ended = self.stmts(&inner);
            if !ended {
                let exit = if self.rng.chance(60) {
                    "cir.break"
                } else {
                    "cir.yield"
                };
                self.line(exit);
            }
            self.indent -= 1;
            self.line("}");
        }
        if self.rng.chance(50) {
            self.line("cir.case (default, []) {");
            self.indent += 1;
            if !self.stmts(&inner) {
                self.line("cir.yield");
            }
            self.indent -= 1;
            self.line("}");
        }
        self.line("cir.yield");
        self.indent -= 1;
        self.line("}");
    }

    fn goto_stmt(&mut self, ctx: &Ctx) {
        let (label, counter) = ctx.labels[self.rng.below(ctx.labels.len() as u64) as usize].clone();
        let c = self.cond(ctx);
        self.line(&format!("cir.if {c} {{"));
        self.indent += 1;
        match counter {
            // A backward goto: taken at most twice.
            Some(slot) => {
                let a = self.load(&slot);
                let two = self.int(2);
                let lt = self.value();
                self.line(&format!(
                    "{lt} = cir.cmp(lt, {a}, {two}) : !s32i, !cir.bool"
                ));
                self.line(&format!("cir.if {lt} {{"));
                self.indent += 1;
                let one = self.int(1);
                let s = self.value();
                self.line(&format!("{s} = cir.binop(add, {a}, {one}) : !s32i"));
                self.store(&s, &slot);
                self.event();
                self.line(&format!("cir.goto \"{label}\""));
                self.indent -= 1;
                self.line("}");
            }
            None => {
                self.event();
                self.line(&format!("cir.goto \"{label}\""));
            }
        }
        self.indent -= 1;
        self.line("}");
    }

    /// A label in the current region, with statements that may jump to it: forward (the
    /// label follows them) or backward (the label precedes them). Returns whether the
    /// statements ended with a terminator.
    fn labeled_stmts(&mut self, ctx: &Ctx) -> bool {
        let name = format!("L{}", self.next_label);
        self.next_label += 1;
        let block = format!("^g{}", self.next_block);
        self.next_block += 1;
        let mut inner = ctx.clone();
        if self.rng.chance(50) {
            // Forward.
            inner.labels.push((name.clone(), None));
            inner.depth += 1;
            if !self.stmts(&inner) {
                self.line(&format!("cir.br {block}"));
            }
            self.out
                .push_str(&format!("{}{block}:\n", "  ".repeat(self.indent - 1)));
            self.line(&format!("cir.label \"{name}\""));
            self.event();
            false
        } else {
            let n = self.next_value;
            let counter = self.alloca(&format!("g{n}"));
            let zero = self.int(0);
            self.store(&zero, &counter);
            self.line(&format!("cir.br {block}"));
            self.out
                .push_str(&format!("{}{block}:\n", "  ".repeat(self.indent - 1)));
            self.line(&format!("cir.label \"{name}\""));
            self.event();
            inner.labels.push((name, Some(counter)));
            inner.depth += 1;
            self.stmts(&inner)
        }
    }

    /// An array of class objects: `cir.array.ctor` (with its partial-destruction
    /// region), then a cleanup scope whose cleanup destroys the array with
    /// `cir.array.dtor`, as a front end emits `E a[N]; ...`.
    fn array_stmt(&mut self, ctx: &Ctx) {
        let n = 1 + self.rng.below(4);
        let id = self.id();
        let ty = format!("!cir.array<!rec_E x {n}>");
        let a = self.value();
        self.line(&format!(
            "{a} = cir.alloca {ty}, !cir.ptr<{ty}>, [\"a{id}\", init]"
        ));
        let element_call = |g: &mut Self, callee: &str| {
            let b = g.next_block;
            g.next_block += 1;
            let e = g.value();
            g.line(&format!("^bb{b}({e}: !cir.ptr<!rec_E>):"));
            g.indent += 1;
            g.line(&format!(
                "cir.call @{callee}({e}) : (!cir.ptr<!rec_E>) -> ()"
            ));
            g.line("cir.yield");
            g.indent -= 1;
        };
        self.line(&format!("cir.array.ctor({a} : !cir.ptr<{ty}>) {{"));
        element_call(self, "elem_ctor");
        if self.rng.chance(80) {
            self.line("} cleanup {");
            element_call(self, "elem_dtor");
        }
        self.line("}");
        self.line("cir.cleanup.scope {");
        let inner = Ctx {
            depth: ctx.depth + 1,
            ..ctx.clone()
        };
        self.region(&inner);
        self.line("} cleanup all {");
        self.indent += 1;
        self.line(&format!("cir.array.dtor({a} : !cir.ptr<{ty}>) {{"));
        element_call(self, "elem_dtor");
        self.line("}");
        self.line("cir.yield");
        self.indent -= 1;
        self.line("}");
    }

    fn cleanup_scope(&mut self, ctx: &Ctx) {
        let kind = ["normal", "eh", "all"][self.rng.below(3) as usize];
        self.line("cir.cleanup.scope {");
        let inner = Ctx {
            depth: ctx.depth + 1,
            ..ctx.clone()
        };
        self.region(&inner);
        self.line(&format!("}} cleanup {kind} {{"));
        self.indent += 1;
        let id = self.id();
        let k = self.int(id as i64);
        self.call("dtor", &k);
        if self.rng.chance(25) && ctx.depth + 1 < self.cfg.max_depth {
            // Structured code inside the cleanup itself.
            let cleanup_ctx = Ctx {
                depth: ctx.depth + 1,
                in_loop: false,
                breakable: false,
                in_cleanup: true,
                in_handler: false,
                labels: Vec::new(),
                counters: ctx.counters.clone(),
                in_filter: ctx.in_filter,
            };
            self.stmt(&cleanup_ctx, false);
        }
        if kind == "eh" && self.rng.chance(50) {
            self.line("cir.resume");
        } else {
            self.line("cir.yield");
        }
        self.indent -= 1;
        self.line("}");
    }

    fn try_stmt(&mut self, ctx: &Ctx) {
        // Occasionally a noexcept boundary or an exception specification.
        let special = self.rng.below(100);
        let filter = (5..10).contains(&special) && !ctx.in_filter;
        let inner = Ctx {
            depth: ctx.depth + 1,
            in_filter: ctx.in_filter || filter,
            ..ctx.clone()
        };
        self.line("cir.try {");
        self.region(&inner);
        if special < 5 {
            self.line("} terminate {");
            self.indent += 1;
            self.line("cir.unreachable");
            self.indent -= 1;
            self.line("}");
            return;
        }
        if filter {
            let types = if self.rng.chance(50) {
                "[#cir.global_view<@_ZTIi> : !cir.ptr<!u8i>]"
            } else {
                "[]"
            };
            self.line(&format!("}} filter {types} {{"));
            self.indent += 1;
            self.line("cir.unreachable");
            self.indent -= 1;
            self.line("}");
            return;
        }
        let handler_ctx = Ctx {
            in_handler: true,
            ..inner.clone()
        };
        let mut any = false;
        if self.rng.chance(30) {
            self.line("} catch [type #cir.global_view<@_ZTIf> : !cir.ptr<!u8i>] {");
            self.indent += 1;
            let p = self.value();
            self.line(&format!("{p} = cir.catch_param : !cir.ptr<!cir.float>"));
            let id = self.id();
            let k = self.int(id as i64);
            self.call("caught_float", &k);
            self.indent -= 1;
            self.region(&handler_ctx);
            any = true;
        }
        if !any || self.rng.chance(60) {
            self.line("} catch [type #cir.global_view<@_ZTIi> : !cir.ptr<!u8i>] {");
            self.indent += 1;
            let p = self.value();
            self.line(&format!("{p} = cir.catch_param : !cir.ptr<!s32i>"));
            let v = self.value();
            self.line(&format!("{v} = cir.load {p} : !cir.ptr<!s32i>, !s32i"));
            self.call("caught", &v);
            self.indent -= 1;
            self.region(&handler_ctx);
        }
        match self.rng.below(3) {
            0 => {
                if self.rng.chance(30) {
                    // A handler region that takes the exception's token.
                    let t = self.value();
                    self.line(&format!("}} catch all ({t} : !cir.eh_token) {{"));
                } else {
                    self.line("} catch all {");
                }
                self.indent += 1;
                let p = self.value();
                self.line(&format!("{p} = cir.catch_param : !cir.ptr<!void>"));
                let id = self.id();
                let k = self.int(id as i64);
                self.call("caught_all", &k);
                self.indent -= 1;
                self.region(&handler_ctx);
            }
            1 => {
                self.line("} unwind {");
                self.indent += 1;
                self.line("cir.resume");
                self.indent -= 1;
            }
            _ => {}
        }
        self.line("}");
    }
}

/// A function nested `depth` `cir.scope`s deep, with a call and a cleanup scope at the
/// bottom (the deep-nesting stress test).
pub fn deep_scopes(depth: usize) -> String {
    nested_function(
        "deep",
        depth,
        "cir.scope {\n",
        "cir.cleanup.scope {\ncir.call @ev(%0) : (!s32i) -> ()\ncir.yield\n} cleanup all {\ncir.call @dtor(%0) : (!s32i) -> ()\ncir.yield\n}\n",
        |s, _| s.push_str("cir.yield\n}\n"),
    )
}

/// A function nested `depth` cleanup scopes deep (each `all`, with a call in its body and
/// a `break`-free loop around the innermost), for the deep-nesting test of EH chains.
pub fn deep_cleanups(depth: usize) -> String {
    nested_function(
        "deep_cleanups",
        depth,
        "cir.cleanup.scope {\ncir.call @ev(%0) : (!s32i) -> ()\n",
        "cir.call @ev(%0) : (!s32i) -> ()\n",
        |s, _| {
            s.push_str(
                "cir.yield\n} cleanup all {\ncir.call @dtor(%0) : (!s32i) -> ()\ncir.yield\n}\n",
            )
        },
    )
}

/// A function nested `depth` `cir.try`s deep, each with a call in its body, a handler for
/// `int` and (every other level) a catch-all, for the deep-nesting scaling benchmark of
/// dispatch chains.
pub fn deep_trys(depth: usize) -> String {
    nested_function(
        "deep_trys",
        depth,
        "cir.try {\ncir.call @ev(%0) : (!s32i) -> ()\n",
        "cir.call @ev(%0) : (!s32i) -> ()\n",
        |s, level| {
            s.push_str("cir.yield\n} catch [type #cir.global_view<@_ZTIi> : !cir.ptr<!u8i>] {\n");
            let _ = writeln!(s, "%p{level} = cir.catch_param : !cir.ptr<!s32i>");
            s.push_str("cir.call @caught(%0) : (!s32i) -> ()\ncir.yield\n");
            if level % 2 == 1 {
                let _ = writeln!(
                    s,
                    "}} catch all {{\n%q{level} = cir.catch_param : !cir.ptr<!void>"
                );
                s.push_str("cir.call @caught_all(%0) : (!s32i) -> ()\ncir.yield\n");
            }
            s.push_str("}\n");
        },
    )
}

/// The module of one function `@name` that opens `depth` constructs with `open`, holds
/// `innermost` inside them all, then closes them with `close(text, level)`, innermost
/// (level 0) first. `%0`, the `!s32i` 1, is defined before the first.
fn nested_function(
    name: &str,
    depth: usize,
    open: &str,
    innermost: &str,
    mut close: impl FnMut(&mut String, usize),
) -> String {
    let mut s = String::from(PROLOGUE);
    let _ = writeln!(s, "cir.func @{name}() {{");
    s.push_str("  %0 = cir.const #cir.int<1> : !s32i\n");
    for _ in 0..depth {
        s.push_str(open);
    }
    s.push_str(innermost);
    for level in 0..depth {
        close(&mut s, level);
    }
    s.push_str("  cir.return\n}\n");
    s
}

/// A module of `count` small functions (the width scaling benchmark): each has a cleanup
/// scope around a `try` with a typed and a catch-all handler, and calls the next one, so
/// every stage (lowering, emission, tables, interpretation) has work in each. `@main`
/// calls the first.
pub fn many_functions(count: usize) -> String {
    let mut s = String::from(PROLOGUE);
    for i in 0..count {
        let _ = writeln!(s, "cir.func @f{i}(%arg0: !s32i) {{");
        s.push_str("cir.cleanup.scope {\ncir.try {\ncir.call @ev(%arg0) : (!s32i) -> ()\n");
        if i + 1 < count {
            let _ = writeln!(s, "cir.call @f{}(%arg0) : (!s32i) -> ()", i + 1);
        }
        s.push_str("cir.yield\n} catch [type #cir.global_view<@_ZTIi> : !cir.ptr<!u8i>] {\n");
        s.push_str(
            "%p = cir.catch_param : !cir.ptr<!s32i>\n%v = cir.load %p : !cir.ptr<!s32i>, !s32i\n",
        );
        s.push_str("cir.call @caught(%v) : (!s32i) -> ()\ncir.yield\n} catch all {\n");
        s.push_str("%q = cir.catch_param : !cir.ptr<!void>\ncir.call @caught_all(%arg0) : (!s32i) -> ()\ncir.yield\n}\n");
        s.push_str("cir.yield\n} cleanup all {\ncir.call @dtor(%arg0) : (!s32i) -> ()\ncir.yield\n}\ncir.return\n}\n");
    }
    s.push_str("cir.func @main() -> !s32i {\n%0 = cir.const #cir.int<1> : !s32i\n");
    if count > 0 {
        s.push_str("cir.call @f0(%0) : (!s32i) -> ()\n");
    }
    s.push_str("%r = cir.const #cir.int<0> : !s32i\ncir.return %r : !s32i\n}\n");
    s
}

/// The benchmark workload: one function of `units` statement groups, each nested `depth`
/// levels deep (alternating `cir.scope`, `cir.if`, loops, cleanup scopes and trys), so that
/// both size and nesting can be scaled. Returns CIR text.
pub fn bench_function(units: usize, depth: usize) -> String {
    let mut g = String::from(PROLOGUE);
    let _ = writeln!(g, "cir.func @bench(%arg0: !s32i) -> !s32i {{");
    let _ = writeln!(g, "  %x = cir.alloca !s32i, !cir.ptr<!s32i>, [\"x\", init]");
    let _ = writeln!(g, "  cir.store %arg0, %x : !s32i, !cir.ptr<!s32i>");
    let mut v = 0usize;
    for u in 0..units {
        let mut closers = Vec::new();
        for d in 0..depth {
            match (u + d) % 5 {
                0 => {
                    let _ = writeln!(g, "cir.scope {{");
                    closers.push("cir.yield\n}\n".to_string());
                }
                1 => {
                    let _ = writeln!(g, "%a{v} = cir.load %x : !cir.ptr<!s32i>, !s32i");
                    let _ = writeln!(g, "%b{v} = cir.const #cir.int<{d}> : !s32i");
                    let _ = writeln!(g, "%c{v} = cir.cmp(gt, %a{v}, %b{v}) : !s32i, !cir.bool");
                    let _ = writeln!(g, "cir.if %c{v} {{");
                    closers.push("cir.yield\n}\n".to_string());
                    v += 1;
                }
                2 => {
                    let _ = writeln!(g, "cir.cleanup.scope {{");
                    closers.push(format!(
                        "cir.yield\n}} cleanup all {{\n%d{v} = cir.const #cir.int<{u}> : !s32i\ncir.call @dtor(%d{v}) : (!s32i) -> ()\ncir.yield\n}}\n"
                    ));
                    v += 1;
                }
                3 => {
                    let _ = writeln!(g, "cir.while {{");
                    let _ = writeln!(g, "%a{v} = cir.load %x : !cir.ptr<!s32i>, !s32i");
                    let _ = writeln!(g, "%b{v} = cir.const #cir.int<{u}> : !s32i");
                    let _ = writeln!(g, "%c{v} = cir.cmp(lt, %a{v}, %b{v}) : !s32i, !cir.bool");
                    let _ = writeln!(g, "cir.condition(%c{v})");
                    let _ = writeln!(g, "}} do {{");
                    let _ = writeln!(g, "%e{v} = cir.load %x : !cir.ptr<!s32i>, !s32i");
                    let _ = writeln!(g, "%f{v} = cir.const #cir.int<1> : !s32i");
                    let _ = writeln!(g, "%h{v} = cir.binop(add, %e{v}, %f{v}) : !s32i");
                    let _ = writeln!(g, "cir.store %h{v}, %x : !s32i, !cir.ptr<!s32i>");
                    closers.push("cir.yield\n}\n".to_string());
                    v += 1;
                }
                _ => {
                    let _ = writeln!(g, "cir.try {{");
                    closers.push(format!(
                        "cir.yield\n}} catch all {{\n%p{v} = cir.catch_param : !cir.ptr<!void>\ncir.yield\n}}\n"
                    ));
                    v += 1;
                }
            }
        }
        let _ = writeln!(g, "%k{v} = cir.const #cir.int<{u}> : !s32i");
        let _ = writeln!(g, "cir.call @ev(%k{v}) : (!s32i) -> ()");
        v += 1;
        for c in closers.into_iter().rev() {
            g.push_str(&c);
        }
    }
    let _ = writeln!(g, "  %r = cir.load %x : !cir.ptr<!s32i>, !s32i");
    let _ = writeln!(g, "  cir.return %r : !s32i");
    let _ = writeln!(g, "}}");
    g
}

/// The MLIR twin of [`bench_function`] for the `mlir-opt --convert-scf-to-cf` comparison:
/// the same nesting and the same number of ops, with `scf.execute_region` standing for
/// `cir.scope`, cleanup scopes and trys (MLIR has no EH constructs), `scf.if`,
/// `scf.while`, and `memref`/`arith`/`func.call` for loads, stores, constants, compares
/// and calls. Returns (MLIR text, op count); [`bench_function_op_count`] counts the CIR.
pub fn bench_function_mlir(units: usize, depth: usize) -> (String, usize) {
    let mut g = String::new();
    let mut ops = 0usize;
    let _ = writeln!(g, "func.func private @ev(i32)");
    let _ = writeln!(g, "func.func private @dtor(i32)");
    let _ = writeln!(g, "func.func @bench(%arg0: i32) -> i32 {{");
    let _ = writeln!(g, "  %x = memref.alloca() : memref<i32>");
    let _ = writeln!(g, "  memref.store %arg0, %x[] : memref<i32>");
    ops += 3;
    let mut v = 0usize;
    for u in 0..units {
        let mut closers = Vec::new();
        for d in 0..depth {
            match (u + d) % 5 {
                0 | 4 => {
                    let _ = writeln!(g, "scf.execute_region {{");
                    closers.push(("scf.yield\n}\n".to_string(), 2));
                    ops += 0;
                }
                1 => {
                    let _ = writeln!(g, "%a{v} = memref.load %x[] : memref<i32>");
                    let _ = writeln!(g, "%b{v} = arith.constant {d} : i32");
                    let _ = writeln!(g, "%c{v} = arith.cmpi sgt, %a{v}, %b{v} : i32");
                    let _ = writeln!(g, "scf.if %c{v} {{");
                    closers.push(("scf.yield\n}\n".to_string(), 2));
                    ops += 3;
                    v += 1;
                }
                2 => {
                    let _ = writeln!(g, "scf.execute_region {{");
                    closers.push((
                        format!(
                            "scf.yield\n}}\n%d{v} = arith.constant {u} : i32\nfunc.call @dtor(%d{v}) : (i32) -> ()\n"
                        ),
                        4,
                    ));
                    v += 1;
                }
                _ => {
                    let _ = writeln!(g, "scf.while : () -> () {{");
                    let _ = writeln!(g, "%a{v} = memref.load %x[] : memref<i32>");
                    let _ = writeln!(g, "%b{v} = arith.constant {u} : i32");
                    let _ = writeln!(g, "%c{v} = arith.cmpi slt, %a{v}, %b{v} : i32");
                    let _ = writeln!(g, "scf.condition(%c{v})");
                    let _ = writeln!(g, "}} do {{");
                    let _ = writeln!(g, "%e{v} = memref.load %x[] : memref<i32>");
                    let _ = writeln!(g, "%f{v} = arith.constant 1 : i32");
                    let _ = writeln!(g, "%h{v} = arith.addi %e{v}, %f{v} : i32");
                    let _ = writeln!(g, "memref.store %h{v}, %x[] : memref<i32>");
                    closers.push(("scf.yield\n}\n".to_string(), 2));
                    ops += 8;
                    v += 1;
                }
            }
        }
        let _ = writeln!(g, "%k{v} = arith.constant {u} : i32");
        let _ = writeln!(g, "func.call @ev(%k{v}) : (i32) -> ()");
        ops += 2;
        v += 1;
        for (c, n) in closers.into_iter().rev() {
            g.push_str(&c);
            ops += n;
        }
    }
    let _ = writeln!(g, "  %r = memref.load %x[] : memref<i32>");
    let _ = writeln!(g, "  func.return %r : i32");
    let _ = writeln!(g, "}}");
    ops += 2;
    (g, ops)
}

/// The number of ops of [`bench_function`]`(units, depth)` (the function's own ops,
/// without the external declarations).
pub fn bench_function_op_count(units: usize, depth: usize) -> usize {
    let mut ops = 5; // alloca, store, load, return, the function
    for u in 0..units {
        for d in 0..depth {
            ops += match (u + d) % 5 {
                0 => 2,  // scope, yield
                1 => 5,  // load, const, cmp, if, yield
                2 => 5,  // cleanup.scope, yield, const, call, yield
                3 => 10, // while, load, const, cmp, condition, load, const, add, store, yield
                _ => 4,  // try, yield, catch_param, yield
            };
        }
        ops += 2;
    }
    ops
}

/// How many nested `cir.if`s the loop body of each [`eh_workload`] function holds.
pub const EH_WORKLOAD_IF_DEPTH: usize = 6;

/// The EH-shaped workload of the pipeline benchmark (`bench/compare-eh-pipeline.sh`):
/// `functions` functions, each a `cir.while` loop whose body is a `cir.cleanup.scope`
/// (its cleanup calls `@dtor`) around [`EH_WORKLOAD_IF_DEPTH`] nested `cir.if`s; every
/// level loads, calls `@ev` (inside a `cir.try` with a catch-all handler at even levels)
/// and compares. Returns the CIR text and its op count (every op, terminators and the
/// function ops included, the external declarations too).
pub fn eh_workload(functions: usize) -> (String, usize) {
    let mut g = String::with_capacity(functions * 2600 + 256);
    g.push_str("cir.func @ev(!s32i)\ncir.func @dtor(!s32i)\n");
    let mut ops = 2;
    for i in 0..functions {
        let _ = writeln!(g, "cir.func @f{i}(%arg0: !s32i) -> !s32i {{");
        g.push_str("  %x = cir.alloca !s32i, !cir.ptr<!s32i>, [\"x\", init]\n");
        g.push_str("  cir.store %arg0, %x : !s32i, !cir.ptr<!s32i>\n");
        g.push_str("  cir.while {\n");
        g.push_str("    %a = cir.load %x : !cir.ptr<!s32i>, !s32i\n");
        g.push_str("    %n = cir.const #cir.int<100> : !s32i\n");
        g.push_str("    %c = cir.cmp(lt, %a, %n) : !s32i, !cir.bool\n");
        g.push_str("    cir.condition(%c)\n");
        g.push_str("  } do {\n");
        g.push_str("    cir.cleanup.scope {\n");
        ops += 10; // func, alloca, store, while, load, const, cmp, condition, scope, return
        for d in 0..EH_WORKLOAD_IF_DEPTH {
            let _ = writeln!(g, "      %l{d} = cir.load %x : !cir.ptr<!s32i>, !s32i");
            let _ = writeln!(g, "      %k{d} = cir.const #cir.int<{d}> : !s32i");
            if d % 2 == 0 {
                g.push_str("      cir.try {\n");
                let _ = writeln!(g, "        cir.call @ev(%k{d}) : (!s32i) -> ()");
                g.push_str("        cir.yield\n      } catch all {\n");
                let _ = writeln!(g, "        %p{d} = cir.catch_param : !cir.ptr<!void>");
                g.push_str("        cir.yield\n      }\n");
                ops += 5; // try, call, yield, catch_param, yield
            } else {
                let _ = writeln!(g, "      cir.call @ev(%k{d}) : (!s32i) -> ()");
                ops += 1;
            }
            let _ = writeln!(
                g,
                "      %c{d} = cir.cmp(gt, %l{d}, %k{d}) : !s32i, !cir.bool"
            );
            let _ = writeln!(g, "      cir.if %c{d} {{");
            ops += 5; // load, const, cmp, if, its yield
        }
        for _ in 0..EH_WORKLOAD_IF_DEPTH {
            g.push_str("      cir.yield\n      }\n");
        }
        g.push_str("      %e = cir.load %x : !cir.ptr<!s32i>, !s32i\n");
        g.push_str("      %one = cir.const #cir.int<1> : !s32i\n");
        g.push_str("      %h = cir.binop(add, %e, %one) : !s32i\n");
        g.push_str("      cir.store %h, %x : !s32i, !cir.ptr<!s32i>\n");
        g.push_str("      cir.yield\n    } cleanup all {\n");
        let _ = writeln!(g, "      %dk = cir.const #cir.int<{}> : !s32i", i % 1000);
        g.push_str("      cir.call @dtor(%dk) : (!s32i) -> ()\n");
        g.push_str("      cir.yield\n    }\n    cir.yield\n  }\n");
        g.push_str("  %r = cir.load %x : !cir.ptr<!s32i>, !s32i\n");
        g.push_str("  cir.return %r : !s32i\n}\n");
        ops += 4 + 1 + 3 + 1 + 1; // increment, body yield, cleanup, loop yield, final load
    }
    (g, ops)
}

/// The MLIR twin of [`eh_workload`] for `mlir-opt --convert-scf-to-cf`: the same loops
/// (`scf.while`), nesting (`scf.if`) and calls (`func.call`), with `scf.execute_region`
/// standing for the cleanup scope and the trys (MLIR has no EH constructs; the cleanup
/// call follows the region). Returns the MLIR text and its op count, counted as
/// [`eh_workload`] counts.
pub fn eh_workload_mlir(functions: usize) -> (String, usize) {
    let mut g = String::with_capacity(functions * 2200 + 256);
    g.push_str("func.func private @ev(i32)\nfunc.func private @dtor(i32)\n");
    let mut ops = 2;
    for i in 0..functions {
        let _ = writeln!(g, "func.func @f{i}(%arg0: i32) -> i32 {{");
        g.push_str("  %x = memref.alloca() : memref<i32>\n");
        g.push_str("  memref.store %arg0, %x[] : memref<i32>\n");
        g.push_str("  scf.while : () -> () {\n");
        g.push_str("    %a = memref.load %x[] : memref<i32>\n");
        g.push_str("    %n = arith.constant 100 : i32\n");
        g.push_str("    %c = arith.cmpi slt, %a, %n : i32\n");
        g.push_str("    scf.condition(%c)\n");
        g.push_str("  } do {\n");
        g.push_str("    scf.execute_region {\n");
        ops += 10;
        for d in 0..EH_WORKLOAD_IF_DEPTH {
            let _ = writeln!(g, "      %l{d} = memref.load %x[] : memref<i32>");
            let _ = writeln!(g, "      %k{d} = arith.constant {d} : i32");
            if d % 2 == 0 {
                g.push_str("      scf.execute_region {\n");
                let _ = writeln!(g, "        func.call @ev(%k{d}) : (i32) -> ()");
                g.push_str("        scf.yield\n      }\n");
                ops += 3;
            } else {
                let _ = writeln!(g, "      func.call @ev(%k{d}) : (i32) -> ()");
                ops += 1;
            }
            let _ = writeln!(g, "      %c{d} = arith.cmpi sgt, %l{d}, %k{d} : i32");
            let _ = writeln!(g, "      scf.if %c{d} {{");
            ops += 5;
        }
        for _ in 0..EH_WORKLOAD_IF_DEPTH {
            g.push_str("      scf.yield\n      }\n");
        }
        g.push_str("      %e = memref.load %x[] : memref<i32>\n");
        g.push_str("      %one = arith.constant 1 : i32\n");
        g.push_str("      %h = arith.addi %e, %one : i32\n");
        g.push_str("      memref.store %h, %x[] : memref<i32>\n");
        g.push_str("      scf.yield\n    }\n");
        let _ = writeln!(g, "    %dk = arith.constant {} : i32", i % 1000);
        g.push_str("    func.call @dtor(%dk) : (i32) -> ()\n");
        g.push_str("    scf.yield\n  }\n");
        g.push_str("  %r = memref.load %x[] : memref<i32>\n");
        g.push_str("  func.return %r : i32\n}\n");
        ops += 4 + 1 + 2 + 1 + 1;
    }
    (g, ops)
}

/// The structured module of the reader's heap and throughput tests and the
/// `opt_throughput` benchmark: `units` × 13 ops in functions of 100 units, plus the
/// function op and the return of each function. The CIR text and its op count.
pub fn structured_workload(units: usize) -> (String, usize) {
    let mut s = String::new();
    let mut ops = 0;
    let per_func = 100;
    for f in 0..units.div_ceil(per_func) {
        let _ = writeln!(s, "cir.func @f{f}(%arg0: !cir.ptr<!s32i>) {{");
        ops += 1;
        for u in 0..per_func.min(units - f * per_func) {
            let _ = write!(
                s,
                "  cir.scope {{
    %a{u} = cir.load %arg0 : !cir.ptr<!s32i>, !s32i
    %b{u} = cir.const #cir.int<{u}> : !s32i
    %c{u} = cir.cmp(eq, %a{u}, %b{u}) : !s32i, !cir.bool
    cir.if %c{u} {{
      cir.call @g(%a{u}) : (!s32i) -> ()
      cir.yield
    }}
    cir.cleanup.scope {{
      cir.call @h() : () -> ()
      cir.yield
    }} cleanup all {{
      cir.call @d() nothrow : () -> ()
      cir.yield
    }}
    cir.yield
  }}
"
            );
            ops += 13;
        }
        s.push_str("  cir.return\n}\n");
        ops += 1;
    }
    (s, ops)
}
