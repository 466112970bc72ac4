//! The canonical text form of a module. Values and blocks are renumbered in layout order
//! (`%argN` for function parameters, `%N` for everything else, `^bbN` for blocks), and
//! `print(parse(print(m))) == print(m)`. The grammar is documented in `docs/syntax.md`.

use crate::attrs::{AttrData, ConstArrayElements};
use crate::entities::{Attr, Block, Op, Region, Symbol, Type, Value};
use crate::function::{Function, Linkage, Visit};
use crate::module::{Item, Module, ModuleCtx};
use crate::ops::{ExtraData, HandlerKey, LandingPadClause, OpKind};
use crate::types::TypeData;
use cranelift_entity::SecondaryMap;
use std::io::{self, Write};

/// Prints a whole module to a string.
pub fn module_to_string(module: &Module) -> String {
    let mut out = Vec::new();
    print_module(&mut out, module).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("the printer writes UTF-8")
}

/// Prints a whole module.
pub fn print_module(w: &mut dyn Write, module: &Module) -> io::Result<()> {
    for item in &module.items {
        match *item {
            Item::Record(i) => {
                let r = &module.ctx.records[i];
                write!(w, "!{} = !cir.record<{} ", module.ctx.name(r.alias), r.kind.name())?;
                write_string(w, module.ctx.name(r.name).as_bytes())?;
                match &r.fields {
                    None => writeln!(w, " incomplete>")?,
                    Some(fields) => {
                        write!(w, " {{")?;
                        for (i, &f) in fields.iter().enumerate() {
                            if i > 0 {
                                write!(w, ", ")?;
                            }
                            write_type(w, &module.ctx, f)?;
                        }
                        writeln!(w, "}}>")?;
                    }
                }
            }
            Item::TypeInfo(i) => {
                let t = &module.ctx.typeinfos[i];
                write!(w, "cir.typeinfo ")?;
                write_symbol(w, module.ctx.name(t.symbol))?;
                write!(w, " : ")?;
                write_type(w, &module.ctx, t.ty)?;
                if !t.bases.is_empty() {
                    write!(w, " bases [")?;
                    for (i, &(b, off)) in t.bases.iter().enumerate() {
                        if i > 0 {
                            write!(w, ", ")?;
                        }
                        write_symbol(w, module.ctx.name(b))?;
                        write!(w, " at {off}")?;
                    }
                    write!(w, "]")?;
                }
                writeln!(w)?;
            }
            Item::Global(g) => {
                let g = &module.globals[g];
                write!(w, "cir.global ")?;
                if g.constant {
                    write!(w, "constant ")?;
                }
                write!(w, "{} ", g.linkage.name())?;
                write_symbol(w, module.ctx.name(g.name))?;
                match g.init {
                    Some(a) => {
                        write!(w, " = ")?;
                        write_attr(w, &module.ctx, a)?;
                        // Attributes without their own type get the global's type.
                        if module.ctx.attrs.get(a).ty(module.ctx.types.common().bool).is_none() {
                            write!(w, " : ")?;
                            write_type(w, &module.ctx, g.ty)?;
                        }
                    }
                    None => {
                        write!(w, " : ")?;
                        write_type(w, &module.ctx, g.ty)?;
                    }
                }
                if let Some(a) = g.align {
                    write!(w, " {{alignment = {a} : i64}}")?;
                }
                writeln!(w)?;
            }
            Item::Function(f) => print_function(w, &module.ctx, &module.functions[f])?,
        }
    }
    Ok(())
}

/// Prints one function.
pub fn print_function(w: &mut dyn Write, ctx: &ModuleCtx, func: &Function) -> io::Result<()> {
    let mut p = FunctionPrinter::new(ctx, func);
    p.print(w)
}

/// Prints one function to a string.
pub fn function_to_string(ctx: &ModuleCtx, func: &Function) -> String {
    let mut out = Vec::new();
    print_function(&mut out, ctx, func).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("the printer writes UTF-8")
}

/// Display names assigned to the values and blocks of a function.
pub struct Names {
    values: SecondaryMap<Value, u32>,
    blocks: SecondaryMap<Block, u32>,
    /// Values numbered from here on are `%N`; below, `%argN`.
    num_args: u32,
}

const UNNAMED: u32 = u32::MAX;

impl Names {
    /// Numbers the values and blocks of `func` in printing order.
    pub fn new(func: &Function) -> Names {
        let mut values = SecondaryMap::with_default(UNNAMED);
        let mut blocks = SecondaryMap::with_default(UNNAMED);
        let mut next_value = 0u32;
        let mut next_block = 0u32;
        let mut num_args = 0;
        if let Some(entry) = func.entry_block() {
            for &p in func.dfg.block_params(entry) {
                values[p] = num_args;
                num_args += 1;
            }
        }
        let entry = func.entry_block();
        func.visit_in_order(&mut |event| match event {
            Visit::Block(b) => {
                blocks[b] = next_block;
                next_block += 1;
                if Some(b) != entry {
                    for &p in func.dfg.block_params(b) {
                        values[p] = num_args + next_value;
                        next_value += 1;
                    }
                }
            }
            Visit::Op(op) => {
                for &res in func.dfg.results(op) {
                    values[res] = num_args + next_value;
                    next_value += 1;
                }
            }
        });
        Names {
            values,
            blocks,
            num_args,
        }
    }

