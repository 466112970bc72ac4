//! toylang: a small non-C++ front end on `ehir-builder`. The language has `int` values,
//! functions, `var`, `if`/`else`, `while` with `break`/`continue`, `defer` (runs when the
//! enclosing block is left, normally or by an exception), `errdefer` (only when an
//! exception leaves it), `throw N`, `try { } catch e { }` of integers and `throw;`
//! (rethrow). Calls of undefined functions (`probe`) are external; `print(x)` is
//! `printf("%d\n", x)`.
//!
//! Each sample program is built into a module, run by the interpreter at every phase
//! (structured, flat, itanium, msvc), and with `--native` compiled with LLVM 19 and g++
//! and run natively. `--throw-at N:V` makes the Nth call of `probe` throw the int V (the
//! interpreter's `@probe#N=int:V`; natively a small C++ runtime linked in does it).
//!
//! Run: `cargo run -p ehir-builder --example toylang -- [--native] [--throw-at 2:7]`

use ehir_builder::{BuilderError, BuiltinType, CatchKind, FunctionBuilder, ModuleBuilder, Value};
use ehir_core::{BinaryOp, CallFlags, CastKind, CleanupKind, CmpPredicate, Loc, Module, Phase};
use std::collections::HashMap;

/// The sample programs: (name, source).
const PROGRAMS: &[(&str, &str)] = &[
    (
        "loops",
        "fn work(n) { defer print(100 + n); if n == 3 { throw 7; } return n * 2; }
         fn main() {
           var total = 0; var i = 0;
           while i < 6 {
             defer print(i);
             try { total = total + work(i); }
             catch e { print(1000 + e); if e == 7 { break; } }
             i = i + 1;
           }
           print(total);
           return 0;
         }",
    ),
    (
        "rethrow",
        "fn risky(x) { errdefer print(0 - x); var r = probe(x); if r > 0 { throw r; } return x + 1; }
         fn middle(x) {
           defer print(200);
           try { return risky(x); }
           catch e { print(e); if e > 5 { throw; } return 0; }
         }
         fn main() {
           var i = 0; var sum = 0;
           while 1 {
             i = i + 1;
             if i > 4 { break; }
             if i == 3 { continue; }
             try { sum = sum + middle(i); } catch e { print(5000 + e); }
           }
           print(sum);
           return sum;
         }",
    ),
];

// ---- syntax ---------------------------------------------------------------------------

/// An expression.
#[derive(Clone, Debug)]
enum Expr {
    Int(i128),
    Var(String, Loc),
    Binary(char, Box<Expr>, Box<Expr>),
    Compare(CmpPredicate, Box<Expr>, Box<Expr>),
    Call(String, Vec<Expr>, Loc),
}

/// A statement.
#[derive(Clone, Debug)]
enum Stmt {
    Var(String, Expr),
    Assign(String, Expr, Loc),
    Print(Expr),
    Expr(Expr),
    Defer(CleanupKind, Box<Stmt>),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    While(Expr, Vec<Stmt>),
    Break,
    Continue,
    Return(Expr),
    Throw(Option<Expr>),
    Try(Vec<Stmt>, String, Vec<Stmt>),
    Block(Vec<Stmt>),
}

/// A function: name, parameters, body.
type FnDef = (String, Vec<String>, Vec<Stmt>);

/// A front-end error: a byte offset into the source and a message.
#[derive(Debug)]
struct ToyError(Loc, String);

impl From<BuilderError> for ToyError {
    fn from(e: BuilderError) -> Self {
        ToyError(e.loc, e.to_string())
    }
}

/// A recursive-descent parser over whitespace-separated tokens.
struct Parser<'s> {
    tokens: Vec<(&'s str, usize)>,
    next: usize,
}

impl<'s> Parser<'s> {
    fn new(text: &'s str) -> Self {
        let mut tokens = Vec::new();
        let mut chars = text.char_indices().peekable();
        while let Some(&(start, c)) = chars.peek() {
            let len = if c.is_whitespace() {
                chars.next();
                continue;
            } else if c.is_alphanumeric() || c == '_' {
                text[start..]
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(text.len() - start)
            } else if text[start..].starts_with("==") || text[start..].starts_with("!=") {
                2
            } else {
                c.len_utf8()
            };
            tokens.push((&text[start..start + len], start));
            while chars.peek().is_some_and(|&(i, _)| i < start + len) {
                chars.next();
            }
        }
        Parser { tokens, next: 0 }
    }

