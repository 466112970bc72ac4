//! The function emitter: one CIR function body to LLVM basic blocks — value names and
//! operands, parameters (including classes passed in registers), which values need no
//! instruction, block order, phis for block parameters and the edges that feed them.

use super::types::ParamLowering;
use super::{ModuleEmitter, arity_ok};
use crate::ir::{Arg, Attrs, BasicBlock, CallTarget, Inst, Operand, Ty};
use crate::layout::size_align;
use crate::sysv;
use ehir_core::analysis::reachable_blocks;
use ehir_core::printer::Names;
use ehir_core::{
    Block, CastKind, Function, Loc, ModuleCtx, Op, OpKind, RecordKind, SecondaryMap, Successor,
    Type, TypeData, UnaryOp, Value,
};
use std::collections::BTreeMap;

/// A class a call returns in registers: the CIR `by_value_result` argument it goes to.
pub(super) struct ReturnedClass {
    pub(super) slot: Operand,
    pub(super) parts: Vec<sysv::Part>,
    pub(super) align: u64,
}

/// Emits the body of one function.
pub(super) struct FunctionEmitter<'a, 'm> {
    /// The emitter of the module the function belongs to (types, symbols, declarations).
    pub(super) module_emitter: &'a mut ModuleEmitter<'m>,
    pub(super) func: &'m Function,
    pub(super) names: Names,
    /// Values that are another value under a new type (no-op casts).
    pub(super) alias: BTreeMap<Value, Value>,
    /// Values that are constants (`cir.const`, `cir.get_global`).
    pub(super) constants: BTreeMap<Value, Operand>,
    pub(super) reachable: SecondaryMap<Block, bool>,
    pub(super) blocks: Vec<BasicBlock>,
    /// Trampoline blocks to append after the current block.
    pub(super) pending: Vec<BasicBlock>,
    /// Phi inputs per target block: (arguments, predecessor label).
    pub(super) incoming: BTreeMap<Block, Vec<(Vec<Operand>, String)>>,
    pub(super) allocas: Vec<Inst>,
    pub(super) temp: u32,
    pub(super) unreachable_label: Option<String>,
    /// The label of the block whose instructions are being emitted.
    pub(super) current_label: String,
    /// MSVC: the pad (a `cir.catchpad` or `cir.cleanuppad` result) of the funclet each
    /// block belongs to; `None` for the function's own code.
    pub(super) funclet_of: BTreeMap<Block, Option<Value>>,
    /// The local name of the current block's funclet pad.
    pub(super) current_funclet: Option<String>,
    /// How the function's own CIR parameters arrive (see [`ModuleEmitter::signature`]).
    pub(super) lowering: Vec<ParamLowering>,
    /// A class result returned in registers: the local slot (the CIR `by_value_result`
    /// parameter), its parts and the slot's alignment. `cir.return` returns its parts.
    pub(super) result_slot: Option<(Operand, Vec<sysv::Part>, u64)>,
}

/// The alignment of the address `offset` bytes into an object aligned to `align`.
fn offset_align(align: u64, offset: u64) -> u64 {
    if offset == 0 {
        align
    } else {
        align.min(1 << offset.trailing_zeros())
    }
}

impl<'a, 'm> FunctionEmitter<'a, 'm> {
    pub(super) fn new(
        module_emitter: &'a mut ModuleEmitter<'m>,
        func: &'m Function,
        lowering: Vec<ParamLowering>,
    ) -> Self {
        FunctionEmitter {
            module_emitter,
            func,
            names: Names::new(func),
            alias: BTreeMap::new(),
            constants: BTreeMap::new(),
            reachable: SecondaryMap::new(),
            blocks: Vec::new(),
            pending: Vec::new(),
            incoming: BTreeMap::new(),
            allocas: Vec::new(),
            temp: 0,
            unreachable_label: None,
            current_label: String::new(),
            funclet_of: BTreeMap::new(),
            current_funclet: None,
            lowering,
            result_slot: None,
        }
    }