    /// `%argN`, `%N`, or `%<invalid vN>` for a value the function does not print.
    pub fn value(&self, v: Value) -> String {
        match self.values.get(v).copied().unwrap_or(UNNAMED) {
            UNNAMED => format!("%<invalid {v}>"),
            n if n < self.num_args => format!("%arg{n}"),
            n => format!("%{}", n - self.num_args),
        }
    }

    /// `^bbN`.
    pub fn block(&self, b: Block) -> String {
        match self.blocks.get(b).copied().unwrap_or(UNNAMED) {
            UNNAMED => format!("^<invalid {b}>"),
            n => format!("^bb{n}"),
        }
    }
}

struct FunctionPrinter<'a> {
    ctx: &'a ModuleCtx,
    func: &'a Function,
    names: Names,
}

impl<'a> FunctionPrinter<'a> {
    fn new(ctx: &'a ModuleCtx, func: &'a Function) -> Self {
        FunctionPrinter {
            ctx,
            func,
            names: Names::new(func),
        }
    }

    fn ty(&self, w: &mut dyn Write, t: Type) -> io::Result<()> {
        write_type(w, self.ctx, t)
    }

    fn val(&self, w: &mut dyn Write, v: Value) -> io::Result<()> {
        write!(w, "{}", self.names.value(v))
    }

