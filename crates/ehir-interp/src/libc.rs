//! The C library functions the interpreter models, with checked memory: every byte they
//! read or write goes through the memory model, so a `strcpy` past the end of its
//! buffer or a `strlen` of an unterminated array is a reported error (prefixed with the
//! function's name), as any other out-of-bounds access is.
//!
//! - `<stdio.h>`: `printf`, `fprintf`, `sprintf`, `snprintf`, `puts`, `fputs`,
//!   `putchar`, `putc`, `fputc`, `fwrite`, `fflush`, `setvbuf`, `setbuf`. stdout is
//!   buffered as glibc buffers it (`stdio.rs`); stderr is unbuffered and not traced. The
//!   streams are the external globals `stdin`, `stdout` and `stderr` (a module that
//!   declares them without an initializer gets a `FILE*` that points at the global
//!   itself, `@stdout+0`), or for a program compiled for Windows the elements of the
//!   array msvcrt's `__iob_func()` returns (`stdout` is `&__iob_func()[1]`); any other
//!   stream is an error, except that `fflush(NULL)` flushes stdout.
//! - `<string.h>`: `strlen`, `strcpy`, `strncpy`, `strcat`, `strncat`, `strcmp`,
//!   `strncmp`, `strchr`, `strrchr`, `strstr`, `memcpy`, `memmove`, `memset`,
//!   `memcmp`, `memchr`. Comparisons return the difference of the first differing
//!   bytes (as unsigned chars), as glibc does on x86-64; the functions read a string
//!   only as far as the C library does (`strncmp` stops at the first difference, a
//!   string argument of `strchr` at its terminator), so no access is reported that the
//!   real function would not make. `memcpy` of overlapping ranges behaves like
//!   `memmove`.
//! - `<stdlib.h>`: `atoi`, `atol`, `atoll` (`strtol` semantics: leading white space,
//!   a sign, decimal digits; out-of-range values saturate to the `long` range, then
//!   `atoi` truncates to `int` as glibc does), `abs`, `labs`, `llabs` (wrapping:
//!   `abs(INT_MIN)` is `INT_MIN`).

use crate::config::StdoutBuffering;
use crate::externals::ExternalResult;
use crate::machine::{Machine, Stop};
use crate::memory::{self, MemError};
use crate::printf::{self, Formatted};
use crate::trace::Event;
use crate::type_layout::Scalar;
use crate::values;
use ehir_core::{Symbol, Type, Value};

/// Strings longer than this are treated as unterminated (an error at the allocation's
/// end comes first for any real allocation, which is at most 4 GiB).
const MAX_STRING: usize = 1 << 32;

/// The size of msvcrt's `FILE` on x86-64 (`struct _iobuf`).
const MSVC_FILE_SIZE: u32 = 48;

/// A stream a `FILE*` names.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Stream {
    Stdin,
    Stdout,
    Stderr,
}

/// The standard streams by the name of their global.
fn stream_named(name: &str) -> Option<Stream> {
    match name {
        "stdin" => Some(Stream::Stdin),
        "stdout" => Some(Stream::Stdout),
        "stderr" => Some(Stream::Stderr),
        _ => None,
    }
}

/// Reads `printf` arguments from the machine.
struct PrintfArgs<'a, 'm> {
    machine: &'a Machine<'m>,
    args: &'a [u64],
    types: Vec<Scalar>,
    next: usize,
}

impl printf::Args for PrintfArgs<'_, '_> {
    fn next_arg(&mut self) -> Option<(u64, Scalar)> {
        let v = *self.args.get(self.next)?;
        let s = self.types.get(self.next).copied().unwrap_or(Scalar::Int {
            width: 64,
            signed: true,
        });
        self.next += 1;
        Some((v, s))
    }
    fn c_string(&self, p: u64, max: usize) -> Result<Vec<u8>, String> {
        self.machine
            .mem
            .read_c_string(p, max)
            .map_err(|e| match self.machine.mem_error(e) {
                Stop::Error(r) => r.message,
                _ => "bad string".into(),
            })
    }
    fn pointer(&self, p: u64) -> String {
        self.machine.render_ptr(p)
    }
}

