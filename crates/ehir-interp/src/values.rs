//! Scalar semantics: how integers, bools, floats and pointers are held in 64-bit
//! registers, and the arithmetic, comparison and cast ops on them.
//!
//! Integers are kept truncated to their width and sign- (signed) or zero- (unsigned)
//! extended to 64 bits; arithmetic wraps (two's complement). Division by zero, the
//! overflowing `INT_MIN / -1` and shifts by at least the width are reported as errors,
//! since C++ leaves them undefined. `!cir.float` is held as its `f32` bits, `!cir.double`
//! as its `f64` bits. Integers wider than 64 bits are not supported.

use crate::type_layout::Scalar;
use ehir_core::{BinaryOp, CastKind, CmpPredicate, UnaryOp};

/// Truncates `v` to `width` bits and re-extends it.
#[inline]
pub fn canon(v: u64, width: u16, signed: bool) -> u64 {
    if width >= 64 || width == 0 {
        return v;
    }
    let shift = 64 - u32::from(width);
    if signed {
        (((v << shift) as i64) >> shift) as u64
    } else {
        (v << shift) >> shift
    }
}

#[inline]
pub fn f32_of(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

#[inline]
pub fn f64_of(v: u64) -> f64 {
    f64::from_bits(v)
}

#[inline]
pub fn of_f32(x: f32) -> u64 {
    u64::from(x.to_bits())
}

#[inline]
pub fn of_f64(x: f64) -> u64 {
    x.to_bits()
}

/// A floating value of a scalar class as `f64`.
pub fn as_f64(v: u64, s: Scalar) -> f64 {
    match s {
        Scalar::F32 => f64::from(f32_of(v)),
        Scalar::F64 => f64_of(v),
        Scalar::Int { signed: true, .. } => v as i64 as f64,
        Scalar::Int { signed: false, .. } => v as f64,
        Scalar::Bool => v as f64,
        _ => v as f64,
    }
}

fn float_result(x: f64, s: Scalar) -> u64 {
    match s {
        Scalar::F32 => of_f32(x as f32),
        _ => of_f64(x),
    }
}

/// A binary op (`cir.add`, ...) on two values of scalar class `s`.
pub fn binary(op: BinaryOp, a: u64, b: u64, s: Scalar) -> Result<u64, String> {
    match s {
        Scalar::Int { width, signed } => {
            if width > 64 || width == 0 {
                return Err(format!("{width}-bit integers are not supported"));
            }
            let r = match op {
                BinaryOp::Add => a.wrapping_add(b),
                BinaryOp::Sub => a.wrapping_sub(b),
                BinaryOp::Mul => a.wrapping_mul(b),
                BinaryOp::Div | BinaryOp::Rem => {
                    if b == 0 {
                        return Err("integer division by zero".into());
                    }
                    if signed {
                        let (x, y) = (a as i64, b as i64);
                        let min = canon(1u64 << (width - 1), width, true) as i64;
                        if x == min && y == -1 {
                            return Err("signed division overflow".into());
                        }
                        if op == BinaryOp::Div {
                            (x / y) as u64
                        } else {
                            (x % y) as u64
                        }
                    } else if op == BinaryOp::Div {
                        a / b
                    } else {
                        a % b
                    }
                }
                BinaryOp::And => a & b,
                BinaryOp::Or => a | b,
                BinaryOp::Xor => a ^ b,
                BinaryOp::Shl | BinaryOp::Shr => {
                    let amount = if signed && (b as i64) < 0 {
                        u64::MAX
                    } else {
                        b
                    };
                    if amount >= u64::from(width) {
                        return Err(format!(
                            "shift by {} is not less than the width {width}",
                            b as i64
                        ));
                    }
                    if op == BinaryOp::Shl {
                        a << amount
                    } else if signed {
                        ((a as i64) >> amount) as u64
                    } else {
                        a >> amount
                    }
                }
            };
            Ok(canon(r, width, signed))
        }
        Scalar::Bool => match op {
            BinaryOp::And => Ok(a & b & 1),
            BinaryOp::Or => Ok((a | b) & 1),
            BinaryOp::Xor => Ok((a ^ b) & 1),
            _ => Err(format!("{} on !cir.bool", op.op_name())),
        },
        Scalar::F32 | Scalar::F64 => {
            let (x, y) = (as_f64(a, s), as_f64(b, s));
            let r = match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                BinaryOp::Rem => x % y,
                _ => return Err(format!("{} on a floating type", op.op_name())),
            };
            Ok(float_result(r, s))
        }
        _ => Err(format!("{} on a non-arithmetic type", op.op_name())),
    }
}

