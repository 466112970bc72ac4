//! The canonical text form of a module. Values and blocks are renumbered in layout order
//! (`%argN` for function parameters, `%N` for everything else, `^bbN` for blocks), and
//! `print(parse(print(m))) == print(m)`. The grammar is documented in `docs/syntax.md`.
//!
//! Text is appended to a byte buffer (numbers without `fmt`, each type rendered once per
//! call and then copied) and handed to the writer in large chunks.

mod ops;
mod types;

use types::{TypeTexts, push_attr, push_param_abi};
pub use types::{write_attr, write_type};

use crate::entities::{Block, Op, Region, Symbol, Type, Value};
use crate::function::{Function, Linkage, PhaseEvidence};
use crate::module::{Item, Module, ModuleAttribute, ModuleCtx};
use crate::ops::OpKind;
use cranelift_entity::{EntityRef, SecondaryMap};
use std::io::{self, Write};

/// The buffer is handed to the writer once it holds this many bytes.
const FLUSH_AT: usize = 1 << 16;

/// Prints a whole module to a string.
pub fn module_to_string(module: &Module) -> String {
    let mut out = Vec::new();
    print_module(&mut out, module).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("the printer writes UTF-8")
}

/// Prints a whole module.
///
/// On a rayon pool of more than one thread, runs of consecutive functions are printed in
/// parallel, each into its own buffer, and written in module order: the output is the
/// same bytes as on one thread.
pub fn print_module(w: &mut dyn Write, module: &Module) -> io::Result<()> {
    let ctx = &module.ctx;
    let mut printer = ItemPrinter::new(module);
    let mut o: Vec<u8> = Vec::with_capacity(FLUSH_AT + 4096);
    let items = ItemPrinter::order(module);
    let threads = rayon::current_num_threads();
    let mut batch: Vec<&Function> = Vec::new();
    let mut batch_ops = 0;
    for (index, item) in items.iter().enumerate() {
        if threads > 1
            && let Some(Item::Function(f)) = *item
        {
            let func = &module.functions[f];
            batch.push(func);
            batch_ops += func.dfg.ops.len();
            let last = !matches!(items.get(index + 1), Some(Some(Item::Function(_))));
            if batch_ops >= PARALLEL_BATCH_OPS_PER_THREAD * threads
                || batch.len() >= PARALLEL_BATCH_FUNCTIONS_PER_THREAD * threads
                || last
            {
                batch_ops = 0;
                w.write_all(&o)?;
                o.clear();
                print_functions_in_parallel(w, ctx, &batch)?;
                batch.clear();
            }
            continue;
        }
        match *item {
            Some(Item::Function(f)) => {
                FunctionPrinter::new(ctx, &module.functions[f], &mut printer.types)
                    .print(w, &mut o)?
            }
            item => printer.item(&mut o, module, item),
        }
        if o.len() >= FLUSH_AT {
            w.write_all(&o)?;
            o.clear();
        }
    }
    printer.finish(&mut o);
    w.write_all(&o)
}

/// Prints the items of a module one by one, for a caller that prints (or has printed)
/// its functions itself ([`print_function`]) and puts them in [`ItemPrinter::order`]:
/// together they make the text of [`print_module`].
pub struct ItemPrinter {
    types: TypeTexts,
    wrapped: bool,
}

impl ItemPrinter {
    /// A printer of the items of `module`.
    pub fn new(module: &Module) -> ItemPrinter {
        ItemPrinter {
            types: TypeTexts::default(),
            wrapped: module.wrapped || !module.attributes.is_empty(),
        }
    }

    /// The order in which the items of `module` are printed; `None` stands for the
    /// `module ... {` line that opens a wrapped module (record aliases come before it).
    pub fn order(module: &Module) -> Vec<Option<Item>> {
        let wrapped = module.wrapped || !module.attributes.is_empty();
        // Inside `module { ... }`: record aliases first (outside the braces), then the rest.
        let (outside, inside): (Vec<Item>, Vec<Item>) = if wrapped {
            module
                .items
                .iter()
                .copied()
                .partition(|item| matches!(item, Item::Record(_)))
        } else {
            (module.items.clone(), Vec::new())
        };
        let mut items: Vec<Option<Item>> = outside.into_iter().map(Some).collect();
        if wrapped {
            items.push(None);
            items.extend(inside.into_iter().map(Some));
        }
        items
    }

