//! The event trace of a run, its text form, and the comparison of two runs.
//!
//! Values in events are rendered phase-independently: integers in decimal, pointers by
//! the object they point into (`&c+0` for an alloca named `c`, `@g+4` for a global,
//! `heap#2+0`, `exn#1+0`, `&arg0+0` for harness-made parameter storage), so the same
//! program at two phases produces the same trace even though flattening hoists allocas
//! and renames values.
//!
//! Observable events are what a program could tell apart: calls (of defined and of
//! external functions) with their arguments and returns, frames left by unwinding,
//! output, throws, `std::unexpected`, `std::terminate` and its message, an exception
//! escaping the entry, `abort`, interpreter-detected errors and the exit status. Left out of cross-phase comparisons
//! (but shown by `--trace`):
//! - [`Event::Cleanup`]: structured cleanup regions have no counterpart op once the
//!   function is flattened (their code is ordinary blocks there); what a cleanup does
//!   (a destructor call) is observable;
//! - [`Event::Catch`] and [`Event::Destroy`]: which handler the runtime entered and
//!   when an exception object died are internal; a lowering may, for instance,
//!   implement a `noexcept` boundary as a catch-all handler that calls
//!   `std::terminate`. Their effects (the handler's code, the exception's destructor)
//!   are observable.

use std::fmt;

/// What an allocation of `len` bytes takes from the system allocator: glibc's chunk of at
/// least 32 bytes, the size plus its 8-byte header rounded up to 16.
fn heap_bytes(len: usize) -> usize {
    if len == 0 {
        0
    } else {
        (len + 8).div_ceil(16).max(2) * 16
    }
}

/// The memory an event of the trace takes, charged against the run's memory budget: its
/// slot in the trace (room the trace's vector reserves beyond it is never touched, so
/// it costs address space, not memory), each string's allocation as the allocator
/// rounds it, and for output the copy kept in the run's stdout as well.
pub fn event_bytes(e: &Event) -> u64 {
    let list = |items: &[String]| {
        heap_bytes(std::mem::size_of_val(items))
            + items.iter().map(|a| heap_bytes(a.len())).sum::<usize>()
    };
    let strings: usize = match e {
        Event::Enter { function, args }
        | Event::Call {
            callee: function,
            args,
        } => heap_bytes(function.len()) + list(args),
        Event::Leave { function, value }
        | Event::Return {
            callee: function,
            value,
        } => heap_bytes(function.len()) + value.as_ref().map_or(0, |v| heap_bytes(v.len())),
        Event::Unwind { function } => heap_bytes(function.len()),
        Event::Output { text } => 2 * heap_bytes(text.len()),
        Event::Throw { ty, value, .. } | Event::Escape { ty, value, .. } => {
            heap_bytes(ty.len()) + heap_bytes(value.len())
        }
        Event::Catch { ty, handler, .. } => heap_bytes(ty.len()) + heap_bytes(handler.len()),
        Event::Rethrow { ty, .. } | Event::Destroy { ty, .. } | Event::Unexpected { ty, .. } => {
            heap_bytes(ty.len())
        }
        Event::Terminate { message } | Event::Error { message } => heap_bytes(message.len()),
        Event::Cleanup { .. } | Event::Abort | Event::Exit { .. } => 0,
    };
    (std::mem::size_of::<Event>() + strings) as u64
}

/// The memory a whole trace takes, as [`event_bytes`] counts it.
pub fn trace_bytes(trace: &[Event]) -> u64 {
    trace.iter().map(event_bytes).sum()
}

