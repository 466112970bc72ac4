//! A function: signature, linkage, personality, its explicit phase, and its body
//! (a data flow graph plus layout), with pre-order walks over nested regions.

use crate::dfg::{DataFlowGraph, DfgSize};
use crate::entities::{Block, Loc, Op, Region, Symbol, Type};
use crate::layout::Layout;
use crate::ops::{OpKind, PhaseSet};

/// The phase a function's IR is in. The verifier rejects ops of another phase.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Phase {
    /// Nested regions: scopes, loops, `cir.cleanup.scope`, `cir.try`.
    Structured,
    /// One region of blocks; ABI-agnostic EH ops (`cir.try_call`, `cir.eh.*`, begin/end).
    Flat,
    /// Lowered to the Itanium model (`cir.eh.landingpad`, typeid compares, `__cxa_*`).
    Itanium,
    /// Lowered to the Microsoft funclet model (catchswitch/catchpad/cleanuppad).
    Msvc,
}

impl Phase {
    /// Every phase, in pipeline order.
    pub const ALL: [Phase; 4] = [Phase::Structured, Phase::Flat, Phase::Itanium, Phase::Msvc];

    /// The phase's name in the text form and on the command line (`structured`).
    pub fn name(self) -> &'static str {
        match self {
            Phase::Structured => "structured",
            Phase::Flat => "flat",
            Phase::Itanium => "itanium",
            Phase::Msvc => "msvc",
        }
    }

    /// The phase called `s` ([`Phase::name`]).
    pub fn from_name(s: &str) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| p.name() == s)
    }
}

/// Symbol linkage, printed after `cir.func` / `cir.global`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Linkage {
    /// Visible to other modules (the default; not printed).
    #[default]
    External,
    /// Local to the module, not even in the object's symbol table.
    Private,
    /// Local to the module.
    Internal,
    /// Defined in several modules with the same body; the linker keeps one.
    LinkOnceOdr,
    /// A definition another module's may replace.
    Weak,
}

impl Linkage {
    /// Every linkage.
    pub const ALL: [Linkage; 5] = [
        Linkage::External,
        Linkage::Private,
        Linkage::Internal,
        Linkage::LinkOnceOdr,
        Linkage::Weak,
    ];
    /// The linkage as printed (`linkonce_odr`).
    pub fn name(self) -> &'static str {
        match self {
            Linkage::External => "external",
            Linkage::Private => "private",
            Linkage::Internal => "internal",
            Linkage::LinkOnceOdr => "linkonce_odr",
            Linkage::Weak => "weak",
        }
    }
}

/// An event of [`Function::visit_in_order`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Visit {
    /// The walk enters a block (before its ops).
    Block(Block),
    /// The walk reaches an op (before the blocks of its regions).
    Op(Op),
}

/// What the ops of a body say about its phase, gathered op by op so that code that sees
/// every op anyway (the printer's numbering, a parser) can infer the phase on the way:
/// noting every op of a body and then asking [`PhaseEvidence::phase`] gives
/// [`Function::inferred_phase`].
#[derive(Copy, Clone, Debug)]
pub struct PhaseEvidence {
    /// The most lowered phase a phase-specific op belongs to.
    most_lowered: Phase,
    /// Whether some op exists only in structured functions.
    structured_only: bool,
    /// Whether some op is `cir.begin_catch`/`cir.end_catch`, which is flat unless a
    /// structured-only op (the `cir.try` whose handler holds it) says otherwise.
    catch_ops: bool,
    /// Whether some op exists only in flat functions (`cir.eh.initiate`, ...): such a
    /// body is flat even when it names a personality, as upstream's flat code may.
    flat_only: bool,
}

impl Default for PhaseEvidence {
    fn default() -> Self {
        PhaseEvidence {
            most_lowered: Phase::Structured,
            structured_only: false,
            catch_ops: false,
            flat_only: false,
        }
    }
}

impl PhaseEvidence {
    /// Takes one op of the body into account.
    #[inline]
    pub fn note(&mut self, kind: &OpKind) {
        let p = match kind.phases() {
            PhaseSet::Msvc => Phase::Msvc,
            PhaseSet::Itanium => Phase::Itanium,
            PhaseSet::Flat => {
                self.flat_only = true;
                Phase::Flat
            }
            PhaseSet::Flattened => Phase::Flat,
            PhaseSet::Structured => {
                self.structured_only = true;
                return;
            }
            PhaseSet::StructuredOrFlat => {
                self.catch_ops = true;
                return;
            }
            PhaseSet::All => return,
        };
        if p > self.most_lowered {
            self.most_lowered = p;
        }
    }