    /// Appends the text of `item` (the `module {` line for `None`) to `o`. A function is
    /// printed with [`print_function`].
    pub fn item(&mut self, o: &mut Vec<u8>, module: &Module, item: Option<Item>) {
        let ctx = &module.ctx;
        let types = &mut self.types;
        let Some(item) = item else {
            o.s("module ");
            if !module.attributes.is_empty() {
                push_attribute_dict(o, &module.attributes, false);
                o.s(" ");
            }
            o.s("{\n");
            return;
        };
        match item {
            Item::Record(i) => {
                let r = &ctx.records[i];
                o.s("!");
                types.aliases.push(o, ctx, r.alias);
                o.s(" = !cir.record<");
                o.s(r.kind.name());
                // An anonymous record (empty name) prints without one.
                if !ctx.name(r.name).is_empty() {
                    o.s(" ");
                    push_string(o, ctx.name(r.name).as_bytes());
                }
                if ctx.packed_records.contains(&r.alias) {
                    o.s(" packed");
                }
                if ctx.padded_records.contains(&r.alias) {
                    o.s(" padded");
                }
                match &r.fields {
                    None => o.s(" incomplete>\n"),
                    Some(fields) => {
                        o.s(" {");
                        for (i, &f) in fields.iter().enumerate() {
                            if i > 0 {
                                o.s(", ");
                            }
                            o.b(types.get(ctx, f));
                        }
                        o.s("}>\n");
                    }
                }
            }
            Item::TypeInfo(i) => {
                let t = &ctx.typeinfos[i];
                o.s("cir.typeinfo ");
                push_symbol(o, ctx.name(t.symbol));
                o.s(" : ");
                o.b(types.get(ctx, t.ty));
                if !t.bases.is_empty() {
                    o.s(" bases [");
                    for (i, base) in t.bases.iter().enumerate() {
                        if i > 0 {
                            o.s(", ");
                        }
                        push_symbol(o, ctx.name(base.symbol));
                        o.s(" at ");
                        o.s(&base.offset.to_string());
                        if base.is_virtual {
                            o.s(" virtual");
                        }
                        if let Some(vbptr_offset) = base.vbptr_offset {
                            o.s(" vbptr ");
                            o.s(&vbptr_offset.to_string());
                        }
                        if !base.public {
                            o.s(" private");
                        }
                    }
                    o.s("]");
                }
                o.s("\n");
            }
            Item::Global(g) => {
                let g = &module.globals[g];
                o.s("cir.global ");
                if g.private_visibility {
                    o.s("\"private\" ");
                }
                if g.constant {
                    o.s("constant ");
                }
                o.s(g.linkage.name());
                o.s(" ");
                push_symbol(o, ctx.name(g.name));
                match g.init {
                    Some(a) => {
                        o.s(" = ");
                        push_attr(o, types, ctx, a);
                        // Attributes without their own type get the global's type.
                        if ctx.attrs.get(a).ty(ctx.types.common().bool).is_none() {
                            o.s(" : ");
                            o.b(types.get(ctx, g.ty));
                        }
                    }
                    None => {
                        o.s(" : ");
                        o.b(types.get(ctx, g.ty));
                    }
                }
                if let Some(a) = g.align {
                    o.s(" {alignment = ");
                    o.u(a as u64);
                    o.s(" : i64}");
                }
                o.s("\n");
            }
            Item::Function(f) => {
                let mut out = Vec::new();
                let _ = print_function(&mut out, ctx, &module.functions[f]);
                o.extend_from_slice(&out);
            }
        }
    }

    /// Appends what ends the module: the `}` of a wrapped module.
    pub fn finish(&self, o: &mut Vec<u8>) {
        if self.wrapped {
            o.s("}\n");
        }
    }
}

/// How many ops per thread [`print_module`] prints in parallel before writing them: enough
/// to balance the threads, few enough that the texts waiting to be written stay small next
/// to the module (about 50 bytes of text per op).
const PARALLEL_BATCH_OPS_PER_THREAD: usize = 2048;

/// At most this many functions per thread are printed before writing them.
const PARALLEL_BATCH_FUNCTIONS_PER_THREAD: usize = 64;

/// Prints `funcs` on the rayon pool, each into its own buffer, then writes the buffers in
/// order.
fn print_functions_in_parallel(
    w: &mut dyn Write,
    ctx: &ModuleCtx,
    funcs: &[&Function],
) -> io::Result<()> {
    use rayon::prelude::*;
    let texts: Vec<io::Result<Vec<u8>>> = funcs
        .par_iter()
        .map(|func| {
            let mut types = TypeTexts::default();
            let mut head = Vec::new();
            let mut tail = Vec::new();
            FunctionPrinter::new(ctx, func, &mut types).print(&mut head, &mut tail)?;
            head.extend_from_slice(&tail);
            Ok(head)
        })
        .collect();
    for text in texts {
        w.write_all(&text?)?;
    }
    Ok(())
}

