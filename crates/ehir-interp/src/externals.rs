//! Calls of functions the module does not define.
//!
//! Modelled (not traced as calls): the C library functions of `libc.rs` (stdio,
//! string and conversion functions; stdout is traced as output), `exit`, `_Exit`,
//! `quick_exit`, `abort`, `__assert_fail` (msvcrt's `_assert`), `__iob_func` (msvcrt's
//! standard streams), `malloc`, `calloc`, `realloc`, `free`,
//! `operator new`/`delete` (`_Znwm`, `_Znam`, `_ZdlPv`, `_ZdaPv`, sized and
//! `std::nothrow` variants), and
//! the C++ runtime:
//! `__dynamic_cast` (through the vtable's offset to top and typeinfo), `__cxa_bad_cast`,
//! msvcrt's `__RTtypeid`, `__RTDynamicCast` and `__RTCastToVoid` (`msvc_rtti.rs`),
//! `__cxa_allocate_exception`, `__cxa_free_exception`, `__cxa_throw`, `__cxa_rethrow`,
//! `__cxa_begin_catch`, `__cxa_end_catch`, `__cxa_get_exception_ptr`,
//! `__cxa_call_unexpected`, `__cxa_call_terminate`, `__clang_call_terminate`,
//! `_Unwind_Resume`, `_Unwind_ForcedUnwind` and `_Unwind_DeleteException`
//! (`forced_unwind.rs`), `std::ios_base::Init`'s constructor and destructor (the
//! standard streams themselves are not modelled), `std::terminate`, `std::unexpected`, `std::set_terminate`,
//! `std::set_unexpected`, `std::uncaught_exception(s)`, MSVC's `_CxxThrowException` and
//! `__std_terminate`; the members libstdc++ defines of `std::exception`,
//! `std::bad_exception`, `std::bad_alloc`, `std::bad_array_new_length`, `std::bad_cast`
//! and `std::bad_typeid` (destructors, and `what()`, which returns libstdc++'s text).
//!
//! `__clang_call_terminate` runs this model even where the module defines it (as the
//! Itanium lowering does: `__cxa_begin_catch` then `std::terminate`), so that a run traces
//! the same events in every phase ([`provided_even_if_defined`]).
//!
//! For a program compiled for Windows, the msvcrt names of these functions
//! (`??2@YAPEAX_K@Z` for `operator new`, ...) run the same models.
//!
//! Any other undefined callee is a probe or an error (see the crate docs, *Undefined
//! functions*): a probe is recorded in the trace with its arguments and returns the next
//! value `--returns` scripts for it, or zero; `--throw-at` makes chosen calls throw
//! instead.

use crate::config::{CallSelector, ScriptValue, ThrowSpec};
use crate::cxx_types;
use crate::eh::EXIT_ABORT;
use crate::machine::{Machine, Stop};
use crate::memory::{self, AllocKind};
use crate::trace::Event;
use crate::type_layout::{OPAQUE_RECORD_SIZE, Scalar};
use crate::values;
use ehir_core::abi::runtime::{
    MSVC_THROW, MSVC_UNCAUGHT_EXCEPTION, STD_TERMINATE, STD_UNCAUGHT_EXCEPTION, STD_UNEXPECTED,
    itanium_runtime_name,
};
use ehir_core::{Module, Symbol, Type, TypeData, Value};

/// What an external call did.
pub(crate) enum ExternalResult {
    /// Returned (with a value when it has one).
    Value(Option<u64>),
    /// Threw this (already announced) exception from the call.
    Threw(u32),
    /// Transferred control elsewhere (`_Unwind_Resume`, `__cxa_call_unexpected`): the
    /// call does not complete.
    Transferred,
}

/// A call of an undefined function.
#[derive(Clone, Copy)]
pub(crate) struct ExternalCall<'a> {
    /// The function called.
    pub(crate) callee: Symbol,
    /// The argument values.
    pub(crate) args: &'a [u64],
    /// The IR values of the arguments when the call comes from an op (for their types).
    pub(crate) arg_values: Option<&'a [Value]>,
    /// The result type.
    pub(crate) result_ty: Option<Type>,
}

