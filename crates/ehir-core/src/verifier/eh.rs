//! Exception-handling rules of the structured, flat and Itanium phases: `cir.catch_param`
//! placement, `cir.indirect_br` outside cleanup scopes, handler/key grammar of `cir.try`
//! and `cir.eh.dispatch`, unwind destinations (`cir.eh.initiate`, `cir.eh.landingpad`),
//! catch blocks (`cir.begin_catch`), the begin/end pairing of catch and cleanup tokens,
//! and typeid compares against landing-pad clauses. See the module documentation of
//! [`super`] for the rules in prose.

use super::dominance::EdgeKind;
use super::structure::RegionRole;
use super::{FuncVerifier, OpView};
use crate::attrs::AttrData;
use crate::diagnostics::Diagnostic;
use crate::entities::{Attr, Block, Op, Symbol, Value};
use crate::function::Phase;
use crate::ops::{ExtraData, HandlerKey, LandingPadClause, OpKind};
use cranelift_entity::SecondaryMap;

const OPEN: u8 = 1;
const ENDED: u8 = 2;

/// Flags of the handlers (scopes) that may be open or ended at a program point, sorted by
/// scope number; scopes with no flag are absent.
#[derive(Clone, Default)]
struct ScopeState(Vec<(u32, u8)>);

impl ScopeState {
    fn get(&self, scope: u32) -> u8 {
        match self.0.binary_search_by_key(&scope, |&(s, _)| s) {
            Ok(i) => self.0[i].1,
            Err(_) => 0,
        }
    }

    fn set(&mut self, scope: u32, flags: u8) {
        match self.0.binary_search_by_key(&scope, |&(s, _)| s) {
            Ok(i) if flags == 0 => {
                self.0.remove(i);
            }
            Ok(i) => self.0[i].1 = flags,
            Err(_) if flags == 0 => {}
            Err(i) => self.0.insert(i, (scope, flags)),
        }
    }

    /// Makes `out` this state without "may have ended" flags of scopes outside
    /// `relevant` (sorted), and without "may be open" flags unless `keep_open`, reusing
    /// its allocation.
    fn pruned_into(&self, relevant: &[u32], keep_open: bool, out: &mut ScopeState) {
        out.0.clear();
        out.0.extend(self.0.iter().filter_map(|&(s, f)| {
            let mut f = if relevant.binary_search(&s).is_ok() {
                f
            } else {
                f & !ENDED
            };
            if !keep_open {
                f &= !OPEN;
            }
            (f != 0).then_some((s, f))
        }));
    }

    /// Makes this state a copy of `other`, reusing its allocation.
    fn copy_from(&mut self, other: &ScopeState) {
        self.0.clear();
        self.0.extend_from_slice(&other.0);
    }

    /// Ors `other` into `self`; whether anything changed.
    fn merge(&mut self, other: &ScopeState) -> bool {
        let mut changed = false;
        for &(s, f) in &other.0 {
            let old = self.get(s);
            if old | f != old {
                self.set(s, old | f);
                changed = true;
            }
        }
        changed
    }
}

/// The ops of a function body that the whole-function EH checks look at, each list in
/// op order: collected during the per-op walk ([`FuncVerifier::note_eh_op`]) so that
/// those checks need not walk every op again.
#[derive(Default)]
pub(crate) struct EhOps {
    /// `cir.eh.dispatch`.
    dispatches: Vec<Op>,
    /// `cir.eh.dispatch` and `cir.begin_catch`.
    dispatches_and_begin_catches: Vec<Op>,
    /// `cir.eh.initiate`.
    initiates: Vec<Op>,
    /// `cir.eh.landingpad`.
    landing_pads: Vec<Op>,
    /// `cir.begin_catch` and `cir.begin_cleanup`.
    begins: Vec<Op>,
    /// `cir.end_catch` and `cir.end_cleanup`.
    ends: Vec<Op>,
    /// Ops that leave open handlers ([`FuncVerifier::handlers_left`]).
    leaving: Vec<Op>,
    /// `cir.eh.typeid`.
    typeids: Vec<Op>,
    /// `cir.cmp`.
    compares: Vec<Op>,
}

impl EhOps {
    /// Empties every list (keeping its allocation).
    fn clear(&mut self) {
        for list in [
            &mut self.dispatches,
            &mut self.dispatches_and_begin_catches,
            &mut self.initiates,
            &mut self.landing_pads,
            &mut self.begins,
            &mut self.ends,
            &mut self.leaving,
            &mut self.typeids,
            &mut self.compares,
        ] {
            list.clear();
        }
    }
}

/// The tables of the EH checks, kept from one function to the next (see
/// [`super::Scratch`]).
#[derive(Default)]
pub(crate) struct EhScratch {
    pub(crate) ops: EhOps,
    /// The begin/end pairing analysis.
    pairing: PairingScratch,
}

impl EhScratch {
    /// Forgets the ops of the function verified before.
    pub(crate) fn clear(&mut self) {
        self.ops.clear();
    }
}