/// Prints one function.
pub fn print_function(w: &mut dyn Write, ctx: &ModuleCtx, func: &Function) -> io::Result<()> {
    let mut types = TypeTexts::default();
    let mut o = Vec::new();
    FunctionPrinter::new(ctx, func, &mut types).print(w, &mut o)?;
    w.write_all(&o)
}

/// Prints one function to a string.
pub fn function_to_string(ctx: &ModuleCtx, func: &Function) -> String {
    let mut out = Vec::new();
    print_function(&mut out, ctx, func).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("the printer writes UTF-8")
}

/// Appending text to the output buffer.
trait Out {
    /// Appends a string.
    fn s(&mut self, s: &str);
    /// Appends bytes.
    fn b(&mut self, b: &[u8]);
    /// Appends an unsigned number in decimal.
    fn u(&mut self, n: u64);
    /// Appends a signed number in decimal.
    fn i(&mut self, n: i128);
}

impl Out for Vec<u8> {
    #[inline]
    fn s(&mut self, s: &str) {
        self.extend_from_slice(s.as_bytes());
    }

    #[inline]
    fn b(&mut self, b: &[u8]) {
        self.extend_from_slice(b);
    }

    #[inline]
    fn u(&mut self, n: u64) {
        // Value and block numbers are small: one to three digits without a buffer.
        if n < 10 {
            self.push(b'0' + n as u8);
        } else if n < 100 {
            self.extend_from_slice(&[b'0' + (n / 10) as u8, b'0' + (n % 10) as u8]);
        } else if n < 1000 {
            self.extend_from_slice(&[
                b'0' + (n / 100) as u8,
                b'0' + (n / 10 % 10) as u8,
                b'0' + (n % 10) as u8,
            ]);
        } else {
            push_large(self, n);
        }
    }

    fn i(&mut self, n: i128) {
        if let Ok(small) = u64::try_from(n) {
            self.u(small);
        } else if let Ok(neg) = u64::try_from(n.unsigned_abs()) {
            self.push(b'-');
            self.u(neg);
        } else {
            let _ = write!(self, "{n}");
        }
    }
}

/// Appends a number of any size in decimal.
fn push_large(o: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    o.extend_from_slice(&digits[at..]);
}

/// Display names assigned to the values and blocks of a function.
pub struct Names {
    values: SecondaryMap<Value, u32>,
    blocks: SecondaryMap<Block, u32>,
    /// Values numbered from here on are `%N`; below, `%argN`.
    num_args: u32,
    /// Values printed with a name of their op ([`result_names`]): the name and, when an
    /// earlier value of the function took it, the suffix `_N` that makes it unique (as
    /// MLIR's printer names results). A value's number is [`NAMED`] plus its index here.
    named: Vec<(&'static str, Option<u32>)>,
}

const UNNAMED: u32 = u32::MAX;

/// Numbers from here on index [`Names::named`].
const NAMED: u32 = 1 << 31;
/// Numbers from `REGION_ARG` up (below [`NAMED`]) name the entry-block arguments of
/// nested regions: `%argN`, N counting on from the function's arguments, as MLIR does.
const REGION_ARG: u32 = 1 << 30;

/// The names upstream's printer gives an op's results (`%exception_ptr, %type_id =
/// cir.eh.inflight_exception`), or `None` for numbered results.
fn result_names(kind: &OpKind) -> Option<&'static [&'static str]> {
    match kind {
        OpKind::EhLandingPad { .. } => Some(&["exception_ptr", "type_id"]),
        _ => None,
    }
}

impl Names {
    /// Numbers the values and blocks of `func` in printing order.
    pub fn new(func: &Function) -> Names {
        Names::numbered(func, true).0
    }

    /// [`Names::new`], but blocks numbered function-wide rather than per region, so that
    /// the blocks of nested regions have names of their own (for pictures of the
    /// function).
    pub fn with_unique_blocks(func: &Function) -> Names {
        Names::numbered(func, false).0
    }