/// The value a `--throw-at` exception carries.
#[derive(Clone, Debug)]
pub(crate) enum ThrownValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(Vec<u8>),
    Null,
    Zeroed,
}

/// A `--throw-at` spec resolved against the module.
#[derive(Clone, Debug)]
pub(crate) struct ResolvedThrow {
    pub callee: Symbol,
    pub selector: CallSelector,
    /// Mangled thrown type.
    pub ty: String,
    pub size: u64,
    pub value: ThrownValue,
}

/// Resolves a `--throw-at` spec: the thrown type (fundamental, class by record name, or
/// typeinfo symbol) and its value. `None` when the callee does not occur in the module.
pub(crate) fn resolve_throw(
    module: &Module,
    layouts: &crate::type_layout::Layouts,
    spec: &ThrowSpec,
) -> Result<Option<ResolvedThrow>, String> {
    let ctx = &module.ctx;
    let name = spec.type_name.trim();
    let bad_value = |what: &str| {
        format!(
            "--throw-at @{}: '{}' is not a valid {what} value",
            spec.callee,
            spec.value.as_deref().unwrap_or("")
        )
    };
    let (ty, size, value) = if let Some(code) = cxx_types::builtin_from_spelling(name) {
        let size = match code {
            "b" | "c" | "a" | "h" => 1,
            "s" | "t" => 2,
            "i" | "j" | "f" => 4,
            _ => 8,
        };
        let text = spec.value.as_deref().map(str::trim);
        let value = match (code, text) {
            (_, None) if code.starts_with('P') => ThrownValue::Null,
            (_, None) => ThrownValue::Zeroed,
            (c, Some("null" | "nullptr" | "0")) if c.starts_with('P') => ThrownValue::Null,
            ("PKc" | "Pc", Some(t)) => ThrownValue::Str(t.as_bytes().to_vec()),
            (c, Some(_)) if c.starts_with('P') => return Err(bad_value("pointer (only null)")),
            ("b", Some("true")) => ThrownValue::Bool(true),
            ("b", Some("false")) => ThrownValue::Bool(false),
            ("f" | "d", Some(t)) => {
                ThrownValue::Float(t.parse().map_err(|_| bad_value("floating"))?)
            }
            ("c" | "a" | "h", Some(t))
                if t.chars().count() == 1 && !t.as_bytes()[0].is_ascii_digit() =>
            {
                ThrownValue::Int(i64::from(t.as_bytes()[0]))
            }
            (_, Some(t)) => ThrownValue::Int(t.parse().map_err(|_| bad_value("integer"))?),
        };
        (code.to_string(), size, value)
    } else if let Some(sym) = name.strip_prefix('@') {
        if spec.value.is_some() {
            return Err(format!(
                "--throw-at @{}: class exceptions take no value",
                spec.callee
            ));
        }
        let ty = cxx_types::type_of_typeinfo_symbol(sym);
        let size = ctx
            .symbols
            .lookup(sym)
            .and_then(|s| ctx.typeinfo(s))
            .map(|t| layouts.size(t.ty))
            .unwrap_or(OPAQUE_RECORD_SIZE);
        (ty, size, ThrownValue::Zeroed)
    } else {
        if spec.value.is_some() {
            return Err(format!(
                "--throw-at @{}: '{name}' is not a fundamental type; class exceptions take no value",
                spec.callee
            ));
        }
        // A class by its record name.
        let record = ctx
            .records
            .iter()
            .find(|r| ctx.name(r.name) == name || ctx.name(r.alias) == format!("rec_{name}"));
        let record_ty = record.and_then(|r| {
            (0..ctx.types.len())
                .map(<Type as ehir_core::EntityRef>::new)
                .find(|&t| matches!(ctx.types.get(t), TypeData::Record(a) if *a == r.alias))
        });
        let from_typeinfo = record_ty.and_then(|t| {
            ctx.typeinfos
                .iter()
                .find(|ti| ti.ty == t)
                .map(|ti| cxx_types::type_of_typeinfo_symbol(ctx.name(ti.symbol)))
        });
        let ty = from_typeinfo.unwrap_or_else(|| cxx_types::mangle_class_name(name));
        let size = record_ty
            .map(|t| layouts.size(t))
            .unwrap_or(OPAQUE_RECORD_SIZE);
        (ty, size, ThrownValue::Zeroed)
    };
    let Some(callee) = ctx.symbols.lookup(&spec.callee) else {
        return Ok(None);
    };
    Ok(Some(ResolvedThrow {
        callee,
        selector: spec.selector,
        ty,
        size,
        value,
    }))
}