    /// The phase of [`Function::inferred_phase`] once every op of `func` was noted.
    pub fn phase(&self, func: &Function, personality_name: Option<&str>) -> Phase {
        let mut phase = self.most_lowered;
        if phase == Phase::Structured {
            // A body without structured-only ops whose region has several blocks is a
            // flat CFG (e.g. a flattened function without EH).
            let several_blocks = func
                .body
                .is_some_and(|b| func.layout.blocks(b).nth(1).is_some());
            if !self.structured_only && (several_blocks || self.catch_ops) {
                phase = Phase::Flat;
            }
        }
        if phase <= Phase::Flat
            && !self.flat_only
            && let Some(abi) = personality_name.and_then(crate::abi::EhAbi::of_personality)
        {
            return abi.phase();
        }
        phase
    }
}

/// The priority of a `global_ctor` without one: it runs after those with one.
pub const DEFAULT_GLOBAL_CTOR_PRIORITY: u32 = 65535;

/// A function definition or declaration.
#[derive(Clone, Debug)]
pub struct Function {
    /// The function's symbol (without `@`).
    pub name: Symbol,
    /// A `!cir.func<...>` type.
    pub sig: Type,
    /// Its linkage.
    pub linkage: Linkage,
    /// The personality routine (set by EH ABI lowering).
    pub personality: Option<Symbol>,
    /// Which of the four phases the body is in; the verifier checks the ops against it.
    pub phase: Phase,
    /// Declared not to throw (`nothrow`): calls to it are nothrow.
    pub nothrow: bool,
    /// Upstream's `dso_local` marker (kept and printed back; no meaning for ehir).
    pub dso_local: bool,
    /// Upstream's `hidden` visibility (kept and printed back).
    pub hidden: bool,
    /// Upstream's inlining request (`no_inline`, `always_inline`, `inline_hint`), if any;
    /// the LLVM emitter gives the function the matching attribute.
    pub inline: Option<InlineKind>,
    /// `global_ctor(N)`: the program runs the function before `main`, in the order of
    /// the priorities `N` (`global_ctor` alone: 65535, the last).
    pub global_ctor: Option<u32>,
    /// Upstream's `attributes {...}` other than `nothrow` (which sets [`Function::nothrow`]),
    /// kept as written and printed back (`cir.eh.catch_copy_thunk`, ...). A unit attribute
    /// has the value `unit`.
    pub attributes: Vec<crate::module::ModuleAttribute>,
    /// The function's ops, values, blocks and regions.
    pub dfg: DataFlowGraph,
    /// The order of its blocks and ops.
    pub layout: Layout,
    /// The body region; `None` for an external declaration.
    pub body: Option<Region>,
    /// Where the function is in the source.
    pub loc: Loc,
}

/// Upstream's inlining request on a `cir.func`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum InlineKind {
    /// `no_inline`: never inline (LLVM's `noinline`).
    NoInline,
    /// `always_inline`: always inline (LLVM's `alwaysinline`).
    AlwaysInline,
    /// `inline_hint`: the source said `inline` (LLVM's `inlinehint`).
    InlineHint,
}

impl InlineKind {
    /// Every kind, in declaration order.
    pub const ALL: [InlineKind; 3] = [
        InlineKind::NoInline,
        InlineKind::AlwaysInline,
        InlineKind::InlineHint,
    ];

    /// The keyword upstream writes after `cir.func`.
    pub fn name(self) -> &'static str {
        match self {
            InlineKind::NoInline => "no_inline",
            InlineKind::AlwaysInline => "always_inline",
            InlineKind::InlineHint => "inline_hint",
        }
    }

    /// The LLVM function attribute.
    pub fn llvm_attribute(self) -> &'static str {
        match self {
            InlineKind::NoInline => "noinline",
            InlineKind::AlwaysInline => "alwaysinline",
            InlineKind::InlineHint => "inlinehint",
        }
    }
}

impl Function {
    /// A declaration (no body) in the structured phase.
    pub fn new_declaration(name: Symbol, sig: Type) -> Self {
        Function {
            name,
            sig,
            linkage: Linkage::External,
            personality: None,
            phase: Phase::Structured,
            nothrow: false,
            dso_local: false,
            hidden: false,
            inline: None,
            global_ctor: None,
            attributes: Vec::new(),
            dfg: DataFlowGraph::new(),
            layout: Layout::new(),
            body: None,
            loc: Loc::NONE,
        }
    }

    /// A definition with an empty body region whose entry block has one parameter per
    /// signature parameter (`param_types`).
    pub fn new_definition(name: Symbol, sig: Type, param_types: &[Type]) -> Self {
        let mut f = Self::new_declaration(name, sig);
        let body = f.dfg.make_region(None);
        let entry = f.dfg.make_block();
        for &t in param_types {
            f.dfg.append_block_param(entry, t);
        }
        f.layout.append_block(body, entry);
        f.body = Some(body);
        f
    }