    fn vals(&self, w: &mut dyn Write, vs: &[Value]) -> io::Result<()> {
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                write!(w, ", ")?;
            }
            self.val(w, v)?;
        }
        Ok(())
    }

    fn types_of(&self, w: &mut dyn Write, vs: &[Value]) -> io::Result<()> {
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                write!(w, ", ")?;
            }
            self.ty(w, self.func.dfg.value_type(v))?;
        }
        Ok(())
    }

    fn sym(&self, w: &mut dyn Write, s: Symbol) -> io::Result<()> {
        write_symbol(w, self.ctx.name(s))
    }

    fn print(&mut self, w: &mut dyn Write) -> io::Result<()> {
        let func = self.func;
        write!(w, "cir.func ")?;
        if func.linkage != Linkage::External {
            write!(w, "{} ", func.linkage.name())?;
        }
        if func.nothrow {
            write!(w, "nothrow ")?;
        }
        self.sym(w, func.name)?;
        let (params, ret, vararg) = match self.ctx.types.func_info(func.sig) {
            Some((p, r, v)) => (p.to_vec(), r, v),
            None => (Vec::new(), None, false),
        };
        write!(w, "(")?;
        match func.entry_block() {
            Some(entry) => {
                for (i, &p) in func.dfg.block_params(entry).iter().enumerate() {
                    if i > 0 {
                        write!(w, ", ")?;
                    }
                    self.val(w, p)?;
                    write!(w, ": ")?;
                    self.ty(w, func.dfg.value_type(p))?;
                }
            }
            None => {
                for (i, &p) in params.iter().enumerate() {
                    if i > 0 {
                        write!(w, ", ")?;
                    }
                    self.ty(w, p)?;
                }
            }
        }
        if vararg {
            if params.is_empty() {
                write!(w, "...")?;
            } else {
                write!(w, ", ...")?;
            }
        }
        write!(w, ")")?;
        if let Some(r) = ret {
            write!(w, " -> ")?;
            self.ty(w, r)?;
        }
        let personality = func.personality.map(|p| self.ctx.name(p));
        if func.body.is_some() && func.inferred_phase(personality) != func.phase {
            write!(w, " phase({})", func.phase.name())?;
        }
        if let Some(p) = func.personality {
            write!(w, " #personality_fn = ")?;
            self.sym(w, p)?;
        }
        match func.body {
            None => writeln!(w),
            Some(body) => {
                writeln!(w, " {{")?;
                self.region_body(w, body, 1, true)?;
                writeln!(w, "}}")
            }
        }
    }

    /// Prints the blocks of a region (without braces) at `depth`.
    fn region_body(
        &self,
        w: &mut dyn Write,
        region: Region,
        depth: usize,
        is_function_body: bool,
    ) -> io::Result<()> {
        // Explicit stack of (region, next block, next op, depth) so deep nesting does not
        // recurse on the host stack.
        struct Frame {
            next_block: Option<Block>,
            next_op: Option<Op>,
            depth: usize,
            entry: Option<Block>,
            function_body: bool,
            /// What to print when this frame is done (closing text for the parent op).
            close: Option<(Op, usize)>,
        }
        let func = self.func;
        let entry = func.layout.entry_block(region);
        let mut stack = vec![Frame {
            next_block: entry,
            next_op: None,
            depth,
            entry,
            function_body: is_function_body,
            close: None,
        }];
        // For ops with several regions we print region i, then a separator, then region i+1.
        let mut region_cursor: Vec<(Op, usize)> = Vec::new();
        while let Some(frame) = stack.last_mut() {
            if let Some(op) = frame.next_op {
                frame.next_op = func.layout.next_op(op);
                let d = frame.depth;
                self.indent(w, d)?;
                self.op_head(w, op)?;
                let regions = func.dfg.regions(op);
                if regions.is_empty() {
                    self.op_tail(w, op)?;
                    writeln!(w)?;
                } else {
                    // Print the first region, remembering to continue with the others.
                    writeln!(w, " {{")?;
                    region_cursor.push((op, 0));
                    let r = regions[0];
                    let e = func.layout.entry_block(r);
                    stack.push(Frame {
                        next_block: e,
                        next_op: None,
                        depth: d + 1,
                        entry: e,
                        function_body: false,
                        close: Some((op, d)),
                    });
                }
                continue;
            }
            if let Some(b) = frame.next_block {
                frame.next_block = func.layout.next_block(b);
                frame.next_op = func.layout.first_op(b);
                let params = func.dfg.block_params(b);
                let show_label = Some(b) != frame.entry
                    || (!frame.function_body && !params.is_empty());
                if show_label {
                    self.indent(w, frame.depth.saturating_sub(1))?;
                    write!(w, "{}", self.names.block(b))?;
                    if !params.is_empty() {
                        write!(w, "(")?;
                        for (i, &p) in params.iter().enumerate() {
                            if i > 0 {
                                write!(w, ", ")?;
                            }
                            self.val(w, p)?;
                            write!(w, ": ")?;
                            self.ty(w, func.dfg.value_type(p))?;
                        }
                        write!(w, ")")?;
                    }
                    writeln!(w, ":")?;
                }
                continue;
            }
            // Region finished.
            let done = stack.pop().expect("frame exists");
            if let Some((op, d)) = done.close {
                let (cur_op, idx) = region_cursor.pop().expect("region cursor");
                debug_assert_eq!(cur_op, op);
                let regions = func.dfg.regions(op);
                self.indent(w, d)?;
                write!(w, "}}")?;
                let next = idx + 1;
                if next < regions.len() {
                    self.region_separator(w, op, next)?;
                    writeln!(w, " {{")?;
                    region_cursor.push((op, next));
                    let r = regions[next];
                    let e = func.layout.entry_block(r);
                    stack.push(Frame {
                        next_block: e,
                        next_op: None,
                        depth: d + 1,
                        entry: e,
                        function_body: false,
                        close: Some((op, d)),
                    });
                } else {
                    self.op_tail(w, op)?;
                    writeln!(w)?;
                }
            }
        }
        Ok(())
    }

    fn indent(&self, w: &mut dyn Write, depth: usize) -> io::Result<()> {
        for _ in 0..depth {
            write!(w, "  ")?;
        }
        Ok(())
    }

    /// Text between region `index - 1`'s closing brace and region `index`'s opening brace.
    fn region_separator(&self, w: &mut dyn Write, op: Op, index: usize) -> io::Result<()> {
        let dfg = &self.func.dfg;
        match *dfg.kind(op) {
            OpKind::If => write!(w, " else"),
            OpKind::While => write!(w, " do"),
            OpKind::DoWhile => write!(w, " while"),
            OpKind::For => match index {
                1 => write!(w, " body"),
                _ => write!(w, " step"),
            },
            OpKind::Ternary => write!(w, ", false"),
            OpKind::CleanupScope { kind } => write!(w, " cleanup {}", kind.name()),
            OpKind::ArrayCtor => write!(w, " cleanup"),
            OpKind::Try { handlers } => match dfg.handlers(handlers).get(index - 1) {
                Some(HandlerKey::Catch(a)) => {
                    write!(w, " catch [type ")?;
                    write_attr(w, self.ctx, *a)?;
                    write!(w, "]")
                }
                Some(HandlerKey::CatchAll) => write!(w, " catch all"),
                Some(HandlerKey::Unwind) => write!(w, " unwind"),
                Some(HandlerKey::Filter(a)) => {
                    write!(w, " filter ")?;
                    write_attr(w, self.ctx, *a)
                }
                Some(HandlerKey::Terminate) => write!(w, " terminate"),
                None => write!(w, " catch <invalid>"),
            },
            _ => write!(w, " <region {index}>"),
        }
    }

    /// Text after the op's last region closes (or after the head for region-less ops).
    fn op_tail(&self, w: &mut dyn Write, op: Op) -> io::Result<()> {
        let dfg = &self.func.dfg;
        match dfg.kind(op) {
            OpKind::Ternary => {
                write!(w, ") : (")?;
                self.types_of(w, dfg.operands(op))?;
                write!(w, ") -> ")?;
                self.types_of(w, dfg.results(op))
            }
            _ => Ok(()),
        }
    }

    fn succ(&self, w: &mut dyn Write, s: crate::entities::Successor) -> io::Result<()> {
        let dfg = &self.func.dfg;
        write!(w, "{}", self.names.block(dfg.successor_block(s)))?;
        let args = dfg.successor_args(s);
        if !args.is_empty() {
            write!(w, "(")?;
            self.vals(w, args)?;
            write!(w, " : ")?;
            self.types_of(w, args)?;
            write!(w, ")")?;
        }
        Ok(())
    }

    fn call_sig(&self, w: &mut dyn Write, op: Op, indirect: bool) -> io::Result<()> {
        let dfg = &self.func.dfg;
        write!(w, " : (")?;
        let operands = dfg.operands(op);
        self.types_of(w, operands)?;
        if !indirect {
            // operands are exactly the arguments
        }
        write!(w, ") -> ")?;
        let results = dfg.results(op);
        if results.is_empty() {
            write!(w, "()")
        } else {
            self.types_of(w, results)
        }
    }

    /// The op up to the opening brace of its first region (or the whole op).
    fn op_head(&self, w: &mut dyn Write, op: Op) -> io::Result<()> {
        let dfg = &self.func.dfg;
        let results = dfg.results(op);
        if !results.is_empty() {
            self.vals(w, results)?;
            write!(w, " = ")?;
        }
        let kind = *dfg.kind(op);
        let operands = dfg.operands(op);
        let succs = dfg.successors(op);
        let name = kind.name();
        let ctx = self.ctx;
        match kind {
            OpKind::Return | OpKind::Yield => {
                write!(w, "{name}")?;
                if !operands.is_empty() {
                    write!(w, " ")?;
                    self.vals(w, operands)?;
                    write!(w, " : ")?;
                    self.types_of(w, operands)?;
                }
                Ok(())
            }
            OpKind::Alloca {
                alloc_ty,
                name: var,
                init,
                align,
            } => {
                write!(w, "{name} ")?;
                self.ty(w, alloc_ty)?;
                write!(w, ", ")?;
                self.types_of(w, results)?;
                write!(w, ", [")?;
                write_string(w, ctx.name(var).as_bytes())?;
                if init {
                    write!(w, ", init")?;
                }
                write!(w, "]")?;
                if align != 0 {
                    write!(w, " {{alignment = {align} : i64}}")?;
                }
                Ok(())
            }
            OpKind::Load { align, volatile } => {
                write!(w, "{name} ")?;
                if volatile {
                    write!(w, "volatile ")?;
                }
                if align != 0 {
                    write!(w, "align({align}) ")?;
                }
                self.vals(w, operands)?;
                write!(w, " : ")?;
                self.types_of(w, operands)?;
                write!(w, ", ")?;
                self.types_of(w, results)
            }
            OpKind::Store { align, volatile } => {
                write!(w, "{name} ")?;
                if volatile {
                    write!(w, "volatile ")?;
                }
                if align != 0 {
                    write!(w, "align({align}) ")?;
                }
                self.vals(w, operands)?;
                write!(w, " : ")?;
                self.types_of(w, operands)
            }
            OpKind::Const { value } => {
                write!(w, "{name} ")?;
                write_attr(w, ctx, value)?;
                // Attributes that carry no type (strings) take the result type.
                if ctx.attrs.get(value).ty(ctx.types.common().bool).is_none() {
                    write!(w, " : ")?;
                    self.types_of(w, results)?;
                }
                Ok(())
            }
            OpKind::Call { callee, flags, .. } | OpKind::TryCall { callee, flags, .. } => {
                write!(w, "{name} ")?;
                if flags.exception {
                    write!(w, "exception ")?;
                }
                let args = match callee.expand() {
                    Some(s) => {
                        self.sym(w, s)?;
                        operands
                    }
                    None => {
                        match operands.first() {
                            Some(&v) => self.val(w, v)?,
                            None => write!(w, "%<missing callee>")?,
                        }
                        operands.get(1..).unwrap_or(&[])
                    }
                };
                write!(w, "(")?;
                self.vals(w, args)?;
                write!(w, ")")?;
                if let OpKind::TryCall { .. } = kind {
                    write!(w, " ")?;
                    for (i, &s) in succs.iter().enumerate() {
                        if i > 0 {
                            write!(w, ", ")?;
                        }
                        self.succ(w, s)?;
                    }
                }
                if flags.nothrow {
                    write!(w, " nothrow")?;
                }
                self.call_sig(w, op, callee.is_none())
            }
            OpKind::Binary(k) => {
                write!(w, "{name}({}, ", k.name())?;
                self.vals(w, operands)?;
                write!(w, ") : ")?;
                self.types_of(w, results)
            }
            OpKind::Unary(k) => {
                write!(w, "{name}({}, ", k.name())?;
                self.vals(w, operands)?;
                write!(w, ") : ")?;
                self.types_of(w, operands)?;
                write!(w, ", ")?;
                self.types_of(w, results)
            }
            OpKind::Cmp(k) => {
                write!(w, "{name}({}, ", k.name())?;
                self.vals(w, operands)?;
                write!(w, ") : ")?;
                self.types_of(w, operands.get(..1).unwrap_or(&[]))?;
                write!(w, ", ")?;
                self.types_of(w, results)
            }
            OpKind::Cast(k) => {
                write!(w, "{name} {} ", k.name())?;
                self.vals(w, operands)?;
                write!(w, " : ")?;
                self.types_of(w, operands)?;
                write!(w, " -> ")?;
                self.types_of(w, results)
            }
            OpKind::Select => {
                write!(w, "{name} if ")?;
                let o = operands;
                if o.len() == 3 {
                    self.val(w, o[0])?;
                    write!(w, " then ")?;
                    self.val(w, o[1])?;
                    write!(w, " else ")?;
                    self.val(w, o[2])?;
                } else {
                    self.vals(w, o)?;
                }
                write!(w, " : (")?;
                self.types_of(w, operands)?;
                write!(w, ") -> ")?;
                self.types_of(w, results)
            }
            OpKind::PtrStride => {
                write!(w, "{name} ")?;
                self.vals(w, operands)?;
                write!(w, " : (")?;
                self.types_of(w, operands)?;
                write!(w, ") -> ")?;
                self.types_of(w, results)
            }
            OpKind::GetMember { index, name: field } => {
                write!(w, "{name} ")?;
                self.vals(w, operands)?;
                write!(w, "[{index}] {{name = ")?;
                write_string(w, ctx.name(field).as_bytes())?;
                write!(w, "}} : ")?;
                self.types_of(w, operands)?;
                write!(w, " -> ")?;
                self.types_of(w, results)
            }
            OpKind::BaseClassAddr { offset, nonnull }
            | OpKind::DerivedClassAddr { offset, nonnull } => {
                write!(w, "{name} ")?;
                self.vals(w, operands)?;
                write!(w, " : ")?;
                self.types_of(w, operands)?;
                if nonnull {
                    write!(w, " nonnull")?;
                }
                write!(w, " [{offset}] -> ")?;
                self.types_of(w, results)
            }
            OpKind::GetGlobal { symbol } => {
                write!(w, "{name} ")?;
                self.sym(w, symbol)?;
                write!(w, " : ")?;
                self.types_of(w, results)
            }
            OpKind::AllocException { size } => {
                write!(w, "{name} {size} -> ")?;
                self.types_of(w, results)
            }
            OpKind::Throw { type_info, dtor } => {
                write!(w, "{name}")?;
                if !operands.is_empty() {
                    write!(w, " ")?;
                    self.vals(w, operands)?;
                    write!(w, " : ")?;
                    self.types_of(w, operands)?;
                    if let Some(t) = type_info.expand() {
                        write!(w, ", ")?;
                        self.sym(w, t)?;
                    }
                    if let Some(d) = dtor.expand() {
                        write!(w, ", ")?;
                        self.sym(w, d)?;
                    }
                }
                if let Some(&s) = succs.first() {
                    write!(w, " unwind ")?;
                    self.succ(w, s)?;
                }
                Ok(())
            }
            OpKind::Resume | OpKind::EhTerminate => {
                write!(w, "{name}")?;
                if !operands.is_empty() {
                    write!(w, " ")?;
                    self.vals(w, operands)?;
                    write!(w, " : ")?;
                    self.types_of(w, operands)?;
                }
                Ok(())
            }
            OpKind::Unreachable
            | OpKind::Break
            | OpKind::Continue
            | OpKind::Scope
            | OpKind::CatchParam
            | OpKind::While
            | OpKind::DoWhile => {
                write!(w, "{name}")?;
                if let OpKind::CatchParam = kind {
                    write!(w, " : ")?;
                    self.types_of(w, results)?;
                }
                Ok(())
            }
            OpKind::Br => {
                write!(w, "{name} ")?;
                if let Some(&s) = succs.first() {
                    self.succ(w, s)?;
                }
                Ok(())
            }
            OpKind::BrCond => {
                write!(w, "{name} ")?;
                self.vals(w, operands)?;
                for &s in succs {
                    write!(w, " ")?;
                    self.succ(w, s)?;
                    if Some(&s) != succs.last() {
                        write!(w, ",")?;
                    }
                }
                Ok(())
            }
            OpKind::SwitchFlat { cases } => {
                write!(w, "{name} ")?;
                self.vals(w, operands)?;
                write!(w, " : ")?;
                self.types_of(w, operands)?;
                write!(w, ", ")?;
                if let Some(&d) = succs.first() {
                    self.succ(w, d)?;
                }
                write!(w, " [")?;
                let values: &[i128] = match dfg.extra(cases) {
                    ExtraData::Cases(v) => v,
                    _ => &[],
                };
                let depth = self.op_depth(op);
                for (i, v) in values.iter().enumerate() {
                    writeln!(w, "{}", if i > 0 { "," } else { "" })?;
                    self.indent(w, depth + 1)?;
                    write!(w, "{v}: ")?;
                    if let Some(&s) = succs.get(i + 1) {
                        self.succ(w, s)?;
                    }
                }
                writeln!(w)?;
                self.indent(w, depth)?;
                write!(w, "]")
            }
            OpKind::IndirectBr => {
                write!(w, "{name} ")?;
                self.vals(w, operands)?;
                write!(w, " : ")?;
                self.types_of(w, operands)?;
                write!(w, ", [")?;
                for (i, &s) in succs.iter().enumerate() {
                    if i > 0 {
                        write!(w, ", ")?;
                    }
                    self.succ(w, s)?;
                }
                write!(w, "]")
            }
            OpKind::BlockAddress { label } => {
                write!(w, "{name} <")?;
                self.sym(w, self.func.name)?;
                write!(w, ", ")?;
                write_string(w, ctx.name(label).as_bytes())?;
                write!(w, "> : ")?;
                self.types_of(w, results)
            }
            OpKind::If => {
                write!(w, "{name} ")?;
                self.vals(w, operands)
            }
            OpKind::For => write!(w, "{name} : cond"),
            OpKind::Condition => {
                write!(w, "{name}(")?;
                self.vals(w, operands)?;
                write!(w, ")")
            }
            OpKind::Goto { label } | OpKind::Label { name: label } => {
                write!(w, "{name} ")?;
                write_string(w, ctx.name(label).as_bytes())
            }
            OpKind::Switch => {
                write!(w, "{name} (")?;
                self.vals(w, operands)?;
                write!(w, " : ")?;
                self.types_of(w, operands)?;
                write!(w, ")")
            }
            OpKind::Case { kind: ck, values } => {
                write!(w, "{name} ({}, [", ck.name())?;
                if let ExtraData::CaseValues(vs) = dfg.extra(values) {
                    for (i, &a) in vs.iter().enumerate() {
                        if i > 0 {
                            write!(w, ", ")?;
                        }
                        write_attr(w, ctx, a)?;
                    }
                }
                write!(w, "])")
            }
            OpKind::Ternary => {
                write!(w, "{name}(")?;
                self.vals(w, operands)?;
                write!(w, ", true")
            }
            OpKind::CleanupScope { .. } => write!(w, "{name}"),
            OpKind::Try { .. } => write!(w, "{name}"),
            OpKind::ArrayCtor | OpKind::ArrayDtor => {
                write!(w, "{name}(")?;
                self.vals(w, operands)?;
                write!(w, " : ")?;
                self.types_of(w, operands)?;
                write!(w, ")")
            }
            OpKind::EhInitiate { cleanup } => {
                write!(w, "{name}")?;
                if cleanup {
                    write!(w, " cleanup")?;
                }
                write!(w, " : ")?;
                self.types_of(w, results)
            }
            OpKind::EhDispatch { keys } => {
                write!(w, "{name} ")?;
                self.vals(w, operands)?;
                write!(w, " : ")?;
                self.types_of(w, operands)?;
                write!(w, " [")?;
                let depth = self.op_depth(op);
                for (i, key) in dfg.handlers(keys).iter().enumerate() {
                    writeln!(w)?;
                    self.indent(w, depth + 1)?;
                    match key {
                        HandlerKey::Catch(a) => {
                            write!(w, "catch (")?;
                            write_attr(w, ctx, *a)?;
                            write!(w, ")")?;
                        }
                        HandlerKey::CatchAll => write!(w, "catch_all")?,
                        HandlerKey::Unwind => write!(w, "unwind")?,
                        HandlerKey::Filter(a) => {
                            write!(w, "filter (")?;
                            write_attr(w, ctx, *a)?;
                            write!(w, ")")?;
                        }
                        HandlerKey::Terminate => write!(w, "terminate")?,
                    }
                    write!(w, " : ")?;
                    if let Some(&s) = succs.get(i) {
                        self.succ(w, s)?;
                    }
                }
                writeln!(w)?;
                self.indent(w, depth)?;
                write!(w, "]")
            }
            OpKind::BeginCleanup | OpKind::BeginCatch => {
                write!(w, "{name} ")?;
                self.vals(w, operands)?;
                write!(w, " : ")?;
                self.types_of(w, operands)?;
                write!(w, " -> ")?;
                if results.len() == 1 {
                    self.types_of(w, results)
                } else {
                    write!(w, "(")?;
                    self.types_of(w, results)?;
                    write!(w, ")")
                }
            }
            OpKind::EndCleanup | OpKind::EndCatch => {
                write!(w, "{name} ")?;
                self.vals(w, operands)?;
                write!(w, " : ")?;
                self.types_of(w, operands)
            }
            OpKind::EhLandingPad { cleanup, clauses } => {
                write!(w, "{name}")?;
                if cleanup {
                    write!(w, " cleanup")?;
                }
                write!(w, " [")?;
                if let ExtraData::LandingPadClauses(cs) = dfg.extra(clauses) {
                    for (i, c) in cs.iter().enumerate() {
                        if i > 0 {
                            write!(w, ", ")?;
                        }
                        match c {
                            LandingPadClause::Catch(None) => write!(w, "null")?,
                            LandingPadClause::Catch(Some(s)) => self.sym(w, *s)?,
                            LandingPadClause::Filter(types) => {
                                write!(w, "filter [")?;
                                for (j, s) in types.iter().enumerate() {
                                    if j > 0 {
                                        write!(w, ", ")?;
                                    }
                                    self.sym(w, *s)?;
                                }
                                write!(w, "]")?;
                            }
                        }
                    }
                }
                write!(w, "] : (")?;
                self.types_of(w, results)?;
                write!(w, ")")
            }
            OpKind::EhTypeId { type_info } => {
                write!(w, "{name} ")?;
                self.sym(w, type_info)?;
                write!(w, " : ")?;
                self.types_of(w, results)
            }
            OpKind::ResumeFlat => {
                write!(w, "{name} ")?;
                self.vals(w, operands)?;
                write!(w, " : ")?;
                self.types_of(w, operands)
            }
            OpKind::CatchSwitch { unwind_to_caller } => {
                write!(w, "{name} within ")?;
                self.parent(w, operands.first().copied())?;
                let handlers = if unwind_to_caller {
                    succs
                } else {
                    &succs[..succs.len().saturating_sub(1)]
                };
                write!(w, " [")?;
                for (i, &s) in handlers.iter().enumerate() {
                    if i > 0 {
                        write!(w, ", ")?;
                    }
                    self.succ(w, s)?;
                }
                write!(w, "] unwind to ")?;
                match (unwind_to_caller, succs.last()) {
                    (false, Some(&s)) => self.succ(w, s),
                    _ => write!(w, "caller"),
                }
            }
            OpKind::CatchPad {
                type_desc,
                adjectives,
                has_slot,
            } => {
                write!(w, "{name} within ")?;
                self.parent(w, operands.first().copied())?;
                write!(w, " [")?;
                match type_desc.expand() {
                    Some(s) => self.sym(w, s)?,
                    None => write!(w, "null")?,
                }
                write!(w, ", {adjectives}, ")?;
                match (has_slot, operands.get(1)) {
                    (true, Some(&slot)) => {
                        self.val(w, slot)?;
                        write!(w, " : ")?;
                        self.ty(w, dfg.value_type(slot))?;
                    }
                    _ => write!(w, "null")?,
                }
                write!(w, "] : ")?;
                self.types_of(w, results)
            }
            OpKind::CatchRet => {
                write!(w, "{name} from ")?;
                self.vals(w, operands)?;
                write!(w, " to ")?;
                if let Some(&s) = succs.first() {
                    self.succ(w, s)?;
                }
                Ok(())
            }
            OpKind::CleanupPad => {
                write!(w, "{name} within ")?;
                self.parent(w, operands.first().copied())?;
                write!(w, " : ")?;
                self.types_of(w, results)
            }
            OpKind::CleanupRet => {
                write!(w, "{name} from ")?;
                self.vals(w, operands)?;
                write!(w, " unwind to ")?;
                match succs.first() {
                    Some(&s) => self.succ(w, s),
                    None => write!(w, "caller"),
                }
            }
        }
    }

    fn parent(&self, w: &mut dyn Write, parent: Option<Value>) -> io::Result<()> {
        match parent {
            Some(v) => self.val(w, v),
            None => write!(w, "none"),
        }
    }

    /// Nesting depth of an op (for multi-line ops): 1 at the function body.
    fn op_depth(&self, op: Op) -> usize {
        let mut depth = 1;
        let mut cur = self.func.parent_op(op);
        while let Some(p) = cur {
            depth += 1;
            cur = self.func.parent_op(p);
        }
        depth
    }
}