    fn loc(&self) -> Loc {
        Loc(self.tokens.get(self.next).map_or(0, |t| t.1) as u32)
    }

    fn peek(&self) -> &'s str {
        self.tokens.get(self.next).map_or("", |t| t.0)
    }

    fn bump(&mut self) -> &'s str {
        let token = self.peek();
        self.next += 1;
        token
    }

    fn eat(&mut self, token: &str) -> bool {
        let found = self.peek() == token;
        self.next += found as usize;
        found
    }

    fn expect(&mut self, token: &str) -> Result<(), ToyError> {
        if self.eat(token) {
            return Ok(());
        }
        Err(ToyError(
            self.loc(),
            format!("expected '{token}', found '{}'", self.peek()),
        ))
    }

    fn ident(&mut self) -> Result<String, ToyError> {
        let token = self.peek();
        if token.starts_with(|c: char| c.is_alphabetic() || c == '_') {
            self.next += 1;
            return Ok(token.to_string());
        }
        Err(ToyError(
            self.loc(),
            format!("expected a name, found '{token}'"),
        ))
    }

    fn program(&mut self) -> Result<Vec<FnDef>, ToyError> {
        let mut fns = Vec::new();
        while !self.peek().is_empty() {
            self.expect("fn")?;
            let name = self.ident()?;
            self.expect("(")?;
            let mut params = Vec::new();
            while !self.eat(")") {
                params.push(self.ident()?);
                self.eat(",");
            }
            fns.push((name, params, self.block()?));
        }
        Ok(fns)
    }

    fn block(&mut self) -> Result<Vec<Stmt>, ToyError> {
        self.expect("{")?;
        let mut stmts = Vec::new();
        while !self.eat("}") {
            stmts.push(self.stmt()?);
        }
        Ok(stmts)
    }

    fn stmt(&mut self) -> Result<Stmt, ToyError> {
        let loc = self.loc();
        let stmt = match self.bump() {
            "var" => {
                let name = self.ident()?;
                self.expect("=")?;
                Stmt::Var(name, self.expr()?)
            }
            "print" => Stmt::Print(self.expr()?),
            "defer" => return Ok(Stmt::Defer(CleanupKind::All, Box::new(self.stmt()?))),
            "errdefer" => return Ok(Stmt::Defer(CleanupKind::Eh, Box::new(self.stmt()?))),
            "if" => {
                let cond = self.expr()?;
                let then_body = self.block()?;
                let else_body = if self.eat("else") {
                    self.block()?
                } else {
                    Vec::new()
                };
                return Ok(Stmt::If(cond, then_body, else_body));
            }
            "while" => return Ok(Stmt::While(self.expr()?, self.block()?)),
            "try" => {
                let body = self.block()?;
                self.expect("catch")?;
                let name = self.ident()?;
                return Ok(Stmt::Try(body, name, self.block()?));
            }
            "{" => {
                self.next -= 1;
                return Ok(Stmt::Block(self.block()?));
            }
            "break" => Stmt::Break,
            "continue" => Stmt::Continue,
            "return" => Stmt::Return(self.expr()?),
            "throw" if self.peek() == ";" => Stmt::Throw(None),
            "throw" => Stmt::Throw(Some(self.expr()?)),
            _ if self.peek() == "=" => {
                self.next -= 1;
                let name = self.ident()?;
                self.expect("=")?;
                Stmt::Assign(name, self.expr()?, loc)
            }
            _ => {
                self.next -= 1;
                Stmt::Expr(self.expr()?)
            }
        };
        self.expect(";")?;
        Ok(stmt)
    }

    fn expr(&mut self) -> Result<Expr, ToyError> {
        let lhs = self.sum()?;
        let pred = match self.peek() {
            "<" => CmpPredicate::Lt,
            ">" => CmpPredicate::Gt,
            "==" => CmpPredicate::Eq,
            "!=" => CmpPredicate::Ne,
            _ => return Ok(lhs),
        };
        self.next += 1;
        Ok(Expr::Compare(pred, Box::new(lhs), Box::new(self.sum()?)))
    }

    fn sum(&mut self) -> Result<Expr, ToyError> {
        let mut lhs = self.product()?;
        while let op @ ("+" | "-") = self.peek() {
            self.next += 1;
            lhs = Expr::Binary(
                op.chars().next().unwrap_or('+'),
                Box::new(lhs),
                Box::new(self.product()?),
            );
        }
        Ok(lhs)
    }

    fn product(&mut self) -> Result<Expr, ToyError> {
        let mut lhs = self.atom()?;
        while let op @ ("*" | "/" | "%") = self.peek() {
            self.next += 1;
            lhs = Expr::Binary(
                op.chars().next().unwrap_or('*'),
                Box::new(lhs),
                Box::new(self.atom()?),
            );
        }
        Ok(lhs)
    }

    fn atom(&mut self) -> Result<Expr, ToyError> {
        let loc = self.loc();
        if self.eat("(") {
            let inner = self.expr()?;
            self.expect(")")?;
            return Ok(inner);
        }
        if let Ok(value) = self.peek().parse::<i128>() {
            self.next += 1;
            return Ok(Expr::Int(value));
        }
        let name = self.ident()?;
        if !self.eat("(") {
            return Ok(Expr::Var(name, loc));
        }
        let mut args = Vec::new();
        while !self.eat(")") {
            args.push(self.expr()?);
            self.eat(",");
        }
        Ok(Expr::Call(name, args, loc))
    }
}

