//! What a run is told: the entry function, the scripted behaviour of undefined callees
//! (`--throw-at`, `--returns`) and the step and memory budgets, with the parsers of the
//! command-line spellings.

/// Default step budget: enough for real test programs, small enough to stop a runaway
/// loop within seconds.
pub const DEFAULT_STEP_LIMIT: u64 = 200_000_000;
/// Default memory budget (bytes of live allocations, frames included).
pub const DEFAULT_MEMORY_LIMIT: u64 = 256 << 20;
/// Default limit on nested calls (a program that exceeds it overflowed its stack).
pub const DEFAULT_CALL_DEPTH_LIMIT: u32 = 100_000;

/// Settings of one run.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// The function to run (with or without `@`); `None`: `main` if the module defines
    /// it, else the only defined function.
    pub entry: Option<String>,
    /// Calls of undefined functions that throw instead of returning (`--throw-at`).
    pub throw_at: Vec<ThrowSpec>,
    /// Scripted return values of undefined functions (`--returns`); a probe without a
    /// script returns zero.
    pub returns: Vec<ReturnSpec>,
    /// What a call of an undefined function the interpreter does not model does (a
    /// function `throw_at` or `returns` names is always a probe).
    pub unmodelled_calls: UnmodelledCalls,
    /// Ops executed before the run is stopped with an error.
    pub step_limit: u64,
    /// Bytes of memory (allocations and frames) before the run is stopped with an error.
    pub memory_limit: u64,
    /// Bytes the event trace may take (see [`crate::event_bytes`]) before the run is
    /// stopped as over its memory budget; the trace also counts against
    /// `memory_limit`. A caller that keeps the traces of several runs (`ehir run --phase
    /// all`) gives each a share, so that together they stay within one budget.
    pub trace_memory_limit: u64,
    /// The block scopes of the structured module the run's module was lowered from: with
    /// them, the flat, Itanium and MSVC phases end a block-scope variable's lifetime when
    /// its scope is left, as the structured phase does (see [`crate::BlockScopes`]).
    pub block_scopes: Option<std::sync::Arc<crate::BlockScopes>>,
    /// Nested calls before the run is stopped with a stack-overflow error.
    pub call_depth_limit: u32,
    /// Record the event trace (on by default; off only for benchmarks).
    pub record_trace: bool,
    /// How stdout is buffered at the start of the run (the program may change it with
    /// `setvbuf`); decides what output an `abort` loses. Default: as glibc buffers a
    /// pipe.
    pub stdout_buffering: StdoutBuffering,
}

/// The size of glibc's stdout buffer when stdout is a pipe or a regular file: the
/// descriptor's `st_blksize`, 4096 for a Linux pipe.
pub const PIPE_BUFFER_SIZE: u32 = 4096;

/// How the program's stdout is buffered (see the crate docs, *Standard output*).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum StdoutBuffering {
    /// Fully buffered with a buffer of this many bytes (glibc's mode for a pipe or a
    /// file, [`PIPE_BUFFER_SIZE`] bytes): output reaches stdout when the buffer
    /// overflows, on `fflush`, and at `exit`; `abort` loses what is buffered.
    Full {
        /// The buffer size in bytes.
        size: u32,
    },
    /// Line buffered (glibc's mode for a terminal): like `Full`, and a newline also
    /// flushes.
    Line {
        /// The buffer size in bytes.
        size: u32,
    },
    /// Every write reaches stdout at once (`setvbuf(stdout, NULL, _IONBF, 0)`).
    Unbuffered,
}

impl Default for StdoutBuffering {
    fn default() -> Self {
        StdoutBuffering::Full {
            size: PIPE_BUFFER_SIZE,
        }
    }
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            entry: None,
            throw_at: Vec::new(),
            returns: Vec::new(),
            unmodelled_calls: UnmodelledCalls::default(),
            step_limit: DEFAULT_STEP_LIMIT,
            memory_limit: DEFAULT_MEMORY_LIMIT,
            trace_memory_limit: u64::MAX,
            block_scopes: None,
            call_depth_limit: DEFAULT_CALL_DEPTH_LIMIT,
            record_trace: true,
            stdout_buffering: StdoutBuffering::default(),
        }
    }
}