impl<'m> Machine<'m> {
    /// msvcrt's `__iob_func()` (the function `__iob_func` names it): the array of its
    /// three standard streams, whose elements name them.
    pub(crate) fn msvc_iob(&mut self, function: Symbol) -> Result<u64, Stop> {
        if let Some(iob) = self.msvc_iob {
            return Ok(iob);
        }
        let iob = self
            .mem
            .allocate(
                u64::from(3 * MSVC_FILE_SIZE),
                memory::AllocKind::Global(function),
                self.frame_bytes,
            )
            .map_err(|e| self.mem_error(e))?;
        self.msvc_iob = Some(iob);
        Ok(iob)
    }

    /// Gives the `FILE*` globals `stdin`, `stdout` and `stderr` (declared without an
    /// initializer, at `p`) a value that names their stream.
    pub(crate) fn init_stream_global(&mut self, symbol: Symbol, p: u64) -> Result<(), Stop> {
        if stream_named(self.module.ctx.name(symbol)).is_some()
            && self.mem.len_of(p).is_ok_and(|n| n >= 8)
        {
            self.mem
                .init_bytes(p, &p.to_le_bytes())
                .map_err(|e| self.mem_error(e))?;
        }
        Ok(())
    }

    /// A memory error of C library function `function`.
    fn lib_error(&self, function: &str, e: MemError) -> Stop {
        match self.mem_error(e) {
            Stop::Error(mut r) => {
                r.message = format!("{function}: {}", r.message);
                Stop::Error(r)
            }
            other => other,
        }
    }

    /// The byte at `p + i`.
    fn byte_at(&self, function: &str, p: u64, i: u64) -> Result<u8, Stop> {
        self.mem
            .read_uint(memory::offset_by(p, i as i64), 1)
            .map(|b| b as u8)
            .map_err(|e| self.lib_error(function, e))
    }

    /// The NUL-terminated string at `p` (without the NUL).
    fn string_at(&self, function: &str, p: u64) -> Result<Vec<u8>, Stop> {
        self.mem
            .read_c_string(p, MAX_STRING)
            .map_err(|e| self.lib_error(function, e))
    }

    /// At most `max` bytes of the string at `p`, stopping at a NUL.
    fn string_prefix(&self, function: &str, p: u64, max: u64) -> Result<Vec<u8>, Stop> {
        self.mem
            .read_c_string(p, max.min(MAX_STRING as u64) as usize)
            .map_err(|e| self.lib_error(function, e))
    }

    fn write_at(&mut self, function: &str, p: u64, bytes: &[u8]) -> Result<(), Stop> {
        self.mem
            .write_bytes(p, bytes)
            .map_err(|e| self.lib_error(function, e))
    }

    /// `bytes` and a terminating NUL at `p`.
    fn write_string(&mut self, function: &str, p: u64, bytes: &[u8]) -> Result<(), Stop> {
        let mut with_nul = Vec::with_capacity(bytes.len() + 1);
        with_nul.extend_from_slice(bytes);
        with_nul.push(0);
        self.write_at(function, p, &with_nul)
    }

    /// The stream a `FILE*` argument names.
    fn stream_of(&self, function: &str, file: u64) -> Result<Stream, Stop> {
        if file == 0 {
            return Err(self.error(format!("{function}: null stream")));
        }
        if memory::decode(file).offset == 0
            && let Some(sym) = self.symbol_of_pointer(file)
            && let Some(s) = stream_named(self.module.ctx.name(sym))
        {
            return Ok(s);
        }
        if let Some(iob) = self.msvc_iob
            && memory::decode(file).slot == memory::decode(iob).slot
        {
            match memory::decode(file).offset / MSVC_FILE_SIZE {
                0 => return Ok(Stream::Stdin),
                1 => return Ok(Stream::Stdout),
                2 => return Ok(Stream::Stderr),
                _ => {}
            }
        }
        Err(self.error(format!(
            "{function}: {} is not a stream the interpreter models (stdout, stderr)",
            self.render_ptr(file)
        )))
    }