    /// [`Names::new`], also gathering what the ops say about the function's phase.
    fn numbered(func: &Function, per_region: bool) -> (Names, PhaseEvidence) {
        let mut values = SecondaryMap::with_default(UNNAMED);
        values.resize(func.dfg.values.len());
        let mut blocks = SecondaryMap::with_default(UNNAMED);
        blocks.resize(func.dfg.blocks.len());
        let mut evidence = PhaseEvidence::default();
        let mut named: Vec<(&'static str, Option<u32>)> = Vec::new();
        // Suffixes are numbered function-wide, as MLIR does.
        let mut next_conflict = 0u32;
        let mut next_value = 0u32;
        let mut next_block = 0u32;
        let mut num_args = 0;
        if let Some(entry) = func.entry_block() {
            for &p in func.dfg.block_params(entry) {
                values[p] = num_args;
                num_args += 1;
            }
        }
        // The walk of `Function::visit_in_order`, specialised: blocks in layout order,
        // each block before its ops, each op before the blocks of its regions.
        let entry = func.entry_block();
        let dfg = &func.dfg;
        let layout = &func.layout;
        struct Frame<'r> {
            next_block: Option<Block>,
            next_op: Option<Op>,
            /// Sibling regions of the same op, walked after this one.
            after: &'r [Region],
            /// The block number the enclosing region goes on with: blocks are numbered
            /// per region, as MLIR does.
            outer_next_block: u32,
            /// Whether the next block is the region's entry block.
            at_entry: bool,
        }
        /// Walks into the first of `regions`, the others waiting in its frame.
        fn enter_first<'r>(
            stack: &mut Vec<Frame<'r>>,
            next_block: &mut u32,
            regions: &'r [Region],
            layout: &crate::Layout,
            per_region: bool,
        ) {
            if let Some((&first, rest)) = regions.split_first() {
                stack.push(Frame {
                    next_block: layout.entry_block(first),
                    next_op: None,
                    after: rest,
                    outer_next_block: *next_block,
                    at_entry: true,
                });
                if per_region {
                    *next_block = 0;
                }
            }
        }
        let mut next_region_arg = num_args;
        let mut stack: Vec<Frame> = Vec::new();
        if let Some(body) = func.body {
            stack.push(Frame {
                next_block: layout.entry_block(body),
                next_op: None,
                after: &[],
                outer_next_block: 0,
                at_entry: true,
            });
        }
        while let Some(top) = stack.last_mut() {
            if let Some(op) = top.next_op {
                top.next_op = layout.next_op(op);
                let data = &dfg.ops[op];
                evidence.note(&data.kind);
                let results = data.results.as_slice(&dfg.value_lists);
                match result_names(&data.kind) {
                    Some(result_names) if result_names.len() == results.len() => {
                        for (&res, &name) in results.iter().zip(result_names) {
                            let suffix = named.iter().any(|&(n, _)| n == name).then(|| {
                                next_conflict += 1;
                                next_conflict - 1
                            });
                            values[res] = NAMED + named.len() as u32;
                            named.push((name, suffix));
                        }
                    }
                    _ => {
                        for &res in results {
                            values[res] = num_args + next_value;
                            next_value += 1;
                        }
                    }
                }
                enter_first(
                    &mut stack,
                    &mut next_block,
                    data.regions.as_slice(&dfg.region_lists),
                    layout,
                    per_region,
                );
                continue;
            }
            if let Some(b) = top.next_block {
                top.next_block = layout.next_block(b);
                top.next_op = layout.first_op(b);
                blocks[b] = next_block;
                next_block += 1;
                let region_entry = std::mem::replace(&mut top.at_entry, false);
                if Some(b) != entry {
                    for &p in dfg.block_params(b) {
                        if region_entry {
                            values[p] = REGION_ARG + next_region_arg;
                            next_region_arg += 1;
                        } else {
                            values[p] = num_args + next_value;
                            next_value += 1;
                        }
                    }
                }
                continue;
            }
            let done = stack.pop().expect("non-empty");
            if per_region {
                next_block = done.outer_next_block;
            }
            enter_first(&mut stack, &mut next_block, done.after, layout, per_region);
        }
        let names = Names {
            values,
            blocks,
            num_args,
            named,
        };
        (names, evidence)
    }

    /// `%argN`, `%N`, or `%<invalid vN>` for a value the function does not print.
    pub fn value(&self, v: Value) -> String {
        let mut out = Vec::new();
        self.push_value(&mut out, v);
        String::from_utf8(out).expect("names are ASCII")
    }

    /// `^bbN`.
    pub fn block(&self, b: Block) -> String {
        let mut out = Vec::new();
        self.push_block(&mut out, b);
        String::from_utf8(out).expect("names are ASCII")
    }

    #[inline]
    fn push_value(&self, o: &mut Vec<u8>, v: Value) {
        match self.values.get(v).copied().unwrap_or(UNNAMED) {
            UNNAMED => {
                let _ = write!(o, "%<invalid {v}>");
            }
            n if n < self.num_args => {
                o.s("%arg");
                o.u(n as u64);
            }
            n if (REGION_ARG..NAMED).contains(&n) => {
                o.s("%arg");
                o.u((n - REGION_ARG) as u64);
            }
            n if n >= NAMED => match self.named.get((n - NAMED) as usize) {
                Some(&(name, suffix)) => {
                    o.s("%");
                    o.s(name);
                    if let Some(k) = suffix {
                        o.s("_");
                        o.u(k as u64);
                    }
                }
                None => {
                    let _ = write!(o, "%<invalid {v}>");
                }
            },
            n => {
                o.s("%");
                o.u((n - self.num_args) as u64);
            }
        }
    }

    #[inline]
    fn push_block(&self, o: &mut Vec<u8>, b: Block) {
        match self.blocks.get(b).copied().unwrap_or(UNNAMED) {
            UNNAMED => {
                let _ = write!(o, "^<invalid {b}>");
            }
            n => {
                o.s("^bb");
                o.u(n as u64);
            }
        }
    }
}