impl<'m> Machine<'m> {
    /// Whether this call of `callee` throws by `--throw-at`; counts the call.
    pub(crate) fn scripted_throw(&mut self, callee: Symbol) -> Option<usize> {
        if !self.throw_specs.iter().any(|t| t.callee == callee) {
            return None;
        }
        let n = self.call_counts.entry(callee).or_insert(0);
        *n += 1;
        let n = *n;
        self.throw_specs.iter().position(|t| {
            t.callee == callee
                && match t.selector {
                    CallSelector::Nth(k) => k == n,
                    CallSelector::Every => true,
                }
        })
    }

    /// A NUL-terminated, read-only string the harness makes (`str#N`).
    pub(crate) fn harness_string(&mut self, bytes: &[u8]) -> Result<u64, Stop> {
        self.string_count += 1;
        let s = self
            .mem
            .allocate(
                bytes.len() as u64 + 1,
                AllocKind::HarnessString(self.string_count),
                self.frame_bytes,
            )
            .map_err(|e| self.mem_error(e))?;
        self.mem
            .write_bytes(s, bytes)
            .map_err(|e| self.mem_error(e))?;
        self.mem.set_read_only(s);
        Ok(s)
    }

    /// Creates and announces the exception of `--throw-at` spec `index`.
    pub(crate) fn throw_scripted(&mut self, index: usize) -> Result<u32, Stop> {
        let spec = self.throw_specs[index].clone();
        let p = self.allocate_exception(spec.size)?;
        let exn = self.exception_of_pointer(p)?;
        let size = spec.size;
        let write = |m: &mut Machine<'m>, v: u64| {
            m.mem
                .write_uint(p, size.min(8), v)
                .map_err(|e| m.mem_error(e))
        };
        match &spec.value {
            ThrownValue::Int(v) => write(self, *v as u64)?,
            ThrownValue::Float(x) => {
                if spec.ty == "f" {
                    write(self, values::of_f32(*x as f32))?
                } else {
                    write(self, values::of_f64(*x))?
                }
            }
            ThrownValue::Bool(b) => write(self, u64::from(*b))?,
            ThrownValue::Str(bytes) => {
                let s = self.harness_string(bytes)?;
                write(self, s)?
            }
            ThrownValue::Null | ThrownValue::Zeroed => {}
        }
        self.announce_throw(exn, spec.ty.clone(), None);
        Ok(exn)
    }

    fn heap_alloc(&mut self, size: u64) -> Result<u64, Stop> {
        self.heap_count += 1;
        self.mem
            .allocate(size, AllocKind::Heap(self.heap_count), self.frame_bytes)
            .map_err(|e| self.mem_error(e))
    }

    pub(crate) fn heap_free(&mut self, p: u64, what: &str) -> Result<(), Stop> {
        if p == 0 {
            return Ok(());
        }
        let ok = matches!(self.mem.kind_of(p), Some((AllocKind::Heap(_), true)))
            && memory::decode(p).offset == 0;
        if !ok {
            let shown = self.render_ptr(p);
            return Err(match self.mem.kind_of(p) {
                Some((AllocKind::Heap(_), false)) => {
                    self.error(format!("{what} of {shown}, which was already freed"))
                }
                _ => self.error(format!("{what} of {shown}, which is not a heap block")),
            });
        }
        self.mem.release(p).map_err(|e| self.mem_error(e))
    }

    fn exit_now(&mut self, status: i32) -> Stop {
        Stop::Exit(status & 0xff)
    }

    /// `abort()` (also the end of `std::terminate`): what stdout still buffers is lost.
    pub(crate) fn abort_now(&mut self) -> Stop {
        self.stdout.discard();
        if self.config.record_trace {
            self.record(Event::Abort);
        }
        Stop::Exit(EXIT_ABORT)
    }

    /// The value a scripted `--returns` entry gives for result type `ty`.
    fn script_value(&mut self, v: ScriptValue, ty: Type) -> Result<u64, Stop> {
        let layout = self.layouts.get(ty);
        Ok(match (layout.scalar, v) {
            (Scalar::Int { width, signed }, ScriptValue::Int(i)) => {
                values::canon(i as u64, width, signed)
            }
            (Scalar::Int { width, signed }, ScriptValue::Float(x)) => {
                values::canon(x as i64 as u64, width, signed)
            }
            (Scalar::Int { .. }, ScriptValue::Bool(b)) => u64::from(b),
            (Scalar::F32, ScriptValue::Float(x)) => values::of_f32(x as f32),
            (Scalar::F32, ScriptValue::Int(i)) => values::of_f32(i as f32),
            (Scalar::F64, ScriptValue::Float(x)) => values::of_f64(x),
            (Scalar::F64, ScriptValue::Int(i)) => values::of_f64(i as f64),
            (Scalar::Bool, ScriptValue::Bool(b)) => u64::from(b),
            (Scalar::Bool, ScriptValue::Int(i)) => u64::from(i != 0),
            (Scalar::Aggregate, _) => self.new_zeroed_aggregate(layout.size)?,
            (_, ScriptValue::Null) => 0,
            (_, ScriptValue::Int(i)) => i as u64,
            (_, ScriptValue::Bool(b)) => u64::from(b),
            (_, ScriptValue::Float(x)) => x.to_bits(),
        })
    }

    /// Makes the call `call` of an undefined function.
    pub(crate) fn call_external(&mut self, call: ExternalCall<'_>) -> Result<ExternalResult, Stop> {
        let name = self.module.ctx.name(call.callee);
        // msvcrt's names of the C++ runtime functions run the same models.
        let name = if name.starts_with('?') || name == MSVC_UNCAUGHT_EXCEPTION {
            itanium_runtime_name(name).unwrap_or(name)
        } else {
            name
        };
        let args = call.args;
        let arg = |i: usize| args.get(i).copied().unwrap_or(0);
        let value = |v: u64| Ok(ExternalResult::Value(Some(v)));
        let unit = || Ok(ExternalResult::Value(None));
        if let Some(result) = self.call_c_library(name, args, call.arg_values, call.result_ty)? {
            return Ok(result);
        }
        if let Some(result) = self.call_msvc_rtti(name, args)? {
            return Ok(result);
        }
        if let Some(result) = self.call_library_member(name, args)? {
            return Ok(result);
        }
        match name {
            // ---- process ----
            "exit" => {
                self.exit_called = true;
                Err(self.exit_now(arg(0) as i32))
            }
            // ---- statics: exit functions and initialization guards ----
            "__cxa_atexit" => value(self.register_at_exit(arg(0), Some(arg(1)))?),
            "atexit" => value(self.register_at_exit(arg(0), None)?),
            "__cxa_guard_acquire" => value(self.guard_acquire(arg(0))?),
            "__cxa_guard_release" => {
                self.guard_set(arg(0), true)?;
                unit()
            }
            "__cxa_guard_abort" => {
                self.guard_set(arg(0), false)?;
                unit()
            }
            "_Exit" | "quick_exit" => {
                // Neither flushes stdio buffers.
                self.stdout.discard();
                Err(self.exit_now(arg(0) as i32))
            }
            // A failed `assert` (glibc's `__assert_fail`, msvcrt's `_assert`): the message
            // goes to stderr, then abort().
            "abort" | "__assert_fail" | "_assert" => Err(self.abort_now()),
            // ---- memory ----
            "malloc" | "_Znwm" | "_Znam" | "_ZnwmRKSt9nothrow_t" | "_ZnamRKSt9nothrow_t" => {
                let p = self.heap_alloc(arg(0).max(u64::from(name != "malloc")))?;
                value(p)
            }
            "calloc" => {
                let p = self.heap_alloc(arg(0).saturating_mul(arg(1)))?;
                value(p)
            }
            "realloc" => {
                let old = arg(0);
                let p = self.heap_alloc(arg(1))?;
                if old != 0 {
                    let n = self
                        .mem
                        .len_of(old)
                        .map_err(|e| self.mem_error(e))?
                        .min(arg(1));
                    self.mem.copy(p, old, n).map_err(|e| self.mem_error(e))?;
                    self.heap_free(old, "realloc")?;
                }
                value(p)
            }
            "free"
            | "_ZdlPv"
            | "_ZdaPv"
            | "_ZdlPvm"
            | "_ZdaPvm"
            | "_ZdlPvRKSt9nothrow_t"
            | "_ZdaPvRKSt9nothrow_t" => {
                self.heap_free(arg(0), if name == "free" { "free" } else { "delete" })?;
                unit()
            }
            // msvcrt's standard streams (`stdout` is `&__iob_func()[1]`).
            "__iob_func" => {
                let iob = self.msvc_iob(call.callee)?;
                value(iob)
            }
            // ---- C++ runtime ----
            "__dynamic_cast" => {
                let p = self.dynamic_cast(arg(0), arg(2))?;
                value(p)
            }
            "__cxa_bad_cast" => Ok(ExternalResult::Threw(
                self.throw_standard_exception("St8bad_cast")?,
            )),
            "__cxa_allocate_exception" => {
                let p = self.allocate_exception(arg(0))?;
                value(p)
            }
            "__cxa_free_exception" => {
                self.free_exception(arg(0))?;
                unit()
            }
            "__cxa_throw" => {
                let exn = self.exception_of_pointer(arg(0))?;
                let Some(ti) = self.symbol_of_pointer(arg(1)) else {
                    return Err(
                        self.error("__cxa_throw with a typeinfo that names no symbol".into())
                    );
                };
                let ty = cxx_types::type_of_typeinfo_symbol(self.module.ctx.name(ti));
                let dtor = if arg(2) == 0 {
                    None
                } else {
                    self.symbol_of_pointer(arg(2))
                };
                self.announce_throw(exn, ty, dtor);
                Ok(ExternalResult::Threw(exn))
            }
            MSVC_THROW => {
                if arg(0) == 0 {
                    return self.rethrow_external();
                }
                let info = self
                    .symbol_of_pointer(arg(1))
                    .map(|s| self.module.ctx.name(s).to_string());
                let Some(ty) = info
                    .as_deref()
                    .and_then(cxx_types::msvc_throwinfo_to_itanium)
                else {
                    return Err(self.error("_CxxThrowException with an unknown ThrowInfo".into()));
                };
                let size = self.mem.len_of(arg(0)).map_err(|e| self.mem_error(e))?;
                let p = self.allocate_exception(size)?;
                self.mem
                    .copy(p, arg(0), size)
                    .map_err(|e| self.mem_error(e))?;
                let exn = self.exception_of_pointer(p)?;
                self.announce_throw(exn, ty, None);
                Ok(ExternalResult::Threw(exn))
            }
            "__cxa_rethrow" => self.rethrow_external(),
            "__cxa_begin_catch" => {
                let exn = self.exception_of_pointer(arg(0))?;
                let adjusted = self.begin_catch(exn)?;
                value(adjusted)
            }
            "__cxa_end_catch" => {
                self.end_catch()?;
                unit()
            }
            "__cxa_get_exception_ptr" => {
                let exn = self.exception_of_pointer(arg(0))?;
                value(self.rt.get(exn).map(|e| e.adjusted).unwrap_or(0))
            }
            "__cxa_call_unexpected" => {
                let exn = self.exception_of_pointer(arg(0))?;
                let allowed = self
                    .rt
                    .get(exn)
                    .and_then(|e| e.filter.clone())
                    .unwrap_or_default();
                self.call_unexpected(exn, allowed)?;
                Ok(ExternalResult::Transferred)
            }
            "__cxa_call_terminate" | "__clang_call_terminate" => {
                if arg(0) != 0
                    && let Some(exn) = self.rt.by_object(arg(0))
                {
                    self.terminate_for(exn)?;
                }
                self.terminate()?;
                unit()
            }
            STD_TERMINATE | "__std_terminate" => {
                self.terminate()?;
                unit()
            }
            STD_UNEXPECTED => {
                let allowed = Vec::new();
                match self.rt.current() {
                    Some(exn) => self.call_unexpected(exn, allowed)?,
                    None => self.terminate()?,
                }
                Ok(ExternalResult::Transferred)
            }
            "_ZSt14set_unexpectedPFvvE" => {
                let old = std::mem::replace(&mut self.rt.unexpected_handler, arg(0));
                value(old)
            }
            "_ZSt13set_terminatePFvvE" => {
                let old = std::mem::replace(&mut self.rt.terminate_handler, arg(0));
                value(old)
            }
            "_Unwind_Resume" => {
                let exn = self.exception_of_pointer(arg(0))?;
                self.continue_unwinding_out(exn)?;
                Ok(ExternalResult::Transferred)
            }
            // `static ios_base::Init __ioinit;` of libstdc++'s `<iostream>` constructs and
            // destroys the standard streams; the streams are not modelled (any use of
            // them is an unmodelled call), so this does nothing observable.
            "_ZNSt8ios_base4InitC1Ev" | "_ZNSt8ios_base4InitD1Ev" => unit(),
            "_Unwind_ForcedUnwind" => self.forced_unwind(arg(0), arg(1), arg(2)),
            "_Unwind_DeleteException" => {
                match self.rt.by_object(arg(0)) {
                    Some(exn) if self.rt.is_forced(exn) => self.delete_forced(exn)?,
                    _ => self.delete_unwind_exception(arg(0))?,
                }
                unit()
            }
            "__cxa_uncaught_exceptions" | "_ZSt19uncaught_exceptionsv" => {
                value(self.rt.uncaught.max(0) as u64)
            }
            STD_UNCAUGHT_EXCEPTION => value(u64::from(self.rt.uncaught > 0)),
            // ---- anything else: a probe, or an error ----
            _ => self.unknown_call(call),
        }
    }

    fn rethrow_external(&mut self) -> Result<ExternalResult, Stop> {
        match self.rt.rethrow() {
            None => {
                self.terminate()?;
                Ok(ExternalResult::Value(None))
            }
            Some(exn) => {
                if self.config.record_trace {
                    let ty = cxx_types::display_mangled(
                        &self.rt.get(exn).map(|e| e.ty.clone()).unwrap_or_default(),
                    );
                    self.record(Event::Rethrow { id: exn, ty });
                }
                Ok(ExternalResult::Threw(exn))
            }
        }
    }

    /// A call of a function the interpreter does not model: a probe (traced, it returns
    /// its scripted value or zero) or, in a program whose external functions must really
    /// run, an error naming it (see the crate docs, *Undefined functions*).
    fn unknown_call(&mut self, call: ExternalCall<'_>) -> Result<ExternalResult, Stop> {
        let ExternalCall {
            callee,
            args,
            arg_values,
            result_ty,
        } = call;
        let name = self.module.ctx.name(callee).to_string();
        if !self.is_probe(callee) {
            return Err(self.unmodelled_error(&name));
        }
        if self.config.record_trace {
            let rendered = match arg_values {
                Some(vals) => self.render_args(vals, args),
                None => args.iter().map(|&a| self.render_ptr(a)).collect(),
            };
            self.record(Event::Call {
                callee: name.clone(),
                args: rendered,
            });
        }
        let v = match result_ty {
            None => None,
            Some(ty) => {
                let scripted = self
                    .return_scripts
                    .get_mut(&callee)
                    .and_then(|(values, used)| {
                        let v = values
                            .get((*used).min(values.len().saturating_sub(1)))
                            .copied();
                        *used += 1;
                        v
                    });
                Some(match scripted {
                    Some(sv) => self.script_value(sv, ty)?,
                    None => {
                        if self.layouts.get(ty).scalar == Scalar::Aggregate {
                            let size = self.layouts.size(ty);
                            self.new_zeroed_aggregate(size)?
                        } else {
                            0
                        }
                    }
                })
            }
        };
        if self.config.record_trace {
            let rendered = match (v, result_ty) {
                (Some(v), Some(t)) => Some(self.render_value(v, t)),
                _ => None,
            };
            self.record(Event::Return {
                callee: name,
                value: rendered,
            });
        }
        Ok(ExternalResult::Value(v))
    }
}