/// One thing that happened during a run.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A call of a function defined in the module.
    Enter {
        /// The callee's symbol, without `@`.
        function: String,
        /// The arguments, rendered as the trace prints values.
        args: Vec<String>,
    },
    /// An exception unwound out of a function defined in the module.
    Unwind {
        /// The function the exception left, without `@`.
        function: String,
    },
    /// Its return.
    Leave {
        /// The returning function, without `@`.
        function: String,
        /// The returned value, rendered (`None` for a void function).
        value: Option<String>,
    },
    /// A call of an undefined (external) function other than the modelled C library and
    /// C++ runtime functions.
    Call {
        /// The callee's symbol, without `@`.
        callee: String,
        /// The arguments, rendered.
        args: Vec<String>,
    },
    /// Its return (the scripted value, or zero).
    Return {
        /// The callee's symbol, without `@`.
        callee: String,
        /// The value it returned, rendered (`None` for a void callee).
        value: Option<String>,
    },
    /// Text the program wrote to stdout.
    Output {
        /// The text, as written by one call (`printf`, `puts`, ...).
        text: String,
    },
    /// A new exception was thrown.
    Throw {
        /// The exception object's number: 1 for the first object thrown in the run, 2
        /// for the next, ...
        id: u32,
        /// Its type, as a C++ type name (`int`, `SomeClass`).
        ty: String,
        /// Its value, rendered (a class shows its name).
        value: String,
    },
    /// A caught exception was rethrown.
    Rethrow {
        /// The exception object's number (see [`Event::Throw`]).
        id: u32,
        /// Its type.
        ty: String,
    },
    /// A handler caught an exception (`__cxa_begin_catch`); `handler` is the type the
    /// handler catches (`...` for catch-all). Not observable.
    Catch {
        /// The exception object's number (see [`Event::Throw`]).
        id: u32,
        /// Its type.
        ty: String,
        /// The type the handler catches, or `...`.
        handler: String,
    },
    /// An exception object's lifetime ended (its last handler finished). Not observable.
    Destroy {
        /// The exception object's number (see [`Event::Throw`]).
        id: u32,
        /// Its type.
        ty: String,
    },
    /// A structured `cir.cleanup.scope` (or array cleanup) ran its cleanup region
    /// (`normal`, `eh`), or an `unwind` handler region was entered (`unwind`).
    /// Not observable.
    Cleanup {
        /// `normal`, `eh` or `unwind`.
        kind: &'static str,
    },
    /// An exception violated an exception specification: `std::unexpected` is called.
    Unexpected {
        /// The exception object's number (see [`Event::Throw`]).
        id: u32,
        /// Its type.
        ty: String,
    },
    /// `std::terminate` was called; the message libstdc++ prints.
    Terminate {
        /// The message, as libstdc++'s verbose terminate handler prints it.
        message: String,
    },
    /// An exception escaped a non-`main` entry function and the harness caught it.
    Escape {
        /// The exception object's number (see [`Event::Throw`]).
        id: u32,
        /// Its type.
        ty: String,
        /// Its value, rendered.
        value: String,
    },
    /// `abort()` was called (or `std::terminate` aborted).
    Abort,
    /// The interpreter stopped the program on an error (out-of-bounds access, step
    /// budget, ...); `exit 3` follows.
    Error {
        /// What went wrong, and where.
        message: String,
    },
    /// The run ended with this exit status.
    Exit {
        /// The status, 0 to 255.
        status: i32,
    },
}

impl Event {
    /// Whether the event takes part in cross-phase comparisons.
    pub fn is_observable(&self) -> bool {
        !matches!(
            self,
            Event::Cleanup { .. } | Event::Catch { .. } | Event::Destroy { .. }
        )
    }
}