    /// Records text written to stdout in the trace.
    fn trace_output(&mut self, bytes: &[u8]) {
        if self.config.record_trace && !bytes.is_empty() {
            self.record(Event::Output {
                text: String::from_utf8_lossy(bytes).into_owned(),
            });
        }
    }

    /// `printf`'s writes to stdout.
    fn print_formatted(&mut self, text: &Formatted) {
        for w in text.writes() {
            self.stdout.write(w);
        }
        self.trace_output(&text.bytes);
    }

    /// One write of `bytes` to `stream`.
    fn write_stream(&mut self, stream: Stream, bytes: &[u8]) -> Result<(), Stop> {
        match stream {
            Stream::Stdout => {
                self.stdout.write(bytes);
                self.trace_output(bytes);
            }
            Stream::Stderr => self.stderr.extend_from_slice(bytes),
            Stream::Stdin => {
                return Err(self.error("write to stdin".into()));
            }
        }
        Ok(())
    }

    fn put_char(&mut self, stream: Stream, c: u8) -> Result<(), Stop> {
        match stream {
            Stream::Stdout => {
                self.stdout.put_char(c);
                self.trace_output(&[c]);
            }
            Stream::Stderr => self.stderr.push(c),
            Stream::Stdin => {
                return Err(self.error("write to stdin".into()));
            }
        }
        Ok(())
    }

    /// Formats the arguments of a `printf`-like call whose format is argument
    /// `format_index`.
    fn format_call(
        &mut self,
        function: &str,
        format_index: usize,
        args: &[u64],
        arg_values: Option<&[Value]>,
    ) -> Result<Formatted, Stop> {
        let fmt = self.string_at(function, args.get(format_index).copied().unwrap_or(0))?;
        let types = match arg_values {
            Some(vals) => vals
                .iter()
                .skip(format_index + 1)
                .map(|&v| self.scalar_of(v))
                .collect(),
            None => Vec::new(),
        };
        let mut source = PrintfArgs {
            machine: self,
            args: args.get(format_index + 1..).unwrap_or(&[]),
            types,
            next: 0,
        };
        printf::format(&fmt, &mut source).map_err(|m| self.error(format!("{function}: {m}")))
    }

    /// An integer result as the call's result type holds it.
    fn int_result(&self, x: i64, result_ty: Option<Type>) -> u64 {
        match result_ty.map(|t| self.layouts.get(t).scalar) {
            Some(Scalar::Int { width, signed }) => values::canon(x as u64, width, signed),
            _ => x as u64,
        }
    }

    /// Compares at most `limit` bytes of `a` and `b`, stopping after a NUL when
    /// `strings`; the difference of the first differing bytes.
    fn compare(
        &self,
        function: &str,
        a: u64,
        b: u64,
        limit: u64,
        strings: bool,
    ) -> Result<i64, Stop> {
        if !strings {
            let x = self
                .mem
                .read_bytes(a, limit)
                .map_err(|e| self.lib_error(function, e))?;
            let y = self
                .mem
                .read_bytes(b, limit)
                .map_err(|e| self.lib_error(function, e))?;
            return Ok(x
                .iter()
                .zip(y)
                .find(|(p, q)| p != q)
                .map(|(&p, &q)| i64::from(p) - i64::from(q))
                .unwrap_or(0));
        }
        for i in 0..limit {
            let x = self.byte_at(function, a, i)?;
            let y = self.byte_at(function, b, i)?;
            if x != y {
                return Ok(i64::from(x) - i64::from(y));
            }
            if x == 0 {
                break;
            }
        }
        Ok(0)
    }

    /// `strtol`-style decimal parse of the string at `p`, saturated to the `long` range.
    fn parse_long(&self, function: &str, p: u64) -> Result<i64, Stop> {
        let mut i = 0u64;
        let mut c = self.byte_at(function, p, i)?;
        while matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
            i += 1;
            c = self.byte_at(function, p, i)?;
        }
        let negative = c == b'-';
        if c == b'-' || c == b'+' {
            i += 1;
            c = self.byte_at(function, p, i)?;
        }
        let mut magnitude: i128 = 0;
        while c.is_ascii_digit() {
            magnitude = (magnitude * 10 + i128::from(c - b'0')).min(1 << 64);
            i += 1;
            c = self.byte_at(function, p, i)?;
        }
        let v = if negative { -magnitude } else { magnitude };
        Ok(v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
    }

