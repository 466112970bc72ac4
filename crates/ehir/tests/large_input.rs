//! `ehir opt` maps inputs of 1 MiB and more instead of reading them: the printed module,
//! the diagnostics and the error for text that is not UTF-8 are those of small inputs.

use std::fmt::Write as _;
use std::process::Command;

/// A module of `functions` functions, over 1 MiB for 400 of them.
fn module(functions: usize) -> String {
    let mut s = String::from("cir.func @g(!s32i)\n");
    for f in 0..functions {
        let _ = writeln!(s, "cir.func @f{f}(%arg0: !cir.ptr<!s32i>) {{");
        for u in 0..20 {
            let _ = write!(
                s,
                "  cir.scope {{\n    %a{u} = cir.load %arg0 : !cir.ptr<!s32i>, !s32i\n    \
                 %b{u} = cir.const #cir.int<{u}> : !s32i\n    \
                 %c{u} = cir.cmp(eq, %a{u}, %b{u}) : !s32i, !cir.bool\n    \
                 cir.if %c{u} {{\n      cir.call @g(%a{u}) : (!s32i) -> ()\n    }}\n  }}\n"
            );
        }
        s.push_str("  cir.return\n}\n");
    }
    s
}

fn ehir_opt(path: &std::path::Path) -> std::process::Output {
    ehir_opt_with(path, &[])
}

fn ehir_opt_with(path: &std::path::Path, flags: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ehir"))
        .arg("opt")
        .args(flags)
        .arg(path)
        .output()
        .expect("run ehir")
}

#[test]
fn a_large_input_prints_like_the_library() {
    let text = module(400);
    assert!(text.len() > 1 << 20, "the input is large: {}", text.len());
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("large.cir");
    std::fs::write(&path, &text).expect("write input");
    let out = ehir_opt(&path);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let module = ehir_reader::parse_module("large.cir", &text).expect("parses");
    let printed = ehir_core::printer::module_to_string(&module);
    assert_eq!(String::from_utf8(out.stdout).expect("UTF-8"), printed);
}

#[test]
fn a_large_input_reports_errors_with_its_lines() {
    let text = module(400).replacen("#cir.int<7> : !s32i", "#cir.int<7> : !s64i", 333);
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("bad.cir");
    std::fs::write(&path, &text).expect("write input");
    // By default the first 20 errors are shown, then a count of the others.
    let out = ehir_opt(&path);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    assert_eq!(stderr.matches(": error:").count(), 20);
    assert!(stderr.contains("ehir: 313 more error(s) in "), "{stderr}");
    let out = ehir_opt_with(&path, &["--error-limit", "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    // The 333rd function's compare, with its line and the source line under it.
    let line = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("%c7 = cir.cmp"))
        .nth(332)
        .map(|(i, _)| i + 1)
        .expect("line of the compare");
    let want = format!(
        "bad.cir:{line}:5: error: the operands of 'cir.cmp(eq)' have different types !s32i and !s64i"
    );
    assert!(stderr.contains(&want), "expected {want:?} in {stderr}");
    assert!(stderr.contains("    %c7 = cir.cmp(eq, %a7, %b7) : !s32i, !cir.bool\n    ^"));
    assert_eq!(stderr.matches("error:").count(), 333);
}

#[test]
fn a_large_input_that_is_not_utf8_is_an_error() {
    let mut bytes = module(400).into_bytes();
    bytes.insert(600_000, 0xff);
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("bytes.cir");
    std::fs::write(&path, &bytes).expect("write input");
    let out = ehir_opt(&path);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    let before = &bytes[..600_000];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let col = 600_000 - line_start + 1;
    let first = stderr.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!(
            "{}:{line}:{col}: error: the input is not valid UTF-8 (byte 0xff)",
            path.display()
        )
    );
    assert_eq!(
        stderr.lines().count(),
        3,
        "message, source line, caret: {stderr}"
    );
}