    /// `base` advanced by `offset` bytes: the operand and the `getelementptr` that makes
    /// it (none for offset 0).
    pub(super) fn byte_offset(&mut self, base: &Operand, offset: u64) -> (Operand, Option<Inst>) {
        if offset == 0 {
            return (base.clone(), None);
        }
        let name = self.fresh("part.addr");
        let gep = Inst::Gep {
            result: name.clone(),
            source: Ty::i8(),
            base: base.clone(),
            indices: vec![(Ty::i64(), Operand::Int(i128::from(offset)))],
            inbounds: true,
        };
        (Operand::Local(name), Some(gep))
    }

    /// Loads the register parts of a class from `ptr`: the instructions and the values.
    pub(super) fn load_parts(
        &mut self,
        ptr: &Operand,
        parts: &[sysv::Part],
        align: u64,
    ) -> (Vec<Inst>, Vec<Operand>) {
        let mut insts = Vec::new();
        let mut values = Vec::new();
        for part in parts {
            let (addr, gep) = self.byte_offset(ptr, part.offset);
            insts.extend(gep);
            let name = self.fresh("part");
            insts.push(Inst::Load {
                result: name.clone(),
                ty: part.ty.clone(),
                ptr: addr,
                align: offset_align(align, part.offset) as u32,
                volatile: false,
            });
            values.push(Operand::Local(name));
        }
        (insts, values)
    }

    /// Stores the register parts of a class (`values`, one per part) to `ptr`.
    pub(super) fn store_parts(
        &mut self,
        ptr: &Operand,
        parts: &[sysv::Part],
        values: Vec<Operand>,
        align: u64,
    ) -> Vec<Inst> {
        let mut insts = Vec::new();
        for (part, value) in parts.iter().zip(values) {
            let (addr, gep) = self.byte_offset(ptr, part.offset);
            insts.extend(gep);
            insts.push(Inst::Store {
                ty: part.ty.clone(),
                value,
                ptr: addr,
                align: offset_align(align, part.offset) as u32,
                volatile: false,
            });
        }
        insts
    }

    /// The record a `by_value` / `by_value_result` pointer points to: its LLVM type and
    /// alignment.
    pub(super) fn pointee_record(&mut self, ptr_ty: Type) -> Option<(Ty, u64)> {
        let ctx = self.ctx();
        let record = ctx.types.pointee(ptr_ty)?;
        let ty = self.module_emitter.mem_ty(record).ok()?;
        let (_, align) = size_align(ctx, record).ok()?;
        Some((ty, align))
    }

    /// Allocas for the CIR parameters that arrive in registers (named like the
    /// parameters, whose uses are their addresses) and the stores that fill them from the
    /// LLVM parameters; sets [`FunctionEmitter::result_slot`].
    pub(super) fn parameter_prologue(&mut self, params: &[Value], names: &[String]) -> Vec<Inst> {
        let mut prologue = Vec::new();
        let lowering = self.lowering.clone();
        for (i, lowering) in lowering.iter().enumerate() {
            let (parts, is_result) = match lowering {
                ParamLowering::Direct => continue,
                ParamLowering::Parts { parts } => (parts, false),
                ParamLowering::ResultParts { parts } => (parts, true),
            };
            let (Some(&p), Some(name)) = (params.get(i), names.get(i)) else {
                continue;
            };
            let Some((ty, align)) = self.pointee_record(self.vty(p)) else {
                self.module_emitter.error(
                    self.func.loc,
                    format!("parameter #{i} is not a pointer to a complete record"),
                );
                continue;
            };
            self.allocas.push(Inst::Alloca {
                result: name.clone(),
                ty,
                align: align as u32,
            });
            let slot = Operand::Local(name.clone());
            if is_result {
                self.result_slot = Some((slot, parts.clone(), align));
            } else {
                let values = (0..parts.len())
                    .map(|k| Operand::Local(format!("{name}.coerce{k}")))
                    .collect();
                prologue.extend(self.store_parts(&slot, parts, values, align));
            }
        }
        prologue
    }