    /// Calls C library function `name` if the interpreter models it.
    pub(crate) fn call_c_library(
        &mut self,
        name: &str,
        args: &[u64],
        arg_values: Option<&[Value]>,
        result_ty: Option<Type>,
    ) -> Result<Option<ExternalResult>, Stop> {
        let arg = |i: usize| args.get(i).copied().unwrap_or(0);
        let value = |v: u64| Ok(Some(ExternalResult::Value(Some(v))));
        match name {
            // ---- <stdio.h> ----
            "printf" => {
                let text = self.format_call(name, 0, args, arg_values)?;
                self.print_formatted(&text);
                value(self.int_result(text.bytes.len() as i64, result_ty))
            }
            "fprintf" => {
                let stream = self.stream_of(name, arg(0))?;
                let text = self.format_call(name, 1, args, arg_values)?;
                match stream {
                    Stream::Stdout => self.print_formatted(&text),
                    other => self.write_stream(other, &text.bytes)?,
                }
                value(self.int_result(text.bytes.len() as i64, result_ty))
            }
            "sprintf" => {
                let text = self.format_call(name, 1, args, arg_values)?;
                self.write_string(name, arg(0), &text.bytes)?;
                value(self.int_result(text.bytes.len() as i64, result_ty))
            }
            "snprintf" => {
                let text = self.format_call(name, 2, args, arg_values)?;
                let size = arg(1);
                if size > 0 {
                    let n = (text.bytes.len() as u64).min(size - 1) as usize;
                    self.write_string(name, arg(0), &text.bytes[..n])?;
                }
                value(self.int_result(text.bytes.len() as i64, result_ty))
            }
            "puts" => {
                let text = self.string_at(name, arg(0))?;
                self.stdout.write(&text);
                self.stdout.put_char(b'\n');
                let mut traced = text;
                traced.push(b'\n');
                self.trace_output(&traced);
                value(self.int_result(traced.len() as i64, result_ty))
            }
            "fputs" => {
                let text = self.string_at(name, arg(0))?;
                let stream = self.stream_of(name, arg(1))?;
                self.write_stream(stream, &text)?;
                value(self.int_result(1, result_ty))
            }
            "putchar" => {
                let c = arg(0) as u8;
                self.put_char(Stream::Stdout, c)?;
                value(u64::from(c))
            }
            "putc" | "fputc" | "_IO_putc" => {
                let c = arg(0) as u8;
                let stream = self.stream_of(name, arg(1))?;
                self.put_char(stream, c)?;
                value(u64::from(c))
            }
            "fwrite" => {
                let (size, count) = (arg(1), arg(2));
                let stream = self.stream_of(name, arg(3))?;
                let total = size.saturating_mul(count);
                let bytes = self
                    .mem
                    .read_bytes(arg(0), total)
                    .map_err(|e| self.lib_error(name, e))?
                    .to_vec();
                self.write_stream(stream, &bytes)?;
                value(if size == 0 { 0 } else { count })
            }
            "fflush" => {
                if arg(0) == 0 || self.stream_of(name, arg(0))? == Stream::Stdout {
                    self.stdout.flush();
                }
                value(0)
            }
            "setvbuf" | "setbuf" => {
                let stream = self.stream_of(name, arg(0))?;
                let buffer = arg(1);
                // glibc: _IOFBF 0, _IOLBF 1, _IONBF 2; setbuf(f, b) is
                // setvbuf(f, b, b ? _IOFBF : _IONBF, BUFSIZ).
                let (mode, size) = if name == "setbuf" {
                    (if buffer == 0 { 2 } else { 0 }, 8192)
                } else {
                    (arg(2) as i32, arg(3))
                };
                if buffer != 0 && mode != 2 {
                    self.mem
                        .check(buffer, size)
                        .map_err(|e| self.lib_error(name, e))?;
                }
                let size = u32::try_from(size).unwrap_or(u32::MAX);
                let buffering = match mode {
                    0 => StdoutBuffering::Full { size },
                    1 => StdoutBuffering::Line { size },
                    2 => StdoutBuffering::Unbuffered,
                    _ => return value(self.int_result(-1, result_ty)),
                };
                if stream == Stream::Stdout {
                    self.stdout
                        .set_buffering(buffering, buffer != 0 && mode != 2);
                }
                if name == "setbuf" {
                    Ok(Some(ExternalResult::Value(None)))
                } else {
                    value(0)
                }
            }
            // ---- <string.h> ----
            "strlen" => {
                let s = self.string_at(name, arg(0))?;
                value(s.len() as u64)
            }
            "strcpy" => {
                let s = self.string_at(name, arg(1))?;
                self.write_string(name, arg(0), &s)?;
                value(arg(0))
            }
            "strncpy" => {
                let n = arg(2);
                self.mem
                    .check(arg(0), n)
                    .map_err(|e| self.lib_error(name, e))?;
                let mut s = self.string_prefix(name, arg(1), n)?;
                s.resize(n as usize, 0);
                self.write_at(name, arg(0), &s)?;
                value(arg(0))
            }
            "strcat" | "strncat" => {
                let dst_len = self.string_at(name, arg(0))?.len();
                let s = if name == "strcat" {
                    self.string_at(name, arg(1))?
                } else {
                    self.string_prefix(name, arg(1), arg(2))?
                };
                let end = memory::offset_by(arg(0), dst_len as i64);
                self.write_string(name, end, &s)?;
                value(arg(0))
            }
            "strcmp" | "strncmp" | "memcmp" => {
                let limit = if name == "strcmp" { u64::MAX } else { arg(2) };
                let d = self.compare(name, arg(0), arg(1), limit, name != "memcmp")?;
                value(self.int_result(d, result_ty))
            }
            "strchr" | "strrchr" => {
                let s = self.string_at(name, arg(0))?;
                let c = arg(1) as u8;
                let found = if c == 0 {
                    Some(s.len())
                } else if name == "strchr" {
                    s.iter().position(|&b| b == c)
                } else {
                    s.iter().rposition(|&b| b == c)
                };
                value(found.map_or(0, |i| memory::offset_by(arg(0), i as i64)))
            }
            "strstr" => {
                let hay = self.string_at(name, arg(0))?;
                let needle = self.string_at(name, arg(1))?;
                let found = if needle.is_empty() {
                    Some(0)
                } else {
                    hay.windows(needle.len()).position(|w| w == needle)
                };
                value(found.map_or(0, |i| memory::offset_by(arg(0), i as i64)))
            }
            "memchr" => {
                let c = arg(1) as u8;
                for i in 0..arg(2) {
                    if self.byte_at(name, arg(0), i)? == c {
                        return value(memory::offset_by(arg(0), i as i64));
                    }
                }
                value(0)
            }
            "memcpy" | "memmove" => {
                self.mem
                    .copy(arg(0), arg(1), arg(2))
                    .map_err(|e| self.lib_error(name, e))?;
                value(arg(0))
            }
            "memset" => {
                // Checked before the fill is built: a huge count is an error, not a
                // huge host allocation.
                self.mem
                    .check(arg(0), arg(2))
                    .map_err(|e| self.lib_error(name, e))?;
                let bytes = vec![arg(1) as u8; arg(2) as usize];
                self.write_at(name, arg(0), &bytes)?;
                value(arg(0))
            }
            // ---- <stdlib.h> ----
            "atoi" | "atol" | "atoll" => {
                let v = self.parse_long(name, arg(0))?;
                let v = if name == "atoi" {
                    i64::from(v as i32)
                } else {
                    v
                };
                value(self.int_result(v, result_ty))
            }
            "abs" => value(self.int_result(i64::from((arg(0) as i32).wrapping_abs()), result_ty)),
            "labs" | "llabs" => value(self.int_result((arg(0) as i64).wrapping_abs(), result_ty)),
            _ => Ok(None),
        }
    }
}