    /// Reserves room for a body of `size` (see [`DataFlowGraph::reserve`]), e.g. the
    /// size of the previous function a parser built.
    pub fn reserve(&mut self, size: DfgSize) {
        self.dfg.reserve(size);
        self.layout.reserve(size.ops, size.blocks, size.regions);
    }

    /// Releases the spare room of the body's tables once it is built
    /// (see [`DataFlowGraph::shrink_to_fit`]).
    pub fn shrink_to_fit(&mut self) {
        self.dfg.shrink_to_fit();
        self.layout.shrink_to_fit();
    }

    /// Whether the function has no body.
    pub fn is_declaration(&self) -> bool {
        self.body.is_none()
    }

    /// The entry block of the body.
    pub fn entry_block(&self) -> Option<Block> {
        self.layout.entry_block(self.body?)
    }

    /// The types of the entry block's parameters, in order (none for a declaration).
    pub fn param_types(&self) -> Vec<Type> {
        self.entry_block()
            .map(|b| {
                let params = self.dfg.block_params(b);
                params.iter().map(|&p| self.dfg.value_type(p)).collect()
            })
            .unwrap_or_default()
    }

    /// The region that contains a block.
    pub fn block_region(&self, block: Block) -> Option<Region> {
        self.layout.block_region(block)
    }

    /// The op owning the region that contains `op` (`None` at the function body level).
    pub fn parent_op(&self, op: Op) -> Option<Op> {
        let block = self.layout.op_block(op)?;
        let region = self.layout.block_region(block)?;
        self.dfg.region_parent(region)
    }

    /// The ops of the body whose kind `keep` accepts, in [`Function::walk_ops`] order.
    pub fn ops_where(&self, keep: impl Fn(&OpKind) -> bool) -> Vec<Op> {
        let mut out = Vec::new();
        self.visit_in_order(&mut |v| {
            if let Visit::Op(op) = v
                && keep(self.dfg.kind(op))
            {
                out.push(op)
            }
        });
        out
    }

    /// All ops of the body in pre-order (an op before the ops of its regions),
    /// blocks in layout order.
    pub fn walk_ops(&self) -> Vec<Op> {
        let mut out = Vec::with_capacity(self.dfg.ops.len());
        self.visit_in_order(&mut |v| {
            if let Visit::Op(op) = v {
                out.push(op)
            }
        });
        out
    }

    /// Visits every block and op of the body in printing order: a region's blocks in
    /// layout order, each block before its ops, each op before the blocks of its regions.
    /// Iterative, so arbitrarily deep nesting does not grow the host stack.
    pub fn visit_in_order(&self, f: &mut dyn FnMut(Visit)) {
        if let Some(body) = self.body {
            self.visit_region_in_order(body, f);
        }
    }

