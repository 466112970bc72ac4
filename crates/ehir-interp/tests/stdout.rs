//! stdout behaves as a g++-built program's writing to a pipe: glibc buffers it fully
//! (4096 bytes), `exit` and a return from `main` flush it, `abort` — and so
//! `std::terminate` — loses what is buffered. The expected byte counts were measured
//! with g++ 12 / glibc 2.36 programs doing the same writes (`./a.out | wc -c`).

mod common;

use common::program::{I, P, Program, U};
use common::*;
use ehir_interp::{EXIT_ABORT, Event, RunOutcome, StdoutBuffering};

const V: &str = "!cir.ptr<!void>";

/// One write the measured programs made.
#[derive(Copy, Clone)]
enum Write {
    /// `n` × `putchar`.
    Chars(u64),
    /// `printf("%s", s)` with `strlen(s) == n`.
    Str(usize),
    /// `printf(s)`: a literal run of `n` bytes.
    Literal(usize),
    /// `puts(s)`: `n - 1` bytes and the newline.
    Puts(usize),
}

fn emit(p: &mut Program, w: Write) {
    match w {
        Write::Chars(n) => p.putchars(b'y', n),
        Write::Str(n) => {
            let fmt = p.string("%s");
            let s = p.string(&"x".repeat(n));
            p.call_with("printf", &[(&fmt, P), (&s, P)], I, Some(1));
        }
        Write::Literal(n) => {
            let s = p.string(&"x".repeat(n));
            p.call_with("printf", &[(&s, P)], I, Some(1));
        }
        Write::Puts(n) => {
            let s = p.string(&"x".repeat(n - 1));
            p.call("puts", &[(&s, P)], I);
        }
    }
}

fn program(writes: &[Write]) -> Program {
    let mut p = Program::default();
    for &w in writes {
        emit(&mut p, w);
    }
    p
}

/// Everything the program wrote, from the trace.
fn traced_output(o: &RunOutcome) -> Vec<u8> {
    o.trace
        .iter()
        .filter_map(|e| match e {
            Event::Output { text } => Some(text.as_bytes().to_vec()),
            _ => None,
        })
        .flatten()
        .collect()
}

fn aborted(p: &Program) -> RunOutcome {
    let o = p.run();
    assert_eq!(o.exit_status, EXIT_ABORT, "{:?}", o.runtime_error);
    // Nothing is invented or reordered: what reached stdout and what was lost make up
    // what the program wrote.
    let mut all = o.stdout.clone();
    all.extend_from_slice(&o.stdout_lost);
    assert_eq!(all, traced_output(&o));
    o
}

#[test]
fn abort_loses_what_the_buffer_holds() {
    use Write::*;
    // (writes, bytes that reach the pipe), measured.
    let cases: &[(&[Write], usize)] = &[
        (&[Chars(100)], 0),
        (&[Chars(4095)], 0),
        (&[Chars(4096)], 0),
        (&[Chars(4097)], 4096),
        (&[Chars(8192)], 4096),
        (&[Chars(8193)], 8192),
        (&[Chars(10000)], 8192),
        (&[Str(4096)], 4096),
        (&[Chars(1), Str(4095)], 0),
        (&[Str(8192)], 8192),
        (&[Chars(1), Str(8191)], 8192),
        (&[Chars(5), Str(8187)], 8192),
        (&[Chars(4096), Str(4096)], 8192),
        (&[Chars(4096), Str(8192)], 12288),
        (&[Literal(4096)], 4096),
        (&[Literal(8192)], 8192),
        (&[Chars(10), Literal(8182)], 8192),
        (&[Puts(4096)], 0),
        (&[Puts(8192)], 4096),
        (&[Puts(4097)], 4096),
        (&[Str(5000)], 4096),
        (&[Str(3000), Str(3000)], 4096),
    ];
    for (writes, expected) in cases {
        let mut p = program(writes);
        p.call("abort", &[], "");
        let o = aborted(&p);
        assert_eq!(o.stdout.len(), *expected, "{:?}", writes.len());
    }
}

#[test]
fn padding_goes_out_in_short_writes() {
    // printf("%*d", n, 7): 16-byte pieces of padding, then the digit (measured: 10000 →
    // 8192 bytes, 4096 → 0).
    for (width, expected) in [(10000, 8192), (4096, 0)] {
        let mut p = Program::default();
        let fmt = p.string("%*d");
        let w = p.int(width, I);
        let seven = p.int(7, I);
        p.call_with("printf", &[(&fmt, P), (&w, I), (&seven, I)], I, Some(1));
        p.call("abort", &[], "");
        assert_eq!(aborted(&p).stdout.len(), expected);
    }
}

#[test]
fn exit_and_return_flush_but_quick_exits_do_not() {
    let mut p = program(&[Write::Chars(10000)]);
    let zero = p.int(0, I);
    p.call("exit", &[(&zero, I)], "");
    let o = p.run();
    assert_eq!((o.exit_status, o.stdout.len()), (0, 10000));
    let o = program(&[Write::Chars(10000)]).run();
    assert_eq!((o.exit_status, o.stdout.len()), (0, 10000));
    for quick in ["_Exit", "quick_exit"] {
        let mut p = program(&[Write::Chars(10000)]);
        let five = p.int(5, I);
        p.call(quick, &[(&five, I)], "");
        let o = p.run();
        assert_eq!((o.exit_status, o.stdout.len()), (5, 8192), "{quick}");
        assert_eq!(o.stdout_lost.len(), 1808);
    }
}