/// What a call of an undefined function the interpreter does not model (see the crate
/// docs, *Undefined functions*) does.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum UnmodelledCalls {
    /// As the module says: in a program compiled for a target (a module with a
    /// `cir.triple`, as the C++ front end makes), every undefined function is a library
    /// function that really runs, so a call of one the interpreter does not model is an
    /// [`UnmodelledCalls::Error`]; in a module without a target (a scenario, like the
    /// seed's listings), undefined functions are [`UnmodelledCalls::Probe`]s.
    #[default]
    ByModule,
    /// The call is recorded in the trace and returns the function's `--returns` value,
    /// or zero (a zeroed aggregate).
    Probe,
    /// The run stops with a runtime error naming the function, at the call
    /// ([`crate::StopReason::Unmodelled`]).
    Error,
}

/// Which calls of a callee a spec applies to.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum CallSelector {
    /// The N-th call (1-based).
    Nth(u64),
    /// Every call.
    Every,
}

/// `--throw-at '@_Z1fv#2=int:7'`: the 2nd call of `@_Z1fv` throws the int 7.
#[derive(Clone, PartialEq, Debug)]
pub struct ThrowSpec {
    /// The callee's symbol, without `@`.
    pub callee: String,
    /// Which of its calls throw (`#2`, or `#*` for every call).
    pub selector: CallSelector,
    /// The thrown type as written: a fundamental type (`int`, `double`,
    /// `const char*`...), a class by its record name (`SomeClass`, `std::exception`), or
    /// a typeinfo symbol (`@_ZTI9SomeClass`).
    pub type_name: String,
    /// The value (`7`, `1.5`, `hello` for `const char*`); classes take none.
    pub value: Option<String>,
}

/// A value an undefined callee returns.
#[derive(Copy, Clone, PartialEq, Debug)]
pub enum ScriptValue {
    /// An integer, truncated to the callee's integer return type.
    Int(i128),
    /// A floating-point number, for a `float` or `double` return type.
    Float(f64),
    /// `true` or `false`, for a `bool` return type.
    Bool(bool),
    /// The null pointer, for a pointer return type.
    Null,
}

/// `--returns '@_ZN9SomeClass3getEv=5,7'`: successive calls return 5, then 7 forever.
#[derive(Clone, PartialEq, Debug)]
pub struct ReturnSpec {
    /// The callee's symbol, without `@`.
    pub callee: String,
    /// The values of its successive calls; the last one repeats forever.
    pub values: Vec<ScriptValue>,
}

fn parse_callee(s: &str) -> Result<&str, String> {
    let s = s.trim();
    let name = s.strip_prefix('@').unwrap_or(s);
    let name = name
        .strip_prefix('"')
        .and_then(|n| n.strip_suffix('"'))
        .unwrap_or(name);
    if name.is_empty() {
        return Err("missing callee name".into());
    }
    Ok(name)
}

/// Parses `@NAME[#N|#*]=TYPE[:VALUE]`.
pub fn parse_throw_spec(s: &str) -> Result<ThrowSpec, String> {
    let (lhs, rhs) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}': expected '@callee[#N]=TYPE[:VALUE]'"))?;
    let (callee, selector) = match lhs.rsplit_once('#') {
        Some((c, n)) => {
            let sel = if n.trim() == "*" {
                CallSelector::Every
            } else {
                let n: u64 = n
                    .trim()
                    .parse()
                    .map_err(|_| format!("'{s}': call number '{n}' is not a positive integer"))?;
                if n == 0 {
                    return Err(format!("'{s}': calls are numbered from 1"));
                }
                CallSelector::Nth(n)
            };
            (c, sel)
        }
        None => (lhs, CallSelector::Nth(1)),
    };
    let callee = parse_callee(callee).map_err(|e| format!("'{s}': {e}"))?;
    // The value follows the last ':' that is not part of a '::' scope separator.
    let bytes = rhs.as_bytes();
    let mut split = None;
    for i in (0..bytes.len()).rev() {
        if bytes[i] == b':' && bytes.get(i + 1) != Some(&b':') && (i == 0 || bytes[i - 1] != b':') {
            split = Some(i);
            break;
        }
    }
    let (type_name, value) = match split {
        Some(i) => (&rhs[..i], Some(rhs[i + 1..].to_string())),
        None => (rhs, None),
    };
    let type_name = type_name.trim();
    if type_name.is_empty() {
        return Err(format!("'{s}': missing exception type"));
    }
    Ok(ThrowSpec {
        callee: callee.to_string(),
        selector,
        type_name: type_name.to_string(),
        value,
    })
}