/// What libstdc++'s default allocation functions call: the replaceable function each
/// forwards to and how many of its arguments it passes on (`operator new[](size_t)`
/// calls `operator new(size_t)`; the sized, array and nothrow deletes end in
/// `operator delete(void *)`).
const ALLOCATION_FORWARDS: &[(&str, &str, usize)] = &[
    ("_Znam", "_Znwm", 1),
    ("_ZdlPvm", "_ZdlPv", 1),
    ("_ZdaPv", "_ZdlPv", 1),
    ("_ZdaPvm", "_ZdaPv", 1),
    ("_ZdlPvRKSt9nothrow_t", "_ZdlPv", 1),
    ("_ZdaPvRKSt9nothrow_t", "_ZdaPv", 1),
];

/// Whether the interpreter runs its own model of `callee` even when the module defines
/// it: Clang's `__clang_call_terminate` helper, whose body the model performs exactly.
/// Such a function is never the default entry either.
pub(crate) fn provided_even_if_defined(module: &Module, callee: Symbol) -> bool {
    module.ctx.name(callee) == ehir_core::abi::runtime::CLANG_CALL_TERMINATE
}

/// When the module replaces the function a library allocation function `callee`
/// (not defined in the module) ends up calling: the replacement and how many of the
/// call's arguments it takes.
pub(crate) fn replaced_allocation(module: &Module, callee: Symbol) -> Option<(Symbol, usize)> {
    let defined = |s: Symbol| {
        module
            .function_by_name(s)
            .is_some_and(|f| !module.functions[f].is_declaration())
    };
    if defined(callee) {
        return None;
    }
    let mut name = module.ctx.name(callee);
    let mut kept = usize::MAX;
    // Follow the chain of defaults to the first function the module defines.
    for _ in 0..ALLOCATION_FORWARDS.len() {
        let &(_, next, keep) = ALLOCATION_FORWARDS
            .iter()
            .find(|(from, ..)| *from == name)?;
        kept = kept.min(keep);
        let symbol = module.ctx.symbols.lookup(next)?;
        if defined(symbol) {
            return Some((symbol, kept));
        }
        name = next;
    }
    None
}