// ---- code generation ---------------------------------------------------------------------

/// The front end's context while building one function: variables in scope and the
/// signatures of the program's functions. Cleanup emitters get it too.
struct Lowering {
    scopes: Vec<HashMap<String, Value>>,
    arity: HashMap<String, usize>,
    int_ty: ehir_core::Type,
    int_typeinfo: ehir_core::Symbol,
}

impl Lowering {
    fn int_sig(&self, b: &mut FunctionBuilder<'_>, arity: usize) -> ehir_core::Type {
        b.ctx
            .types
            .func(vec![self.int_ty; arity], Some(self.int_ty), false)
    }

    fn var(&self, name: &str, loc: Loc) -> Result<Value, ToyError> {
        let found = self.scopes.iter().rev().find_map(|scope| scope.get(name));
        found
            .copied()
            .ok_or_else(|| ToyError(loc, format!("unknown variable '{name}'")))
    }

    fn declare(&mut self, b: &mut FunctionBuilder<'_>, name: &str, init: Value) {
        let slot = b.alloca(self.int_ty, name, true, 4);
        b.store(init, slot, 4);
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_string(), slot);
        }
    }

    fn expr(&mut self, b: &mut FunctionBuilder<'_>, e: &Expr) -> Result<Value, ToyError> {
        Ok(match e {
            Expr::Int(v) => b.const_int(self.int_ty, *v),
            Expr::Var(name, loc) => {
                let slot = self.var(name, *loc)?;
                b.load(slot, 4)
            }
            Expr::Binary(op, lhs, rhs) => {
                let (lhs, rhs) = (self.expr(b, lhs)?, self.expr(b, rhs)?);
                let kind = match op {
                    '+' => BinaryOp::Add,
                    '-' => BinaryOp::Sub,
                    '*' => BinaryOp::Mul,
                    '/' => BinaryOp::Div,
                    _ => BinaryOp::Rem,
                };
                b.binop(kind, lhs, rhs)
            }
            Expr::Compare(pred, lhs, rhs) => {
                let (lhs, rhs) = (self.expr(b, lhs)?, self.expr(b, rhs)?);
                let flag = b.cmp(*pred, lhs, rhs);
                b.cast(CastKind::BoolToInt, flag, self.int_ty)
            }
            Expr::Call(name, args, loc) => {
                b.set_loc(*loc);
                let args = args
                    .iter()
                    .map(|a| self.expr(b, a))
                    .collect::<Result<Vec<_>, _>>()?;
                if self.arity.get(name).is_some_and(|&n| n != args.len()) {
                    return Err(ToyError(
                        *loc,
                        format!("wrong number of arguments to '{name}'"),
                    ));
                }
                let sig = self.int_sig(b, args.len());
                let result = b.call_named(name, sig, &args, CallFlags::default());
                b.check()?;
                result.ok_or_else(|| ToyError(*loc, "call without a result".into()))?
            }
        })
    }

    /// A condition: the int is compared with zero.
    fn cond(&mut self, b: &mut FunctionBuilder<'_>, e: &Expr) -> Result<Value, ToyError> {
        let value = self.expr(b, e)?;
        let zero = b.const_int(self.int_ty, 0);
        Ok(b.cmp(CmpPredicate::Ne, value, zero))
    }

    fn block(&mut self, b: &mut FunctionBuilder<'_>, stmts: &[Stmt]) -> Result<(), ToyError> {
        b.enter_scope();
        self.scopes.push(HashMap::new());
        for s in stmts {
            self.stmt(b, s)?;
        }
        self.scopes.pop();
        b.exit_scope(); // pops the block's defers
        Ok(())
    }

    fn stmt(&mut self, b: &mut FunctionBuilder<'_>, s: &Stmt) -> Result<(), ToyError> {
        match s {
            Stmt::Var(name, init) => {
                let init = self.expr(b, init)?;
                self.declare(b, name, init);
            }
            Stmt::Assign(name, value, loc) => {
                let value = self.expr(b, value)?;
                let slot = self.var(name, *loc)?;
                b.store(value, slot, 4);
            }
            Stmt::Print(value) => {
                let value = self.expr(b, value)?;
                let format = b.string_literal(b"%d\n");
                let s8_ptr = b.value_type(format);
                let sig = b.ctx.types.func(vec![s8_ptr], Some(self.int_ty), true);
                let nothrow = CallFlags {
                    nothrow: true,
                    exception: false,
                    noreturn: false,
                };
                b.call_named("printf", sig, &[format, value], nothrow);
            }
            Stmt::Expr(e) => {
                self.expr(b, e)?;
            }
            Stmt::Defer(kind, body) => {
                // The deferred statement is emitted into the cleanup region, with this
                // context (its variables) and its errors propagated.
                let body = body.as_ref().clone();
                b.push_cleanup_with(*kind, self, |b, lowering| lowering.stmt(b, &body))?;
            }
            Stmt::If(cond, then_body, else_body) => {
                let cond = self.cond(b, cond)?;
                let if_op = b.begin_if(cond, !else_body.is_empty());
                self.block(b, then_body)?;
                if !else_body.is_empty() {
                    b.begin_else(if_op);
                    self.block(b, else_body)?;
                }
                b.end_if();
            }
            Stmt::While(cond, body) => {
                let lp = b.begin_while();
                let cond = self.cond(b, cond)?;
                lp.condition(b, cond);
                self.block(b, body)?;
                lp.end_body(b);
            }
            Stmt::Break => b.emit_break(),
            Stmt::Continue => b.emit_continue(),
            Stmt::Return(value) => {
                let value = self.expr(b, value)?;
                b.emit_return(Some(value));
            }
            Stmt::Throw(None) => b.emit_rethrow(),
            Stmt::Throw(Some(value)) => {
                let value = self.expr(b, value)?;
                let storage = b.alloc_exception(self.int_ty, 4);
                b.store(value, storage, 4);
                b.emit_throw(storage, self.int_typeinfo, None);
            }
            Stmt::Try(body, name, handler) => {
                b.enter_try();
                self.block(b, body)?;
                let int_ptr = b.ptr_type(self.int_ty);
                let caught = b.emit_catch(CatchKind::Type(self.int_typeinfo), int_ptr);
                let value = b.load(caught, 4);
                self.scopes.push(HashMap::new());
                self.declare(b, name, value);
                self.block(b, handler)?;
                self.scopes.pop();
                b.exit_try();
            }
            Stmt::Block(stmts) => self.block(b, stmts)?,
        }
        b.check()?; // a builder error is reported at the statement that caused it
        Ok(())
    }
}