    /// [`Function::visit_in_order`] restricted to one region.
    pub fn visit_region_in_order(&self, region: Region, f: &mut dyn FnMut(Visit)) {
        struct Frame<'r> {
            next_block: Option<Block>,
            next_op: Option<Op>,
            /// Sibling regions of the same op, walked after this one.
            after: &'r [Region],
        }
        let start = |r: Region, after| Frame {
            next_block: self.layout.entry_block(r),
            next_op: None,
            after,
        };
        let mut stack = vec![start(region, &[][..])];
        while let Some(top) = stack.last_mut() {
            if let Some(op) = top.next_op {
                top.next_op = self.layout.next_op(op);
                f(Visit::Op(op));
                if let Some((&first, rest)) = self.dfg.regions(op).split_first() {
                    stack.push(start(first, rest));
                }
                continue;
            }
            if let Some(b) = top.next_block {
                top.next_block = self.layout.next_block(b);
                top.next_op = self.layout.first_op(b);
                f(Visit::Block(b));
                continue;
            }
            let done = stack.pop().expect("non-empty");
            if let Some((&first, rest)) = done.after.split_first() {
                stack.push(start(first, rest));
            }
        }
    }

    /// All blocks of the body and nested regions, in pre-order of their regions.
    pub fn walk_blocks(&self) -> Vec<Block> {
        let mut out = Vec::new();
        let Some(body) = self.body else { return out };
        out.extend(self.layout.blocks(body));
        for op in self.walk_ops() {
            for &r in self.dfg.regions(op) {
                out.extend(self.layout.blocks(r));
            }
        }
        out
    }

    /// The phase that the ops of the body imply: the most lowered phase any
    /// phase-specific op belongs to (MSVC/Itanium beat flat, flat beats structured); a body
    /// of several blocks without structured-only ops is flat; then the personality routine. Used by the parser when the text has no `phase(...)`.
    pub fn inferred_phase(&self, personality_name: Option<&str>) -> Phase {
        let mut evidence = PhaseEvidence::default();
        self.visit_in_order(&mut |v| {
            if let Visit::Op(op) = v {
                evidence.note(self.dfg.kind(op));
            }
        });
        evidence.phase(self, personality_name)
    }

    /// Whether any op in the body holds regions (a structured-only construct).
    pub fn has_nested_regions(&self) -> bool {
        // An op that holds regions at any depth sits inside one of the body's own ops that
        // does, so looking at the body's ops is enough.
        let Some(body) = self.body else {
            return false;
        };
        self.layout.blocks(body).any(|b| {
            self.layout
                .ops(b)
                .any(|op| !self.dfg.regions(op).is_empty())
        })
    }

    /// Whether an op is a terminator of its kind.
    pub fn is_terminator(&self, op: Op) -> bool {
        matches!(self.dfg.kind(op), k if k.is_terminator())
    }

    /// Convenience: the kind of an op.
    pub fn kind(&self, op: Op) -> &OpKind {
        self.dfg.kind(op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::ModuleCtx;
    use crate::ops::CallFlags;

    /// A body with one op of each of `kinds` in the entry block (then `cir.return`), and
    /// `extra_blocks` more blocks in the body region.
    fn body(kinds: &[OpKind], extra_blocks: usize) -> Function {
        let mut ctx = ModuleCtx::default();
        let sig = ctx.types.func(Vec::new(), None, false);
        let mut func = Function::new_definition(ctx.sym("f"), sig, &[]);
        let entry = func.entry_block().unwrap();
        for &kind in kinds.iter().chain([OpKind::Return].iter()) {
            let op = func.dfg.make_op(kind, &[], &[], &[], 0, Loc::NONE);
            func.layout.append_op(op, entry);
        }
        for _ in 0..extra_blocks {
            let b = func.dfg.make_block();
            func.layout.append_block(func.body.unwrap(), b);
        }
        func
    }

    fn noted(func: &Function, personality: Option<&str>) -> Phase {
        let mut evidence = PhaseEvidence::default();
        for op in func.walk_ops() {
            evidence.note(func.dfg.kind(op));
        }
        evidence.phase(func, personality)
    }

    #[test]
    fn phase_evidence_agrees_with_inferred_phase() {
        let call = OpKind::Call {
            callee: None.into(),
            sig: Type::from_u32(0),
            flags: CallFlags::default(),
        };
        let cases: Vec<(Vec<OpKind>, usize, Option<&str>, Phase)> = vec![
            (vec![call], 0, None, Phase::Structured),
            (vec![call], 1, None, Phase::Flat),
            (vec![OpKind::Yield], 1, None, Phase::Structured),
            (vec![OpKind::BeginCleanup], 0, None, Phase::Flat),
            (vec![OpKind::ResumeFlat], 0, None, Phase::Itanium),
            (
                vec![OpKind::CatchRet, OpKind::BeginCatch],
                0,
                None,
                Phase::Msvc,
            ),
            (vec![call], 0, Some("__gxx_personality_v0"), Phase::Itanium),
            (vec![call], 1, Some("__CxxFrameHandler3"), Phase::Msvc),
            (
                vec![OpKind::ResumeFlat],
                0,
                Some("__CxxFrameHandler4"),
                Phase::Itanium,
            ),
        ];
        for (kinds, extra, personality, want) in cases {
            let func = body(&kinds, extra);
            assert_eq!(func.inferred_phase(personality), want, "{kinds:?}");
            assert_eq!(noted(&func, personality), want, "{kinds:?}");
        }
    }

    #[test]
    fn nested_regions_are_found_from_the_body() {
        let mut func = body(&[], 0);
        assert!(!func.has_nested_regions());
        let entry = func.entry_block().unwrap();
        let scope = func.dfg.make_op(OpKind::Scope, &[], &[], &[], 1, Loc::NONE);
        func.layout.prepend_op(scope, entry);
        assert!(func.has_nested_regions());
    }

    #[test]
    fn reserve_and_shrink_keep_the_body() {
        let mut func = body(&[OpKind::Unreachable], 2);
        let ops = func.walk_ops();
        let blocks = func.walk_blocks();
        func.reserve(crate::dfg::DfgSize {
            ops: 64,
            values: 64,
            blocks: 64,
            regions: 64,
            successors: 64,
            value_list_slots: 256,
            successor_list_slots: 64,
            region_list_slots: 64,
        });
        assert_eq!(func.walk_ops(), ops);
        func.shrink_to_fit();
        assert_eq!(func.walk_ops(), ops);
        assert_eq!(func.walk_blocks(), blocks);
        assert_eq!(func.dfg.ops.len(), ops.len());
    }
}