/// Parses one scripted value: an integer, a float, `true`/`false` or `null`.
pub fn parse_script_value(s: &str) -> Result<ScriptValue, String> {
    let t = s.trim();
    match t {
        "true" => return Ok(ScriptValue::Bool(true)),
        "false" => return Ok(ScriptValue::Bool(false)),
        "null" | "nullptr" => return Ok(ScriptValue::Null),
        _ => {}
    }
    if let Ok(v) = t.parse::<i128>() {
        return Ok(ScriptValue::Int(v));
    }
    if let Some(h) = t.strip_prefix("0x")
        && let Ok(v) = i128::from_str_radix(h, 16)
    {
        return Ok(ScriptValue::Int(v));
    }
    if let Ok(v) = t.parse::<f64>() {
        return Ok(ScriptValue::Float(v));
    }
    Err(format!("'{t}' is not a number, true, false or null"))
}

/// Parses `@NAME=V1,V2,...`.
pub fn parse_return_spec(s: &str) -> Result<ReturnSpec, String> {
    let (lhs, rhs) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}': expected '@callee=V1,V2,...'"))?;
    let callee = parse_callee(lhs).map_err(|e| format!("'{s}': {e}"))?;
    let values = rhs
        .split(',')
        .map(parse_script_value)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("'{s}': {e}"))?;
    if values.is_empty() {
        return Err(format!("'{s}': no values"));
    }
    Ok(ReturnSpec {
        callee: callee.to_string(),
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throw_specs() {
        let t = parse_throw_spec("@_Z1fv#2=int:7").unwrap();
        assert_eq!(t.callee, "_Z1fv");
        assert_eq!(t.selector, CallSelector::Nth(2));
        assert_eq!(t.type_name, "int");
        assert_eq!(t.value.as_deref(), Some("7"));
        let t = parse_throw_spec("@g=std::exception").unwrap();
        assert_eq!(t.selector, CallSelector::Nth(1));
        assert_eq!(t.type_name, "std::exception");
        assert_eq!(t.value, None);
        let t = parse_throw_spec("@g#*=const char*:oops").unwrap();
        assert_eq!(t.selector, CallSelector::Every);
        assert_eq!(t.type_name, "const char*");
        assert_eq!(t.value.as_deref(), Some("oops"));
        let t = parse_throw_spec("@g=ns::X:1").unwrap();
        assert_eq!(t.type_name, "ns::X");
        assert!(parse_throw_spec("@g#0=int:1").is_err());
        assert!(parse_throw_spec("@g#x=int:1").is_err());
        assert!(parse_throw_spec("@g").is_err());
        assert!(parse_throw_spec("@g=").is_err());
    }

    #[test]
    fn return_specs() {
        let r = parse_return_spec("@_ZN9SomeClass3getEv=5,7").unwrap();
        assert_eq!(r.callee, "_ZN9SomeClass3getEv");
        assert_eq!(r.values, vec![ScriptValue::Int(5), ScriptValue::Int(7)]);
        let r = parse_return_spec("@f=-1,2.5,true,null").unwrap();
        assert_eq!(
            r.values,
            vec![
                ScriptValue::Int(-1),
                ScriptValue::Float(2.5),
                ScriptValue::Bool(true),
                ScriptValue::Null
            ]
        );
        assert!(parse_return_spec("@f=abc").is_err());
        assert!(parse_return_spec("@f").is_err());
    }
}