fn write_escaped(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    write!(f, "\"")?;
    for c in text.chars() {
        match c {
            '"' => write!(f, "\\\"")?,
            '\\' => write!(f, "\\\\")?,
            '\n' => write!(f, "\\n")?,
            '\t' => write!(f, "\\t")?,
            c if (c as u32) < 0x20 || c as u32 == 0x7f => write!(f, "\\x{:02x}", c as u32)?,
            c => write!(f, "{c}")?,
        }
    }
    write!(f, "\"")
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Enter { function, args } => write!(f, "enter @{function}({})", args.join(", ")),
            Event::Leave { function, value } => match value {
                Some(v) => write!(f, "leave @{function} = {v}"),
                None => write!(f, "leave @{function}"),
            },
            Event::Unwind { function } => write!(f, "unwind @{function}"),
            Event::Call { callee, args } => write!(f, "call @{callee}({})", args.join(", ")),
            Event::Return { callee, value } => match value {
                Some(v) => write!(f, "return @{callee} = {v}"),
                None => write!(f, "return @{callee}"),
            },
            Event::Output { text } => {
                write!(f, "stdout ")?;
                write_escaped(f, text)
            }
            Event::Throw { id, ty, value } => {
                if value.is_empty() {
                    write!(f, "throw {ty} (exn#{id})")
                } else {
                    write!(f, "throw {ty} {value} (exn#{id})")
                }
            }
            Event::Rethrow { id, ty } => write!(f, "rethrow {ty} (exn#{id})"),
            Event::Catch { id, ty, handler } => {
                write!(f, "catch {ty} (exn#{id}) in handler {handler}")
            }
            Event::Destroy { id, ty } => write!(f, "destroy {ty} (exn#{id})"),
            Event::Cleanup { kind } => write!(f, "cleanup {kind}"),
            Event::Unexpected { id, ty } => write!(f, "unexpected {ty} (exn#{id})"),
            Event::Terminate { message } => write!(f, "terminate: {message}"),
            Event::Escape { id, ty, value } => {
                if value.is_empty() {
                    write!(f, "escape {ty} (exn#{id})")
                } else {
                    write!(f, "escape {ty} {value} (exn#{id})")
                }
            }
            Event::Abort => write!(f, "abort"),
            Event::Error { message } => write!(f, "error: {message}"),
            Event::Exit { status } => write!(f, "exit {status}"),
        }
    }
}

/// The observable events of a trace, in order.
pub fn observable(trace: &[Event]) -> Vec<&Event> {
    trace.iter().filter(|e| e.is_observable()).collect()
}

/// Where two observable traces first differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    /// Index in the observable events.
    pub index: usize,
    /// The event of the first trace at that index (`None`: the trace ended).
    pub left: Option<Event>,
    /// The event of the second trace at that index (`None`: the trace ended).
    pub right: Option<Event>,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |e: &Option<Event>| match e {
            Some(e) => e.to_string(),
            None => "<end of trace>".to_string(),
        };
        write!(
            f,
            "observable event {}: {} vs {}",
            self.index,
            show(&self.left),
            show(&self.right)
        )
    }
}

/// The first observable difference between two traces, if any.
pub fn first_divergence(a: &[Event], b: &[Event]) -> Option<Divergence> {
    let a = observable(a);
    let b = observable(b);
    let n = a.len().max(b.len());
    (0..n).find_map(|i| {
        let (x, y) = (a.get(i), b.get(i));
        (x != y).then(|| Divergence {
            index: i,
            left: x.map(|e| (*e).clone()),
            right: y.map(|e| (*e).clone()),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleanup_events_are_not_compared() {
        let a = vec![
            Event::Cleanup { kind: "normal" },
            Event::Call {
                callee: "d".into(),
                args: vec!["&c+0".into()],
            },
            Event::Exit { status: 0 },
        ];
        let b = vec![
            Event::Call {
                callee: "d".into(),
                args: vec!["&c+0".into()],
            },
            Event::Exit { status: 0 },
        ];
        assert_eq!(first_divergence(&a, &b), None);
        let c = vec![Event::Exit { status: 0 }];
        let d = first_divergence(&a, &c).unwrap();
        assert_eq!(d.index, 0);
        assert_eq!(d.right, Some(Event::Exit { status: 0 }));
        assert_eq!(d.to_string(), "observable event 0: call @d(&c+0) vs exit 0");
    }

    #[test]
    fn renders_events() {
        assert_eq!(
            Event::Throw {
                id: 1,
                ty: "int".into(),
                value: "7".into()
            }
            .to_string(),
            "throw int 7 (exn#1)"
        );
        assert_eq!(
            Event::Output {
                text: "a\"b\n".into()
            }
            .to_string(),
            "stdout \"a\\\"b\\n\""
        );
    }
}
