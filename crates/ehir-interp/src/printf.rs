//! `printf` formatting with the C conversions: `%d %i %u %o %x %X %c %s %p %f %F %e %E
//! %g %G %%`, flags `- + space # 0`, width and precision (also `*`), and the length
//! modifiers `hh h l ll z j t L q`. `%p` prints the pointer the way traces do (`&c+0`)
//! so that output is the same at every phase; `%n` and `%a` are refused.

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

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

/// Formats `fmt` with arguments from `args`.
pub fn format(fmt: &[u8], args: &mut dyn Args) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
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
            b'%' => out.push(b'%'),
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
                pad(&mut out, &spec, &[v as u8], false);
            }
            b's' => {
                let (p, _) = args.next_arg().ok_or("missing printf argument")?;
                let max = spec.precision.unwrap_or(1 << 20);
                let text = if p == 0 {
                    b"(null)".to_vec()
                } else {
                    args.c_string(p, max)?
                };
                let text = &text[..text.len().min(max)];
                pad(&mut out, &spec, text, false);
            }
            b'p' => {
                let (p, _) = args.next_arg().ok_or("missing printf argument")?;
                let text = args.pointer(p);
                pad(&mut out, &spec, text.as_bytes(), false);
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

fn pad(out: &mut Vec<u8>, spec: &Spec, body: &[u8], numeric_zero: bool) {
    let fill = spec.width.saturating_sub(body.len());
    if spec.left {
        out.extend_from_slice(body);
        out.extend(std::iter::repeat_n(b' ', fill));
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
        out.extend_from_slice(&body[..split]);
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(&body[split..]);
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(body);
    }
}

fn int_conversion(out: &mut Vec<u8>, spec: &Spec, conv: u8, v: u64, signed: bool) {
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
    pad(out, spec, body.as_bytes(), spec.precision.is_none());
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

fn float_conversion(out: &mut Vec<u8>, spec: &Spec, conv: u8, x: f64) {
    let upper = conv.is_ascii_uppercase();
    let negative = x.is_sign_negative() && !x.is_nan();
    let a = x.abs();
    let mut body = if x.is_nan() || x.is_infinite() {
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
    if negative {
        body.insert(0, '-');
    } else if spec.plus {
        body.insert(0, '+');
    } else if spec.space {
        body.insert(0, ' ');
    }
    pad(out, spec, body.as_bytes(), x.is_finite());
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
        String::from_utf8(format(fmt.as_bytes(), &mut Fixed(args, 0)).unwrap()).unwrap()
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
        assert!(format(b"%n", &mut Fixed(vec![(0, INT)], 0)).is_err());
        assert!(format(b"%d", &mut Fixed(vec![], 0)).is_err());
    }
}
