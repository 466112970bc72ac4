//! Constant folding of scalar initializers, so that a global Clang's constant evaluator
//! folds (`unsigned big = -1;`, `int n = sizeof(long) * 2;`, `double d = -2.5;`) gets a
//! constant initializer rather than a dynamic one. Clang's JSON AST gives the value of
//! a `ConstantExpr` but not of a variable's initializer, so the expression is evaluated
//! here, each node at its own type (Clang's implicit conversions are explicit casts in
//! the AST):
//! - literals (integer, character, bool, floating, `nullptr`);
//! - the casts between arithmetic types, to bool, and of null to a pointer;
//! - unary `+ - ~ !`, binary arithmetic, shifts, bitwise and logical operators and
//!   comparisons, `?:`;
//! - `sizeof` and `alignof`, enumerators, and `const` variables with such initializers.
//!
//! Anything else (a division by zero, a shift past the width, a call, ...) is not a
//! constant.

use super::{R, State};
use crate::ast::Node;
use crate::types::{Builtin, CType};
use ehir_core::{AttrData, ModuleCtx, Type};

/// A folded scalar: integers and bools as integers (already wrapped to their type),
/// floating-point values as `f64` (rounded to `float` for that type).
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Constant {
    /// An integer, bool (0 or 1) or null pointer (0).
    Int(i128),
    /// A floating-point value.
    Float(f64),
}

/// The scalar kind of a C++ type, as far as folding needs it.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Scalar {
    Bool,
    Int { bits: u16, signed: bool },
    Float { double: bool },
    Pointer,
}

/// How deep `const` variables may refer to each other's initializers.
const VARIABLE_DEPTH: usize = 32;

impl Constant {
    fn is_true(self) -> bool {
        match self {
            Constant::Int(v) => v != 0,
            Constant::Float(f) => f != 0.0,
        }
    }

    /// The value converted to a scalar kind (C++'s arithmetic conversions).
    fn convert(self, to: Scalar) -> Option<Constant> {
        Some(match (self, to) {
            (_, Scalar::Bool) => Constant::Int(i128::from(self.is_true())),
            (Constant::Int(v), Scalar::Int { bits, signed }) => {
                Constant::Int(ehir_core::wrap_int(v, bits, signed))
            }
            (Constant::Float(f), Scalar::Int { bits, signed }) => {
                let truncated = f.trunc();
                let (min, max) = ehir_core::int_range(bits, signed);
                if !truncated.is_finite() || truncated < min as f64 || truncated > max as f64 {
                    return None;
                }
                Constant::Int(truncated as i128)
            }
            (Constant::Int(v), Scalar::Float { double }) => {
                Constant::Float(round(v as f64, double))
            }
            (Constant::Float(f), Scalar::Float { double }) => Constant::Float(round(f, double)),
            (Constant::Int(0), Scalar::Pointer) => Constant::Int(0),
            (_, Scalar::Pointer) => return None,
        })
    }

    /// The constant as an attribute of CIR type `ty`.
    pub fn attr(self, ctx: &ModuleCtx, ty: Type) -> Option<AttrData> {
        let types = &ctx.types;
        if ty == types.common().bool {
            return Some(AttrData::Bool(self.is_true()));
        }
        if types.is_float(ty) {
            let double = ty != types.common().float;
            let Constant::Float(value) = self.convert(Scalar::Float { double })? else {
                return None;
            };
            return Some(AttrData::Float {
                bits: value.to_bits(),
                ty,
            });
        }
        if types.is_ptr(ty) {
            return (self == Constant::Int(0)).then_some(AttrData::Zero(ty));
        }
        let (bits, signed) = types.int_info(ty)?;
        let Constant::Int(value) = self.convert(Scalar::Int { bits, signed })? else {
            return None;
        };
        Some(AttrData::Int { value, ty })
    }
}

/// `value` rounded to `float` unless `double`.
fn round(value: f64, double: bool) -> f64 {
    if double {
        value
    } else {
        f64::from(value as f32)
    }
}

