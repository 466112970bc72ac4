//! `lowering-prepare`: expands the array ops of structured functions into loops, as in the
//! design seed's "Partial Array Cleanup" section.
//!
//! Rewrites (innermost array op first, so copies of element bodies are already expanded):
//! - `cir.array.ctor(%a : !cir.ptr<!cir.array<T x N>>) { ctor } cleanup { dtor }` →
//!   a `cir.scope` that computes `begin`/`end`, keeps the current element in an
//!   `__array_idx` alloca, and runs a `cir.do` loop calling the constructor body inside a
//!   `cir.cleanup.scope ... cleanup eh` whose cleanup is a `cir.while` loop destroying the
//!   elements before `__array_idx` in reverse order (nothing when the first constructor
//!   throws). Without a cleanup region, just the loop.
//! - `cir.array.dtor(%a) { dtor }` → the same scope with a `cir.do` loop that destroys
//!   elements from the last to the first (`__array_idx` points at the element being
//!   destroyed), inside a `cir.cleanup.scope ... cleanup eh` that destroys the remaining
//!   elements if one destructor throws.
//! - Arrays of zero elements construct and destroy nothing: the op is removed.

use crate::pass::for_each_definition_in;
use crate::region_utils::{clone_region, replace_uses_in_region};
use ehir_core::{
    AttrData, Block, CastKind, CleanupKind, CmpPredicate, CommonTypes, Diagnostic, Diagnostics,
    FuncCursor, Function, Loc, Module, ModuleCtx, Op, OpKind, Phase, Region, Type, TypeData, Value,
};

/// Expands the array ops of every structured function of the module.
pub fn lowering_prepare_module(module: &mut Module) -> Result<(), Diagnostics> {
    for_each_definition_in(module, Phase::Structured, lowering_prepare_function)
}

/// Expands the array ops of one structured function.
pub fn lowering_prepare_function(
    ctx: &mut ModuleCtx,
    func: &mut Function,
) -> Result<(), Diagnostic> {
    let is_array_op = |kind: &OpKind| matches!(kind, OpKind::ArrayCtor | OpKind::ArrayDtor);
    // A scan of the op table (placed or not) is much cheaper than the walk of the body,
    // and most functions have no array op.
    if !func.dfg.ops.values().any(|data| is_array_op(&data.kind)) {
        return Ok(());
    }
    let array_ops: Vec<Op> = func.ops_where(is_array_op);
    // Innermost first: an element body that holds an array op is expanded before it is
    // copied into the cleanup loop.
    for op in array_ops.into_iter().rev() {
        let mut b = ArrayBuilder::new(ctx, func, op)?;
        match *b.func.dfg.kind(op) {
            OpKind::ArrayCtor => b.lower_ctor()?,
            _ => b.lower_dtor()?,
        }
    }
    Ok(())
}

struct ArrayBuilder<'a> {
    ctx: &'a mut ModuleCtx,
    func: &'a mut Function,
    op: Op,
    loc: Loc,
    array: Value,
    elem_ptr: Type,
    len: u64,
    types: CommonTypes,
}

impl<'a> ArrayBuilder<'a> {
    fn new(ctx: &'a mut ModuleCtx, func: &'a mut Function, op: Op) -> Result<Self, Diagnostic> {
        let loc = func.dfg.loc(op);
        let name = func.dfg.kind(op).name();
        let Some(&array) = func.dfg.operands(op).first() else {
            return Err(Diagnostic::error(
                loc,
                format!("{name} has no array operand"),
            ));
        };
        let array_ty = func.dfg.value_type(array);
        let elem = ctx
            .types
            .pointee(array_ty)
            .and_then(|t| match ctx.types.get(t) {
                TypeData::Array(e, n) => Some((*e, *n)),
                _ => None,
            });
        let Some((elem, len)) = elem else {
            return Err(Diagnostic::error(
                loc,
                format!("{name} operand must be a pointer to an array"),
            ));
        };
        let regions = func.dfg.regions(op).len();
        let expected = match func.dfg.kind(op) {
            OpKind::ArrayCtor => (1..=2).contains(&regions),
            _ => regions == 1,
        };
        if !expected {
            return Err(Diagnostic::error(
                loc,
                format!("{name} has the wrong number of regions"),
            ));
        }
        let elem_ptr = ctx.types.ptr(elem);
        let types = *ctx.types.common();
        Ok(ArrayBuilder {
            ctx,
            func,
            op,
            loc,
            array,
            elem_ptr,
            len,
            types,
        })
    }

