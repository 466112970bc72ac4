//! `printf` formatting with the C conversions: `%d %i %u %o %x %X %c %s %p %f %F %e %E
//! %g %G %%`, flags `- + space # 0`, width and precision (also `*`), and the length
//! modifiers `hh h l ll z j t L q`. `%p` prints the pointer the way traces do (`&c+0`)
//! so that output is the same at every phase; `%n` and `%a` are refused.
//!
//! The result keeps the boundaries of the writes glibc 2.36's `vfprintf` makes to the
//! stream, which decide what reaches a buffered stdout before an `abort` (see
//! `stdio.rs`): each literal run of the format and each `%s`, `%p` and floating-point
//! body is one write; padding goes out in writes of at most 16 bytes (`_IO_padn`), and
//! so do integer conversions and `%c` (whose writes are all that short in glibc).

use crate::type_layout::Scalar;
use crate::values;

/// Where `printf` gets its arguments and reads memory.
pub trait Args {
    /// The next variadic argument with its scalar class.
    fn next_arg(&mut self) -> Option<(u64, Scalar)>;
    /// The NUL-terminated string at a pointer (at most `max` bytes).
    fn c_string(&self, p: u64, max: usize) -> Result<Vec<u8>, String>;
    /// A pointer as traces print it.
    fn pointer(&self, p: u64) -> String;
}

#[derive(Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

/// The most a write of padding (or of a short conversion) holds: glibc's `PADSIZE`.
const SHORT_WRITE: usize = 16;

/// Formatted text and the boundaries of the writes that produce it.
#[derive(Default, Debug)]
pub struct Formatted {
    pub bytes: Vec<u8>,
    /// End offset of each write, in order; the last is `bytes.len()`.
    pub ends: Vec<usize>,
}

impl Formatted {
    /// One write of `data`.
    fn whole(&mut self, data: &[u8]) {
        if !data.is_empty() {
            self.bytes.extend_from_slice(data);
            self.ends.push(self.bytes.len());
        }
    }

    /// `data` in writes of at most [`SHORT_WRITE`] bytes.
    fn short(&mut self, data: &[u8]) {
        for chunk in data.chunks(SHORT_WRITE) {
            self.whole(chunk);
        }
    }

    /// `n` copies of `byte`, as `_IO_padn` writes them.
    fn fill(&mut self, byte: u8, n: usize) {
        let block = [byte; SHORT_WRITE];
        let mut left = n;
        while left > 0 {
            let k = left.min(SHORT_WRITE);
            self.whole(&block[..k]);
            left -= k;
        }
    }

    /// The writes, in order.
    pub fn writes(&self) -> impl Iterator<Item = &[u8]> {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let w = &self.bytes[start..end];
            start = end;
            w
        })
    }
}