impl Machine<'_> {
    /// `__dynamic_cast(object, source typeinfo, target typeinfo, hint)`: the most derived
    /// object (at the vtable's offset to top from `object`), whose dynamic type is the
    /// typeinfo before the vtable's first function slot, converted to the target class
    /// when that is an unambiguous base of it (or itself); null otherwise.
    fn dynamic_cast(&mut self, object: u64, target_typeinfo: u64) -> Result<u64, Stop> {
        if object == 0 {
            return Ok(0);
        }
        let read = |m: &Self, p: u64| m.mem.read_uint(p, 8).map_err(|e| m.mem_error(e));
        let vptr = read(self, object)?;
        let offset_to_top = read(self, memory::offset_by(vptr, -16))? as i64;
        let dynamic_typeinfo = read(self, memory::offset_by(vptr, -8))?;
        let name_of = |m: &Self, p: u64| {
            m.symbol_of_pointer(p)
                .map(|s| cxx_types::type_of_typeinfo_symbol(m.module.ctx.name(s)))
        };
        let (Some(dynamic), Some(target)) = (
            name_of(self, dynamic_typeinfo),
            name_of(self, target_typeinfo),
        ) else {
            return Err(self.error("__dynamic_cast with a typeinfo that names no symbol".into()));
        };
        let most_derived = memory::offset_by(object, offset_to_top);
        match self.hierarchy.base_path(&dynamic, &target) {
            Some(path) => self.follow_base_path(most_derived, &path),
            None => Ok(0),
        }
    }
}
