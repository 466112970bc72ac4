//! `--verify-diagnostics`: checks the errors a file produces against its
//! `// expected-error {{text}}` annotations, like `mlir-opt -verify-diagnostics`. The
//! target line is the annotation's own line, or `@below`, `@above`, `@+N`, `@-N` (with or
//! without a space after `expected-error`); `expected-warning`, `expected-remark` and
//! `expected-note` annotations are ignored (ehir reports errors only). With passes, the
//! module is parsed, verified and run through them, and a pass's errors are checked like
//! the others.

use crate::input::Source;
use anyhow::Result;
use ehir_core::verifier::Rules;
use ehir_core::{Diagnostics, Module, SourceFile};

/// One `expected-error` annotation.
struct Expected {
    /// The line (1-based) where the error is expected.
    line: usize,
    text: String,
    annotation_line: usize,
}

/// The line an annotation on `line` (1-based) targets, from what follows
/// `expected-error` (`rest`); returns the target and the text after the designator.
fn target_line<'t>(line: usize, lines: &[&str], rest: &'t str) -> (usize, &'t str) {
    let trimmed = rest.trim_start();
    let Some(designator) = trimmed.strip_prefix('@') else {
        return (line, rest);
    };
    if let Some(after) = designator.strip_prefix("below") {
        return (next_code_line(lines, line, true), after);
    }
    if let Some(after) = designator.strip_prefix("above") {
        return (next_code_line(lines, line, false), after);
    }
    let sign = designator.chars().next().unwrap_or(' ');
    let digits_from = if matches!(sign, '+' | '-') { 1 } else { 0 };
    let digits: String = designator[digits_from..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let n: usize = digits.parse().unwrap_or(0);
    let after = &designator[digits_from + digits.len()..];
    let target = match sign {
        '+' => line + n,
        '-' => line.saturating_sub(n),
        _ => line,
    };
    (target, after)
}

/// The nearest line after (or before) `line` that is not only an annotation comment:
/// what `@below` and `@above` designate.
fn next_code_line(lines: &[&str], line: usize, below: bool) -> usize {
    let is_annotation = |l: &str| {
        let t = l.trim_start();
        t.starts_with("//") && t.contains("expected-")
    };
    let mut at = line;
    loop {
        at = if below {
            at + 1
        } else {
            match at.checked_sub(1) {
                Some(0) | None => return line,
                Some(a) => a,
            }
        };
        match lines.get(at - 1) {
            None => return line,
            Some(l) if !is_annotation(l) => return at,
            Some(_) => {}
        }
    }
}

fn expectations(text: &str) -> Vec<Expected> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let mut rest = *line;
        while let Some(pos) = rest.find("expected-error") {
            rest = &rest[pos + "expected-error".len()..];
            let (target, after) = target_line(i + 1, &lines, rest);
            rest = after;
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

/// The errors of `source`: the reader's, else the verifier's (under `rules`), else those of the passes
/// `pipeline` gives for the module.
fn diagnostics_of(
    source: &Source,
    rules: Rules,
    pipeline: &dyn Fn(&Module) -> Result<Option<String>, Diagnostics>,
) -> Diagnostics {
    let mut module = match source.parse_for(ehir_core::abi::EhAbi::Itanium) {
        Err(d) => return d,
        Ok(m) => m,
    };
    if let Err(d) = ehir_core::verifier::verify_module_with(&module, rules) {
        return d;
    }
    match pipeline(&module) {
        Err(d) => d,
        Ok(None) => Diagnostics::default(),
        Ok(Some(passes)) => match crate::opt::run_pipeline(&mut module, &passes, false) {
            Err(d) => d,
            Ok(()) => Diagnostics::default(),
        },
    }
}

/// Returns exit status 0 when the produced errors match the annotations exactly.
pub fn check(
    source: &Source,
    rules: Rules,
    pipeline: &dyn Fn(&Module) -> Result<Option<String>, Diagnostics>,
) -> Result<i32> {
    let diagnostics = diagnostics_of(source, rules, pipeline);
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

#[cfg(test)]
mod tests {
    use super::expectations;

    #[test]
    fn designators() {
        let text = "a\n// expected-error @below {{one}}\nb\n// expected-error@+2 {{two}}\n\nc\nd // expected-error {{three}}\n// expected-error @above {{four}}\n// expected-error @-3 {{five}}\n// expected-warning {{ignored}}\n";
        let found: Vec<(usize, String)> = expectations(text)
            .into_iter()
            .map(|e| (e.line, e.text))
            .collect();
        let want: Vec<(usize, String)> = [
            (3, "one"),
            (6, "two"),
            (7, "three"),
            (7, "four"),
            (6, "five"),
        ]
        .into_iter()
        .map(|(l, t)| (l, t.to_string()))
        .collect();
        assert_eq!(found, want);
    }
}