/// Parses and builds a program into a structured-phase module.
fn compile(text: &str) -> Result<Module, ToyError> {
    let fns = Parser::new(text).program()?;
    let mut mb = ModuleBuilder::new();
    let int_ty = mb.ctx().types.common().s32;
    let int_typeinfo = mb.builtin_typeinfo(BuiltinType::Int);
    let arity = fns
        .iter()
        .map(|(name, params, _)| (name.clone(), params.len()))
        .collect();
    for (name, params, body) in &fns {
        let sig = mb
            .ctx()
            .types
            .func(vec![int_ty; params.len()], Some(int_ty), false);
        let mut b = mb.function(name, sig, &vec![int_ty; params.len()]);
        let mut lowering = Lowering {
            scopes: vec![HashMap::new()],
            arity: HashMap::clone(&arity),
            int_ty,
            int_typeinfo,
        };
        for (param, value) in params.iter().zip(b.params()) {
            lowering.declare(&mut b, param, value);
        }
        lowering.block(&mut b, body)?;
        if !b.is_terminated() {
            let zero = b.const_int(int_ty, 0); // falling off the end returns 0
            b.emit_return(Some(zero));
        }
        b.define().map_err(|e| ToyError(Loc::NONE, e.to_string()))?;
    }
    mb.finish().map_err(|e| ToyError(Loc::NONE, e.to_string()))
}