struct FunctionPrinter<'a, 't> {
    ctx: &'a ModuleCtx,
    func: &'a Function,
    names: Names,
    evidence: PhaseEvidence,
    types: &'t mut TypeTexts,
}

impl<'a, 't> FunctionPrinter<'a, 't> {
    fn new(ctx: &'a ModuleCtx, func: &'a Function, types: &'t mut TypeTexts) -> Self {
        let (names, evidence) = Names::numbered(func, true);
        FunctionPrinter {
            ctx,
            func,
            names,
            evidence,
            types,
        }
    }

    #[inline]
    fn ty(&mut self, o: &mut Vec<u8>, t: Type) {
        o.b(self.types.get(self.ctx, t));
    }

    #[inline]
    fn val(&self, o: &mut Vec<u8>, v: Value) {
        self.names.push_value(o, v);
    }

    #[inline]
    fn vals(&self, o: &mut Vec<u8>, vs: &[Value]) {
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                o.s(", ");
            }
            self.val(o, v);
        }
    }

    #[inline]
    fn types_of(&mut self, o: &mut Vec<u8>, vs: &[Value]) {
        let func = self.func;
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                o.s(", ");
            }
            self.ty(o, func.dfg.value_type(v));
        }
    }

    /// ` : (A, B) -> R`: the types of `operands` and `results` as a function type.
    fn function_type_of(&mut self, o: &mut Vec<u8>, operands: &[Value], results: &[Value]) {
        o.s(" : (");
        self.types_of(o, operands);
        o.s(") -> ");
        self.types_of(o, results);
    }

    /// `(kind, %a, %b) : `
    #[inline]
    fn kind_and_vals(&self, o: &mut Vec<u8>, kind: &str, vs: &[Value]) {
        o.s("(");
        o.s(kind);
        o.s(", ");
        self.vals(o, vs);
        o.s(") : ");
    }

    /// `%a, %b : A, B`
    #[inline]
    fn vals_and_types(&mut self, o: &mut Vec<u8>, vs: &[Value]) {
        self.vals(o, vs);
        o.s(" : ");
        self.types_of(o, vs);
    }

    /// `(%a: A, %b: B)`: a block's parameters with their types.
    #[inline]
    fn block_params(&mut self, o: &mut Vec<u8>, params: &[Value]) {
        let func = self.func;
        o.s("(");
        for (i, &p) in params.iter().enumerate() {
            if i > 0 {
                o.s(", ");
            }
            self.val(o, p);
            o.s(": ");
            self.ty(o, func.dfg.value_type(p));
        }
        o.s(")");
    }

    #[inline]
    fn sym(&self, o: &mut Vec<u8>, s: Symbol) {
        push_symbol(o, self.ctx.name(s));
    }

    fn print(&mut self, w: &mut dyn Write, o: &mut Vec<u8>) -> io::Result<()> {
        let func = self.func;
        if let Some(problem) = foreign_entity(func) {
            // Printing would index past the function's tables: show the signature and say
            // why the body is missing instead of panicking.
            o.s("// the body of this function cannot be printed: ");
            o.s(&problem);
            o.s("\n");
            let declaration = Function::new_declaration(func.name, func.sig);
            return FunctionPrinter::new(self.ctx, &declaration, self.types).print(w, o);
        }
        o.s("cir.func ");
        if func.linkage != Linkage::External {
            o.s(func.linkage.name());
            o.s(" ");
        }
        if let Some(inline) = func.inline {
            o.s(inline.name());
            o.s(" ");
        }
        if func.hidden {
            o.s("hidden ");
        }
        if func.dso_local {
            o.s("dso_local ");
        }
        if func.nothrow {
            o.s("nothrow ");
        }
        self.sym(o, func.name);
        let (params, ret, vararg) = match self.ctx.types.func_info(func.sig) {
            Some((p, r, v)) => (p, r, v),
            None => (&[][..], None, false),
        };
        o.s("(");
        match func.entry_block() {
            Some(entry) => {
                for (i, &p) in func.dfg.block_params(entry).iter().enumerate() {
                    if i > 0 {
                        o.s(", ");
                    }
                    self.val(o, p);
                    o.s(": ");
                    self.ty(o, func.dfg.value_type(p));
                    push_param_abi(o, self.ctx.types.param_abi(func.sig, i));
                }
            }
            None => {
                for (i, &p) in params.iter().enumerate() {
                    if i > 0 {
                        o.s(", ");
                    }
                    self.ty(o, p);
                    push_param_abi(o, self.ctx.types.param_abi(func.sig, i));
                }
            }
        }
        if vararg {
            if params.is_empty() {
                o.s("...");
            } else {
                o.s(", ...");
            }
        }
        o.s(")");
        if let Some(r) = ret {
            o.s(" -> ");
            self.ty(o, r);
        }
        match func.global_ctor {
            Some(crate::function::DEFAULT_GLOBAL_CTOR_PRIORITY) => o.s(" global_ctor"),
            Some(priority) => {
                o.s(" global_ctor(");
                o.u(u64::from(priority));
                o.s(")");
            }
            None => {}
        }
        if let Some(p) = func.personality {
            o.s(" personality(");
            self.sym(o, p);
            o.s(")");
        }
        if !func.attributes.is_empty() {
            o.s(" ");
            push_attribute_dict(o, &func.attributes, true);
        }
        // ehir's own annotation comes after upstream's syntax.
        let personality = func.personality.map(|p| self.ctx.name(p));
        if func.body.is_some() && self.evidence.phase(func, personality) != func.phase {
            o.s(" phase(");
            o.s(func.phase.name());
            o.s(")");
        }
        match func.body {
            None => o.s("\n"),
            Some(body) => {
                o.s(" {\n");
                self.region_body(w, o, body)?;
                o.s("}\n");
            }
        }
        Ok(())
    }

    /// Prints the blocks of the function body `body` (without braces).
    fn region_body(&mut self, w: &mut dyn Write, o: &mut Vec<u8>, body: Region) -> io::Result<()> {
        // An explicit stack of regions so deep nesting does not recurse on the host stack.
        let func = self.func;
        let mut stack = vec![RegionWalkFrame::new(func, body, 1, None)];
        while let Some(frame) = stack.last_mut() {
            if let Some(op) = frame.next_op {
                frame.next_op = func.layout.next_op(op);
                let d = frame.depth;
                indent(o, d);
                self.op_head(o, op, d);
                let regions = func.dfg.regions(op);
                if let Some(&first) = regions.first() {
                    // Print the first region; the others follow when it closes.
                    o.s(" {\n");
                    stack.push(RegionWalkFrame::new(func, first, d + 1, Some((op, 0))));
                } else {
                    if let OpKind::Ternary = func.dfg.kind(op) {
                        self.op_tail(o, op);
                    }
                    o.s("\n");
                    // Upstream's `cir.throw` does not end its block: `cir.unreachable`
                    // follows it (the reader drops it again).
                    if let OpKind::Throw { .. } = func.dfg.kind(op)
                        && func.dfg.successors(op).is_empty()
                    {
                        indent(o, d);
                        o.s("cir.unreachable\n");
                    }
                }
                if o.len() >= FLUSH_AT {
                    w.write_all(o)?;
                    o.clear();
                }
                continue;
            }
            if let Some(b) = frame.next_block {
                frame.next_block = func.layout.next_block(b);
                frame.next_op = func.layout.first_op(b);
                let params = func.dfg.block_params(b);
                if frame.shows_label(func, b) {
                    let label_depth = frame.depth.saturating_sub(1);
                    indent(o, label_depth);
                    self.names.push_block(o, b);
                    if !params.is_empty() {
                        self.block_params(o, params);
                    }
                    o.s(":\n");
                }
                continue;
            }
            // Region finished.
            let done = stack.pop().expect("frame exists");
            if let Some((op, idx)) = done.owner {
                let d = done.depth - 1;
                let regions = func.dfg.regions(op);
                indent(o, d);
                o.s("}");
                let next = idx + 1;
                if let Some(&r) = regions.get(next) {
                    self.region_separator(o, op, next);
                    let mut frame = RegionWalkFrame::new(func, r, d + 1, Some((op, next)));
                    let params = frame.entry.map_or(&[][..], |e| func.dfg.block_params(e));
                    let in_head =
                        matches!(func.dfg.kind(op), OpKind::Try { .. }) && !params.is_empty();
                    if in_head {
                        o.s(" ");
                        self.block_params(o, params);
                    }
                    o.s(" {\n");
                    frame.params_in_head = in_head;
                    stack.push(frame);
                } else {
                    self.op_tail(o, op);
                    o.s("\n");
                }
            }
        }
        Ok(())
    }
}