/// Formats `fmt` with arguments from `args`.
pub fn format(fmt: &[u8], args: &mut dyn Args) -> Result<Formatted, String> {
    let mut out = Formatted::default();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            let run = fmt[i..]
                .iter()
                .position(|&c| c == b'%')
                .unwrap_or(fmt.len() - i);
            out.whole(&fmt[i..i + run]);
            i += run;
            continue;
        }
        i += 1;
        let mut spec = Spec::default();
        while let Some(&f) = fmt.get(i) {
            match f {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if fmt.get(i) == Some(&b'*') {
            i += 1;
            let (v, _) = args.next_arg().ok_or("missing printf argument for '*'")?;
            let w = v as i32;
            if w < 0 {
                spec.left = true;
            }
            spec.width = w.unsigned_abs() as usize;
        } else {
            while let Some(d @ b'0'..=b'9') = fmt.get(i).copied() {
                spec.width = spec
                    .width
                    .saturating_mul(10)
                    .saturating_add(usize::from(d - b'0'));
                i += 1;
            }
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                i += 1;
                let (v, _) = args.next_arg().ok_or("missing printf argument for '.*'")?;
                let p = v as i32;
                spec.precision = (p >= 0).then_some(p as usize);
            } else {
                let mut p = 0usize;
                while let Some(d @ b'0'..=b'9') = fmt.get(i).copied() {
                    p = p.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                    i += 1;
                }
                spec.precision = Some(p);
            }
        }
        spec.width = spec.width.min(1 << 20);
        spec.precision = spec.precision.map(|p| p.min(1 << 20));
        // Length modifier: the number of bits of the argument.
        let mut bits = 32;
        loop {
            match fmt.get(i) {
                Some(b'h') => {
                    bits = if bits == 16 { 8 } else { 16 };
                    i += 1;
                }
                Some(b'l' | b'z' | b'j' | b't' | b'q' | b'L') => {
                    bits = 64;
                    i += 1;
                }
                _ => break,
            }
        }
        let Some(&conv) = fmt.get(i) else {
            return Err("printf format ends inside a conversion".into());
        };
        i += 1;
        match conv {
            b'%' => out.short(b"%"),
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' => {
                let (v, s) = args.next_arg().ok_or("missing printf argument")?;
                let v = match s {
                    Scalar::F32 | Scalar::F64 => values::as_f64(v, s) as i64 as u64,
                    _ => v,
                };
                let signed = matches!(conv, b'd' | b'i');
                let v = values::canon(v, bits, signed);
                int_conversion(&mut out, &spec, conv, v, signed);
            }
            b'c' => {
                let (v, _) = args.next_arg().ok_or("missing printf argument")?;
                pad(&mut out, &spec, &[v as u8], false, false);
            }
            b's' => {
                let (p, _) = args.next_arg().ok_or("missing printf argument")?;
                let max = spec.precision.unwrap_or(1 << 20);
                // glibc prints a null string as "(null)", or as nothing when the
                // precision is too small for that.
                let text = if p == 0 {
                    if max >= 6 {
                        b"(null)".to_vec()
                    } else {
                        Vec::new()
                    }
                } else {
                    args.c_string(p, max)?
                };
                let text = &text[..text.len().min(max)];
                pad(&mut out, &spec, text, false, true);
            }
            b'p' => {
                let (p, _) = args.next_arg().ok_or("missing printf argument")?;
                let text = args.pointer(p);
                pad(&mut out, &spec, text.as_bytes(), false, true);
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' => {
                let (v, s) = args.next_arg().ok_or("missing printf argument")?;
                let x = match s {
                    Scalar::F32 | Scalar::F64 => values::as_f64(v, s),
                    _ => f64::from_bits(v),
                };
                float_conversion(&mut out, &spec, conv, x);
            }
            other => {
                return Err(format!(
                    "printf conversion '%{}' is not supported",
                    other as char
                ));
            }
        }
    }
    Ok(out)
}

/// Writes `body` padded to the width; `whole`: the body (after any sign or `0x`) is one
/// write rather than short ones.
fn pad(out: &mut Formatted, spec: &Spec, body: &[u8], numeric_zero: bool, whole: bool) {
    let fill = spec.width.saturating_sub(body.len());
    let put = |out: &mut Formatted, text: &[u8]| {
        if whole {
            out.whole(text)
        } else {
            out.short(text)
        }
    };
    if spec.left {
        put(out, body);
        out.fill(b' ', fill);
    } else if numeric_zero && spec.zero {
        // Zeros go after the sign or `0x` prefix.
        let split = body
            .iter()
            .position(|b| b.is_ascii_digit())
            .map(|p| {
                if body.get(p) == Some(&b'0') && matches!(body.get(p + 1), Some(b'x' | b'X')) {
                    p + 2
                } else {
                    p
                }
            })
            .unwrap_or(0);
        out.short(&body[..split]);
        out.fill(b'0', fill);
        put(out, &body[split..]);
    } else {
        out.fill(b' ', fill);
        put(out, body);
    }
}

fn int_conversion(out: &mut Formatted, spec: &Spec, conv: u8, v: u64, signed: bool) {
    let negative = signed && (v as i64) < 0;
    let magnitude = if negative {
        (v as i64).unsigned_abs()
    } else {
        v
    };
    let mut digits = match conv {
        b'o' => format!("{magnitude:o}"),
        b'x' => format!("{magnitude:x}"),
        b'X' => format!("{magnitude:X}"),
        _ => magnitude.to_string(),
    };
    if let Some(p) = spec.precision {
        if p == 0 && magnitude == 0 {
            digits.clear();
        }
        while digits.len() < p {
            digits.insert(0, '0');
        }
    }
    let mut body = String::new();
    if negative {
        body.push('-');
    } else if signed && spec.plus {
        body.push('+');
    } else if signed && spec.space {
        body.push(' ');
    }
    if spec.alt {
        match conv {
            b'o' if !digits.starts_with('0') => body.push('0'),
            b'x' if magnitude != 0 => body.push_str("0x"),
            b'X' if magnitude != 0 => body.push_str("0X"),
            _ => {}
        }
    }
    body.push_str(&digits);
    pad(out, spec, body.as_bytes(), spec.precision.is_none(), false);
}

