//! `--verify-diagnostics`: checks the errors a file produces against its
//! `// expected-error {{text}}` annotations (`@+N` / `@-N` for other lines), like
//! `mlir-opt -verify-diagnostics`.

use crate::input::Source;
use anyhow::Result;
use ehir_core::{Diagnostics, SourceFile};

struct Expected {
    line: usize,
    text: String,
    annotation_line: usize,
}

fn expectations(text: &str) -> Vec<Expected> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(pos) = rest.find("expected-error") {
            rest = &rest[pos + "expected-error".len()..];
            let mut target = i + 1;
            if let Some(r) = rest.strip_prefix('@') {
                let sign_len = r.chars().next().map(|c| c.len_utf8()).unwrap_or(0);
                let digits: String = r[sign_len..]
                    .chars()
                    .take_while(|c| c.is_ascii_digit())
                    .collect();
                let n: usize = digits.parse().unwrap_or(0);
                if r.starts_with('+') {
                    target = i + 1 + n;
                } else if r.starts_with('-') {
                    target = (i + 1).saturating_sub(n);
                }
                rest = &r[sign_len + digits.len()..];
            }
            let Some(open) = rest.find("{{") else { break };
            let Some(close) = rest[open..].find("}}") else {
                break;
            };
            out.push(Expected {
                line: target,
                text: rest[open + 2..open + close].to_string(),
                annotation_line: i + 1,
            });
            rest = &rest[open + close + 2..];
        }
    }
    out
}

/// Returns exit status 0 when the produced errors match the annotations exactly.
pub fn check(source: &Source, passes: Option<&str>) -> Result<i32> {
    let diagnostics: Diagnostics = match source.parse() {
        Err(d) => d,
        Ok(mut module) => match ehir_core::verifier::verify_module(&module) {
            Err(d) => d,
            Ok(()) => match passes {
                None => Diagnostics::default(),
                Some(p) => {
                    // Pass errors are reported through the normal path.
                    crate::opt::run_passes(source, &mut module, p, false)?;
                    Diagnostics::default()
                }
            },
        },
    };
    let file = SourceFile::new(&source.name, &source.text);
    let mut expected = expectations(&source.text);
    let mut failures = Vec::new();
    for d in &diagnostics.0 {
        let line = d.loc.offset().map(|o| file.line_col(o).0);
        let found = expected
            .iter()
            .position(|e| Some(e.line) == line && d.message.contains(&e.text));
        match found {
            Some(i) => {
                expected.remove(i);
            }
            None => failures.push(format!("unexpected error:\n{}", file.render(d))),
        }
    }
    for e in expected {
        failures.push(format!(
            "{}:{}: expected error not produced (annotation on line {}): {}\n",
            source.name, e.line, e.annotation_line, e.text
        ));
    }
    if failures.is_empty() {
        Ok(0)
    } else {
        for f in failures {
            eprint!("{f}");
        }
        Ok(1)
    }
}