    pub(super) fn ctx(&self) -> &'m ModuleCtx {
        self.module_emitter.ctx
    }

    pub(super) fn error(&mut self, op: Op, message: impl Into<String>) {
        let loc = self.func.dfg.loc(op);
        let loc = if loc == Loc::NONE { self.func.loc } else { loc };
        self.module_emitter.error(loc, message);
    }

    pub(super) fn value_name(&self, v: Value) -> String {
        let n = self.names.value(v);
        let n = n.trim_start_matches('%');
        if n.starts_with(|c: char| c.is_ascii_digit()) {
            format!("v{n}")
        } else {
            n.to_string()
        }
    }

    pub(super) fn block_label(&self, b: Block) -> String {
        self.names.block(b).trim_start_matches('^').to_string()
    }

    pub(super) fn fresh(&mut self, hint: &str) -> String {
        let n = self.temp;
        self.temp += 1;
        format!("{hint}.{n}")
    }

    /// The operand for a value, looking through aliases and constants.
    pub(super) fn operand(&self, v: Value) -> Operand {
        let mut v = v;
        let mut steps = 0;
        while let Some(&src) = self.alias.get(&v) {
            v = src;
            steps += 1;
            if steps > self.alias.len() {
                break;
            }
        }
        match self.constants.get(&v) {
            Some(c) => c.clone(),
            None => Operand::Local(self.value_name(v)),
        }
    }

    pub(super) fn vty(&self, v: Value) -> Type {
        self.func.dfg.value_type(v)
    }

    /// The value of `result`, or `None` with its error reported at `op`.
    pub(super) fn reported<T>(&mut self, op: Op, result: Result<T, String>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(msg) => {
                self.error(op, msg);
                None
            }
        }
    }

    pub(super) fn value_ty(&mut self, op: Op, t: Type) -> Option<Ty> {
        let result = self.module_emitter.value_ty(t);
        self.reported(op, result)
    }

    pub(super) fn mem_ty(&mut self, op: Op, t: Type) -> Option<Ty> {
        let result = self.module_emitter.mem_ty(t);
        self.reported(op, result)
    }

    /// A call of runtime function `name` whose result, if any, is not used.
    pub(super) fn call_runtime(&mut self, name: &str, ret: Ty, args: Vec<Arg>, fn_attrs: Attrs) {
        let callee = self.module_emitter.runtime(name);
        self.emit(Inst::Call {
            result: None,
            target: CallTarget::simple(ret, callee, args, fn_attrs),
        });
    }

    pub(super) fn emit(&mut self, mut inst: Inst) {
        if let Some(pad) = &self.current_funclet
            && let Inst::Call { target, .. } | Inst::Invoke { target, .. } = &mut inst
            && target.funclet.is_none()
        {
            target.funclet = Some(pad.clone());
        }
        self.blocks
            .last_mut()
            .expect("a block is open")
            .insts
            .push(inst);
    }

    pub(super) fn is_bool(&self, t: Type) -> bool {
        matches!(self.ctx().types.get(t), TypeData::Bool)
    }

    pub(super) fn int_info(&self, t: Type) -> Option<(u16, bool)> {
        self.ctx().types.int_info(t)
    }

    /// Returns the emitted blocks and the parameter names of the function.
    pub(super) fn run(&mut self) -> (Vec<BasicBlock>, Vec<String>) {
        let func = self.func;
        let entry = func.entry_block().expect("a definition has an entry block");
        self.reachable = reachable_blocks(func, entry);
        if self.module_emitter.msvc {
            self.note_funclets();
        }
        let param_values: Vec<Value> = func.dfg.block_params(entry).to_vec();
        let param_names: Vec<String> = param_values.iter().map(|&p| self.value_name(p)).collect();
        let prologue = self.parameter_prologue(&param_values, &param_names);
        let body = func.body.expect("definition");
        let blocks: Vec<Block> = func
            .layout
            .blocks(body)
            .filter(|&b| self.reachable[b])
            .collect();
        // Pass 1: values that need no instruction.
        for &b in &blocks {
            for op in func.layout.ops(b) {
                self.classify(op);
            }
        }
        // An entry block that is also a branch target gets a separate LLVM entry block.
        let entry_is_target = blocks.iter().any(|&b| {
            func.layout
                .last_op(b)
                .is_some_and(|t| func.dfg.successor_blocks(t).any(|s| s == entry))
        });
        if entry_is_target {
            if !func.dfg.block_params(entry).is_empty() {
                self.module_emitter.error(
                    func.loc,
                    "a branch to the entry block of a function with parameters cannot be emitted",
                );
            }
            self.blocks.push(BasicBlock {
                label: "entry".into(),
                insts: vec![Inst::Br(self.block_label(entry))],
            });
        }
        for &b in &blocks {
            self.current_label = self.block_label(b);
            self.current_funclet = self
                .funclet_of
                .get(&b)
                .copied()
                .flatten()
                .map(|pad| self.value_name(pad));
            self.blocks.push(BasicBlock {
                label: self.current_label.clone(),
                insts: Vec::new(),
            });
            for op in func.layout.ops(b) {
                self.op(op);
            }
            let pending = std::mem::take(&mut self.pending);
            self.blocks.extend(pending);
        }
        if let Some(l) = self.unreachable_label.clone() {
            self.blocks.push(BasicBlock {
                label: l,
                insts: vec![Inst::Unreachable],
            });
        }
        self.insert_phis(&blocks, entry);
        let mut entry_insts = std::mem::take(&mut self.allocas);
        entry_insts.extend(prologue);
        let first = &mut self.blocks[0].insts;
        first.splice(0..0, entry_insts);
        (std::mem::take(&mut self.blocks), param_names)
    }

    pub(super) fn insert_phis(&mut self, blocks: &[Block], entry: Block) {
        let func = self.func;
        let index: BTreeMap<String, usize> = self
            .blocks
            .iter()
            .enumerate()
            .map(|(i, bb)| (bb.label.clone(), i))
            .collect();
        for &b in blocks {
            if b == entry {
                continue;
            }
            let params = func.dfg.block_params(b);
            if params.is_empty() {
                continue;
            }
            let label = self.block_label(b);
            let incoming = self.incoming.remove(&b).unwrap_or_default();
            let mut phis = Vec::new();
            for (i, &p) in params.iter().enumerate() {
                let Ok(ty) = self.module_emitter.value_ty(self.vty(p)) else {
                    self.module_emitter.error(
                        func.loc,
                        format!(
                            "block {} parameter {}: {}",
                            label,
                            i,
                            self.module_emitter
                                .value_ty(self.vty(p))
                                .err()
                                .unwrap_or_default()
                        ),
                    );
                    continue;
                };
                phis.push(Inst::Phi {
                    result: self.value_name(p),
                    ty,
                    incoming: incoming
                        .iter()
                        .map(|(args, from)| {
                            (args.get(i).cloned().unwrap_or(Operand::Undef), from.clone())
                        })
                        .collect(),
                });
            }
            if let Some(&i) = index.get(&label) {
                self.blocks[i].insts.splice(0..0, phis);
            }
        }
    }

    /// Records values that need no instruction of their own.
    pub(super) fn classify(&mut self, op: Op) {
        let dfg = &self.func.dfg;
        let results = dfg.results(op);
        let operands = dfg.operands(op);
        if !arity_ok(dfg.kind(op), operands.len(), results.len()) {
            return;
        }
        match *dfg.kind(op) {
            OpKind::Const { value } => {
                let r = results[0];
                let loc = dfg.loc(op);
                match self
                    .module_emitter
                    .constant(value, dfg.value_type(r), false, loc)
                {
                    Ok(c) => {
                        self.constants.insert(r, c);
                    }
                    Err(msg) => self.error(op, msg),
                }
            }
            OpKind::GetGlobal { symbol } => {
                let r = results[0];
                let pointee = self.ctx().types.pointee(dfg.value_type(r));
                let loc = dfg.loc(op);
                let function = self.module_emitter.module.function_by_name(symbol);
                let redirected = function.and_then(|f| {
                    let sig = self.module_emitter.module.functions[f].sig;
                    self.module_emitter.msvc_redirect(symbol, sig, loc)
                });
                let o = if let Some(o) = redirected {
                    o
                } else if function.is_some() {
                    Operand::Global(self.module_emitter.name(symbol).to_string())
                } else {
                    self.module_emitter.global_ref(symbol, pointee, loc)
                };
                self.constants.insert(r, o);
            }
            OpKind::Cast(kind) => {
                let (Some(&src), Some(&r)) = (operands.first(), results.first()) else {
                    return;
                };
                if self.cast_is_noop(kind, dfg.value_type(src), dfg.value_type(r)) {
                    self.alias.insert(r, src);
                } else if kind == CastKind::NullToPtr {
                    self.constants.insert(r, Operand::Null);
                }
            }
            OpKind::Unary(UnaryOp::Plus) => {
                if let (Some(&src), Some(&r)) = (operands.first(), results.first()) {
                    self.alias.insert(r, src);
                }
            }
            OpKind::GetMember { .. } => {
                if let (Some(&src), Some(&r)) = (operands.first(), results.first()) {
                    let record = self.ctx().types.pointee(dfg.value_type(src));
                    let is_union = record.is_some_and(|t| match self.ctx().types.get(t) {
                        TypeData::Record(a) => self
                            .ctx()
                            .record(*a)
                            .is_some_and(|d| d.kind == RecordKind::Union),
                        _ => false,
                    });
                    if is_union {
                        self.alias.insert(r, src);
                    }
                }
            }
            OpKind::BaseClassAddr { offset: 0, .. }
            | OpKind::DerivedClassAddr { offset: 0, .. } => {
                if let (Some(&src), Some(&r)) = (operands.first(), results.first()) {
                    self.alias.insert(r, src);
                }
            }
            _ => {}
        }
    }

    pub(super) fn cast_is_noop(&self, kind: CastKind, from: Type, to: Type) -> bool {
        let types = &self.ctx().types;
        match kind {
            CastKind::ArrayToPtrDecay => true,
            CastKind::Bitcast => {
                (types.is_ptr(from) && types.is_ptr(to))
                    || self.module_emitter.value_ty(from).ok()
                        == self.module_emitter.value_ty(to).ok()
            }
            CastKind::Integral => match (types.int_info(from), types.int_info(to)) {
                (Some((a, _)), Some((b, _))) => a == b,
                _ => false,
            },
            CastKind::Floating => types.get(from) == types.get(to),
            _ => false,
        }
    }

    // ---- edges ---------------------------------------------------------------------------------------

    /// Labels to branch to for each successor edge of `op`, recording phi inputs. An edge to
    /// a block with parameters that the same terminator targets more than once goes through
    /// a trampoline block of its own, so each phi input has a distinct predecessor.
    pub(super) fn edge_labels(&mut self, op: Op) -> Vec<String> {
        let dfg = &self.func.dfg;
        let succs: Vec<Successor> = dfg.successors(op).to_vec();
        let targets: Vec<Block> = succs.iter().map(|&s| dfg.successor_block(s)).collect();
        let mut labels = Vec::with_capacity(succs.len());
        for (i, &s) in succs.iter().enumerate() {
            let target = targets[i];
            let args: Vec<Operand> = dfg
                .successor_args(s)
                .iter()
                .map(|&a| self.operand(a))
                .collect();
            let has_params = !dfg.block_params(target).is_empty();
            let duplicate = targets.iter().filter(|&&t| t == target).count() > 1;
            if has_params && duplicate {
                let label = format!("{}.edge{}", self.current_label, i);
                self.pending.push(BasicBlock {
                    label: label.clone(),
                    insts: vec![Inst::Br(self.block_label(target))],
                });
                self.incoming
                    .entry(target)
                    .or_default()
                    .push((args, label.clone()));
                labels.push(label);
            } else {
                if has_params {
                    let from = self.current_label.clone();
                    self.incoming.entry(target).or_default().push((args, from));
                }
                labels.push(self.block_label(target));
            }
        }
        labels
    }

    pub(super) fn unreachable_block(&mut self) -> String {
        self.unreachable_label
            .get_or_insert_with(|| "unreachable".to_string())
            .clone()
    }
}