/// `%e` digits: mantissa with `precision` decimals and the decimal exponent.
fn exp_parts(x: f64, precision: usize) -> (String, i32) {
    let s = format!("{:.*e}", precision, x);
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    (m.to_string(), e.parse().unwrap_or(0))
}

fn exp_text(mantissa: &str, exp: i32, upper: bool) -> String {
    let sign = if exp < 0 { '-' } else { '+' };
    let e = if upper { 'E' } else { 'e' };
    format!("{mantissa}{e}{sign}{:02}", exp.unsigned_abs())
}

fn strip_zeros(s: &mut String) {
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
}

fn float_conversion(out: &mut Formatted, spec: &Spec, conv: u8, x: f64) {
    let upper = conv.is_ascii_uppercase();
    let negative = x.is_sign_negative() && !x.is_nan();
    let a = x.abs();
    let body = if x.is_nan() || x.is_infinite() {
        let t = if x.is_nan() { "nan" } else { "inf" };
        if upper {
            t.to_uppercase()
        } else {
            t.to_string()
        }
    } else {
        let p = spec.precision.unwrap_or(6);
        match conv {
            b'f' | b'F' => {
                let mut s = format!("{a:.p$}");
                if spec.alt && p == 0 {
                    s.push('.');
                }
                s
            }
            b'e' | b'E' => {
                let (mut m, e) = exp_parts(a, p);
                if spec.alt && p == 0 {
                    m.push('.');
                }
                exp_text(&m, e, upper)
            }
            _ => {
                let p = if p == 0 { 1 } else { p };
                let (_, e) = exp_parts(a, p - 1);
                let mut s = if e < p as i32 && e >= -4 {
                    let decimals = (p as i32 - 1 - e) as usize;
                    format!("{a:.decimals$}")
                } else {
                    let (m, e) = exp_parts(a, p - 1);
                    let mut m = m;
                    if !spec.alt {
                        strip_zeros(&mut m);
                    }
                    exp_text(&m, e, upper)
                };
                if !spec.alt && !s.contains('e') && !s.contains('E') {
                    strip_zeros(&mut s);
                }
                s
            }
        }
    };
    let sign = if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    if spec.left || (spec.zero && x.is_finite()) {
        // The sign is a write of its own, before the zeros or the body.
        let inner = Spec {
            width: spec.width.saturating_sub(sign.len()),
            ..*spec
        };
        out.short(sign.as_bytes());
        pad(out, &inner, body.as_bytes(), x.is_finite(), true);
    } else {
        out.fill(b' ', spec.width.saturating_sub(sign.len() + body.len()));
        out.short(sign.as_bytes());
        out.whole(body.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(Vec<(u64, Scalar)>, usize);

    impl Args for Fixed {
        fn next_arg(&mut self) -> Option<(u64, Scalar)> {
            let a = self.0.get(self.1).copied();
            self.1 += 1;
            a
        }
        fn c_string(&self, p: u64, _max: usize) -> Result<Vec<u8>, String> {
            Ok(format!("s{p}").into_bytes())
        }
        fn pointer(&self, p: u64) -> String {
            format!("ptr{p}")
        }
    }

    const INT: Scalar = Scalar::Int {
        width: 32,
        signed: true,
    };

    fn f(fmt: &str, args: Vec<(u64, Scalar)>) -> String {
        let out = format(fmt.as_bytes(), &mut Fixed(args, 0)).unwrap();
        assert_eq!(out.ends.last().copied().unwrap_or(0), out.bytes.len());
        String::from_utf8(out.bytes).unwrap()
    }

    fn d(x: f64) -> (u64, Scalar) {
        (x.to_bits(), Scalar::F64)
    }

    #[test]
    fn integers() {
        assert_eq!(
            f(
                "%d|%5d|%-5d|%05d",
                vec![(7, INT), (42, INT), (42, INT), ((-42i64) as u64, INT)]
            ),
            "7|   42|42   |-0042"
        );
        assert_eq!(
            f(
                "%u %x %X %o %#x %#o",
                vec![
                    ((-1i64) as u64, INT),
                    (255, INT),
                    (255, INT),
                    (8, INT),
                    (255, INT),
                    (8, INT)
                ]
            ),
            "4294967295 ff FF 10 0xff 010"
        );
        assert_eq!(
            f(
                "%+d % d %.3d %ld %hhd",
                vec![
                    (5, INT),
                    (5, INT),
                    (5, INT),
                    ((-3i64) as u64, INT),
                    (300, INT)
                ]
            ),
            "+5  5 005 -3 44"
        );
        assert_eq!(f("%c%c%%", vec![(104, INT), (105, INT)]), "hi%");
        assert_eq!(f("%*d", vec![(4, INT), (1, INT)]), "   1");
    }

    #[test]
    fn floats_match_c() {
        assert_eq!(
            f(
                "%f %.2f %e %g",
                vec![d(1.5), d(2.34567), d(1234.5), d(0.0001)]
            ),
            "1.500000 2.35 1.234500e+03 0.0001"
        );
        assert_eq!(
            f(
                "%g %g %g %G",
                vec![d(100000.0), d(1000000.0), d(1.5), d(1e-5)]
            ),
            "100000 1e+06 1.5 1E-05"
        );
        assert_eq!(
            f("%8.3f|%-8.1e|%08.2f", vec![d(-2.5), d(12.0), d(-1.25)]),
            "  -2.500|1.2e+01 |-0001.25"
        );
        assert_eq!(f("%f %f", vec![d(f64::INFINITY), d(f64::NAN)]), "inf nan");
        assert_eq!(f("%.0f %#.0f %g", vec![d(2.0), d(2.0), d(0.0)]), "2 2. 0");
    }

    #[test]
    fn strings_and_pointers() {
        assert_eq!(
            f(
                "[%s] [%5s] [%.2s] [%p]",
                vec![
                    (1, Scalar::Ptr),
                    (2, Scalar::Ptr),
                    (3, Scalar::Ptr),
                    (9, Scalar::Ptr)
                ]
            ),
            "[s1] [   s2] [s3] [ptr9]"
        );
        assert_eq!(f("%s", vec![(0, Scalar::Ptr)]), "(null)");
        assert_eq!(f("[%.3s]", vec![(0, Scalar::Ptr)]), "[]");
        assert!(format(b"%n", &mut Fixed(vec![(0, INT)], 0)).is_err());
        assert!(format(b"%d", &mut Fixed(vec![], 0)).is_err());
    }

    fn writes(fmt: &str, args: Vec<(u64, Scalar)>) -> Vec<String> {
        let out = format(fmt.as_bytes(), &mut Fixed(args, 0)).unwrap();
        out.writes()
            .map(|w| String::from_utf8(w.to_vec()).unwrap())
            .collect()
    }

    #[test]
    fn writes_follow_glibc_vfprintf() {
        // Literal runs and %s bodies are single writes; %% and integers are short ones.
        assert_eq!(
            writes("ab %s cd%%e%d\n", vec![(1, Scalar::Ptr), (42, INT)]),
            ["ab ", "s1", " cd", "%", "e", "42", "\n"]
        );
        // Padding goes out 16 bytes at a time, before or after the body.
        let w = writes("%20s|%-18s", vec![(1, Scalar::Ptr), (2, Scalar::Ptr)]);
        assert_eq!(
            w,
            [
                "                ",
                "  ",
                "s1",
                "|",
                "s2",
                "                "
            ]
        );
        // A long literal run is one write however long; a long integer is not.
        let long = "x".repeat(5000);
        assert_eq!(writes(&long, vec![]).len(), 1);
        let zeros = writes("%.40d", vec![(7, INT)]);
        assert!(zeros.iter().all(|w| w.len() <= 16), "{zeros:?}");
        assert_eq!(zeros.concat(), format!("{}7", "0".repeat(39)));
        // Floating bodies are one write after the sign and the zeros.
        assert_eq!(
            writes("%08.2f|%-7.1f|%6.1f", vec![d(-1.25), d(2.0), d(-3.0)]),
            [
                "-", "000", "1.25", "|", "2.0", "    ", "|", "  ", "-", "3.0"
            ]
        );
    }
}