/// The tables of [`FuncVerifier::check_token_pairing`], reused from one function to the
/// next (each is reset before use).
#[derive(Default)]
struct PairingScratch {
    /// The scope number of each begin that yields a token, plus one (0 for other ops).
    scope_of: SecondaryMap<Op, u32>,
    seeds: Vec<(Value, u32)>,
    origins: SecondaryMap<Value, Vec<u32>>,
    propagation: PropagateScratch,
    ends_of: Vec<Vec<Block>>,
    relevant_pairs: Vec<(Block, u32)>,
    relevant_scopes: Vec<u32>,
    relevant_range: SecondaryMap<Block, (u32, u32)>,
    marked: SecondaryMap<Block, u32>,
    keep_open: SecondaryMap<Block, bool>,
    state_in: SecondaryMap<Block, ScopeState>,
    visited: SecondaryMap<Block, bool>,
    stack: Vec<Block>,
}

/// The worklist of [`FuncVerifier::propagate`].
#[derive(Default)]
struct PropagateScratch {
    queued: SecondaryMap<Block, bool>,
    worklist: Vec<Block>,
}

/// Makes `map` `len` default entries, reusing its allocation.
fn reset<K: cranelift_entity::EntityRef, V: Clone + Default>(
    map: &mut SecondaryMap<K, V>,
    len: usize,
) {
    map.clear();
    map.resize(len);
}

/// Which open handlers an op leaves.
#[derive(Copy, Clone)]
enum Leaves {
    All,
    Cleanups,
}