/// `cir.unary` on a value of scalar class `s`.
pub fn unary(op: UnaryOp, a: u64, s: Scalar) -> Result<u64, String> {
    match s {
        Scalar::Int { width, signed } => Ok(canon(
            match op {
                UnaryOp::Inc => a.wrapping_add(1),
                UnaryOp::Dec => a.wrapping_sub(1),
                UnaryOp::Plus => a,
                UnaryOp::Minus => a.wrapping_neg(),
                UnaryOp::Not => !a,
            },
            width,
            signed,
        )),
        Scalar::Bool => match op {
            UnaryOp::Not => Ok((a ^ 1) & 1),
            UnaryOp::Plus => Ok(a),
            _ => Err(format!("cir.unary({}) on !cir.bool", op.name())),
        },
        Scalar::F32 | Scalar::F64 => {
            let x = as_f64(a, s);
            let r = match op {
                UnaryOp::Inc => x + 1.0,
                UnaryOp::Dec => x - 1.0,
                UnaryOp::Plus => x,
                UnaryOp::Minus => -x,
                UnaryOp::Not => return Err("cir.unary(not) on a floating type".into()),
            };
            Ok(float_result(r, s))
        }
        _ => Err(format!("cir.unary({}) on a non-arithmetic type", op.name())),
    }
}

/// `cir.cmp` of two values of scalar class `s`; 1 or 0.
pub fn compare(pred: CmpPredicate, a: u64, b: u64, s: Scalar) -> Result<u64, String> {
    use std::cmp::Ordering;
    let ord: Option<Ordering> = match s {
        Scalar::Int { signed: true, .. } => Some((a as i64).cmp(&(b as i64))),
        Scalar::Int { signed: false, .. } | Scalar::Bool | Scalar::Ptr | Scalar::Token => {
            Some(a.cmp(&b))
        }
        Scalar::F32 | Scalar::F64 => as_f64(a, s).partial_cmp(&as_f64(b, s)),
        _ => return Err("cir.cmp on a non-scalar type".into()),
    };
    let r = match (pred, ord) {
        // Unordered (NaN) compares false except `ne`.
        (CmpPredicate::Ne, None) => true,
        (_, None) => false,
        (CmpPredicate::Eq, Some(o)) => o == Ordering::Equal,
        (CmpPredicate::Ne, Some(o)) => o != Ordering::Equal,
        (CmpPredicate::Lt, Some(o)) => o == Ordering::Less,
        (CmpPredicate::Le, Some(o)) => o != Ordering::Greater,
        (CmpPredicate::Gt, Some(o)) => o == Ordering::Greater,
        (CmpPredicate::Ge, Some(o)) => o != Ordering::Less,
    };
    Ok(u64::from(r))
}

/// Float-to-integer conversion; out-of-range values are an error (undefined in C++).
fn float_to_int(x: f64, width: u16, signed: bool) -> Result<u64, String> {
    if x.is_nan() {
        return Err("conversion of NaN to an integer".into());
    }
    let t = x.trunc();
    let (lo, hi) = if signed {
        let m = 2f64.powi(i32::from(width) - 1);
        (-m, m)
    } else {
        (0.0, 2f64.powi(i32::from(width)))
    };
    if t < lo || t >= hi {
        return Err(format!(
            "conversion of {x} to a {width}-bit integer overflows"
        ));
    }
    Ok(canon(
        if signed { t as i64 as u64 } else { t as u64 },
        width,
        signed,
    ))
}

