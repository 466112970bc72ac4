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
    AttrData, Block, CastKind, CleanupKind, CmpPredicate, Diagnostic, Diagnostics, Function, Loc,
    Module, ModuleCtx, Op, OpKind, Phase, Region, Type, TypeData, Value,
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
    let array_ops: Vec<Op> = func
        .walk_ops()
        .into_iter()
        .filter(|&op| matches!(func.dfg.kind(op), OpKind::ArrayCtor | OpKind::ArrayDtor))
        .collect();
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
        Ok(ArrayBuilder {
            ctx,
            func,
            op,
            loc,
            array,
            elem_ptr,
            len,
        })
    }

    fn build(
        &mut self,
        block: Block,
        kind: OpKind,
        operands: &[Value],
        results: &[Type],
        regions: usize,
    ) -> Op {
        let op = self
            .func
            .dfg
            .make_op(kind, operands, results, &[], regions, self.loc);
        self.func.layout.append_op(op, block);
        op
    }

    fn value(&mut self, block: Block, kind: OpKind, operands: &[Value], ty: Type) -> Value {
        let op = self.build(block, kind, operands, &[ty], 0);
        self.func.dfg.result(op)
    }

    fn int(&mut self, block: Block, value: i128, ty: Type) -> Value {
        let attr = self.ctx.attrs.intern(AttrData::Int { value, ty });
        self.value(block, OpKind::Const { value: attr }, &[], ty)
    }

    fn load(&mut self, block: Block, slot: Value) -> Value {
        let ty = self.elem_ptr;
        self.value(
            block,
            OpKind::Load {
                align: 0,
                volatile: false,
            },
            &[slot],
            ty,
        )
    }

    fn store(&mut self, block: Block, value: Value, slot: Value) {
        self.build(
            block,
            OpKind::Store {
                align: 0,
                volatile: false,
            },
            &[value, slot],
            &[],
            0,
        );
    }

    fn yield_(&mut self, block: Block) {
        self.build(block, OpKind::Yield, &[], &[], 0);
    }

    /// The entry block of region `i` of `op`, created.
    fn region_block(&mut self, op: Op, i: usize) -> Block {
        let region = self.func.dfg.regions(op)[i];
        let b = self.func.dfg.make_block();
        self.func.layout.append_block(region, b);
        b
    }

    /// `cmp(ne, load(slot), bound)` + `cir.condition` in `block`.
    fn condition_ne(&mut self, block: Block, slot: Value, bound: Value) {
        let cur = self.load(block, slot);
        let bool_ty = self.ctx.types.common().bool;
        let c = self.value(block, OpKind::Cmp(CmpPredicate::Ne), &[cur, bound], bool_ty);
        self.build(block, OpKind::Condition, &[c], &[], 0);
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
        let scope = self.build(block, OpKind::Scope, &[], &[], 0);
        self.func.dfg.attach_region(scope, body);
        Ok(())
    }

    /// Starts the replacement: a `cir.scope` before the array op, with `begin`, `end` and
    /// the `__array_idx` slot. Returns (scope block, begin, end, slot).
    fn start(&mut self) -> (Block, Value, Value, Value) {
        let scope = self
            .func
            .dfg
            .make_op(OpKind::Scope, &[], &[], &[], 1, self.loc);
        self.func.layout.insert_op_before(scope, self.op);
        let b = self.region_block(scope, 0);
        let u64_ty = self.ctx.types.common().u64;
        let n = self.int(b, self.len as i128, u64_ty);
        let array_ty = self.func.dfg.value_type(self.array);
        let _ = array_ty;
        let elem_ptr = self.elem_ptr;
        let begin = self.value(
            b,
            OpKind::Cast(CastKind::ArrayToPtrDecay),
            &[self.array],
            elem_ptr,
        );
        let end = self.value(b, OpKind::PtrStride, &[begin, n], elem_ptr);
        let slot_ty = self.ctx.types.ptr(elem_ptr);
        let name = self.ctx.sym("__array_idx");
        let slot = self.value(
            b,
            OpKind::Alloca {
                alloc_ty: elem_ptr,
                name,
                init: false,
                align: 0,
            },
            &[],
            slot_ty,
        );
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
        let w = self.build(block, OpKind::While, &[], &[], 2);
        let cond = self.region_block(w, 0);
        self.condition_ne(cond, slot, begin);
        let body = self.region_block(w, 1);
        let cur = self.load(body, slot);
        let s64 = self.ctx.types.common().s64;
        let minus_one = self.int(body, -1, s64);
        let prev = self.value(body, OpKind::PtrStride, &[cur, minus_one], self.elem_ptr);
        self.element_scope(body, dtor, prev)?;
        self.store(body, prev, slot);
        self.yield_(body);
        Ok(())
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
                let cs = self.build(
                    b,
                    OpKind::CleanupScope {
                        kind: CleanupKind::Eh,
                    },
                    &[],
                    &[],
                    2,
                );
                let body = self.region_block(cs, 0);
                let cleanup = self.region_block(cs, 1);
                self.partial_destroy_loop(cleanup, begin, slot, dtor)?;
                self.yield_(cleanup);
                (body, true)
            }
            None => (b, false),
        };
        let d = self.build(loop_block, OpKind::DoWhile, &[], &[], 2);
        let body = self.region_block(d, 0);
        let cur = self.load(body, slot);
        self.element_scope(body, regions[0], cur)?;
        let u64_ty = self.ctx.types.common().u64;
        let one = self.int(body, 1, u64_ty);
        let next = self.value(body, OpKind::PtrStride, &[cur, one], self.elem_ptr);
        self.store(body, next, slot);
        self.yield_(body);
        let cond = self.region_block(d, 1);
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
        let cs = self.build(
            b,
            OpKind::CleanupScope {
                kind: CleanupKind::Eh,
            },
            &[],
            &[],
            2,
        );
        let cs_body = self.region_block(cs, 0);
        let cleanup = self.region_block(cs, 1);
        let d = self.build(cs_body, OpKind::DoWhile, &[], &[], 2);
        let body = self.region_block(d, 0);
        let cur = self.load(body, slot);
        let s64 = self.ctx.types.common().s64;
        let minus_one = self.int(body, -1, s64);
        let prev = self.value(body, OpKind::PtrStride, &[cur, minus_one], self.elem_ptr);
        self.store(body, prev, slot);
        self.element_scope(body, dtor, prev)?;
        self.yield_(body);
        let cond = self.region_block(d, 1);
        self.condition_ne(cond, slot, begin);
        self.yield_(cs_body);
        self.partial_destroy_loop(cleanup, begin, slot, dtor_copy)?;
        self.yield_(cleanup);
        self.finish(b);
        Ok(())
    }
}