impl FuncVerifier<'_> {
    /// Records an op that the whole-function EH checks ([`FuncVerifier::check_eh`]) look
    /// at; called for every op, in order, before they run.
    pub(crate) fn note_eh_op(&self, view: &OpView, ops: &mut EhOps) {
        match view.kind {
            OpKind::EhDispatch { .. } => {
                ops.dispatches.push(view.op);
                ops.dispatches_and_begin_catches.push(view.op);
                ops.leaving.push(view.op);
            }
            OpKind::BeginCatch => {
                ops.dispatches_and_begin_catches.push(view.op);
                ops.begins.push(view.op);
            }
            OpKind::BeginCleanup => ops.begins.push(view.op),
            OpKind::EndCatch | OpKind::EndCleanup => ops.ends.push(view.op),
            OpKind::EhInitiate { .. } => ops.initiates.push(view.op),
            OpKind::EhLandingPad { .. } => ops.landing_pads.push(view.op),
            OpKind::EhTypeId { .. } => ops.typeids.push(view.op),
            OpKind::Cmp(_) => ops.compares.push(view.op),
            OpKind::Return | OpKind::Resume | OpKind::ResumeFlat => ops.leaving.push(view.op),
            OpKind::Throw { .. } if view.successors.is_empty() => ops.leaving.push(view.op),
            _ => {}
        }
    }

    pub(crate) fn check_eh(&self) {
        let eh = self.eh.borrow();
        let ops = &eh.ops;
        match self.func.phase {
            // Checked op by op with the other per-op rules.
            Phase::Structured => {}
            Phase::Flat if self.executable() => {
                self.check_unwind_destinations("cir.eh.initiate", &ops.initiates, |k| {
                    matches!(k, OpKind::EhInitiate { .. })
                });
                self.check_dispatch_and_catch_blocks(&ops.dispatches_and_begin_catches);
                drop(eh);
                self.check_token_pairing();
            }
            Phase::Flat => {}
            Phase::Itanium => {
                if !self.executable() {
                    return self.check_dispatch_keys();
                }
                self.check_unwind_destinations(
                    "cir.eh.inflight_exception",
                    &ops.landing_pads,
                    |k| matches!(k, OpKind::EhLandingPad { .. }),
                );
                self.check_typeid_compares(ops);
                if !ops.landing_pads.is_empty() {
                    self.check_personality("landing pads");
                }
            }
            Phase::Msvc => {}
        }
        self.check_dispatch_keys();
    }

    /// Key grammar of dispatches in any phase where they may appear (reported as
    /// misplaced elsewhere by the phase check).
    fn check_dispatch_keys(&self) {
        if self.func.phase != Phase::Structured {
            for &op in &self.eh.borrow().ops.dispatches {
                if let OpKind::EhDispatch { keys } = *self.dfg.kind(op) {
                    self.check_key_list(op, self.handler_keys(keys), true);
                }
            }
        }
    }

    // ---- structured -------------------------------------------------------------------

    pub(crate) fn check_op_structured_eh(&self, view: &OpView) {
        let op = view.op;
        let void_ptr = self.ctx.types.common().void_ptr;
        match view.kind {
            OpKind::Try { handlers } => {
                let keys = self.handler_keys(handlers);
                self.check_key_list(op, keys, false);
                let regions = view.regions;
                for (i, key) in keys.iter().enumerate() {
                    let Some(&region) = regions.get(i + 1) else {
                        break;
                    };
                    let Some(entry) = self.index.entry_block(region) else {
                        continue;
                    };
                    match key {
                        HandlerKey::Catch(_) | HandlerKey::CatchAll => {
                            let first = self.index.first_op(entry);
                            match first {
                                // Upstream's form: the handler takes the token and a
                                // `cir.begin_catch` of it begins the catch.
                                _ if self
                                    .dfg
                                    .block_params(entry)
                                    .iter()
                                    .any(|&p| self.ctx.types.common().eh_token == self.dfg.value_type(p)) =>
                                {
                                    // `cir.construct_catch_param` may come first; then
                                    // the catch begins.
                                    let constructs = |p: Op| {
                                        matches!(self.dfg.kind(p), OpKind::ConstructCatchParam { .. })
                                    };
                                    if let Some(p) = first.filter(|&p| constructs(p)) {
                                        let next = self.index.block_ops(entry).get(1).copied();
                                        if !next.is_some_and(|n| matches!(self.dfg.kind(n), OpKind::BeginCatch)) {
                                            self.error_with_note(
                                                self.dfg.loc(op),
                                                "'cir.try' op catch handler region must start with 'cir.begin_catch' (after 'cir.construct_catch_param')",
                                                self.dfg.loc(p),
                                                "the catch parameter is constructed here",
                                            );
                                        }
                                    }
                                }
                                Some(p) if matches!(self.dfg.kind(p), OpKind::CatchParam) => {
                                    if *key == HandlerKey::CatchAll
                                        && let Some(&r) = self.dfg.results(p).first()
                                        && let Some(t) = self.valid_type(r)
                                        && t != void_ptr
                                    {
                                        self.op_error(
                                            p,
                                            format!(
                                                "'cir.catch_param' of a catch-all handler yields !cir.ptr<!void>, not {}",
                                                self.type_str(t)
                                            ),
                                        );
                                    }
                                }
                                _ if !self.executable() => {}
                                _ => self.op_error(
                                    op,
                                    format!(
                                        "handler #{i} of 'cir.try' catches, so its region must begin with 'cir.catch_param' or 'cir.begin_catch'"
                                    ),
                                ),
                            }
                        }
                        HandlerKey::Filter(_) | HandlerKey::Terminate => {
                            let blocks = self.index.region_blocks(region);
                            let only_unreachable = blocks.len() == 1
                                && matches!(
                                    self.index.block_ops(blocks[0]),
                                    [u] if matches!(self.dfg.kind(*u), OpKind::Unreachable)
                                );
                            if !only_unreachable {
                                self.op_error(
                                    op,
                                    format!(
                                        "the {} handler of 'cir.try' must hold only 'cir.unreachable'",
                                        if matches!(key, HandlerKey::Filter(_)) {
                                            "filter"
                                        } else {
                                            "terminate"
                                        }
                                    ),
                                );
                            }
                        }
                        HandlerKey::Unwind => {}
                    }
                }
            }
            OpKind::CatchParam => {
                let region = view.region;
                let in_catch = matches!(
                    self.region_role(region),
                    RegionRole::TryHandler(HandlerKey::Catch(_) | HandlerKey::CatchAll)
                );
                let first = self.index.entry_block(region) == Some(view.block) && view.pos == 0;
                if !(in_catch && first) {
                    self.op_error(
                        op,
                        "'cir.catch_param' must be the first op of a catch handler region of 'cir.try'",
                    );
                }
            }
            OpKind::BeginCatch => {
                // The nearest enclosing handler region of a `cir.try`.
                let handler = self
                    .enclosing_regions(op)
                    .find(|&r| matches!(self.region_role(r), RegionRole::TryHandler(_)));
                let in_catch = handler.is_some_and(|r| {
                    matches!(
                        self.region_role(r),
                        RegionRole::TryHandler(HandlerKey::Catch(_) | HandlerKey::CatchAll)
                    )
                });
                let entry = handler.and_then(|r| self.index.entry_block(r));
                let token_is_handlers = match (entry, view.operands.first()) {
                    (Some(entry), Some(token)) => self.dfg.block_params(entry).contains(token),
                    _ => false,
                };
                if !in_catch {
                    self.op_error(
                        op,
                        "'cir.begin_catch' in a structured function must be inside a catch handler region of 'cir.try'",
                    );
                } else if !token_is_handlers {
                    self.op_error(
                        op,
                        "'cir.begin_catch' in a catch handler must take the handler's '!cir.eh_token' parameter",
                    );
                }
            }
            OpKind::EndCatch => {
                let in_catch = self.enclosing_regions(op).any(|r| {
                    matches!(
                        self.region_role(r),
                        RegionRole::TryHandler(HandlerKey::Catch(_) | HandlerKey::CatchAll)
                    )
                });
                if !in_catch {
                    self.op_error(
                        op,
                        "'cir.end_catch' in a structured function must be inside a catch handler region of 'cir.try'",
                    );
                }
            }
            OpKind::IndirectBr => {
                let in_cleanup_body = self
                    .enclosing_regions(op)
                    .any(|r| matches!(self.region_role(r), RegionRole::CleanupBody(_)));
                if in_cleanup_body {
                    self.op_error(
                        op,
                        "'cir.indirect_br' is not allowed inside a 'cir.cleanup.scope'",
                    );
                }
            }
            _ => {}
        }
    }

    /// The grammar shared by `cir.try` handlers and `cir.eh.dispatch` keys.
    fn check_key_list(&self, op: Op, keys: &[HandlerKey], dispatch: bool) {
        let what = if dispatch {
            "'cir.eh.dispatch'"
        } else {
            "'cir.try'"
        };
        let key_name = |k: &HandlerKey| match (k, dispatch) {
            (HandlerKey::Catch(_), _) => "catch",
            (HandlerKey::CatchAll, true) => "catch_all",
            (HandlerKey::CatchAll, false) => "catch all",
            (HandlerKey::Unwind, _) => "unwind",
            (HandlerKey::Filter(_), _) => "filter",
            (HandlerKey::Terminate, _) => "terminate",
        };
        let mut types: Vec<Symbol> = Vec::new();
        let mut filter = false;
        let mut terminal: Option<HandlerKey> = None;
        for key in keys {
            if let Some(t) = terminal {
                self.op_error(
                    op,
                    format!(
                        "'{}' follows '{}', which must be the last key of {what}",
                        key_name(key),
                        key_name(&t)
                    ),
                );
                return;
            }
            match key {
                HandlerKey::Catch(attr) => {
                    if filter {
                        self.op_error(op, format!("'catch' cannot follow 'filter' in {what}"));
                    }
                    match self.global_view_symbol(*attr) {
                        Some(sym) => {
                            self.check_not_a_function(op, sym, what);
                            if types.contains(&sym) {
                                self.op_error(
                                    op,
                                    format!("{what} catches @{} twice", self.sym_str(sym)),
                                );
                            }
                            types.push(sym);
                        }
                        None => self.op_error(
                            op,
                            format!(
                                "a 'catch' key of {what} must be a #cir.global_view of a typeinfo"
                            ),
                        ),
                    }
                }
                HandlerKey::Filter(attr) => {
                    if filter {
                        self.op_error(op, format!("{what} has two 'filter' keys"));
                    }
                    filter = true;
                    let ok = match self.attr_data(*attr) {
                        Some(AttrData::List(items)) => {
                            items.iter().all(|&a| self.global_view_symbol(a).is_some())
                        }
                        _ => false,
                    };
                    if !ok {
                        self.op_error(
                            op,
                            format!(
                                "a 'filter' key of {what} must list #cir.global_view typeinfos"
                            ),
                        );
                    } else if let Some(AttrData::List(items)) = self.attr_data(*attr) {
                        for &item in items {
                            if let Some(sym) = self.global_view_symbol(item) {
                                self.check_not_a_function(op, sym, what);
                            }
                        }
                    }
                }
                HandlerKey::CatchAll | HandlerKey::Unwind | HandlerKey::Terminate => {
                    if filter && *key != HandlerKey::Unwind {
                        self.op_error(
                            op,
                            format!(
                                "'filter' in {what} must be followed by 'unwind', not '{}'",
                                key_name(key)
                            ),
                        );
                    }
                    terminal = Some(*key);
                }
            }
        }
        if dispatch && terminal.is_none() {
            self.op_error(
                op,
                "'cir.eh.dispatch' must end with exactly one of 'catch_all', 'unwind' or 'terminate'",
            );
        }
    }

    fn attr_data(&self, attr: Attr) -> Option<&AttrData> {
        (cranelift_entity::EntityRef::index(attr) < self.ctx.attrs.len())
            .then(|| self.ctx.attrs.get(attr))
    }

    /// A catch or filter type names a typeinfo object, never a function (the Itanium
    /// lowering turns it into `cir.eh.typeid`, which rejects functions, and the MSVC one
    /// into a type descriptor).
    pub(crate) fn check_not_a_function(&self, op: Op, sym: Symbol, what: &str) {
        if let Some(module) = self.module
            && self.function_by_name(module, sym).is_some()
        {
            self.op_error(
                op,
                format!(
                    "{what} names @{}, which is a function, not a typeinfo",
                    self.sym_str(sym)
                ),
            );
        }
    }

    fn global_view_symbol(&self, attr: Attr) -> Option<Symbol> {
        match self.attr_data(attr)? {
            AttrData::GlobalView { symbol, .. } => Some(*symbol),
            _ => None,
        }
    }

    // ---- flat and itanium: unwind destinations -----------------------------------------

    /// Every unwind edge of `cir.try_call`/`cir.throw` targets a block starting with the
    /// landing op; the landing op is first in its block, which only unwind edges reach.
    fn check_unwind_destinations(
        &self,
        landing: &str,
        landing_ops: &[Op],
        is_landing: impl Fn(&OpKind) -> bool,
    ) {
        for &block in &self.index.blocks {
            for edge in self.cfg.succs(block) {
                if edge.kind != EdgeKind::Unwind {
                    continue;
                }
                let starts = self
                    .index
                    .first_op(edge.to)
                    .is_some_and(|f| is_landing(self.dfg.kind(f)));
                if !starts {
                    self.error_with_note(
                        self.dfg.loc(edge.op),
                        format!(
                            "the unwind destination {} of '{}' must begin with '{landing}'",
                            self.index.block_name(edge.to),
                            self.op_name(edge.op)
                        ),
                        self.block_loc(edge.to),
                        "block defined here",
                    );
                }
            }
        }
        for &op in landing_ops {
            let block = self.index.op_block[op].expect("placed");
            if self.index.op_pos[op] != 0 {
                self.op_error(
                    op,
                    format!("'{landing}' must be the first op of an unwind destination"),
                );
                continue;
            }
            let preds = self.cfg.preds(block);
            if preds.is_empty() {
                self.op_error(
                    op,
                    format!(
                        "'{landing}' must be in the unwind destination of a 'cir.try_call', but no edge reaches {}",
                        self.index.block_name(block)
                    ),
                );
            } else {
                self.check_only_unwind_edges_enter(op, landing, block);
            }
        }
    }

    /// A function with EH pads (`pads` names them in the error) has a personality routine.
    pub(crate) fn check_personality(&self, pads: &str) {
        if self.func.personality.is_none() {
            self.error(Diagnostic::error(
                self.func.loc,
                format!(
                    "@{} has {pads} but no personality routine",
                    self.func_name()
                ),
            ));
        }
    }

    /// Only unwind edges enter `block`, which begins with `pad` (whose name is `name`):
    /// a landing pad or an MSVC funclet pad.
    pub(crate) fn check_only_unwind_edges_enter(&self, pad: Op, name: &str, block: Block) {
        let preds = self.cfg.preds(block);
        if let Some(edge) = preds.iter().find(|e| e.kind != EdgeKind::Unwind) {
            self.error_with_note(
                self.dfg.loc(pad),
                format!(
                    "{} begins with '{name}', so only unwind edges may reach it",
                    self.index.block_name(block)
                ),
                self.dfg.loc(edge.op),
                "reached by this non-unwind edge",
            );
        }
    }

    // ---- flat: dispatch and catch blocks ------------------------------------------------

    /// The dispatch key that an edge from `cir.eh.dispatch` stands for.
    fn dispatch_key(&self, op: Op, index: u32) -> Option<HandlerKey> {
        match *self.dfg.kind(op) {
            OpKind::EhDispatch { keys } => self.handler_keys(keys).get(index as usize).copied(),
            _ => None,
        }
    }

    fn check_dispatch_and_catch_blocks(&self, ops: &[Op]) {
        for &op in ops {
            match *self.dfg.kind(op) {
                OpKind::EhDispatch { .. } => {
                    for edge in self.cfg.succs(self.index.op_block[op].expect("placed")) {
                        let catches = matches!(
                            self.dispatch_key(op, edge.index),
                            Some(HandlerKey::Catch(_) | HandlerKey::CatchAll)
                        );
                        // Upstream's `cir.construct_catch_param` may come first.
                        let mut first = self.index.first_op(edge.to);
                        while let Some(f) = first
                            && matches!(self.dfg.kind(f), OpKind::ConstructCatchParam { .. })
                        {
                            first = self.func.layout.next_op(f);
                        }
                        let begins =
                            first.is_some_and(|f| matches!(self.dfg.kind(f), OpKind::BeginCatch));
                        if catches && !begins {
                            self.error_with_note(
                                self.dfg.loc(op),
                                format!(
                                    "the catch block {} of 'cir.eh.dispatch' must begin with 'cir.begin_catch'",
                                    self.index.block_name(edge.to)
                                ),
                                self.block_loc(edge.to),
                                "block defined here",
                            );
                        }
                    }
                }
                OpKind::BeginCatch => self.check_begin_catch(op),
                _ => {}
            }
        }
    }

    fn check_begin_catch(&self, op: Op) {
        let block = self.index.op_block[op].expect("placed");
        let preds = self.cfg.preds(block);
        let from_catch_keys = !preds.is_empty()
            && preds.iter().all(|e| {
                e.kind == EdgeKind::Dispatch
                    && matches!(
                        self.dispatch_key(e.op, e.index),
                        Some(HandlerKey::Catch(_) | HandlerKey::CatchAll)
                    )
            });
        // Only upstream's `cir.construct_catch_param` may come before it.
        let mut first = true;
        let mut prev = self.func.layout.prev_op(op);
        while let Some(p) = prev {
            if !matches!(self.dfg.kind(p), OpKind::ConstructCatchParam { .. }) {
                first = false;
                break;
            }
            prev = self.func.layout.prev_op(p);
        }
        if !first || !from_catch_keys {
            self.op_error(
                op,
                "'cir.begin_catch' must be the first op of a block that only 'cir.eh.dispatch' catch keys branch to",
            );
            return;
        }
        let Some(&token) = self.dfg.operands(op).first() else {
            return;
        };
        // The block's token parameter, or the token every dispatching op dispatches (the
        // same exception, still in scope).
        let dispatched = preds
            .iter()
            .all(|e| self.dfg.operands(e.op).first() == Some(&token));
        let delivered = match self.dfg.block_params(block) {
            [param] => token == *param || dispatched,
            [] => dispatched,
            _ => true, // reported with the dispatch's successor rules
        };
        if !delivered {
            self.op_error(
                op,
                "'cir.begin_catch' must take the token that 'cir.eh.dispatch' delivers to its block",
            );
        }
    }

    // ---- flat: begin/end pairing -----------------------------------------------------

    /// Values that may carry what `seeds` produce, through block arguments on any edge:
    /// `origins` (emptied first) maps each such value to the sorted set of what it may
    /// carry.
    fn propagate<T: Copy + Ord>(
        &self,
        seeds: &[(Value, T)],
        origins: &mut SecondaryMap<Value, Vec<T>>,
        scratch: &mut PropagateScratch,
    ) {
        origins.clear();
        for &(v, t) in seeds {
            let set = &mut origins[v];
            if let Err(pos) = set.binary_search(&t) {
                set.insert(pos, t);
            }
        }
        if seeds.is_empty() {
            return;
        }
        // Worklist: a block is revisited when the origins of one of its parameters grow.
        let PropagateScratch { queued, worklist } = scratch;
        reset(queued, self.dfg.blocks.len());
        worklist.clear();
        worklist.extend(self.index.blocks.iter().rev().copied());
        for &b in worklist.iter() {
            queued[b] = true;
        }
        let mut incoming = Vec::new();
        while let Some(block) = worklist.pop() {
            queued[block] = false;
            for edge in self.cfg.succs(block) {
                let Some(&succ) = self.dfg.successors(edge.op).get(edge.index as usize) else {
                    continue;
                };
                let args = self.dfg.successor_args(succ);
                if args.is_empty() {
                    continue;
                }
                let params = self.dfg.block_params(edge.to);
                let mut changed = false;
                for (&a, &p) in args.iter().zip(params) {
                    if origins[a].is_empty() {
                        continue;
                    }
                    incoming.clear();
                    incoming.extend_from_slice(&origins[a]);
                    let set = &mut origins[p];
                    for &t in &incoming {
                        if let Err(pos) = set.binary_search(&t) {
                            set.insert(pos, t);
                            changed = true;
                        }
                    }
                }
                if changed && !queued[edge.to] {
                    queued[edge.to] = true;
                    worklist.push(edge.to);
                }
            }
        }
    }

    /// On every path from a `cir.begin_catch`/`cir.begin_cleanup`, exactly one end of its
    /// token runs before the path leaves the handler. A forward data-flow problem over the
    /// body's CFG whose state is, per handler ("scope"), whether it may be open and whether
    /// it may have ended; states are sparse (only scopes with a flag set).
    fn check_token_pairing(&self) {
        let Some(&body) = self.index.regions.first() else {
            return;
        };
        let mut eh = self.eh.borrow_mut();
        let EhScratch { ops, pairing } = &mut *eh;
        let PairingScratch {
            scope_of,
            seeds,
            origins,
            propagation,
            ends_of,
            relevant_pairs,
            relevant_scopes,
            relevant_range,
            marked,
            keep_open,
            state_in,
            visited,
            stack,
        } = pairing;
        let num_blocks = self.dfg.blocks.len();
        let blocks = self.index.region_blocks(body);
        // The begins that yield a token are the scopes, numbered in op order.
        let scopes: Vec<Op> = ops
            .begins
            .iter()
            .copied()
            .filter(|&op| !self.dfg.results(op).is_empty())
            .collect();
        if scopes.is_empty() {
            return;
        }
        scope_of.clear();
        seeds.clear();
        for (s, &op) in scopes.iter().enumerate() {
            scope_of[op] = s as u32 + 1;
            seeds.push((self.dfg.results(op)[0], s as u32));
        }
        self.propagate(seeds, origins, propagation);
        let origins = &*origins;
        // "May have ended" only matters where an end of the scope can still be reached
        // without passing its begin again: the blocks found walking backwards from its
        // ends, stopping at its begin. Elsewhere the flag is dropped, which keeps states
        // small in long functions with many handlers.
        for ends in ends_of.iter_mut() {
            ends.clear();
        }
        ends_of.resize_with(scopes.len(), Vec::new);
        for &op in &ops.ends {
            let ends_catch = matches!(self.dfg.kind(op), OpKind::EndCatch);
            let Some(&token) = self.dfg.operands(op).first() else {
                continue;
            };
            for &s in &origins[token] {
                if matches!(self.dfg.kind(scopes[s as usize]), OpKind::BeginCatch) == ends_catch {
                    ends_of[s as usize].push(self.index.op_block[op].expect("placed"));
                }
            }
        }
        // (block, scope) pairs, in increasing scope order; grouped by block below, so that
        // each block's scopes are one sorted slice of one list.
        relevant_pairs.clear();
        marked.clear();
        marked.resize(num_blocks);
        // `marked` holds scope + 1 (0: no scope yet).
        for (s, ends) in ends_of.iter().take(scopes.len()).enumerate() {
            let s = s as u32;
            let begin_block = self.index.op_block[scopes[s as usize]].expect("placed");
            stack.clear();
            stack.extend_from_slice(ends);
            while let Some(b) = stack.pop() {
                if marked[b] == s + 1 {
                    continue;
                }
                marked[b] = s + 1;
                relevant_pairs.push((b, s));
                if b == begin_block {
                    continue;
                }
                for edge in self.cfg.preds(b) {
                    if marked[edge.from] != s + 1 {
                        stack.push(edge.from);
                    }
                }
            }
        }
        // A stable sort keeps each block's scopes in increasing order.
        relevant_pairs.sort_by_key(|&(b, _)| b);
        relevant_scopes.clear();
        relevant_scopes.extend(relevant_pairs.iter().map(|&(_, s)| s));
        reset(relevant_range, num_blocks);
        let mut start = 0;
        for (i, &(b, _)) in relevant_pairs.iter().enumerate() {
            if i + 1 == relevant_pairs.len() || relevant_pairs[i + 1].0 != b {
                relevant_range[b] = (start, i as u32 + 1);
                start = i as u32 + 1;
            }
        }
        let relevant = |b: Block| {
            let (start, end) = relevant_range[b];
            &relevant_scopes[start as usize..end as usize]
        };
        // "May be open" only matters where an op that reads it can still be reached: a
        // begin (reached again while open) or an op that leaves handlers. Elsewhere (say,
        // the one terminate block that every cleanup's throwing call unwinds to) the flags
        // are dropped, so that such a join does not collect every open handler.
        reset(keep_open, num_blocks);
        stack.clear();
        for &op in ops.begins.iter().chain(&ops.leaving) {
            let block = self.index.op_block[op].expect("placed");
            if self.index.block_region[block].expand() == Some(body) && !keep_open[block] {
                keep_open[block] = true;
                stack.push(block);
            }
        }
        while let Some(b) = stack.pop() {
            for edge in self.cfg.preds(b) {
                if !keep_open[edge.from] {
                    keep_open[edge.from] = true;
                    stack.push(edge.from);
                }
            }
        }
        // States are empty until a begin: the analysis starts at the reachable blocks that
        // begin a handler, and the blocks no begin reaches (most of a long function) are
        // neither visited nor checked (with an empty state they could report nothing).
        for state in state_in.values_mut() {
            state.0.clear();
        }
        state_in.resize(num_blocks);
        reset(visited, num_blocks);
        stack.clear();
        for &scope in scopes.iter().rev() {
            let block = self.index.op_block[scope].expect("placed");
            if self.index.block_region[block].expand() == Some(body)
                && self.cfg.reachable[block]
                && !visited[block]
            {
                visited[block] = true;
                stack.push(block);
            }
        }
        let quiet = |_: Diagnostic| {};
        // Scratch states reused from block to block.
        let mut state = ScopeState::default();
        let mut incoming = ScopeState::default();
        // A block is visited when a state with a flag reaches it: with an empty state a
        // block can report nothing (its begins are seeds of their own), so the rest of a
        // long function after the handlers' ends is not walked.
        while let Some(block) = stack.pop() {
            state.copy_from(&state_in[block]);
            self.pairing_transfer(block, &mut state, &scopes, scope_of, origins, &quiet);
            for edge in self.cfg.succs(block) {
                let to = edge.to;
                state.pruned_into(relevant(to), keep_open[to], &mut incoming);
                if state_in[to].merge(&incoming) {
                    visited[to] = true;
                    stack.push(to);
                }
            }
        }
        let report = |d: Diagnostic| self.error(d);
        for &block in blocks {
            if !visited[block] {
                continue;
            }
            state.copy_from(&state_in[block]);
            self.pairing_transfer(block, &mut state, &scopes, scope_of, origins, &report);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn pairing_transfer(
        &self,
        block: Block,
        state: &mut ScopeState,
        scopes: &[Op],
        scope_of: &SecondaryMap<Op, u32>,
        origins: &SecondaryMap<Value, Vec<u32>>,
        report: &dyn Fn(Diagnostic),
    ) {
        let what = |s: Op| match self.dfg.kind(s) {
            OpKind::BeginCatch => ("catch", "cir.end_catch"),
            _ => ("cleanup", "cir.end_cleanup"),
        };
        let is_catch = |s: Op| matches!(self.dfg.kind(s), OpKind::BeginCatch);
        for &op in self.index.block_ops(block) {
            let kind = *self.dfg.kind(op);
            let name = kind.name();
            // Which open scopes this op leaves without ending them, and how.
            let leaves: Option<(Leaves, &str)> = match kind {
                OpKind::BeginCatch | OpKind::BeginCleanup => {
                    // A begin without a token (reported by its shape check) opens nothing.
                    let Some(s) = scope_of[op].checked_sub(1) else {
                        continue;
                    };
                    if state.get(s) & OPEN != 0 {
                        report(Diagnostic::error(
                            self.dfg.loc(op),
                            format!(
                                "'{name}' is reached again while the {} it began is still open",
                                what(op).0
                            ),
                        ));
                    }
                    state.set(s, OPEN);
                    None
                }
                OpKind::EndCatch | OpKind::EndCleanup => {
                    if let Some(&token) = self.dfg.operands(op).first() {
                        let ends_catch = matches!(kind, OpKind::EndCatch);
                        for &s in &origins[token] {
                            let scope = scopes[s as usize];
                            // An end of the other kind is a type error, not an end.
                            if is_catch(scope) != ends_catch {
                                continue;
                            }
                            if state.get(s) & ENDED != 0 {
                                report(
                                    Diagnostic::error(
                                        self.dfg.loc(op),
                                        format!(
                                            "'{name}' may end a {} that has already ended on some path",
                                            what(scope).0
                                        ),
                                    )
                                    .with_note(self.dfg.loc(scope), "begun here"),
                                );
                            }
                            state.set(s, ENDED);
                        }
                    }
                    None
                }
                _ => self.handlers_left(op),
            };
            let Some((leaves, verb)) = leaves else {
                continue;
            };
            let open: Vec<u32> = state
                .0
                .iter()
                .filter(|&&(s, f)| {
                    f & OPEN != 0
                        && match leaves {
                            Leaves::All => true,
                            Leaves::Cleanups => !is_catch(scopes[s as usize]),
                        }
                })
                .map(|&(s, _)| s)
                .collect();
            for s in open {
                let scope = scopes[s as usize];
                // Report once: a handler abandoned at a dispatch is not reported again
                // further down the path.
                if let Leaves::Cleanups = leaves {
                    state.set(s, 0);
                }
                let (noun, end) = what(scope);
                report(
                    Diagnostic::error(
                        self.dfg.loc(op),
                        format!("'{name}' {verb} the {noun} begun here without '{end}'"),
                    )
                    .with_note(self.dfg.loc(scope), "begun here"),
                );
            }
        }
    }

    /// Which open handlers `op` leaves without ending them, and the verb that says how.
    fn handlers_left(&self, op: Op) -> Option<(Leaves, &'static str)> {
        match self.dfg.kind(op) {
            OpKind::Return | OpKind::Resume | OpKind::ResumeFlat => Some((Leaves::All, "leaves")),
            OpKind::Throw { .. } if self.dfg.successors(op).is_empty() => {
                Some((Leaves::All, "leaves"))
            }
            OpKind::EhDispatch { .. } => Some((Leaves::Cleanups, "dispatches out of")),
            _ => None,
        }
    }

    // ---- itanium: typeid compares ------------------------------------------------------

    /// A compare between a landing pad's selector and `cir.eh.typeid @T` must only see
    /// landing pads that list `@T`.
    fn check_typeid_compares(&self, ops: &EhOps) {
        let selector_seeds: Vec<(Value, Op)> = ops
            .landing_pads
            .iter()
            .filter_map(|&op| Some((*self.dfg.results(op).get(1)?, op)))
            .collect();
        let typeid_seeds: Vec<(Value, Symbol)> = ops
            .typeids
            .iter()
            .filter_map(|&op| match *self.dfg.kind(op) {
                OpKind::EhTypeId { type_info } => Some((*self.dfg.results(op).first()?, type_info)),
                _ => None,
            })
            .collect();
        if selector_seeds.is_empty() || typeid_seeds.is_empty() {
            return;
        }
        let mut scratch = PropagateScratch::default();
        let mut selectors = SecondaryMap::new();
        self.propagate(&selector_seeds, &mut selectors, &mut scratch);
        let mut typeids = SecondaryMap::new();
        self.propagate(&typeid_seeds, &mut typeids, &mut scratch);
        for &op in &ops.compares {
            let operands = self.dfg.operands(op);
            let mut pads: Vec<Op> = Vec::new();
            let mut types: Vec<Symbol> = Vec::new();
            for &v in operands {
                pads.extend(selectors[v].iter().copied());
                types.extend(typeids[v].iter().copied());
            }
            pads.sort();
            pads.dedup();
            types.sort();
            types.dedup();
            for &t in &types {
                let missing = pads
                    .iter()
                    .copied()
                    .find(|&pad| !self.landing_pad_lists(pad, t));
                if let Some(pad) = missing {
                    self.error_with_note(
                        self.dfg.loc(op),
                        format!(
                            "'cir.cmp' compares a landing-pad selector with the typeid of @{}, which the landing pad does not list, so it can never be equal",
                            self.sym_str(t)
                        ),
                        self.dfg.loc(pad),
                        "landing pad defined here",
                    );
                }
            }
        }
    }

    fn landing_pad_lists(&self, pad: Op, typeinfo: Symbol) -> bool {
        let OpKind::EhLandingPad { clauses, .. } = *self.dfg.kind(pad) else {
            return false;
        };
        match self.dfg.extras.get(clauses) {
            Some(ExtraData::LandingPadClauses(list)) => {
                list.contains(&LandingPadClause::Catch(Some(typeinfo)))
            }
            _ => false,
        }
    }
}