// ---- running ---------------------------------------------------------------------------------

/// The C++ runtime linked into native executables: `probe` throws like the interpreter's
/// `--throw-at @probe#N=int:V` when `TOY_THROW_AT=N:V` is set, and returns 0 otherwise.
const NATIVE_RUNTIME: &str = r#"#include <cstdlib>
#include <cstdio>
static int calls = 0;
extern "C" int probe(int) {
    ++calls;
    if (const char* spec = std::getenv("TOY_THROW_AT")) {
        int n = 0, v = 0;
        if (std::sscanf(spec, "%d:%d", &n, &v) == 2 && n == calls) throw v;
    }
    return 0;
}
"#;

/// One line of output: exit status and stdout on one line.
fn summary(status: i32, stdout: &[u8]) -> String {
    let text = String::from_utf8_lossy(stdout);
    format!(
        "exit={status} stdout={}",
        text.trim_end().replace('\n', " ")
    )
}

fn run_phase(
    module: &Module,
    phase: Phase,
    throw_at: Option<(u32, i32)>,
) -> Result<String, String> {
    let mut lowered = module.clone();
    if phase != Phase::Structured {
        ehir_pipeline::lower(&mut lowered, phase).map_err(|e| format!("lowering: {e}"))?;
    }
    let mut config = ehir_interp::RunConfig::default();
    if let Some((n, v)) = throw_at {
        config.throw_at.push(ehir_interp::parse_throw_spec(&format!(
            "@probe#{n}=int:{v}"
        ))?);
    }
    let outcome = ehir_interp::run_module(&lowered, &config).map_err(|e| e.to_string())?;
    if let Some(e) = outcome.runtime_error {
        return Err(format!("runtime error: {}", e.message));
    }
    Ok(summary(outcome.exit_status, &outcome.stdout))
}

fn run_native(module: &Module, name: &str, throw_at: Option<(u32, i32)>) -> Result<String, String> {
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let (runtime, exe) = (
        scratch.path().join("toy_runtime.cpp"),
        scratch.path().join(name),
    );
    std::fs::write(&runtime, NATIVE_RUNTIME).map_err(|e| e.to_string())?;
    // One call from the module to an executable: lower to the Itanium phase, emit LLVM
    // IR, compile with llc and link with the C++ driver (and the toy runtime).
    let mut options = ehir_pipeline::BuildOptions::new(ehir_pipeline::EhAbi::Itanium);
    options.link_inputs.push(runtime);
    ehir_pipeline::build_module(&mut module.clone(), name, &options, &exe)
        .map_err(|e| e.to_string())?;
    let mut command = std::process::Command::new(&exe);
    if let Some((n, v)) = throw_at {
        command.env("TOY_THROW_AT", format!("{n}:{v}"));
    }
    let output = command.output().map_err(|e| e.to_string())?;
    use std::os::unix::process::ExitStatusExt;
    let status = output
        .status
        .code()
        .or(output.status.signal().map(|s| 128 + s))
        .unwrap_or(-1);
    Ok(summary(status, &output.stdout))
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let native = args.iter().any(|a| a == "--native");
    let throw_at = args.iter().position(|a| a == "--throw-at").and_then(|i| {
        let (n, v) = args.get(i + 1)?.split_once(':')?;
        Some((n.parse().ok()?, v.parse().ok()?))
    });
    let mut failed = false;
    for (name, source) in PROGRAMS {
        println!("program {name}");
        let module = match compile(source) {
            Ok(module) => module,
            Err(ToyError(loc, message)) => {
                println!("  error at byte {}: {message}", loc.0);
                failed = true;
                continue;
            }
        };
        let mut phases: Vec<(&str, Result<String, String>)> =
            [Phase::Structured, Phase::Flat, Phase::Itanium, Phase::Msvc]
                .into_iter()
                .map(|phase| (phase.name(), run_phase(&module, phase, throw_at)))
                .collect();
        if native {
            phases.push(("native", run_native(&module, name, throw_at)));
        }
        for (phase, result) in &phases {
            match result {
                Ok(line) => println!("  {phase:<10} {line}"),
                Err(e) => println!("  {phase:<10} FAILED: {e}"),
            }
            failed |= result.is_err() || *result != phases[0].1;
        }
    }
    if failed {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
}
