//! Variable-length arrays (the GNU extension `char buffer[n];` in a function): a dynamic
//! `cir.alloca` of the element type with the element count as its operand, emitted
//! where the declaration is; `sizeof` of such a variable is the byte count computed
//! there.
//!
//! Clang's JSON AST does not carry a `VariableArrayType`'s bound expression (a type is
//! only its printed spelling, `char[n + 1]`), so the bound is read back from that
//! spelling: integer literals, the names of the function's own variables and
//! parameters of integer type, `+ - * / %`, unary minus and parentheses, computed as
//! `long` and converted to `size_t`, as the declaration is reached. A name declared
//! more than once in the function is refused (the spelling does not say which one it
//! means), as is anything else (calls, members, `sizeof`), a variable-length array of
//! a class type, or one that is not the outermost bound (`int[4][n]`).
//!
//! The storage lives until the function returns, as `__builtin_alloca`'s does (Clang
//! restores the stack pointer at the end of the array's scope instead), so a
//! variable-length array declared in a loop takes new storage on each iteration.

use super::expr::strip_parens;
use super::function::{FnGen, Local};
use super::{R, error, unsupported};
use crate::ast::Node;
use crate::types::{Builtin, CType};
use ehir_builder::Value;
use ehir_core::BinaryOp;

/// The element type spelling and the bound spelling of a variable-length array type
/// spelling (`char[n + 1]` → `char`, `n + 1`; `int[n][4]` → `int[4]`, `n`): `None` when
/// the outermost bound is a number or absent, or the text is not an array.
pub fn split_variable_array(text: &str) -> Option<(String, String)> {
    let open = text.find('[')?;
    let mut depth = 0usize;
    let mut close = None;
    for (i, c) in text[open..].char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close?;
    let bound = text[open + 1..close].trim();
    if bound.is_empty() || bound.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let element = format!("{}{}", text[..open].trim_end(), &text[close + 1..]);
    Some((element, bound.to_string()))
}

/// A token of a bound spelling.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Number(i128),
    Name(String),
    Punct(char),
}

fn tokenize(text: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            // Integer suffixes (`10U`, `4L`).
            while i < chars.len() && matches!(chars[i], 'u' | 'U' | 'l' | 'L') {
                i += 1;
            }
            tokens.push(Token::Number(digits.parse().ok()?));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token::Name(chars[start..i].iter().collect()));
        } else if "+-*/%()".contains(c) {
            tokens.push(Token::Punct(c));
            i += 1;
        } else {
            return None;
        }
    }
    Some(tokens)
}

/// The type bound arithmetic is done in.
const BOUND_TYPE: CType = CType::Builtin(Builtin::Long);

/// Reads a bound spelling: a precedence-climbing parser that emits the computation.
struct BoundReader<'t> {
    tokens: &'t [Token],
    at: usize,
}

impl<'ast> FnGen<'_, 'ast, '_> {
    /// A local variable of variable-length array type (its type spelling split into
    /// element and bound by [`split_variable_array`]).
    pub fn variable_array(&mut self, var: &'ast Node, element: &str, bound: &str) -> R<()> {
        let element_ty = self.st.parse(var, element)?;
        let mut innermost = &element_ty;
        while let CType::Array(inner, _) = innermost.unqualified() {
            innermost = inner;
        }
        if self.st.is_class(innermost) {
            return unsupported(var, "a variable-length array of a class type");
        }
        if var.initializer().is_some() {
            return error(var, "a variable-length array with an initializer");
        }
        let count = self.array_bound(var, bound)?;
        let size_t = CType::Builtin(Builtin::ULong);
        let count = self.convert(var, count, &BOUND_TYPE, &size_t)?;
        let (element_size, align) = self.st.size_align(self.b.ctx, var, &element_ty)?;
        let element_cir = self.cir(var, &element_ty)?;
        let name = var.name.clone().unwrap_or_default();
        let address = self
            .b
            .dynamic_alloca(element_cir, count, &name, align.max(1) as u16);
        let size_cir = self.cir(var, &size_t)?;
        let element_size = self.b.const_int(size_cir, i128::from(element_size));
        let bytes = self.b.binop(BinaryOp::Mul, count, element_size);
        self.locals.insert(var.id.clone(), Local::Address(address));
        self.variable_arrays.insert(var.id.clone(), bytes);
        Ok(())
    }

    /// When `e` names a variable-length array variable (through parentheses): its
    /// address (a pointer to its first element) and its size in bytes (`size_t`).
    pub fn variable_array_of(&self, e: &Node) -> Option<(Value, Value)> {
        let e = strip_parens(e);
        if e.kind != "DeclRefExpr" {
            return None;
        }
        let id = &e.referenced_decl.as_ref()?.id;
        let bytes = *self.variable_arrays.get(id.as_str())?;
        match self.locals.get(id.as_str())? {
            Local::Address(address) => Some((*address, bytes)),
            Local::Reference(_) => None,
        }
    }