impl State<'_> {
    /// The value of a scalar expression Clang's constant evaluator folds, or `None`.
    pub fn fold_constant(&mut self, ctx: &mut ModuleCtx, node: &Node) -> R<Option<Constant>> {
        self.fold(ctx, node, 0)
    }

    /// The scalar kind of a node's type.
    fn scalar(&mut self, node: &Node) -> Option<Scalar> {
        let ty = self.node_type(node).ok()?;
        Some(match ty.unqualified() {
            CType::Builtin(Builtin::Bool) => Scalar::Bool,
            CType::Builtin(Builtin::Float) => Scalar::Float { double: false },
            CType::Builtin(Builtin::Double) => Scalar::Float { double: true },
            CType::Builtin(Builtin::Nullptr) | CType::Pointer(_) => Scalar::Pointer,
            CType::Builtin(b) => {
                let (bits, signed) = b.int_info(self.abi)?;
                Scalar::Int { bits, signed }
            }
            _ => return None,
        })
    }

    fn fold(&mut self, ctx: &mut ModuleCtx, node: &Node, depth: usize) -> R<Option<Constant>> {
        let Some(scalar) = self.scalar(node) else {
            return Ok(None);
        };
        let first = node.children().next();
        let value = match node.kind.as_str() {
            "IntegerLiteral" | "CharacterLiteral" | "CXXBoolLiteralExpr" => {
                let Some(text) = node.value_text() else {
                    return Ok(None);
                };
                match text.as_str() {
                    "true" => Constant::Int(1),
                    "false" => Constant::Int(0),
                    number => match number.parse() {
                        Ok(v) => Constant::Int(v),
                        Err(_) => return Ok(None),
                    },
                }
            }
            "FloatingLiteral" => match node.value_text().and_then(|t| t.parse().ok()) {
                Some(f) => Constant::Float(f),
                None => return Ok(None),
            },
            "CXXNullPtrLiteralExpr" | "GNUNullExpr" => Constant::Int(0),
            "ConstantExpr" if node.value.is_some() => {
                match node.value_text().and_then(|t| t.parse::<i128>().ok()) {
                    Some(v) => Constant::Int(v),
                    None => return self.fold_first(ctx, first, depth),
                }
            }
            "ConstantExpr" | "ParenExpr" => return self.fold_first(ctx, first, depth),
            "ImplicitCastExpr"
            | "CStyleCastExpr"
            | "CXXStaticCastExpr"
            | "CXXFunctionalCastExpr" => {
                let folds = matches!(
                    node.cast_kind.as_deref(),
                    Some(
                        "NoOp"
                            | "LValueToRValue"
                            | "IntegralCast"
                            | "IntegralToBoolean"
                            | "IntegralToFloating"
                            | "FloatingToIntegral"
                            | "FloatingToBoolean"
                            | "FloatingCast"
                            | "BooleanToSignedIntegral"
                            | "NullToPointer"
                    )
                );
                let Some(operand) = first.filter(|_| folds) else {
                    return Ok(None);
                };
                let Some(value) = self.fold(ctx, operand, depth)? else {
                    return Ok(None);
                };
                if node.cast_kind.as_deref() == Some("BooleanToSignedIntegral") {
                    Constant::Int(-i128::from(value.is_true()))
                } else {
                    value
                }
            }
            "UnaryOperator" => {
                let Some(operand) = first else {
                    return Ok(None);
                };
                let Some(value) = self.fold(ctx, operand, depth)? else {
                    return Ok(None);
                };
                match (node.opcode.as_deref(), value) {
                    (Some("+"), v) => v,
                    (Some("-"), Constant::Int(v)) => Constant::Int(-v),
                    (Some("-"), Constant::Float(f)) => Constant::Float(-f),
                    (Some("~"), Constant::Int(v)) => Constant::Int(!v),
                    (Some("!"), v) => Constant::Int(i128::from(!v.is_true())),
                    _ => return Ok(None),
                }
            }
            "BinaryOperator" => {
                let mut operands = node.children();
                let (Some(left), Some(right)) = (operands.next(), operands.next()) else {
                    return Ok(None);
                };
                let Some(a) = self.fold(ctx, left, depth)? else {
                    return Ok(None);
                };
                let opcode = node.opcode.as_deref().unwrap_or_default();
                // `&&` and `||` need only the left operand when it decides.
                match (opcode, a.is_true()) {
                    ("&&", false) => return Ok(Some(Constant::Int(0))),
                    ("||", true) => return Ok(Some(Constant::Int(1))),
                    _ => {}
                }
                let Some(b) = self.fold(ctx, right, depth)? else {
                    return Ok(None);
                };
                let left_scalar = self.scalar(left);
                match binary(opcode, a, b, left_scalar) {
                    Some(v) => v,
                    None => return Ok(None),
                }
            }
            "ConditionalOperator" => {
                let mut operands = node.children();
                let (Some(condition), Some(then), Some(otherwise)) =
                    (operands.next(), operands.next(), operands.next())
                else {
                    return Ok(None);
                };
                let Some(c) = self.fold(ctx, condition, depth)? else {
                    return Ok(None);
                };
                let chosen = if c.is_true() { then } else { otherwise };
                match self.fold(ctx, chosen, depth)? {
                    Some(v) => v,
                    None => return Ok(None),
                }
            }
            "UnaryExprOrTypeTraitExpr" => {
                let operand_type = match (&node.arg_type, first) {
                    (Some(q), _) => self.parse(node, q.canonical())?,
                    (None, Some(operand)) => self.node_type(operand)?,
                    (None, None) => return Ok(None),
                };
                let operand_type = operand_type.non_reference().clone();
                let (size, align) = self.size_align(ctx, node, &operand_type)?;
                match node.name.as_deref() {
                    Some("sizeof") => Constant::Int(i128::from(size)),
                    Some("alignof" | "__alignof") => Constant::Int(i128::from(align)),
                    _ => return Ok(None),
                }
            }
            "DeclRefExpr" => {
                let Some(target) = self.index.referenced(node.referenced_decl.as_ref()) else {
                    return Ok(None);
                };
                if let Some(&value) = self.index.enumerators.get(target.id.as_str()) {
                    Constant::Int(value)
                } else if target.kind == "VarDecl"
                    && depth < VARIABLE_DEPTH
                    && (target.constexpr
                        || target.ty.as_ref().is_some_and(|t| {
                            t.qual_type.starts_with("const ") && !t.qual_type.contains('*')
                        }))
                    && let Some(init) = target.initializer()
                {
                    match self.fold(ctx, init, depth + 1)? {
                        Some(v) => v,
                        None => return Ok(None),
                    }
                } else {
                    return Ok(None);
                }
            }
            _ => return Ok(None),
        };
        Ok(value.convert(scalar))
    }

    fn fold_first(
        &mut self,
        ctx: &mut ModuleCtx,
        first: Option<&Node>,
        depth: usize,
    ) -> R<Option<Constant>> {
        match first {
            Some(inner) => self.fold(ctx, inner, depth),
            None => Ok(None),
        }
    }
}