    /// A cursor at the end of `block`, giving new ops the array op's location.
    fn at(&mut self, block: Block) -> FuncCursor<'_> {
        FuncCursor::at_end(self.func, &self.types, block).with_loc(self.loc)
    }

    fn int(&mut self, block: Block, value: i128, ty: Type) -> Value {
        let attr = self.ctx.attrs.intern(AttrData::Int { value, ty });
        self.at(block).constant(attr, ty)
    }

    fn load(&mut self, block: Block, slot: Value) -> Value {
        let ty = self.elem_ptr;
        self.at(block).load(slot, ty)
    }

    fn store(&mut self, block: Block, value: Value, slot: Value) {
        self.at(block).store(value, slot);
    }

    fn yield_(&mut self, block: Block) {
        self.at(block).yield_values(&[]);
    }

    /// `cmp(ne, load(slot), bound)` + `cir.condition` in `block`.
    fn condition_ne(&mut self, block: Block, slot: Value, bound: Value) {
        let cur = self.load(block, slot);
        let mut at = self.at(block);
        let c = at.cmp(CmpPredicate::Ne, cur, bound);
        at.condition(c);
    }

    /// Appends `cir.scope { element body with its parameter replaced by elem }` to `block`.
    fn element_scope(&mut self, block: Block, body: Region, elem: Value) -> Result<(), Diagnostic> {
        let Some(entry) = self.func.layout.entry_block(body) else {
            return Err(Diagnostic::error(self.loc, "array element region is empty"));
        };
        let params = self.func.dfg.block_params(entry).to_vec();
        if params.len() != 1 {
            return Err(Diagnostic::error(
                self.loc,
                "array element region must take exactly one element pointer",
            ));
        }
        replace_uses_in_region(self.func, body, params[0], elem);
        self.func.dfg.clear_block_params(entry);
        self.at(block).scope_of(body);
        Ok(())
    }

    /// Starts the replacement: a `cir.scope` before the array op, with `begin`, `end` and
    /// the `__array_idx` slot. Returns (scope block, begin, end, slot).
    fn start(&mut self) -> (Block, Value, Value, Value) {
        let (_, b) = FuncCursor::before(self.func, &self.types, self.op)
            .with_loc(self.loc)
            .scope();
        let n = self.int(b, self.len as i128, self.types.u64);
        let elem_ptr = self.elem_ptr;
        let slot_ty = self.ctx.types.ptr(elem_ptr);
        let name = self.ctx.sym("__array_idx");
        let array = self.array;
        let mut at = self.at(b);
        let begin = at.cast(CastKind::ArrayToPtrDecay, array, elem_ptr);
        let end = at.ptr_stride(begin, n);
        let slot = at.alloca(elem_ptr, slot_ty, name, false, 0);
        (b, begin, end, slot)
    }

    /// `cir.while { idx != begin } do { prev = idx - 1; destroy(prev); idx = prev }` into `block`.
    fn partial_destroy_loop(
        &mut self,
        block: Block,
        begin: Value,
        slot: Value,
        dtor: Region,
    ) -> Result<(), Diagnostic> {
        let (_, cond, body) = self.at(block).while_loop();
        self.condition_ne(cond, slot, begin);
        let prev = self.step(body, slot, -1);
        self.element_scope(body, dtor, prev)?;
        self.store(body, prev, slot);
        self.yield_(body);
        Ok(())
    }

    /// `load(slot) + delta` (a `cir.ptr_stride`) in `block`.
    fn step(&mut self, block: Block, slot: Value, delta: i128) -> Value {
        let cur = self.load(block, slot);
        let stride = self.int(block, delta, self.types.s64);
        self.at(block).ptr_stride(cur, stride)
    }

    fn finish(&mut self, scope_block: Block) {
        self.yield_(scope_block);
        self.func.layout.remove_op(self.op);
    }

    fn lower_ctor(&mut self) -> Result<(), Diagnostic> {
        let regions = self.func.dfg.regions(self.op).to_vec();
        if self.len == 0 {
            self.func.layout.remove_op(self.op);
            return Ok(());
        }
        let (b, begin, end, slot) = self.start();
        self.store(b, begin, slot);
        // Where the construction loop goes: inside an eh cleanup scope when elements can
        // be destroyed.
        let (loop_block, cleanup) = match regions.get(1) {
            Some(&dtor) => {
                let (_, body, cleanup) = self.at(b).cleanup_scope(CleanupKind::Eh);
                self.partial_destroy_loop(cleanup, begin, slot, dtor)?;
                self.yield_(cleanup);
                (body, true)
            }
            None => (b, false),
        };
        let (_, body, cond) = self.at(loop_block).do_while();
        let cur = self.load(body, slot);
        self.element_scope(body, regions[0], cur)?;
        let one = self.int(body, 1, self.types.u64);
        let next = self.at(body).ptr_stride(cur, one);
        self.store(body, next, slot);
        self.yield_(body);
        self.condition_ne(cond, slot, end);
        if cleanup {
            self.yield_(loop_block);
        }
        self.finish(b);
        Ok(())
    }

    fn lower_dtor(&mut self) -> Result<(), Diagnostic> {
        let regions = self.func.dfg.regions(self.op).to_vec();
        if self.len == 0 {
            self.func.layout.remove_op(self.op);
            return Ok(());
        }
        let dtor = regions[0];
        let dtor_copy = clone_region(self.func, dtor);
        let (b, begin, end, slot) = self.start();
        self.store(b, end, slot);
        let (_, cs_body, cleanup) = self.at(b).cleanup_scope(CleanupKind::Eh);
        let (_, body, cond) = self.at(cs_body).do_while();
        let prev = self.step(body, slot, -1);
        self.store(body, prev, slot);
        self.element_scope(body, dtor, prev)?;
        self.yield_(body);
        self.condition_ne(cond, slot, begin);
        self.yield_(cs_body);
        self.partial_destroy_loop(cleanup, begin, slot, dtor_copy)?;
        self.yield_(cleanup);
        self.finish(b);
        Ok(())
    }
}