/// One region of a walk over a function body in the printer's order (its blocks, and in
/// each block its ops, an op's regions right after the op's head), with an explicit stack
/// of these so deep nesting does not recurse on the host stack.
pub struct RegionWalkFrame {
    /// The next block of the region to visit.
    pub next_block: Option<Block>,
    /// The next op of the current block to visit.
    pub next_op: Option<Op>,
    /// The nesting depth of the region's ops (the function body's are at 1).
    pub depth: usize,
    /// The region's entry block.
    pub entry: Option<Block>,
    /// The region is the function body.
    pub function_body: bool,
    /// The op whose region this is, and the index of the region.
    pub owner: Option<(Op, usize)>,
    /// The entry block's parameters were printed in the op's text (a `cir.try`
    /// handler: `catch all (%0: !cir.eh_token) {`), so its label is left out.
    pub params_in_head: bool,
}

impl RegionWalkFrame {
    /// The frame of `region` of `func` at `depth`: region `owner.1` of op `owner.0`, or the
    /// function body (`None`).
    pub fn new(func: &Function, region: Region, depth: usize, owner: Option<(Op, usize)>) -> Self {
        let entry = func.layout.entry_block(region);
        RegionWalkFrame {
            next_block: entry,
            next_op: None,
            depth,
            entry,
            function_body: owner.is_none(),
            owner,
            params_in_head: false,
        }
    }