    /// Emits the computation of a bound spelling (as `long`).
    fn array_bound(&mut self, var: &'ast Node, bound: &str) -> R<Value> {
        let refused = || format!("variable-length array bound '{bound}'");
        let Some(tokens) = tokenize(bound) else {
            return unsupported(var, refused());
        };
        let mut reader = BoundReader {
            tokens: &tokens,
            at: 0,
        };
        let value = self.bound_sum(var, &mut reader, bound)?;
        if reader.at != tokens.len() {
            return unsupported(var, refused());
        }
        Ok(value)
    }

    fn bound_sum(&mut self, var: &'ast Node, r: &mut BoundReader, bound: &str) -> R<Value> {
        let mut value = self.bound_product(var, r, bound)?;
        while let Some(Token::Punct(c @ ('+' | '-'))) = r.tokens.get(r.at) {
            let kind = if *c == '+' {
                BinaryOp::Add
            } else {
                BinaryOp::Sub
            };
            r.at += 1;
            let rhs = self.bound_product(var, r, bound)?;
            value = self.b.binop(kind, value, rhs);
        }
        Ok(value)
    }

    fn bound_product(&mut self, var: &'ast Node, r: &mut BoundReader, bound: &str) -> R<Value> {
        let mut value = self.bound_unary(var, r, bound)?;
        while let Some(Token::Punct(c @ ('*' | '/' | '%'))) = r.tokens.get(r.at) {
            let kind = match c {
                '*' => BinaryOp::Mul,
                '/' => BinaryOp::Div,
                _ => BinaryOp::Rem,
            };
            r.at += 1;
            let rhs = self.bound_unary(var, r, bound)?;
            value = self.b.binop(kind, value, rhs);
        }
        Ok(value)
    }

    fn bound_unary(&mut self, var: &'ast Node, r: &mut BoundReader, bound: &str) -> R<Value> {
        let long = self.cir(var, &BOUND_TYPE)?;
        let token = r.tokens.get(r.at).cloned();
        r.at += 1;
        match token {
            Some(Token::Punct('-')) => {
                let operand = self.bound_unary(var, r, bound)?;
                let zero = self.b.const_int(long, 0);
                Ok(self.b.binop(BinaryOp::Sub, zero, operand))
            }
            Some(Token::Punct('(')) => {
                let value = self.bound_sum(var, r, bound)?;
                if r.tokens.get(r.at) != Some(&Token::Punct(')')) {
                    return unsupported(var, format!("variable-length array bound '{bound}'"));
                }
                r.at += 1;
                Ok(value)
            }
            Some(Token::Number(n)) => Ok(self.b.const_int(long, n)),
            Some(Token::Name(name)) => self.bound_variable(var, &name, bound),
            _ => unsupported(var, format!("variable-length array bound '{bound}'")),
        }
    }

    /// The value of the variable `name` a bound names, as `long`: the one variable or
    /// parameter of that name the function declares, of an integer type.
    fn bound_variable(&mut self, var: &'ast Node, name: &str, bound: &str) -> R<Value> {
        let mut found = Vec::new();
        let mut stack = vec![self.decl];
        while let Some(node) = stack.pop() {
            if matches!(node.kind.as_str(), "VarDecl" | "ParmVarDecl")
                && node.name.as_deref() == Some(name)
            {
                found.push(node);
            }
            stack.extend(node.children());
        }
        let decl = match found.as_slice() {
            [decl] => *decl,
            [] => {
                return unsupported(
                    var,
                    format!(
                        "variable-length array bound '{bound}': '{name}' is not a variable of this function"
                    ),
                );
            }
            _ => {
                return unsupported(
                    var,
                    format!(
                        "variable-length array bound '{bound}': this function declares '{name}' more than once"
                    ),
                );
            }
        };
        let ty = self.st.node_type(decl)?;
        let value_ty = ty.non_reference().unqualified().clone();
        let is_integer =
            matches!(&value_ty, CType::Builtin(b) if b.int_info(self.st.abi).is_some());
        let local = self.locals.get(decl.id.as_str()).copied();
        let (Some(local), true) = (local, is_integer) else {
            return unsupported(
                var,
                format!(
                    "variable-length array bound '{bound}': '{name}' is not an integer variable in scope"
                ),
            );
        };
        let address = match local {
            Local::Address(address) => address,
            Local::Reference(slot) => self.b.load(slot, 8),
        };
        let align = self.align(var, &value_ty)?;
        let value = self.b.load(address, align);
        self.convert(var, value, &value_ty, &BOUND_TYPE)
    }
}

#[cfg(test)]
mod tests {
    use super::split_variable_array;

    #[test]
    fn splits_the_outermost_variable_bound() {
        assert_eq!(
            split_variable_array("char[t]"),
            Some(("char".into(), "t".into()))
        );
        assert_eq!(
            split_variable_array("int[n + 1][4]"),
            Some(("int[4]".into(), "n + 1".into()))
        );
        assert_eq!(split_variable_array("char[16]"), None);
        assert_eq!(split_variable_array("int[]"), None);
        assert_eq!(split_variable_array("int"), None);
    }
}