#[test]
fn std_terminate_aborts_and_loses_the_buffer() {
    let mut p = program(&[Write::Chars(10000)]);
    p.call("boom", &[], "");
    let o = run_with(&p.text(), &["@boom=int:1"], &[], |_| {});
    assert_eq!(o.exit_status, EXIT_ABORT);
    assert_eq!(o.stdout.len(), 8192);
    assert_eq!(
        stderr(&o),
        "terminate called after throwing an instance of 'int'\n"
    );
    let mut p = program(&[Write::Chars(10000)]);
    p.call("_ZSt9terminatev", &[], "");
    let o = p.run();
    assert_eq!((o.exit_status, o.stdout.len()), (EXIT_ABORT, 8192));
}

#[test]
fn fflush_writes_the_buffer_out() {
    // fflush(stdout), fflush(NULL); fflush(stderr) leaves stdout alone.
    let mut p = Program::default();
    let a = p.string("before\n");
    p.call_with("printf", &[(&a, P)], I, Some(1));
    let out = p.stream("stdout");
    p.call("fflush", &[(&out, V)], I);
    let b = p.string("middle\n");
    p.call_with("printf", &[(&b, P)], I, Some(1));
    let null = p.value();
    p.line(format!(
        "{null} = cir.const #cir.ptr<null> : !cir.ptr<!void>"
    ));
    p.call("fflush", &[(&null, V)], I);
    let c = p.string("after\n");
    p.call_with("printf", &[(&c, P)], I, Some(1));
    let err = p.stream("stderr");
    p.call("fflush", &[(&err, V)], I);
    p.call("abort", &[], "");
    let o = aborted(&p);
    assert_eq!(stdout(&o), "before\nmiddle\n");
    assert_eq!(o.stdout_lost, b"after\n");
}

#[test]
fn setvbuf_makes_stdout_unbuffered() {
    let mut p = Program::default();
    let a = p.string("abc");
    p.call_with("printf", &[(&a, P)], I, Some(1));
    let out = p.stream("stdout");
    let null = p.value();
    p.line(format!(
        "{null} = cir.const #cir.ptr<null> : !cir.ptr<!s8i>"
    ));
    let nbf = p.int(2, I);
    let zero = p.int(0, U);
    let r = p.call(
        "setvbuf",
        &[(&out, V), (&null, P), (&nbf, I), (&zero, U)],
        I,
    );
    p.mark(&r, I);
    let d = p.string("def");
    p.call_with("printf", &[(&d, P)], I, Some(1));
    p.call("abort", &[], "");
    let o = aborted(&p);
    // Measured: "abcdef" reaches the pipe.
    assert_eq!(stdout(&o), "abcdef");
    assert_eq!(calls(&o), ["call @mark_s32i(0)"]);
}

#[test]
fn stream_functions_write_where_they_are_told() {
    let mut p = Program::default();
    let out = p.stream("stdout");
    let err = p.stream("stderr");
    let fmt = p.string("%s=%d\n");
    let name = p.string("x");
    let v = p.int(3, I);
    p.call_with(
        "fprintf",
        &[(&err, V), (&fmt, P), (&name, P), (&v, I)],
        I,
        Some(2),
    );
    p.call_with(
        "fprintf",
        &[(&out, V), (&fmt, P), (&name, P), (&v, I)],
        I,
        Some(2),
    );
    let text = p.string("line");
    p.call("fputs", &[(&text, P), (&out, V)], I);
    let c = p.int(b'!', I);
    p.call("fputc", &[(&c, I), (&out, V)], I);
    p.call("putc", &[(&c, I), (&err, V)], I);
    let one = p.int(1, U);
    let three = p.int(3, U);
    p.call(
        "fwrite",
        &[(&text, P), (&one, U), (&three, U), (&out, V)],
        U,
    );
    let o = p.run();
    assert_eq!(o.exit_status, 0, "{:?}", o.runtime_error);
    assert_eq!(stdout(&o), "x=3\nline!lin");
    assert_eq!(stderr(&o), "x=3\n!");
}

#[test]
fn a_pointer_that_is_no_stream_is_an_error() {
    let mut p = Program::default();
    let buf = p.buffer("buf", 8);
    let text = p.string("line");
    p.call("fputs", &[(&text, P), (&buf, P)], I);
    let o = p.run();
    let e = o.runtime_error.expect("an error");
    assert_eq!(
        e.message,
        "fputs: &buf+0 is not a stream the interpreter models (stdout, stderr)"
    );
}

#[test]
fn unbuffered_configuration_keeps_everything() {
    let mut p = program(&[Write::Chars(10000)]);
    p.call("abort", &[], "");
    let o = p.run_with(|c| c.stdout_buffering = StdoutBuffering::Unbuffered);
    assert_eq!((o.exit_status, o.stdout.len()), (EXIT_ABORT, 10000));
    assert!(o.stdout_lost.is_empty());
}

#[test]
fn interpreter_errors_keep_the_output() {
    let mut p = program(&[Write::Literal(10)]);
    let buf = p.buffer("buf", 2);
    let s = p.string("too long");
    p.call("strcpy", &[(&buf, P), (&s, P)], P);
    let o = p.run();
    assert!(o.runtime_error.is_some());
    assert_eq!(o.stdout.len(), 10);
}