/// `cir.cast` from scalar class `from` to `to`.
pub fn cast(kind: CastKind, v: u64, from: Scalar, to: Scalar) -> Result<u64, String> {
    Ok(match kind {
        CastKind::IntToBool | CastKind::PtrToBool => u64::from(v != 0),
        CastKind::FloatToBool => u64::from(as_f64(v, from) != 0.0),
        CastKind::BoolToInt => v & 1,
        CastKind::BoolToFloat => float_result((v & 1) as f64, to),
        CastKind::Integral => match to {
            Scalar::Int { width, signed } => canon(v, width, signed),
            Scalar::Bool => u64::from(v != 0),
            _ => v,
        },
        CastKind::FloatToInt => match to {
            Scalar::Int { width, signed } => float_to_int(as_f64(v, from), width, signed)?,
            Scalar::Bool => u64::from(as_f64(v, from) != 0.0),
            _ => return Err("float_to_int to a non-integer type".into()),
        },
        CastKind::IntToFloat => float_result(as_f64(v, from), to),
        CastKind::Floating => float_result(as_f64(v, from), to),
        CastKind::PtrToInt => match to {
            Scalar::Int { width, signed } => canon(v, width, signed),
            _ => v,
        },
        CastKind::IntToPtr | CastKind::ArrayToPtrDecay | CastKind::NullToPtr => v,
        CastKind::Bitcast => match (from, to) {
            (Scalar::F32, Scalar::Int { width, signed }) => canon(v, width, signed),
            (Scalar::Int { .. }, Scalar::F32) => v & 0xffff_ffff,
            (_, Scalar::Int { width, signed }) => canon(v, width, signed),
            _ => v,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const S32: Scalar = Scalar::Int {
        width: 32,
        signed: true,
    };
    const U8: Scalar = Scalar::Int {
        width: 8,
        signed: false,
    };

    #[test]
    fn integer_arithmetic_wraps_and_extends() {
        let max = canon(0x7fff_ffff, 32, true);
        assert_eq!(
            binary(BinaryOp::Add, max, 1, S32).unwrap() as i64,
            -2147483648
        );
        assert_eq!(binary(BinaryOp::Add, 255, 1, U8).unwrap(), 0);
        assert_eq!(
            binary(BinaryOp::Div, (-7i64) as u64, 2, S32).unwrap() as i64,
            -3
        );
        assert_eq!(
            binary(BinaryOp::Rem, (-7i64) as u64, 2, S32).unwrap() as i64,
            -1
        );
        assert!(binary(BinaryOp::Div, 1, 0, S32).is_err());
        assert!(binary(BinaryOp::Div, canon(0x8000_0000, 32, true), u64::MAX, S32).is_err());
        assert!(binary(BinaryOp::Shl, 1, 32, S32).is_err());
        assert_eq!(
            binary(BinaryOp::Shr, (-8i64) as u64, 1, S32).unwrap() as i64,
            -4
        );
    }

    #[test]
    fn comparisons_respect_signedness_and_nan() {
        let m1 = (-1i64) as u64;
        assert_eq!(compare(CmpPredicate::Lt, m1, 0, S32).unwrap(), 1);
        let u64t = Scalar::Int {
            width: 64,
            signed: false,
        };
        assert_eq!(compare(CmpPredicate::Lt, m1, 0, u64t).unwrap(), 0);
        let nan = of_f64(f64::NAN);
        assert_eq!(compare(CmpPredicate::Eq, nan, nan, Scalar::F64).unwrap(), 0);
        assert_eq!(compare(CmpPredicate::Ne, nan, nan, Scalar::F64).unwrap(), 1);
    }

    #[test]
    fn casts() {
        assert_eq!(
            cast(CastKind::Integral, (-1i64) as u64, S32, U8).unwrap(),
            255
        );
        assert_eq!(
            cast(CastKind::FloatToInt, of_f64(-2.9), Scalar::F64, S32).unwrap() as i64,
            -2
        );
        assert!(cast(CastKind::FloatToInt, of_f64(1e20), Scalar::F64, S32).is_err());
        assert_eq!(
            f32_of(cast(CastKind::Floating, of_f64(1.5), Scalar::F64, Scalar::F32).unwrap()),
            1.5
        );
        assert_eq!(cast(CastKind::IntToBool, 5, S32, Scalar::Bool).unwrap(), 1);
    }
}