    /// Whether the printer shows the label line of block `b` of the region: every block's
    /// but the entry's, and the entry's of a nested region when it has parameters not
    /// printed in the op's text.
    pub fn shows_label(&self, func: &Function, b: Block) -> bool {
        Some(b) != self.entry
            || (!self.function_body && !func.dfg.block_params(b).is_empty() && !self.params_in_head)
    }
}

/// The nesting depth past which indentation stops growing (`docs/syntax.md`), so the
/// printed text stays proportional to the input however deep the IR nests.
pub const MAX_INDENT_DEPTH: usize = 32;

/// Two spaces per level, up to [`MAX_INDENT_DEPTH`] levels.
#[inline]
fn indent(o: &mut Vec<u8>, depth: usize) {
    const SPACES: &[u8; 2 * MAX_INDENT_DEPTH] = &[b' '; 2 * MAX_INDENT_DEPTH];
    o.extend_from_slice(&SPACES[..2 * depth.min(MAX_INDENT_DEPTH)]);
}

/// `attributes {a = V, b}` of a module or a function; with `bare_units`, an attribute
/// whose value is `unit` prints as its name alone.
fn push_attribute_dict(o: &mut Vec<u8>, attributes: &[ModuleAttribute], bare_units: bool) {
    o.s("attributes {");
    for (i, attribute) in attributes.iter().enumerate() {
        if i > 0 {
            o.s(", ");
        }
        o.s(&attribute.name);
        if !(bare_units && attribute.value == "unit") {
            o.s(" = ");
            o.s(&attribute.value);
        }
    }
    o.s("}");
}

/// Writes `@name`, quoting names that are not bare identifiers.
pub fn write_symbol(w: &mut dyn Write, name: &str) -> io::Result<()> {
    let mut o = Vec::new();
    push_symbol(&mut o, name);
    w.write_all(&o)
}

fn push_symbol(o: &mut Vec<u8>, name: &str) {
    let bare = name
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_' || c == b'.' || c == b'$')
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$'));
    o.s("@");
    if bare {
        o.s(name);
    } else {
        push_string(o, name.as_bytes());
    }
}

/// Writes a quoted string: printable ASCII as is, `\"` and `\\` escaped, other bytes as `\XX`.
pub fn write_string(w: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    let mut o = Vec::new();
    push_string(&mut o, bytes);
    w.write_all(&o)
}

fn push_string(o: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    o.push(b'"');
    for &b in bytes {
        match b {
            b'"' => o.s("\\\""),
            b'\\' => o.s("\\\\"),
            0x20..=0x7e => o.push(b),
            _ => o.extend_from_slice(&[b'\\', HEX[(b >> 4) as usize], HEX[(b & 15) as usize]]),
        }
    }
    o.push(b'"');
}