/// Writes `@name`, quoting names that are not bare identifiers.
pub fn write_symbol(w: &mut dyn Write, name: &str) -> io::Result<()> {
    let bare = !name.is_empty()
        && name
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_' || c == b'.' || c == b'$')
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$'));
    if bare {
        write!(w, "@{name}")
    } else {
        write!(w, "@")?;
        write_string(w, name.as_bytes())
    }
}

/// Writes a quoted string: printable ASCII as is, `\"` and `\\` escaped, other bytes as `\XX`.
pub fn write_string(w: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    write!(w, "\"")?;
    for &b in bytes {
        match b {
            b'"' => write!(w, "\\\"")?,
            b'\\' => write!(w, "\\\\")?,
            0x20..=0x7e => w.write_all(&[b])?,
            _ => write!(w, "\\{b:02X}")?,
        }
    }
    write!(w, "\"")
}

/// Writes a type.
pub fn write_type(w: &mut dyn Write, ctx: &ModuleCtx, t: Type) -> io::Result<()> {
    // Iterative over pointer chains; recursion depth is bounded by type nesting that the
    // parser itself bounds.
    match ctx.types.get(t) {
        TypeData::Int { width, signed } => {
            write!(w, "!{}{}i", if *signed { "s" } else { "u" }, width)
        }
        TypeData::Bool => write!(w, "!cir.bool"),
        TypeData::Float => write!(w, "!cir.float"),
        TypeData::Double => write!(w, "!cir.double"),
        TypeData::Void => write!(w, "!void"),
        TypeData::Ptr(p) => {
            write!(w, "!cir.ptr<")?;
            write_type(w, ctx, *p)?;
            write!(w, ">")
        }
        TypeData::Array(e, n) => {
            write!(w, "!cir.array<")?;
            write_type(w, ctx, *e)?;
            write!(w, " x {n}>")
        }
        TypeData::Func {
            params,
            ret,
            vararg,
        } => {
            write!(w, "!cir.func<(")?;
            for (i, &p) in params.iter().enumerate() {
                if i > 0 {
                    write!(w, ", ")?;
                }
                write_type(w, ctx, p)?;
            }
            if *vararg {
                write!(w, "{}...", if params.is_empty() { "" } else { ", " })?;
            }
            write!(w, ")")?;
            if let Some(r) = ret {
                write!(w, " -> ")?;
                write_type(w, ctx, *r)?;
            }
            write!(w, ">")
        }
        TypeData::Record(alias) => write!(w, "!{}", ctx.name(*alias)),
        TypeData::EhToken => write!(w, "!cir.eh_token"),
        TypeData::CleanupToken => write!(w, "!cir.cleanup_token"),
        TypeData::CatchToken => write!(w, "!cir.catch_token"),
    }
}