/// A binary operator on folded operands (already converted to their common type, whose
/// kind is `operands`); the result is converted to the node's type by the caller.
fn binary(opcode: &str, a: Constant, b: Constant, operands: Option<Scalar>) -> Option<Constant> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let truth = |c: bool| Some(Constant::Int(i128::from(c)));
    match opcode {
        "&&" => return truth(a.is_true() && b.is_true()),
        "||" => return truth(a.is_true() || b.is_true()),
        _ => {}
    }
    // (Unordered floating-point values compare unequal and neither less nor greater.)
    let ordering = match (a, b) {
        (Constant::Int(x), Constant::Int(y)) => x.partial_cmp(&y),
        (Constant::Float(x), Constant::Float(y)) => x.partial_cmp(&y),
        _ => return None,
    };
    match opcode {
        "==" => return truth(ordering == Some(Equal)),
        "!=" => return truth(ordering != Some(Equal)),
        "<" => return truth(ordering == Some(Less)),
        ">" => return truth(ordering == Some(Greater)),
        "<=" => return truth(matches!(ordering, Some(Less | Equal))),
        ">=" => return truth(matches!(ordering, Some(Greater | Equal))),
        _ => {}
    }
    match (a, b) {
        (Constant::Int(x), Constant::Int(y)) => match opcode {
            "+" => x.checked_add(y).map(Constant::Int),
            "-" => x.checked_sub(y).map(Constant::Int),
            "*" => x.checked_mul(y).map(Constant::Int),
            "/" => x.checked_div(y).map(Constant::Int),
            "%" => x.checked_rem(y).map(Constant::Int),
            "<<" | ">>" => {
                let bits = match operands {
                    Some(Scalar::Int { bits, .. }) => u32::from(bits),
                    _ => return None,
                };
                let shift = u32::try_from(y).ok().filter(|&s| s < bits)?;
                Some(Constant::Int(if opcode == "<<" {
                    x << shift
                } else {
                    x >> shift
                }))
            }
            "&" => Some(Constant::Int(x & y)),
            "|" => Some(Constant::Int(x | y)),
            "^" => Some(Constant::Int(x ^ y)),
            _ => None,
        },
        (Constant::Float(x), Constant::Float(y)) => match opcode {
            "+" => Some(Constant::Float(x + y)),
            "-" => Some(Constant::Float(x - y)),
            "*" => Some(Constant::Float(x * y)),
            "/" if y != 0.0 => Some(Constant::Float(x / y)),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INT: Option<Scalar> = Some(Scalar::Int {
        bits: 32,
        signed: true,
    });

    #[test]
    fn what_is_not_a_constant_is_not_folded() {
        let (one, zero) = (Constant::Int(1), Constant::Int(0));
        assert_eq!(binary("/", one, zero, INT), None);
        assert_eq!(binary("%", one, zero, INT), None);
        assert_eq!(binary("<<", one, Constant::Int(32), INT), None);
        assert_eq!(binary("<<", one, Constant::Int(-1), INT), None);
        assert_eq!(
            binary("/", Constant::Float(1.0), Constant::Float(0.0), None),
            None
        );
        assert_eq!(
            Constant::Float(3e9).convert(Scalar::Int {
                bits: 32,
                signed: true
            }),
            None
        );
        assert_eq!(Constant::Int(5).convert(Scalar::Pointer), None);
    }

    #[test]
    fn operators_and_conversions_follow_cxx() {
        let nan = Constant::Float(f64::NAN);
        assert_eq!(binary("==", nan, nan, None), Some(Constant::Int(0)));
        assert_eq!(binary("!=", nan, nan, None), Some(Constant::Int(1)));
        assert_eq!(
            binary("<=", Constant::Int(-1), Constant::Int(-1), INT),
            Some(Constant::Int(1))
        );
        assert_eq!(
            binary(">>", Constant::Int(-8), Constant::Int(1), INT),
            Some(Constant::Int(-4))
        );
        assert_eq!(
            binary("&&", Constant::Float(0.5), Constant::Int(2), None),
            Some(Constant::Int(1))
        );
        let unsigned = Scalar::Int {
            bits: 32,
            signed: false,
        };
        assert_eq!(
            Constant::Int(-1).convert(unsigned),
            Some(Constant::Int(4294967295))
        );
        assert_eq!(
            Constant::Float(-3.9).convert(Scalar::Int {
                bits: 8,
                signed: true
            }),
            Some(Constant::Int(-3))
        );
        assert_eq!(
            Constant::Float(0.1).convert(Scalar::Bool),
            Some(Constant::Int(1))
        );
        assert_eq!(
            Constant::Float(0.1).convert(Scalar::Float { double: false }),
            Some(Constant::Float(f64::from(0.1f32)))
        );
    }
}