/// The first entity an op of `func` refers to that `func` does not have (a value,
/// block or region of another function, or out of range), described for a message; `None`
/// when every reference is in range, which verified IR always is.
fn foreign_entity(func: &Function) -> Option<String> {
    let dfg = &func.dfg;
    let value_ok = |v: Value| v.index() < dfg.values.len();
    for op in dfg.ops.keys() {
        let name = dfg.kind(op).name();
        // `what` names the missing entity and how the op refers to it.
        let missing = |what: &str, index: usize| {
            Some(format!(
                "a '{name}' {what} #{index}, which it does not have"
            ))
        };
        if let Some(&v) = dfg.operands(op).iter().find(|&&v| !value_ok(v)) {
            return missing("uses value", v.index());
        }
        for &successor in dfg.successors(op) {
            let block = dfg.successor_block(successor);
            if block.index() >= dfg.blocks.len() {
                return missing("branches to block", block.index());
            }
            if let Some(&v) = dfg
                .successor_args(successor)
                .iter()
                .find(|&&v| !value_ok(v))
            {
                return missing("passes value", v.index());
            }
        }
        if let Some(&r) = dfg
            .regions(op)
            .iter()
            .find(|r| r.index() >= dfg.regions.len())
        {
            return missing("has region", r.index());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_like_display() {
        let cases: [i128; 12] = [
            0,
            7,
            -1,
            42,
            -9_999,
            i64::MAX as i128,
            i64::MIN as i128,
            u64::MAX as i128,
            -(u64::MAX as i128),
            -(u64::MAX as i128) - 1,
            i128::MAX,
            i128::MIN,
        ];
        for n in cases {
            let mut o = Vec::new();
            o.i(n);
            assert_eq!(String::from_utf8(o).unwrap(), n.to_string());
        }
        for n in [
            0u64,
            9,
            10,
            99,
            100,
            999,
            1000,
            65_535,
            u32::MAX as u64,
            u64::MAX,
        ] {
            let mut o = Vec::new();
            o.u(n);
            assert_eq!(String::from_utf8(o).unwrap(), n.to_string());
        }
    }

    #[test]
    fn indentation_is_two_spaces_per_level_up_to_the_cap() {
        for depth in [0, 1, 5, 31, 32, 33, 100, 100_000] {
            let mut o = Vec::new();
            indent(&mut o, depth);
            assert_eq!(o, vec![b' '; depth.min(MAX_INDENT_DEPTH) * 2]);
        }
    }

    #[test]
    fn strings_and_symbols_are_escaped() {
        let mut o = Vec::new();
        push_string(&mut o, b"a\"b\\c\n\x7f\xff ~");
        assert_eq!(String::from_utf8(o).unwrap(), r#""a\"b\\c\0A\7F\FF ~""#);
        let mut o = Vec::new();
        push_symbol(&mut o, "_Z3foo.v$1");
        push_symbol(&mut o, "9lives");
        push_symbol(&mut o, "");
        assert_eq!(String::from_utf8(o).unwrap(), r#"@_Z3foo.v$1@"9lives"@"""#);
    }

    #[test]
    fn type_texts_are_rendered_once_and_reused() {
        let mut ctx = ModuleCtx::default();
        let s32 = ctx.types.common().s32;
        let ptr = ctx.types.ptr(s32);
        let pptr = ctx.types.ptr(ptr);
        let mut texts = TypeTexts::default();
        assert_eq!(texts.get(&ctx, pptr), b"!cir.ptr<!cir.ptr<!s32i>>");
        let len = texts.text.len();
        assert_eq!(texts.get(&ctx, pptr), b"!cir.ptr<!cir.ptr<!s32i>>");
        assert_eq!(texts.text.len(), len, "the second use is a copy");
        assert_eq!(texts.get(&ctx, s32), b"!s32i");
        let mut direct = Vec::new();
        write_type(&mut direct, &ctx, pptr).unwrap();
        assert_eq!(direct, b"!cir.ptr<!cir.ptr<!s32i>>");
    }

    #[test]
    fn names_of_values_the_function_does_not_print() {
        let mut ctx = ModuleCtx::default();
        let s32 = ctx.types.common().s32;
        let sig = ctx.types.func(vec![s32], None, false);
        let name = ctx.sym("f");
        let mut func = Function::new_definition(name, sig, &[s32]);
        let entry = func.entry_block().unwrap();
        let arg = func.dfg.block_params(entry)[0];
        let c = func
            .dfg
            .make_op(OpKind::Return, &[arg], &[], &[], 0, Default::default());
        func.layout.append_op(c, entry);
        let stray = func.dfg.make_block();
        let unplaced = func.dfg.append_block_param(stray, s32);
        let names = Names::new(&func);
        assert_eq!(names.value(arg), "%arg0");
        assert_eq!(names.block(entry), "^bb0");
        assert_eq!(names.value(unplaced), format!("%<invalid {unplaced}>"));
        assert_eq!(names.block(stray), format!("^<invalid {stray}>"));
        assert_eq!(
            function_to_string(&ctx, &func),
            "cir.func @f(%arg0: !s32i) {\n  cir.return %arg0 : !s32i\n}\n"
        );
    }
}