/// Writes an attribute, including its `: type` suffix when it has one.
pub fn write_attr(w: &mut dyn Write, ctx: &ModuleCtx, a: Attr) -> io::Result<()> {
    match ctx.attrs.get(a) {
        AttrData::Int { value, ty } => {
            write!(w, "#cir.int<{value}> : ")?;
            write_type(w, ctx, *ty)
        }
        AttrData::Bool(b) => write!(w, "#{b}"),
        AttrData::Float { bits, ty } => {
            let v = f64::from_bits(*bits);
            if v.is_finite() {
                write!(w, "#cir.fp<{v:?}> : ")?;
            } else {
                write!(w, "#cir.fp<0x{bits:016X}> : ")?;
            }
            write_type(w, ctx, *ty)
        }
        AttrData::Null(ty) => {
            write!(w, "#cir.ptr<null> : ")?;
            write_type(w, ctx, *ty)
        }
        AttrData::GlobalView {
            symbol,
            indices,
            ty,
        } => {
            write!(w, "#cir.global_view<")?;
            write_symbol(w, ctx.name(*symbol))?;
            if !indices.is_empty() {
                write!(w, ", [")?;
                for (i, x) in indices.iter().enumerate() {
                    if i > 0 {
                        write!(w, ", ")?;
                    }
                    write!(w, "{x} : i32")?;
                }
                write!(w, "]")?;
            }
            write!(w, ">")?;
            if let Some(t) = ty {
                write!(w, " : ")?;
                write_type(w, ctx, *t)?;
            }
            Ok(())
        }
        AttrData::Str(s) => write_string(w, s),
        AttrData::ConstArray { elements, ty } => {
            write!(w, "#cir.const_array<")?;
            match elements {
                ConstArrayElements::Bytes(b) => {
                    write_string(w, b)?;
                    write!(w, " : ")?;
                    write_type(w, ctx, *ty)?;
                }
                ConstArrayElements::Attrs(items) => {
                    write!(w, "[")?;
                    for (i, &x) in items.iter().enumerate() {
                        if i > 0 {
                            write!(w, ", ")?;
                        }
                        write_attr(w, ctx, x)?;
                    }
                    write!(w, "]")?;
                }
            }
            write!(w, "> : ")?;
            write_type(w, ctx, *ty)
        }
        AttrData::Zero(ty) => {
            write!(w, "#cir.zero : ")?;
            write_type(w, ctx, *ty)
        }
        AttrData::Undef(ty) => {
            write!(w, "#cir.undef : ")?;
            write_type(w, ctx, *ty)
        }
        AttrData::List(items) => {
            write!(w, "[")?;
            for (i, &x) in items.iter().enumerate() {
                if i > 0 {
                    write!(w, ", ")?;
                }
                write_attr(w, ctx, x)?;
            }
            write!(w, "]")
        }
    }
}
